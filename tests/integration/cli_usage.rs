//! The `ndl` command line itself: its help, its usage errors, and paths
//! and names of every kind.

use crate::common;

use common::cli::{FORMATS, describe, ndl, ok};

use std::path::PathBuf;

use ndl_runtime::ndl::File as NdlFile;

#[test]
fn help_lists_every_command_and_option() {
    for args in [&["--help"][..], &["-h"], &["help"]] {
        let out = ok(ndl(args), "ndl --help");
        assert!(out.contains("Usage: ndl"), "{out}");
        assert!(out.contains("describe"), "{out}");
        assert!(out.contains("--version"), "{out}");
    }
    let out = ok(ndl(&["describe", "--help"]), "ndl describe --help");
    for word in [
        "<FILE>",
        "--format",
        "-f",
        "--max-header-size",
        "--no-sidecar",
        "--help",
        "sidecar",
        "[default: ndl]",
        "[default: 10000]",
    ] {
        assert!(out.contains(word), "describe --help lacks {word}:\n{out}");
    }
    for format in FORMATS {
        assert!(
            out.contains(&format!("- {format}:")),
            "describe --help lacks the format {format}:\n{out}"
        );
    }
    let version = ok(ndl(&["--version"]), "ndl --version");
    assert_eq!(version, format!("ndl {}\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn usage_errors() {
    for args in [
        &[][..],
        &["describe"],
        &["frobnicate"],
        &["describe", "x.npy", "--format", "hdf5"],
        &["describe", "x.npy", "--bogus"],
    ] {
        let run = ndl(args);
        assert_eq!(run.code, Some(2), "{args:?}: {run:#?}");
        assert!(run.stdout.is_empty(), "{args:?}: {run:#?}");
        // clap: `error: ...`, or the help for a missing command.
        assert!(
            run.stderr.starts_with("error: ") || run.stderr.contains("Usage: ndl"),
            "{args:?}: {run:#?}"
        );
    }
}

#[test]
fn odd_paths_and_names() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("with space");
    std::fs::create_dir(&sub).unwrap();
    common::run_python(
        "import sys, numpy as np\n\
         np.save(sys.argv[1] + '/data v2.npy', np.arange(3, dtype='<u2'))\n\
         np.save(sys.argv[1] + '/no_extension', np.arange(3, dtype='<u2'))",
        &[sub.to_str().unwrap()],
    );
    let path = sub.join("data v2.npy");
    let yaml = ok(describe(&path, "ndl", &[]), "a path with spaces");
    assert!(
        NdlFile::from_yaml(&yaml)
            .unwrap()
            .ndarray("/data v2")
            .is_some(),
        "{yaml}"
    );
    // np.save adds .npy; a file renamed without it is still sniffed.
    let bare: PathBuf = sub.join("no_extension.npy");
    let renamed = sub.join("no_extension");
    std::fs::rename(&bare, &renamed).unwrap();
    let yaml = ok(describe(&renamed, "ndl", &[]), "no extension");
    assert!(yaml.contains("no_extension"), "{yaml}");
}
