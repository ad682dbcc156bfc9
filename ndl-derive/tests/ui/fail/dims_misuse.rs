use ndl_runtime::NdlType;

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct Grid {
    #[ndl(dims = ["x"])]
    not_an_array: f32,
    #[ndl(dims = ["row"])]
    two_axes: [[f32; 3]; 2],
    #[ndl(dims = ["a", "a"])]
    repeated: [[u8; 2]; 2],
    #[ndl(string, dims = ["n"])]
    text: [u8; 4],
    #[ndl(dims = [1])]
    not_a_string: [u8; 2],
    #[ndl(units = "K", units = "C")]
    twice: f32,
}

fn main() {}
