//! The README's main job: the export example's file loads in NumPy as
//! exactly the record's dtype, its sidecar loads in PyYAML as serde_yaml
//! reads it, and the sidecar is checked when reading back.

use crate::common;

#[path = "../../examples/export.rs"]
mod example;

use example::{Reading, Sky, export, readings};
use ndl_runtime::npy::{self, ReadOptions, StreamWriter, WriteOptions, sidecar_path};
use ndl_runtime::{Datatype, ndl};

#[test]
fn numpy_loads_the_exported_records() {
    let dir = tempfile::tempdir().unwrap();
    let records = readings(50);
    let path = export(dir.path(), &records).unwrap();
    // The README's Python: np.load, and a dtype built independently.
    let out = common::run_python(
        r#"
import sys, numpy as np
a = np.load(sys.argv[1])
expected = np.dtype({
    'names': ['station', 'time', 'sky', 'code', 'wind', 'temperature'],
    'formats': ['<u4', '<M8[s]', 'u1', 'S4', ('<f4', (2,)), '<f4'],
    'offsets': [0, 8, 16, 17, 24, 32],
    'itemsize': 40,
})
assert a.dtype == expected, a.dtype
assert a.shape == (50,), a.shape
assert a['station'][3] == 1003 and a['sky'][2] == 7 and a['code'][0] == b'RA'
assert abs(a['temperature'][5] - 278.15) < 1e-4
print(str(a["time"][49]), repr(float(a["wind"][49][0])))
"#,
        &[path.to_str().unwrap()],
    );
    let expected = format!("{} {:?}", records[49].time, f64::from(records[49].wind[0]));
    assert_eq!(out.trim(), expected);
}

#[test]
fn the_sidecar_describes_the_file_and_loads_the_same_in_pyyaml() {
    let dir = tempfile::tempdir().unwrap();
    let path = export(dir.path(), &readings(3)).unwrap();
    let text = std::fs::read_to_string(sidecar_path(&path)).unwrap();
    let doc = ndl::File::from_yaml(&text).unwrap();
    let nd = doc.ndarray("/readings").unwrap();
    assert_eq!(
        nd.datatype.as_ref(),
        Some(&<Reading as ndl_runtime::NdlType>::datatype())
    );
    assert_eq!(nd.description(), Some("One reading of a weather station."));
    let json = common::run_python(
        "import sys, json, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))",
        &[sidecar_path(&path).to_str().unwrap()],
    );
    let from_pyyaml: serde_yaml::Value = serde_json::from_str(&json).unwrap();
    let from_serde: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    assert_eq!(from_pyyaml, from_serde);
}

#[test]
fn a_sidecar_with_other_enum_members_is_an_error_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = export(dir.path(), &readings(3)).unwrap();
    let side = sidecar_path(&path);
    let text = std::fs::read_to_string(&side).unwrap();
    std::fs::write(&side, text.replace("Stratus: 7", "Nimbus: 7")).unwrap();
    let err = npy::read_file::<Reading>(&path).unwrap_err().to_string();
    assert!(
        err.contains("field `sky`") && err.contains("Nimbus = 7"),
        "{err}"
    );
    assert!(err.contains("Stratus = 7"), "{err}");
    // Opting out reads the file.
    let back = ReadOptions::new()
        .sidecar(false)
        .read_file::<Reading>(&path)
        .unwrap();
    assert_eq!(back.data.len(), 3);
}

#[test]
fn a_sidecar_of_another_layout_or_unreadable_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = export(dir.path(), &readings(3)).unwrap();
    let side = sidecar_path(&path);
    let text = std::fs::read_to_string(&side).unwrap();
    std::fs::write(
        &side,
        text.replace("offset: 32", "offset: 36")
            .replace("size: 40", "size: 44"),
    )
    .unwrap();
    let err = npy::read_file::<Reading>(&path).unwrap_err().to_string();
    assert!(err.contains("another layout"), "{err}");
    // The .yml spelling is a sidecar too.
    std::fs::rename(&side, side.with_extension("yml")).unwrap();
    let err = npy::read_file::<Reading>(&path).unwrap_err();
    assert!(matches!(err, npy::Error::Sidecar { .. }), "{err}");
}

#[test]
fn yaml_that_does_not_describe_the_array_is_not_its_sidecar() {
    let dir = tempfile::tempdir().unwrap();
    let path = export(dir.path(), &readings(3)).unwrap();
    let side = sidecar_path(&path);
    for unrelated in [
        "ndarrays: [",
        "name: a config file\nthreads: 4\n",
        "ndarrays: {other: {shape: [3], type: uint8}}\n",
    ] {
        std::fs::write(&side, unrelated).unwrap();
        assert_eq!(
            npy::read_file::<Reading>(&path).unwrap().len(),
            3,
            "{unrelated}"
        );
    }
}

#[test]
fn a_sidecar_with_plain_integers_says_less_and_passes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("skies.npy");
    npy::write_file(&path, &[Sky::Clear, Sky::Stratus]).unwrap();
    std::fs::write(
        sidecar_path(&path),
        "ndarrays: {skies: {shape: [2], type: uint8}}\n",
    )
    .unwrap();
    assert_eq!(
        npy::read_file::<Sky>(&path).unwrap(),
        [Sky::Clear, Sky::Stratus]
    );
}

#[test]
fn streamed_files_get_a_sidecar_with_the_final_shape() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stream.npy");
    let options = WriteOptions::new().attribute("batches", 2i64);
    let mut w = StreamWriter::<Reading>::create_with(&path, &options).unwrap();
    w.append(&readings(4)).unwrap();
    w.append(&readings(3)).unwrap();
    assert!(
        !sidecar_path(&path).exists(),
        "the sidecar waits for finish"
    );
    w.finish().unwrap();
    let doc = ndl::File::from_yaml(&std::fs::read_to_string(sidecar_path(&path)).unwrap()).unwrap();
    let nd = doc.ndarray("/stream").unwrap();
    assert_eq!(nd.shape, ndl::Shape::from([7]));
    assert!(nd.attributes.get("batches").is_some());
    assert_eq!(npy::read_file::<Reading>(&path).unwrap().len(), 7);
}

#[test]
fn no_sidecar_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("plain.npy");
    npy::write_file(&path, &[1.0f32]).unwrap();
    assert!(!sidecar_path(&path).exists());
    WriteOptions::new()
        .sidecar(true)
        .write_file(&path, &[1.0f32])
        .unwrap();
    let doc = ndl::File::from_yaml(&std::fs::read_to_string(sidecar_path(&path)).unwrap()).unwrap();
    assert_eq!(
        doc.ndarray("/plain").unwrap().datatype,
        Some(Datatype::Float32)
    );
}
