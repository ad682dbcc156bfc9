//! The Python side of a comparison: a timing script run in the peer's
//! Python, its figures read back as JSON.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

/// Runs `script` (the timing script of `peer`, such as "h5py") in
/// `python` with `args`, and returns the JSON it printed, checked to be
/// about `records` records: a failed script stops the comparison with its
/// stderr, never a figure left out.
pub fn run_peer_script<S: AsRef<OsStr>>(
    python: &Path,
    script: &Path,
    peer: &str,
    args: &[S],
    records: usize,
) -> serde_json::Value {
    let out = Command::new(python)
        .arg(script)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("run the {peer} timing script: {e}"));
    assert!(
        out.status.success(),
        "the {peer} timing script failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("the {peer} timing script printed no JSON: {e}"));
    assert_eq!(
        json["records"].as_u64(),
        Some(records as u64),
        "{peer}: records"
    );
    json
}
