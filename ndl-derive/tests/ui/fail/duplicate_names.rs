use ndl_runtime::NdlType;

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct A {
    x: u8,
    #[ndl(rename = "x")]
    y: u8,
}

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
#[ndl(rename_all = "lowercase")]
struct B {
    a_b: u8,
    #[ndl(rename = "")]
    c: u8,
}

#[derive(Clone, Copy, NdlType)]
#[repr(u8)]
#[ndl(rename_all = "lowercase")]
enum E {
    On,
    ON,
}

fn main() {}
