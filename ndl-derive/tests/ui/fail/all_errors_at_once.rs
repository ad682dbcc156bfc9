use ndl_runtime::NdlType;

#[derive(Clone, Copy, NdlType)]
#[ndl(colour = "red")]
struct A {
    x: u8,
    #[ndl(rename = "x")]
    y: u8,
}

fn main() {}
