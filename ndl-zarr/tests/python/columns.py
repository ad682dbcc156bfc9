"""Reads a columns store with a real consumer and prints what it sees, as
JSON, for ndl-zarr's tests/columns.rs to compare with the records.

    columns.py xarray PATH ...    # xarray.open_zarr
    columns.py netcdf URL ...     # netCDF4-python (libnetcdf 4.10)
    columns.py dask PATH ...      # dask.array.from_zarr of each column: sums

One line of JSON per store, in order: one interpreter for all of them, as
starting one is most of the time.
"""
import json
import os
import sys

import numpy as np


def plain(values):
    """JSON-able values: bytes as latin-1 text, numpy scalars as Python's."""
    if values.dtype.kind == "S":
        return [v.decode("latin-1") if isinstance(v, bytes) else plain(np.asarray(v)) for v in values.tolist()]
    return values.tolist()


def describe(variables, dims_of, attrs_of):
    out = {}
    for name, var in variables:
        values = np.asarray(var[...])
        out[name] = {
            "dims": list(dims_of(var)),
            "dtype": values.dtype.str,
            "attrs": {k: (v.tolist() if hasattr(v, "tolist") else v) for k, v in attrs_of(var).items()},
            "values": plain(values),
        }
    return out


def with_xarray(path):
    import xarray as xr
    import zarr

    ds = xr.open_zarr(path, consolidated=False)
    out = describe(ds.data_vars.items(), lambda v: v.dims, lambda v: v.attrs)
    return {"variables": out, "attrs": dict(ds.attrs), "sizes": dict(ds.sizes), "zarr": zarr.__version__}


def with_netcdf(url):
    import netCDF4

    ds = netCDF4.Dataset(url)
    ds.set_auto_mask(False)
    out = describe(
        ds.variables.items(),
        lambda v: v.dimensions,
        lambda v: {k: v.getncattr(k) for k in v.ncattrs()},
    )
    sizes = {name: len(d) for name, d in ds.dimensions.items()}
    return {"variables": out, "attrs": {k: ds.getncattr(k) for k in ds.ncattrs()}, "sizes": sizes}


def with_dask(path):
    import dask.array as da

    sums = {}
    for name in sorted(os.listdir(path)):
        if name.startswith("."):
            continue
        full = os.path.join(path, name)
        if not os.path.isdir(full):
            continue
        x = da.from_zarr(full)
        if x.dtype.kind in "iufb":
            sums[name] = float(x.astype("f8").sum().compute())
    return {"sums": sums}


if __name__ == "__main__":
    command, paths = sys.argv[1], sys.argv[2:]
    read = {"xarray": with_xarray, "netcdf": with_netcdf, "dask": with_dask}[command]
    for path in paths:
        print(json.dumps(read(path), default=str))
