//! Prints the NDL datatypes of the README's example types.

use ndl_runtime::{ndl, NdlType};

/// One reading of a weather station.
#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct Reading {
    /// Station number.
    station: u32,
    /// Seconds since the epoch.
    time: f64,
    sky: Sky,
    #[ndl(string)]
    code: [u8; 4],
    wind: [f32; 2],
}

#[derive(Clone, Copy, NdlType)]
#[repr(u8)]
enum Sky {
    Clear,
    Cumulus,
    Stratus = 7,
}

fn main() {
    print!("{}", ndl::datatype_to_yaml(&Reading::datatype()));
    println!("---");
    print!("{}", ndl::datatype_to_yaml(&Sky::datatype()));
}
