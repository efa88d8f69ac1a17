#!/usr/bin/env bash
# MPI over G' and G' chunks on a node with two GPUs (docs/mpi.md "Measuring on a 2-GPU
# node"). Uses only gpp (a GPU build with -DGPP_ENABLE_MPI=ON) and mpirun.
#
#   tools/mpi_scaling.sh BUILD_DIR OUTDIR [strong|chunks|big|all]
#
#   strong  si510 on 1 and 2 ranks (one GPU each), verified; times, per-rank kernel times,
#           the Allreduce, and the strong-scaling efficiency T1 / (2 T2)
#   chunks  si510 on 1 rank with --max-device-mem 1G (chunks) against the unchunked run
#   big     a deck larger than one GPU's memory, 1 rank, in chunks (BIG_ARGS below)
#   all     the three in turn (default)
#
# Environment: MPIRUN (default mpirun), MPIRUN_ARGS (default "--bind-to none"), REPEAT
# (default 5), DECK (default inputs/si510.toml), CHUNK_MEM (default 1G), BIG_ARGS
# (default: 72000 G' and G, 96 bands: wtilde_array + I_eps_array 32 x 72000^2 bytes =
# 166 GB = 154 GiB, more than an H200's 140 GiB; needs ~170 GB of host memory).
# Everything is logged under OUTDIR (text, JSON records).
set -uo pipefail
build=${1:?usage: tools/mpi_scaling.sh BUILD_DIR OUTDIR [strong|chunks|big|all]}
out=${2:?usage: tools/mpi_scaling.sh BUILD_DIR OUTDIR [strong|chunks|big|all]}
what=${3:-all}
src=$(cd "$(dirname "$0")/.." && pwd)
gpp=$build/app/gpp
mpirun=${MPIRUN:-mpirun}
read -r -a mpirun_args <<<"${MPIRUN_ARGS:---bind-to none}"
repeat=${REPEAT:-5}
deck=${DECK:-$src/inputs/si510.toml}
chunk_mem=${CHUNK_MEM:-1G}
name=$(basename "$deck" .toml)
read -r -a big_args <<<"${BIG_ARGS:---ngpown 72000 --ncouls 72000 --nbands 96 --nvband 40}"
# Open MPI refuses root unless told (the GPU machines run commands as root).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$out"
[ -x "$gpp" ] || { echo "mpi_scaling: no gpp at $gpp" >&2; exit 1; }
status=0

# run NAME NP ARGS...: gpp run under mpirun -np NP, output in OUTDIR/NAME.txt and .json.
run() {
  local name=$1 np=$2
  shift 2
  echo "== $name: $mpirun -np $np ${mpirun_args[*]} gpp run $*"
  local t0=$SECONDS
  "$mpirun" -np "$np" "${mpirun_args[@]}" "$gpp" run "$@" --json "$out/$name.json" >"$out/$name.txt" 2>&1
  local rc=$?
  grep -E '^(rank [0-9]+ of|ranks:|[a-z0-9-]+: ranks:|G. chunks|setup:|time:|verification|RESULT)' "$out/$name.txt"
  echo "   (exit $rc, $((SECONDS - t0)) s wall)"
  [ $rc -eq 0 ] || { status=1; tail -n 5 "$out/$name.txt"; }
  return $rc
}
# field FILE KEY: the value of KEY= on the first RESULT line.
field() { grep -m1 '^RESULT ' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# The achtemp/asxtemp lines of a single-policy run, "re im" per line.
sums() { sed -n 's/^a[cs][hx]temp(iw=[0-9]*) = (\(.*\), \(.*\))$/\1 \2/p' "$1"; }
# Largest |a - b| / |b| over the printed sums of two runs.
max_rel_diff() {
  paste <(sums "$1") <(sums "$2") |
    awk '{ d = sqrt(($1-$3)^2 + ($2-$4)^2); m = sqrt($3^2 + $4^2); r = m > 0 ? d / m : d; if (r > w) w = r }
         END { printf "%.3g", w }'
}

if [ "$what" = strong ] || [ "$what" = all ]; then
  run $name-1rank 1 "$deck" --policy tuned --repeat "$repeat"
  run $name-2ranks 2 "$deck" --policy tuned --repeat "$repeat"
  t1=$(field "$out/$name-1rank.txt" time_median_s)
  t2=$(field "$out/$name-2ranks.txt" time_median_s)
  if [ -n "$t1" ] && [ -n "$t2" ]; then
    awk -v n="$name" -v a="$t1" -v b="$t2" 'BEGIN { printf "%s tuned: 1 GPU %.4f s, 2 GPUs %.4f s: speed-up %.3f, strong-scaling efficiency T1/(2 T2) = %.3f (goal >= 0.95)\n", n, a, b, a / b, a / (2 * b) }' |
      tee "$out/$name-scaling.txt"
    echo "$name 1 rank vs 2 ranks, largest relative difference of the sums: $(max_rel_diff "$out/$name-2ranks.txt" "$out/$name-1rank.txt") (bound: docs/mpi.md)" |
      tee -a "$out/$name-scaling.txt"
  fi
fi

if [ "$what" = chunks ] || [ "$what" = all ]; then
  [ -f "$out/$name-1rank.txt" ] || run $name-1rank 1 "$deck" --policy tuned --repeat "$repeat"
  if run $name-chunked 1 "$deck" --policy tuned --repeat "$repeat" --max-device-mem "$chunk_mem"; then
    echo "$name chunked ($chunk_mem) vs whole, largest relative difference of the sums: $(max_rel_diff "$out/$name-chunked.txt" "$out/$name-1rank.txt")" |
      tee "$out/$name-chunked-diff.txt"
  fi
fi

if [ "$what" = big ] || [ "$what" = all ]; then
  # One rank: the deck does not fit its GPU, so the default --max-device-mem (90% of what
  # is free) splits it into chunks. Verified against the device reference, itself chunked.
  run big-chunked 1 --name big-chunked --generator random "${big_args[@]}" --policy tuned --repeat 1 --no-branch-stats
fi
exit $status
