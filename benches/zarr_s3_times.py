"""Times zarr-python on S3 for the object-storage part of
`cargo bench --bench compare`.

Usage: zarr_s3_times.py ENDPOINT SRC BUCKET CHUNK LEVEL REPS

SRC is the store ndl-zarr just wrote to S3 for the benchmark: zarr-python
reads it (untimed) to get exactly the same records, in the packed
structured dtype (Zarr v3 `struct`). Then REPS times each, the
best kept, each to a new store s3://BUCKET/python-REP through s3fs (the
endpoint ENDPOINT, the credentials from the AWS variables):

- write: zarr.create_array(the shape and dtype, chunks of CHUNK records,
  zstd at LEVEL without checksum, Zarr v3) and `array[:] = records`;
- read: zarr.open_array(..., mode="r")[:].

zarr-python runs with its default configuration. Prints one line per
repetition, then `best WRITE READ` in seconds.
"""

import sys
import time

import zarr
from zarr.codecs import ZstdCodec
from zarr.storage import FsspecStore


def main():
    endpoint, src, bucket = sys.argv[1:4]
    chunk, level, reps = map(int, sys.argv[4:7])
    options = {"endpoint_url": endpoint, "anon": False}
    records = zarr.open_array(
        FsspecStore.from_url(src, storage_options=options, read_only=True), mode="r")[:]
    best_write = best_read = float("inf")
    for rep in range(reps):
        store = FsspecStore.from_url(f"s3://{bucket}/python-{rep}", storage_options=options)
        t0 = time.perf_counter()
        a = zarr.create_array(
            store=store, shape=records.shape, chunks=(chunk,), dtype=records.dtype,
            compressors=ZstdCodec(level=level, checksum=False), zarr_format=3)
        a[:] = records
        write = time.perf_counter() - t0
        read_store = FsspecStore.from_url(
            f"s3://{bucket}/python-{rep}", storage_options=options, read_only=True)
        t0 = time.perf_counter()
        back = zarr.open_array(read_store, mode="r")[:]
        read = time.perf_counter() - t0
        assert (back == records).all(), "zarr-python read back other records"
        print(f"rep {rep}: write {write:.3f} s, read {read:.3f} s", flush=True)
        best_write, best_read = min(best_write, write), min(best_read, read)
    print(f"best {best_write} {best_read}")


if __name__ == "__main__":
    main()
