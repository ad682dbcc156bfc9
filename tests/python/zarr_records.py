"""Reads or writes a Zarr array of records with the installed zarr-python,
for tests/zarr_python.rs.

    zarr_records.py check PATH N DTYPE FILL      # zarr.open_array(PATH)[:] == expected
    zarr_records.py chunks PATH N DTYPE FILL     # decode v2 chunks with numcodecs
    zarr_records.py write PATH N DTYPE FILL FORMAT CODEC CHUNK

DTYPE is a Python expression of the packed numpy dtype, written by hand in
the test (independently of ndl); FILL is Python code that fills the
structured array `exp` from the record indices `i`.
"""
import json
import os
import sys

import numpy as np
import zarr


def expected(n, dtype_src, fill_src):
    i = np.arange(n)
    dtype = np.dtype(eval(dtype_src))
    exp = np.zeros(n, dtype)
    exec(fill_src, {"np": np, "i": i, "exp": exp})
    return exp


def same(got, exp, path=""):
    """Field by field, recursively: equal values whatever the byte order."""
    if exp.dtype.names is None:
        g, e = np.asarray(got), np.asarray(exp)
        if e.dtype.kind == "f":
            ok = np.array_equal(g, e, equal_nan=True)
        else:
            ok = np.array_equal(g, e)
        assert ok, f"field {path!r}: got {g[:5]} expected {e[:5]}"
        return
    assert got.dtype.names == exp.dtype.names, (path, got.dtype, exp.dtype)
    for name in exp.dtype.names:
        same(got[name], exp[name], f"{path}.{name}" if path else name)


def check(path, n, dtype_src, fill_src):
    exp = expected(n, dtype_src, fill_src)
    a = zarr.open_array(path, mode="r")
    got = a[:]
    assert got.shape == (n,), got.shape
    assert got.dtype.itemsize == exp.dtype.itemsize, (got.dtype, exp.dtype)
    same(got, exp)
    print("ok", zarr.__version__)


def chunks(path, n, dtype_src, fill_src):
    """zarr-python 3 refuses subarray fields: decode the v2 chunks with
    numcodecs and numpy, as a reader of the v2 spec would."""
    import numcodecs

    exp = expected(n, dtype_src, fill_src)
    meta = json.load(open(os.path.join(path, ".zarray")))
    dtype = np.dtype([tuple(f) for f in meta["dtype"]])
    assert dtype.itemsize == exp.dtype.itemsize, (dtype, exp.dtype)
    codec = numcodecs.get_codec(meta["compressor"]) if meta["compressor"] else None
    (chunk,) = meta["chunks"]
    parts = []
    for c in range((n + chunk - 1) // chunk):
        raw = open(os.path.join(path, str(c)), "rb").read()
        if codec is not None:
            raw = codec.decode(raw)
        parts.append(np.frombuffer(raw, dtype))
    got = np.concatenate(parts)[:n]
    same(got, exp)
    print("ok")


def write(path, n, dtype_src, fill_src, fmt, codec, chunk):
    exp = expected(n, dtype_src, fill_src)
    fmt = int(fmt)
    if codec == "none":
        compressors = None
    elif fmt == 2:
        import numcodecs

        compressors = {
            "zstd": numcodecs.Zstd(level=3),
            "blosc": numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE),
            "gzip": numcodecs.GZip(level=5),
        }[codec]
    else:
        from zarr.codecs import BloscCodec, GzipCodec, ZstdCodec

        compressors = {
            "zstd": ZstdCodec(level=3),
            "blosc": BloscCodec(cname="lz4", clevel=5, shuffle="shuffle"),
            "gzip": GzipCodec(level=5),
        }[codec]
    a = zarr.create_array(
        store=path,
        shape=(n,),
        chunks=(int(chunk),),
        dtype=exp.dtype,
        zarr_format=fmt,
        compressors=compressors,
    )
    a[:] = exp
    print("ok", zarr.__version__)


if __name__ == "__main__":
    command, path, n, *rest = sys.argv[1:]
    {"check": check, "chunks": chunks, "write": write}[command](path, int(n), *rest)
