//! NumPy `.npz` archives: several named `.npy` arrays in one zip file.
//!
//! As `np.savez` and `np.savez_compressed` write them: the array `x` is the
//! zip member `x.npy`, stored or deflated, every member with zip64 extras
//! (NumPy forces zip64 on every member too). As `np.load` reads them: every
//! member is listed, with one `.npy` suffix stripped, and an array is found
//! by that name or by its full member name.
//!
//! Array names may contain `/`; [`group_path`] maps them onto NDL groups.
//!
//! [`NpzWriter::create`] aligns every member's records to 64 bytes, so
//! [`NpzReader::mmap`] can view them in place, without copying.
//!
//! # What is checked when
//!
//! Every member carries the CRC-32 of its bytes in the zip directory.
//! - [`read`](NpzReader::read), [`read_array`](NpzReader::read_array) and
//!   [`member_bytes`](NpzReader::member_bytes) read the whole member and
//!   check its CRC at its end: a changed member is an error.
//! - [`mmap_checked`](NpzReader::mmap_checked) checks the CRC over the
//!   mapped bytes before handing out the records.
//! - [`mmap`](NpzReader::mmap) and [`header`](NpzReader::header) read only
//!   the header (and, for bools and enums, the values), so they do not
//!   check it; nor does [`read_member`](NpzReader::read_member) unless its
//!   function reads the member to the end.
//!
//! ```
//! use ndl_runtime::npz::{NpzReader, NpzWriter};
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("data.npz");
//! let mut w = NpzWriter::create(&path)?;
//! w.add("t", &[0.5f64, 1.5])?;
//! w.add("sensors/id", &[7u32, 9])?;
//! w.finish()?;
//!
//! let mut r = NpzReader::open(&path)?;
//! assert_eq!(r.names(), ["t", "sensors/id"]);
//! assert_eq!(r.read::<u32>("sensors/id")?, [7, 9]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod map;
mod read;
mod write;

pub use read::NpzReader;
pub use write::NpzWriter;

/// The suffix of array members.
const NPY_SUFFIX: &str = ".npy";

/// The NDL group path and array name of an `.npz` array name: the part
/// after the last `/` is the array, the rest the group.
///
/// ```
/// use ndl_runtime::npz::group_path;
///
/// assert_eq!(group_path("a/b/x"), ("/a/b".to_string(), "x".to_string()));
/// assert_eq!(group_path("x"), ("/".to_string(), "x".to_string()));
/// ```
pub fn group_path(name: &str) -> (String, String) {
    match name.rsplit_once('/') {
        Some((group, array)) => {
            let group = group.trim_matches('/');
            (format!("/{group}"), array.to_string())
        }
        None => ("/".to_string(), name.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npy::WriteOptions;

    #[test]
    fn names_and_lookups() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.npz");
        let mut w = NpzWriter::create(&path).unwrap();
        w.add("x", &[1i8]).unwrap();
        w.add("y.npy", &[2i8]).unwrap();
        let e = w.add("x", &[9i8]).unwrap_err();
        assert!(e.to_string().contains("x.npy"), "{e}");
        w.add_with("m", &WriteOptions::new().shape(&[1, 2]), &[3i8, 4])
            .unwrap();
        w.finish().unwrap();
        let mut r = NpzReader::open(&path).unwrap();
        assert_eq!(r.names(), ["x", "y.npy", "m"]);
        assert_eq!(r.read::<i8>("x").unwrap(), [1]);
        assert_eq!(r.read::<i8>("x.npy").unwrap(), [1]);
        assert_eq!(r.read::<i8>("y.npy").unwrap(), [2]);
        let e = r.read::<i8>("y").unwrap_err();
        assert!(e.to_string().contains("no array named 'y'"), "{e}");
        let e = r.read::<i8>("m").unwrap_err();
        assert!(e.to_string().contains("a.npz/m.npy"), "{e}");
        assert_eq!(r.header("m").unwrap().shape, [1, 2]);
    }

    #[test]
    fn unfinished_writers_leave_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = NpzWriter::create(dir.path().join("a.npz")).unwrap();
        w.add("x", &[1u8]).unwrap();
        drop(w);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn group_paths() {
        assert_eq!(group_path("/a/x"), ("/a".into(), "x".into()));
        assert_eq!(group_path("a/"), ("/a".into(), "".into()));
    }
}
