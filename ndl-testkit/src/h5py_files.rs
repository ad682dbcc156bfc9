//! HDF5 files only h5py's low-level API writes, for the tests of more
//! than one crate. Each script takes the file's path as its argument.

/// `flat`: `b` (f8 at 8) inserted before `a` (i4 at 0); `nested`: `z`, a
/// `flat` record at 24, before `y` (u2 at 0) and `x` (f4 at 8).
pub const OUT_OF_ORDER_COMPOUNDS: &str = r#"
import sys, h5py, numpy as np
from h5py import h5t
def flat():
    t = h5t.create(h5t.COMPOUND, 16)
    t.insert(b"b", 8, h5t.IEEE_F64LE)
    t.insert(b"a", 0, h5t.STD_I32LE)
    return t
def nested():
    t = h5t.create(h5t.COMPOUND, 40)
    t.insert(b"z", 24, flat())
    t.insert(b"y", 0, h5t.STD_U16LE)
    t.insert(b"x", 8, h5t.IEEE_F32LE)
    return t
with h5py.File(sys.argv[1], "w") as f:
    for name, t in [("flat", flat()), ("nested", nested())]:
        h5py.h5d.create(f.id, name.encode(), t, h5py.h5s.create_simple((3,)))
    a = np.zeros(3, f["flat"].dtype)
    a["a"] = [1, -2, 3]; a["b"] = [0.5, 1.5, 2.5]
    f["flat"][...] = a
    n = np.zeros(3, f["nested"].dtype)
    n["y"] = [7, 8, 9]; n["x"] = [0.25, 0.5, 0.75]
    n["z"]["a"] = [10, 20, 30]; n["z"]["b"] = [1e10, -1.0, 2.0]
    f["nested"][...] = n
    assert f["flat"].dtype.names == ("b", "a") and f["nested"].dtype.names == ("z", "y", "x")
"#;
