"""Writes one small 1-D Zarr array per codec configuration that zarr-python
reads, with the values zarr-python reads back beside it as `NAME.npy`.

    python codec_stores.py OUT v3   # zarr-python 3.4: core and numcodecs.* codecs
    python codec_stores.py OUT v2   # zarr-python 3.1: numcodecs compressor + filters
    python codec_stores.py OUT zip  # zarr-python 3.4: ZipStore, v3 and v2

Prints the names written, one a line. The `ndl` tests convert each store to
.npy and compare it with NAME.npy.
"""

import os
import sys
import warnings

import numcodecs
import numpy as np
import zarr

warnings.simplefilter("ignore")

out, mode = sys.argv[1], sys.argv[2]
N = 37  # chunks of 8: a partial last chunk
INT = np.arange(N, dtype="<i4") * 7919 % 1000 - 500
FLOAT = np.linspace(-3.0, 5.0, N) ** 3
RECORD = np.zeros(N, dtype=[("a", "<i4"), ("b", "<f8")])
RECORD["a"], RECORD["b"] = INT, FLOAT
VALUES = {"i4": INT, "f8": FLOAT, "rec": RECORD}

CNAMES = ["blosclz", "lz4", "lz4hc", "zlib", "zstd"]


def save(name, store_path, array):
    np.save(os.path.join(out, name + ".npy"), array[:])
    print(name)


def v3_cases():
    """(name, dtype keys, create_array keywords) for zarr-python 3.4."""
    from numcodecs import zarr3 as nc
    from zarr import codecs as core

    byte_codecs = {
        "none": [],
        "gzip": [core.GzipCodec(level=5)],
        "zstd": [core.ZstdCodec(level=3)],
        "zstd_checksum": [core.ZstdCodec(level=3, checksum=True)],
        "crc32c": [core.Crc32cCodec()],
        "gzip_crc32c": [core.GzipCodec(level=1), core.Crc32cCodec()],
        "nc_bz2": [nc.BZ2(level=5)],
        "nc_lz4": [nc.LZ4()],
        "nc_lz4_acc": [nc.LZ4(acceleration=5)],
        "nc_zstd": [nc.Zstd(level=2)],
        "nc_zstd_checksum": [nc.Zstd(level=2, checksum=True)],
        "nc_gzip": [nc.GZip(level=4)],
        "nc_zlib": [nc.Zlib(level=4)],
        "nc_adler32": [nc.Adler32()],
        "nc_fletcher32": [nc.Fletcher32()],
        "nc_crc32": [nc.CRC32()],
        "nc_crc32_end": [nc.CRC32(location="end")],
        "nc_crc32c": [nc.CRC32C()],
        "nc_crc32c_start": [nc.CRC32C(location="start")],
        "nc_shuffle": [nc.Shuffle(elementsize=4)],
        "nc_shuffle_zlib": [nc.Shuffle(elementsize=4), nc.Zlib(level=1)],
    }
    for cname in CNAMES:
        for shuffle in ["noshuffle", "shuffle", "bitshuffle"]:
            byte_codecs[f"blosc_{cname}_{shuffle}"] = [
                core.BloscCodec(cname=cname, clevel=5, shuffle=shuffle)
            ]
        for shuffle in [0, 1, 2]:
            byte_codecs[f"nc_blosc_{cname}_{shuffle}"] = [
                nc.Blosc(cname=cname, clevel=4, shuffle=shuffle)
            ]
    byte_codecs["blosc_typesize_1"] = [
        core.BloscCodec(cname="zstd", clevel=5, shuffle="shuffle", typesize=1)
    ]
    for name, codecs in byte_codecs.items():
        yield name, ["i4", "f8", "rec"], {"compressors": codecs}
    yield "sharding", ["i4", "f8", "rec"], {"shards": (16,), "compressors": [core.GzipCodec()]}
    yield "nc_delta", ["i4"], {"filters": [nc.Delta(dtype="<i4")]}
    yield "nc_delta_f8", ["f8"], {"filters": [nc.Delta(dtype="<f8")]}
    # numcodecs.zarr3 keeps the dtype as given: a type name here.
    yield "nc_delta_named", ["i4"], {"filters": [nc.Delta(dtype="int32")]}
    yield "nc_fixedscaleoffset", ["f8"], {
        "filters": [nc.FixedScaleOffset(offset=0.1, scale=1000.3, dtype="<f8", astype="<i4")]
    }
    yield "nc_quantize", ["f8"], {"filters": [nc.Quantize(digits=2, dtype="<f8")]}
    yield "nc_bitround", ["f8"], {"filters": [nc.BitRound(keepbits=12)]}


def v2_cases():
    """(name, dtype keys, create_array keywords) for zarr-python 3.1, v2."""
    B = numcodecs.Blosc
    compressors = {
        "none": None,
        "bz2": numcodecs.BZ2(level=3),
        "lz4": numcodecs.LZ4(),
        "lz4_acc": numcodecs.LZ4(acceleration=10),
        "zstd": numcodecs.Zstd(level=3),
        "zstd_checksum": numcodecs.Zstd(level=3, checksum=True),
        "gzip": numcodecs.GZip(level=5),
        "zlib": numcodecs.Zlib(level=5),
        "adler32": numcodecs.Adler32(),
        "fletcher32": numcodecs.Fletcher32(),
        "crc32": numcodecs.CRC32(),
        "crc32c": numcodecs.CRC32C(),
        "crc32c_start": numcodecs.CRC32C(location="start"),
        "shuffle": numcodecs.Shuffle(elementsize=4),
    }
    for cname in CNAMES:
        for shuffle in [B.NOSHUFFLE, B.SHUFFLE, B.BITSHUFFLE, B.AUTOSHUFFLE]:
            compressors[f"blosc_{cname}_{shuffle}"] = B(cname=cname, clevel=5, shuffle=shuffle)
    for name, c in compressors.items():
        yield name, ["i4", "f8", "rec"], {"compressors": c}
    checks = {
        "filter_adler32": [numcodecs.Adler32()],
        "filter_crc32": [numcodecs.CRC32()],
        "filter_shuffle": [numcodecs.Shuffle(elementsize=4)],
    }
    for name, filters in checks.items():
        yield name, ["i4", "f8", "rec"], {"filters": filters, "compressors": numcodecs.Zlib(1)}
    yield "filter_delta", ["i4"], {"filters": [numcodecs.Delta(dtype="<i4")]}
    yield "filter_delta_astype", ["i4"], {"filters": [numcodecs.Delta(dtype="<i4", astype="<i8")]}
    yield "filter_fixedscaleoffset", ["f8"], {
        "filters": [numcodecs.FixedScaleOffset(offset=0.1, scale=1000.3, dtype="<f8", astype="<i4")],
        "compressors": numcodecs.Zstd(1),
    }
    yield "filter_quantize", ["f8"], {"filters": [numcodecs.Quantize(digits=2, dtype="<f8")]}
    yield "filter_quantize_f4", ["f8"], {
        "filters": [numcodecs.Quantize(digits=2, dtype="<f8", astype="<f4")]
    }
    yield "filter_bitround", ["f8"], {"filters": [numcodecs.BitRound(keepbits=12)]}


def write(store, name, dtype_key, kwargs, zarr_format):
    values = VALUES[dtype_key]
    z = zarr.create_array(
        store, name=None, shape=(N,), chunks=(8,), dtype=values.dtype,
        zarr_format=zarr_format, fill_value=None if zarr_format == 2 else 0, **kwargs
    )
    z[:] = values
    return z


if mode in ("v3", "v2"):
    cases = v3_cases() if mode == "v3" else v2_cases()
    zarr_format = 3 if mode == "v3" else 2
    for name, dtypes, kwargs in cases:
        for key in dtypes:
            full = f"{mode}_{name}_{key}"
            path = os.path.join(out, full + ".zarr")
            z = write(path, full, key, kwargs, zarr_format)
            save(full, path, zarr.open_array(path, mode="r"))
elif mode == "zip":
    from zarr.storage import ZipStore

    for zarr_format in (3, 2):
        full = f"zip_v{zarr_format}"
        path = os.path.join(out, full + ".zarr.zip")
        with ZipStore(path, mode="w") as store:
            write(store, full, "i4", {"compressors": [zarr.codecs.GzipCodec()]}
                  if zarr_format == 3 else {"compressors": [numcodecs.Zlib(level=1)]}, zarr_format)
        with ZipStore(path, mode="r") as store:
            save(full, path, zarr.open_array(store, mode="r"))
else:
    sys.exit(f"unknown mode {mode}")
