//! `ndl describe` with a sidecar (`NAME.yaml` or `NAME.yml` beside the
//! file): the enum names and attributes it adds, `--no-sidecar`, and the
//! warnings about sidecars that cannot be used.

use crate::common;

use common::cli::{describe, ok, shape_of};

use ndl_runtime::ndl::File as NdlFile;
use ndl_runtime::{Datatype, IntType};

const SIDECAR: &str = "\
ndarrays:
  x:
    shape: [3]
    type:
      compound:
        - state: {type: {enum: {base: uint8, members: {idle: 0, running: 1, failed: 2}}}, offset: 0}
        - t: {type: float64, offset: 1}
      size: 9
    attributes:
      description: Machine states over time
      units: s
";

fn sidecar_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    common::run_python(
        "import sys, numpy as np\n\
         np.save(sys.argv[1] + '/x.npy', np.zeros(3, [('state', 'u1'), ('t', '<f8')]))",
        &[dir.path().to_str().unwrap()],
    );
    dir
}

fn state_type(yaml: &str) -> Datatype {
    let doc = NdlFile::from_yaml(yaml).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
    let Some(Datatype::Compound(c)) = &doc.ndarray("/x").unwrap().datatype else {
        panic!("{yaml}")
    };
    c.member("state").unwrap().datatype.clone()
}

#[test]
fn a_sidecar_adds_enum_names_and_attributes() {
    let dir = sidecar_dir();
    let npy = dir.path().join("x.npy");
    std::fs::write(dir.path().join("x.yaml"), SIDECAR).unwrap();
    let yaml = ok(describe(&npy, "ndl", &[]), "x.npy with sidecar");
    let Datatype::Enum(e) = state_type(&yaml) else {
        panic!("the sidecar's enum is not merged:\n{yaml}")
    };
    assert_eq!(e.base, IntType::UInt8);
    let names: Vec<&str> = e.members.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["idle", "running", "failed"]);
    let doc = NdlFile::from_yaml(&yaml).unwrap();
    let nd = doc.ndarray("/x").unwrap();
    assert_eq!(nd.description(), Some("Machine states over time"));
    assert_eq!(
        nd.attributes.get("units").and_then(|a| a.as_str()),
        Some("s")
    );
    // The file's own facts stay: shape and byte order.
    assert_eq!(shape_of(nd), [3]);
    assert!(nd.storage.endian.is_some(), "{yaml}");
    // PyYAML reads the merged document too.
    let check = common::run_python(
        "import sys, yaml\n\
         d = yaml.safe_load(sys.argv[1])['ndarrays']['x']\n\
         print(d['type']['compound'][0]['state']['type']['enum']['members'], d['attributes']['units'])",
        &[&yaml],
    );
    assert_eq!(
        check.trim(),
        "{'idle': 0, 'running': 1, 'failed': 2} s",
        "{yaml}"
    );

    // The other languages describe the file; the sidecar does not break them.
    for format in ["numpy", "datashape", "zarr"] {
        ok(describe(&npy, format, &[]), format);
    }
    // CDL has enums, so the sidecar's names reach it, and ncgen reads them.
    let cdl = ok(describe(&npy, "cdl", &[]), "cdl with sidecar");
    assert!(
        cdl.contains("ubyte enum state_t {idle = 0, running = 1, failed = 2} ;"),
        "{cdl}"
    );
    let compiled = dir.path().join("x.nc");
    let cdl_path = dir.path().join("x.cdl");
    std::fs::write(&cdl_path, &cdl).unwrap();
    let status = std::process::Command::new("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(&compiled)
        .arg(&cdl_path)
        .status()
        .expect("ncgen (Debian netcdf-bin) runs");
    assert!(status.success(), "ncgen refused:\n{cdl}");

    // --no-sidecar: the file alone, silently.
    let plain = ok(describe(&npy, "ndl", &["--no-sidecar"]), "--no-sidecar");
    assert_eq!(state_type(&plain), Datatype::UInt8, "{plain}");
    assert!(!plain.contains("Machine states"), "{plain}");

    // The .yml spelling is found as well.
    std::fs::rename(dir.path().join("x.yaml"), dir.path().join("x.yml")).unwrap();
    let yaml = ok(describe(&npy, "ndl", &[]), "x.npy with x.yml");
    assert!(matches!(state_type(&yaml), Datatype::Enum(_)), "{yaml}");
}

#[test]
fn a_sidecar_of_another_layout_is_not_used() {
    let dir = sidecar_dir();
    let npy = dir.path().join("x.npy");
    // uint16 instead of the file's uint8: every later offset would be wrong.
    let other = SIDECAR
        .replace("base: uint8", "base: uint16")
        .replace("offset: 1", "offset: 2")
        .replace("size: 9", "size: 10");
    std::fs::write(dir.path().join("x.yaml"), other).unwrap();
    let run = describe(&npy, "ndl", &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(
        run.stderr.starts_with("ndl: warning: ") && run.stderr.contains("another layout"),
        "{run:#?}"
    );
    assert!(run.stderr.contains("x.yaml"), "{run:#?}");
    assert_eq!(state_type(&run.stdout), Datatype::UInt8, "{}", run.stdout);
    let doc = NdlFile::from_yaml(&run.stdout).unwrap();
    let Some(Datatype::Compound(c)) = &doc.ndarray("/x").unwrap().datatype else {
        panic!()
    };
    assert_eq!((c.size, c.member("t").unwrap().offset), (9, 1));
}

#[test]
fn unusable_sidecars_are_warned_about() {
    let dir = sidecar_dir();
    let npy = dir.path().join("x.npy");
    let side = dir.path().join("x.yaml");
    for (text, word) in [
        ("ndarrays: [unclosed\n", "ignored"),
        (
            "ndarrays:\n  x: {shape: [3], type: no_such_type}\n",
            "ignored",
        ),
        (
            "ndarrays:\n  other: {shape: [3], type: uint8}\n",
            "no array `/other`",
        ),
    ] {
        std::fs::write(&side, text).unwrap();
        let run = describe(&npy, "ndl", &[]);
        assert_eq!(run.code, Some(0), "{text}: {run:#?}");
        assert!(
            run.stderr.starts_with("ndl: warning: sidecar ")
                && run.stderr.contains(word)
                && run.stderr.contains("x.yaml"),
            "{text}: {run:#?}"
        );
        assert_eq!(state_type(&run.stdout), Datatype::UInt8, "{}", run.stdout);
        // --no-sidecar does not even look.
        let quiet = describe(&npy, "ndl", &["--no-sidecar"]);
        assert_eq!((quiet.code, quiet.stderr.as_str()), (Some(0), ""));
    }
    // Not UTF-8: it cannot be read, and the user hears of it.
    std::fs::write(&side, b"ndarrays:\n  x: {description: \xff}\n").unwrap();
    let run = describe(&npy, "ndl", &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(run.stderr.contains("ignored"), "{run:#?}");
}

#[test]
fn a_sidecar_describes_npz_groups() {
    let dir = tempfile::tempdir().unwrap();
    common::run_python(
        "import sys, numpy as np\n\
         np.savez(sys.argv[1] + '/g.npz', **{'grp/mode': np.zeros(4, 'i1'), 't': np.zeros(4)})",
        &[dir.path().to_str().unwrap()],
    );
    std::fs::write(
        dir.path().join("g.yaml"),
        "/:\n  attributes: {title: Test run}\n\
         /grp:\n  ndarrays:\n    mode:\n      shape: [4]\n      \
         type: {enum: {base: int8, members: {off: 0, 'on': 1}}}\n      \
         attributes: {description: Mode}\n",
    )
    .unwrap();
    let path = dir.path().join("g.npz");
    let yaml = ok(describe(&path, "ndl", &[]), "g.npz");
    let doc = NdlFile::from_yaml(&yaml).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
    let mode = doc.ndarray("/grp/mode").unwrap();
    assert!(
        matches!(&mode.datatype, Some(Datatype::Enum(e)) if e.members.len() == 2),
        "{yaml}"
    );
    assert_eq!(mode.description(), Some("Mode"));
    let root = doc.group("/").unwrap();
    assert_eq!(
        root.attributes.get("title").and_then(|a| a.as_str()),
        Some("Test run"),
        "{yaml}"
    );
}

/// A conversion carries what the sidecar adds: the enum's names reach
/// every destination that has enums (a Parquet dictionary that pyarrow
/// reads as the names, an HDF5 enum that h5py reads, a Zarr store and
/// an npz archive whose descriptions have them), where the file alone
/// would give a plain `uint8`.
#[test]
fn a_conversion_carries_the_sidecars_datatype() {
    let dir = sidecar_dir();
    let npy = dir.path().join("x.npy");
    std::fs::write(dir.path().join("x.yaml"), SIDECAR).unwrap();
    let names = ["idle", "running", "failed"];
    // A `.npy` destination keeps the names in a sidecar of its own.
    for dst in ["y.parquet", "y.h5", "y.zarr", "y.arrow", "y.npy"] {
        let dst = dir.path().join(dst);
        let run = common::cli::convert(&npy, &dst, &[]);
        assert_eq!(run.code, Some(0), "{run:#?}");
        let yaml = ok(describe(&dst, "ndl", &[]), "the converted file");
        let doc = NdlFile::from_yaml(&yaml).unwrap();
        let compound = doc.groups.iter().find_map(|(_, g)| {
            g.ndarrays.iter().find_map(|(_, nd)| match &nd.datatype {
                Some(Datatype::Compound(c)) => Some(c.clone()),
                _ => None,
            })
        });
        let c = compound.unwrap_or_else(|| panic!("no records:\n{yaml}"));
        let Datatype::Enum(e) = &c.member("state").unwrap().datatype else {
            panic!("{}: the sidecar's enum is lost:\n{yaml}", dst.display())
        };
        let got: Vec<&str> = e.members.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(got, names, "{}", dst.display());
    }
    let categories = ndl_testkit::run_with(
        &ndl_testkit::python312(),
        "import sys, pyarrow.parquet as pq, h5py\n\
         t = pq.read_table(sys.argv[1])\n\
         print(t.column('state').type, t.column('state').to_pylist())\n\
         with h5py.File(sys.argv[2]) as f:\n\
         \x20   d = [v for v in f.values() if isinstance(v, h5py.Dataset)][0]\n\
         \x20   print(sorted(h5py.check_enum_dtype(d.dtype['state']).items()))",
        &[
            dir.path().join("y.parquet").to_str().unwrap(),
            dir.path().join("y.h5").to_str().unwrap(),
        ],
    );
    assert_eq!(
        categories,
        "dictionary<values=string, indices=uint8, ordered=0> ['idle', 'idle', 'idle']\n\
         [('failed', 2), ('idle', 0), ('running', 1)]\n"
    );
}

/// The sidecar's attributes of the ndarray go with it: onto the Zarr
/// array, the HDF5 dataset, the netCDF file (global attributes of a
/// columns `.nc`, as xarray reads a table's), into the sidecar of a
/// `.npy` and the schema metadata of Parquet and Arrow IPC files, each
/// read by the format's own reader.
#[test]
fn a_conversion_carries_the_sidecars_attributes() {
    let dir = sidecar_dir();
    let npy = dir.path().join("x.npy");
    let sidecar = format!(
        "{SIDECAR}      valid_range: {{shape: [2], type: int32, value: [0, 2]}}\n      scale: 0.5\n"
    );
    std::fs::write(dir.path().join("x.yaml"), sidecar).unwrap();
    for (dst, extra) in [
        ("y.zarr", &[][..]),
        ("y.h5", &[]),
        ("y.nc", &["--layout", "columns"]),
        ("y.npy", &[]),
        ("y.parquet", &[]),
        ("y.arrow", &[]),
    ] {
        let dst = dir.path().join(dst);
        let run = common::cli::convert(&npy, &dst, extra);
        assert_eq!(run.code, Some(0), "{run:#?}");
    }
    let attrs = ndl_testkit::run_with(
        &ndl_testkit::python312(),
        "import sys, zarr, h5py, netCDF4, yaml\n\
         d = sys.argv[1]\n\
         def show(a):\n\
         \x20   r = a['valid_range']\n\
         \x20   r = r['value'] if isinstance(r, dict) else r\n\
         \x20   print(a['description'], a['units'], [int(x) for x in r], a['scale'])\n\
         show(dict(zarr.open_array(d + '/y.zarr', mode='r').attrs))\n\
         with h5py.File(d + '/y.h5') as f:\n\
         \x20   ds = [v for v in f.values() if isinstance(v, h5py.Dataset)][0]\n\
         \x20   show({k: (v.decode() if isinstance(v, bytes) else v) for k, v in ds.attrs.items()})\n\
         with netCDF4.Dataset(d + '/y.nc') as f:\n\
         \x20   show({k: f.getncattr(k) for k in f.ncattrs()})\n\
         show(yaml.safe_load(open(d + '/y.yaml'))['ndarrays']['y']['attributes'])\n\
         import json, pyarrow.parquet as pq, pyarrow.feather as pf\n\
         for schema in [pq.read_schema(d + '/y.parquet'), pf.read_table(d + '/y.arrow').schema]:\n\
         \x20   m = {k.decode(): v.decode() for k, v in schema.metadata.items()}\n\
         \x20   show({k: (json.loads(v) if k in ('valid_range', 'scale') else v) for k, v in m.items()})\n",
        &[dir.path().to_str().unwrap()],
    );
    let want = "Machine states over time s [0, 2] 0.5\n";
    assert_eq!(attrs, want.repeat(6), "{attrs}");
    // The `.npy`'s own sidecar names the enum's members too.
    let yaml = ok(describe(&dir.path().join("y.npy"), "ndl", &[]), "y.npy");
    assert!(yaml.contains("running: 1"), "{yaml}");
}

/// A sidecar that gives only attributes (no datatype) still has them
/// carried, onto an array of variable-length strings too, in both Zarr
/// formats.
#[test]
fn a_sidecar_s_attributes_reach_a_zarr_string_array() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    common::run_python(
        "import sys, numpy as np\n\
         np.save(sys.argv[1] + '/s.npy', np.array(['ab', 'c', ''], dtype='U2'))",
        &[d.to_str().unwrap()],
    );
    let sidecar =
        "ndarrays:\n  s:\n    shape: [3]\n    attributes:\n      long_name: station names\n";
    std::fs::write(d.join("s.yaml"), sidecar).unwrap();
    for format in ["3", "2"] {
        let zarr = d.join(format!("s{format}.zarr"));
        let run = common::cli::convert(
            &d.join("s.npy"),
            &zarr,
            &["--strings", "variable", "--zarr-format", format],
        );
        assert_eq!(run.code, Some(0), "{run:#?}");
        let got = ndl_testkit::run_with(
            &ndl_testkit::python312(),
            "import sys, zarr\n\
             a = zarr.open_array(sys.argv[1], mode='r')\n\
             print(a.attrs['long_name'], a[:].tolist())",
            &[zarr.to_str().unwrap()],
        );
        assert_eq!(got, "station names ['ab', 'c', '']\n", "v{format}");
    }
}

/// The sidecar's attributes become a columns `.nc`'s global attributes of
/// their own types, as netCDF4-python reads them: a NaN stays a float
/// (it was written as the text `null`), a `short` range stays `short`
/// (it was widened to `int64`).
#[test]
fn a_columns_nc_keeps_the_sidecars_attribute_types() {
    let dir = sidecar_dir();
    let npy = dir.path().join("x.npy");
    let sidecar = format!(
        "{SIDECAR}      valid_range: {{shape: [2], type: int16, value: [0, 2]}}\n{}",
        "      missing: {shape: [], type: float64, value: .nan}\n"
    );
    std::fs::write(dir.path().join("x.yaml"), sidecar).unwrap();
    let nc = dir.path().join("y.nc");
    let run = common::cli::convert(&npy, &nc, &["--layout", "columns"]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    let attrs = ndl_testkit::run_with(
        &ndl_testkit::python312(),
        "import sys, netCDF4\n\
         with netCDF4.Dataset(sys.argv[1]) as f:\n\
         \x20   r, m = f.getncattr('valid_range'), f.getncattr('missing')\n\
         \x20   print(r.dtype, r.tolist(), type(m).__name__, m)\n",
        &[nc.to_str().unwrap()],
    );
    assert_eq!(attrs, "int16 [0, 2] float64 nan\n", "{attrs}");
}
