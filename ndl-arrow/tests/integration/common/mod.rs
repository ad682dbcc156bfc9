//! The README's record type, and records of it to test with.

#![allow(dead_code)]

use ndl_runtime::NdlType;

/// One reading of a weather station.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
pub struct Reading {
    /// Station number.
    pub station: u32,
    /// Seconds since 1970-01-01T00:00:00Z.
    pub time: f64,
    /// Sky cover.
    pub sky: Sky,
    /// ICAO weather code, NUL-padded.
    #[ndl(string)]
    pub code: [u8; 4],
    /// Wind (east, north) in m/s.
    #[ndl(units = "m/s")]
    pub wind: [f32; 2],
    /// Air temperature in kelvin.
    #[ndl(units = "K")]
    pub temperature: f32,
}

/// Sky cover.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(u8)]
pub enum Sky {
    Clear,
    Cumulus,
    Stratus = 7,
}

pub const SKIES: [Sky; 3] = [Sky::Clear, Sky::Cumulus, Sky::Stratus];
pub const SKY_NAMES: [&str; 3] = ["Clear", "Cumulus", "Stratus"];
pub const CODES: [&[u8; 4]; 4] = [b"RA\0\0", b"SN\0\0", b"TSRA", b"\0\0\0\0"];

/// Reading `i` of a deterministic series; the Python scripts compute the
/// same.
pub fn reading(i: u32) -> Reading {
    Reading {
        station: 1000 + i % 7,
        time: 1.7e9 + f64::from(i) * 0.5,
        sky: SKIES[(i % 3) as usize],
        code: *CODES[(i % 4) as usize],
        wind: [i as f32 * 0.25, -(i as f32)],
        temperature: 250.0 + (i % 50) as f32,
    }
}

pub fn readings(n: u32) -> Vec<Reading> {
    (0..n).map(reading).collect()
}

/// The Python snippet that computes `reading(i)` as a dict of column
/// values, for the peers to write the same records.
pub const PY_READINGS: &str = r#"
SKY_NAMES = ["Clear", "Cumulus", "Stratus"]
CODES = ["RA", "SN", "TSRA", ""]
def columns(n):
    return {
        "station": [1000 + i % 7 for i in range(n)],
        "time": [1.7e9 + i * 0.5 for i in range(n)],
        "sky": [SKY_NAMES[i % 3] for i in range(n)],
        "code": [CODES[i % 4] for i in range(n)],
        "wind": [[i * 0.25, -float(i)] for i in range(n)],
        "temperature": [250.0 + i % 50 for i in range(n)],
    }
"#;
