#!/usr/bin/env bash
# The release tarball of gpp and its sha256, as spack's package lists it (docs/spack.md,
# "Cutting a release").
#
#   scripts/release.sh VERSION [--ref REF] [--out DIR] [--mirror DIR] [--update-package]
#
# Writes DIR/gpp-VERSION.tar.gz (default DIR: the current directory) made by
#   git archive --format=tar.gz --prefix=gpp-VERSION/ REF      (REF default: vVERSION)
# and prints its sha256. The archive is a function of REF's commit alone (git's own gzip:
# git 2.38 or newer), so anyone can rebuild it from the tag and get the same checksum.
# Refuses when REF's CMakeLists.txt does not say project(gpp VERSION VERSION): `gpp
# --version` prints that number and the package's test checks it.
#   --mirror DIR       also store the tarball in spack's source-mirror layout under DIR
#                      (DIR/_source-cache/archive/<2 hex>/<sha256>.tar.gz): `spack mirror
#                      add NAME DIR` then serves it while the project has no public URL
#   --update-package   write the sha256 into spack/.../gpp/package.py's version(VERSION)
#   --dry-run          skip the CMakeLists.txt version check (to try the procedure on an
#                      untagged commit, e.g. --ref HEAD; not for a real release)
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "release: $*" >&2; exit 1; }

[ $# -ge 1 ] || die "usage: scripts/release.sh VERSION [--ref REF] [--out DIR] [--mirror DIR] [--update-package] [--dry-run]"
version=$1; shift
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "VERSION must be MAJOR.MINOR.PATCH, not '$version'"
ref=v$version out=. mirror= update= dry=
while [ $# -gt 0 ]; do
  case $1 in
    --ref) ref=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --mirror) mirror=${2:?}; shift 2 ;;
    --update-package) update=1; shift ;;
    --dry-run) dry=1; shift ;;
    *) die "unknown argument '$1'" ;;
  esac
done
commit=$(git rev-parse --verify --quiet "$ref^{commit}") || die "no commit '$ref' (tag it first: git tag -a v$version)"
declared=$(git show "$commit:CMakeLists.txt" | sed -n 's/^project(gpp VERSION \([0-9.]*\).*/\1/p')
[ "$declared" = "$version" ] || [ -n "$dry" ] ||
  die "$ref's CMakeLists.txt says project(gpp VERSION ${declared:-?}), not $version: bump it before tagging"

mkdir -p "$out"
tarball=$out/gpp-$version.tar.gz
git archive --format=tar.gz --prefix="gpp-$version/" "$commit" >"$tarball"
sha=$(sha256sum "$tarball" | cut -d' ' -f1)
[ "$(git archive --format=tar.gz --prefix="gpp-$version/" "$commit" | sha256sum | cut -d' ' -f1)" = "$sha" ] ||
  die "git archive gave two different tarballs (git $(git --version)): not reproducible here"
echo "$tarball  ($ref = ${commit:0:12}, git $(git --version | cut -d' ' -f3))"
echo "sha256 $sha"
echo "    version(\"$version\", sha256=\"$sha\")"

if [ -n "$mirror" ]; then
  dest=$mirror/_source-cache/archive/${sha:0:2}/$sha.tar.gz
  mkdir -p "$(dirname "$dest")"
  cp "$tarball" "$dest"
  echo "mirror: $dest"
fi
if [ -n "$update" ]; then
  pkg=spack/spack_repo/gpp/packages/gpp/package.py
  grep -q "version(\"$version\"" "$pkg" || die "$pkg has no version(\"$version\", ...) line: add it beside main"
  sed -i "s/version(\"$version\", sha256=\"[0-9a-f]*\")/version(\"$version\", sha256=\"$sha\")/" "$pkg"
  grep -q "version(\"$version\", sha256=\"$sha\")" "$pkg" || die "could not update $pkg"
  echo "updated $pkg"
fi
