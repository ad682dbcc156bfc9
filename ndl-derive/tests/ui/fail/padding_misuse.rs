use ndl_runtime::{NdlType, Record};

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct NotBytes {
    a: u8,
    #[ndl(padding)]
    gap: [u16; 2],
}

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct Renamed {
    a: u8,
    #[ndl(padding, rename = "pad")]
    gap: [u8; 3],
}

#[derive(Record)]
struct InRecord {
    a: String,
    #[ndl(padding)]
    gap: [u8; 3],
}

fn main() {}
