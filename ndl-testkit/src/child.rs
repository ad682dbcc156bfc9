//! The test binary re-run on one of its own tests, as a child process: how
//! a test kills a writer mid-write, confines a possible abort, or gives S3
//! code its own environment without changing the test process's.
//!
//! The child finds itself by an environment variable the parent sets, and
//! speaks through [`say`]: lines starting with `@`, which [`Running`]
//! reads apart from the harness's own output.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long [`Running::wait_for`] waits for a line.
const PATIENCE: Duration = Duration::from_secs(30);

/// This test binary, set to run the one test `test`, alone and printing.
///
/// `test` is the test function's name; its module path within the binary
/// is looked up, so a test need not know which module of the one
/// integration-test binary it sits in.
pub fn this_test(test: &str) -> Command {
    let exe = std::env::current_exe().expect("the test binary's path");
    let full = full_name(&exe, test);
    let mut command = Command::new(exe);
    command.args([full.as_str(), "--exact", "--nocapture", "--test-threads=1"]);
    command
}

/// The one test of the binary `exe` named `test` or ending in `::test`.
fn full_name(exe: &std::path::Path, test: &str) -> String {
    let listed = Command::new(exe)
        .args(["--list", "--format", "terse"])
        .output()
        .expect("the test binary lists its tests");
    let listed = String::from_utf8_lossy(&listed.stdout);
    let suffix = format!("::{test}");
    let found: Vec<&str> = listed
        .lines()
        .filter_map(|line| line.strip_suffix(": test"))
        .filter(|name| *name == test || name.ends_with(&suffix))
        .collect();
    match found.as_slice() {
        [one] => one.to_string(),
        _ => panic!(
            "expected one test named {test} in {}, found {found:?}",
            exe.display()
        ),
    }
}

/// Says `what` to the parent: one `@` line.
///
/// The harness prints `test NAME ... ` first without a newline, so the line
/// starts with one.
pub fn say(what: &str) {
    println!("\n@{what}");
}

/// A running child and the `@` lines it said; dropping it kills the child.
pub struct Running {
    child: Child,
    lines: Receiver<String>,
    /// Every `@` line read so far, without its `@`.
    seen: Vec<String>,
}

impl Running {
    /// Starts `command` with its stdout read line by line; its stderr goes
    /// to the test's.
    pub fn spawn(command: &mut Command) -> Running {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the child starts");
        let stdout = child.stdout.take().expect("a piped stdout");
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let Some(said) = line.strip_prefix('@') else {
                    continue;
                };
                if send.send(said.to_string()).is_err() {
                    break;
                }
            }
        });
        Running {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// The child's process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the child to say `wanted`; panics after 30 s, or if the
    /// child ends first.
    pub fn wait_for(&mut self, wanted: &str) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let done = line == wanted;
                    self.seen.push(line);
                    if done {
                        return;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no `{wanted}` from the child; it said {:?}", self.seen)
                }
                Err(RecvTimeoutError::Disconnected) => panic!(
                    "the child ended before `{wanted}` ({:?}); it said {:?}",
                    self.child.try_wait(),
                    self.seen
                ),
            }
        }
    }

    /// SIGKILLs the child, which must still be running, and returns every
    /// line it said.
    pub fn kill(mut self) -> Vec<String> {
        let running = self.child.try_wait().expect("the child's state").is_none();
        assert!(running, "the child ended before the kill: {:?}", self.seen);
        self.child.kill().expect("the child is killed");
        let status = self.child.wait().expect("the killed child is reaped");
        assert!(!status.success(), "{status}");
        self.drain()
    }

    /// Waits for the child to end; its status and every line it said.
    pub fn wait(mut self) -> (ExitStatus, Vec<String>) {
        let status = self.child.wait().expect("the child is reaped");
        (status, self.drain())
    }

    /// The lines still in the pipe, now closed, after those seen.
    fn drain(&mut self) -> Vec<String> {
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(5)) {
            self.seen.push(line);
        }
        std::mem::take(&mut self.seen)
    }
}

impl Drop for Running {
    /// A failed assertion must not leave the child running.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The flushes and renames (`strace -f`) of the one test `test` of this
/// binary, run as a child with `env` set: the lines of the calls of
/// `fsync`, `fdatasync` and the `rename`s, in order.
pub fn traced_flushes(test: &str, env: (&str, &str)) -> Vec<String> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let trace = dir.path().join("trace");
    let child = this_test(test);
    let out = Command::new("strace")
        .args([
            "-f",
            "-e",
            "trace=fsync,fdatasync,rename,renameat,renameat2",
            "-o",
        ])
        .arg(&trace)
        .arg(child.get_program())
        .args(child.get_args())
        .env(env.0, env.1)
        .output()
        .expect("strace runs (Debian package strace)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(&trace)
        .expect("strace wrote its trace")
        .lines()
        .filter(|l| l.contains("sync(") || l.contains("rename"))
        .map(String::from)
        .collect()
}

/// Checks `calls` ([`traced_flushes`]) of a write that published a
/// hidden `.tmp` file: with `durable`, the file flushed before its rename
/// and the directory after; without, no flush at all.
pub fn assert_durable_publish(calls: &[String], durable: bool) {
    let rename = calls
        .iter()
        .position(|l| l.contains("rename") && l.contains(".tmp\""))
        .unwrap_or_else(|| panic!("no rename of a hidden file: {calls:#?}"));
    if !durable {
        assert!(calls.iter().all(|l| !l.contains("sync(")), "{calls:#?}");
        return;
    }
    assert!(
        rename > 0 && calls[rename - 1].contains("sync("),
        "{calls:#?}"
    );
    assert!(
        calls.get(rename + 1).is_some_and(|l| l.contains("sync(")),
        "{calls:#?}"
    );
}
