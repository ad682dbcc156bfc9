//! The spec's example files, each a whole NDL document or one `type:` or
//! `shape:` key, for the tests that read them.
#![allow(dead_code)]

use std::path::PathBuf;

use ndl_runtime::Datatype;
use ndl_runtime::ndl::{self, File, Shape};
use serde_yaml::{Mapping, Value};

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/ndl")
}

/// Every example file, by name, sorted.
pub fn examples() -> Vec<(String, String)> {
    let mut files: Vec<_> = std::fs::read_dir(data_dir())
        .expect("tests/data/ndl exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    files.sort();
    assert!(
        files.len() >= 20,
        "the spec has 18 examples, plus composites"
    );
    files
}

pub fn example(name: &str) -> String {
    std::fs::read_to_string(data_dir().join(format!("{name}.yaml"))).unwrap()
}

/// A spec example is a whole document (`attributes:`, `ndarrays:`, group
/// paths ...) or one `type:` or `shape:` key.
#[derive(Debug, PartialEq)]
pub enum Snippet {
    /// A `type:` key.
    Type(Datatype),
    /// A `shape:` key.
    Shape(Shape),
    /// A whole document.
    File(File),
}

pub fn single_key(text: &str) -> Option<(String, Value)> {
    let v: Value = serde_yaml::from_str(text).ok()?;
    let m = v.as_mapping()?;
    let (k, v) = m.iter().next()?;
    (m.len() == 1).then(|| (k.as_str().unwrap_or("").to_owned(), v.clone()))
}

pub fn parse_snippet(text: &str) -> Snippet {
    match single_key(text) {
        Some((k, v)) if k == "type" => Snippet::Type(serde_yaml::from_value(v).unwrap()),
        Some((k, v)) if k == "shape" => Snippet::Shape(serde_yaml::from_value(v).unwrap()),
        _ => Snippet::File(File::from_yaml(text).unwrap_or_else(|e| panic!("{e}\n{text}"))),
    }
}

/// Our YAML for a snippet; `type:` and `shape:` snippets keep their key.
pub fn write_snippet(s: &Snippet) -> String {
    let keyed = |k: &str, v: Value| {
        let mut m = Mapping::new();
        m.insert(k.into(), v);
        ndl::to_yaml_string(&Value::Mapping(m))
    };
    match s {
        Snippet::Type(dt) => keyed("type", serde_yaml::to_value(dt).unwrap()),
        Snippet::Shape(sh) => keyed("shape", serde_yaml::to_value(sh).unwrap()),
        Snippet::File(f) => f.to_yaml(),
    }
}
