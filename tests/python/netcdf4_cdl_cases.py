"""netCDF-4 files whose `ncdump -h` header `ndl describe --format cdl`
must print (issue #27's last gaps): argv[1]/NAME.nc, written with
netCDF4-python (netCDF-C underneath).

* compound_attributes: attributes of a compound type, on a variable and
  global, one long enough that ncdump wraps it.
* nested_types: a compound whose member is another compound and an enum,
  each named by the file (not after the member).
* dimension_groups: dimensions of the root used in subgroups, one of a
  subgroup used deeper down, and one shadowed by a subgroup's own.
* group_types: a root type used by a subgroup's variable and attribute,
  which the subgroup does not define again.
* scalars_only: a dimension no variable uses, beside a scalar variable
  with an attribute.
"""

import sys

import netCDF4
import numpy as np

out = sys.argv[1]


def dataset(name):
    return netCDF4.Dataset(f"{out}/{name}.nc", "w")


with dataset("compound_attributes") as d:
    d.createDimension("n", 2)
    # netCDF4-python lays compound types out aligned: values must be too.
    pair = np.dtype([("i", "<i4"), ("x", "<f8")], align=True)
    pair_t = d.createCompoundType(pair, "pair_t")
    v = d.createVariable("v", pair_t, ("n",))
    v.setncattr("pair", np.array([(1, 2.5), (-3, 0.125)], dtype=pair))
    v.units = "m"
    wide = np.dtype([("a", "<f4"), ("b", "<f8"), ("c", "<i8")], align=True)
    wide_t = d.createCompoundType(wide, "wide_t")
    d.setncattr("one", np.array([(7, -1.0)], dtype=pair))
    values = [(np.nan, 1e20, -(2**40)), (1 / 3, -np.inf, 5), (0.5, 0.1, 0)]
    d.setncattr("wide", np.array(values, dtype=wide))
    # One record only: ncgen 4.9.0 misplaces the records after the first
    # of a compound attribute with a char member.
    label = np.dtype([("k", "<i2"), ("s", "S4")], align=True)
    d.createCompoundType(label, "label_t")
    d.setncattr("label", np.array([(3, b"a\"b")], dtype=label))
    d.title = "after the compounds"

with dataset("nested_types") as d:
    d.createDimension("n", 2)
    position = np.dtype([("lat", "<f4"), ("lon", "<f4")], align=True)
    d.createCompoundType(position, "position")
    flag_t = d.createEnumType(np.uint8, "flag_t", {"bad": 0, "good": 1})
    record = np.dtype([("id", "<i2"), ("where", position)], align=True)
    observation = d.createCompoundType(record, "observation")
    d.createVariable("obs", observation, ("n",))
    d.createVariable("flag", flag_t, ("n",))

with dataset("dimension_groups") as d:
    d.createDimension("t", None)
    d.createDimension("x", 3)
    d.createDimension("s", 5)
    t = d.createVariable("t", "f8", ("t",))
    t[0:4] = [0, 1, 2, 3]
    g = d.createGroup("sub")
    g.createDimension("y", 2)
    g.createDimension("s", 4)
    g.createVariable("a", "i4", ("x",))
    g.createVariable("b", "f4", ("y", "x"))
    g.createVariable("c", "i1", ("s",))
    h = g.createGroup("deeper")
    h.createVariable("c", "i2", ("y",))
    h.createVariable("u", "i2", ("t", "s"))
    d.createGroup("other").createVariable("w", "u1", ("s", "x"))

with dataset("scalars_only") as d:
    d.createDimension("n", 3)
    d.createVariable("x", "i4").units = "m"

with dataset("group_types") as d:
    d.createDimension("n", 2)
    pair = np.dtype([("a", "<i4"), ("b", "<f8")], align=True)
    pair_t = d.createCompoundType(pair, "pair_t")
    g = d.createGroup("g")
    v = g.createVariable("v", pair_t, ("n",))
    v.setncattr("pair", np.array([(1, 2.0)], pair))
    g.createCompoundType(np.dtype([("x", "<f4")]), "inner_t")
