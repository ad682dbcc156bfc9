use ndl_runtime::NdlType;

#[derive(Clone, Copy)]
struct NotDerived(u8);

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct A {
    ok: u8,
    bad: NotDerived,
    ch: char,
}

fn main() {}
