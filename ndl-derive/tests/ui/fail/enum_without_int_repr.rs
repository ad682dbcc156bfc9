use ndl_runtime::NdlType;

#[derive(Clone, Copy, NdlType)]
enum Plain {
    A,
    B,
}

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
enum COnly {
    A,
    B,
}

fn main() {}
