"""Reads a columns store of records with strings, lists and options with a
real consumer and prints what it sees as JSON, for ndl-zarr's
tests/integration/variable_records.rs.

    variable_records.py zarr PATH     # zarr-python: every array's values
    variable_records.py xarray PATH   # xarray.open_zarr: masked options, attrs
"""
import json
import math
import sys

import numpy as np


def plain(values):
    """JSON-able values: NaN as None, numpy scalars as Python's."""
    out = []
    for v in np.asarray(values).tolist():
        if isinstance(v, float) and math.isnan(v):
            out.append(None)
        elif isinstance(v, list):
            out.append(plain(np.asarray(v)))
        else:
            out.append(v)
    return out


def with_zarr(path):
    import zarr

    group = zarr.open_group(path, mode="r")
    out = {"version": zarr.__version__}
    for name, array in group.arrays():
        out[name] = {"values": plain(array[...]), "attrs": dict(array.attrs)}
    return out


def with_xarray(path):
    import xarray as xr

    ds = xr.open_zarr(path)
    out = {}
    for name, var in ds.variables.items():
        out[name] = {
            "dims": list(var.dims),
            "dtype": var.dtype.str,
            "attrs": {k: (v.tolist() if hasattr(v, "tolist") else v) for k, v in var.attrs.items()},
            "values": plain(var.values),
        }
    return out


if __name__ == "__main__":
    mode, path = sys.argv[1], sys.argv[2]
    seen = with_zarr(path) if mode == "zarr" else with_xarray(path)
    print(json.dumps(seen, default=str))
