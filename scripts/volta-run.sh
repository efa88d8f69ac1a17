#!/usr/bin/env bash
# Runs what scripts/volta-build.sh --bundle made (gpp's cuda-volta70 build, CUDA 11.8,
# sm_70 machine code and compute_70 PTX) on a machine with an NVIDIA driver and GPU: on a
# V100 natively, on a newer GPU through the driver's JIT compilation of the PTX. No
# CUDA toolkit is needed there: the CUDA runtime is linked statically and the bundle
# holds every other library the binaries load (but glibc and the driver's libcuda).
#
#   scripts/volta-run.sh BUNDLE OUTDIR [STEP...]
#   STEP: env | ctest | attack | si214 | all (default: all = env ctest attack si214)
#
#   env     the GPU and driver, the libraries the binaries resolve, gpp --version, and
#           how long the first run takes (the JIT compiles every kernel then; later starts
#           read the driver's cache, CUDA_CACHE_MAXSIZE raised to 4 GiB); the run's
#           provenance names Kokkos' warning about another compute capability
#   ctest   the build's test suite with ctest (-j 8), the attack harness excluded
#   attack  the attack harness (tests/attack/gpp_attack.py --strict)
#   si214   gpp run inputs/si214.toml --policy all, verified, and its JSON record
#
# Logs go to OUTDIR (one file per step, at most 8 files). The build's absolute paths
# start with /gpp-volta70, made here a link to BUNDLE (run as root on a machine of one's
# own). Exit status: 0 when every step passed.
set -uo pipefail
{ # read whole before it runs: editing this file meanwhile changes nothing that runs
[ $# -ge 2 ] || { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 1; }
bundle=$(cd "$1" && pwd) || exit 1
out=$2
shift 2
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(all)
[ "${steps[*]}" = all ] && steps=(env ctest attack si214)
mkdir -p "$out"
out=$(cd "$out" && pwd)
[ -x "$bundle/src/build/cuda-volta70/app/gpp" ] || { echo "volta-run: $bundle is no bundle of scripts/volta-build.sh" >&2; exit 1; }
if [ -e /gpp-volta70 ] && [ ! -L /gpp-volta70 ]; then
  echo "volta-run: /gpp-volta70 exists and is not a link" >&2; exit 1
fi
ln -sfn "$bundle" /gpp-volta70
# The build's CTest files and test binary name the building root's /usr/bin/cmake, python3
# and git: where this machine has them elsewhere on PATH, link them there.
for tool in cmake python3 git; do
  if [ ! -x /usr/bin/$tool ] && command -v $tool >/dev/null; then ln -s "$(command -v $tool)" /usr/bin/$tool; fi
done
# The bundle's files may belong to another user: git (the build's hash check) must read them.
git config --global --get-all safe.directory 2>/dev/null | grep -qx '\*' || git config --global --add safe.directory '*'
export CUDA_CACHE_MAXSIZE=4294967296 OMP_PROC_BIND=false
cd /gpp-volta70/src
build=build/cuda-volta70
gpp=$build/app/gpp
status=0
summary=()
for step in "${steps[@]}"; do
  log=$out/$step.log
  t0=$(date +%s.%N)
  case $step in
    env)
      {
        nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv
        uname -a; head -n 4 /etc/os-release; ldd --version | head -n 1   # the bundle needs glibc >= 2.36
        for tool in cmake python3 git; do echo "/usr/bin/$tool -> $(readlink -f /usr/bin/$tool)"; done
        for b in $gpp $build/tests/gpp_tests; do echo "== ldd $b"; ldd "$b"; done
        $gpp --version   # starts no Kokkos: the build, not the device
        s=$(date +%s.%N); $gpp run inputs/small.toml --repeat 1 --no-branch-stats; rc=$?
        echo "first start (gpp run inputs/small.toml; the driver JIT-compiles every kernel): $(awk "BEGIN{print $(date +%s.%N) - $s}") s, rc=$rc"
        s=$(date +%s.%N); $gpp run inputs/small.toml --repeat 1 --no-branch-stats >/dev/null
        echo "second start: $(awk "BEGIN{print $(date +%s.%N) - $s}") s"
        $gpp policies
        (exit $rc)
      } >"$log" 2>&1 ;;
    ctest)
      (cd $build && ctest -j 8 --timeout 900 --output-on-failure -E '^attack\.harness\.[0-9]+$') >"$log" 2>&1 ;;
    attack)
      python3 tests/attack/gpp_attack.py --gpp "$gpp" --strict >"$log" 2>&1 ;;
    si214)
      $gpp run inputs/si214.toml --policy all --json "$out/si214.json" >"$log" 2>&1 ;;
    *)
      echo "volta-run: unknown step $step" >"$log"; false ;;
  esac
  rc=$?
  t=$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}")
  summary+=("$(printf '%-7s rc=%d %7s s  %s' "$step" $rc "$t" "$log")")
  printf '== %s: rc=%d, %s s\n' "$step" $rc "$t"
  tail -n 4 "$log"
  [ $rc -eq 0 ] || status=1
done
echo "== volta-run: $([ $status -eq 0 ] && echo PASS || echo FAIL)"
printf '   %s\n' "${summary[@]}"
exit $status
}
