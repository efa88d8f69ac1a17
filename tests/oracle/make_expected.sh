#!/bin/sh
# Regenerates the oracle's stored results, tests/oracle/<deck>.expected, from the decks
# tests/oracle/<deck>.toml (docs/oracle.md): `gpp convert` writes each deck's .dat (the
# generator is deterministic, so the .dat files are not stored), the Fortran oracle
# reads it, and its output is stored under a header saying how it was made.
#
# usage: tests/oracle/make_expected.sh [GPP]   (GPP: the gpp binary, default build/serial/app/gpp)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
gpp=${1:-$root/build/serial/app/gpp}
fc=${FC:-gfortran}
[ -x "$gpp" ] || { echo "make_expected.sh: no gpp binary at $gpp (build first, or pass its path)" >&2; exit 1; }
command -v "$fc" >/dev/null || { echo "make_expected.sh: no Fortran compiler '$fc' (set FC)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
# Flags: standard Fortran, no fast-math (quad-precision operations stay correctly rounded).
"$fc" -O2 -std=f2018 -o "$tmp/gpp_oracle" tests/oracle/gpp_oracle.f90

commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
# Uncommitted changes to what the results depend on (the oracle, the decks, the generator
# and the .dat writer) are named in the header.
dirty=$(git status --porcelain -- tests/oracle/gpp_oracle.f90 tests/oracle/*.toml core/gpp_input.cpp formats commands 2>/dev/null |
  awk '{printf "%s%s", sep, $2; sep=" "}')
fc_version=$("$fc" --version | head -n 1)
when=$(date -u +%Y-%m-%dT%H:%M:%SZ)

for deck in tests/oracle/*.toml; do
  name=$(basename "$deck" .toml)
  # A .dat file holds iw = 1..3 at most: a deck of frequencies beyond is written with
  # nend = 3 (the generator's data do not depend on nend) and the oracle is given the
  # deck's nstart..nend on its command line.
  nstart=$(sed -n 's/^nstart *= *\([-0-9]*\).*/\1/p' "$deck")
  nend=$(sed -n 's/^nend *= *\([-0-9]*\).*/\1/p' "$deck")
  convert_opts="" oracle_args=""
  if [ -n "$nend" ] && [ "$nend" -gt 3 ]; then
    [ -n "$nstart" ] && [ "$nstart" -ge 1 ] && [ "$nstart" -le 3 ] ||
      { echo "make_expected.sh: $deck: nend > 3 needs 1 <= nstart <= 3" >&2; exit 1; }
    convert_opts="--nend 3" oracle_args="$nstart $nend"
  fi
  # shellcheck disable=SC2086
  "$gpp" convert "$deck" "$tmp/$name.dat" --no-reference $convert_opts >/dev/null
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$tmp/gpp_oracle" "$tmp/$name.dat" $oracle_args >"$tmp/$name.out"
  seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  {
    echo "# Oracle results for $deck: made by tests/oracle/make_expected.sh (docs/oracle.md)."
    echo "# date: $when"
    echo "# git: $commit${dirty:+ (uncommitted changes to: $dirty)}"
    echo "# compiler: $fc_version"
    echo "# commands:"
    echo "#   $fc -O2 -std=f2018 -o gpp_oracle tests/oracle/gpp_oracle.f90"
    echo "#   gpp convert $deck $name.dat --no-reference${convert_opts:+ $convert_opts}"
    echo "#   gpp_oracle $name.dat${oracle_args:+ $oracle_args}"
    echo "# $name.dat: $(wc -c <"$tmp/$name.dat") bytes, sha256 $(sha256sum "$tmp/$name.dat" | cut -d' ' -f1)"
    echo "# tests/oracle/gpp_oracle.f90: sha256 $(sha256sum tests/oracle/gpp_oracle.f90 | cut -d' ' -f1)"
    echo "# oracle run time: $seconds s"
    cat "$tmp/$name.out"
  } >"tests/oracle/$name.expected"
  echo "wrote tests/oracle/$name.expected ($seconds s)"
done
