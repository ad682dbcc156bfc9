//! Files that are not what they claim: each read gives a typed error
//! naming the file (and dataset), never a panic, and the HDF5 library's
//! own error stack prints nothing.

use std::path::Path;

use ndl_testkit::child::this_test;
use ndl_testkit::records::Padded;

const CHILD: &str = "NDL_HDF5_BAD_INPUT_CHILD";

fn records() -> Vec<Padded> {
    (0..1000u32)
        .map(|i| Padded {
            a: i as u8,
            b: f64::from(i),
            c: i as u16,
        })
        .collect()
}

/// Every bad file, read; each error printed on stdout as one `@` line.
fn read_every_bad_file(dir: &Path) {
    let good = dir.join("good.h5");
    ndl_hdf5::write(&good, "data", &records()).unwrap();
    let bytes = std::fs::read(&good).unwrap();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", vec![]),
        ("text", b"this is not an HDF5 file at all\n".repeat(40)),
        (
            "npy",
            b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }"
                .to_vec(),
        ),
        ("truncated_header", bytes[..100].to_vec()),
        ("truncated_data", bytes[..bytes.len() / 2].to_vec()),
        ("garbage_superblock", {
            let mut b = bytes.clone();
            for x in &mut b[8..64] {
                *x = 0xA5;
            }
            b
        }),
    ];
    for (name, content) in cases {
        let path = dir.join(format!("{name}.h5"));
        std::fs::write(&path, content).unwrap();
        let e = ndl_hdf5::read::<Padded>(&path, "data").unwrap_err();
        ndl_testkit::child::say(&format!("{name}: {e}"));
    }
    let e = ndl_hdf5::read::<Padded>(&good, "nothing/here").unwrap_err();
    ndl_testkit::child::say(&format!("missing: {e}"));
    let e = ndl_hdf5::read::<Padded>(dir.join("absent.h5"), "data").unwrap_err();
    ndl_testkit::child::say(&format!("absent: {e}"));
}

#[test]
fn bad_files_are_typed_errors_and_the_library_prints_nothing() {
    if let Ok(dir) = std::env::var(CHILD) {
        read_every_bad_file(Path::new(&dir));
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = this_test("bad_files_are_typed_errors_and_the_library_prints_nothing")
        .env(CHILD, dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("HDF5-DIAG") && !stderr.contains("#000"),
        "the library printed:\n{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().filter_map(|l| l.strip_prefix('@')).collect();
    assert_eq!(lines.len(), 8, "{stdout}");
    for line in &lines {
        let (case, message) = line.split_once(": ").unwrap();
        let file = if case == "missing" {
            "good.h5".to_string()
        } else {
            format!("{case}.h5")
        };
        assert!(message.contains(&file), "{line}");
        if case == "missing" {
            // In our words, listing what there is, as a `.npz` does.
            assert!(
                message.contains("no dataset named `nothing/here`")
                    && message.contains("(it has: /data)")
                    && !message.contains("H5"),
                "{line}"
            );
        }
    }
}
