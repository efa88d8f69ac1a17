#!/usr/bin/env bash
# Compile gpp's cuda-volta70 preset (V100, sm_70) with CUDA 11.8 on a machine without a GPU
# CUDA 13 cannot target sm_70, and Debian 12 ships CUDA 11.8 in non-free.
#
#   scripts/volta-build.sh --kokkos DIR [--kokkos-kernels DIR] [--cublas] [--commit REV]
#                        [--host-arch ARCH] [--root DIR] [--keep-root] [--bundle DIR]
#                        [--logs DIR] [--jobs N]
#
#   --kokkos DIR          Kokkos source tree (tested: 4.6.01, e.g. `git archive 4.6.01`)
#   --kokkos-kernels DIR  Kokkos Kernels source tree (same release); without it gpp is
#                         built with GPP_ENABLE_KOKKOSKERNELS=OFF. Built: the BLAS component,
#                         nothing pre-instantiated, no TPL but --cublas
#   --cublas              Kokkos Kernels with its cuBLAS TPL (the binaries then need
#                         libcublas.so.11 and libcublasLt.so.11 where they run)
#   --commit REV          the gpp commit to build (default: HEAD of this checkout)
#   --host-arch ARCH      the host code's ISA (GPP_HOST_ARCH, -march through nvcc_wrapper to
#                         g++-11): x86-64-v3 by default (AVX2 and FMA: every x86-64 CPU of a
#                         V100 node since Haswell), sapphirerapids for the H100 machine's
#                         Intel host (AVX-512), OFF for baseline x86-64 (SSE2: the host
#                         policy's loops 2 doubles wide, without FMA). Not native: the
#                         build machine is not the machine the binaries run on
#   --root DIR            the Debian 12 root: made there if absent, reused if this script
#                         made it before (packages, Kokkos and Kokkos Kernels are then not
#                         rebuilt unless their sources or options changed, gpp's build is
#                         incremental); implies --keep-root. Default: a fresh root under
#                         /var/tmp, removed at the end
#   --keep-root           keep the root (its path is printed)
#   --bundle DIR          copy what a run elsewhere needs into DIR (see below)
#   --logs DIR            each step's full log (default: a folder beside the root)
#   --jobs N              parallel build jobs (default 2)
#
# Everything happens as root in a `debootstrap --variant=minbase bookworm` root, whose
# mirror is read from this machine's apt sources as .ci/run does; contrib and non-free are
# added in a sources file of their own. In it: nvidia-cuda-toolkit (CUDA 11.8), g++-11
# (CUDA 11.8 refuses GCC 12) and gpp's build dependencies; Kokkos with CUDA + OpenMP and
# Kokkos_ARCH_VOLTA70 through its nvcc_wrapper on g++-11; optionally Kokkos Kernels (its
# BLAS component, nothing pre-instantiated); then gpp, cloned at REV, configured with
# `cmake --preset cuda-volta70` (host ISA --host-arch, xsimd from Debian: the host policy's
# loops on the vectors of that ISA) and built (gpp, the test binary and the Fortran
# helpers). Nothing runs on a GPU: the machine needs none.
#
# The bundle (--bundle DIR) is everything a machine with an NVIDIA driver (any GPU from
# sm_70 on: newer ones compile the compute_70 PTX at load time) needs to run gpp's test
# suite with ctest and gpp itself, without the Debian root: DIR/src a shallow clone of the
# commit with DIR/src/build/cuda-volta70 the build tree less its objects (binaries
# stripped), DIR/lib the shared libraries the binaries load (glibc's and the driver's
# libcuda excepted; they need glibc 2.36 or newer), DIR/cmake-modules the CMake module the
# test discovery includes, DIR/run-on-h100.sh a copy of scripts/volta-run.sh. The build's
# absolute paths start with /gpp-volta70 (the clone's place in the root); volta-run.sh
# makes /gpp-volta70 a link to DIR and runs the suite.
set -euo pipefail
{ # read whole before it runs: editing this file meanwhile changes nothing that runs
here=$(cd "$(dirname "$0")/.." && pwd)
suite=bookworm
kokkos="" kernels="" cublas=0 commit=HEAD host_arch=x86-64-v3 root="" keep=0 bundle="" logs="" jobs=2
while (($#)); do
  case $1 in
    --kokkos) kokkos=$2; shift 2 ;;
    --kokkos-kernels) kernels=$2; shift 2 ;;
    --cublas) cublas=1; shift ;;
    --commit) commit=$2; shift 2 ;;
    --host-arch) host_arch=$2; shift 2 ;;
    --root) root=$2; keep=1; shift 2 ;;
    --keep-root) keep=1; shift ;;
    --bundle) bundle=$2; shift 2 ;;
    --logs) logs=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "volta-build: unknown argument $1 (--help)" >&2; exit 1 ;;
  esac
done
[ -n "$kokkos" ] && [ -f "$kokkos/CMakeLists.txt" ] ||
  { echo "volta-build: --kokkos DIR (a Kokkos source tree) is required" >&2; exit 1; }
kokkos=$(cd "$kokkos" && pwd)
if [ -n "$kernels" ]; then
  [ -f "$kernels/CMakeLists.txt" ] || { echo "volta-build: $kernels is no Kokkos Kernels source tree" >&2; exit 1; }
  kernels=$(cd "$kernels" && pwd)
elif ((cublas)); then
  echo "volta-build: --cublas needs --kokkos-kernels" >&2; exit 1
fi
[[ $host_arch =~ ^[A-Za-z0-9_.+-]+$ ]] && [ "$host_arch" != native ] ||
  { echo "volta-build: --host-arch $host_arch: a -march value other than native, or OFF" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "volta-build: run as root (debootstrap, chroot)" >&2; exit 1; }
rev=$(git -C "$here" rev-parse --verify "$commit^{commit}") ||
  { echo "volta-build: $commit is no commit of $here" >&2; exit 1; }

t0=$SECONDS
stamp() { local s=$((SECONDS - t0)); printf '%dm%02ds' $((s / 60)) $((s % 60)); }
step() { printf '\n== volta [%s] %s\n' "$(stamp)" "$*"; }
times=()
status=FAIL
report() {
  local t
  printf '\n== volta: %s in %s (gpp %s)\n' "$status" "$(stamp)" "${rev:0:12}"
  for t in "${times[@]}"; do printf '   %s\n' "$t"; done
}

# The mirror this machine installs Debian 12 from (scripts/debian-mirror.sh, as .ci/run reads it).
. "$here/scripts/debian-mirror.sh"
mirror=$(debian_mirror "$suite") || mirror=""
[ -n "$mirror" ] || { echo "volta-build: no apt source for Debian $suite on this machine" >&2; exit 1; }

if ! command -v debootstrap >/dev/null; then
  step "installing debootstrap on this machine"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi

if [ -z "$root" ]; then
  root=$(mktemp -d /var/tmp/gpp-volta-root.XXXXXX)
else
  mkdir -p "$root"
  root=$(cd "$root" && pwd)
  if [ -e "$root/etc" ] && [ ! -f "$root/root/.volta-root" ]; then
    echo "volta-build: $root holds something this script did not make" >&2; exit 1
  fi
fi
[ -n "$logs" ] || logs=$root.logs
mkdir -p "$logs"
logs=$(cd "$logs" && pwd)
cleanup() {
  local m rc=$?
  for m in "$root/root/src/kokkos" "$root/root/src/kokkos-kernels" "$root/dev/pts" "$root/dev" "$root/sys" "$root/proc"; do
    mountpoint -q "$m" && umount -l "$m"
  done
  if ((keep)); then
    echo "volta-build: root kept at $root"
  elif ! grep -q " $root/" /proc/mounts; then   # only once nothing is mounted below it
    rm -rf --one-file-system "$root"
  fi
  report
  exit $rc
}
trap cleanup EXIT

# A command line in the root, in a clean environment; its output goes to logs/LABEL.log.
in_root() {
  chroot "$root" /usr/bin/env -i HOME=/root USER=root LOGNAME=root TERM=dumb LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin /bin/bash -c "$1"
}
timed() {  # timed LABEL COMMANDS
  local label=$1 s=$SECONDS log=$logs/$1.log rc=0
  step "$label (log: $log)"
  in_root "set -euo pipefail; $2" >"$log" 2>&1 || rc=$?
  times+=("$(printf '%-22s %4ds  rc=%d' "$label" $((SECONDS - s)) $rc)")
  if ((rc)); then tail -n 40 "$log"; exit $rc; fi
  printf '== volta: %s took %ds\n' "$label" $((SECONDS - s))
}
# A stage is skipped when its marker in the root holds the same key (sources and options).
done_with() { [ -f "$root/root/.volta-$1" ] && [ "$(cat "$root/root/.volta-$1")" = "$2" ]; }
mark() { printf '%s' "$2" >"$root/root/.volta-$1"; }
tree_key() { (cd "$1" && find . -type f -printf '%P %s %T@\n' | LC_ALL=C sort | sha256sum | cut -c1-16); }

if [ ! -f "$root/root/.volta-root" ]; then
  step "debootstrap --variant=minbase $suite"
  s=$SECONDS
  debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$logs/debootstrap.log" 2>&1 ||
    { tail -n 20 "$logs/debootstrap.log"; exit 1; }
  times+=("$(printf '%-22s %4ds' debootstrap $((SECONDS - s)))")
  # CUDA lives in non-free (and needs contrib): a sources file of its own.
  printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: contrib non-free\n' "$mirror" "$suite" \
    >"$root/etc/apt/sources.list.d/volta-nonfree.sources"
  touch "$root/root/.volta-root"
fi
root_hosts "$root"
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"   # nvcc and cicc read /dev/urandom; no GPU is touched

packages="nvidia-cuda-toolkit g++-11 cmake make git libhdf5-dev libcli11-dev nlohmann-json3-dev libxsimd-dev libgtest-dev python3 python3-h5py gfortran patchelf file"
if ! done_with packages "$packages"; then
  timed packages "
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends $packages
    apt-get clean
    nvcc --version; g++-11 --version | head -n 1"
  mark packages "$packages"
fi

# The sources, read-only in the root.
mkdir -p "$root/root/src/kokkos"
mount --bind "$kokkos" "$root/root/src/kokkos"
mount -o remount,bind,ro "$root/root/src/kokkos"
wrapper="export NVCC_WRAPPER_DEFAULT_COMPILER=g++-11"
kokkos_opts="-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_OPENMP=ON -DKokkos_ARCH_VOLTA70=ON"
kokkos_key="$(tree_key "$kokkos") $kokkos_opts"
if ! done_with kokkos "$kokkos_key"; then
  rm -f "$root/root/.volta-kokkos" "$root/root/.volta-kokkos-kernels"
  timed kokkos "
    $wrapper
    rm -rf /root/build/kokkos /opt/kokkos
    cmake -S /root/src/kokkos -B /root/build/kokkos $kokkos_opts \
      -DCMAKE_CXX_COMPILER=/root/src/kokkos/bin/nvcc_wrapper -DCMAKE_INSTALL_PREFIX=/opt/kokkos
    cmake --build /root/build/kokkos -j $jobs
    cmake --install /root/build/kokkos
    rm -rf /root/build/kokkos"
  mark kokkos "$kokkos_key"
fi

prefix=/opt/kokkos
gpp_opts="-DGPP_ENABLE_KOKKOSKERNELS=OFF"
if [ -n "$kernels" ]; then
  mkdir -p "$root/root/src/kokkos-kernels"
  mount --bind "$kernels" "$root/root/src/kokkos-kernels"
  mount -o remount,bind,ro "$root/root/src/kokkos-kernels"
  # The BLAS component and no pre-instantiated kernels: gpp's one KokkosBlas::gemm
  # (complex<double>, LayoutLeft) is instantiated in gpp itself. Every component with
  # complex<double> instantiated is 137 nvcc compiles, hours on 2 cores.
  kk_opts="-DCMAKE_BUILD_TYPE=Release -DKokkosKernels_ENABLE_ALL_COMPONENTS=OFF -DKokkosKernels_ENABLE_COMPONENT_BLAS=ON
    -DKokkosKernels_INST_DOUBLE=OFF -DKokkosKernels_INST_COMPLEX_DOUBLE=OFF -DKokkosKernels_INST_FLOAT=OFF
    -DKokkosKernels_INST_COMPLEX_FLOAT=OFF
    -DKokkosKernels_ENABLE_TPL_CUBLAS=$( ((cublas)) && echo ON || echo OFF)
    -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF -DKokkosKernels_ENABLE_TPL_CUSOLVER=OFF
    -DKokkosKernels_ENABLE_TPL_BLAS=OFF -DKokkosKernels_ENABLE_TPL_LAPACK=OFF"
  kk_key="$(tree_key "$kernels") $kk_opts $kokkos_key"
  kk_key=${kk_key//$'\n'/ }
  if ! done_with kokkos-kernels "$kk_key"; then
    timed kokkos-kernels "
      $wrapper
      rm -rf /root/build/kokkos-kernels /opt/kokkos-kernels
      cmake -S /root/src/kokkos-kernels -B /root/build/kokkos-kernels ${kk_opts//$'\n'/ } \
        -DCMAKE_CXX_COMPILER=/opt/kokkos/bin/nvcc_wrapper -DCMAKE_PREFIX_PATH=/opt/kokkos \
        -DCMAKE_INSTALL_PREFIX=/opt/kokkos-kernels
      cmake --build /root/build/kokkos-kernels -j $jobs
      cmake --install /root/build/kokkos-kernels
      rm -rf /root/build/kokkos-kernels"
    mark kokkos-kernels "$kk_key"
  fi
  prefix="/opt/kokkos;/opt/kokkos-kernels"
  gpp_opts="-DGPP_ENABLE_KOKKOSKERNELS=ON"
fi

# gpp at REV: a fresh clone, or in a reused root the clone there moved to REV and its
# build tree rebuilt incrementally.
if [ -d "$root/gpp-volta70/src/.git" ]; then
  git -C "$root/gpp-volta70/src" fetch -q "$here" '+refs/heads/*:refs/remotes/origin/*'
  git -C "$root/gpp-volta70/src" checkout -q --detach "$rev"
else
  rm -rf "$root/gpp-volta70"
  mkdir -p "$root/gpp-volta70"
  git clone -q --no-checkout "$here" "$root/gpp-volta70/src"
  git -C "$root/gpp-volta70/src" checkout -q --detach "$rev"
fi
timed gpp-configure "
  $wrapper
  cd /gpp-volta70/src
  # The installed Kokkos' nvcc_wrapper, on g++-11 (NVCC_WRAPPER_DEFAULT_COMPILER).
  cmake --preset cuda-volta70 -DCMAKE_CXX_COMPILER=/opt/kokkos/bin/nvcc_wrapper -DCMAKE_PREFIX_PATH='$prefix' \
    $gpp_opts -DGPP_HOST_ARCH=$host_arch -DGPP_ENABLE_HDF5=ON -DGPP_ENABLE_XSIMD=ON"
timed gpp-build "
  $wrapper
  cd /gpp-volta70/src
  cmake --build --preset cuda-volta70 -j $jobs"
timed gpp-check "
  cd /gpp-volta70/src/build/cuda-volta70
  for b in app/gpp tests/gpp_tests; do
    ls -l \$b
    # sm_70 machine code and compute_70 PTX (what a newer GPU's driver compiles).
    cuobjdump --list-elf \$b | sed 's/.*\\.//' | sort | uniq -c
    cuobjdump --list-ptx \$b | sed 's/.*\\.//' | sort | uniq -c
    ldd \$b
  done
  app/gpp --version || true
  app/gpp policies | grep -- '--param loops' || true   # the host loops' vector type"
cat "$logs/gpp-check.log"

if [ -n "$bundle" ]; then
  timed bundle "
    rm -rf /gpp-volta70/bundle
    mkdir -p /gpp-volta70/bundle/lib /gpp-volta70/bundle/cmake-modules
    cd /gpp-volta70/src
    # The commit's tree as a shallow clone: the suite checks the build's git hash against it.
    git branch -f volta-bundle HEAD
    git clone -q --depth 1 --branch volta-bundle file:///gpp-volta70/src /gpp-volta70/bundle/src
    b=build/cuda-volta70 out=/gpp-volta70/bundle/src/build/cuda-volta70
    mkdir -p \$out
    # The build tree without objects, archives, dependency files and CMake's scratch.
    (cd \$b && find . -type f ! -name '*.o' ! -name '*.a' ! -name '*.d' ! -path '*/CMakeFiles/*' \
       ! -name compile_commands.json -print0 | tar --null -T - -cf -) | tar xf - -C \$out
    # The test discovery includes CMake's GoogleTestAddTests.cmake by its absolute path.
    gta=\$(grep -rhoE '/usr/share/cmake-[0-9.]+/Modules/GoogleTestAddTests.cmake' \$out/tests | head -n 1)
    cp \$gta /gpp-volta70/bundle/cmake-modules/
    grep -rlF \$gta \$out/tests | xargs sed -i \"s|\$gta|/gpp-volta70/cmake-modules/GoogleTestAddTests.cmake|g\"
    # Every shared library the ELF programs load but glibc's and the driver's (libcuda),
    # found through a DT_RPATH (it also applies to their dependencies, unlike a RUNPATH)
    # to /gpp-volta70/lib: scripts/volta-run.sh links /gpp-volta70 to the bundle.
    cd \$out
    for x in \$(find . -type f -perm -u+x -exec sh -c 'file -b \"\$1\" | grep -q ELF' _ {} \; -print); do
      ldd \$x | awk '\$3 ~ /^\// { print \$3 }' >>/tmp/volta-libs
      strip --strip-unneeded \$x
      patchelf --force-rpath --set-rpath /gpp-volta70/lib \$x
    done
    # cmake --install (the install test) rewrites the build RPATH it finds: it finds ours.
    find . -name cmake_install.cmake -exec sed -i -E 's#((OLD_|NEW_)?RPATH) \"[^\"]*\"#\\1 \"/gpp-volta70/lib\"#' {} +
    sort -u /tmp/volta-libs | grep -vE '/(ld-linux[^/]*|libc|libm|libdl|libpthread|librt|libcuda)\.so' |
      xargs -I{} cp -L {} /gpp-volta70/bundle/lib/
    rm -f /tmp/volta-libs
    du -sh /gpp-volta70/bundle /gpp-volta70/bundle/* \$out
    ls -l /gpp-volta70/bundle/lib"
  cat "$logs/bundle.log"
  rm -rf "$bundle"
  mkdir -p "$(dirname "$bundle")"
  mv "$root/gpp-volta70/bundle" "$bundle"
  [ -f "$bundle/src/scripts/volta-run.sh" ] && cp "$bundle/src/scripts/volta-run.sh" "$bundle/run-on-h100.sh"
fi
status=PASS
exit 0
}
