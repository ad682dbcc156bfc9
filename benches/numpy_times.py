"""Times np.save and np.load for `cargo bench --bench compare`.

Usage: numpy_times.py SRC.npy OUT.npy REPS

SRC.npy is the file our writer just wrote for the benchmark cell: NumPy
loads it to get exactly the same records and dtype (padding, offsets and
byte order included), then, REPS times each, best time kept:

- save: np.save(OUT, records), the records in memory as the file stores
  them (so a big-endian file's records are big-endian in memory);
- save_from_native: np.save(OUT, native.astype(file dtype)), the work our
  writer does for a byte-swapped file (native records in, swapped file out);
- load: np.load(OUT), the array as stored (NumPy does not byte-swap);
- load_to_native: np.load(OUT).astype(native dtype), the work our reader
  does for a byte-swapped file (a native Vec out).

OUT is deleted before each save, as the Rust side does. Prints one JSON
object of best times in seconds.
"""

import json
import os
import sys
import time

import numpy as np


def best(fn, reps, before=None):
    t = float("inf")
    for _ in range(reps):
        if before is not None:
            before()
        t0 = time.perf_counter()
        out = fn()
        t = min(t, time.perf_counter() - t0)
        del out
    return t


def main():
    src, out, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    records = np.load(src)
    dtype = records.dtype
    native = dtype.newbyteorder("=")
    swapped = any(
        f[0].byteorder not in ("=", "|") for f in (dtype.fields or {}).values()
    ) or dtype.byteorder not in ("=", "|")
    native_records = records.astype(native) if swapped else records

    def remove():
        if os.path.exists(out):
            os.remove(out)

    res = {"numpy": np.__version__, "records": int(records.size)}
    res["save"] = best(lambda: np.save(out, records), reps, remove)
    if swapped:
        res["save_from_native"] = best(
            lambda: np.save(out, native_records.astype(dtype)), reps, remove
        )
    else:
        res["save_from_native"] = res["save"]
    remove()
    np.save(out, records)
    res["load"] = best(lambda: np.load(out), reps)
    if swapped:
        res["load_to_native"] = best(lambda: np.load(out).astype(native), reps)
    else:
        res["load_to_native"] = res["load"]
    # The same records as our file, or the comparison is void.
    assert np.array_equal(np.load(out), records)
    remove()
    print(json.dumps(res))


if __name__ == "__main__":
    main()
