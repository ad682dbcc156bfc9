//! Running the real Python peers, and small file helpers the tests share.

use std::path::PathBuf;
use std::process::Command;

/// The Python interpreter of the test venv (numpy, PyYAML, datashape, zarr).
///
/// `scripts/test-all.sh` provisions it and sets `NDL_PYTHON`; a repository
/// `.venv` made by that script is found too. Without either the test fails:
/// a cross-check never passes by skipping.
pub fn python() -> PathBuf {
    venv_python("NDL_PYTHON", ".venv", "Python with numpy")
}

/// The Python 3.12 interpreter of the second test venv (zarr-python 3.4,
/// xarray, Dask, netCDF4, moto, s3fs, pyarrow, polars, DuckDB), from
/// `NDL_PYTHON312` or `.venv312`.
pub fn python312() -> PathBuf {
    venv_python("NDL_PYTHON312", ".venv312", "Python 3.12 with zarr 3.4")
}

/// The interpreter `var` names, else that of the workspace's venv `dir`;
/// neither is a failure naming `what` and how to get it.
fn venv_python(var: &str, dir: &str, what: &str) -> PathBuf {
    if let Some(p) = std::env::var_os(var) {
        return PathBuf::from(p);
    }
    let venv = workspace_root().join(dir).join("bin/python");
    assert!(
        venv.exists(),
        "no {what}: run the tests with scripts/test-all.sh, which provisions {dir} and sets {var}"
    );
    venv
}

/// Runs a Python script with `python` and arguments, asserts it
/// succeeded, returns its stdout.
pub fn run_with(python: &std::path::Path, script: &str, args: &[&str]) -> String {
    run(python, &["-c".as_ref(), script.as_ref()], args, script)
}

/// Runs the Python file `script` with `python` and arguments, asserts it
/// succeeded, returns its stdout.
pub fn run_file(python: &std::path::Path, script: &std::path::Path, args: &[&str]) -> String {
    let what = format!("{} {args:?}", script.display());
    run(python, &[script.as_os_str()], args, &what)
}

/// `python` with `first` then `args`; `what` names the script when it fails.
fn run(python: &std::path::Path, first: &[&std::ffi::OsStr], args: &[&str], what: &str) -> String {
    let out = Command::new(python)
        .args(first)
        .args(args)
        .output()
        .expect("the test venv's python runs");
    assert!(
        out.status.success(),
        "{} failed:\n--- script\n{what}\n--- stderr\n{}",
        python.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs a Python script with arguments, asserts it succeeded, returns its stdout.
pub fn run_python(script: &str, args: &[&str]) -> String {
    let (ok, stdout, stderr) = try_python(script, args);
    assert!(
        ok,
        "python failed:\n--- script\n{script}\n--- stderr\n{stderr}"
    );
    stdout
}

/// Runs a Python script and returns (success, stdout, stderr) without asserting.
pub fn try_python(script: &str, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(python())
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("the test venv's python runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Writes with xarray, in `python312`, a Zarr group of two columns along
/// `row` (`t`, 12 halves in `K`, and `n`, multiples of 3 as `i4`), titled
/// "from xarray", in chunks of 5: what the columns tests read as `{t: f64,
/// n: i32}` records.
pub fn xarray_group(path: &std::path::Path, zarr_format: u8, consolidated: bool) {
    run_with(
        &python312(),
        "import sys, numpy as np, xarray as xr\n\
         ds = xr.Dataset({'t': ('row', np.arange(12) / 2), 'n': ('row', np.arange(12, dtype='i4') * 3)}, attrs={'title': 'from xarray'})\n\
         ds['t'].attrs['units'] = 'K'\n\
         ds.to_zarr(sys.argv[1], zarr_format=int(sys.argv[2]), consolidated=sys.argv[3] == 'True', encoding={'t': {'chunks': (5,)}, 'n': {'chunks': (5,)}})",
        &[
            path.to_str().expect("a UTF-8 path"),
            &zarr_format.to_string(),
            &consolidated.to_string(),
        ],
    );
}

/// The start of a `.npy` file: magic, `version`.0, the length field for
/// `text` (2 bytes in version 1, 4 in the others), then `text`.
pub fn npy_file(version: u8, text: &[u8]) -> Vec<u8> {
    let mut f = b"\x93NUMPY".to_vec();
    f.extend_from_slice(&[version, 0]);
    if version == 1 {
        f.extend_from_slice(&(text.len() as u16).to_le_bytes());
    } else {
        f.extend_from_slice(&(text.len() as u32).to_le_bytes());
    }
    f.extend_from_slice(text);
    f
}

/// Defines `EU8`, `EI8`, ... `EI64`: an enum of each integer base with the
/// members `Low` (the base's minimum), `One` and `High` (its maximum), and
/// `of(i)`, the member `i % 3`.
#[macro_export]
macro_rules! every_enum_base {
    () => {
        $crate::every_enum_base!(EU8 u8, EI8 i8, EU16 u16, EI16 i16, EU32 u32, EI32 i32, EU64 u64, EI64 i64);
    };
    ($($name:ident $t:ident),*) => {$(
        #[derive(Clone, Copy, Debug, PartialEq, ::ndl_runtime::NdlType)]
        #[repr($t)]
        enum $name {
            Low = $t::MIN as isize as _,
            One = 1,
            High = $t::MAX as _,
        }
        #[allow(dead_code)]
        impl $name {
            fn of(i: u32) -> $name {
                [$name::Low, $name::One, $name::High][(i % 3) as usize]
            }
        }
    )*};
}

/// The names of the entries of `dir`, sorted.
pub fn names(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The workspace's root directory, where `scripts/test-all.sh` makes the
/// venvs: the parent of this crate's directory.
fn workspace_root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent().map_or(here.clone(), PathBuf::from)
}
