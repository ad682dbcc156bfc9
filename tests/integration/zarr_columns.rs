//! The columns layout through the `ndl` command: converted both ways and
//! described in every format, checked by ncgen and ncdump; groups xarray
//! wrote, described.

use crate::common;

use common::cli::compile_cdl;

/// The stdout of `ndl args`, which must succeed saying nothing on stderr.
fn ndl(args: &[&str]) -> String {
    let run = common::cli::ndl(args);
    assert!(
        run.code == Some(0) && run.stderr.is_empty(),
        "ndl {args:?}: {run:#?}"
    );
    run.stdout
}

/// `ndl convert --layout columns` both ways, from a file NumPy wrote; the
/// store's CDL compiles with ncgen and is the header ncdump shows of it;
/// every format describes it.
#[test]
fn the_command_converts_and_describes_columns() {
    let dir = tempfile::tempdir().unwrap();
    let npy = dir.path().join("obs.npy");
    common::run_python(
        "import sys, numpy as np\n\
         dt = np.dtype([('a', 'u1'), ('b', '>f8'), ('ok', '?'), ('code', 'S4'), ('p', [('x', '>f4'), ('y', '>i2')]), ('w', '>f4', (2,))], align=True)\n\
         a = np.zeros(30, dt); a['a'] = np.arange(30); a['b'] = np.arange(30) / 4; a['ok'] = np.arange(30) % 2 == 0\n\
         a['code'] = [b'C%d' % i for i in range(30)]; a['p']['x'] = 1.5; a['p']['y'] = -np.arange(30); a['w'] = [[1, 2]]\n\
         np.save(sys.argv[1], a)",
        &[npy.to_str().unwrap()],
    );
    let store = dir.path().join("obs.zarr");
    let s = store.to_str().unwrap();
    ndl(&[
        "convert",
        npy.to_str().unwrap(),
        s,
        "--layout",
        "columns",
        "--zarr-format",
        "2",
        "--codec",
        "none",
        "--chars-as-u1",
        "--chunk-len",
        "8",
    ]);
    // ncdump of the store, and of what ncgen makes of our CDL: one header.
    let cdl = ndl(&["describe", s, "--format", "cdl"]);
    let url = format!("file://{s}#mode=zarr,file");
    let header = std::process::Command::new("ncdump")
        .args(["-h", &url])
        .output()
        .unwrap();
    assert!(header.status.success());
    let ours = compile_cdl(&cdl, dir.path(), "obs");
    let strip = |h: &str| h.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(
        strip(&ours),
        strip(&String::from_utf8_lossy(&header.stdout)),
        "ours:\n{cdl}"
    );
    assert!(
        cdl.contains("\tushort") || cdl.contains("\tubyte ok(obs) ;"),
        "{cdl}"
    );
    assert!(
        cdl.contains("\tshort p.y(obs) ;") && cdl.contains("\tubyte code(obs, code_strlen) ;"),
        "{cdl}"
    );

    // Every format describes the group; NDL with the columns' attributes.
    let yaml = ndl(&["describe", s]);
    let doc = ndl_runtime::ndl::File::from_yaml(&yaml).unwrap();
    let ok = doc.ndarray("/ok").unwrap();
    assert!(ok.attributes.get("flag_meanings").is_some(), "{yaml}");
    assert_eq!(doc.ndarray("/w").unwrap().shape.0.len(), 2);
    common::run_python(
        "import sys, yaml; d = yaml.safe_load(sys.argv[1]); assert set(d['ndarrays']) == {'a', 'b', 'ok', 'code', 'p.x', 'p.y', 'w'}, d",
        &[&yaml],
    );
    for format in ["numpy", "datashape", "zarr"] {
        let text = ndl(&["describe", s, "--format", format]);
        assert!(text.contains("p.x"), "{format}: {text}");
    }

    // And back: NumPy reads the records of the columns, in the layout
    // they were written from (the group's `ndl_datatype`), little-endian.
    let back = dir.path().join("back.npy");
    ndl(&["convert", s, back.to_str().unwrap()]);
    let out = common::run_python(
        "import sys, numpy as np\n\
         a, b = np.load(sys.argv[1]), np.load(sys.argv[2])\n\
         assert b.dtype == a.dtype.newbyteorder('<') and b.dtype.itemsize == 40, b.dtype\n\
         for n in a.dtype.names: assert (a[n] == b[n]).all(), n\n\
         print('ok')",
        &[npy.to_str().unwrap(), back.to_str().unwrap()],
    );
    assert_eq!(out.trim(), "ok");
}

/// Groups xarray writes, consolidated or not, v2 and v3: described in
/// every format, with their attributes.
#[test]
fn the_command_describes_groups_xarray_wrote() {
    let dir = tempfile::tempdir().unwrap();
    for (i, (format, consolidated)) in [(2, true), (3, true), (2, false), (3, false)]
        .into_iter()
        .enumerate()
    {
        let path = dir.path().join(format!("x{i}.zarr"));
        let p = path.to_str().unwrap();
        common::xarray_group(&path, format, consolidated);
        let yaml = ndl(&["describe", p]);
        assert!(
            yaml.contains("title: from xarray") && yaml.contains("units: K"),
            "{yaml}"
        );
        for format in ["numpy", "datashape", "zarr", "cdl"] {
            let text = ndl(&["describe", p, "--format", format]);
            assert!(text.contains('t') && text.contains('n'), "{format}: {text}");
        }
    }
}
