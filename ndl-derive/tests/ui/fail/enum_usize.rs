use ndl_runtime::NdlType;

#[derive(Clone, Copy, NdlType)]
#[repr(usize)]
enum Platform {
    A,
    B,
}

fn main() {}
