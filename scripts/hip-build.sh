#!/usr/bin/env bash
# AMD GPUs (HIP): build gpp's hip-<arch> preset, the application and its test suite, from
# nothing but a Kokkos source tree, with Debian's own ROCm (docs/install.md, "AMD GPUs").
# Compile and link only: nothing here needs (or looks for) an AMD GPU.
#
#   scripts/hip-build.sh SUITE ARCH KOKKOS_SRC [options]     (as root: debootstrap, chroot, mount)
#
#   SUITE       Debian suite of the root, hence the ROCm: bookworm (ROCm 5.2.3, clang 15: gfx90a,
#               not gfx942), trixie (ROCm 5.7.1) or sid (what unstable has today)
#   ARCH        gfx90a (MI250X) or gfx942 (MI300A/X)
#   KOKKOS_SRC  a Kokkos 4.x source tree (e.g. `git archive 4.6.01 | tar x`)
#   --kokkos-kernels SRC  also build Kokkos Kernels from SRC (BLAS, complex<double>, no rocBLAS)
#               and gpp with GPP_ENABLE_KOKKOSKERNELS=ON; without it gpp is built with OFF
#   --root DIR  make the root in DIR, or reuse the one a former run left there (its Kokkos is
#               reused when it was built from the same sources with the same options); kept
#   --keep      keep the temporary root (default: removed at exit)
#   --commit REV  the gpp commit to build (default HEAD; uncommitted changes are not built)
#   --logs DIR  one log per step (default: a new directory under /var/tmp)
#   --jobs N    parallel build jobs (default 2)
#
# Steps, each timed: debootstrap --variant=minbase SUITE (mirror: this machine's apt
# sources, scripts/debian-mirror.sh); apt-get install of Debian's hipcc and gpp's build
# dependencies in the root; Kokkos (HIP + Serial, Kokkos_ARCH_AMD_<ARCH>, rocThrust when the
# suite has it) installed in the root's /opt; gpp cloned at REV into the root, configured
# with `cmake --preset hip-<arch>` and -Wall -Wextra, and built (gpp and gpp_tests). The
# summary counts the warnings in gpp's own sources and checks that both binaries carry an
# amdgcn code object for ARCH. Exit 0 only when every step passed.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 3 ] || usage
suite=$1 arch=$2 kokkos_src=$3
shift 3
kk_src="" root="" keep=0 commit=HEAD logs="" jobs=2
while [ $# -gt 0 ]; do
  case $1 in
    --kokkos-kernels) kk_src=${2:?}; shift 2 ;;
    --root) root=${2:?}; shift 2 ;;
    --keep) keep=1; shift ;;
    --commit) commit=${2:?}; shift 2 ;;
    --logs) logs=${2:?}; shift 2 ;;
    --jobs) jobs=${2:?}; shift 2 ;;
    *) usage ;;
  esac
done
case $suite in bookworm | trixie | sid) ;; *) echo "hip-build: SUITE is bookworm, trixie or sid, not '$suite'" >&2; exit 2 ;; esac
case $arch in
  gfx90a) karch=AMD_GFX90A ;;
  gfx942) karch=AMD_GFX942 ;;
  *) echo "hip-build: ARCH is gfx90a or gfx942, not '$arch'" >&2; exit 2 ;;
esac
if [ "$suite" = bookworm ] && [ "$arch" = gfx942 ]; then
  echo "hip-build: Debian 12's ROCm 5.2 (clang 15) cannot target gfx942: use trixie or sid" >&2
  exit 2
fi
preset=hip-$arch
[ "$(id -u)" -eq 0 ] || { echo "hip-build: run as root (debootstrap, chroot, mount)" >&2; exit 2; }
kokkos_src=$(cd "$kokkos_src" && pwd)
[ -f "$kokkos_src/core/src/Kokkos_Core.hpp" ] || { echo "hip-build: $kokkos_src is not a Kokkos source tree" >&2; exit 2; }
if [ -n "$kk_src" ]; then
  kk_src=$(cd "$kk_src" && pwd)
  [ -d "$kk_src/blas" ] || { echo "hip-build: $kk_src is not a Kokkos Kernels source tree" >&2; exit 2; }
fi
rev=$(git -C "$here" rev-parse --verify "$commit^{commit}")
if [ -n "$(git -C "$here" status --porcelain --untracked-files=no)" ] && [ "$commit" = HEAD ]; then
  echo "hip-build: note: uncommitted changes in $here are not built (HEAD $rev is)" >&2
fi
tool=hip-build
. "$here/scripts/debian-root.sh"
report_title() {
  printf '== hip-build summary: %s %s, Kokkos %s, gpp %s (%d s in all)\n' "$suite" "$arch" \
    "${kokkos_version:-?}" "${rev:0:12}" $((SECONDS - t0))
}
root_setup hip

# MAJOR.MINOR.PATCH as the release tags spell it (4.6.01); Kokkos Kernels writes SET().
version_of() {  # version_of CMAKELISTS PREFIX
  awk -v p="$2" 'toupper($0) ~ "^ *SET\\(" toupper(p) "_VERSION_(MAJOR|MINOR|PATCH) " && $0 ~ p {
      gsub(/\)/, "", $2); v[++n] = $2 }
    END { if (n == 3) printf "%d.%d.%02d\n", v[1], v[2], v[3] }' "$1"
}
kokkos_version=$(version_of "$kokkos_src/CMakeLists.txt" Kokkos)
[ -n "$kokkos_version" ] || kokkos_version=unknown

# 1. The root.
root_make gpp-hip-root

# 2. Packages: Debian's ROCm (hipcc pulls clang, lld, the device libraries, the HIP
#    runtime) and what gpp builds with. gfortran builds the test suite's oracle and .dat
#    round trip; python3 is looked up by the tests.
step "apt-get install hipcc and gpp's build dependencies" apt.log in_root "
  set -euo pipefail
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends hipcc libamdhip64-dev cmake make g++ git \
    ca-certificates libhdf5-dev libcli11-dev nlohmann-json3-dev libgtest-dev gfortran python3 file
  if apt-cache show librocthrust-dev >/dev/null 2>&1; then
    apt-get install -y -qq --no-install-recommends librocthrust-dev
  fi
  dpkg-query -W hipcc libamdhip64-dev librocthrust-dev cmake g++ libhdf5-dev libcli11-dev nlohmann-json3-dev libgtest-dev 2>/dev/null || true"
hip_version=$(in_root "dpkg-query -W -f='\${Version}' hipcc")
clang_version=$(in_root "hipcc --version 2>/dev/null | sed -n 's/.*clang version \([^ ]*\).*/\1/p' | head -n 1" || true)
if in_root "dpkg-query -W -f='\${Status}' librocthrust-dev 2>/dev/null | grep -q 'install ok installed'"; then
  rocthrust=ON
else
  rocthrust=OFF
fi
note "hipcc $hip_version (clang ${clang_version:-?}), rocThrust: $rocthrust"

# 3. Kokkos, and Kokkos Kernels when given, installed in the root's /opt.
tree_hash() { (cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-16; }
kokkos_prefix=/opt/kokkos-$kokkos_version-hip-$arch
kokkos_opts="-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=hipcc -DCMAKE_CXX_STANDARD=17
  -DCMAKE_CXX_EXTENSIONS=OFF -DKokkos_ENABLE_HIP=ON -DKokkos_ENABLE_SERIAL=ON
  -DKokkos_ARCH_$karch=ON -DKokkos_ENABLE_ROCTHRUST=$rocthrust"
kokkos_stamp="$(tree_hash "$kokkos_src") $(echo $kokkos_opts)"
if [ -f "$root$kokkos_prefix/gpp-hip-build.stamp" ] && [ "$(cat "$root$kokkos_prefix/gpp-hip-build.stamp")" = "$kokkos_stamp" ]; then
  note "Kokkos $kokkos_version in $kokkos_prefix reused (same sources and options)"
else
  rm -rf "$root/root/src/kokkos" "$root/root/build/kokkos" "$root$kokkos_prefix"
  mkdir -p "$root/root/src"
  cp -a "$kokkos_src" "$root/root/src/kokkos"
  step "Kokkos $kokkos_version: HIP + Serial, $karch, rocThrust $rocthrust (configure, build, install)" kokkos.log in_root "
    set -euo pipefail
    cmake -S /root/src/kokkos -B /root/build/kokkos $(echo $kokkos_opts) -DCMAKE_INSTALL_PREFIX=$kokkos_prefix
    cmake --build /root/build/kokkos -j$jobs
    cmake --install /root/build/kokkos"
  echo "$kokkos_stamp" >"$root$kokkos_prefix/gpp-hip-build.stamp"
  rm -rf "$root/root/build/kokkos"
fi
prefix_path=$kokkos_prefix
kk_flag=OFF
if [ -n "$kk_src" ]; then
  kk_version=$(version_of "$kk_src/CMakeLists.txt" KokkosKernels)
  kk_prefix=/opt/kokkos-kernels-${kk_version:-unknown}-hip-$arch
  kk_opts="-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=hipcc -DCMAKE_PREFIX_PATH=$kokkos_prefix
    -DKokkosKernels_ENABLE_ALL_COMPONENTS=OFF -DKokkosKernels_ENABLE_COMPONENT_BLAS=ON
    -DKokkosKernels_INST_COMPLEX_DOUBLE=ON -DKokkosKernels_INST_DOUBLE=ON -DKokkosKernels_INST_LAYOUTLEFT=ON
    -DKokkosKernels_ENABLE_TPL_ROCBLAS=OFF -DKokkosKernels_ENABLE_TPL_ROCSPARSE=OFF
    -DKokkosKernels_ENABLE_TPL_ROCSOLVER=OFF -DKokkosKernels_ENABLE_TESTS=OFF"
  kk_stamp="$(tree_hash "$kk_src") $kokkos_stamp $(echo $kk_opts)"
  if [ -f "$root$kk_prefix/gpp-hip-build.stamp" ] && [ "$(cat "$root$kk_prefix/gpp-hip-build.stamp")" = "$kk_stamp" ]; then
    note "Kokkos Kernels $kk_version in $kk_prefix reused (same sources, Kokkos and options)"
  else
    rm -rf "$root/root/src/kokkos-kernels" "$root/root/build/kokkos-kernels" "$root$kk_prefix"
    cp -a "$kk_src" "$root/root/src/kokkos-kernels"
    step "Kokkos Kernels $kk_version: BLAS, complex<double> (configure, build, install)" kokkos-kernels.log in_root "
      set -euo pipefail
      cmake -S /root/src/kokkos-kernels -B /root/build/kokkos-kernels $(echo $kk_opts) -DCMAKE_INSTALL_PREFIX=$kk_prefix
      cmake --build /root/build/kokkos-kernels -j$jobs
      cmake --install /root/build/kokkos-kernels"
    echo "$kk_stamp" >"$root$kk_prefix/gpp-hip-build.stamp"
    rm -rf "$root/root/build/kokkos-kernels"
  fi
  prefix_path="$kokkos_prefix;$kk_prefix"
  kk_flag=ON
fi

# 4. gpp at REV, cloned afresh: the preset, configured and built (app and test suite).
rm -rf "$root/root/gpp"
git clone -q --no-checkout "$here" "$root/root/gpp"
git -C "$root/root/gpp" checkout -q --detach "$rev"
step "gpp: cmake --preset $preset (GPP_ENABLE_KOKKOSKERNELS=$kk_flag, -Wall -Wextra)" configure.log in_root "
  cd /root/gpp && cmake --preset $preset -DCMAKE_PREFIX_PATH='$prefix_path' \
    -DGPP_ENABLE_KOKKOSKERNELS=$kk_flag -DCMAKE_CXX_FLAGS='-Wall -Wextra'"
keep_going=1
step "gpp: cmake --build --preset $preset -j$jobs (gpp and gpp_tests)" build.log in_root "
  cd /root/gpp && cmake --build --preset $preset -j$jobs" || true

# 5. What was built: gpp's own warnings (each once: hipcc reports a line for the host and
#    for the device compilation) and the code objects in both binaries.
grep -E '^(/root/gpp/)?[A-Za-z_./-]+\.(cpp|hpp|h):[0-9]+:[0-9]+: warning:' "$logs/build.log" |
  grep -v -E '^/(usr|opt)/' | sed 's|^/root/gpp/||' | sort -u >"$logs/gpp-warnings.txt" || true
nwarn=$(wc -l <"$logs/gpp-warnings.txt")
if [ "$nwarn" -eq 0 ]; then
  note "warnings in gpp's sources: 0"
else
  summary+=("$(printf 'FAIL        %s' "warnings in gpp's sources: $nwarn ($logs/gpp-warnings.txt)")")
  failed=1
  sed 's/^/        /' "$logs/gpp-warnings.txt" | head -n 40
fi
grep -E ': (fatal )?error:|undefined (symbol|reference)' "$logs/build.log" |
  sed 's|^/root/gpp/||' | sort -u >"$logs/gpp-errors.txt" || true
nerr=$(wc -l <"$logs/gpp-errors.txt")
if [ "$nerr" -gt 0 ]; then
  summary+=("$(printf 'FAIL        %s' "error lines in the build: $nerr ($logs/gpp-errors.txt)")")
  sed 's/^/        /' "$logs/gpp-errors.txt" | head -n 40
fi
bin=/root/gpp/build/$preset
for exe in app/gpp tests/gpp_tests; do
  # clang's offload bundles name their targets hipv4-amdgcn-amd-amdhsa--<arch>[:features].
  if in_root "grep -c -a 'amdgcn-amd-amdhsa--$arch' $bin/$exe" >/dev/null 2>&1; then
    summary+=("$(printf 'PASS        %s' "$preset/$exe: built, $(du -h "$root$bin/$exe" | cut -f1), carries amdgcn code for $arch")")
  else
    summary+=("$(printf 'FAIL        %s' "$preset/$exe: missing, or no amdgcn code for $arch in it")")
    failed=1
  fi
done
report
[ "$failed" = 0 ]
