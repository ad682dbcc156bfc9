//! Files made by the peers themselves for the HDF5 and netCDF-4 tests:
//! NumPy arrays of every kind, and a netCDF-4 file of netCDF4-python's.

/// Saves an array of every kind NumPy saves that HDF5 and netCDF-4 hold
/// into the folder `sys.argv[1]`: records (padded, nested, big-endian,
/// with bools, subarrays, strings, times), plain arrays of rank 0 to 3,
/// an empty one, complex numbers, times, strings and bools.
pub const NUMPY_KINDS: &str = r#"
import sys, numpy as np
d = sys.argv[1]
rec = np.dtype([("id", "<u4"), ("ok", "?"), ("v", "<f8"), ("m", "<i2", (2, 3)), ("s", "S5")], align=True)
a = np.zeros(7, rec); a["id"] = np.arange(7); a["ok"] = [True, False] * 3 + [True]; a["v"] = np.linspace(0, 1, 7); a["s"] = b"abc"
np.save(f"{d}/recs.npy", a)
np.save(f"{d}/big.npy", np.zeros(4, [("a", ">i4"), ("b", ">f8")]))
np.save(f"{d}/cube.npy", np.arange(60, dtype="<u2").reshape(3, 4, 5))
np.save(f"{d}/scalar.npy", np.float64(2.5))
np.save(f"{d}/empty.npy", np.zeros((0, 3), "<i8"))
np.save(f"{d}/complex.npy", (np.arange(4) + 1j).astype("<c16"))
np.save(f"{d}/time.npy", np.array(["2026-11-25T12:00", "NaT"], "<M8[s]"))
np.save(f"{d}/strs.npy", np.array([[b"ab", b"cdef"], [b"x", b""]], "S4"))
np.save(f"{d}/bools.npy", np.array([True, False]))
c = np.zeros(5, [("id", "<u4"), ("name", "S6"), ("v", "<f8", (2,)), ("flag", "?"), ("t", "<M8[s]"), ("w", "<M8[W]")])
c["id"] = range(5); c["name"] = [b"a", b"bb", b"ccc", b"", b"eeeeee"]; c["v"] = 1.5; c["flag"] = [1, 0, 1, 0, 1]
c["t"] = np.arange(5).astype("M8[s]") + 10**9; c["t"][2] = np.datetime64("NaT"); c["w"] = 3
np.save(f"{d}/cols.npy", c)
"#;

/// Writes a netCDF-4 file with netCDF4-python at `sys.argv[1]`: an
/// unlimited `time` coordinate, a compressed `tas(time, lat)` with a
/// `long_name`, a global `title`, a group `sub` with its own dimension and
/// typed attributes (a float32 and an int32 list on a short variable), an
/// enum variable and a variable-length string variable.
pub const NETCDF4_FILE: &str = r#"
import sys, netCDF4, numpy as np
n = netCDF4.Dataset(sys.argv[1], "w")
n.createDimension("time", None); n.createDimension("lat", 3)
t = n.createVariable("time", "f8", ("time",)); t.units = "days since 2000-01-01"
v = n.createVariable("tas", "f4", ("time", "lat"), zlib=True); v.long_name = "air temperature"
v[0:2, :] = np.arange(6).reshape(2, 3); t[0:2] = [0, 1]; n.title = "cf"
g = n.createGroup("sub"); g.createDimension("x", 4); w = g.createVariable("w", "i2", ("x",))
w[:] = [1, 2, 3, 4]; w.setncattr("factor", np.float32(0.5)); w.valid = np.array([1, 9], "i4")
e = n.createEnumType(np.uint8, "cloud_t", {"clear": 0, "cloudy": 1}); ev = n.createVariable("cloud", e, ("lat",)); ev[:] = [0, 1, 0]
s = n.createVariable("names", str, ("lat",)); s[0] = "abc"
n.close()
"#;
