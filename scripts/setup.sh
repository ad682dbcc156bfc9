#!/usr/bin/env bash
# What building ndl needs beyond Rust: the HDF5 C library and its headers
# (Debian's libhdf5-dev, found through pkg-config), for ndl-hdf5.
# Installs them with apt-get (as root or through sudo) when missing, and
# fails loudly when it cannot.
set -euo pipefail

if command -v pkg-config >/dev/null && pkg-config --exists hdf5; then
  exit 0
fi
if [ "$(id -u)" = 0 ]; then sudo=()
elif command -v sudo >/dev/null; then sudo=(sudo)
else
  echo "error: building ndl needs the HDF5 library (Debian packages libhdf5-dev and pkg-config); not root and no sudo to install them" >&2
  exit 1
fi
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq libhdf5-dev pkg-config >/dev/null
pkg-config --exists hdf5 || { echo "error: libhdf5-dev installed, but pkg-config does not find hdf5" >&2; exit 1; }
