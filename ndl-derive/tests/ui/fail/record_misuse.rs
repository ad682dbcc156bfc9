// `#[derive(Record)]` where it does not apply, all reported at once.
use ndl_runtime::Record;

#[derive(Record)]
#[repr(u8)]
enum Side {
    Buy,
}

#[derive(Record)]
struct Tuple(u32, String);

#[derive(Record)]
#[ndl(rename_all = "camelCase")]
struct Trade {
    #[ndl(fill = 0)]
    id: u64,
    #[ndl(rename = "id")]
    other: u32,
    bad: char,
    #[ndl(colour = "red")]
    tags: Vec<String>,
}

#[derive(Record)]
struct Empty {}

fn main() {}
