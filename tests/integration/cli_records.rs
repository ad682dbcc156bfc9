//! `ndl convert` of records with strings, lists and options between
//! formats, to `.npy`, and `--fill`.
