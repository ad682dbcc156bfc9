//! The records the Zarr command-line tests convert: `Rec` in Rust, and the
//! .npy and .npz files NumPy writes of the same values.
//!
//! The records have their values from their index `i` by the same formula
//! here (`Rec::make`) and in Python (`fill` in `MAKE_NPY`).

use std::path::PathBuf;

use ndl_runtime::{ByteOrder, NdlType};

use super::zarr_python::py;
use crate::common;

/// Records in every test array.
pub const N: usize = 1000;
/// The packed size of `Rec` (numpy's aligned dtype is 32 bytes).
pub const PACKED: usize = 21;

// No doc comments on these types or fields: they would become NDL
// descriptions, which the NumPy-made stores do not have.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
pub struct Inner {
    x: i8,
    y: f32,
}

// numpy's `np.dtype([...], align=True)` of `MAKE_NPY`: the same offsets.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
pub struct Rec {
    a: u8,
    b: f64,
    c: u16,
    ok: bool,
    #[ndl(string)]
    code: [u8; 4],
    n: Inner,
}

impl Rec {
    pub fn make(i: usize) -> Rec {
        let mut code = [0u8; 4];
        let text = format!("c{}", i % 1000);
        code[..text.len()].copy_from_slice(text.as_bytes());
        Rec {
            a: (i % 251) as u8,
            b: i as f64 * 0.5 - 3.0,
            c: (i * 7 % 65536) as u16,
            ok: i.is_multiple_of(3),
            code,
            n: Inner {
                x: -((i % 100) as i8),
                y: i as f32 * 0.25,
            },
        }
    }

    /// The packed record as a store holds it, in `order`.
    pub fn packed(&self, order: ByteOrder) -> Vec<u8> {
        let big = order == ByteOrder::Big;
        let mut out = vec![self.a];
        out.extend(if big {
            self.b.to_be_bytes()
        } else {
            self.b.to_le_bytes()
        });
        out.extend(if big {
            self.c.to_be_bytes()
        } else {
            self.c.to_le_bytes()
        });
        out.push(u8::from(self.ok));
        out.extend(self.code);
        out.push(self.n.x as u8);
        out.extend(if big {
            self.n.y.to_be_bytes()
        } else {
            self.n.y.to_le_bytes()
        });
        assert_eq!(out.len(), PACKED);
        out
    }
}

pub fn records() -> Vec<Rec> {
    (0..N).map(Rec::make).collect()
}

/// Writes into argv[1], with argv[2] records: `nested.npy` (an aligned,
/// padded dtype with u1, f8, u2, bool, S4 and a nested aligned struct),
/// `flat.npy` (the same without the nested struct), their big-endian
/// twins `*_big.npy` (padded too), `grid.npy` (2-d), `zerod.npy` (0-d),
/// `two.npz` (compressed: `readings`, as nested.npy, and `grid`) and
/// `one.npz` (`readings` only).
pub const MAKE_NPY: &str = r#"
out, n = sys.argv[1], int(sys.argv[2])
def fill(dt, n):
    i = np.arange(n)
    a = np.zeros(n, dt)
    a['a'] = i % 251
    a['b'] = i * 0.5 - 3.0
    a['c'] = i * 7 % 65536
    a['ok'] = i % 3 == 0
    a['code'] = [b'c%d' % (k % 1000) for k in i]
    if 'n' in dt.names:
        a['n']['x'] = -(i % 100)
        a['n']['y'] = i * 0.25
    return a
inner = np.dtype([('x', 'i1'), ('y', '<f4')], align=True)
nested = np.dtype([('a', 'u1'), ('b', '<f8'), ('c', '<u2'), ('ok', '?'), ('code', 'S4'), ('n', inner)], align=True)
flat = np.dtype([('a', 'u1'), ('b', '<f8'), ('c', '<u2'), ('ok', '?'), ('code', 'S4')], align=True)
# The padding is really there: the offsets are those of the Rust type.
assert nested.itemsize == 32 and [nested.fields[k][1] for k in nested.names] == [0, 8, 16, 18, 19, 24], nested
assert inner.itemsize == 8 and flat.itemsize == 24
assert packed(nested).itemsize == 21 and packed(flat).itemsize == 16
for name, dt in [('nested', nested), ('flat', flat)]:
    a = fill(dt, n)
    np.save(f'{out}/{name}.npy', a)
    big = a.astype(dt.newbyteorder('>'))
    assert big.dtype.itemsize == dt.itemsize and big.dtype.fields['b'][0].byteorder == '>'
    np.save(f'{out}/{name}_big.npy', big)
grid = np.arange(12, dtype='<f8').reshape(3, 4)
np.save(f'{out}/grid.npy', grid)
np.save(f'{out}/zerod.npy', np.array(5, '<i4'))
np.savez_compressed(f'{out}/two.npz', readings=fill(nested, n), grid=grid)
np.savez(f'{out}/one.npz', readings=fill(nested, n))
"#;

/// The test arrays NumPy writes, in a temporary directory.
pub struct Files {
    pub dir: tempfile::TempDir,
}

impl Files {
    pub fn new() -> Files {
        let dir = tempfile::tempdir().unwrap();
        common::run_python(
            &py(MAKE_NPY),
            &[dir.path().to_str().unwrap(), &N.to_string()],
        );
        Files { dir }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}
