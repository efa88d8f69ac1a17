#!/usr/bin/env bash
# Regenerate every measured chart and table under docs/ (roofline/, sweeps/, measurements/
# and docs/results.md) from one gpp binary on one machine with a GPU. The binary must be
# built from this checkout's HEAD with no tracked file changed, so that every CSV, JSON,
# chart footer and table carries a clean git hash (docs/results.md, "Regenerating").
#
#   scripts/regenerate-docs.sh [options] GPP TAG
#
#   GPP   a gpp binary of this checkout's HEAD (its `gpp --version` says `git HEAD`, not
#         -dirty), built with a GPU backend (CUDA or HIP) and the OpenMP host space
#   TAG   the machine's short name in file names, e.g. h100 (letters, digits, -)
# Options:
#   --out DIR     write DIR/roofline, DIR/sweeps, DIR/measurements and DIR/results.md
#                 (default: this checkout's docs/)
#   --ncu WHAT    gpp roofline --ncu: auto (default), off, or ncu's path
#   --steps LIST  only these of ceilings,roofline,bench,sweeps (default: all four); the
#                 roofline step needs the ceilings of this TAG (this run's or DIR's). For a
#                 machine taken by the hour: the roofline step profiles ten policies with
#                 Nsight Compute (6 min on an H100), the others take about 5 min
#   --quick       small repeats and grids (a check of the script itself: the numbers are
#                 rough, and results.md says so)
#
# Everything is written into a staging folder inside DIR first; only when every step has
# passed are the files moved into place (each replaces the file of its name). A failed
# step leaves DIR as it was. Each step also writes the commands it ran (DIR/roofline/
# commands-TAG.sh and so on). results.md is then written from what DIR holds for TAG: the
# tables of its CSVs, its charts, those commands, and a warning if they come from more than
# one commit. Files in DIR's three folders that are not TAG's are listed at the end.
# Needs python3 with matplotlib (tools/gpp_plot.py; GPP_PLOT_PYTHON names one). OMP_NUM_THREADS, OMP_PROC_BIND and
# OMP_PLACES are used as set (default: spread over threads, every core).
set -euo pipefail
checkout=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "regenerate-docs: $*" >&2; exit 1; }

out=$checkout/docs ncu=auto quick=0 steps=ceilings,roofline,bench,sweeps args=()
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    --ncu) ncu=${2:?--ncu needs a value}; shift 2 ;;
    --quick) quick=1; shift ;;
    --steps) steps=${2:?--steps needs a list}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1 (--help)" ;;
    *) args+=("$1"); shift ;;
  esac
done
[ ${#args[@]} -eq 2 ] || die "usage: scripts/regenerate-docs.sh [--out DIR] [--ncu auto|off|PATH] [--quick] GPP TAG (--help)"
gpp=${args[0]} tag=${args[1]}
for s in ${steps//,/ }; do
  [[ $s =~ ^(ceilings|roofline|bench|sweeps)$ ]] || die "--steps: unknown step '$s' (ceilings, roofline, bench, sweeps)"
done
want() { [[ ,$steps, == *,$1,* ]]; }
[[ $tag =~ ^[A-Za-z0-9][A-Za-z0-9-]*$ ]] || die "TAG '$tag': letters, digits and - only"
[ -f "$gpp" ] && [ -x "$gpp" ] || die "$gpp: not an executable file"
gpp=$(cd "$(dirname "$gpp")" && pwd)/$(basename "$gpp")
[ -d "$out" ] || die "--out $out: not a folder"
out=$(cd "$out" && pwd)

# Provenance: the checkout is clean and the binary is its HEAD.
git -C "$checkout" rev-parse --git-dir >/dev/null 2>&1 || die "$checkout is not a git checkout"
# Tracked files must be HEAD's, except what this script writes (an earlier --steps run's).
changed=$(git -C "$checkout" diff --name-only HEAD -- | grep -v -E "^docs/(roofline|sweeps|measurements)/|^docs/results\.md$" || true)
[ -z "$changed" ] || die "tracked files differ from HEAD in $checkout ($(echo $changed | cut -c1-200)): commit them first"
head=$(git -C "$checkout" rev-parse --short=12 HEAD)
version=$("$gpp" --version 2>&1) || die "$gpp --version failed: $version"
built=$(sed -n 's/^git //p' <<<"$version")
[ "$built" = "$head" ] || die "$gpp was built from git '$built', this checkout is at $head (rebuild it from this checkout)"
kokkos_line=$(grep '^Kokkos ' <<<"$version") || die "$gpp --version names no Kokkos"
[[ $kokkos_line =~ (Cuda|HIP) ]] || die "$gpp has no GPU backend ($kokkos_line)"
[[ $kokkos_line =~ OpenMP ]] || die "$gpp has no OpenMP host space ($kokkos_line): the host charts need it"
py=
for c in ${GPP_PLOT_PYTHON:-} python3 /usr/bin/python3; do  # a pyenv or venv python3 often lacks matplotlib
  "$c" -c 'import matplotlib' 2>/dev/null && { py=$c; break; }
done
[ -n "$py" ] || die "no python3 that imports matplotlib (tools/gpp_plot.py; Debian: python3-matplotlib; or set GPP_PLOT_PYTHON)"
plot() { MPLBACKEND=Agg "$py" "$checkout/tools/gpp_plot.py" "$@" >/dev/null; }

export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
cd "$checkout"   # deck paths (inputs/) are relative to the checkout
stage=$(mktemp -d "$out/.regenerate-docs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
trap 'exit 130' INT; trap 'exit 143' TERM   # the EXIT trap removes the staging folder
mkdir "$stage/roofline" "$stage/sweeps" "$stage/measurements"
t0=$SECONDS
commands=
shown_dir=$out/   # how DIR is written in the commands: docs/ when it is this checkout's
[ "$out" != "$checkout/docs" ] || shown_dir=docs/
step() {  # step CMD...: run, echo and record the command (as run from the checkout) in $commands
  local shown=${*//$stage\//$shown_dir}; shown=${shown//$out\//$shown_dir}; shown=${shown//$gpp/gpp}
  shown=${shown/#plot /python3 tools/gpp_plot.py }
  printf '[%4ds] %s\n' $((SECONDS - t0)) "$shown"
  printf '%s\n' "$shown" >>"$commands"
  "$@" >>"$stage/log.txt" 2>&1 || { tail -n 20 "$stage/log.txt" >&2; die "failed: $shown"; }
}
begin() {  # begin FOLDER: the commands file of a step's folder, with its provenance
  commands=$stage/$1/commands-$tag.sh
  [ -f "$commands" ] && return 0
  printf '# %s, gpp %s on %s (scripts/regenerate-docs.sh; run from the checkout)\n' \
    "$(date -u +%Y-%m-%dT%H:%MZ)" "$head" "$tag" >"$commands"
  printf 'export OMP_NUM_THREADS=%s OMP_PROC_BIND=%s OMP_PLACES=%s\n' \
    "${OMP_NUM_THREADS:-$(nproc)}" "$OMP_PROC_BIND" "$OMP_PLACES" >>"$commands"
  # roofline/ is the ceilings' and the roofline's: a run of the roofline alone keeps the
  # ceilings' commands of the run that measured them
  if [ "$1" = roofline ] && ! want ceilings && [ -f "$out/roofline/commands-$tag.sh" ]; then
    { echo "# the ceilings read, as measured earlier:"; grep -E '^(# [0-9]{4}-|gpp ceilings )' "$out/roofline/commands-$tag.sh"; } >>"$commands"
  fi
}

# tuned's team sizes stop at 128: its kernels are compiled for at most 128 threads a team
# (their launch bounds), so a larger team is refused and would only fill the sweep with
# invalid points
if [ $quick = 1 ]; then
  rep=1 rep_bench=1 bb_tuned=32,96 ts_tuned=64,128 bb_v8=64 ts_v8=128,512 bb_host=32,64 ig_host=128,256
else
  rep=3 rep_bench=5 bb_tuned=16,32,64,96,128 ts_tuned=32,64,128 bb_v8=32,64,128 ts_v8=128,256,512 bb_host=16,32,64 ig_host=128,256,512,1024
fi
path=v0-collapse3,v1-reciprocal,v2-branch2,v3-noabs,v4-collapse2,v5-iw-outside,v6-blocked,v7-swapped,v8-bounded,tuned
R=$stage/roofline S=$stage/sweeps M=$stage/measurements

if want ceilings; then  # the GPU's and the host cores' ceilings
  begin roofline
  step "$gpp" ceilings --space device --json "$R/ceilings-$tag.json"
  step "$gpp" ceilings --space host --json "$R/ceilings-$tag-host.json"
fi
if want roofline; then  # the paper's path on si214: times, counted and profiled FLOPs, bytes
  begin roofline
  ceilings=$R/ceilings-$tag.json  # this run's, else those DIR holds (read there)
  [ -f "$ceilings" ] || ceilings=$out/roofline/ceilings-$tag.json
  [ -f "$ceilings" ] || die "no ceilings of $tag: add the ceilings step (--steps ceilings,roofline)"
  step "$gpp" roofline inputs/si214.toml --policy "$path" --space device --repeat $rep --tuning none \
    --ncu "$ncu" --ceilings "$ceilings" --csv "$R/roofline-si214-$tag.csv"
  step plot path --deck si214 --csv "$R/roofline-si214-$tag.csv" --ceilings "$ceilings" --out "$R/path-si214-$tag" --formats png,svg
  step plot times --deck si214 --csv "$R/roofline-si214-$tag.csv" --paper --out "$R/times-si214-$tag" --formats png,svg
  for p in tuned v8-bounded v0-collapse3; do
    step plot roofline --deck si214 --csv "$R/roofline-si214-$tag.csv" --ceilings "$ceilings" --policy $p \
      --out "$R/roofline-$p-si214-$tag" --formats png,svg
  done
fi
if want bench; then  # every policy on both decks, verified: the GPU steps and tuned; host on the CPU
  begin measurements
  for deck in si214 miniapp-benchmark; do
    short=${deck%-benchmark}
    step "$gpp" bench inputs/$deck.toml --policies "$path" --space device --repeat $rep_bench --tuning none \
      --csv "$M/bench-$short-$tag.csv"
    step "$gpp" bench inputs/$deck.toml --policies host --space host --repeat $rep --tuning none \
      --csv "$M/bench-$short-$tag-host.csv"
  done
fi
if want sweeps; then  # tile sweeps, their tuning file and charts
  begin sweeps
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
fi
[ $quick = 0 ] || for f in "$stage"/*/commands-"$tag".sh; do echo "# --quick: one repeat per point, small grids" >>"$f"; done

# Every step passed: move into place (each file replaces the one of its name).
written=0
for dir in roofline sweeps measurements; do
  mkdir -p "$out/$dir"
  for f in "$stage/$dir"/*; do
    [ -e "$f" ] || continue
    mv -f "$f" "$out/$dir/"; written=$((written + 1))
  done
done

# results.md from what DIR holds for TAG.
is_tagged() { case $(basename "$1") in *-"$tag".*|*-"$tag"-*) return 0 ;; esac; return 1; }
tagged() { local f; for f in "$out/$1"/*; do [ -e "$f" ] && is_tagged "$f" && echo "$f"; done; true; }
{
  echo "# Results on $tag: every measured chart and table"
  echo
  echo "Written by \`scripts/regenerate-docs.sh\` from the files in roofline/, measurements/ and"
  echo "sweeps/ whose names carry \`$tag\` (do not edit by hand: rerun the script). Each table"
  echo "names the commit that measured it; each folder's \`commands-$tag.sh\` has the commands,"
  echo "the date and the OpenMP settings."
  echo
  hashes=$("$py" - $(tagged roofline) $(tagged measurements) $(tagged sweeps) <<'PY' | sort -u
import csv, sys
for path in sys.argv[1:]:
    if path.endswith(".csv"):
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                print(row["git"])
PY
)
  if [ "$(grep -c . <<<"$hashes")" -gt 1 ]; then
    echo "**These files come from more than one commit:** $(echo $hashes | sed 's/ /, /g')."
  else
    echo "Every file: gpp $hashes."
  fi
  echo
  echo "Host: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //'), $(nproc) cores visible."
  echo
  echo "## Regenerating"
  echo
  echo "On a machine with the GPU, from a clean checkout of the commit to measure and a build of"
  echo "it with CUDA or HIP and OpenMP on the host (the CMake presets, docs/install.md):"
  echo
  echo '```sh'
  echo "scripts/regenerate-docs.sh build/<preset>/app/gpp $tag"
  echo '```'
  for section in "roofline:The paper's path on si214 (roofline/)" "measurements:Every policy on both decks (measurements/)" \
                 "sweeps:Tile sweeps (sweeps/)"; do
    dir=${section%%:*}
    echo; echo "## ${section#*:}"
    for f in $(tagged "$dir"); do
      case $f in
        *.csv) echo; "$py" "$checkout/tools/gpp_plot.py" table --csv "$f" ;;
        *.sh) echo; echo "\`$dir/$(basename "$f")\`:"; echo; echo '```sh'; cat "$f"; echo '```' ;;
      esac
    done
    for f in $(tagged "$dir"); do
      case $f in *.png) echo; echo "![$(basename "$f" .png)]($dir/$(basename "$f"))" ;; esac
    done
  done
} >"$stage/results.md" || die "writing results.md failed"
mv -f "$stage/results.md" "$out/results.md"
echo "regenerate-docs: $written files and results.md written into $out in $((SECONDS - t0)) s (gpp $head; steps $steps)"
others=()
for dir in roofline sweeps measurements; do
  for f in "$out/$dir"/*; do
    [ -e "$f" ] && ! is_tagged "$f" && others+=("$dir/$(basename "$f")")
  done
done
[ ${#others[@]} -eq 0 ] || echo "regenerate-docs: not $tag's (kept): ${others[*]}"
