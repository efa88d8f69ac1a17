#!/usr/bin/env bash
# Variants of a few source files built in one build folder and timed in interleaved rounds
# against the working tree's own (docs/dev/performance.md, "Compare in one call").
#
#   lab/variants.sh build BUILD_DIR OUT_DIR VARIANT_DIR...
#       Builds `gpp` in BUILD_DIR (configured already) from the working tree as it is, as
#       OUT_DIR/gpp-base, then once per VARIANT_DIR, as OUT_DIR/gpp-NAME (NAME: the folder's
#       name). A VARIANT_DIR holds files at their paths in the repository
#       (varE/session/gpp_fast_reference.cpp), each of which must exist in the tree; they
#       replace the tree's for that build only. Every file copied in or back is touched, so
#       that ninja compiles it again even where a kept build folder holds a newer object.
#       The tree's files are put back when the script ends, however it ends.
#   lab/variants.sh time OUT_DIR ROUNDS TAG -- GPP_ARGS...
#       ROUNDS rounds; in each, the binaries of the last build into OUT_DIR in turn (base
#       first) each run
#       `gpp GPP_ARGS --json OUT_DIR/records/ROUND.NAME.TAG.json`. Then
#       lab/variants_summary.py prints each binary's kernel medians and reference passes
#       and their ratios to base, round by round.
#
# Run from the repository's root. Bad input: one line on stderr, exit 2, nothing built.
set -uo pipefail
die() { echo "variants.sh: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || die "usage: lab/variants.sh build BUILD_DIR OUT_DIR VARIANT_DIR... | time OUT_DIR ROUNDS TAG -- GPP_ARGS..."

build() {
  [ $# -ge 3 ] || die "usage: lab/variants.sh build BUILD_DIR OUT_DIR VARIANT_DIR..."
  local bdir=$1 out=$2
  shift 2
  [ -f "$bdir/build.ninja" ] || die "$bdir/build.ninja: not found (configure the build with -G Ninja first)"
  command -v ninja >/dev/null || die "ninja not found"
  local v f rel names=()
  for v in "$@"; do
    [ -d "$v" ] || die "$v: not a directory"
    local name
    name=$(basename "$v")
    [[ $name =~ ^[A-Za-z0-9_-]+$ ]] || die "$v: a variant's folder name takes letters, digits, - and _"
    [ "$name" != base ] || die "$v: 'base' names the working tree's build"
    for n in "${names[@]}"; do [ "$n" != "$name" ] || die "$v: a second variant named $name"; done
    names+=("$name")
    local count=0
    while IFS= read -r -d '' f; do
      rel=${f#"$v"/}
      [ -f "$rel" ] || die "$f: $rel is not a file of the tree (run from the repository's root)"
      count=$((count + 1))
    done < <(find "$v" -type f -print0)
    [ $count -gt 0 ] || die "$v: no files"
  done
  mkdir -p "$out" || die "$out: cannot create"
  rm -f "$out/binaries"  # written again when every build has passed
  # the tree's files, put back at the end however the script ends (globals: the EXIT trap
  # runs after this function has returned)
  keep=$(mktemp -d) || die "no temporary folder"
  saved=()
  for v in "$@"; do
    while IFS= read -r -d '' f; do
      rel=${f#"$v"/}
      if [ ! -e "$keep/$rel" ]; then
        if ! { mkdir -p "$keep/$(dirname "$rel")" && cp -p "$rel" "$keep/$rel"; }; then die "$rel: cannot keep a copy"; fi
        saved+=("$rel")
      fi
    done < <(find "$v" -type f -print0)
  done
  put_back() {
    local r
    for r in "${saved[@]}"; do cp "$keep/$r" "$r" && touch "$r"; done
  }
  restore() {
    put_back
    rm -rf "$keep"
  }
  trap restore EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  local t0=$SECONDS
  echo "variants: building base (the working tree)"
  ninja -C "$bdir" gpp >"$out/build-base.log" 2>&1 || { tail -n 20 "$out/build-base.log" >&2; die "base: build failed ($out/build-base.log)"; }
  cp "$bdir/app/gpp" "$out/gpp-base" || die "$bdir/app/gpp: cannot copy"
  echo "variants: base built in $((SECONDS - t0)) s"
  for v in "$@"; do
    local name
    name=$(basename "$v")
    put_back
    while IFS= read -r -d '' f; do
      rel=${f#"$v"/}
      if ! { cp "$f" "$rel" && touch "$rel"; }; then die "$rel: cannot copy $f in"; fi
    done < <(find "$v" -type f -print0)
    t0=$SECONDS
    echo "variants: building $name"
    ninja -C "$bdir" gpp >"$out/build-$name.log" 2>&1 || { tail -n 20 "$out/build-$name.log" >&2; die "$name: build failed ($out/build-$name.log)"; }
    cp "$bdir/app/gpp" "$out/gpp-$name" || die "$bdir/app/gpp: cannot copy"
    cmp -s "$out/gpp-base" "$out/gpp-$name" && echo "variants: $name: the same binary as base (its files change nothing that is compiled)"
    echo "variants: $name built in $((SECONDS - t0)) s"
  done
  # what `time` runs: this build's binaries, not whatever an earlier build left in OUT_DIR
  printf '%s\n' base "${names[@]}" >"$out/binaries" || die "$out/binaries: cannot write"
}

timed() {
  if [ $# -lt 5 ] || [ "$4" != "--" ]; then die "usage: lab/variants.sh time OUT_DIR ROUNDS TAG -- GPP_ARGS..."; fi
  local out=$1 rounds=$2 tag=$3
  shift 4
  [[ $rounds =~ ^[1-9][0-9]*$ ]] || die "ROUNDS: a whole number of 1 or more, not '$rounds'"
  [[ $tag =~ ^[A-Za-z0-9_-]+$ ]] || die "TAG: letters, digits, - and _, not '$tag'"
  [ -f "$out/binaries" ] || die "$out/binaries: not found (lab/variants.sh build first)"
  local a
  for a in "$@"; do [ "$a" != --json ] || die "GPP_ARGS: --json is the script's"; done
  local bins=() b
  while IFS= read -r b; do
    [ -x "$out/gpp-$b" ] || die "$out/gpp-$b: not found (lab/variants.sh build again)"
    bins+=("$out/gpp-$b")
  done <"$out/binaries"
  mkdir -p "$out/records" || die "$out/records: cannot create"
  local r name rec files=()
  for ((r = 1; r <= rounds; r++)); do
    for b in "${bins[@]}"; do
      name=${b##*/gpp-}
      rec="$out/records/$r.$name.$tag.json"
      echo "variants: round $r of $rounds, $name: gpp $*"
      "$b" "$@" --json "$rec" >"$out/records/$r.$name.$tag.txt" 2>&1 || {
        tail -n 3 "$out/records/$r.$name.$tag.txt" >&2
        die "$name, round $r: gpp failed ($out/records/$r.$name.$tag.txt)"
      }
      files+=("$rec")
    done
  done
  python3 "$here/variants_summary.py" "${files[@]}"
}

mode=$1
shift
case $mode in
  build) build "$@" ;;
  time) timed "$@" ;;
  *) die "unknown mode '$mode' (build or time)" ;;
esac
