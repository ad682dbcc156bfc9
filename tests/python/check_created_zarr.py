"""Checks, with zarr-python, the Zarr stores `ndl create` made of the NDL
spec's examples (tests/data/ndl/*.ndl.yaml) in the directory given, of
the Zarr format given (2 or 3): groups and their attributes, arrays with
their shapes, dtypes, chunks, dimension names, attributes and values."""
import sys

import numpy as np
import zarr

d, fmt = sys.argv[1], int(sys.argv[2])


def dims(a):
    if fmt == 3:
        return list(a.metadata.dimension_names)
    return list(a.attrs["_ARRAY_DIMENSIONS"])


def open_group(name):
    g = zarr.open_group(f"{d}/{name}.zarr", mode="r")
    assert g.metadata.zarr_format == fmt, g.metadata
    return g


g = open_group("attributes")
a = dict(g.attrs)
assert a["a"] == a["same_as_a"] == "Ηελλο ωορλδ" and a["b"] == a["same_as_b"] == 10, a
assert a["state"] == ["power on", "power off", "error"], a

g = open_group("dimcoords")
x, y, t = g["x"], g["y"], g["t"]
assert (x.shape, x.dtype, dims(x)) == ((0,), np.float64, ["x"])
assert (y.shape, y.dtype, dims(y)) == ((6,), np.float32, ["y"])
assert np.allclose(y[:], [1.0, 1.1, 1.2, 1.3, 1.4, 1.5])
assert y.attrs["what"] == "y coordinate" and x.attrs["what"] == "x coordinate"
assert (t.shape, dims(t)) == ((0, 6), ["x", "y"])

g = open_group("groups")
assert g.attrs["a"] == "This is / group attribute"
assert g["group1"].attrs["a"] == "This is /group1 attribute"
assert g["group2/subgroup1"].attrs["c"] == "This is /group2/subgroup1 attribute"
assert isinstance(g["group2"], zarr.Group)
assert (g["d1"].shape, dims(g["d1"])) == ((150,), ["d1"])
assert g["group1/d2"].shape == (0,)
n = g["n"]
assert n.shape == (1967, 45) and not n[:].any()
nd = g["group2/subgroup1/nd"]
assert (nd.shape, nd.dtype, dims(nd)) == ((0, 150), np.int16, ["d2", "d1"])

g = open_group("ndarrays")
assert g["z"].shape == (10, 20) and g["z"].attrs["description"] == "Values of z"
v = g["vector"]
assert v.shape == (50, 60, 40) and v.dtype.names == ("x", "y", "z"), v.dtype
assert v.attrs["description"] == "velocity"

g = open_group("datatypes")
assert list(g["direction"][:]) == [0, -120, 25] and g["direction"].dtype == np.int8
assert list(g["switch"][:]) == [1, 255]
m = g["matrix"]
assert m.shape == (2, 3, 3) and (m[1] == np.arange(9, 0, -1).reshape(3, 3)).all()
p = g["point"][:]
assert p[0, 0].tolist() == (1.5, 2, 3.25) and p[1, 1].tolist() == (0.0, 9, 0.0), p
assert list(g["code"][:]) == [b"abc", b"hello"]
assert g["scalar"][()] == 2**64 - 1
names = g["names"]
assert [str(n) for n in names[:]] == ["alpha", "βήτα", "gamma"], names[:]
assert names.dtype.kind in "OT" or str(names.dtype) == "StringDType()", names.dtype
st = g["stored"]
assert (st.shape, st.chunks, dims(st)) == ((3, 4), (2, 4), ["stored_0", "dim_4"])
assert (st[:] == np.arange(1, 13).reshape(3, 4)).all()
print("ok")
