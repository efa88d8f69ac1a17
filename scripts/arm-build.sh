#!/usr/bin/env bash
# The aarch64 (Arm) row of the tested matrix: Kokkos and gpp cross-compiled for aarch64 with
# Debian 12's g++-aarch64-linux-gnu, and gpp's test suite run under qemu-user, in a fresh
# Debian root (as scripts/matrix.sh builds its rows). What it shows is that the build and
# every test pass on aarch64 (the host policy's loops on xsimd's NEON vectors of 2 doubles);
# an emulator says nothing about speed on Arm, which is not measured.
#
#   scripts/arm-build.sh [--kokkos SRC] [--backend serial|openmp|both] [options]   (as root)
#
#   --kokkos SRC   a Kokkos 4.x source tree (default: Kokkos 3.4 from Debian's trilinos
#                  source package, as scripts/matrix.sh's rows)
#   --backend B    serial (Kokkos Serial, the serial preset), openmp (Kokkos OpenMP + Serial,
#                  the openmp preset, its suite at OMP_NUM_THREADS=2) or both (default)
#   --tests REGEX  run only the tests ctest -R REGEX selects (default: the whole suite)
#   --root DIR, --keep, --commit REV, --logs DIR, --jobs N   as scripts/matrix.sh
#
# In the root (an amd64 Debian 12 made by debootstrap): `dpkg --add-architecture arm64`
# (the root's own list; this machine's is not touched), the cross compilers (C, C++,
# Fortran for the oracle), qemu-user-static, gpp's dependencies for arm64 (HDF5, GoogleTest)
# and the architecture-independent ones (CLI11, nlohmann-json, xsimd). A CMake toolchain
# file names the cross compilers and qemu as the emulator. The tests start gpp and the
# Fortran oracle as programs (popen, Python, CMake scripts), so the kernel must run aarch64
# programs: the script registers qemu-aarch64-static with binfmt_misc (the F flag: the
# interpreter is opened once, from the root) under the name gpp-qemu-aarch64, unless an
# aarch64 handler is registered already, and removes that registration at exit.
set -euo pipefail
{ # read whole before it runs: editing this file meanwhile changes nothing that runs
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/matrix.sh"  # the recipes (sourced: functions only)

usage() { sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
kokkos_src="" backends="serial openmp" tests="" root="" keep=0 commit=HEAD logs="" jobs=2
while [ $# -gt 0 ]; do
  case $1 in
    --kokkos) kokkos_src=${2:?}; shift 2 ;;
    --backend)
      case ${2:?} in serial | openmp) backends=$2 ;; both) backends="serial openmp" ;; *) usage ;; esac
      shift 2 ;;
    --tests) tests=${2:?}; shift 2 ;;
    --root) root=${2:?}; shift 2 ;;
    --keep) keep=1; shift ;;
    --commit) commit=${2:?}; shift 2 ;;
    --logs) logs=${2:?}; shift 2 ;;
    --jobs) jobs=${2:?}; shift 2 ;;
    -h | --help) usage ;;
    *) usage ;;
  esac
done
suite=bookworm
tool=arm-build
. "$here/scripts/debian-root.sh"
root_check_inputs  # as root: binfmt_misc besides
in_root_env=(GPP_JOBS="$jobs")
report_title() {
  printf '== arm-build summary: aarch64 (%s, qemu-user), gpp %s (%d s in all)\n' "$suite" "${rev:0:12}" $((SECONDS - t0))
}
root_setup arm

# binfmt_misc: an aarch64 handler for the whole machine while the tests run.
binfmt=/proc/sys/fs/binfmt_misc
registered=""
binfmt_cleanup() {
  if [ -n "$registered" ] && [ -e "$binfmt/$registered" ]; then
    echo -1 >"$binfmt/$registered" || true
  fi
  if mountpoint -q "$root/proc/sys/fs/binfmt_misc" 2>/dev/null; then umount "$root/proc/sys/fs/binfmt_misc" || true; fi
  root_cleanup
}
trap binfmt_cleanup EXIT

# 1. The root, this commit cloned into it.
root_make gpp-arm-root
rm -rf "$root/root/gpp"
git clone -q --no-checkout "$here" "$root/root/gpp"
git -C "$root/root/gpp" checkout -q --detach "$rev"

# 2. The cross toolchain and gpp's dependencies, amd64 tools and arm64 libraries.
step "apt-get: cross compilers, qemu-user-static, arm64 HDF5 and GoogleTest (multiarch in the root)" packages.log \
  in_root "
    set -euo pipefail
    export DEBIAN_FRONTEND=noninteractive
    dpkg --add-architecture arm64
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends \
      g++-aarch64-linux-gnu gfortran-aarch64-linux-gnu qemu-user-static cmake make git ca-certificates file \
      python3 python3-h5py python3-matplotlib libcli11-dev nlohmann-json3-dev libxsimd-dev \
      libc6:arm64 libstdc++6:arm64 libgomp1:arm64 libgfortran5:arm64 libhdf5-dev:arm64 libgtest-dev:arm64
    aarch64-linux-gnu-g++ --version | head -n 1
    qemu-aarch64-static --version | head -n 1"
note "$(in_root "dpkg-query -W -f='\${Package} \${Version}, ' g++-aarch64-linux-gnu qemu-user-static libhdf5-dev:arm64 libgtest-dev:arm64 libxsimd-dev 2>/dev/null" | sed 's/, $//')"

cat >"$root/root/aarch64.cmake" <<'EOF'
# Cross-compiling for aarch64 with Debian's cross compilers; arm64 libraries come from the
# root's multiarch packages (/usr/lib/aarch64-linux-gnu, found through the compiler's
# library architecture). Programs built here run through qemu (the binfmt_misc handler
# too, for those the tests start themselves).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_Fortran_COMPILER aarch64-linux-gnu-gfortran)
set(CMAKE_CROSSCOMPILING_EMULATOR /usr/bin/qemu-aarch64-static)
# HDF5's compiler wrapper (h5cc) is the build machine's: point FindHDF5 at the arm64 library.
set(HDF5_C_INCLUDE_DIR /usr/include/hdf5/serial)
set(HDF5_C_LIBRARY_hdf5 /usr/lib/aarch64-linux-gnu/hdf5/serial/libhdf5.so)
EOF

# 3. binfmt_misc, unless the kernel runs aarch64 programs already.
mkdir -p "$root/proc/sys/fs/binfmt_misc"
mountpoint -q "$root/proc/sys/fs/binfmt_misc" || mount -t binfmt_misc binfmt_misc "$root/proc/sys/fs/binfmt_misc"
if grep -qs 'magic 7f454c460201010000000000000000000200b700' "$root"/proc/sys/fs/binfmt_misc/*; then
  note "binfmt_misc: an aarch64 handler is registered already (used as it is)"
else
  registered=gpp-qemu-aarch64
  # The ELF header of an aarch64 executable or shared object (qemu's qemu-binfmt-conf.sh).
  in_root "echo ':$registered:M::\\x7fELF\\x02\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02\\x00\\xb7\\x00:\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\x00\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xfe\\xff\\xff\\xff:/usr/bin/qemu-aarch64-static:F' >/proc/sys/fs/binfmt_misc/register"
  binfmt=$root/proc/sys/fs/binfmt_misc
  note "binfmt_misc: registered $registered (removed at exit)"
fi
step "an aarch64 program runs (qemu through binfmt_misc)" hello.log in_root "
  set -euo pipefail
  printf '#include <cstdio>\nint main() { std::puts(\"aarch64 ok\"); }\n' >/tmp/hello.cpp
  aarch64-linux-gnu-g++ -O2 /tmp/hello.cpp -o /tmp/hello
  file /tmp/hello 2>/dev/null || true
  /tmp/hello"

# 4. Per backend: Kokkos cross-built, gpp's preset cross-built, its suite under qemu.
if [ -n "$kokkos_src" ]; then
  rm -rf "$root/root/src/kokkos"
  mkdir -p "$root/root/src"
  cp -a "$kokkos_src" "$root/root/src/kokkos"
fi
for backend in $backends; do
  B=$(echo "$backend" | tr a-z A-Z)
  prefix=/opt/kokkos-$backend-aarch64
  if [ -n "$kokkos_src" ]; then
    step "Kokkos ($kokkos_src) $B for aarch64" "kokkos-$backend.log" \
      in_root "$(recipe_kokkos_source /root/src/kokkos "$B" 17 "$prefix" -DCMAKE_TOOLCHAIN_FILE=/root/aarch64.cmake)"
  else
    step "Kokkos 3.4 $B for aarch64 from Debian's trilinos source package" "kokkos-$backend.log" \
      in_root "$(recipe_trilinos_kokkos "$mirror" "$suite" "$B" "$prefix" aarch64-linux-gnu-g++ \
        -DCMAKE_TOOLCHAIN_FILE=/root/aarch64.cmake)"
  fi
  step "gpp $backend preset for aarch64" "build-$backend.log" \
    in_root "$(recipe_gpp "$backend" "$prefix" -DCMAKE_TOOLCHAIN_FILE=/root/aarch64.cmake -DGPP_HOST_ARCH=OFF \
      -DGPP_ENABLE_XSIMD=ON -DGPP_ENABLE_HDF5=ON)
      file build/$backend/app/gpp | sed 's/, BuildID.*//'"
  filter=""
  [ -n "$tests" ] && filter="-R '$tests'"
  step "ctest --preset $backend under qemu-aarch64 (OMP_NUM_THREADS=2)" "ctest-$backend.log" \
    in_root "cd /root/gpp && OMP_NUM_THREADS=2 OMP_PROC_BIND=false ctest --preset $backend -j $jobs --timeout 3000 $filter"
  note "$backend: $(grep -E '^[0-9]+% tests passed' "$logs/ctest-$backend.log" | tail -n 1)"
  nwarn=$(grep -c -E '^(/root/gpp/)?[A-Za-z_./-]+\.(cpp|hpp|h):[0-9]+:[0-9]+: warning:' "$logs/build-$backend.log" || true)
  note "$backend: warnings in the gpp build: $nwarn"
done
report
[ "$failed" = 0 ]
exit
}
