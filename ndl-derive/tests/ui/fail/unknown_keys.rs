use ndl_runtime::NdlType;

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
#[ndl(rename = "typo")]
struct A {
    #[ndl(renmae = "x")]
    x: u8,
}

#[derive(Clone, Copy, NdlType)]
#[repr(u8)]
enum E {
    #[ndl(skip)]
    A,
}

fn main() {}
