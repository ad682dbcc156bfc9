#!/usr/bin/env bash
# What building ndl needs beyond Rust: the HDF5 C library and its headers
# (Debian's libhdf5-dev, found through pkg-config), for ndl-hdf5, and cmake
# and zstd's header (libzstd-dev), which build C-Blosc2 (blosc2-sys) for
# ndl-hdf5's Blosc2 filter.
# Installs them with apt-get (as root or through sudo) when missing, and
# fails loudly when it cannot.
set -euo pipefail

if command -v pkg-config >/dev/null && pkg-config --exists hdf5 && command -v cmake >/dev/null \
  && pkg-config --exists libzstd; then
  exit 0
fi
if [ "$(id -u)" = 0 ]; then sudo=()
elif command -v sudo >/dev/null; then sudo=(sudo)
else
  echo "error: building ndl needs the HDF5 library and cmake (Debian packages libhdf5-dev, pkg-config, cmake and libzstd-dev); not root and no sudo to install them" >&2
  exit 1
fi
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq libhdf5-dev pkg-config cmake libzstd-dev >/dev/null
pkg-config --exists hdf5 || { echo "error: libhdf5-dev installed, but pkg-config does not find hdf5" >&2; exit 1; }
