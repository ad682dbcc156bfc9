//! The same datatype in the other description languages: Datashape, Zarr,
//! netCDF CDL and the NCZarr data model.
