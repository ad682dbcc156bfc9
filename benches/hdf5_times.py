"""Times h5py for the HDF5 part of `cargo bench --bench compare`.

Usage: hdf5_times.py SRC.h5 OUT.h5 REPS CHUNK

SRC.h5 is the file ndl-hdf5 just wrote for the benchmark: h5py reads its
dataset `data` (outside the timing) to get exactly the same NumPy array.
Then, REPS times each, best time kept, in this process (interpreter
start-up, imports and that first read are not timed):
- write: a new OUT.h5 (deleted before each write) holding the array as
  the one-dimensional dataset `data`, chunked by CHUNK records,
  uncompressed and extendable (`maxshape=(None,)`, as ndl-hdf5 makes it),
  file closed;
- read_own: OUT.h5's `data` read whole into a new array (`ds[()]`), file
  opened and closed;
- read_ours: SRC.h5's `data` read the same way.
Prints one JSON object, times in seconds.
"""

import json
import os
import sys
import time

import h5py


def best(reps, job):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        job()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    src, out, reps, chunk = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    with h5py.File(src, "r") as f:
        array = f["data"][()]

    def write():
        if os.path.exists(out):
            os.remove(out)
        with h5py.File(out, "w") as f:
            f.create_dataset("data", data=array, chunks=(chunk,), maxshape=(None,))

    def read(path):
        def job():
            with h5py.File(path, "r") as f:
                got = f["data"][()]
            assert len(got) == len(array)

        return job

    result = {
        "records": len(array),
        "itemsize": array.dtype.itemsize,
        "h5py": h5py.__version__,
        "write": best(reps, write),
        "read_own": best(reps, read(out)),
        "read_ours": best(reps, read(src)),
    }
    os.remove(out)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
