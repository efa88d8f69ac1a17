#!/usr/bin/env bash
# The host policy's speed on one machine's CPUs, in one go: this tree's loops (the SIMD
# abstraction) against an older commit's, each built for the machine's own ISA (native:
# AVX-512 on the GPU machine's Intel host) and, this tree, for AVX2 (x86-64-v3); and
# Brookathon-GoT's OpenMP GPP (the peer) built for both ISAs. Interleaved rounds of whole
# decks, so that every binary sees the machine in the same states; a verified run of each
# deck first. Made to fit one device call of 10 minutes on 16 cores (docs/lab/cpu-host.md,
# "One SIMD abstraction", has the calls).
#
#   lab/host-simd-bench.sh --kokkos SRC --peer DIR [options]
#
#   --kokkos SRC     a Kokkos 4.x source tree (built once, OpenMP, installed in the work dir)
#   --peer DIR       the Brookathon-GoT checkout at 04862d0 (DIR/GPP/gpp.cpp and DIR/ComplexClass;
#                    its later commit 7bc2480 fails its own check on the host); needed only
#                    where --binaries names a peer
#   --old REV|DIR    the older gpp: a commit of this checkout (git archive) or a source tree
#                    (default: the merge base of HEAD with main)
#   --xsimd DIR      the folder holding xsimd/xsimd.hpp for this tree's builds (default:
#                    what CMake finds; without xsimd the loops would be portable packs and
#                    the script refuses, as that is not what is measured)
#   --out DIR        logs and the summary (default: $OUT, else ./host-simd-bench-out)
#   --work DIR       builds (default: a temporary folder, removed at the end)
#   --rounds N       interleaved rounds at most (default 3); a round is started only while
#                    --budget leaves time for it (the last round's length)
#   --budget S       seconds for the whole script (default 540)
#   --threads N      OMP_NUM_THREADS (default: the CPUs, nproc); OMP_PROC_BIND=spread
#                    OMP_PLACES=threads
#   --decks "A B"    deck files in inputs/ (default: "si214 miniapp-benchmark")
#   --peer-args "…"  the peer's arguments (default: "512 2 32768 20", the mini-app deck's sizes)
#   --binaries "A B" the binaries to build and time, of the five below (default: all five;
#                    e.g. "new-native old-native" for more rounds of the one comparison)
#   --no-verify      skip the verified runs (local tests of the script)
#   --jobs N         build jobs (default: nproc)
#
# Binaries: new-native, new-x86-64-v3 (this tree), old-native (--old), peer-native,
# peer-x86-64-v3. Each timed gpp run: `gpp run inputs/DECK.toml --policy host --space host
# --repeat 3 --tuning none --no-branch-stats --verify none` (its median); the peer: its own
# kernel timer, one run. The summary (OUT/summary.txt) has the medians over rounds and the
# ratios: new/old (native), x86-64-v3/native (new), mini-app deck / peer (same ISA).
set -euo pipefail
{ # read whole before it runs
here=$(cd "$(dirname "$0")/.." && pwd)
t0=$SECONDS
kokkos="" peer="" old="" xsimd="" out=${OUT:-} work="" rounds=3 budget=540 threads=$(nproc) jobs=$(nproc)
decks="si214 miniapp-benchmark" peer_args="512 2 32768 20" verify=1
all_binaries="new-native new-x86-64-v3 old-native peer-native peer-x86-64-v3" binaries=""
while (($#)); do
  case $1 in
    --kokkos) kokkos=${2:?}; shift 2 ;;
    --peer) peer=${2:?}; shift 2 ;;
    --old) old=${2:?}; shift 2 ;;
    --xsimd) xsimd=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --work) work=${2:?}; shift 2 ;;
    --rounds) rounds=${2:?}; shift 2 ;;
    --budget) budget=${2:?}; shift 2 ;;
    --threads) threads=${2:?}; shift 2 ;;
    --decks) decks=${2:?}; shift 2 ;;
    --peer-args) peer_args=${2:?}; shift 2 ;;
    --binaries) binaries=${2:?}; shift 2 ;;
    --no-verify) verify=0; shift ;;
    --jobs) jobs=${2:?}; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "host-simd-bench: unknown argument $1 (--help)" >&2; exit 1 ;;
  esac
done
die() { echo "host-simd-bench: $*" >&2; exit 1; }
[ -n "$kokkos" ] && [ -f "$kokkos/core/src/Kokkos_Core.hpp" ] || die "--kokkos SRC (a Kokkos source tree) is required"
[ -z "$xsimd" ] || [ -f "$xsimd/xsimd/xsimd.hpp" ] || die "--xsimd $xsimd holds no xsimd/xsimd.hpp"
for n in "$rounds" "$budget" "$threads" "$jobs"; do [[ $n =~ ^[1-9][0-9]*$ ]] || die "'$n' is not a positive integer"; done
for d in $decks; do [ -f "$here/inputs/$d.toml" ] || die "no deck inputs/$d.toml"; done
binaries=${binaries:-$all_binaries}
for b in $binaries; do [[ " $all_binaries " == *" $b "* ]] || die "--binaries: no binary '$b' (of: $all_binaries)"; done
wanted() { [[ " $binaries " == *" $1 "* ]]; }
if wanted peer-native || wanted peer-x86-64-v3; then
  [ -n "$peer" ] && [ -f "$peer/GPP/gpp.cpp" ] || die "--peer DIR (a Brookathon-GoT checkout with GPP/gpp.cpp) is required"
fi
kokkos=$(cd "$kokkos" && pwd)
[ -z "$peer" ] || peer=$(cd "$peer" && pwd)
[ -n "$xsimd" ] && xsimd=$(cd "$xsimd" && pwd)
out=${out:-$PWD/host-simd-bench-out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -z "$work" ]; then
  work=$(mktemp -d "${TMPDIR:-/tmp}/host-simd-bench.XXXXXX")
  trap 'rm -rf "$work"' EXIT
else
  mkdir -p "$work"
  work=$(cd "$work" && pwd)
fi
log=$out/bench.log
exec > >(tee -a "$log") 2>&1
stamp() { printf '[%4ds]' $((SECONDS - t0)); }
say() { echo "$(stamp) $*"; }
left() { echo $((budget - (SECONDS - t0))); }

# The older tree: a directory as given, or a commit of this checkout.
if [ -z "$old" ]; then
  old=$(git -C "$here" merge-base HEAD main 2>/dev/null) || die "--old: no merge base with main here; give a commit or a tree"
fi
if [ -d "$old" ]; then
  old_src=$(cd "$old" && pwd) old_name=$old
else
  rev=$(git -C "$here" rev-parse --verify "$old^{commit}") || die "--old $old is neither a directory nor a commit"
  old_src=$work/old-src old_name=${rev:0:12}
  mkdir -p "$old_src"
  git -C "$here" archive "$rev" | tar -x -C "$old_src"
fi
[ -f "$old_src/CMakePresets.json" ] || die "$old_src is no gpp source tree"

say "machine: $(nproc) CPUs, $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1); $(g++ --version | head -n 1)"
lscpu >"$out/lscpu.txt" 2>&1 || true
say "this tree $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$here" status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo ' (with changes)'), old $old_name"

# 1. Kokkos (OpenMP), once.
s=$SECONDS
cmake -S "$kokkos" -B "$work/kokkos-build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DKokkos_ENABLE_OPENMP=ON \
  -DCMAKE_INSTALL_PREFIX="$work/kokkos" >"$out/kokkos.log" 2>&1 &&
  cmake --build "$work/kokkos-build" -j "$jobs" >>"$out/kokkos.log" 2>&1 &&
  cmake --install "$work/kokkos-build" >>"$out/kokkos.log" 2>&1 || { tail -n 30 "$out/kokkos.log"; die "Kokkos build failed"; }
say "Kokkos built in $((SECONDS - s)) s"

# 2. gpp's openmp preset per binary: NAME SOURCE HOST_ARCH [CMAKE ARGS...]
build_gpp() {
  local name=$1 src=$2 arch=$3 s=$SECONDS
  shift 3
  (cd "$src" && cmake --preset openmp -B "$work/$name" -DCMAKE_PREFIX_PATH="$work/kokkos" -DGPP_HOST_ARCH="$arch" \
    -DGPP_ENABLE_TESTS=OFF -DGPP_ENABLE_KOKKOSKERNELS=OFF "$@" && cmake --build "$work/$name" -j "$jobs") \
    >"$out/build-$name.log" 2>&1 || { tail -n 30 "$out/build-$name.log"; die "gpp $name did not build"; }
  grep -E 'host ISA|host loops on xsimd' "$out/build-$name.log" | sed "s/^-- */  $name: /" || true
  say "gpp $name built in $((SECONDS - s)) s"
}
xsimd_args=(-DGPP_ENABLE_XSIMD=ON)
[ -n "$xsimd" ] && xsimd_args+=(-DGPP_XSIMD_INCLUDE_DIR="$xsimd")
gpps=""
if wanted new-native; then build_gpp new-native "$here" native "${xsimd_args[@]}"; gpps+=" new-native"; fi
if wanted new-x86-64-v3; then build_gpp new-x86-64-v3 "$here" x86-64-v3 "${xsimd_args[@]}"; gpps+=" new-x86-64-v3"; fi
if wanted old-native; then build_gpp old-native "$old_src" native; gpps+=" old-native"; fi

# 3. The peer per ISA (its own flags: -O3 -std=c++11 -fopenmp -march=...).
peers=""
for isa in native x86-64-v3; do
  wanted "peer-$isa" || continue
  peers+=" $isa"
  mkdir -p "$work/peer-$isa"
  g++ -O3 -std=c++11 -fopenmp -march=$isa "$peer/GPP/gpp.cpp" -o "$work/peer-$isa/gpp.ex" >"$out/build-peer-$isa.log" 2>&1 ||
    { tail -n 20 "$out/build-peer-$isa.log"; die "the peer did not build for $isa"; }
done
[ -z "$peers" ] || say "peer built ($peers )"

export OMP_NUM_THREADS=$threads OMP_PROC_BIND=spread OMP_PLACES=threads
run_gpp() {  # run_gpp BUILD DECK LOG VERIFY: the median time, or "fail"
  local t
  (cd "$here" && "$work/$1/app/gpp" run "inputs/$2.toml" --policy host --space host --repeat 3 --tuning none \
    --no-branch-stats --verify "$4") >"$3" 2>&1 || { echo fail; return 0; }
  t=$(grep -o 'time_median_s=[0-9.e+-]*' "$3" | tail -n 1 | cut -d= -f2)
  echo "${t:-fail}"
}
run_peer() {  # run_peer ISA LOG: the peer's kernel time, or "fail" (its own check: the log)
  local t
  # shellcheck disable=SC2086
  "$work/peer-$1/gpp.ex" $peer_args >"$2" 2>&1 || { echo fail; return 0; }
  t=$(sed -n 's/.*Kernel Time Taken \**= *\([0-9.e+-]*\).*/\1/p' "$2" | tail -n 1)
  echo "${t:-fail}"
}
peer_check() { grep -o 'SUCCESS\|FAILURE' "$1" | head -n 1 || echo "no check printed"; }

# 4. One verified run of each deck (this tree, native ISA), before the rounds.
if ((verify)) && wanted new-native; then
  for d in $decks; do
    s=$SECONDS
    t=$(run_gpp new-native "$d" "$out/verified-new-native-$d.log" auto)
    say "verified: new-native $d $t s ($(grep -o 'rel_error=[^ ]*\|verified=[^ ]*' "$out/verified-new-native-$d.log" | tr '\n' ' ')) in $((SECONDS - s)) s"
  done
fi

# 5. Interleaved rounds, while the budget leaves time for one more.
results=$out/results.tsv
printf 'round\tbinary\tdeck\ttime_s\n' >"$results"
last=0 r=0
while ((r < rounds)); do
  if ((r > 0 && $(left) < last + 10)); then
    say "round $((r + 1)) not started: $(left) s left, the last round took $last s"
    break
  fi
  r=$((r + 1)) s=$SECONDS
  for d in $decks; do
    for b in $gpps; do
      t=$(run_gpp "$b" "$d" "$out/r$r-$b-$d.log" none)
      printf '%d\t%s\t%s\t%s\n' "$r" "$b" "$d" "$t" >>"$results"
      say "round $r $d $b: $t s"
    done
  done
  for isa in $peers; do
    t=$(run_peer "$isa" "$out/r$r-peer-$isa.log")
    printf '%d\tpeer-%s\tpeer\t%s\n' "$r" "$isa" "$t" >>"$results"
    say "round $r peer-$isa ($peer_args): $t s (its check: $(peer_check "$out/r$r-peer-$isa.log"))"
  done
  last=$((SECONDS - s))
done

# 6. Medians over rounds and the ratios.
python3 - "$results" "$decks" >"$out/summary.txt" <<'EOF'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])][1:]
decks = sys.argv[2].split()
med = {}
for b, d in sorted({(r[1], r[2]) for r in rows}):
    ts = [float(r[3]) for r in rows if r[1] == b and r[2] == d and r[3] not in ("fail", "")]
    fails = sum(1 for r in rows if r[1] == b and r[2] == d and r[3] in ("fail", ""))
    if ts:
        med[b, d] = statistics.median(ts)
    print(f"{b:16s} {d:20s} median {med.get((b, d), float('nan')):8.3f} s over {len(ts)} rounds"
          f" (min {min(ts) if ts else float('nan'):.3f}, max {max(ts) if ts else float('nan'):.3f})"
          + (f", {fails} failed" if fails else ""))
def ratio(a, b, what):
    if a in med and b in med:
        print(f"{what}: {med[a] / med[b]:.3f}")
print()
for d in decks:
    ratio(("new-native", d), ("old-native", d), f"{d}: new / old (native)")
    ratio(("new-x86-64-v3", d), ("new-native", d), f"{d}: new x86-64-v3 / new native")
mini = "miniapp-benchmark"
if mini in decks:
    ratio(("new-native", mini), ("peer-native", "peer"), "mini-app: new native / peer native")
    ratio(("new-x86-64-v3", mini), ("peer-x86-64-v3", "peer"), "mini-app: new x86-64-v3 / peer x86-64-v3")
    ratio(("old-native", mini), ("peer-native", "peer"), "mini-app: old native / peer native")
EOF
echo
cat "$out/summary.txt"
say "done (logs: $out)"
exit 0
}
