"""Checks, with h5py, the HDF5 files `ndl create` made of the NDL spec's
examples (tests/data/ndl/*.ndl.yaml) in the directory given: every group,
attribute, dimension scale and dataset the documents say, with their
shapes, dtypes, values, chunks, filters and byte orders."""
import sys

import h5py
import numpy as np

d = sys.argv[1]


def scale_name(ds):
    return ds.attrs["NAME"].decode()


# Attributes: full and short forms, scalars and a string array.
with h5py.File(f"{d}/attributes.h5") as f:
    a = dict(f.attrs)
    assert a["a"] == a["same_as_a"] == "Ηελλο ωορλδ", a
    assert a["b"] == a["same_as_b"] == 10 and a["b"].dtype == np.int32, a
    assert list(a["state"]) == ["power on", "power off", "error"], a

# Dimension coordinates: scales, unlimited and fixed, values, attributes.
with h5py.File(f"{d}/dimcoords.h5", "a") as f:
    x, y, t = f["x"], f["y"], f["t"]
    assert x.is_scale and y.is_scale, (x.attrs.keys(), y.attrs.keys())
    assert (x.shape, x.maxshape, x.dtype) == ((0,), (None,), np.float64)
    assert (y.shape, y.maxshape, y.dtype) == ((6,), (6,), np.float32)
    assert np.allclose(y[()], [1.0, 1.1, 1.2, 1.3, 1.4, 1.5])
    assert x.attrs["what"] == "x coordinate" and y.attrs["what"] == "y coordinate"
    assert (t.shape, t.maxshape) == ((0, 6), (None, 6))
    assert [scale_name(t.dims[k][0]) for k in (0, 1)] == ["x", "y"]
    t.resize((2, 6))  # unlimited: it grows
    x.resize((2,))

# Groups by path at any depth, a shape through dimcoords of other groups.
with h5py.File(f"{d}/groups.h5") as f:
    assert f.attrs["a"] == "This is / group attribute"
    assert f["group1"].attrs["a"] == "This is /group1 attribute"
    assert f["group2/subgroup1"].attrs["c"] == "This is /group2/subgroup1 attribute"
    assert (f["d1"].shape, f["d1"].dtype) == ((150,), np.float32)
    assert f["group1/d2"].maxshape == (None,)
    assert (f["n"].shape, f["n"].dtype) == ((1967, 45), np.float64)
    assert not f["n"][()].any()  # the fill
    nd = f["group2/subgroup1/nd"]
    assert (nd.shape, nd.maxshape, nd.dtype) == ((0, 150), (None, 150), np.int16)
    assert nd.dims[0][0].name == "/group1/d2" and nd.dims[1][0].name == "/d1"

# Ndarrays: numbers and a compound, with attributes.
with h5py.File(f"{d}/ndarrays.h5") as f:
    z, v = f["z"], f["vector"]
    assert (z.shape, z.dtype) == ((10, 20), np.float64)
    assert z.attrs["description"] == "Values of z"
    assert v.shape == (50, 60, 40)
    assert v.dtype == np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4")]), v.dtype
    assert v.attrs["description"] == "velocity"

# Every datatype with values, and the storage directives.
with h5py.File(f"{d}/datatypes.h5") as f:
    e = f["direction"]
    assert h5py.check_enum_dtype(e.dtype) == {"UP": 0, "DOWN": 25, "CENTER": -120}
    assert e.dtype.base == np.int8 and list(e[()]) == [0, -120, 25]
    s = f["switch"]
    assert s.dtype.base == np.uint8 and list(s[()]) == [1, 255]
    img = f["image"]
    assert img.id.get_type().get_tag() == b"image/png" and img.dtype.itemsize == 4
    raw = np.empty(2, "V4")
    img.id.read(h5py.h5s.ALL, h5py.h5s.ALL, raw, mtype=img.id.get_type())
    assert raw.tobytes() == bytes([137, 80, 78, 71, 1, 2, 0, 0]), raw.tobytes()
    m = f["matrix"]
    assert m.dtype == np.dtype(("<f4", (3, 3))) or m.dtype.subdtype == (np.dtype("<f4"), (3, 3)), m.dtype
    assert (m[()][1] == np.arange(9, 0, -1).reshape(3, 3)).all()
    p = f["point"][()]
    assert p.shape == (2, 2) and p.dtype.names == ("x", "y", "z")
    assert p[0, 0].tolist() == (1.5, 2, 3.25) and p[1, 1].tolist() == (0.0, 9, 0.0), p
    names = f["names"]
    assert h5py.check_string_dtype(names.dtype).encoding == "utf-8"
    assert list(names.asstr()[()]) == ["alpha", "βήτα", "gamma"]
    assert f["code"].dtype == np.dtype("S5") and list(f["code"][()]) == [b"abc", b"hello"]
    sc = f["scalar"]
    assert sc.shape == () and sc[()] == 2**64 - 1 and sc.dtype == np.uint64
    st = f["stored"]
    assert (st.shape, st.maxshape, st.chunks) == ((3, 4), (None, 4), (2, 4))
    assert st.dtype == np.dtype(">i4") and st.shuffle and st.compression == "gzip"
    assert st.compression_opts == 6
    assert (st[()] == np.arange(1, 13).reshape(3, 4)).all()
print("ok")
