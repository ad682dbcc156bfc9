//! The inventory of files that h5py and netCDF4-python wrote: every
//! group, dataset, attribute and type, and netCDF's dimensions.

use ndl_hdf5::{ArrayReader, Inventory};
use ndl_runtime::{ByteOrder, Datatype, IntType};
use ndl_testkit::python::{python312, run_with};
use serde_json::json;

#[test]
fn files_h5py_writes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h5py.h5");
    run_with(
        &python312(),
        r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    f.attrs["title"] = "a test"
    f.attrs["version"] = np.int32(3)
    f.attrs["scale"] = np.array([0.5, np.nan])
    f.attrs["fixed"] = np.bytes_(b"abc")
    g = f.create_group("grp/sub")
    g.attrs["names"] = ["x", "yy"]
    rec = np.dtype([("id", ">u4"), ("v", "<f8"), ("t", h5py.opaque_dtype(np.dtype("<M8[ms]")))])
    g.create_dataset("recs", shape=(5, 2), dtype=rec, chunks=(2, 2), compression="gzip", compression_opts=4, shuffle=True, maxshape=(None, 2))
    f.create_dataset("text", data=np.array(["a", "bcd"], dtype=h5py.string_dtype()))
    f.create_dataset("colour", data=np.array([0, 2], "u1"), dtype=h5py.enum_dtype({"red": 0, "blue": 2}, basetype="u1"))
    f.create_dataset("flags", data=np.array([True, False]))
    f.create_dataset("refs", data=np.array([f["text"].ref], dtype=h5py.ref_dtype))
    f.create_dataset("x", data=np.arange(5.0))
    f["x"].make_scale("x")
    f.create_dataset("temp", data=np.zeros((5,)))
    f["temp"].dims[0].attach_scale(f["x"])
"#,
        &[path.to_str().unwrap()],
    );
    let inv = Inventory::of(&path).unwrap();
    let groups: Vec<&str> = inv.groups.iter().map(|g| g.path.as_str()).collect();
    assert_eq!(groups, ["/", "/grp", "/grp/sub"]);
    let root = &inv.groups[0].attributes;
    assert_eq!(root["title"], json!("a test"));
    assert_eq!(root["version"], json!(3));
    assert_eq!(root["scale"], json!([0.5, "NaN"]));
    assert_eq!(root["fixed"], json!("abc"));
    assert_eq!(inv.groups[2].attributes["names"], json!(["x", "yy"]));

    let find = |name: &str| inv.datasets.iter().find(|d| d.name == name).unwrap();
    let recs = find("recs");
    assert_eq!(recs.group, "/grp/sub");
    assert_eq!(
        (recs.shape.as_slice(), recs.max_shape.as_slice()),
        (&[5, 2][..], &[None, Some(2)][..])
    );
    assert_eq!(recs.chunks.as_deref(), Some(&[2, 2][..]));
    assert_eq!(
        recs.filters,
        [
            json!({"name": "shuffle"}),
            json!({"name": "deflate", "configuration": {"level": 4}})
        ]
    );
    let Datatype::Compound(c) = &recs.stored.datatype else {
        panic!("{:?}", recs.stored)
    };
    assert_eq!(c.size, 20);
    assert_eq!(c.members[0].datatype, Datatype::UInt32);
    assert_eq!(
        c.members[2].datatype,
        Datatype::Time("M8[ms]".parse().unwrap())
    );
    // The first number is big-endian; the float and the time are not.
    assert_eq!(recs.stored.byte_order, ByteOrder::Big);
    assert_eq!(recs.stored.other_order, [4..12, 12..20]);

    assert_eq!(find("text").stored.datatype, Datatype::String);
    let Datatype::Enum(e) = &find("colour").stored.datatype else {
        panic!()
    };
    assert_eq!((e.base, e.members.len()), (IntType::UInt8, 2));
    assert_eq!(find("flags").stored.datatype, Datatype::Bool);
    assert_eq!(find("refs").stored.datatype, Datatype::ObjRef);
    assert!(find("x").is_scale);
    assert_eq!(
        find("temp").dimension_names,
        Some(vec![Some("x".to_string())])
    );
}

#[test]
fn files_netcdf4_python_writes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cf.nc");
    run_with(
        &python312(),
        r#"
import sys, netCDF4, numpy as np
d = netCDF4.Dataset(sys.argv[1], "w")
d.createDimension("time", None)
d.createDimension("lat", 3)
t = d.createVariable("time", "f8", ("time",))
t.units = "days since 2000-01-01"
v = d.createVariable("tas", "f4", ("time", "lat"), zlib=True, complevel=2)
v.long_name = "air temperature"
v[0:2, :] = np.ones((2, 3))
t[0:2] = [0, 1]
d.title = "cf"
d.close()
"#,
        &[path.to_str().unwrap()],
    );
    let inv = Inventory::of(&path).unwrap();
    let tas = inv.datasets.iter().find(|d| d.name == "tas").unwrap();
    assert_eq!(tas.shape, [2, 3]);
    assert_eq!(
        tas.dimension_names,
        Some(vec![Some("time".into()), Some("lat".into())])
    );
    assert_eq!(tas.attributes["long_name"], json!("air temperature"));
    assert!(
        tas.filters
            .contains(&json!({"name": "deflate", "configuration": {"level": 2}})),
        "{:?}",
        tas.filters
    );
    assert_eq!(inv.groups[0].attributes["title"], json!("cf"));
    let lat = inv.datasets.iter().find(|d| d.name == "lat").unwrap();
    assert!(lat.is_scale);
}

/// Every variable of a file with many, in groups, is over the dimensions
/// netCDF4-python gave it, scales named after the walk meets them all
/// (a variable made before the scale of its dimension too).
#[test]
fn many_variables_name_their_dimensions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.nc");
    run_with(
        &python312(),
        r#"
import sys, netCDF4
d = netCDF4.Dataset(sys.argv[1], "w")
d.createDimension("t", None)
d.createDimension("n", 4)
g = d.createGroup("g")
g.createDimension("m", 2)
for i in range(300):
    d.createVariable(f"v{i}", "f4", ("t", "n"))
    g.createVariable(f"w{i}", "i2", ("n", "m", "t"))
d.createVariable("n", "f8", ("n",))
d.close()
"#,
        &[path.to_str().unwrap()],
    );
    let inv = Inventory::of(&path).unwrap();
    let names = |dims: &[&str]| Some(dims.iter().map(|d| Some(d.to_string())).collect());
    let mut seen = 0;
    for d in inv.datasets.iter().filter(|d| !d.is_dimension_only) {
        let expected = match (d.group.as_str(), &d.name[..1]) {
            ("/", "v") => names(&["t", "n"]),
            ("/g", "w") => names(&["n", "m", "t"]),
            ("/", "n") => names(&["n"]),
            other => panic!("{other:?}"),
        };
        assert_eq!(d.dimension_names, expected, "{}/{}", d.group, d.name);
        seen += 1;
    }
    assert_eq!(seen, 601);
    // A dataset opened alone finds the same scales: in its own group, in
    // the group above, and the coordinate variable its own.
    for (dataset, dims) in [
        ("v7", &["t", "n"][..]),
        ("g/w299", &["n", "m", "t"]),
        ("n", &["n"]),
    ] {
        let reader = ArrayReader::open(&path, dataset).unwrap();
        assert_eq!(reader.dimension_names().unwrap(), dims, "{dataset}");
    }
}

/// Scales h5py made, in a file that keeps no creation order, are named
/// by their links, whatever their `NAME` says: a `NAME` that is another
/// dataset's name, or none at all.
#[test]
fn scales_are_named_by_their_links() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scales.h5");
    run_with(
        &python312(),
        r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    for i in range(50):
        f[f"a{i}"] = np.zeros(3)
    f["lat"] = np.zeros(3)
    f["y"] = np.arange(3.0)
    f["y"].make_scale("lat")
    f["zz"] = np.arange(2.0)
    f["zz"].make_scale()
    f["data"] = np.zeros((3, 2))
    f["data"].dims[0].attach_scale(f["y"])
    f["data"].dims[1].attach_scale(f["zz"])
"#,
        &[path.to_str().unwrap()],
    );
    let reader = ArrayReader::open(&path, "data").unwrap();
    assert_eq!(reader.dimension_names().unwrap(), ["y", "zz"]);
    let inv = Inventory::of(&path).unwrap();
    let data = inv.datasets.iter().find(|d| d.name == "data").unwrap();
    let names = ["y", "zz"].map(|n| Some(n.to_string())).to_vec();
    assert_eq!(data.dimension_names, Some(names));
}
