//! `ndl convert` of records with strings, lists and options (hdf5).
