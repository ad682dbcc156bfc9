// `#[derive(NdlType)]` on a record with variable-length, optional and
// chrono/jiff-time fields: every problem in one round, each saying what to
// use instead.
use ndl_runtime::NdlType;

// Stand-ins with the names of chrono's and jiff's types.
#[derive(Clone, Copy)]
struct DateTime<T>(T);
#[derive(Clone, Copy)]
struct Utc;
#[derive(Clone, Copy)]
struct SignedDuration;
#[derive(Clone, Copy)]
struct NaiveDate;

#[derive(Clone, NdlType)]
struct Trade {
    id: u64,
    symbol: String,
    levels: Vec<f32>,
    #[ndl(fill = -1)]
    venue: Option<i32>,
    names: [Box<str>; 2],
    at: DateTime<Utc>,
    took: SignedDuration,
    day: NaiveDate,
    bad: char,
}

fn main() {}
