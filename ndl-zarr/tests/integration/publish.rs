//! `WriteOptions::publish_on_finish`: a store that `create` or
//! `PackedWriter::create_with` makes appears only when its writer finishes, and nothing
//! is left behind by a writer that does not.

use ndl_runtime::NdlType;
use ndl_testkit::names;
use ndl_zarr::{ArrayWriter, Error, Layout, PackedWriter, WriteOptions, ZarrFormat};

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Rec {
    id: u32,
    t: f64,
    flag: bool,
}

fn records(range: std::ops::Range<u32>) -> Vec<Rec> {
    range
        .map(|i| Rec {
            id: i,
            t: f64::from(i) * 0.25,
            flag: i % 2 == 0,
        })
        .collect()
}

fn every_kind() -> [WriteOptions; 4] {
    let base = WriteOptions::new().chunk_len(3).publish_on_finish(true);
    [
        base.clone(),
        base.clone().zarr_format(ZarrFormat::V2),
        base.clone().layout(Layout::Columns),
        base.layout(Layout::Columns).zarr_format(ZarrFormat::V2),
    ]
}

#[test]
fn the_store_appears_when_the_writer_finishes() {
    for options in every_kind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.zarr");
        let mut w = ArrayWriter::<Rec>::create_with(&path, &options).unwrap();
        w.append(&records(0..10)).unwrap();
        assert!(!path.exists(), "{options:?}: visible before finish");
        let hidden = names(dir.path());
        assert!(
            matches!(&hidden[..], [one] if one.starts_with(".s.zarr.") && one.ends_with(".partial")),
            "{options:?}: {hidden:?}"
        );
        assert_eq!(w.finish().unwrap(), 10);
        assert_eq!(names(dir.path()), ["s.zarr"], "{options:?}");
        assert_eq!(ndl_zarr::read::<Rec>(&path).unwrap(), records(0..10));
        // A store like any other: it takes appends.
        let mut w = ArrayWriter::<Rec>::open(&path).unwrap();
        w.append(&records(10..14)).unwrap();
        assert_eq!(w.finish().unwrap(), 14);
        assert_eq!(ndl_zarr::read::<Rec>(&path).unwrap(), records(0..14));
    }
}

#[test]
fn packed_writers_publish_too() {
    for options in every_kind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.zarr");
        let mut w = PackedWriter::create_with(&path, &Rec::datatype(), &options).unwrap();
        let mut packed = vec![0u8; 5 * w.record_size()];
        ndl_runtime::records::Packer::<Rec>::new()
            .unwrap()
            .pack(&records(0..5), &mut packed);
        w.append(&packed).unwrap();
        assert!(!path.exists(), "{options:?}: visible before finish");
        assert_eq!(w.finish().unwrap(), 5);
        assert_eq!(names(dir.path()), ["p.zarr"], "{options:?}");
        assert_eq!(ndl_zarr::read::<Rec>(&path).unwrap(), records(0..5));
    }
}

#[test]
fn a_writer_that_does_not_finish_leaves_nothing() {
    for options in every_kind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.zarr");
        let mut w = ArrayWriter::<Rec>::create_with(&path, &options).unwrap();
        w.append(&records(0..10)).unwrap();
        drop(w);
        assert!(names(dir.path()).is_empty(), "{options:?}");

        let w = PackedWriter::create_with(&path, &Rec::datatype(), &options).unwrap();
        drop(w);
        assert!(names(dir.path()).is_empty(), "{options:?}");
    }
}

#[test]
fn an_occupied_place_is_refused_before_anything_is_built() {
    let dir = tempfile::tempdir().unwrap();
    let options = WriteOptions::new().publish_on_finish(true);
    let file = dir.path().join("file.zarr");
    std::fs::write(&file, b"mine").unwrap();
    let full = dir.path().join("full.zarr");
    std::fs::create_dir(&full).unwrap();
    std::fs::write(full.join("x"), b"mine").unwrap();
    // Without publishing, creating in place, the same.
    for (place, options) in [&file, &full].into_iter().flat_map(|p| {
        [
            (p, options.clone()),
            (p, options.clone().publish_on_finish(false)),
        ]
    }) {
        let e = ArrayWriter::<Rec>::create_with(place, &options).unwrap_err();
        assert!(
            matches!(&e, Error::Exists { store } if store == &place.display().to_string()),
            "{e:?}"
        );
    }
    assert_eq!(names(dir.path()), ["file.zarr", "full.zarr"]);
    assert_eq!(std::fs::read(&file).unwrap(), b"mine");
    assert_eq!(names(&full), ["x"]);

    // An empty directory is a free place: the store replaces it.
    let empty = dir.path().join("empty.zarr");
    std::fs::create_dir(&empty).unwrap();
    let mut w = ArrayWriter::<Rec>::create_with(&empty, &options).unwrap();
    w.append(&records(0..4)).unwrap();
    w.finish().unwrap();
    assert_eq!(ndl_zarr::read::<Rec>(&empty).unwrap(), records(0..4));
}

/// Another store made at the place while the writer builds wins: `finish`
/// says so and removes what it built; the other store is untouched.
#[test]
fn a_store_made_meanwhile_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.zarr");
    let options = WriteOptions::new().chunk_len(3).publish_on_finish(true);
    let mut w = ArrayWriter::<Rec>::create_with(&path, &options).unwrap();
    w.append(&records(0..10)).unwrap();
    ndl_zarr::write(&path, &records(100..105)).unwrap();
    let e = w.finish().unwrap_err();
    assert!(matches!(&e, Error::Exists { .. }), "{e:?}");
    assert_eq!(names(dir.path()), ["s.zarr"]);
    assert_eq!(ndl_zarr::read::<Rec>(&path).unwrap(), records(100..105));
}

/// A building directory whose writer is gone (its lock released) is
/// removed by the next writer of that name; one whose writer holds its
/// lock is not touched, whatever process id its name says.
#[test]
fn leftovers_of_writers_that_are_gone_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.zarr");
    let stale = dir.path().join(".s.zarr.4000000.0.partial");
    WriteOptions::new().write(&stale, &records(0..3)).unwrap();
    let held = dir.path().join(".s.zarr.4000000.1.partial");
    std::fs::create_dir(&held).unwrap();
    let lock = std::fs::File::open(&held).unwrap();
    lock.try_lock().unwrap();
    let other = dir.path().join(".t.zarr.4000000.0.partial");
    std::fs::create_dir(&other).unwrap();

    let mut w =
        ArrayWriter::<Rec>::create_with(&path, &WriteOptions::new().publish_on_finish(true))
            .unwrap();
    w.append(&records(0..7)).unwrap();
    w.finish().unwrap();
    assert_eq!(
        names(dir.path()),
        [
            ".s.zarr.4000000.1.partial",
            ".t.zarr.4000000.0.partial",
            "s.zarr"
        ]
    );
    assert_eq!(ndl_zarr::read::<Rec>(&path).unwrap(), records(0..7));
}

/// A building directory removed during the write (by hand, or by a writer
/// that misjudged it) is recreated by later writes without some chunks:
/// `finish` refuses to publish that, and no store appears.
#[test]
fn a_building_directory_removed_meanwhile_is_not_published() {
    for options in every_kind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.zarr");
        let mut w = ArrayWriter::<Rec>::create_with(&path, &options).unwrap();
        w.append(&records(0..10)).unwrap();
        let [hidden] = &names(dir.path())[..] else {
            panic!("{options:?}: not one building directory")
        };
        std::fs::remove_dir_all(dir.path().join(hidden)).unwrap();
        w.append(&records(10..20))
            .unwrap_or_else(|e| panic!("{options:?}: {e}"));
        let e = w.finish().unwrap_err();
        assert!(
            e.to_string().contains("removed by another process"),
            "{options:?}: {e}"
        );
        assert!(
            !path.exists(),
            "{options:?}: an incomplete store was published"
        );
    }
}

/// Missing parent directories are made; a path that ends in no name is
/// refused before anything is written.
#[test]
fn parents_are_made_and_a_nameless_path_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a/b/s.zarr");
    WriteOptions::new().write(&path, &records(0..5)).unwrap();
    assert_eq!(ndl_zarr::read::<Rec>(&path).unwrap(), records(0..5));
    assert_eq!(names(&dir.path().join("a/b")), ["s.zarr"]);

    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    for nameless in [empty.join("."), empty.join("x/..")] {
        let e = WriteOptions::new()
            .write(&nameless, &records(0..5))
            .unwrap_err();
        assert!(e.to_string().contains("must end in its name"), "{e}");
    }
    assert!(names(&empty).is_empty());
}

#[test]
fn a_sized_store_appears_once_created() {
    for options in every_kind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.zarr");
        ArrayWriter::<Rec>::create_sized(&path, 8, &options).unwrap();
        assert_eq!(names(dir.path()), ["r.zarr"], "{options:?}");
        // Its metadata is whole: v2 arrays name their dimension too.
        let array = if path.join("id").exists() {
            path.join("id")
        } else {
            path.clone()
        };
        if array.join(".zarray").exists() {
            let attrs = std::fs::read_to_string(array.join(".zattrs")).unwrap();
            assert!(attrs.contains("_ARRAY_DIMENSIONS"), "{options:?}: {attrs}");
        }
        let mut w = ArrayWriter::<Rec>::region(&path, 0..6).unwrap();
        w.append(&records(0..6)).unwrap();
        w.finish().unwrap();
        let mut w = ArrayWriter::<Rec>::region(&path, 6..8).unwrap();
        w.append(&records(6..8)).unwrap();
        w.finish().unwrap();
        assert_eq!(
            ndl_zarr::read::<Rec>(&path).unwrap(),
            records(0..8),
            "{options:?}"
        );
    }
}

/// A new store whose name ends in `.zip` is packed into a zip file once
/// complete, as zarr-python's `ZipStore` writes one: every layout and
/// format, written by a writer appended to without `publish_on_finish`;
/// nothing is at the place before `finish`, no directory is left beside
/// it after. We read it back, and so does zarr-python 3.4 (3.1 what it
/// reads of a directory store: all but the v3 struct).
#[test]
fn a_store_named_zip_is_packed_into_a_zip_file_zarr_python_reads() {
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for (k, options) in every_kind().into_iter().enumerate() {
        let path = dir.path().join(format!("s{k}.zarr.zip"));
        let options = options.publish_on_finish(false);
        let mut w = ArrayWriter::<Rec>::create_with(&path, &options).unwrap();
        w.append(&records(0..5)).unwrap();
        w.append(&records(5..7)).unwrap();
        assert!(!path.exists());
        w.finish().unwrap();
        assert!(path.is_file(), "{path:?}");
        assert_eq!(ndl_zarr::read::<Rec>(&path).unwrap(), records(0..7));
        paths.push(path.to_str().unwrap().to_string());
    }
    let left: Vec<_> = names(dir.path())
        .into_iter()
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    let script = "import sys, zarr\n\
        for p in sys.argv[1:]:\n\
        \x20   node = zarr.open(zarr.storage.ZipStore(p, mode='r'), mode='r')\n\
        \x20   ids = node['id'][:] if isinstance(node, zarr.Group) else node[:]['id']\n\
        \x20   print(ids.tolist())\n";
    let args: Vec<&str> = paths.iter().map(String::as_str).collect();
    let out = ndl_testkit::run_with(&ndl_testkit::python312(), script, &args);
    assert_eq!(out, "[0, 1, 2, 3, 4, 5, 6]\n".repeat(4));
    // zarr-python 3.1 has no v3 struct data type: the others.
    let out = ndl_testkit::run_with(&ndl_testkit::python(), script, &args[1..]);
    assert_eq!(out, "[0, 1, 2, 3, 4, 5, 6]\n".repeat(3));
}
