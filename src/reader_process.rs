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

/// How long a description may take before the child is taken to be stuck
/// in the HDF5 library (which loops on some damaged heaps): far longer
/// than describing any sound file takes. `NDL_DESCRIBE_SECONDS` sets it.
const DESCRIBE_SECONDS: u64 = 300;

/// Runs the command again in a child process when `source` is an HDF5
/// file and this is not that child already, and returns how it ended;
/// `None` where this process should do the work. A description (`limit`)
/// that runs longer than its limit is stopped.
pub fn run_isolated(source: &Path, limit: Option<Duration>) -> Option<ExitCode> {
    if std::env::var_os(CHILD).is_some() || !crash_prone(source) {
        return None;
    }
    let exe = std::env::current_exe().ok()?;
    let mut child = Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env(CHILD, "1")
        .spawn()
        .ok()?;
    let status = match wait(&mut child, limit) {
        Ok(Some(status)) => status,
        Ok(None) => {
            let _ = child.kill();
            let _ = child.wait();
            eprintln!(
                "ndl: error: {}: the HDF5 library did not finish reading it in {} s \
                 (it loops on some damaged files); stopped",
                source.display(),
                limit.unwrap_or_default().as_secs()
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

/// The child's exit, or `None` once `limit` has passed without one.
fn wait(child: &mut Child, limit: Option<Duration>) -> std::io::Result<Option<ExitStatus>> {
    let Some(limit) = limit else {
        return child.wait().map(Some);
    };
    let start = Instant::now();
    while start.elapsed() < limit {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.try_wait()
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
