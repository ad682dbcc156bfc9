//! Zarr array metadata read from memory: `zarr.json`, `.zarray` and
//! `.zattrs` documents, as `ndl_zarr::ArrayInfo::open` reads them from a
//! store. It must never panic, abort or allocate what a document claims;
//! whatever it accepts must describe itself without panicking.
//!
//! The input is up to three documents separated by NUL bytes (which JSON
//! text never holds raw): `zarr.json`, then `.zarray`, then `.zattrs`. An
//! empty document is left out of the store, so `\0{...}\0{...}` is a v2
//! array.
#![no_main]

use libfuzzer_sys::fuzz_target;

const KEYS: [&str; 3] = ["zarr.json", ".zarray", ".zattrs"];

fuzz_target!(|data: &[u8]| {
    let objects: Vec<(&str, &[u8])> = KEYS
        .iter()
        .copied()
        .zip(data.splitn(KEYS.len(), |&b| b == 0))
        .filter(|(_, doc)| !doc.is_empty())
        .collect();
    let Ok(info) = ndl_zarr::__fuzz::metadata(&objects) else {
        return;
    };
    // Everything an accepted array says about itself.
    let shape = info.shape();
    let chunks = info.chunks();
    assert_eq!(shape.len(), chunks.len(), "the grid has the shape's rank");
    assert!(!chunks.contains(&0), "no chunk extent is 0");
    if let Some(inner) = info.inner_chunks() {
        let _ = inner.len();
    }
    let stored = info.stored_datatype();
    assert!(stored.size().is_some(), "records have a fixed size");
    let datatype = info.datatype();
    let _ = ndl_runtime::ndl::datatype_to_yaml(&datatype);
    let _ = info.format();
    let _ = info.byte_order();
    let _ = info.compressors();
    let _ = info.attributes();
    let _ = info.dimension_names();
    let _ = info.storage();
});
