use ndl_runtime::NdlType;

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct Borrowed<'a> {
    x: &'a u8,
}

fn main() {}
