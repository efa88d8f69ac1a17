#!/usr/bin/env bash
# Where the wall time of `gpp run` goes on a host (docs/wall-time.md): builds the openmp
# preset with Kokkos built in-tree from KOKKOS_SOURCE_DIR (no Kokkos Kernels: the static
# remainder's built-in product; no tests), then times, on THREADS OpenMP
# threads (default 16, spread, one per place):
#   si214 with the host policy, verified, three repeats   (the run docs/wall-time.md is about)
#   the same again, verified against the reference the first stored (the reference cache)
#   the same with --verify none --no-branch-stats         (what verification adds)
#   medium, the same three ways                            (the small-deck counterpart)
# Each twice, each round from an empty reference cache of its own (OUTDIR/cache, never
# the user's); the wall time of the whole process and each part of it (from the JSON record:
# setup, reference and branch statistics, static remainder, warm-up plus repeats) go to
# OUTDIR/summary.txt, every log beside it.
#
#   lab/wall-time-host.sh KOKKOS_SOURCE_DIR OUTDIR [THREADS]
#   lab/wall-time-host.sh --bin GPP OUTDIR [THREADS]   (a gpp built already, e.g. the
#                                                        new-native of lab/host-simd-bench.sh)
#   e.g. lab/wall-time-host.sh /path/to/kokkos-4.7.01 "$OUT" 16
set -uo pipefail
bin="" src=""
if [ "${1:-}" = --bin ]; then
  bin=${2:-}
  shift 2 || set --
  [ -f "$bin" ] && [ -x "$bin" ] || { echo "wall-time-host: --bin '$bin' is not an executable file" >&2; exit 1; }
else
  src=${1:-}
  shift || true
fi
[ $# -ge 1 ] || { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 1; }
out=$1
threads=${2:-16}
mkdir -p "$out"
if [ -z "$bin" ]; then
  # A Kokkos source trimmed of its examples and benchmarks (to travel light) is built from a
  # copy with those two directories empty: Kokkos' CMake adds both unconditionally.
  if [ ! -d "$src/example" ] || [ ! -d "$src/benchmarks" ]; then
    copy=$(mktemp -d)/kokkos
    cp -r "$src" "$copy"
    for d in example benchmarks; do
      mkdir -p "$copy/$d"
      [ -f "$copy/$d/CMakeLists.txt" ] || : >"$copy/$d/CMakeLists.txt"
    done
    src=$copy
  fi
  {
    cmake --preset openmp -DGPP_KOKKOS_SOURCE_DIR="$src" -DGPP_ENABLE_KOKKOSKERNELS=OFF -DGPP_ENABLE_TESTS=OFF &&
      cmake --build --preset openmp -j "$(nproc)"
  } >"$out/build.log" 2>&1 || {
    tail -n 30 "$out/build.log"
    exit 1
  }
  bin=build/openmp/app/gpp
fi
export OMP_NUM_THREADS=$threads OMP_PROC_BIND=spread OMP_PLACES=threads
export XDG_CACHE_HOME=$out/cache
{
  lscpu 2>/dev/null | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|Flags" | cut -c1-200
  "$bin" --version
  echo "OMP_NUM_THREADS=$OMP_NUM_THREADS OMP_PROC_BIND=$OMP_PROC_BIND OMP_PLACES=$OMP_PLACES"
} >"$out/machine.txt" 2>&1

status=0
run() {  # NAME ARGS...: one timed gpp run, its record in NAME.json
  local name=$1
  shift
  local t0 t1
  t0=$(date +%s.%N)
  "$bin" run "$@" --json "$out/$name.json" >"$out/$name.log" 2>"$out/$name.err"
  local rc=$?
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" -v n="$name" -v rc="$rc" 'BEGIN { printf "%s %.3f %d\n", n, b - a, rc }' >>"$out/wall.txt"
  [ "$rc" -ne 0 ] && status=1
}
: >"$out/wall.txt"
for round in 1 2; do
  rm -rf "$XDG_CACHE_HOME"
  run "si214-verified-$round" inputs/si214.toml --policy host --space host --repeat 3
  run "si214-stored-$round" inputs/si214.toml --policy host --space host --repeat 3
  run "si214-unverified-$round" inputs/si214.toml --policy host --space host --repeat 3 --verify none --no-branch-stats
  run "medium-verified-$round" inputs/medium.toml --policy host --space host --repeat 3
  run "medium-stored-$round" inputs/medium.toml --policy host --space host --repeat 3
  run "medium-unverified-$round" inputs/medium.toml --policy host --space host --repeat 3 --verify none --no-branch-stats
done

# One line per run: the process's wall time and its parts (the record's own times; what is
# left is start-up, Kokkos, the transfer-free copies, the outputs and the exit).
python3 - "$out" >"$out/summary.txt" 2>&1 <<'EOF'
import json, os, sys
out = sys.argv[1]
walls = {}
for line in open(os.path.join(out, "wall.txt")):
    name, wall, rc = line.split()
    walls[name] = (float(wall), int(rc))
print(f"{'run':26s} {'wall':>7s} {'setup':>7s} {'ref+br':>7s} {'static':>7s} {'warm+rep':>9s} {'median':>7s} {'rest':>6s} rc")
for name, (wall, rc) in walls.items():
    try:
        r = json.load(open(os.path.join(out, name + ".json")))
    except (OSError, ValueError):
        print(f"{name:26s} {wall:7.2f}  (no record) rc={rc}")
        continue
    setup = float(r.get("setup", {}).get("setup_s") or 0)
    ref = float(r.get("verification", {}).get("reference_s") or 0)
    static = float(r.get("static_remainder", {}).get("time_s") or 0)
    run = r["runs"][0]
    median = float(run["time_median_s"])
    runs = sum(run["times_s"]) + median  # the warm-up, about one more run
    rest = wall - setup - ref - static - runs
    print(f"{name:26s} {wall:7.2f} {setup:7.2f} {ref:7.2f} {static:7.2f} {runs:9.2f} {median:7.3f} {rest:6.2f} {rc}"
          f"  {run['rel_error']:.2g} {'verified' if run['verified'] else ''}"
          f" {r.get('verification', {}).get('reference_source', '')}")
EOF
cat "$out/summary.txt"
exit $status
