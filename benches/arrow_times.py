"""Times pyarrow for the Arrow part of `cargo bench --bench compare`.

Usage: arrow_times.py SRC.parquet OUT.parquet REPS

SRC.parquet is the file ndl-arrow just wrote for the benchmark: pyarrow
reads it (outside the timing) to get exactly the same table, the same
Arrow types (the enum a dictionary, the time a timestamp). Then, REPS times
each, best time kept, in this process (interpreter start-up, imports and
the read are not timed): `pq.write_table(table, OUT, compression=...)`
uncompressed and with zstd at level 1 (the level ndl-arrow writes), with
pyarrow's defaults otherwise (row groups of 1 Mi rows, dictionary
encoding, statistics, as ndl-arrow's writer), OUT deleted before each
write. Prints one JSON object, times in seconds.
"""

import json
import os
import sys
import time

import pyarrow
import pyarrow.parquet as pq


def best(reps, out, **options):
    """The best time of `reps` writes, and the size of the file."""
    times = []
    for _ in range(reps):
        if os.path.exists(out):
            os.remove(out)
        t0 = time.perf_counter()
        pq.write_table(TABLE, out, **options)
        times.append(time.perf_counter() - t0)
    size = os.path.getsize(out)
    os.remove(out)
    return min(times), size


def main():
    global TABLE
    src, out, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    TABLE = pq.read_table(src)
    plain, plain_size = best(reps, out, compression="none")
    zstd, zstd_size = best(reps, out, compression="zstd", compression_level=1)
    result = {
        "records": TABLE.num_rows,
        "pyarrow": pyarrow.__version__,
        "write_uncompressed": plain,
        "write_zstd": zstd,
        "size_uncompressed": plain_size,
        "size_zstd": zstd_size,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
