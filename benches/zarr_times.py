"""Times zarr-python for the Zarr part of `cargo bench --bench compare`.

Usage: zarr_times.py SRC.zarr OUT.zarr CHUNK LEVEL REPS

SRC.zarr is the store ndl-zarr just wrote for the benchmark: zarr-python
reads it to get exactly the same records (a NumPy array of the packed
structured dtype, the Zarr v3 `struct` data type). Then, REPS times each,
best time kept, in this process (interpreter start-up and imports are not
timed):

- write: zarr.create_array(OUT, the records' shape and dtype, chunks of
  CHUNK records, zstd at LEVEL without checksum, Zarr v3) and
  `array[:] = records`, the store deleted before each write;
- read: zarr.open_array(OUT, mode="r")[:], into a new NumPy array.

With each best time goes the CPU time the process spent in that
repetition (time.process_time: user and system, all threads).

zarr-python runs with its default configuration (its asyncio codec
pipeline and thread pool). Also reported: one read of SRC (read_ours), and
the bytes of OUT's chunk files. Prints one JSON object, times in seconds.
"""

import json
import os
import shutil
import sys
import time

import numpy as np
import zarr
from zarr.codecs import ZstdCodec


def chunk_bytes(path):
    """The bytes of the chunk files (under c/) of a v3 store."""
    return sum(
        os.path.getsize(os.path.join(d, f))
        for d, _, files in os.walk(os.path.join(path, "c"))
        for f in files
    )


def main():
    src, out = sys.argv[1], sys.argv[2]
    chunk, level, reps = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])

    t0 = time.perf_counter()
    records = zarr.open_array(src, mode="r")[:]
    read_ours = time.perf_counter() - t0

    def remove():
        shutil.rmtree(out, ignore_errors=True)

    def write():
        a = zarr.create_array(
            store=out,
            shape=records.shape,
            chunks=(chunk,),
            dtype=records.dtype,
            compressors=ZstdCodec(level=level, checksum=False),
            zarr_format=3,
        )
        a[:] = records

    best_write = (float("inf"), 0.0)
    for _ in range(reps):
        remove()
        t0, c0 = time.perf_counter(), time.process_time()
        write()
        best_write = min(best_write, (time.perf_counter() - t0, time.process_time() - c0))

    best_read = (float("inf"), 0.0)
    for rep in range(reps):
        t0, c0 = time.perf_counter(), time.process_time()
        got = zarr.open_array(out, mode="r")[:]
        best_read = min(best_read, (time.perf_counter() - t0, time.process_time() - c0))
        if rep == 0:
            # The same records as ours, or the comparison is void.
            assert got.dtype == records.dtype and np.array_equal(got, records)
        del got

    res = {
        "zarr": zarr.__version__,
        "numpy": np.__version__,
        "python": sys.version.split()[0],
        "records": int(records.size),
        "itemsize": int(records.dtype.itemsize),
        "write": best_write[0],
        "write_cpu": best_write[1],
        "read": best_read[0],
        "read_cpu": best_read[1],
        "read_ours": read_ours,
        "stored_bytes": chunk_bytes(out),
    }
    remove()
    print(json.dumps(res))


if __name__ == "__main__":
    main()
