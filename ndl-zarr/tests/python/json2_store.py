"""Writes a Zarr v2 `|O` array of strings whose object codec is numcodecs'
JSON (`json2`), file by file as zarr-python 2.18 writes it with
`object_codec=numcodecs.JSON()`: zarr-python 3 writes no `json2` array,
so the documents are laid out here and each chunk is encoded by numcodecs'
own JSON codec (then its compressor), whole chunks padded with the fill
value `None` past the array's end, as zarr-python 2 pads them.

    json2_store.py PATH SHAPE CHUNKS COMPRESSOR [ODD]

SHAPE and CHUNKS are comma-separated extents; COMPRESSOR is `none` or
`zstd`. Element i (in C order) is `value(i)`; ODD, when given, is a JSON
value put at element 1 instead (a number, a list...), which the readers
refuse or keep.
"""
import itertools
import json
import os
import sys

import numcodecs
import numpy as np


def value(i):
    if i % 5 == 0:
        return None
    return "é" * (i % 3) + "ß\"\\" + str(i)


def extents(text):
    return tuple(int(x) for x in text.split(",") if x)


def main(path, shape, chunks, compressor, odd=None):
    shape, chunks = extents(shape), extents(chunks)
    n = int(np.prod(shape))
    data = np.empty(n, dtype=object)
    data[:] = [value(i) for i in range(n)]
    if odd is not None:
        data[1] = json.loads(odd)
    data = data.reshape(shape)
    codec = numcodecs.JSON()
    comp = None if compressor == "none" else numcodecs.Zstd(level=1)
    os.makedirs(path)
    zarray = {
        "zarr_format": 2,
        "shape": list(shape),
        "chunks": list(chunks),
        "dtype": "|O",
        "fill_value": None,
        "order": "C",
        "filters": [codec.get_config()],
        "compressor": None if comp is None else comp.get_config(),
        "dimension_separator": ".",
    }
    with open(os.path.join(path, ".zattrs"), "w") as f:
        json.dump({}, f)
    with open(os.path.join(path, ".zarray"), "w") as f:
        json.dump(zarray, f, indent=4, sort_keys=True)
    counts = [-(-s // c) for s, c in zip(shape, chunks)]
    for at in itertools.product(*[range(c) for c in counts]):
        chunk = np.full(chunks, None, dtype=object)
        part = data[tuple(slice(i * c, (i + 1) * c) for i, c in zip(at, chunks)) + (Ellipsis,)]
        chunk[tuple(slice(0, e) for e in part.shape) + (Ellipsis,)] = part
        encoded = codec.encode(chunk)
        if comp is not None:
            encoded = comp.encode(encoded)
        key = ".".join(str(i) for i in at) or "0"
        with open(os.path.join(path, key), "wb") as f:
            f.write(encoded)


if __name__ == "__main__":
    main(*sys.argv[1:])
