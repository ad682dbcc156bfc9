//! Running the `ndl` binary and checking what it printed, for the
//! command-line tests.

use std::path::Path;
use std::process::Command;

use ndl_runtime::ndl::{Extent, Ndarray};

pub use ndl_testkit::netcdf::{compile_cdl, ncgen};

/// The binary under test.
pub const NDL: &str = env!("CARGO_BIN_EXE_ndl");

/// What one run of the binary did.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Runs the binary with `args`; a panic is never an acceptable outcome.
pub fn ndl(args: &[&str]) -> Run {
    let out = Command::new(NDL)
        .args(args)
        .output()
        .expect("the ndl binary runs");
    let run = Run {
        code: out.status.code(),
        stdout: String::from_utf8(out.stdout).expect("ndl prints UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("ndl prints UTF-8 errors"),
    };
    assert!(
        !run.stderr.contains("panicked"),
        "ndl {args:?} panicked:\n{}",
        run.stderr
    );
    run
}

/// Every language `ndl describe --format` speaks.
pub const FORMATS: [&str; 5] = ["ndl", "numpy", "datashape", "zarr", "cdl"];

/// `ndl describe PATH --format FORMAT`, then `extra`.
pub fn describe(path: &Path, format: &str, extra: &[&str]) -> Run {
    let mut args = vec!["describe", path.to_str().unwrap(), "--format", format];
    args.extend_from_slice(extra);
    ndl(&args)
}

/// `ndl convert SRC DST`, then `extra`.
pub fn convert(src: &Path, dst: &Path, extra: &[&str]) -> Run {
    let mut args = vec!["convert", src.to_str().unwrap(), dst.to_str().unwrap()];
    args.extend_from_slice(extra);
    ndl(&args)
}

/// A conversion that succeeded: exit 0 and nothing at all printed; stderr
/// is a pipe here, not a terminal, so no progress bar either.
pub fn converted(run: Run, what: &str) {
    assert_eq!(run.code, Some(0), "{what}: {run:#?}");
    assert!(
        run.stderr.is_empty(),
        "{what}: stderr is not a terminal, yet something was printed (a progress bar?): {:?}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "{what}: stdout not empty: {run:#?}");
}

/// Exit 0, something on stdout, nothing on stderr.
pub fn ok(run: Run, what: &str) -> String {
    assert_eq!(run.code, Some(0), "{what}: {run:#?}");
    assert!(run.stderr.is_empty(), "{what}: unexpected stderr: {run:#?}");
    assert!(!run.stdout.is_empty(), "{what}: no output");
    run.stdout
}

/// Exit 1, nothing on stdout, one `ndl: error:` line naming `path` and
/// holding every word of `words`.
pub fn refused(run: &Run, path: &Path, words: &[&str]) {
    let what = path.display().to_string();
    assert_eq!(run.code, Some(1), "{what}: {run:#?}");
    assert!(run.stdout.is_empty(), "{what}: stdout not empty: {run:#?}");
    assert!(
        run.stderr.starts_with("ndl: error: "),
        "{what}: {}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&what),
        "{what}: the error does not name the file: {}",
        run.stderr
    );
    for w in words {
        assert!(
            run.stderr.contains(w),
            "{what}: the error lacks {w:?}: {}",
            run.stderr
        );
    }
    assert_eq!(
        run.stderr.lines().count(),
        1,
        "{what}: one line expected: {}",
        run.stderr
    );
}

/// The shape of a described ndarray, every extent a number.
pub fn shape_of(nd: &Ndarray) -> Vec<usize> {
    nd.shape
        .0
        .iter()
        .map(|e| match e {
            Extent::Size(n) => *n,
            other => panic!("a numeric extent expected, got {other:?}"),
        })
        .collect()
}

/// CDL without the records its unlimited dimensions hold, which is data,
/// not header (`UNLIMITED ; // (3 currently)`), and which ncgen does not
/// make (it writes the header only).
pub fn without_records(cdl: &str) -> String {
    cdl.lines()
        .map(|l| match l.split_once("UNLIMITED ; // (") {
            Some((head, _)) => format!("{head}UNLIMITED ;"),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}
