use ndl_runtime::NdlType;

#[derive(Clone, Copy, NdlType)]
#[repr(u8, align(4))]
enum Wide {
    A,
    B,
}

fn main() {}
