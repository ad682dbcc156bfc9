//! Zarr chunks of arbitrary bytes under real metadata: an array of
//! records (a `u32`, a bool, an enum and an `f64`) that `ndl_zarr` wrote,
//! in one of several formats and codecs, whose chunk objects are replaced
//! by the input. Reading every record must never panic, abort or allocate
//! what a chunk claims; a read that succeeds returns every record, each
//! bool and enum value checked.
//!
//! The first byte chooses the store (see `STORES`); the rest is cut in
//! three, the objects of the first three chunks (or of the one shard). An
//! empty part leaves its chunk out: a missing chunk reads as fill.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use ndl_runtime::{Compound, Datatype, Enum, EnumMember, IntType};
use ndl_zarr::{Codec, PackedWriter, WriteOptions, ZarrFormat};

/// Records in each store: three chunks of 4, the last partial.
const N: usize = 10;

/// A store: its metadata objects, and the keys of its chunk objects.
struct Template {
    metadata: Vec<(String, Vec<u8>)>,
    chunk_keys: Vec<String>,
}

fn datatype() -> Datatype {
    let sky = Enum {
        base: IntType::UInt16,
        members: vec![EnumMember::new("clear", 1), EnumMember::new("storm", 700)],
    };
    Datatype::Compound(
        Compound::c_layout([
            ("id", Datatype::UInt32),
            ("ok", Datatype::Bool),
            ("sky", Datatype::Enum(sky)),
            ("t", Datatype::Float64),
        ])
        .expect("a record"),
    )
}

/// Writes a store with `options` and keeps its metadata.
fn template(options: WriteOptions, sharded: bool) -> Template {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("t.zarr");
    let mut w =
        PackedWriter::create_with(&path, &datatype(), &options.chunk_len(4)).expect("a store");
    let mut packed = vec![0u8; N * w.record_size()];
    for (i, r) in packed.chunks_mut(w.record_size()).enumerate() {
        r[..4].copy_from_slice(&(i as u32).to_le_bytes());
        r[4] = (i % 2) as u8;
        r[5..7].copy_from_slice(&1u16.to_le_bytes());
    }
    w.append(&packed).expect("records stored");
    w.finish().expect("a finished store");
    let v2 = path.join(".zarray").exists();
    let metadata = ["zarr.json", ".zarray", ".zattrs"]
        .iter()
        .filter_map(|k| Some((k.to_string(), std::fs::read(path.join(k)).ok()?)))
        .collect();
    let chunk_keys = match (v2, sharded) {
        (_, true) => vec!["c/0".to_string()],
        (true, false) => (0..3).map(|i| i.to_string()).collect(),
        (false, false) => (0..3).map(|i| format!("c/{i}")).collect(),
    };
    Template {
        metadata,
        chunk_keys,
    }
}

static STORES: LazyLock<Vec<Template>> = LazyLock::new(|| {
    let v3 = WriteOptions::new();
    let v2 = WriteOptions::new().zarr_format(ZarrFormat::V2);
    vec![
        template(v3.clone().codec(Codec::None), false),
        template(v3.clone().codec(Codec::Zstd(1)), false),
        template(v3.clone().codec(Codec::Gzip(1)), false),
        template(v3.clone().codec(Codec::Blosc(1)), false),
        template(v3.clone().byte_order(ndl_runtime::ByteOrder::Big), false),
        template(v3.clone().shard_len(12), true),
        template(v2.clone().codec(Codec::None), false),
        template(v2.clone().codec(Codec::Zstd(1)), false),
        template(v2.codec(Codec::Blosc(1)), false),
    ]
});

fuzz_target!(|data: &[u8]| {
    let Some((&choice, rest)) = data.split_first() else {
        return;
    };
    let store = &STORES[choice as usize % STORES.len()];
    let third = rest.len().div_ceil(3).max(1);
    let mut objects: Vec<(&str, &[u8])> = store
        .metadata
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_slice()))
        .collect();
    for (key, part) in store.chunk_keys.iter().zip(rest.chunks(third)) {
        objects.push((key.as_str(), part));
    }
    if let Ok(records) = ndl_zarr::__fuzz::read_packed(&objects) {
        assert_eq!(records.len(), N * 15, "every record, packed");
    }
});
