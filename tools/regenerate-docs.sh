#!/usr/bin/env bash
# Regenerate every measured chart and table under docs/ (roofline/, sweeps/, measurements/
# and docs/results.md) from one gpp binary on one machine with a GPU. The binary must be
# built from this checkout's HEAD with no tracked file changed, so that every CSV, JSON,
# chart footer and table carries a clean git hash (docs/results.md, "Regenerating").
#
#   tools/regenerate-docs.sh [options] GPP TAG
#
#   GPP   a gpp binary of this checkout's HEAD (its `gpp --version` says `git HEAD`, not
#         -dirty), built with a GPU backend (CUDA or HIP) and the OpenMP host space
#   TAG   the machine's short name in file names, e.g. h100 (letters, digits, -)
# Options:
#   --out DIR     write DIR/roofline, DIR/sweeps, DIR/measurements and DIR/results.md
#                 (default: this checkout's docs/)
#   --ncu WHAT    gpp roofline --ncu: auto (default), off, or ncu's path
#   --quick       small repeats and grids (a check of the script itself: the numbers are
#                 rough, and results.md says so)
#
# Everything is written into a staging folder inside DIR first; only when every step has
# passed are the files moved into place (each replaces the file of its name). A failed
# step leaves DIR as it was. Files already in DIR's three folders that this run did not
# write are listed at the end (they are older measurements: delete or keep them).
# Needs python3 with matplotlib (tools/gpp_plot.py). OMP_NUM_THREADS, OMP_PROC_BIND and
# OMP_PLACES are used as set (default: spread over threads, every core).
set -euo pipefail
checkout=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "regenerate-docs: $*" >&2; exit 1; }

out=$checkout/docs ncu=auto quick=0 args=()
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    --ncu) ncu=${2:?--ncu needs a value}; shift 2 ;;
    --quick) quick=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1 (--help)" ;;
    *) args+=("$1"); shift ;;
  esac
done
[ ${#args[@]} -eq 2 ] || die "usage: tools/regenerate-docs.sh [--out DIR] [--ncu auto|off|PATH] [--quick] GPP TAG (--help)"
gpp=${args[0]} tag=${args[1]}
[[ $tag =~ ^[A-Za-z0-9][A-Za-z0-9-]*$ ]] || die "TAG '$tag': letters, digits and - only"
[ -f "$gpp" ] && [ -x "$gpp" ] || die "$gpp: not an executable file"
gpp=$(cd "$(dirname "$gpp")" && pwd)/$(basename "$gpp")
[ -d "$out" ] || die "--out $out: not a folder"
out=$(cd "$out" && pwd)

# Provenance: the checkout is clean and the binary is its HEAD.
git -C "$checkout" rev-parse --git-dir >/dev/null 2>&1 || die "$checkout is not a git checkout"
git -C "$checkout" diff --quiet HEAD -- || die "tracked files differ from HEAD in $checkout: commit them first (the records would say -dirty)"
head=$(git -C "$checkout" rev-parse --short=12 HEAD)
version=$("$gpp" --version 2>&1) || die "$gpp --version failed: $version"
built=$(sed -n 's/^git //p' <<<"$version")
[ "$built" = "$head" ] || die "$gpp was built from git '$built', this checkout is at $head (rebuild it from this checkout)"
kokkos_line=$(grep '^Kokkos ' <<<"$version") || die "$gpp --version names no Kokkos"
[[ $kokkos_line =~ (Cuda|HIP) ]] || die "$gpp has no GPU backend ($kokkos_line)"
[[ $kokkos_line =~ OpenMP ]] || die "$gpp has no OpenMP host space ($kokkos_line): the host charts need it"
python3 -c 'import matplotlib' 2>/dev/null || die "python3 cannot import matplotlib (tools/gpp_plot.py)"
plot() { MPLBACKEND=Agg python3 "$checkout/tools/gpp_plot.py" "$@" >/dev/null; }

export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
cd "$checkout"   # deck paths (inputs/) are relative to the checkout
stage=$(mktemp -d "$out/.regenerate-docs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
trap 'exit 130' INT; trap 'exit 143' TERM   # the EXIT trap removes the staging folder
mkdir "$stage/roofline" "$stage/sweeps" "$stage/measurements"
commands=$stage/commands.txt
t0=$SECONDS
step() {  # step CMD...: run, echo and record the command (paths relative to DIR)
  local shown=${*//$stage\//} ; shown=${shown//$gpp/gpp}
  printf '[%4ds] %s\n' $((SECONDS - t0)) "$shown"
  printf '%s\n' "$shown" >>"$commands"
  "$@" >>"$stage/log.txt" 2>&1 || { tail -n 20 "$stage/log.txt" >&2; die "failed: $shown"; }
}

if [ $quick = 1 ]; then
  rep=1 rep_bench=1 bb_tuned=32,64 ts_tuned=64,128 bb_v8=64 ts_v8=128,512 bb_host=32,64 ig_host=128,256
else
  rep=3 rep_bench=5 bb_tuned=16,32,64,128 ts_tuned=64,128,256 bb_v8=32,64,128 ts_v8=128,256,512 bb_host=16,32,64 ig_host=64,128,256
fi
path=v0-collapse3,v1-reciprocal,v2-branch2,v3-noabs,v4-collapse2,v5-iw-outside,v6-blocked,v7-swapped,v8-bounded,tuned
R=$stage/roofline S=$stage/sweeps M=$stage/measurements

# Ceilings of the GPU and of the host cores.
step "$gpp" ceilings --space device --json "$R/ceilings-$tag.json"
step "$gpp" ceilings --space host --json "$R/ceilings-$tag-host.json"
# The paper's path on si214: times, counted and profiled FLOPs, bytes; its charts.
step "$gpp" roofline inputs/si214.toml --policy "$path" --space device --repeat $rep --tuning none \
  --ncu "$ncu" --ceilings "$R/ceilings-$tag.json" --csv "$R/roofline-si214-$tag.csv"
step plot path --csv "$R/roofline-si214-$tag.csv" --ceilings "$R/ceilings-$tag.json" --out "$R/path-si214-$tag" --formats png,svg
step plot times --csv "$R/roofline-si214-$tag.csv" --paper --out "$R/times-si214-$tag" --formats png,svg
for p in tuned v8-bounded v0-collapse3; do
  step plot roofline --csv "$R/roofline-si214-$tag.csv" --ceilings "$R/ceilings-$tag.json" --policy $p \
    --out "$R/roofline-$p-si214-$tag" --formats png,svg
done
# Every policy on both decks, verified: the GPU steps and tuned, and host on the CPU cores.
for deck in si214 miniapp-benchmark; do
  short=${deck%-benchmark}
  step "$gpp" bench inputs/$deck.toml --policies "$path" --space device --repeat $rep_bench --tuning none \
    --csv "$M/bench-$short-$tag.csv"
  step "$gpp" bench inputs/$deck.toml --policies host --space host --repeat $rep --tuning none \
    --csv "$M/bench-$short-$tag-host.csv"
done
# Tile sweeps, their tuning file and charts.
step "$gpp" sweep inputs/si214.toml --policy tuned --band-block $bb_tuned --team-size $ts_tuned --repeat $rep \
  --csv "$S/sweep-si214-tuned-$tag.csv" --tuning-out "$S/tuning-$tag.json"
step "$gpp" sweep inputs/si214.toml --policy v8-bounded --band-block $bb_v8 --team-size $ts_v8 --repeat $rep \
  --csv "$S/sweep-si214-v8-$tag.csv"
step "$gpp" sweep inputs/miniapp-benchmark.toml --policy tuned --band-block $bb_tuned --team-size $ts_tuned \
  --repeat $rep --csv "$S/sweep-miniapp-tuned-$tag.csv" --tuning-out "$S/tuning-$tag.json"
step "$gpp" sweep inputs/miniapp-benchmark.toml --policy host --space host --band-block $bb_host --ig-block $ig_host \
  --repeat 1 --warmup 0 --csv "$S/sweep-miniapp-host-$tag.csv" --tuning-out "$S/tuning-$tag.json"
for s in si214-tuned:tuned si214-v8:v8-bounded miniapp-tuned:tuned miniapp-host:host; do
  name=${s%%:*} policy=${s#*:}
  step plot sweep-heatmap --csv "$S/sweep-$name-$tag.csv" --policy $policy --out "$S/heatmap-$name-$tag"
done
step plot sweep-lines --csv "$S/sweep-si214-tuned-$tag.csv" --policy tuned --out "$S/lines-si214-tuned-$tag"

# docs/results.md: provenance, the commands above, every table, every chart.
{
  echo "# Results: every measured chart and table, regenerated"
  echo
  echo "Written by \`tools/regenerate-docs.sh\` (do not edit by hand: rerun it). gpp $head,"
  echo "$(date -u +%Y-%m-%d), $(sed -n 's/^gpp //p' <<<"$version"), $kokkos_line."
  echo "Device: $(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["device"]["name"])' "$R/ceilings-$tag.json")."
  echo "Host: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //'), $(nproc) cores visible, OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}, OMP_PROC_BIND=$OMP_PROC_BIND, OMP_PLACES=$OMP_PLACES."
  [ $quick = 1 ] && { echo; echo "**A --quick run: one repeat per point and small grids; the numbers are rough.**"; }
  echo
  echo "## Regenerating"
  echo
  echo "On a machine with the GPU, from a clean checkout of the commit to measure, with a build"
  echo "of it (CUDA or HIP, and OpenMP on the host):"
  echo
  echo '```sh'
  echo "tools/regenerate-docs.sh build/<preset>/app/gpp $tag"
  echo '```'
  echo
  echo "It ran these commands (paths relative to docs/), in $((SECONDS - t0)) s:"
  echo
  echo '```sh'
  cat "$commands"
  echo '```'
  for section in "roofline:The paper's path on si214 (roofline/)" "measurements:Every policy, both decks (measurements/)" \
                 "sweeps:Tile sweeps (sweeps/)"; do
    dir=${section%%:*}
    echo; echo "## ${section#*:}"
    for csv in "$stage/$dir"/*.csv; do
      echo; python3 "$checkout/tools/gpp_plot.py" table --csv "$csv"
    done
    for png in "$stage/$dir"/*.png; do
      echo; echo "![$(basename "$png" .png)]($dir/$(basename "$png"))"
    done
  done
} >"$stage/results.md" || die "writing results.md failed"

# Everything passed: move into place.
written=()
for dir in roofline sweeps measurements; do
  mkdir -p "$out/$dir"
  for f in "$stage/$dir"/*; do
    mv -f "$f" "$out/$dir/"; written+=("$dir/$(basename "$f")")
  done
done
mv -f "$stage/results.md" "$out/results.md"
echo "regenerate-docs: ${#written[@]} files and results.md written into $out in $((SECONDS - t0)) s (gpp $head)"
old=()
for dir in roofline sweeps measurements; do
  for f in "$out/$dir"/*; do
    rel=$dir/$(basename "$f")
    [[ " ${written[*]} " == *" $rel "* ]] || old+=("$rel")
  done
done
[ ${#old[@]} -eq 0 ] || echo "regenerate-docs: not written by this run (older): ${old[*]}"
