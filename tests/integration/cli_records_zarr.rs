//! `ndl convert` of records with strings, lists and options (zarr).
