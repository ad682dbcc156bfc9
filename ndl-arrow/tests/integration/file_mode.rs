//! New Parquet and Arrow files get the mode of any new file (0666 less the
//! umask), not the 0600 of the hidden file they are written in.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use ndl_runtime::NdlType;

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Point {
    x: f64,
    y: f64,
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn new_files_get_the_mode_of_any_new_file() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    std::fs::File::create(&plain).unwrap();
    let points = [Point { x: 1.0, y: 2.0 }];
    let parquet = dir.path().join("p.parquet");
    ndl_arrow::write_parquet(&parquet, &points).unwrap();
    assert_eq!(mode(&parquet), mode(&plain));
    let ipc = dir.path().join("p.arrow");
    ndl_arrow::write_ipc(&ipc, &points).unwrap();
    assert_eq!(mode(&ipc), mode(&plain));
}
