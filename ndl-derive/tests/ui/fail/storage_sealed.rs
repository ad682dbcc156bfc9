use ndl_runtime::{Charset, FixedString, NdlType};

#[derive(Clone, Copy, NdlType)]
#[repr(transparent)]
struct Flags([bool; 4]);

// Describing `bool`s as string bytes would let any byte become a `bool`.
impl ndl_runtime::__private::StringStorage for Flags {
    const DATATYPE: FixedString = FixedString {
        length: 4,
        charset: Charset::Ascii,
    };
}

fn main() {}
