//! The netCDF tools (`ncgen`, `ncdump` of Debian's netcdf-bin) that check
//! CDL text. A missing tool fails the test: a cross-check never passes by
//! skipping.

use std::path::{Path, PathBuf};
use std::process::Command;

/// `ncgen`, which must be installed.
pub fn ncgen() -> &'static str {
    let found = Command::new("ncgen").arg("-version").output();
    assert!(
        found.is_ok(),
        "ncgen is not installed (Debian package netcdf-bin): the CDL output cannot be checked"
    );
    "ncgen"
}

/// Compiles CDL with `ncgen -k nc4` as `<dir>/<name>.nc`, or says why
/// `ncgen` refused it.
pub fn try_ncgen(cdl: &str, dir: &Path, name: &str) -> Result<PathBuf, String> {
    let src = dir.join(format!("{name}.cdl"));
    let nc = dir.join(format!("{name}.nc"));
    std::fs::write(&src, cdl).unwrap();
    let out = Command::new(ncgen())
        .args(["-k", "nc4", "-o"])
        .arg(&nc)
        .arg(&src)
        .output()
        .unwrap();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(nc)
}

/// Compiles CDL with `ncgen -k nc4` and returns `ncdump -h` of the result.
pub fn compile_cdl(cdl: &str, dir: &Path, name: &str) -> String {
    let nc = try_ncgen(cdl, dir, name).unwrap_or_else(|err| {
        panic!("ncgen -k nc4 refused the CDL of {name}:\n{err}\n--- CDL\n{cdl}")
    });
    ncdump(&["-h"], &nc)
}

/// What `ncdump` prints of the file at `path` with the options `args`
/// (`-h` for the header); fails the test when ncdump is missing or fails.
pub fn ncdump(args: &[&str], path: &Path) -> String {
    let out = Command::new("ncdump")
        .args(args)
        .arg(path)
        .output()
        .expect("ncdump (Debian package netcdf-bin) is installed");
    assert!(
        out.status.success(),
        "ncdump {args:?} {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("ncdump prints UTF-8")
}
