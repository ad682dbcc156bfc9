//! Where a netCDF-3 variable's values are: fixed-size variables in one
//! run of bytes, record variables one slab per record, the records of
//! all of them interleaved. Each placement is checked against the file's
//! length, so that no read asks for bytes the file does not have.

use super::header::Header;

/// A variable's shape and where its rows (its first index) are.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    /// Its shape; a record variable's first extent is the number of
    /// records.
    pub(crate) shape: Vec<u64>,
    /// Where its first row starts.
    pub(crate) begin: u64,
    /// The bytes of one row (one value for a scalar).
    pub(crate) row_bytes: u64,
    /// From one row's start to the next: `row_bytes`, or a record's size.
    pub(crate) stride: u64,
    /// The number of rows.
    pub(crate) rows: u64,
}

/// Places every variable of `header` in a file of `len` bytes, or says
/// which does not fit and why.
pub(crate) fn place(header: &Header, len: u64) -> Result<Vec<Layout>, String> {
    let record_size = record_size(header)?;
    let mut layouts = Vec::with_capacity(header.variables.len());
    for v in &header.variables {
        let dims: Vec<_> = v
            .dimensions
            .iter()
            .map(|&d| &header.dimensions[d])
            .collect();
        if dims.iter().skip(1).any(|d| d.unlimited) {
            return Err(format!(
                "variable `{}`: the unlimited dimension is not its first",
                v.name
            ));
        }
        let record = dims.first().is_some_and(|d| d.unlimited);
        let shape: Vec<u64> = dims.iter().map(|d| d.length).collect();
        let too_big = || format!("variable `{}` is larger than the file can hold", v.name);
        let row_bytes = row_bytes(&shape, v.kind.size()).ok_or_else(too_big)?;
        let (rows, stride) = match (shape.first(), record) {
            (None, _) => (1, row_bytes),
            (Some(&n), false) => (n, row_bytes),
            (Some(&n), true) => (n, record_size),
        };
        let end = match rows {
            0 => Some(v.begin),
            n => (n - 1)
                .checked_mul(stride)
                .and_then(|b| b.checked_add(row_bytes))
                .and_then(|b| b.checked_add(v.begin)),
        };
        match end {
            Some(end) if end <= len => {}
            _ => {
                return Err(format!(
                    "variable `{}`: its data (from byte {}) runs past the end of the file ({len} bytes)",
                    v.name, v.begin
                ));
            }
        }
        layouts.push(Layout {
            shape,
            begin: v.begin,
            row_bytes,
            stride,
            rows,
        });
    }
    Ok(layouts)
}

/// The bytes of one row of `shape` (all but its first extent; a scalar's
/// one value), of values of `size` bytes.
fn row_bytes(shape: &[u64], size: usize) -> Option<u64> {
    shape
        .iter()
        .skip(1)
        .try_fold(size as u64, |n, &d| n.checked_mul(d))
}

/// The bytes of one record: every record variable's slab, each padded to
/// 4 bytes, except that a lone record variable's is not (the format's
/// special case).
fn record_size(header: &Header) -> Result<u64, String> {
    let slabs: Vec<u64> = header
        .variables
        .iter()
        .filter(|v| {
            v.dimensions
                .first()
                .is_some_and(|&d| header.dimensions[d].unlimited)
        })
        .map(|v| {
            let shape: Vec<u64> = v
                .dimensions
                .iter()
                .map(|&d| header.dimensions[d].length)
                .collect();
            row_bytes(&shape, v.kind.size())
                .ok_or_else(|| format!("variable `{}` is larger than the file can hold", v.name))
        })
        .collect::<Result<_, _>>()?;
    if let [one] = slabs.as_slice() {
        return Ok(*one);
    }
    slabs
        .iter()
        .try_fold(0u64, |sum, &s| sum.checked_add(s.checked_add(3)? / 4 * 4))
        .ok_or_else(|| "the records are larger than the file can hold".into())
}
