//! NCZarr
