#!/usr/bin/env bash
# Every check and every test, the NumPy / PyYAML / datashape / zarr / ncgen
# cross-checks included. Provisions what the tests need (Debian packages,
# a Python venv) and fails loudly when it cannot.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v ncgen >/dev/null || need_apt+=(netcdf-bin)
command -v ncdump >/dev/null || need_apt+=(netcdf-bin)
command -v valgrind >/dev/null || need_apt+=(valgrind)
if ((${#need_apt[@]})); then
  if [ "$(id -u)" = 0 ]; then sudo=()
  elif command -v sudo >/dev/null; then sudo=(sudo)
  else echo "error: the tests need Debian packages ${need_apt[*]}; not root and no sudo to install them" >&2; exit 1
  fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

venv=.venv
if [ ! -x "$venv/bin/python" ] || ! cmp -s tests/python/requirements.txt "$venv/requirements.txt"; then
  rm -rf "$venv"
  "${PYTHON:-python3}" -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r tests/python/requirements.txt
  cp tests/python/requirements.txt "$venv/requirements.txt"
fi
export NDL_PYTHON="$PWD/$venv/bin/python"

cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps
cargo test --workspace
# The fuzz targets live in their own workspace; CI checks that they build.
cargo build --manifest-path fuzz/Cargo.toml
