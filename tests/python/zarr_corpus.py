"""Writes a corpus of Zarr stores the way other projects' test data holds
them: every rank from 0 to 3, both memory orders, the numeric, text, time
and structured data types, every codec that zarr-python reads with
numcodecs, variable-length strings and bytes, zip stores, and the odd
metadata that zarr-python 2.x left behind.

Usage: zarr_corpus.py write DIR   -- writes DIR/<name>.zarr (or .zarr.zip)
                                     and prints a JSON list of the names
       zarr_corpus.py check DIR   -- for every DIR/<name>.npy, compares it
                                     with what zarr-python reads from the
                                     store and prints {name: verdict}

One store per array, so that `ndl convert STORE out.npy` needs no member
name. Runs with zarr-python 3.x; the 3.1 interpreter writes a few stores
too (its v2 writer differs), and zarr-python 2.x stores are checked in.
"""

import json
import os
import sys
import warnings

import numpy as np
import zarr
import zarr.codecs as zc

warnings.simplefilter("ignore")
NEW = tuple(int(p) for p in zarr.__version__.split(".")[:2]) >= (3, 4)


def values(dtype, shape):
    """Deterministic values of `dtype` that exercise every byte."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    if dtype.names is not None:
        out = np.zeros(n, dtype)
        for name in dtype.names:
            sub = dtype.fields[name][0]
            out[name] = values(sub.base, (n,) + sub.shape)
        return out.reshape(shape)
    i = np.arange(n, dtype=np.int64)
    if dtype.kind == "b":
        a = i % 3 == 0
    elif dtype.kind in "iu":
        # astype wraps into the narrow types: every byte gets used.
        a = i * 7919 - (1000 if dtype.kind == "i" else 0)
    elif dtype.kind == "f":
        a = i * 0.25 - 3.5
    elif dtype.kind == "c":
        a = (i * 0.5) + 1j * (i - 2.0)
    elif dtype.kind == "M":
        a = (i * 86_400 + 1_700_000_000).astype("M8[s]")
    elif dtype.kind == "m":
        a = (i * 37 - 11).astype("m8[s]")
    elif dtype.kind == "S":
        a = np.array([("v%d" % k).encode() * (1 + k % 2) for k in range(n)])
    elif dtype.kind == "U":
        a = np.array(["é%d" % k * (1 + k % 2) for k in range(n)])
    else:
        raise ValueError(dtype)
    return np.asarray(a).astype(dtype).reshape(shape)


def create(path, data, zarr_format, chunks=None, **kw):
    a = zarr.create_array(
        store=path,
        shape=data.shape,
        dtype=data.dtype,
        chunks=chunks or tuple(max(1, (d + 1) // 2) for d in data.shape) or (),
        zarr_format=zarr_format,
        overwrite=True,
        **kw,
    )
    if data.size:
        a[...] = data
    return a


def cases():
    """(name, data, zarr_format, keyword arguments of create_array)."""
    plain = ["|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f2", "<f4", "<f8", "<c8", "<c16"]
    for fmt in (2, 3):
        for dt in plain:
            for shape in [(), (7,), (4, 5), (3, 4, 5)]:
                yield f"v{fmt}_{np.dtype(dt).name}_{len(shape)}d", values(dt, shape), fmt, {}
        for dt in [">i4", ">f8", ">c16"]:
            yield f"v{fmt}_big_{np.dtype(dt).name}", values(dt, (6, 4)), fmt, {}
        yield f"v{fmt}_empty", values("<f4", (0, 3)), fmt, {}
        yield f"v{fmt}_uneven_chunks", values("<i4", (10, 7)), fmt, {"chunks": (3, 4)}
        yield f"v{fmt}_datetime", values("<M8[s]", (5,)), fmt, {}
        yield f"v{fmt}_timedelta", values("<m8[s]", (2, 3)), fmt, {}
        yield f"v{fmt}_fixed_bytes", values("|S4", (6,)), fmt, {}
        yield f"v{fmt}_fixed_unicode", values("<U4", (2, 3)), fmt, {}
    rec = np.dtype([("id", "<u4"), ("x", "<f8"), ("k", "<i2")])
    yield "v2_structured_2d", values(rec, (3, 4)), 2, {}
    if NEW:
        yield "v3_structured", values(rec, (6,)), 3, {}

    # Fortran order: v2 `order: "F"`, v3 the transpose codec.
    for shape in [(4, 5), (3, 4, 5)]:
        yield f"v2_order_f_{len(shape)}d", values("<i4", shape), 2, {"order": "F"}
        yield f"v3_transpose_{len(shape)}d", values("<f8", shape), 3, {
            "filters": [zc.TransposeCodec(order=tuple(reversed(range(len(shape)))))]
        }

    # Codecs, v3 (core and numcodecs.*) and v2.
    data = values("<i4", (20, 30))
    floats = values("<f8", (20, 30))
    n = zc.numcodecs
    v3 = {
        "zstd": dict(compressors=[zc.ZstdCodec(level=3)]),
        "zstd_checksum": dict(compressors=[zc.ZstdCodec(level=1, checksum=True)]),
        "gzip": dict(compressors=[zc.GzipCodec(level=5)]),
        "crc32c": dict(compressors=[zc.Crc32cCodec()]),
        "none": dict(compressors=None),
        "sharding": dict(shards=(20, 30), chunks=(10, 10), compressors=[zc.ZstdCodec()]),
        "numcodecs_bz2": dict(compressors=[n.BZ2(level=5)]),
        "numcodecs_lz4": dict(compressors=[n.LZ4()]),
        "numcodecs_zlib": dict(compressors=[n.Zlib(level=4)]),
        "numcodecs_gzip": dict(compressors=[n.GZip(level=4)]),
        "numcodecs_zstd": dict(compressors=[n.Zstd(level=2)]),
        "numcodecs_adler32": dict(compressors=[n.Adler32()]),
        "numcodecs_fletcher32": dict(compressors=[n.Fletcher32()]),
        "numcodecs_crc32": dict(compressors=[n.CRC32()]),
        "numcodecs_shuffle": dict(compressors=[n.Shuffle(elementsize=4)]),
        "numcodecs_delta": dict(filters=[n.Delta(dtype="<i4")]),
    }
    for cname in ["lz4", "lz4hc", "blosclz", "zstd", "zlib"]:
        for shuffle in ["noshuffle", "shuffle", "bitshuffle"]:
            v3[f"blosc_{cname}_{shuffle}"] = dict(
                compressors=[zc.BloscCodec(cname=cname, clevel=5, shuffle=shuffle, typesize=4)]
            )
    for name, kw in v3.items():
        yield f"v3_codec_{name}", data, 3, kw
    for name, kw in {
        "numcodecs_fixedscaleoffset": dict(filters=[n.FixedScaleOffset(offset=1, scale=4, dtype="<f8", astype="<i4")]),
        "numcodecs_quantize": dict(filters=[n.Quantize(digits=2, dtype="<f8")]),
        "numcodecs_bitround": dict(filters=[n.BitRound(keepbits=10)]),
    }.items():
        yield f"v3_codec_{name}", floats, 3, kw

    import numcodecs as nc

    v2 = {
        "zstd": dict(compressors=nc.Zstd(level=3)),
        "zstd_checksum": dict(compressors=nc.Zstd(level=1, checksum=True)),
        "gzip": dict(compressors=nc.GZip(level=5)),
        "zlib": dict(compressors=nc.Zlib(level=5)),
        "bz2": dict(compressors=nc.BZ2(level=5)),
        "lz4": dict(compressors=nc.LZ4(acceleration=1)),
        "none": dict(compressors=None),
        "crc32": dict(compressors=None, filters=[nc.CRC32()]),
        "crc32c": dict(compressors=None, filters=[nc.CRC32C()]),
        "adler32": dict(compressors=None, filters=[nc.Adler32()]),
        "fletcher32": dict(compressors=None, filters=[nc.Fletcher32()]),
        "delta": dict(filters=[nc.Delta(dtype="<i4")]),
        "shuffle_zlib": dict(filters=[nc.Shuffle(elementsize=4)], compressors=nc.Zlib()),
    }
    for cname in ["lz4", "lz4hc", "blosclz", "zstd", "zlib"]:
        for shuffle in [nc.Blosc.NOSHUFFLE, nc.Blosc.SHUFFLE, nc.Blosc.BITSHUFFLE]:
            v2[f"blosc_{cname}_{shuffle}"] = dict(compressors=nc.Blosc(cname=cname, clevel=5, shuffle=shuffle))
    for name, kw in v2.items():
        yield f"v2_codec_{name}", data, 2, kw
    for name, kw in {
        "fixedscaleoffset": dict(filters=[nc.FixedScaleOffset(offset=1, scale=4, dtype="<f8", astype="<i4")]),
        "quantize": dict(filters=[nc.Quantize(digits=2, dtype="<f8")]),
        "bitround": dict(filters=[nc.BitRound(keepbits=10)]),
    }.items():
        yield f"v2_codec_{name}", floats, 2, kw


def vlen_cases(root):
    """Variable-length strings and bytes: v3 `string` / `variable_length_bytes`,
    v2 `|O` with vlen-utf8 / vlen-bytes."""
    text = np.array(["", "a", "héllo", "wörld!!", "x" * 9, "ü"], dtype=object)
    raw = np.array([b"", b"a", b"\x00\xffz", b"bytes!", b"q" * 7, b"."], dtype=object)
    out = []
    for fmt in (2, 3):
        for name, data, dtype in [("strings", text, str), ("bytes", raw, zarr.dtype.VariableLengthBytes())]:
            path = os.path.join(root, f"v{fmt}_vlen_{name}.zarr")
            a = zarr.create_array(store=path, shape=(6,), chunks=(4,), dtype=dtype, zarr_format=fmt, overwrite=True)
            a[...] = data
            out.append(os.path.basename(path)[: -len(".zarr")])
            path2 = os.path.join(root, f"v{fmt}_vlen_{name}_2d.zarr")
            a = zarr.create_array(store=path2, shape=(2, 3), chunks=(1, 2), dtype=dtype, zarr_format=fmt, overwrite=True)
            a[...] = data.reshape(2, 3)
            out.append(os.path.basename(path2)[: -len(".zarr")])
    return out


def zip_cases(root):
    out = []
    for fmt in (2, 3):
        name = f"v{fmt}_zip"
        store = zarr.storage.ZipStore(os.path.join(root, name + ".zarr.zip"), mode="w")
        a = zarr.create_array(store=store, shape=(4, 6), chunks=(2, 3), dtype="<i4", zarr_format=fmt)
        a[...] = values("<i4", (4, 6))
        store.close()
        out.append(name)
    return out


def write(root):
    names = []
    for name, data, fmt, kw in cases():
        create(os.path.join(root, name + ".zarr"), data, fmt, **kw)
        names.append(name)
    names += vlen_cases(root)
    if NEW:
        names += zip_cases(root)
    # Both zarr.json and .zarray: zarr-python takes v3.
    both = os.path.join(root, "both_metadata.zarr")
    create(both, values("<i2", (5,)), 3)
    create(both + ".tmp", values("<i2", (5,)) + 100, 2)
    for f in os.listdir(both + ".tmp"):
        os.replace(os.path.join(both + ".tmp", f), os.path.join(both, f))
    os.rmdir(both + ".tmp")
    names.append("both_metadata")
    # Attribute JSON as Python's json writes NaN and infinities.
    nan = os.path.join(root, "v2_nan_attrs.zarr")
    a = create(nan, values("<f4", (4,)), 2)
    a.attrs.update({"missing": float("nan"), "big": float("inf"), "small": float("-inf")})
    names.append("v2_nan_attrs")
    print(json.dumps(names))


def open_store(path):
    if path.endswith(".zip"):
        return zarr.open_array(zarr.storage.ZipStore(path, mode="r"), mode="r")
    return zarr.open_array(path, mode="r")


def expected(arr):
    """What the .npy of a store must hold: its values, with variable-length
    text as the narrowest fixed `U` and bytes as the narrowest `S`."""
    data = arr[...]
    data = np.asarray(data)
    if data.dtype == object or data.dtype.kind == "T":
        items = list(data.ravel())
        if all(isinstance(v, bytes) for v in items):
            return np.array(items, dtype="S%d" % max([1] + [len(v) for v in items])).reshape(data.shape)
        return np.array(items, dtype="U%d" % max([1] + [len(v) for v in items])).reshape(data.shape)
    return data


def metadata_names(path):
    """The codec ids and data type names a store's metadata holds, which a
    refusal must name one of."""
    names = set()

    def walk(v):
        if isinstance(v, dict):
            for k in ("id", "name", "data_type", "dtype"):
                if isinstance(v.get(k), str):
                    names.add(v[k])
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    if path.endswith(".zip"):
        import zipfile

        with zipfile.ZipFile(path) as z:
            for f in z.namelist():
                if f.endswith(("zarr.json", ".zarray")):
                    walk(json.loads(z.read(f).decode()))
    else:
        for f in ("zarr.json", ".zarray"):
            p = os.path.join(path, f)
            if os.path.exists(p):
                with open(p) as fh:
                    walk(json.loads(fh.read().replace("NaN", "null")))
    return sorted(names)


def check(root):
    """For every store: whether zarr-python reads it, the names its metadata
    holds, and, where DIR/<name>.npy exists, whether it equals what
    zarr-python reads."""
    report = {}
    for store in sorted(os.listdir(root)):
        if not store.endswith((".zarr", ".zarr.zip")):
            continue
        name = store.split(".zarr")[0]
        path = os.path.join(root, store)
        entry = {"names": metadata_names(path)}
        try:
            want = expected(open_store(path))
            entry["readable"] = True
        except Exception as e:  # noqa: BLE001 - recorded, not raised
            entry["readable"] = False
            entry["why"] = f"{type(e).__name__}: {e}"[:200]
            want = None
        npy = os.path.join(root, name + ".npy")
        if want is not None and os.path.exists(npy):
            entry["verdict"] = compare(np.load(npy), want)
        report[name] = entry
    print(json.dumps(report))


def compare(got, want):
    # A byte order other than zarr-python's is the same value.
    if not np.can_cast(got.dtype, want.dtype, "equiv"):
        return f"dtype {got.dtype.str} != {want.dtype.str}"
    got = got.astype(want.dtype)
    if got.shape != want.shape:
        return f"shape {got.shape} != {want.shape}"
    if want.dtype.kind in "fc":
        return "equal" if np.array_equal(got, want, equal_nan=True) else "values differ"
    return "equal" if got.tobytes() == np.ascontiguousarray(want).tobytes() else "values differ"


if __name__ == "__main__":
    {"write": write, "check": check}[sys.argv[1]](sys.argv[2])
