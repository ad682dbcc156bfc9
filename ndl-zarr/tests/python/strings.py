"""Writes or checks a Zarr array of variable-length strings or bytes with
the installed zarr-python, for ndl-zarr's tests/strings.rs.

    strings.py write PATH KIND FORMAT SHAPE CHUNKS   # zarr-python writes it
    strings.py check PATH KIND SHAPE                 # zarr-python reads it back

KIND is `text` or `bytes`; SHAPE and CHUNKS are comma-separated extents.
Element i (in C order) holds `value(kind, i)`, by the same formula as the
Rust test: empty for every seventh, else a run of non-ASCII characters (or
bytes with NULs) and the index.
"""
import sys

import numpy as np
import zarr


def value(kind, i):
    if i % 7 == 0:
        return "" if kind == "text" else b""
    if kind == "text":
        return "é" * (i % 5) + "ß" + str(i)
    return bytes([0, i % 256]) * (i % 4) + str(i).encode()


def extents(text):
    return tuple(int(x) for x in text.split(",") if x)


def expected(kind, shape):
    n = int(np.prod(shape))
    out = np.empty(n, dtype=object)
    out[:] = [value(kind, i) for i in range(n)]
    return out.reshape(shape)


def write(path, kind, fmt, shape, chunks):
    data = expected(kind, shape)
    dtype = str if kind == "text" else zarr.dtype.VariableLengthBytes()
    a = zarr.create_array(path, shape=shape, chunks=chunks, dtype=dtype, zarr_format=int(fmt))
    a[...] = data
    print("ok", zarr.__version__)


def check(path, kind, shape):
    a = zarr.open_array(path, mode="r")
    got = np.asarray(a[...], dtype=object)
    exp = expected(kind, shape)
    assert got.shape == exp.shape, (got.shape, exp.shape)
    flat_got, flat_exp = list(np.asarray(got).reshape(-1)), list(exp.reshape(-1))
    for i, (g, e) in enumerate(zip(flat_got, flat_exp)):
        if isinstance(g, np.bytes_):
            g = bytes(g)
        assert type(g) is type(e) or isinstance(g, type(e)), (i, type(g), type(e))
        assert g == e, (i, g, e)
    print("ok", zarr.__version__, a.dtype)


if __name__ == "__main__":
    cmd, path, kind = sys.argv[1:4]
    if cmd == "write":
        write(path, kind, sys.argv[4], extents(sys.argv[5]), extents(sys.argv[6]))
    elif cmd == "check":
        check(path, kind, extents(sys.argv[4]))
    else:
        sys.exit(f"unknown command {cmd}")
