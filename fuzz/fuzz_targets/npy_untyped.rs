//! The untyped read of a whole `.npy` file: header, then exactly the data
//! length it announces, from memory and through a reader that returns
//! one byte at a time.
#![no_main]

use std::io::Read;

use libfuzzer_sys::fuzz_target;
use ndl_runtime::npy::{Header, HeaderLimits};

/// A reader that hands out at most one byte per call, like a slow stream.
struct Trickle<'a>(&'a [u8]);

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.0.len()).min(1);
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

fuzz_target!(|data: &[u8]| {
    let limits = HeaderLimits::default();
    let split = Header::split(data, &limits);
    let mut r = Trickle(data);
    let streamed = Header::read(&mut r, &limits);
    match (&split, &streamed) {
        (Ok((h, payload)), Ok(s)) => {
            assert_eq!(h, s);
            assert_eq!(
                payload.len() as u64,
                h.data_len().expect("checked by split")
            );
        }
        (Err(_), _) => {}
        (Ok(_), Err(e)) => panic!("split accepted what read refused: {e}"),
    }
    if let Ok(h) = streamed {
        // The header ends where the stream stopped, whether or not data follows.
        let consumed = data.len() - r.0.len();
        assert_eq!(
            Header::parse(data, &limits).expect("same input").1,
            consumed
        );
        let _ = h.data_len();
    }
});
