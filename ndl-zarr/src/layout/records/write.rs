//! Writing one array of records: its metadata, and the appender of a new
//! or existing array.

use ndl_runtime::Datatype;
use ndl_runtime::lang::zarr::ZarrFormat;
use ndl_runtime::records::PackedLayout;
use serde_json::json;

use crate::append::Appender;
use crate::chunks::ChunkIo;
use crate::error::{Error, Result};
use crate::metadata::{ArrayMeta, NDL_DATATYPE};
use crate::options::WriteOptions;
use crate::store::Store;

/// Creates the array in the empty `store` for records of `datatype` (any
/// layout: it is stored packed), its record dimension named `dimension`,
/// and its appender; with `publish_on_finish`, the array's metadata is
/// written by the appender's commit, last.
pub(crate) fn create(
    options: &WriteOptions,
    store: &Store,
    datatype: &Datatype,
    dimension: &str,
) -> Result<Appender> {
    let stored = PackedLayout::new(datatype)
        .map_err(|e| Error::Unsupported {
            message: e.to_string(),
        })?
        .datatype()
        .clone();
    check_storable(options, &stored)?;
    let mut attributes = options.attributes.clone();
    attributes.insert(NDL_DATATYPE.into(), json!(datatype));
    let chunk_len = options.chunk_len_for(stored.size().unwrap_or(0))?;
    let meta = ArrayMeta::new(
        options,
        &stored,
        vec![0],
        chunk_len,
        attributes,
        vec![dimension.to_string()],
    )?
    .with_options_fill(options)?;
    Appender::create(ChunkIo::new(store, &meta)?, meta, options.publish_on_finish)
}

/// The appender of the records array `meta` describes.
pub(crate) fn start(store: Store, meta: ArrayMeta) -> Result<Appender> {
    check_records(&store, &meta)?;
    Appender::start(ChunkIo::new(&store, &meta)?, meta)
}

/// Records arrays are one-dimensional.
pub(crate) fn check_records(store: &Store, meta: &ArrayMeta) -> Result<()> {
    if meta.shape.len() != 1 {
        return Err(Error::Shape {
            store: store.name.clone(),
            message: format!(
                "the array has shape {:?}; only one-dimensional records arrays are appended to",
                meta.shape
            ),
        });
    }
    Ok(())
}

/// Refuses what the chosen format cannot hold, saying what to do instead.
pub(crate) fn check_storable(options: &WriteOptions, stored: &Datatype) -> Result<()> {
    let result = match options.format {
        ZarrFormat::V3 => stored.to_zarr_v3_data_type().map(drop),
        ZarrFormat::V2 => stored.to_zarr_v2_dtype(options.order()).map(drop),
    };
    result.map_err(|e| Error::Unsupported {
        message: match options.format {
            ZarrFormat::V3 => format!(
                "{e}; store array fields in the columns layout, which \
                 zarr-python 3 and xarray read (a Zarr v2 dtype has subarray \
                 fields, but only zarr-python 2 reads them: zarr-python 3 refuses them)"
            ),
            ZarrFormat::V2 => e.to_string(),
        },
    })
}
