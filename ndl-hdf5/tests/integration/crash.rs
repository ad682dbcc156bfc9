//! kill -9 in the middle of writing a new HDF5 file: no file appears at
//! its path, only the hidden one it was being built in; a file written
//! before under that name is untouched.

use std::path::Path;

use ndl_hdf5::DatasetWriter;
use ndl_testkit::child::{Running, say, this_test};
use ndl_testkit::records::Padded;

const CHILD: &str = "NDL_HDF5_CRASH_CHILD";

fn records(first: u32, n: u32) -> Vec<Padded> {
    (first..first + n)
        .map(|i| Padded {
            a: i as u8,
            b: f64::from(i),
            c: i as u16,
        })
        .collect()
}

/// The child: appends forever to a new file at `path`, saying so.
fn write_until_killed(path: &Path) {
    let mut w = DatasetWriter::<Padded>::create(path, "data").unwrap();
    for k in 0.. {
        w.append(&records(k * 10_000, 10_000)).unwrap();
        say("appended");
    }
}

#[test]
fn a_killed_writer_leaves_no_file_and_keeps_the_old_one() {
    if let Ok(path) = std::env::var(CHILD) {
        write_until_killed(Path::new(&path));
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.h5");
    let old = records(7, 3);
    ndl_hdf5::write(&path, "data", &old).unwrap();

    let mut child = Running::spawn(
        this_test("a_killed_writer_leaves_no_file_and_keeps_the_old_one").env(CHILD, &path),
    );
    child.wait_for("appended");
    child.wait_for("appended");
    child.kill();

    assert_eq!(ndl_hdf5::read::<Padded>(&path, "data").unwrap(), old);
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        names
            .iter()
            .any(|n| n.starts_with(".out.h5.") && n.ends_with(".tmp")),
        "{names:?}"
    );
}

/// The child: appends forever to a copy of the file at `path`.
fn append_copy_until_killed(path: &Path) {
    let mut w = DatasetWriter::<Padded>::open_copy(path, "data").unwrap();
    for k in 0.. {
        w.append(&records(k * 10_000, 10_000)).unwrap();
        say("appended");
    }
}

const COPY_CHILD: &str = "NDL_HDF5_COPY_CRASH_CHILD";

#[test]
fn a_killed_copy_append_leaves_the_file_as_it_was() {
    if let Ok(path) = std::env::var(COPY_CHILD) {
        append_copy_until_killed(Path::new(&path));
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("grow.h5");
    let old = records(7, 3);
    ndl_hdf5::write(&path, "data", &old).unwrap();

    let mut child = Running::spawn(
        this_test("a_killed_copy_append_leaves_the_file_as_it_was").env(COPY_CHILD, &path),
    );
    child.wait_for("appended");
    // While the child appends, the file is locked against a second writer.
    let e = DatasetWriter::<Padded>::open_copy(&path, "data")
        .err()
        .expect("a second writer is refused");
    assert!(e.to_string().contains("another writer"), "{e}");
    child.wait_for("appended");
    child.kill();

    assert_eq!(ndl_hdf5::read::<Padded>(&path, "data").unwrap(), old);
    // Appending by copy, finished, keeps the old records and adds the new.
    let mut w = DatasetWriter::<Padded>::open_copy(&path, "data").unwrap();
    w.append(&records(10, 2)).unwrap();
    w.finish().unwrap();
    let mut want = old.clone();
    want.extend(records(10, 2));
    assert_eq!(ndl_hdf5::read::<Padded>(&path, "data").unwrap(), want);
}

#[test]
fn new_files_get_the_mode_of_any_new_file() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    std::fs::File::create(&plain).unwrap();
    let h5 = dir.path().join("new.h5");
    ndl_hdf5::write(&h5, "data", &records(0, 2)).unwrap();
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&h5), mode(&plain));
}
