"""Decodes every element of a `json2` store (see json2_store.py) with
numcodecs' own codecs, chunk by chunk, as zarr-python 2 read them
(zarr-python 3.4 refuses the dtype), and prints them in C order as a JSON
list, `None` as null.

    json2_check.py PATH
"""
import itertools
import json
import os
import sys

import numcodecs
import numpy as np


def main(path):
    with open(os.path.join(path, ".zarray")) as f:
        meta = json.load(f)
    shape, chunks = meta["shape"], meta["chunks"]
    (filt,) = [numcodecs.get_codec(c) for c in meta["filters"]]
    comp = meta["compressor"] and numcodecs.get_codec(meta["compressor"])
    out = np.empty(shape, dtype=object)
    counts = [-(-s // c) for s, c in zip(shape, chunks)]
    for at in itertools.product(*[range(c) for c in counts]):
        key = ".".join(str(i) for i in at) or "0"
        with open(os.path.join(path, key), "rb") as f:
            raw = f.read()
        if comp:
            raw = comp.decode(raw)
        chunk = filt.decode(raw)
        region = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(at, chunks, shape))
        out[region + (Ellipsis,)] = chunk[tuple(slice(0, r.stop - r.start) for r in region) + (Ellipsis,)]
    print(json.dumps(out.reshape(-1).tolist()))


if __name__ == "__main__":
    main(*sys.argv[1:])
