use ndl_runtime::NdlType;

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct Braces {}

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct Unit;

#[derive(Clone, Copy, NdlType)]
#[repr(u8)]
enum Never {}

fn main() {}
