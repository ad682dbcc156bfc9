// A field that is not a `Record`, in an otherwise valid record.
use ndl_runtime::Record;

#[derive(Record)]
struct Trade {
    id: u64,
    at: std::time::Instant,
}

fn main() {}
