//! HDF5 files are read in a child process: Debian's libhdf5 1.10.8 can
//! crash (SIGSEGV, an abort) on a damaged file, as its own `h5dump` does,
//! and a crash in a C library would otherwise take the command down with
//! no word about which file did it. The child is this very command, run
//! again with the same arguments; the parent turns its death by a signal
//! into one `ndl: error:` line naming the file.

use std::path::Path;
use std::process::{Child, Command, ExitCode, ExitStatus};
use std::time::{Duration, Instant};

/// Set in the child, which then does the work itself.
const CHILD: &str = "NDL_READER_PROCESS";

/// Set in a converting child: the file it makes once it has read the
/// source's metadata and moves its data ([`data_moves`]).
const MOVING: &str = "NDL_READER_MOVING";

/// How long a description, or the reading of a conversion's metadata, may
/// take before the child is taken to be stuck in the HDF5 library (which
/// loops on some damaged heaps): far longer than any sound file takes.
/// `NDL_DESCRIBE_SECONDS` sets it.
const DESCRIBE_SECONDS: u64 = 300;

/// What of the child's work has a time limit.
pub enum Limit {
    /// All of it: a description.
    Whole(Duration),
    /// Until its data moves: a conversion, whose data may take hours.
    UntilDataMoves(Duration),
}

/// Runs the command again in a child process when `source` is an HDF5
/// file and this is not that child already, and returns how it ended;
/// `None` where this process should do the work. A child that runs past
/// its `limit` is stopped.
pub fn run_isolated(source: &Path, limit: Limit) -> Option<ExitCode> {
    if std::env::var_os(CHILD).is_some() || !crash_prone(source) {
        return None;
    }
    let exe = std::env::current_exe().ok()?;
    let mut command = Command::new(exe);
    command.args(std::env::args_os().skip(1)).env(CHILD, "1");
    let moving = match limit {
        Limit::Whole(_) => None,
        Limit::UntilDataMoves(_) => {
            let marker = std::env::temp_dir().join(format!(".ndl-moving-{}", std::process::id()));
            // The child makes it: until then it is reading metadata.
            let _ = std::fs::remove_file(&marker);
            command.env(MOVING, &marker);
            Some(marker)
        }
    };
    let mut child = command.spawn().ok()?;
    let (Limit::Whole(seconds) | Limit::UntilDataMoves(seconds)) = limit;
    let waited = wait(&mut child, seconds, moving.as_deref());
    if let Some(marker) = &moving {
        let _ = std::fs::remove_file(marker);
    }
    let status = match waited {
        Ok(Some(status)) => status,
        Ok(None) => {
            let _ = child.kill();
            let _ = child.wait();
            eprintln!(
                "ndl: error: {}: the HDF5 library did not finish reading {} in {} s \
                 (it loops on some damaged files); stopped",
                source.display(),
                if moving.is_some() {
                    "its metadata"
                } else {
                    "it"
                },
                seconds.as_secs()
            );
            return Some(ExitCode::FAILURE);
        }
        Err(_) => return None,
    };
    if let Some(code) = status.code() {
        return Some(ExitCode::from(u8::try_from(code).unwrap_or(1)));
    }
    eprintln!(
        "ndl: error: {}: the HDF5 library crashed reading it ({}): the file is damaged, \
         or holds what this build's libhdf5 cannot read; nothing was written",
        source.display(),
        signal_name(&status)
    );
    Some(ExitCode::FAILURE)
}

/// The time a description of an HDF5 file may take.
pub fn describe_limit() -> Duration {
    let seconds = std::env::var("NDL_DESCRIBE_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DESCRIBE_SECONDS);
    Duration::from_secs(seconds)
}

/// The child's exit, or `None` once `limit` has passed without one and,
/// where `moving` is given, without the child making it.
fn wait(
    child: &mut Child,
    limit: Duration,
    moving: Option<&Path>,
) -> std::io::Result<Option<ExitStatus>> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if moving.is_some_and(Path::exists) {
            return child.wait().map(Some);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.try_wait()
}

/// Says, in a converting child, that the source's metadata is read and its
/// data moves: from then on the child has no time limit.
pub fn data_moves() {
    if let Some(marker) = std::env::var_os(MOVING) {
        let _ = std::fs::File::create(marker);
    }
}

/// Whether the file at `path` is of a format read through a C library
/// that a damaged file can crash.
fn crash_prone(path: &Path) -> bool {
    ndl_formats::Format::of_existing(path).is_ok_and(|f| f.info().crash_prone)
}

#[cfg(unix)]
fn signal_name(status: &ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status.signal() {
        Some(6) => "SIGABRT".into(),
        Some(7) => "SIGBUS".into(),
        Some(8) => "SIGFPE".into(),
        Some(9) => "SIGKILL".into(),
        Some(11) => "SIGSEGV".into(),
        Some(n) => format!("signal {n}"),
        None => "no exit code".into(),
    }
}

#[cfg(not(unix))]
fn signal_name(_: &ExitStatus) -> String {
    "no exit code".into()
}
