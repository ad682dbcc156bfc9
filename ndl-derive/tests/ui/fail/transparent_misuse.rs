use ndl_runtime::NdlType;

#[derive(Clone, Copy, NdlType)]
#[repr(transparent)]
#[ndl(rename_all = "UPPERCASE")]
struct A {
    #[ndl(string)]
    x: [u8; 4],
}

fn main() {}
