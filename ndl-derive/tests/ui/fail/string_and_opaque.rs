use ndl_runtime::NdlType;

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct A {
    #[ndl(string, opaque)]
    x: [u8; 4],
    #[ndl(rename = "a", rename = "b")]
    y: u8,
}

fn main() {}
