//! Running the `ndl` binary and checking what it printed, for the
//! command-line tests.

use std::path::Path;
use std::process::Command;

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
