"""Checks, with netCDF4-python, the netCDF-4 files `ndl create` made of
the NDL spec's examples (tests/data/ndl/*.ndl.yaml) in the directory
given: groups, attributes, dimensions (unlimited ones growable),
coordinate variables, variables with their types, values and chunks."""
import sys

import netCDF4
import numpy as np

d = sys.argv[1]

with netCDF4.Dataset(f"{d}/attributes.nc") as f:
    assert f.getncattr("a") == f.getncattr("same_as_a") == "Ηελλο ωορλδ"
    assert f.getncattr("b") == f.getncattr("same_as_b") == 10
    assert list(f.getncattr("state")) == ["power on", "power off", "error"]

with netCDF4.Dataset(f"{d}/dimcoords.nc", "a") as f:
    x, y = f.dimensions["x"], f.dimensions["y"]
    assert x.isunlimited() and len(x) == 0 and len(y) == 6 and not y.isunlimited()
    assert f["x"].dimensions == ("x",) and f["y"].what == "y coordinate"
    assert np.allclose(f["y"][:], [1.0, 1.1, 1.2, 1.3, 1.4, 1.5])
    assert f["t"].dimensions == ("x", "y") and f["t"].dtype == np.float64
    f["t"][0:2, :] = np.ones((2, 6))  # UNLIMITED: it grows
    assert len(f.dimensions["x"]) == 2

with netCDF4.Dataset(f"{d}/groups.nc") as f:
    assert f.a == "This is / group attribute"
    g1, sub = f["group1"], f["group2/subgroup1"]
    assert g1.a == "This is /group1 attribute" and sub.c == "This is /group2/subgroup1 attribute"
    assert len(f.dimensions["d1"]) == 150 and g1.dimensions["d2"].isunlimited()
    assert f["n"].shape == (1967, 45)
    nd = sub["nd"]
    assert nd.shape == (0, 150) and nd.dtype == np.int16, (nd.shape, nd.dtype)
    assert nd.get_dims()[0].isunlimited() and nd.dimensions[1] == "d1"

with netCDF4.Dataset(f"{d}/ndarrays.nc") as f:
    assert f["z"].shape == (10, 20) and f["z"].description == "Values of z"
    v = f["vector"]
    assert v.shape == (50, 60, 40) and v.dtype.names == ("x", "y", "z"), v.dtype

with netCDF4.Dataset(f"{d}/datatypes.nc") as f:
    e = f["direction"]
    assert e.datatype.enum_dict == {"UP": 0, "DOWN": 25, "CENTER": -120}
    assert list(e[:]) == [0, -120, 25]
    assert list(f["switch"][:]) == [1, 255]
    assert f["matrix"].shape == (2, 3, 3) and f["matrix"][1, 0, 0] == 9
    p = f["point"][:]
    assert p[0, 0].tolist() == (1.5, 2, 3.25), p
    assert list(f["names"][:]) == ["alpha", "βήτα", "gamma"]
    code = f["code"]
    assert code.dimensions == ("dim_2", "dim_5") and code.dtype == np.dtype("S1")
    assert list(netCDF4.chartostring(code[:])) == ["abc", "hello"]
    assert f["scalar"][...] == 2**64 - 1
    st = f["stored"]
    assert st.get_dims()[0].isunlimited() and st.shape == (3, 4)
    assert st.chunking() == [2, 4] and st.filters()["zlib"] and st.filters()["shuffle"]
    assert st.filters()["complevel"] == 6 and st.endian() == "big"
    assert (st[:] == np.arange(1, 13).reshape(3, 4)).all()
print("ok")
