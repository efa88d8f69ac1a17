#!/usr/bin/env bash
# The peers gpp is compared with, built and timed on this machine (docs/lab/peers.md): the
# mini-app deck `512 2 32768 20` with HeCBench's gpp-cuda (its kernel time: the mean of
# its 10 launches) and Brookathon-GoT's OpenMP GPP (its kernel timer). Their sources are
# not part of gpp: pass the folders that hold them.
#
#   lab/peers.sh [--cuda HECBENCH_GPP_CUDA_DIR] [--omp BROOKATHON_GPP_DIR] [--omp-arch ARCH] [--rounds N] OUTDIR
#   e.g. lab/peers.sh --cuda /src/HeCBench/src/gpp-cuda --omp /src/Brookathon-GoT/GPP "$OUT/peers"
# Prints one line per run: "peer NAME round K: SECONDS s (check passed|FAILED)"; the logs
# and the binaries' build lines go to OUTDIR. CUDA: nvcc -arch=sm_<this GPU's> -O3;
# OpenMP: g++ -O3 -fopenmp -march=ARCH (--omp-arch, default native; x86-64-v3 for the AVX2
# comparison), run with the caller's OMP_* settings.
set -uo pipefail
cuda="" omp="" omp_arch=native rounds=1
while [ $# -gt 1 ]; do
  case $1 in
    --cuda) cuda=$2; shift 2 ;;
    --omp) omp=$2; shift 2 ;;
    --omp-arch) omp_arch=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "peers.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ $# -eq 1 ] || { echo "usage: lab/peers.sh [--cuda DIR] [--omp DIR] [--omp-arch ARCH] [--rounds N] OUTDIR" >&2; exit 2; }
out=$1
mkdir -p "$out"
status=0
if [ -n "$cuda" ]; then
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')
  [ -n "$cc" ] || cc=90
  if nvcc -std=c++17 -O3 -arch="sm_$cc" -o "$out/hecbench-gpp" "$cuda/main.cu" >"$out/hecbench-build.log" 2>&1; then
    for k in $(seq "$rounds"); do
      # "benchmark" is 512 2 32768 20 with the check against its published result.
      "$out/hecbench-gpp" benchmark >"$out/hecbench-$k.log" 2>&1
      t=$(sed -n 's/^Average kernel execution time \([0-9.e+-]*\) (s)$/\1/p' "$out/hecbench-$k.log")
      ok=$(grep -q "Benchmark result: SUCCESS" "$out/hecbench-$k.log" && echo "check passed" || echo "check FAILED")
      echo "peer hecbench-gpp-cuda round $k: ${t:-?} s ($ok)"
    done
  else
    echo "peer hecbench-gpp-cuda: build failed (see $out/hecbench-build.log)"
    status=1
  fi
fi
if [ -n "$omp" ]; then
  if g++ -O3 -std=c++11 -fopenmp -march="$omp_arch" -o "$out/brookathon-gpp" "$omp/gpp.cpp" >"$out/brookathon-build.log" 2>&1; then
    for k in $(seq "$rounds"); do
      "$out/brookathon-gpp" 512 2 32768 20 >"$out/brookathon-$k.log" 2>&1
      t=$(grep -i "kernel" "$out/brookathon-$k.log" | grep -o '[0-9][0-9.]*' | tail -n 1)
      ok=$(grep -q "SUCCESS" "$out/brookathon-$k.log" && echo "check passed" || echo "check FAILED")
      echo "peer brookathon-gpp-omp ($omp_arch) round $k: ${t:-?} s ($ok)"
    done
  else
    echo "peer brookathon-gpp-omp: build failed (see $out/brookathon-build.log)"
    status=1
  fi
fi
exit $status
