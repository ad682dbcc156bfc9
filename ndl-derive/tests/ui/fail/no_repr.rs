use ndl_runtime::NdlType;

#[derive(Clone, Copy, NdlType)]
struct Reading {
    id: u32,
    t: f64,
}

fn main() {}
