use ndl_runtime::NdlType;

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
#[ndl(rename_all = "Title Case")]
struct A {
    x: u8,
}

fn main() {}
