use ndl_runtime::NdlType;

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct A {
    #[ndl(string)]
    x: f64,
    #[ndl(opaque)]
    y: [u16; 4],
}

fn main() {}
