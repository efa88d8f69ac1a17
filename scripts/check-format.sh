#!/usr/bin/env bash
# Which C++ sources differ from the layout .clang-format describes.
#
#   scripts/check-format.sh [--fix] [--clang-format EXE] [FILE...]
#
# FILE: C++ sources (default: every tracked *.cpp and *.hpp). Prints each file whose
# layout differs, with the number of lines that would change, and exits 1 when any does;
# exits 0 when none does. --fix rewrites them in place instead (clang-format -i) and exits 0.
# --clang-format: the clang-format to run (default: clang-format on PATH; the layout was
# tuned with Debian 12's clang-format 14, and other major versions may differ a little).
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "check-format: $*" >&2; exit 1; }

fix=0 exe=clang-format files=()
while [ $# -gt 0 ]; do
  case $1 in
    --fix) fix=1; shift ;;
    --clang-format) exe=${2:?--clang-format needs a path}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1 (--help)" ;;
    *) files+=("$1"); shift ;;
  esac
done
command -v "$exe" >/dev/null || die "no $exe (Debian: apt-get install clang-format)"
[ -f .clang-format ] || die "no .clang-format in $(pwd)"
if [ ${#files[@]} -eq 0 ]; then
  mapfile -t files < <(git ls-files '*.cpp' '*.hpp')
  [ ${#files[@]} -gt 0 ] || die "no tracked *.cpp or *.hpp (not a git checkout?)"
fi
for f in "${files[@]}"; do
  [ -f "$f" ] || die "$f: no such file"
done

if [ $fix = 1 ]; then
  "$exe" --style=file -i "${files[@]}"
  echo "check-format: ${#files[@]} file(s) formatted with $("$exe" --version | sed 's/.*version /clang-format /')"
  exit 0
fi
differ=0 lines=0
for f in "${files[@]}"; do
  n=$("$exe" --style=file "$f" | diff "$f" - | grep -c '^[<>]' || true)
  if [ "$n" -gt 0 ]; then
    printf '%s: %d lines\n' "$f" "$n"
    differ=$((differ + 1)) lines=$((lines + n))
  fi
done
if [ $differ -gt 0 ]; then
  echo "check-format: $differ of ${#files[@]} files differ from .clang-format ($lines lines): scripts/check-format.sh --fix" >&2
  exit 1
fi
echo "check-format: ${#files[@]} $([ ${#files[@]} = 1 ] && echo file matches || echo files match) .clang-format"
