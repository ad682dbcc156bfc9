"""Reads or writes a Zarr array of records with the installed zarr-python,
for ndl-zarr's tests/zarr_python.rs.

    records.py check PATH N DTYPE FILL      # zarr.open_array(PATH)[:] == expected
    records.py chunks PATH N DTYPE FILL     # decode v2 chunks with numcodecs
    records.py write PATH N DTYPE FILL FORMAT CODEC CHUNK
    records.py xarray PATH N DTYPE FILL     # what xarray makes of the array

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


def xarray(path, n, dtype_src, fill_src):
    """xarray's zarr backend opens a group, whose arrays are its variables:
    prints, as JSON, how it refuses the bare array at PATH; checks the
    records through the way round (the array wrapped in a DataArray) and
    through the same array copied into a group, which xarray opens."""
    import shutil
    import tempfile

    import dask.array as da
    import xarray as xr

    exp = expected(n, dtype_src, fill_src)
    refusals = []
    for how, open_ in [
        ("open_zarr", xr.open_zarr),
        ("open_dataset", lambda p: xr.open_dataset(p, engine="zarr")),
    ]:
        try:
            open_(path)
        except Exception as e:
            refusals.append({"how": how, "error": type(e).__name__, "message": str(e)})
        else:
            raise AssertionError(f"xarray.{how} opened the bare array")

    a = zarr.open_array(path, mode="r")
    if a.metadata.zarr_format == 3:
        dims = list(a.metadata.dimension_names)
    else:
        dims = list(a.attrs["_ARRAY_DIMENSIONS"])
    wrapped = xr.DataArray(da.from_zarr(a), dims=dims, attrs=dict(a.attrs))
    same(wrapped.values, exp)

    with tempfile.TemporaryDirectory() as group:
        zarr.open_group(group, mode="w", zarr_format=a.metadata.zarr_format)
        shutil.copytree(path, os.path.join(group, "records"))
        ds = xr.open_zarr(group, consolidated=False)
        same(ds["records"].values, exp)
        in_group = list(ds["records"].dims)

    print(json.dumps({"refusals": refusals, "dims": dims, "in_group": in_group}))


if __name__ == "__main__":
    command, path, n, *rest = sys.argv[1:]
    commands = {"check": check, "chunks": chunks, "write": write, "xarray": xarray}
    commands[command](path, int(n), *rest)
