use ndl_runtime::NdlType;

#[derive(NdlType)]
#[repr(C)]
struct A {
    x: u8,
}

fn main() {}
