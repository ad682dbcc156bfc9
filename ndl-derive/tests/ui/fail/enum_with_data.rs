use ndl_runtime::NdlType;

#[derive(Clone, Copy, NdlType)]
#[repr(u8)]
enum Shape {
    Empty,
    Circle(f32),
    Rect { w: f32, h: f32 },
}

fn main() {}
