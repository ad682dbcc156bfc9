//! The main job: export typed records to a `.npy` file that NumPy loads as
//! exactly their dtype, with an NDL sidecar, and to a chunked, compressed
//! Zarr store, and print the NDL description.
//!
//! `cargo run --example export [DIR]` writes `DIR/readings.npy`,
//! `DIR/readings.yaml` and `DIR/readings.zarr` (default DIR:
//! `target/example-output`), reads the records back from both, checked, and
//! prints the sidecar.

use std::error::Error;
use std::path::{Path, PathBuf};

use ndl_runtime::NdlType;
use ndl_runtime::npy::{self, WriteOptions, sidecar_path};
use ndl_runtime::time::{DateTime64, Seconds};
use ndl_zarr::{WriteOptions as ZarrOptions, ZarrFormat};

/// One reading of a weather station.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
pub struct Reading {
    /// Station number.
    pub station: u32,
    /// When it was taken (UTC).
    pub time: DateTime64<Seconds>,
    /// Sky cover.
    pub sky: Sky,
    /// ICAO weather code, NUL-padded.
    #[ndl(string)]
    pub code: [u8; 4],
    /// Wind (east, north) in m/s.
    pub wind: [f32; 2],
    /// Air temperature in kelvin.
    pub temperature: f32,
}

/// Sky cover.
#[derive(Clone, Copy, Debug, PartialEq, Eq, NdlType)]
#[repr(u8)]
pub enum Sky {
    Clear,
    Cumulus,
    Stratus = 7,
}

/// Some readings, the same on every run.
pub fn readings(n: u32) -> Vec<Reading> {
    let skies = [Sky::Clear, Sky::Cumulus, Sky::Stratus];
    (0..n)
        .map(|i| Reading {
            station: 1000 + i % 7,
            time: DateTime64::new(1_700_000_000 + i64::from(i) * 600),
            sky: skies[i as usize % 3],
            code: *b"RA\0\0",
            wind: [i as f32 * 0.5, -1.25],
            temperature: 273.15 + (i % 40) as f32,
        })
        .collect()
}

/// Writes `readings.npy` and its sidecar into `dir`, reads the records back
/// and returns the `.npy` path.
pub fn export(dir: &Path, records: &[Reading]) -> Result<PathBuf, Box<dyn Error>> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join("readings.npy");
    WriteOptions::new()
        .attribute("source", "ndl export example")
        .write_file(&path, records)?;
    let back = npy::read_file::<Reading>(&path)?;
    assert_eq!(back, records, "the records read back differ");
    Ok(path)
}

/// Writes `readings.zarr` into `dir`, replacing one already there, reads
/// the records back and returns the store's path. Zarr v2: the record has
/// an array field (`wind`), which the v3 `struct` data type cannot hold.
pub fn export_zarr(dir: &Path, records: &[Reading]) -> Result<PathBuf, Box<dyn Error>> {
    let path = dir.join("readings.zarr");
    if path.exists() {
        std::fs::remove_dir_all(&path)?;
    }
    ZarrOptions::new()
        .zarr_format(ZarrFormat::V2)
        .chunk_len(256)
        .write(&path, records)?;
    let back = ndl_zarr::read::<Reading>(&path)?;
    assert_eq!(back, records, "the records read back from the store differ");
    Ok(path)
}

#[allow(dead_code)]
fn main() -> Result<(), Box<dyn Error>> {
    let dir = std::env::args_os()
        .nth(1)
        .map_or_else(|| PathBuf::from("target/example-output"), PathBuf::from);
    let records = readings(1000);
    let path = export(&dir, &records)?;
    let store = export_zarr(&dir, &records)?;
    eprintln!(
        "wrote {} records to {} and {}",
        records.len(),
        path.display(),
        store.display()
    );
    eprintln!(
        "and their NDL description to {}:\n",
        sidecar_path(&path).display()
    );
    print!("{}", std::fs::read_to_string(sidecar_path(&path))?);
    Ok(())
}
