"""Made the stores beside this script with zarr-python 2.18.7 (numcodecs
0.15.2, NumPy 2.2.6): run in a venv of those, `python make.py`. Kept small,
and checked in, so that the tests need no third venv. zarr-python 2.x left
metadata that 3.x no longer writes: `fill_value: 0` for bool and `U`
arrays, `|O` arrays with vlen filters, NaN in `.zattrs`.
"""

import os
import shutil

import numcodecs as nc
import numpy as np
import zarr

here = os.path.dirname(os.path.abspath(__file__))


def make(name, data, **kw):
    path = os.path.join(here, name + ".zarr")
    shutil.rmtree(path, ignore_errors=True)
    kw.setdefault("chunks", tuple(max(1, (d + 1) // 2) for d in data.shape) or True)
    a = zarr.open_array(path, mode="w", shape=data.shape, dtype=data.dtype if data.dtype != object else object, **kw)
    a[...] = data
    return a


make("z2_int16_2d", np.arange(12, dtype="<i2").reshape(3, 4))
make("z2_float64_3d_order_f", np.arange(24, dtype="<f8").reshape(2, 3, 4) / 4, order="F")
make("z2_bool_fill_0", np.array([True, False, True]), fill_value=0)
make("z2_unicode_fill_0", np.array(["ab", "", "çd"], dtype="<U2"), fill_value=0)
make("z2_big_endian", np.arange(6, dtype=">u4").reshape(2, 3))
make("z2_structured", np.zeros(3, [("a", "<i4"), ("b", "<f4", (2,))]))
make("z2_scalar", np.array(7.5, dtype="<f4"))
make("z2_lz4", np.arange(40, dtype="<i4"), compressor=nc.LZ4())
make("z2_bz2", np.arange(40, dtype="<i4"), compressor=nc.BZ2())
make("z2_blosc_bitshuffle", np.arange(40, dtype="<i8"), compressor=nc.Blosc("zstd", 3, nc.Blosc.BITSHUFFLE))
make("z2_delta_fletcher32", np.arange(40, dtype="<i4"), filters=[nc.Delta("<i4"), nc.Fletcher32()], compressor=None)
make("z2_vlen_utf8", np.array(["", "é", "long text"], dtype=object), object_codec=nc.VLenUTF8())
make("z2_vlen_bytes", np.array([b"", b"\x00\x01", b"xyz"], dtype=object), object_codec=nc.VLenBytes())
ragged = np.empty(3, dtype=object)
ragged[:] = [np.array([1, 2], "<i4"), np.array([], "<i4"), np.array([3], "<i4")]
make("z2_vlen_array", ragged, object_codec=nc.VLenArray("<i4"))
a = make("z2_nan_attrs", np.arange(3, dtype="<f4"))
a.attrs["missing"] = float("nan")
a.attrs["big"] = float("inf")
