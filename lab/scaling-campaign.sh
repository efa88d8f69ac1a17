#!/usr/bin/env bash
# One device call's worth of docs/mpi.md's measurements: builds gpp once (CUDA for
# Hopper, MPI, Kokkos in-tree), then runs one part, everything verified, and leaves in
# OUTDIR a summary and one archive of every log and JSON record (few files: what a device
# call brings back).
#
#   lab/scaling-campaign.sh KOKKOS_SRC OUTDIR one-gpu|two-gpu
#
#   one-gpu  gpp ceilings (the host<->device link, the device's memory); si214 and si510
#            end to end (time to solution); si510 with --max-device-mem 1G against the
#            whole run (mpi_scaling.sh chunks); a deck 1.2x the free device memory on one
#            GPU in chunks (mpi_scaling.sh big)
#   two-gpu  gpp ceilings; si510 on 1 and 2 GPUs (strong); si510 and its G' doubled on 2
#            GPUs (weak); the large deck on 1 GPU and on 2 GPUs, both in chunks (big)
#
# KOKKOS_SRC: a Kokkos source tree (4.x; the in-tree build of GPP_KOKKOS_SOURCE_DIR).
# Environment: WORK (/tmp/gpp-campaign: the build and the logs), BUILD_ONLY=1 (stop after
# the build), BUDGET (570 s: no run goes on beyond it, so that what was measured comes back
# within a 10-minute call), and mpi_scaling.sh's. Expected durations per part: docs/mpi.md.
set -uo pipefail
usage="usage: lab/scaling-campaign.sh KOKKOS_SRC OUTDIR one-gpu|two-gpu"
kokkos=${1:?$usage}
out=${2:?$usage}
part=${3:?$usage}
case $part in one-gpu|two-gpu) ;; *) echo "scaling-campaign: unknown part '$part' ($usage)" >&2; exit 1 ;; esac
if [ ! -f "$kokkos/CMakeLists.txt" ] || [ ! -x "$kokkos/bin/nvcc_wrapper" ]; then
  echo "scaling-campaign: $kokkos is not a Kokkos source tree (no CMakeLists.txt or bin/nvcc_wrapper)" >&2
  exit 1
fi
kokkos=$(cd "$kokkos" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-/tmp/gpp-campaign}
build=$work/build
logs=$work/$part
mkdir -p "$out" "$logs" || exit 1
out=$(cd "$out" && pwd)
summary=$logs/summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
t_start=$SECONDS
export DEADLINE=$(($(date +%s) + ${BUDGET:-570}))
# shellcheck disable=SC2317  # called by the EXIT trap
finish() {
  say "== $part done after $((SECONDS - t_start)) s"
  cp "$summary" "$out/summary-$part.txt"
  tar -C "$work" -czf "$out/logs-$part.tar.gz" "$part" 2>/dev/null
  ls -la "$out" >&2
}
trap finish EXIT

say "== $part: $(date -u +%Y-%m-%dT%H:%M:%SZ), gpp $(git -C "$src" rev-parse --short=12 HEAD 2>/dev/null || echo '?')$(git -C "$src" diff --quiet 2>/dev/null || echo ' (with local changes)')"
say "host: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo) memory; $(nvidia-smi -L 2>/dev/null | tr '\n' ';')"
say "$(nvidia-smi --query-gpu=index,name,memory.total,memory.used,clocks.max.sm --format=csv,noheader 2>/dev/null | tr '\n' ';')"

# One build: CUDA for Hopper, OpenMP host, MPI (Open MPI's mpicxx found through nvcc_wrapper).
t0=$SECONDS
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if { cmake --preset cuda-hopper90 -S "$src" -B "$build" "${generator[@]}" -DGPP_KOKKOS_SOURCE_DIR="$kokkos" \
       -DCMAKE_CXX_COMPILER="$kokkos/bin/nvcc_wrapper" -DGPP_ENABLE_MPI=ON -DMPI_CXX_COMPILER=/usr/bin/mpicxx \
       -DGPP_ENABLE_KOKKOSKERNELS=OFF -DGPP_ENABLE_TESTS=OFF &&
     cmake --build "$build" -j "$(nproc)" --target gpp; } >"$logs/build.log" 2>&1; then
  say "build: $((SECONDS - t0)) s ($build/app/gpp)"
else
  say "build FAILED after $((SECONDS - t0)) s:"
  tail -n 30 "$logs/build.log" | tee -a "$summary"
  exit 1
fi
[ "${BUILD_ONLY:-0}" = 1 ] && exit 0
gpp=$build/app/gpp
status=0

# The link and the device's memory, on this machine.
t0=$SECONDS
if timeout 120 "$gpp" ceilings --space device --json "$logs/ceilings.json" >"$logs/ceilings.txt" 2>&1; then
  say "ceilings: $((SECONDS - t0)) s"
  grep -E '^(device|FP64|HBM|L2 |link)' "$logs/ceilings.txt" | tee -a "$summary"
else
  say "ceilings FAILED:"
  tail -n 5 "$logs/ceilings.txt" | tee -a "$summary"
  status=1
fi

scaling() {
  "$src/lab/mpi_scaling.sh" "$build" "$logs" "$@" || status=1
}

if [ "$part" = one-gpu ]; then
  # si214 end to end (si510's whole run is the chunks mode's baseline).
  t0=$SECONDS
  if OMP_NUM_THREADS=$(nproc) timeout $((DEADLINE - $(date +%s))) "$gpp" run "$src/inputs/si214.toml" --policy tuned --repeat 5 \
       --json "$logs/si214-1rank.json" >"$logs/si214-1rank.txt" 2>&1; then
    say "== si214-1rank: $((SECONDS - t0)) s wall"
    python3 "$src/lab/scaling_summary.py" record "$logs/si214-1rank.json" | tee -a "$summary"
  else
    say "si214-1rank FAILED:"
    tail -n 5 "$logs/si214-1rank.txt" | tee -a "$summary"
    status=1
  fi
  scaling chunks big
else
  scaling strong weak big
fi
exit $status
