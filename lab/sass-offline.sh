#!/usr/bin/env bash
# The SASS of one source file of a CUDA build, on a machine without a GPU: the file is
# compiled again exactly as the build compiles it (Ninja's command for its object, Kokkos's
# launcher included) with nvcc --keep, its cubins disassembled, and the loops of its
# kernels summarised (lab/gpp_sass.py loops).
#
#   lab/sass-offline.sh BUILD_DIR SOURCE NVDISASM OUT_DIR [KERNEL_REGEX] [MIN MAX]
#
# BUILD_DIR: a CUDA build configured with the Ninja generator (cmake --preset
# cuda-hopper90 -G Ninja), run in the environment it was configured in (nvcc on PATH).
# SOURCE: a .cpp file the build compiles (policies/tuned.cpp). NVDISASM: an nvdisasm that
# knows every instruction of the code. For CUDA 13's sm_90 code the one of CUDA 12.4 does
# (Debian 13, non-free: `apt-get download nvidia-cuda-toolkit`, `dpkg-deb -x` it, take
# usr/bin/nvdisasm); the one of CUDA 11.8 (Debian 12) does not: it leaves out sm_90's
# VIADD, and gpp_sass.py then stops (exit 2) rather than misread the loops.
# OUT_DIR: new or empty; it receives the intermediate files, OUT_DIR/SOURCE.sass and
# OUT_DIR/loops.txt (loops of the functions matching KERNEL_REGEX, default all, of MIN..MAX
# instructions, default 100..400). Read a variant's SASS with it before spending GPU time
# on it (docs/dev/performance.md).
set -euo pipefail
die() { echo "sass-offline.sh: $*" >&2; exit 2; }
[ $# -ge 4 ] || die "usage: lab/sass-offline.sh BUILD_DIR SOURCE NVDISASM OUT_DIR [KERNEL_REGEX] [MIN MAX]"
build=$1 source=$2 nvdisasm=$3 out=$4 kernel=${5:-} low=${6:-100} high=${7:-400}
here=$(cd "$(dirname "$0")" && pwd)
py=$(command -v python3) || die "python3 not found"
[ -f "$build/build.ninja" ] || die "$build/build.ninja: not found (configure the CUDA build with -G Ninja first)"
command -v ninja >/dev/null || die "ninja not found"
[ -f "$source" ] || die "$source: no such file"
[ -x "$nvdisasm" ] && [ -f "$nvdisasm" ] || die "$nvdisasm: not an executable file"
[[ $low =~ ^[0-9]+$ && $high =~ ^[0-9]+$ ]] || die "MIN and MAX: whole numbers"
if [ -e "$out" ]; then
  [ -d "$out" ] || die "$out: exists and is not a directory"
  [ -z "$(ls -A "$out")" ] || die "$out: not empty (the intermediate files of another run would mix in)"
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
abs_source=$(cd "$(dirname "$source")" && pwd)/$(basename "$source")

# The build's own command for SOURCE's object, sent to OUT_DIR with nvcc's intermediate
# files kept there.
obj=$(ninja -C "$build" -t targets all | sed -n 's/^\(.*\.o\): .*/\1/p' |
      grep -F "/$(basename "$source").o" | grep -F "$(basename "$(dirname "$abs_source")")" | head -n 1) ||
  die "$source is not compiled by this build"
[ -n "$obj" ] || die "$source is not compiled by this build"
cmd=$(ninja -C "$build" -t commands "$obj" | tail -n 1)
case $cmd in *" -o $obj "*) ;; *) die "unexpected command for $obj: $cmd" ;; esac
printf 'cd %q && %s\n' "$(cd "$build" && pwd)" "${cmd/ -o $obj / -o $out/object.o --keep --keep-dir=$out }" >"$out/compile.sh"
bash "$out/compile.sh" >"$out/compile.log" 2>&1 || { tail -n 20 "$out/compile.log" >&2; die "compilation failed ($out/compile.log)"; }
cubins=("$out"/*.cubin)
[ -f "${cubins[0]}" ] || die "no cubin kept (is $build a CUDA build?)"
name=$(basename "$source")
: >"$out/$name.sass"
for c in "${cubins[@]}"; do
  "$nvdisasm" -c "$c" >>"$out/$name.sass" || die "$nvdisasm could not read $c"
done
"$py" "$here/gpp_sass.py" loops "$out/$name.sass" --kernel "$kernel" --min "$low" --max "$high" | tee "$out/loops.txt"
