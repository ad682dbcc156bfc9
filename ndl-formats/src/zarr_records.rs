//! Variable records in a Zarr store's columns layout: a store of them
//! read as a [`RecordSource`](crate::RecordSource), and written from one.
