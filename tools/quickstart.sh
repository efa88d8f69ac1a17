#!/usr/bin/env bash
# Quick start on Debian 12 / Ubuntu: install what is missing, build the serial preset,
# and run the small deck. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ make git pkg-config libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev
          libhdf5-dev libcli11-dev libgtest-dev python3 python3-h5py python3-matplotlib gfortran)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "quickstart: installing ${missing[*]}"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake --preset serial
cmake --build --preset serial
./build/serial/app/gpp run inputs/small.toml
