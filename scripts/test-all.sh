#!/usr/bin/env bash
# Every check and every test, the NumPy / PyYAML / datashape / zarr / ncgen
# cross-checks included. Provisions what the tests need (Debian packages,
# a Python venv) and fails loudly when it cannot.
set -euo pipefail
cd "$(dirname "$0")/.."

# The HDF5 library ndl-hdf5 builds against.
scripts/setup.sh

need_apt=()
command -v ncgen >/dev/null || need_apt+=(netcdf-bin)
command -v ncdump >/dev/null || need_apt+=(netcdf-bin)
command -v valgrind >/dev/null || need_apt+=(valgrind)
command -v h5repack >/dev/null || need_apt+=(hdf5-tools)
command -v strace >/dev/null || need_apt+=(strace)
if ((${#need_apt[@]})); then
  if [ "$(id -u)" = 0 ]; then sudo=()
  elif command -v sudo >/dev/null; then sudo=(sudo)
  else echo "error: the tests need Debian packages ${need_apt[*]}; not root and no sudo to install them" >&2; exit 1
  fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# provision VENV PYTHON REQUIREMENTS: a venv of PYTHON with exactly the
# pinned REQUIREMENTS, rebuilt whenever the pins change.
provision() {
  local venv=$1 python=$2 requirements=$3
  if [ ! -x "$venv/bin/python" ] || ! cmp -s "$requirements" "$venv/requirements.txt"; then
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements"
    cp "$requirements" "$venv/requirements.txt"
  fi
}

# Python 3.11: numpy, PyYAML, datashape, zarr-python 3.1 (the last for 3.11).
provision .venv "${PYTHON:-python3}" tests/python/requirements.txt
export NDL_PYTHON="$PWD/.venv/bin/python"

# Python 3.12: zarr-python 3.4, xarray, Dask, netCDF4, moto, s3fs. pyenv
# provides 3.12 on these machines; PYTHON312 names another.
python312=${PYTHON312:-}
if [ -z "$python312" ]; then
  for candidate in "$(pyenv root 2>/dev/null)"/versions/3.12*/bin/python3.12 "$(command -v python3.12)"; do
    if [ -x "$candidate" ]; then python312=$candidate; break; fi
  done
fi
if [ -z "$python312" ]; then
  echo "error: the tests need Python 3.12 (zarr-python 3.4): install it with pyenv or set PYTHON312" >&2
  exit 1
fi
provision .venv312 "$python312" tests/python/requirements-py312.txt
export NDL_PYTHON312="$PWD/.venv312/bin/python"

cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps
cargo test --workspace
# The fuzz targets live in their own workspace; CI checks that they build,
# with the tests' profile, so that they reuse what the tests built.
CARGO_TARGET_DIR="$PWD/target" cargo build --profile test --manifest-path fuzz/Cargo.toml
