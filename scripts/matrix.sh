#!/usr/bin/env bash
# The tested matrix (README, "Tested matrix"): build and test one row in a fresh Debian
# root, as CI does for the rows it runs (.ci/run sources this file for its recipes).
#
#   scripts/matrix.sh ROW [ARGS] [options]          (as root: debootstrap, chroot, mount)
#
# Rows:
#   debian12            the README quick start and `ctest --preset serial` (Debian 12's
#                       packaged Kokkos 3.4 Serial and Kokkos Kernels)                [CI]
#   debian12-openmp     Kokkos 3.4 OpenMP built from Debian 12's trilinos source package,
#                       the openmp preset, its tests at OMP_NUM_THREADS=2   [CI, with MPI]
#   debian12-threads    Kokkos 3.4 Threads from the same source, the threads preset, its
#                       tests at KOKKOS_NUM_THREADS=2 (g++ 12)
#   debian12-clang      the same with Debian 12's clang 14 for Kokkos and gpp, without
#                       xsimd (the host loops on portable packs)
#   debian12-mpi        Open MPI, the mpi preset, its MPI tests and the attack harness
#                       on 2 ranks (CI runs MPI in its OpenMP build)
#   debian12-tsan       ThreadSanitizer: Debian 12's clang 14 with LLVM's OpenMP runtime
#                       (libomp-14-dev, whose Archer tells TSan what OpenMP orders) builds
#                       Kokkos 3.4 OpenMP and gpp's tsan preset with -fsanitize=thread;
#                       `ctest --preset tsan`: the host loops' and gpp's own threads' tests
#                       (CI: the same without xsimd)
#   debian13            the README quick start and `ctest --preset serial` in Debian 13
#   sid                 Debian unstable's libkokkos-dev (Kokkos 5.x, OpenMP, C++20), GCC,
#                       HDF5 2.x: the openmp preset and its tests (unstable moves: what it
#                       has today)
#   kokkos SRC          Kokkos built from the source tree SRC (e.g. 4.7.01) in a Debian 12
#                       root: --backend threads|openmp|serial (default threads), --std 17|20
#                       (default 20), then that preset and its tests
#   (HIP: scripts/hip-build.sh SUITE ARCH KOKKOS_SRC, compile and link only.)
#
# Options: --root DIR (make the root in DIR and keep it; a root this script made for the
# same suite is reused), --keep (keep the temporary root), --commit REV (default HEAD;
# uncommitted changes are not built), --archive (the commit as `git archive` makes it, as
# the release tarball and a spack build have it: no .git, so `git unknown`; default a
# clone), --logs DIR (one log per step; default a new directory under /var/tmp), --jobs N
# (default 2).
#
# Every step is timed; the summary says PASS or FAIL for each, and the script exits 0 only
# when all passed. The mirror is this machine's own (scripts/debian-mirror.sh); no host name
# is written anywhere. Nothing fetched is kept outside the root.

# ---------------------------------------------------------------- recipes
# Each prints a bash script to run inside a root (by .ci/run's in_root or this script's).

# recipe_trilinos_kokkos MIRROR SUITE BACKEND PREFIX [CXX [CMAKE ARGS...]]: Kokkos 3.4 from
# Debian's trilinos source package (only packages/kokkos unpacked, kept in /root/kokkos-3.4
# for the next build), shared, C++17, BACKEND (OPENMP or THREADS) + Serial, or SERIAL
# alone, installed in PREFIX; CMAKE ARGS for Kokkos' configure (a cross toolchain file).
# Kokkos 3.4 spells Threads PTHREAD: Kokkos_ENABLE_THREADS would be ignored there.
recipe_trilinos_kokkos() {
  local mirror=$1 suite=$2 backend=$3 prefix=$4 cxx=${5:-c++} option
  shift $(($# < 5 ? $# : 5))
  case $backend in
    OPENMP) option=Kokkos_ENABLE_OPENMP ;;
    THREADS) option=Kokkos_ENABLE_PTHREAD ;;
    SERIAL) option=Kokkos_ENABLE_SERIAL ;;
    *) echo "recipe_trilinos_kokkos: BACKEND is OPENMP, THREADS or SERIAL" >&2; return 2 ;;
  esac
  cat <<EOF
set -euo pipefail
if [ ! -d /root/kokkos-3.4 ]; then
  printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\n' '$mirror' '$suite' \
    >/etc/apt/sources.list.d/gpp-$suite-src.sources
  apt-get update -qq
  rm -rf /root/trilinos-src && mkdir -p /root/trilinos-src && cd /root/trilinos-src
  apt-get source --download-only -qq trilinos/$suite 2>&1 | grep -v '^W: Download is performed unsandboxed' || true
  ls trilinos_*.orig.tar.gz >/dev/null
  tar xzf trilinos_*.orig.tar.gz --wildcards '*/packages/kokkos/*'
  mv Trilinos-*/packages/kokkos /root/kokkos-3.4
  cd / && rm -rf /root/trilinos-src
fi
rm -rf /root/build/kokkos-$backend
cmake -S /root/kokkos-3.4 -B /root/build/kokkos-$backend -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 \\
      -DCMAKE_CXX_COMPILER=$cxx -D$option=ON -DKokkos_ENABLE_SERIAL=ON -DBUILD_SHARED_LIBS=ON \\
      -DCMAKE_INSTALL_PREFIX=$prefix $* >/dev/null
cmake --build /root/build/kokkos-$backend -j\${GPP_JOBS:-2} >/root/build/kokkos-$backend.log 2>&1 ||
  { tail -n 40 /root/build/kokkos-$backend.log; exit 1; }
cmake --install /root/build/kokkos-$backend >/dev/null
rm -rf /root/build/kokkos-$backend
EOF
}

# recipe_kokkos_source SRC BACKEND STD PREFIX [CMAKE ARGS...]: Kokkos 4.x or later from the
# source tree SRC (a path in the root), shared, BACKEND (THREADS, OPENMP or SERIAL; +
# Serial), C++ STD; CMAKE ARGS for Kokkos' configure (a cross toolchain file).
recipe_kokkos_source() {
  local src=$1 backend=$2 std=$3 prefix=$4
  shift 4
  cat <<EOF
set -euo pipefail
rm -rf /root/build/kokkos
cmake -S $src -B /root/build/kokkos -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=$std \\
      -DKokkos_ENABLE_$backend=ON -DKokkos_ENABLE_SERIAL=ON -DBUILD_SHARED_LIBS=ON \\
      -DCMAKE_INSTALL_PREFIX=$prefix $* >/dev/null
cmake --build /root/build/kokkos -j\${GPP_JOBS:-2} >/root/build/kokkos.log 2>&1 ||
  { tail -n 40 /root/build/kokkos.log; exit 1; }
cmake --install /root/build/kokkos >/dev/null
rm -rf /root/build/kokkos
EOF
}

# recipe_gpp PRESET PREFIX [CMAKE ARGS...]: gpp's PRESET in /root/gpp against the Kokkos
# in PREFIX (no Kokkos Kernels: there is none built with these backends), built.
# recipe_tsan_kokkos MIRROR SUITE PREFIX: what ThreadSanitizer needs besides clang (LLVM's
# OpenMP runtime, whose Archer tells TSan what OpenMP orders; the sanitizer runtimes;
# llvm-symbolizer, without which the suppressions' function names match nothing), then
# Kokkos 3.4 OpenMP built by clang with -fsanitize=thread, installed in PREFIX.
recipe_tsan_kokkos() {
  local mirror=$1 suite=$2 prefix=$3
  cat <<EOF
set -euo pipefail
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clang libomp-14-dev libclang-rt-14-dev llvm >/dev/null
EOF
  recipe_trilinos_kokkos "$mirror" "$suite" OPENMP "$prefix" clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS=-fsanitize=thread
}

recipe_gpp() {  # recipe_gpp PRESET PREFIX [CMAKE ARGS]; the tree is $gpp_tree (/root/gpp)
  local preset=$1 prefix=$2
  shift 2
  cat <<EOF
set -euo pipefail
cd ${gpp_tree:-/root/gpp}
cmake --preset $preset -DCMAKE_PREFIX_PATH=$prefix -DGPP_ENABLE_KOKKOSKERNELS=OFF $*
cmake --build --preset $preset -j\${GPP_JOBS:-2}
EOF
}

# recipe_sid_kokkos_workaround: Debian unstable's libkokkos-dev 5.2.2-2 ships CMake files
# (KokkosTargets.cmake) naming libkokkosalgorithms.a and libkokkossimd.a, which the package
# lacks: find_package(Kokkos) fails until they exist. An empty archive of each is enough
# (nothing links anything from them).
recipe_sid_kokkos_workaround() {
  cat <<'EOF'
set -euo pipefail
for a in kokkosalgorithms kokkossimd; do
  f=/usr/lib/x86_64-linux-gnu/lib$a.a
  if grep -qs "lib$a.a" /usr/lib/x86_64-linux-gnu/cmake/Kokkos/KokkosTargets*.cmake && [ ! -e "$f" ]; then
    ar rc "$f" && echo "matrix: empty $f (named by libkokkos-dev's KokkosTargets, missing from the package)"
  fi
done
EOF
}

# Sourced (by .ci/run): the recipes only.
if [ "${BASH_SOURCE[0]}" != "$0" ]; then
  return 0
fi

# ---------------------------------------------------------------- the script
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

usage() { sed -n '2,40p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 1 ] || usage
row=$1
shift
kokkos_src=""
case $row in
  kokkos)
    [ $# -ge 1 ] || usage
    kokkos_src=$1
    shift ;;
  debian12 | debian12-openmp | debian12-threads | debian12-clang | debian12-mpi | debian12-tsan | debian13 | sid) ;;
  *) usage ;;
esac
root="" keep=0 commit=HEAD logs="" jobs=2 backend=THREADS std=20 archive=0
while [ $# -gt 0 ]; do
  case $1 in
    --root) root=${2:?}; shift 2 ;;
    --keep) keep=1; shift ;;
    --commit) commit=${2:?}; shift 2 ;;
    --archive) archive=1; shift ;;
    --logs) logs=${2:?}; shift 2 ;;
    --jobs) jobs=${2:?}; shift 2 ;;
    --backend) backend=$(echo "${2:?}" | tr a-z A-Z); shift 2 ;;
    --std) std=${2:?}; shift 2 ;;
    *) usage ;;
  esac
done
case $backend in THREADS | OPENMP | SERIAL) ;; *) echo "matrix: --backend is threads, openmp or serial" >&2; exit 2 ;; esac
case $std in 17 | 20 | 23) ;; *) echo "matrix: --std is 17, 20 or 23" >&2; exit 2 ;; esac
case $row in
  debian13) suite=trixie ;;
  sid) suite=sid ;;
  *) suite=bookworm ;;
esac
tool=matrix
. "$here/scripts/debian-root.sh"
root_check_inputs
in_root_env=(GPP_JOBS="$jobs")
report_title() {
  printf '== matrix summary: row %s (%s), gpp %s (%d s in all)\n' "$row" "$suite" "${rev:0:12}" $((SECONDS - t0))
}
# ctest_summary LOG: the "N% tests passed, ..." line of a ctest log, as a note.
ctest_summary() { note "$(grep -E '^[0-9]+% tests passed' "$logs/$1" | tail -n 1)"; }
versions() {  # versions PACKAGE...: "name version" of each installed package, as a note
  note "$(in_root "dpkg-query -W -f='\${Package} \${Version}, ' $* 2>/dev/null" | sed 's/, $//')"
}
root_setup matrix

# 1. The root, this commit cloned into it (or, --archive, unpacked from git archive).
root_make gpp-matrix-root
rm -rf "$root/root/gpp"
if [ "$archive" = 1 ]; then
  mkdir -p "$root/root/gpp"
  git -C "$here" archive --format=tar "$rev" | tar -x -C "$root/root/gpp"
else
  git clone -q --no-checkout "$here" "$root/root/gpp"
  git -C "$root/root/gpp" checkout -q --detach "$rev"
fi
packages() { step "apt-get: gpp's build dependencies (scripts/quickstart.sh --packages-only)" packages.log \
  in_root "cd /root/gpp && scripts/quickstart.sh --packages-only"; }

# 2. The row.
case $row in
  debian12 | debian13)
    step "scripts/quickstart.sh" quickstart.log in_root "cd /root/gpp && scripts/quickstart.sh"
    versions g++ libhdf5-dev libtrilinos-kokkos-dev cmake
    step "ctest --preset serial" ctest.log in_root "cd /root/gpp && ctest --preset serial"
    ctest_summary ctest.log ;;
  debian12-openmp)
    packages
    step "Kokkos 3.4 OpenMP from Debian's trilinos source package" kokkos.log \
      in_root "$(recipe_trilinos_kokkos "$mirror" "$suite" OPENMP /opt/kokkos-openmp)"
    step "gpp openmp preset" build.log in_root "$(recipe_gpp openmp /opt/kokkos-openmp)"
    step "ctest --preset openmp (OMP_NUM_THREADS=2)" ctest.log \
      in_root "cd /root/gpp && OMP_NUM_THREADS=2 OMP_PROC_BIND=false ctest --preset openmp"
    ctest_summary ctest.log ;;
  debian12-threads | debian12-clang)
    packages
    cxx=c++ compilers=""
    if [ "$row" = debian12-clang ]; then
      step "apt-get: clang" clang.log in_root "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clang"
      # and without xsimd: the host policy's loops on portable packs (the fallback's row)
      cxx=clang++ compilers="-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DGPP_ENABLE_XSIMD=OFF"
      versions clang
    fi
    step "Kokkos 3.4 Threads ($cxx) from Debian's trilinos source package" kokkos.log \
      in_root "$(recipe_trilinos_kokkos "$mirror" "$suite" THREADS /opt/kokkos-threads "$cxx")"
    step "gpp threads preset ($cxx)" build.log in_root "$(recipe_gpp threads /opt/kokkos-threads "$compilers")"
    step "ctest --preset threads (KOKKOS_NUM_THREADS=2)" ctest.log in_root "cd /root/gpp && ctest --preset threads"
    ctest_summary ctest.log ;;
  debian12-tsan)
    packages
    step "clang, libomp, the sanitizer runtimes and llvm-symbolizer; Kokkos 3.4 OpenMP (clang++, -fsanitize=thread)" \
      kokkos.log in_root "$(recipe_tsan_kokkos "$mirror" "$suite" /opt/kokkos-openmp-tsan)"
    versions clang libomp-14-dev libclang-rt-14-dev llvm
    step "gpp tsan preset" build.log in_root "$(recipe_gpp tsan /opt/kokkos-openmp-tsan)"
    step "ctest --preset tsan (host loops and gpp's threads on 2 OpenMP threads)" ctest.log \
      in_root "cd /root/gpp && ctest --preset tsan"
    ctest_summary ctest.log ;;
  debian12-mpi)
    packages
    step "apt-get: Open MPI" mpi-packages.log in_root \
      "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openmpi-bin libopenmpi-dev"
    step "gpp mpi preset" build.log in_root "cd /root/gpp && cmake --preset mpi && cmake --build --preset mpi -j$jobs"
    step "ctest --preset mpi (MPI, chunks, placement, oracle, attack harness on 2 ranks)" ctest.log in_root \
      "cd /root/gpp && ctest --preset mpi -R '^(MPI|Chunks|Placement|Decks/Oracle|attack\\.harness\\.mpi2\\.)'"
    ctest_summary ctest.log ;;
  sid)
    step "apt-get: libkokkos-dev, GCC, HDF5 and gpp's other dependencies" packages.log in_root "
      set -euo pipefail
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq
      apt-get install -y -qq --no-install-recommends libkokkos-dev cmake make g++ git libhdf5-dev libcli11-dev \
        nlohmann-json3-dev libgtest-dev python3 python3-h5py python3-matplotlib gfortran"
    versions libkokkos-dev g++ libhdf5-dev libcli11-dev cmake
    step "libkokkos-dev's missing static archives (empty ones)" workaround.log in_root "$(recipe_sid_kokkos_workaround)"
    step "gpp openmp preset" build.log in_root "$(recipe_gpp openmp /usr)"
    step "ctest --preset openmp (OMP_NUM_THREADS=2)" ctest.log \
      in_root "cd /root/gpp && OMP_NUM_THREADS=2 OMP_PROC_BIND=false ctest --preset openmp"
    ctest_summary ctest.log ;;
  kokkos)
    packages
    kv=$(awk '/^ *set\(Kokkos_VERSION_(MAJOR|MINOR|PATCH) / { gsub(/\)/, "", $2); v = v (v == "" ? "" : ".") $2 }
              END { print v }' "$kokkos_src/CMakeLists.txt")
    rm -rf "$root/root/src/kokkos"
    mkdir -p "$root/root/src"
    cp -a "$kokkos_src" "$root/root/src/kokkos"
    preset=$(echo "$backend" | tr A-Z a-z)
    step "Kokkos ${kv:-?} $backend + Serial, C++$std, from $kokkos_src" kokkos.log \
      in_root "$(recipe_kokkos_source /root/src/kokkos "$backend" "$std" /opt/kokkos)"
    step "gpp $preset preset" build.log in_root "$(recipe_gpp "$preset" /opt/kokkos)"
    step "ctest --preset $preset" ctest.log \
      in_root "cd /root/gpp && OMP_NUM_THREADS=2 OMP_PROC_BIND=false ctest --preset $preset"
    ctest_summary ctest.log ;;
esac
if [ -f "$logs/build.log" ]; then
  nwarn=$(grep -c -E '^(/root/gpp/)?[A-Za-z_./-]+\.(cpp|hpp|h):[0-9]+:[0-9]+: warning:' "$logs/build.log" || true)
  note "warnings in the gpp build: $nwarn"
fi
report
[ "$failed" = 0 ]
