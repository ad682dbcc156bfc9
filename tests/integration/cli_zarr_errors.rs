//! What `ndl convert` refuses, each refusal an `ndl: error:` line naming
//! the path: an existing destination is never replaced, bad sources and
//! options leave nothing behind, and neither does a killed conversion;
//! `ndl unlock` of a store's lock.

use crate::common;

use common::cli::{convert, converted, ndl, ok, refused};
use common::names;
use common::records::{Files, N};
use common::stores::no_partial;
use common::zarr_python::check_store_312;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        if d.is_file() {
            out.insert(d.clone(), std::fs::read(&d).unwrap());
            continue;
        }
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                out.insert(path.clone(), Vec::new());
            }
            todo.push(path);
        }
    }
    out
}

#[test]
fn an_existing_store_is_not_overwritten() {
    let files = Files::new();
    let root = files.dir.path();
    let npy = files.path("nested.npy");
    let store = root.join("x.zarr");
    converted(convert(&npy, &store, &["--codec", "none"]), "first");
    let before = snapshot(&store);
    for extra in [&[][..], &["--zarr-format", "2"], &["--codec", "gzip"]] {
        let run = convert(&npy, &store, extra);
        refused(&run, &store, &["already exists"]);
        assert_eq!(snapshot(&store), before, "the store changed");
    }
    // From an archive member too.
    let run = convert(&files.path("one.npz"), &store, &[]);
    refused(&run, &store, &["already exists"]);
    assert_eq!(snapshot(&store), before, "the store changed");

    // An empty directory, and a plain file, of that name are kept as well.
    let empty = root.join("empty.zarr");
    std::fs::create_dir(&empty).unwrap();
    refused(&convert(&npy, &empty, &[]), &empty, &["already exists"]);
    assert!(names(&empty).is_empty());
    let file = root.join("file.zarr");
    std::fs::write(&file, b"mine").unwrap();
    refused(&convert(&npy, &file, &[]), &file, &["already exists"]);
    assert_eq!(std::fs::read(&file).unwrap(), b"mine");
    no_partial(root);
}

/// kill -9 during a conversion: no store at the destination, only a hidden
/// building directory, which the next conversion there removes (its
/// writer's lock died with it) before writing the store whole.
#[test]
fn a_killed_conversion_leaves_no_store_and_the_next_one_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let big = root.join("big.npy");
    common::run_python(
        "import sys, numpy as np\nnp.save(sys.argv[1], np.arange(48_000_000, dtype='<u8'))",
        &[big.to_str().unwrap()],
    );
    let dst = root.join("k.zarr");
    let mut killed_midway = false;
    for delay_ms in [0, 20, 60, 150, 400] {
        let mut child = std::process::Command::new(common::cli::NDL)
            .args(["convert", big.to_str().unwrap(), dst.to_str().unwrap()])
            .args(["--codec", "none"])
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !names(root).iter().any(|n| n.starts_with(".k.zarr.")) {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no building directory appeared"
            );
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let ended_first = child.try_wait().unwrap().is_some();
        child.kill().ok();
        child.wait().unwrap();
        if ended_first || dst.exists() {
            // Too late: the store is whole. Start again.
            assert!(!names(root).iter().any(|n| n.starts_with('.')));
            std::fs::remove_dir_all(&dst).unwrap();
            continue;
        }
        killed_midway = true;
        let hidden: Vec<_> = names(root)
            .into_iter()
            .filter(|n| n.starts_with('.'))
            .collect();
        assert_eq!(hidden.len(), 1, "{hidden:?}");
        break;
    }
    assert!(
        killed_midway,
        "no kill landed during the conversion: make it longer"
    );
    let files = Files::new();
    let npy = files.path("flat.npy");
    converted(convert(&npy, &dst, &[]), "after the kill");
    check_store_312(&dst, &npy);
    no_partial(root);
}

/// `ndl convert STORE FILE` must not replace an existing .npy or .npz
/// either, as it does not replace an existing store.
#[test]
fn an_existing_npy_or_npz_is_not_overwritten() {
    let files = Files::new();
    let root = files.dir.path();
    let store = root.join("x.zarr");
    converted(convert(&files.path("nested.npy"), &store, &[]), "store");
    for name in ["keep.npy", "keep.npz"] {
        let dst = root.join(name);
        std::fs::write(&dst, b"precious").unwrap();
        let run = convert(&store, &dst, &[]);
        let kept = std::fs::read(&dst).unwrap();
        assert!(
            run.code == Some(1) && kept == b"precious",
            "ndl convert {} {name}: exit {:?}, and the existing {name} {} (stderr: {:?})",
            store.display(),
            run.code,
            if kept == b"precious" {
                "was kept"
            } else {
                "was replaced"
            },
            run.stderr
        );
        refused(&run, &dst, &["already exists"]);
    }
    no_partial(root);
}

#[test]
fn conversion_errors_are_refused_clearly() {
    let files = Files::new();
    let root = files.dir.path();
    let npy = files.path("nested.npy");
    let store = root.join("x.zarr");
    converted(convert(&npy, &store, &[]), "the store");
    let before = names(root);
    let unchanged = |what: &str| assert_eq!(names(root), before, "{what}: something written");

    // A missing source, of each kind.
    for missing in ["missing.npy", "missing.npz"] {
        let src = root.join(missing);
        refused(&convert(&src, &root.join("m.zarr"), &[]), &src, &[]);
        unchanged(missing);
    }
    let src = root.join("missing.zarr");
    refused(&convert(&src, &root.join("m.npy"), &[]), &src, &[]);
    unchanged("missing.zarr");
    // A directory that is no store.
    let not_store = root.join("empty.zarr");
    std::fs::create_dir(&not_store).unwrap();
    refused(
        &convert(&not_store, &root.join("m.npy"), &[]),
        &not_store,
        &["no Zarr array"],
    );
    std::fs::remove_dir(&not_store).unwrap();
    unchanged("empty.zarr");
    // A directory named as a .npy, a file named as a store.
    let dir_npy = root.join("dir.npy");
    std::fs::create_dir(&dir_npy).unwrap();
    refused(&convert(&dir_npy, &root.join("m.zarr"), &[]), &dir_npy, &[]);
    std::fs::remove_dir(&dir_npy).unwrap();
    let file_store = root.join("file.zarr");
    std::fs::write(&file_store, "not a store").unwrap();
    refused(
        &convert(&file_store, &root.join("m.npy"), &[]),
        &file_store,
        &[],
    );
    std::fs::remove_file(&file_store).unwrap();
    unchanged("misnamed");

    // Sources and destinations of unknown kinds.
    let notes = root.join("notes.txt");
    std::fs::write(&notes, "not an array").unwrap();
    let before_notes = names(root);
    refused(
        &convert(&notes, &root.join("n.zarr"), &[]),
        &notes,
        &[".npy", ".npz", ".zarr"],
    );
    let odd = root.join("out.txt");
    refused(&convert(&npy, &odd, &[]), &odd, &[".npy", ".npz", ".zarr"]);
    refused(
        &convert(&store, &odd, &[]),
        &odd,
        &[".npy", ".npz", ".zarr"],
    );
    assert_eq!(
        names(root),
        before_notes,
        "unknown kinds: something written"
    );
    std::fs::remove_file(&notes).unwrap();

    // Arrays not one-dimensional have no columns; chunks of another rank.
    let grid = files.path("grid.npy");
    let grid_zarr = root.join("grid.zarr");
    refused(
        &convert(&grid, &grid_zarr, &["--layout", "columns"]),
        &grid_zarr,
        &["[3, 4]", "columns layout", "records layout"],
    );
    refused(
        &convert(&grid, &grid_zarr, &["--chunks", "2"]),
        &grid_zarr,
        &["[2]", "1 dimensions", "[3, 4]"],
    );
    let zerod = files.path("zerod.npy");
    let zerod_zarr = root.join("zerod.zarr");
    refused(
        &convert(&zerod, &zerod_zarr, &["--layout", "columns"]),
        &zerod_zarr,
        &["[]", "columns layout"],
    );
    unchanged("n-d");

    // A .npy cut short, in its data and in its header: no store, and no
    // hidden `.NAME.*.partial` directory, left behind.
    let whole = std::fs::read(&npy).unwrap();
    for (name, len) in [
        ("cut_data", whole.len() - 1),
        ("cut_half", whole.len() / 2),
        ("cut_header", 60),
        ("cut_magic", 4),
    ] {
        let cut = root.join(format!("{name}.npy"));
        std::fs::write(&cut, &whole[..len]).unwrap();
        let dst = root.join(format!("{name}.zarr"));
        for format in ["2", "3"] {
            refused(&convert(&cut, &dst, &["--zarr-format", format]), &cut, &[]);
            assert!(!dst.exists(), "{name}: {} exists", dst.display());
            no_partial(root);
        }
        std::fs::remove_file(&cut).unwrap();
    }
    unchanged("cut short");

    // A bool byte that is neither 0 nor 1, in the last record: refused
    // naming the record and the field, nothing left behind.
    let mut bad = whole.clone();
    let header_len = bad.len() - N * 32;
    bad[header_len + (N - 1) * 32 + 18] = 7;
    let bad_npy = root.join("bad_bool.npy");
    std::fs::write(&bad_npy, &bad).unwrap();
    let dst = root.join("bad_bool.zarr");
    refused(
        &convert(&bad_npy, &dst, &[]),
        &bad_npy,
        &[&format!("record {}", N - 1), "`ok`", "7"],
    );
    assert!(!dst.exists());
    no_partial(root);
    std::fs::remove_file(&bad_npy).unwrap();

    // A store whose chunk is cut short: no .npy or .npz left behind, nor a
    // temporary file.
    let broken = root.join("broken.zarr");
    converted(
        convert(&npy, &broken, &["--chunk-len", "100", "--codec", "none"]),
        "broken",
    );
    let chunk = broken.join("c/3");
    let bytes = std::fs::read(&chunk).unwrap();
    std::fs::write(&chunk, &bytes[..bytes.len() - 5]).unwrap();
    let before = names(root);
    for out in ["broken.npy", "broken.npz"] {
        let dst = root.join(out);
        refused(&convert(&broken, &dst, &[]), &broken, &[]);
        assert!(!dst.exists(), "{out} left behind");
        assert_eq!(names(root), before, "{out}: something left behind");
    }
}

/// Errors about options say what to type and name the path; they leave
/// nothing behind. All problems are collected and reported together.
#[test]
fn option_errors_name_the_path_and_speak_the_command_line() {
    let files = Files::new();
    let root = files.dir.path();
    let npy = files.path("nested.npy");
    let mut problems = Vec::new();

    let mut check = |name: &str, src: &Path, args: &[&str], forbidden: &[&str]| {
        let dst = root.join(format!("{name}.zarr"));
        let run = convert(src, &dst, args);
        if dst.exists() {
            problems.push(format!("{name}: {} was written", dst.display()));
        }
        if names(root).iter().any(|n| n.starts_with('.')) {
            problems.push(format!("{name}: a hidden directory left behind"));
        }
        match run.code {
            // A usage error from the option parser is fine.
            Some(2) => {}
            Some(1) => {
                let named = run.stderr.contains(&src.display().to_string())
                    || run.stderr.contains(&dst.display().to_string());
                if !named || !run.stderr.starts_with("ndl: error: ") {
                    problems.push(format!("{name}: the error names no path: {:?}", run.stderr));
                }
                for word in forbidden {
                    if run.stderr.contains(word) {
                        problems.push(format!(
                            "{name}: the error speaks Rust ({word}), not the command line: {:?}",
                            run.stderr
                        ));
                    }
                }
            }
            _ => problems.push(format!("{name}: {run:?}")),
        }
    };
    check("chunk0", &npy, &["--chunk-len", "0"], &[]);
    // An array of records has no columns: the columns layout says so.
    let array_of_records = root.join("aor.npy");
    common::run_python(
        "import sys, numpy as np\n\
         np.save(sys.argv[1], np.zeros(5, [('i', '<i4'), ('p', [('x', '<f4')], (2,))]))",
        &[array_of_records.to_str().unwrap()],
    );
    check(
        "columns",
        &array_of_records,
        &["--layout", "columns"],
        &["Layout::", "ZarrFormat::"],
    );
    // v3 `struct` has no subarray fields.
    let sub = root.join("sub.npy");
    common::run_python(
        "import sys, numpy as np\n\
         np.save(sys.argv[1], np.zeros(5, [('i', '<i4'), ('xy', '<f4', (2,))]))",
        &[sub.to_str().unwrap()],
    );
    check("sub", &sub, &[], &["Layout::", "ZarrFormat::"]);

    // The record of a bad bool is named once.
    let mut bad = std::fs::read(&npy).unwrap();
    let header_len = bad.len() - N * 32;
    bad[header_len + 2 * 32 + 18] = 7;
    let bad_npy = root.join("bad.npy");
    std::fs::write(&bad_npy, &bad).unwrap();
    let run = convert(&bad_npy, &root.join("bad.zarr"), &[]);
    if run.stderr.matches("record 2").count() != 1 {
        problems.push(format!(
            "bad bool: `record 2` said more than once: {:?}",
            run.stderr
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `ndl unlock` of a local store: a place with no store is an error (not
/// "not locked"), a stale lock is removed, a live one is kept.
#[test]
fn unlock_a_local_store() {
    let files = Files::new();
    let root = files.dir.path();
    let missing = root.join("missing.zarr");
    refused(
        &ndl(&["unlock", missing.to_str().unwrap()]),
        &missing,
        &["no Zarr"],
    );
    let store = root.join("s.zarr");
    converted(convert(&files.path("nested.npy"), &store, &[]), "the store");
    let lock = store.join(".ndl-append.lock");
    let live = "{\"host\":\"elsewhere\",\"pid\":7,\"taken_ms\":0,\"expires_ms\":99999999999999}";
    std::fs::write(&lock, live).unwrap();
    refused(
        &ndl(&["unlock", store.to_str().unwrap()]),
        &store,
        &["live"],
    );
    assert_eq!(std::fs::read_to_string(&lock).unwrap(), live);
    std::fs::write(&lock, live.replace("99999999999999", "1000")).unwrap();
    let out = ok(ndl(&["unlock", store.to_str().unwrap()]), "unlock");
    assert!(out.contains("removed the stale lock"), "{out}");
    assert!(!lock.exists());
}
