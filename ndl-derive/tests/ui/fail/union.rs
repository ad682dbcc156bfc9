use ndl_runtime::NdlType;

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
union Bits {
    f: f32,
    u: u32,
}

fn main() {}
