#!/usr/bin/env bash
# Quick start on Debian 12 or Ubuntu 24.04, from a fresh machine: install the packages
# gpp needs (apt-get, only those missing), build the serial preset into build/serial,
# run the small deck, and say where gpp is. Safe to run again.
#   --packages-only   install the packages and stop (scripts/matrix.sh, before other builds)
#
# Every package below is needed, and nothing else: CI (.ci/run) runs this script and
# `ctest --preset serial` in a minimal Debian 12 root (debootstrap --variant=minbase),
# so a package missing here fails CI.
set -euo pipefail
cd "$(dirname "$0")/.."
packages_only=0
case "${1:-}" in
  "") ;;
  --packages-only) packages_only=1 ;;
  *) echo "usage: scripts/quickstart.sh [--packages-only]" >&2; exit 2 ;;
esac

packages=(
  cmake make g++                       # the build (CMakePresets.json needs CMake >= 3.21)
  git                                  # the git hash in `gpp --version` and every record
  libtrilinos-kokkos-dev               # Kokkos 3.4 (Serial)
  libtrilinos-kokkos-kernels-dev       # Kokkos Kernels 3.4 (achstemp's gemm)
  liblapack-dev libblas-dev            # named by Kokkos Kernels 3.4's CMake targets
  libhdf5-dev                          # HDF5 decks and result files
  libxsimd-dev                         # the host policy's vector loops (without it: portable packs)
  libcli11-dev                         # the command line
  nlohmann-json3-dev                   # JSON: run records, ceilings and tuning files
  libgtest-dev                         # the test suite (ctest --preset serial)
  python3 python3-h5py                 # the tests that read gpp's HDF5 files with h5py
  gfortran                             # the .dat round trip, the independent oracle (tests), the library's Fortran module
  python3-dev python3-numpy pybind11-dev  # the library's Python module (docs/library.md)
  python3-matplotlib                   # tools/gpp_plot.py and its tests
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "quickstart: run as root or install sudo (missing: ${missing[*]})" >&2; exit 1; }
    sudo="sudo"
  fi
  echo "quickstart: installing ${missing[*]}"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
    # Ubuntu carries the Trilinos and CLI11 packages in its universe component.
    if grep -qs '^ID=ubuntu' /etc/os-release; then
      echo "quickstart: on Ubuntu, enable universe first: sudo add-apt-repository universe (or add it to /etc/apt/sources.list.d/ubuntu.sources)" >&2
    fi
    exit 1
  fi
fi

[ "$packages_only" = 0 ] || exit 0

cmake --preset serial
cmake --build --preset serial
./build/serial/app/gpp run inputs/small.toml

# The library's parts (docs/library.md): what the configure step built, what it left out and why.
library=$(sed -n 's/^GPP_LIBRARY_SUMMARY:INTERNAL=//p' build/serial/CMakeCache.txt)
case "$library" in
  *"Fortran module OFF"*|*"Python module OFF"*|OFF*) echo "quickstart: the library left something out: $library" ;;
esac

cat <<EOF

quickstart: gpp is built: $PWD/build/serial/app/gpp
  the library:       ${library:-(not reported by the configure step)}
  run the tests:     ctest --preset serial
  call it gpp:       export PATH="$PWD/build/serial/app:\$PATH"
  or install it:     cmake --install build/serial --prefix "\$HOME/.local"   (bin/gpp, share/gpp/inputs, share/doc/gpp;
                     the library: lib/libgpp.so, include/gpp/, lib/cmake/gpp/, docs/install.md)
EOF
