//! Variable records in Parquet and Arrow IPC files: a file of them read
//! as a [`RecordSource`](crate::RecordSource), and written from one.
