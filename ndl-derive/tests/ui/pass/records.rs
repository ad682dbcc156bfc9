// Every kind of field `#[derive(Record)]` takes, generic records, and
// records in records.
use ndl_runtime::time::{DateTime64, Millis};
use ndl_runtime::{FixedStr, NdlType, Record};

#[derive(Clone, Copy, NdlType)]
#[repr(i16)]
enum Level {
    Low = -1,
    High = 1,
}

#[derive(Clone, Copy, NdlType)]
#[repr(C, packed)]
struct Packed {
    a: u8,
    b: u32,
}

#[derive(Record)]
struct Inner<T> {
    value: T,
    label: Option<String>,
}

/// A record.
#[derive(Record)]
pub struct Everything {
    a: i8,
    b: u64,
    c: f32,
    d: bool,
    e: Level,
    f: DateTime64<Millis>,
    g: FixedStr<8>,
    #[ndl(string)]
    h: [u8; 4],
    i: Packed,
    j: [[u16; 2]; 3],
    k: String,
    l: Box<str>,
    m: Vec<String>,
    n: Box<[f64]>,
    #[ndl(fill = f64::NAN, units = "m")]
    o: Option<f64>,
    #[ndl(fill = "")]
    p: Option<String>,
    #[ndl(fill = Level::Low)]
    q: Option<Level>,
    r: Option<Vec<Option<u8>>>,
    s: [String; 2],
    t: Inner<u32>,
    u: Vec<Inner<Vec<String>>>,
    #[ndl(dims = ["row", "col"])]
    v: [[f32; 2]; 2],
}

fn main() {
    let _ = Everything::datatype();
    let _ = <EverythingColumns as ndl_runtime::record::Columns<Everything>>::with_capacity(1);
}
