use std::mem::{offset_of, size_of};

use ndl_runtime::{Datatype, NdlType};

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct Inner {
    a: u8,
    b: f64,
}

#[derive(Clone, Copy, NdlType)]
#[repr(C, packed)]
struct Outer(u16, Inner, [[f32; 2]; 3]);

#[derive(Clone, Copy, NdlType)]
#[repr(C, align(16))]
struct Wide<T> {
    v: T,
}

#[derive(Clone, Copy, NdlType)]
#[repr(transparent)]
struct Meters(f32);

fn main() {
    let Datatype::Compound(c) = Outer::datatype() else { panic!() };
    assert_eq!(c.size, size_of::<Outer>());
    assert_eq!(c.members[1].offset, offset_of!(Outer, 1));
    assert_eq!(c.members[1].datatype, Inner::datatype());
    assert_eq!(c.members[2].datatype, Datatype::Float32.array_of(&[3, 2]));
    assert_eq!(Wide::<u8>::datatype().size(), Some(16));
    assert_eq!(Meters::datatype(), Datatype::Float32);
}
