#!/usr/bin/env bash
# MPI over G', G' chunks and decks larger than one GPU, on one node (docs/mpi.md
# "Measuring"). Uses gpp (a GPU build with -DGPP_ENABLE_MPI=ON), mpirun and python3.
#
#   lab/mpi_scaling.sh BUILD_DIR OUTDIR MODE...
#
#   strong  DECK (si510) on 1 and 2 ranks, one GPU each, verified: times, per-rank kernel
#           times, the Allreduce, the efficiency T1 / (2 T2), the sums' difference
#   chunks  DECK on 1 rank whole and with --max-device-mem CHUNK_MEM (1G): one pass with
#           its chunks' copies against the whole run's transfer plus kernel (goal <= 1.3x)
#   big     a random deck of BIG_FACTOR (1.2) x the device's free memory (gpp ceilings),
#           G' = G, BIG_NBANDS (48) bands, verified against the device reference: 1 rank in
#           chunks (the default budget, 90% of the free memory); with 2 GPUs also 2 ranks,
#           each in chunks (--max-device-mem of BIG_SHARE (0.6) x a rank's share)
#   weak    DECK on 1 rank, and DECK with its G' doubled on 2 ranks: efficiency T1 / T2
#   all     the four
#
# Environment: MPIRUN (mpirun), MPIRUN_ARGS ("--bind-to none"), REPEAT (5), DECK
# (inputs/si510.toml), CHUNK_MEM (1G), BIG_FACTOR, BIG_NBANDS, BIG_SHARE, BIG_REPEAT (1),
# RUN_TIMEOUT (400 s a run), DEADLINE (epoch seconds after which no run starts and none
# runs on: a device call's end), GPUS (what nvidia-smi lists). Each run's text and JSON record
# land in OUTDIR (NAME.txt, NAME.json); the comparisons are appended to OUTDIR/summary.txt.
# Each rank gets OMP_NUM_THREADS = cores / ranks (the host work: generating the deck).
set -uo pipefail
usage="usage: lab/mpi_scaling.sh BUILD_DIR OUTDIR strong|chunks|big|weak|all..."
build=${1:?$usage}
out=${2:?$usage}
shift 2
[ $# -gt 0 ] || { echo "$usage" >&2; exit 1; }
modes=" $* "
[ "$modes" = " all " ] && modes=" strong chunks big weak "
for m in $modes; do
  case $m in strong|chunks|big|weak) ;; *) echo "mpi_scaling: unknown mode '$m' ($usage)" >&2; exit 1 ;; esac
done
src=$(cd "$(dirname "$0")/.." && pwd)
gpp=$build/app/gpp
summary_py=$src/lab/scaling_summary.py
mpirun=${MPIRUN:-mpirun}
read -r -a mpirun_args <<<"${MPIRUN_ARGS:---bind-to none}"
repeat=${REPEAT:-5}
deck=${DECK:-$src/inputs/si510.toml}
chunk_mem=${CHUNK_MEM:-1G}
name=$(basename "$deck" .toml)
timeout_s=${RUN_TIMEOUT:-400}
gpus=${GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
cores=$(nproc)
# Open MPI refuses root unless told (the GPU machines run commands as root).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$out"
[ -x "$gpp" ] || { echo "mpi_scaling: no gpp at $gpp" >&2; exit 1; }
summary=$out/summary.txt
status=0
say() { echo "$*" | tee -a "$summary"; }

# run NAME NP ARGS...: gpp run under mpirun -np NP (OUTDIR/NAME.txt, NAME.json); the
# record's digest goes to the summary.
run() {
  local name=$1 np=$2
  shift 2
  local limit=$timeout_s
  if [ -n "${DEADLINE:-}" ]; then
    local left=$((DEADLINE - $(date +%s)))
    if [ $left -lt 30 ]; then
      say "== $name: not run (${left} s left before the deadline)"
      status=1
      return 1
    fi
    [ $left -lt "$limit" ] && limit=$left
  fi
  say "== $name: OMP_NUM_THREADS=$((cores / np)) $mpirun -np $np ${mpirun_args[*]} gpp run $*"
  local t0=$SECONDS
  OMP_NUM_THREADS=$((cores / np)) timeout "$limit" "$mpirun" -np "$np" "${mpirun_args[@]}" \
    -x OMP_NUM_THREADS "$gpp" run "$@" --json "$out/$name.json" >"$out/$name.txt" 2>&1
  local rc=$?
  say "   exit $rc after $((SECONDS - t0)) s wall"
  if [ $rc -ne 0 ]; then
    status=1
    tail -n 5 "$out/$name.txt" | tee -a "$summary"
    return $rc
  fi
  python3 "$summary_py" record "$out/$name.json" | tee -a "$summary"
}
# compare KIND A B: a comparison of two records, when both exist.
compare() {
  if [ ! -f "$out/$2.json" ] || [ ! -f "$out/$3.json" ]; then
    say "$1 $2 $3: a run is missing"
    return
  fi
  python3 "$summary_py" "$1" "$out/$2.json" "$out/$3.json" | tee -a "$summary"
}

if [[ $modes == *" strong "* ]]; then
  run "$name-1rank" 1 "$deck" --policy tuned --repeat "$repeat"
  if [ "$gpus" -ge 2 ]; then
    run "$name-2ranks" 2 "$deck" --policy tuned --repeat "$repeat"
    compare strong "$name-1rank" "$name-2ranks"
  else
    say "strong: $gpus GPU(s) here, the 2-rank run needs 2"
  fi
fi

if [[ $modes == *" chunks "* ]]; then
  [ -f "$out/$name-1rank.json" ] || run "$name-1rank" 1 "$deck" --policy tuned --repeat "$repeat"
  run "$name-chunked" 1 "$deck" --policy tuned --repeat "$repeat" --max-device-mem "$chunk_mem"
  compare chunks "$name-1rank" "$name-chunked"
fi

if [[ $modes == *" weak "* ]]; then
  [ -f "$out/$name-1rank.json" ] || run "$name-1rank" 1 "$deck" --policy tuned --repeat "$repeat"
  if [ "$gpus" -ge 2 ]; then
    ngpown=$(sed -n 's/^ngpown *= *\([0-9]*\).*/\1/p' "$deck")
    run "$name-weak-2ranks" 2 "$deck" --ngpown $((2 * ngpown)) --name "$name-2x" --policy tuned --repeat "$repeat"
    compare weak "$name-1rank" "$name-weak-2ranks"
  else
    say "weak: $gpus GPU(s) here, the 2-rank run needs 2"
  fi
fi

if [[ $modes == *" big "* ]]; then
  # The device's memory as gpp sees it (and the link the chunks stream over).
  if [ -f "$out/ceilings.json" ] || timeout 300 "$gpp" ceilings --space device --json "$out/ceilings.json" >"$out/ceilings.txt" 2>&1; then
    big_args=$(python3 "$summary_py" deck-size --ceilings "$out/ceilings.json" --factor "${BIG_FACTOR:-1.2}" \
      --nbands "${BIG_NBANDS:-48}" 2>>"$summary")
    if [ -n "$big_args" ]; then
      tail -n 1 "$summary"
      read -r -a big <<<"$big_args"
      # The branch counts would cost one more streamed pass; the static remainder and the
      # device reference stream one each.
      run big-1rank 1 "${big[@]}" --policy tuned --repeat "${BIG_REPEAT:-1}" --no-branch-stats
      if [ "$gpus" -ge 2 ]; then
        # A rank's share of the G' columns fits its GPU: a budget of BIG_SHARE x the share
        # makes it run in chunks too.
        n=$(echo "$big_args" | sed -n 's/.*--ngpown \([0-9]*\).*/\1/p')
        nb=$(echo "$big_args" | sed -n 's/.*--nbands \([0-9]*\).*/\1/p')
        mem=$(awk -v n="$n" -v nb="$nb" -v f="${BIG_SHARE:-0.6}" \
          'BEGIN { printf "%dM", (16 * n * nb + f * (32 * n + 48 * nb) * n / 2) / 1048576 }')
        run big-2ranks 2 "${big[@]}" --policy tuned --repeat "${BIG_REPEAT:-1}" --no-branch-stats --max-device-mem "$mem"
        compare strong big-1rank big-2ranks
      else
        say "big: $gpus GPU(s) here, the 2-rank run needs 2"
      fi
    else
      status=1
      tail -n 1 "$summary"
    fi
  else
    say "big: gpp ceilings failed:"
    tail -n 5 "$out/ceilings.txt" | tee -a "$summary"
    status=1
  fi
fi
exit $status
