"""Writes or checks a Zarr array of variable-length strings or bytes with
the installed zarr-python, for ndl-zarr's tests/strings.rs.

    strings.py write PATH KIND FORMAT SHAPE CHUNKS ...  # zarr-python writes them
    strings.py check PATH KIND SHAPE ...                # zarr-python reads them

each with as many arrays as are given (one interpreter for all of them:
starting one is most of the time). KIND is `text` or `bytes`; SHAPE and CHUNKS are comma-separated extents.
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
    print("ok", path, zarr.__version__)


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
    print("ok", path, zarr.__version__, a.dtype)


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "write":
        for at in range(0, len(args), 5):
            path, kind, fmt, shape, chunks = args[at : at + 5]
            write(path, kind, fmt, extents(shape), extents(chunks))
    elif cmd == "check":
        for at in range(0, len(args), 3):
            path, kind, shape = args[at : at + 3]
            check(path, kind, extents(shape))
    else:
        sys.exit(f"unknown command {cmd}")
