#!/usr/bin/env bash
# Build one preset against an installed Kokkos (+ Kokkos Kernels), run the test suite,
# and run/benchmark decks; everything logged under OUTDIR. Used for the measurements in
# docs/lab/. It does not build Kokkos: pass its install in CMAKE_PREFIX_PATH.
#
#   scripts/device-run.sh PRESET OUTDIR STEP...
#   STEP: build | test | regs | run:DECK[:extra args] | bench:DECK[:extra args]
#   e.g. CMAKE_PREFIX_PATH=/opt/kokkos:/opt/kk scripts/device-run.sh cuda-hopper90 out build test \
#        "run:small:--policy all" "bench:si214:--repeat 5 --csv out/si214.csv"
set -uo pipefail
preset=$1
out=$2
shift 2
mkdir -p "$out"
bin=build/$preset/app/gpp
status=0
for step in "$@"; do
  name=${step%%:*}
  rest=${step#*:}
  [ "$rest" = "$step" ] && rest=""
  deck=${rest%%:*}
  extra=""
  [ "$rest" != "$deck" ] && extra=${rest#*:}
  t0=$(date +%s.%N)
  case $name in
    build)
      log=$out/build-$preset.log
      # shellcheck disable=SC2086
      { cmake --preset "$preset" -G Ninja -DCMAKE_PREFIX_PATH="${CMAKE_PREFIX_PATH:-}" ${GPP_CMAKE_ARGS:-} &&
        cmake --build --preset "$preset" -j "$(nproc)"; } >"$log" 2>&1
      rc=$? ;;
    test)
      log=$out/test-$preset.log
      ctest --preset "$preset" -j 4 >"$log" 2>&1
      rc=$? ;;
    regs)
      # Registers, stack, local memory (spills) of every kernel, from the binary.
      log=$out/regs-$preset.txt
      cuobjdump --dump-resource-usage "$bin" 2>&1 | c++filt >"$log"
      rc=$? ;;
    run|bench)
      log=$out/$name-$deck-$preset.log
      # shellcheck disable=SC2086
      "$bin" "$name" "inputs/$deck.toml" $extra >"$log" 2>&1
      rc=$? ;;
    *) echo "unknown step $step"; rc=1; log=/dev/null ;;
  esac
  t1=$(date +%s.%N)
  printf '%-60s rc=%d %6.1f s  %s\n' "$step" "$rc" "$(awk "BEGIN{print $t1 - $t0}")" "$log"
  tail -n 3 "$log" | sed 's/^/    /'
  [ $rc -ne 0 ] && status=1
done
exit $status
