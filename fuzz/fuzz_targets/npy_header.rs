//! `Header::parse` on arbitrary bytes: never panics, and whatever it
//! accepts writes back to a header that parses to the same thing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ndl_runtime::npy::{Header, HeaderLimits};

fuzz_target!(|data: &[u8]| {
    let Ok((header, offset)) = Header::parse(data, &HeaderLimits::default()) else {
        return;
    };
    assert!(offset <= data.len());
    let _ = header.element_count();
    let _ = header.data_len();
    // Anything readable is writable the way NumPy writes it, and reads back.
    let bytes = header.to_bytes().expect("a parsed header can be written");
    assert_eq!(bytes.len() % 64, 0);
    let unlimited = HeaderLimits {
        max_header_size: usize::MAX,
    };
    let (again, end) = Header::parse(&bytes, &unlimited).expect("a written header parses");
    assert_eq!(end, bytes.len());
    assert_eq!(again.datatype, header.datatype);
    assert_eq!(again.shape, header.shape);
    assert_eq!(again.order, header.order);
    assert_eq!(again.to_bytes().expect("writes again"), bytes);
});
