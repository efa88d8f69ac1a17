#!/usr/bin/env bash
# spack install of this checkout's environment (spack.yaml), CPU variant, with no network:
# sources come from a local mirror only. Then `spack test run gpp`. docs/spack.md says how
# to use it; docs/lab/spack.md has runs and their times.
#
#   scripts/spack-offline.sh [options] SPACK_CHECKOUT PACKAGES_REPO MIRROR [NAME@VERSION=TARBALL ...]
#
#   SPACK_CHECKOUT  a spack 1.x tree (tested: 1.1.1)
#   PACKAGES_REPO   a spack-packages tree (tested: v2026.06.0); its repos/spack_repo/builtin
#                   is the builtin repository
#   MIRROR          a spack source mirror directory (made if missing); spack 1.x finds a
#                   source there only by content: MIRROR/_source-cache/archive/<2 hex>/<sha256>.tar.gz
#   NAME@VERSION=TARBALL  put TARBALL into MIRROR where spack looks for NAME@VERSION (its
#                   sha256 as the package lists it); the tarball must have that sha256,
#                   except compiler-wrapper's (a release asset that `git archive` does not
#                   reproduce: installed with --no-checksum). Every tarball is checked
#                   first, before anything is built: a wrong one stops the script in one line.
# Options:
#   --work DIR        spack's configuration, caches, stage and install tree (default:
#                     ${TMPDIR:-/tmp}/gpp-spack-offline); nothing is written elsewhere except
#                     the develop build directory spack-build-<hash>/ in this checkout
#   --clingo-src DIR  build clingo's Python module from this source tree (clingo 5.8.0:
#                     4 min on 2 cores) into --work, unless --work has it already; without
#                     it, `import clingo` must work in /usr/bin/python3
#   --jobs N          build jobs (default: nproc)
#   --no-test         skip `spack test run gpp`
#
# Needs (Debian 12 names): python3 python3-dev python3-cffi-backend (clingo's Python module
# loads it) gcc g++ make cmake git patch tar gzip bzip2
# xz-utils unzip file ca-certificates, and as spack externals (never built): cmake, gmake,
# libhdf5-dev (hdf5 ~mpi), libcli11-dev (cli11), nlohmann-json3-dev (nlohmann-json),
# googletest (googletest). Sources in
# MIRROR: kokkos and kokkos-kernels at the versions spack.yaml requires (4.7.00) and
# compiler-wrapper 1.1.0. The spec built is spack.yaml's gpp spec with +cuda cuda_arch=70
# replaced by ~cuda; everything else (requirements, develop spec, view) as in spack.yaml.
set -euo pipefail
checkout=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "spack-offline: $*" >&2; exit 1; }
t0=$SECONDS
stamp() { local s=$((SECONDS - t0)); printf '%dm%02ds' $((s / 60)) $((s % 60)); }
step() { printf '\n== spack-offline [%s] %s\n' "$(stamp)" "$*"; }

work=${TMPDIR:-/tmp}/gpp-spack-offline clingo_src= jobs=$(nproc) test=1 args=()
while [ $# -gt 0 ]; do
  case $1 in
    --work) work=${2:?}; shift 2 ;;
    --clingo-src) clingo_src=${2:?}; shift 2 ;;
    --jobs) jobs=${2:?}; shift 2 ;;
    --no-test) test=; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1" ;;
    *) args+=("$1"); shift ;;
  esac
done
[ ${#args[@]} -ge 3 ] || die "usage: scripts/spack-offline.sh [options] SPACK_CHECKOUT PACKAGES_REPO MIRROR [NAME@VERSION=TARBALL ...] (--help)"
spack_root=$(cd "${args[0]}" && pwd) || die "no spack checkout ${args[0]}"
packages=$(cd "${args[1]}" && pwd) || die "no package repository ${args[1]}"
mkdir -p "${args[2]}" "$work"
mirror=$(cd "${args[2]}" && pwd)
work=$(cd "$work" && pwd)
sources=("${args[@]:3}")
[ -x "$spack_root/bin/spack" ] || die "$spack_root/bin/spack: missing"
builtin=$packages/repos/spack_repo/builtin
[ -f "$builtin/repo.yaml" ] || die "$builtin/repo.yaml: missing (a spack-packages tree?)"

# Every tarball against the sha256 its package lists, before anything is built: a tarball
# with other bytes would otherwise stop spack at its fetch, after clingo and the compilers
# (minutes to an hour in). The listed sha256 is read from the package files themselves
# (version("V", sha256="...") in packages/<name>/package.py), without spack.
command -v python3 >/dev/null || die "missing: python3"
listed_sha256() {  # listed_sha256 NAME VERSION: version("VERSION", sha256=...) of NAME's package.py
  python3 - "$builtin/packages" "$1" "$2" <<'PY'
import ast, os, sys
root, name, version = sys.argv[1:]
for d in (name.replace("-", "_"), name):
    path = os.path.join(root, d, "package.py")
    if os.path.isfile(path):
        break
else:
    sys.exit(f"no package {name} in {root}")
for node in ast.walk(ast.parse(open(path, encoding="utf-8").read(), path)):
    if (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "version" and node.args
            and isinstance(node.args[0], ast.Constant) and node.args[0].value == version):
        for kw in node.keywords:
            if kw.arg == "sha256" and isinstance(kw.value, ast.Constant):
                print(kw.value.value)
                sys.exit(0)
sys.exit(f"the {name} package ({path}) lists no sha256 for version {version}")
PY
}
nochecksum=() wants=()
for s in "${sources[@]}"; do
  spec=${s%%=*} tarball=${s#*=}
  [[ $s == *=* && $spec =~ ^[a-z0-9][a-z0-9-]*@[0-9A-Za-z._-]+$ ]] || die "'$s': expected NAME@VERSION=TARBALL"
  [ -f "$tarball" ] || die "$tarball: no such file"
  name=${spec%%@*} version=${spec#*@}
  want=$(listed_sha256 "$name" "$version" 2>&1) || die "$spec: $want"
  [[ $want =~ ^[0-9a-f]{64}$ ]] || die "$spec: the package lists '$want', not a sha256"
  have=$(sha256sum "$tarball" | cut -d' ' -f1)
  if [ "$want" != "$have" ]; then
    # compiler-wrapper's release asset is not `git archive`: installed with --no-checksum
    [ "$name" = compiler-wrapper ] ||
      die "$(basename "$tarball"): sha256 ${have:0:8}..., but the $name package lists ${want:0:8}... for $version (a tarball made with git archive is not the release asset: docs/spack.md, \"When a checksum differs\")"
    nochecksum+=("$spec")
  fi
  wants+=("$want")
done
for i in "${!sources[@]}"; do  # every tarball checked: into the mirror, under its listed sha256
  s=${sources[$i]} want=${wants[$i]}
  spec=${s%%=*} tarball=${s#*=}
  mkdir -p "$mirror/_source-cache/archive/${want:0:2}"
  cp "$tarball" "$mirror/_source-cache/archive/${want:0:2}/$want.tar.gz"
  note="sha256 $want"
  [[ " ${nochecksum[*]} " == *" $spec "* ]] && note="not the release asset: installed with --no-checksum"
  echo "mirror: $spec <- $(basename "$tarball") ($note)"
done

step "prerequisites"
missing=()
for c in python3 gcc g++ make cmake git patch tar gzip bzip2 xz unzip file h5cc; do
  command -v "$c" >/dev/null || missing+=("$c")
done
/usr/bin/python3 -c 'import _cffi_backend' 2>/dev/null || missing+=("python3-cffi-backend")
[ -f /usr/include/CLI/CLI.hpp ] || missing+=("CLI11 headers (libcli11-dev)")
[ -f /usr/include/gtest/gtest.h ] || missing+=("GoogleTest (googletest, libgtest-dev)")
[ -f /usr/include/nlohmann/json.hpp ] || missing+=("nlohmann/json (nlohmann-json3-dev)")
[ ${#missing[@]} -eq 0 ] || die "missing: ${missing[*]}"
py=/usr/bin/python3
echo "python $($py --version 2>&1), $(gcc --version | head -n1), $(cmake --version | head -n1), $(nproc) cores, $jobs jobs"

# clingo, the concretizer's solver, as a Python module (bootstrapping is off: no network).
clingo_py=$work/clingo/python
if ! PYTHONPATH=$clingo_py $py -c 'import clingo' 2>/dev/null; then
  if [ -n "$clingo_src" ]; then
    step "building clingo's Python module from $clingo_src"
    s=$SECONDS
    cmake -S "$clingo_src" -B "$work/clingo-build" -DCMAKE_BUILD_TYPE=Release \
      -DCLINGO_BUILD_WITH_PYTHON=ON -DCLINGO_BUILD_APPS=OFF -DCLINGO_BUILD_WITH_LUA=OFF \
      -DCLINGO_BUILD_TESTS=OFF -DPython_EXECUTABLE=$py -DCMAKE_INSTALL_PREFIX="$work/clingo" \
      -DPYCLINGO_INSTALL_DIR="$clingo_py" >"$work/clingo-build.log" 2>&1 &&
      make -C "$work/clingo-build" -j"$jobs" install >>"$work/clingo-build.log" 2>&1 ||
      { tail -n 30 "$work/clingo-build.log"; die "clingo build failed ($work/clingo-build.log)"; }
    echo "clingo built in $((SECONDS - s)) s"
  elif $py -c 'import clingo' 2>/dev/null; then
    clingo_py=
  else
    die "no clingo Python module: give --clingo-src DIR (clingo 5.8 sources)"
  fi
fi
v=$(PYTHONPATH=$clingo_py $py -c 'import clingo; print(clingo.__version__)') || die "clingo does not import"
echo "clingo $v"

# spack sees only what is configured here (user and system scopes under --work), no network.
export SPACK_PYTHON=$py SPACK_SYSTEM_CONFIG_PATH=$work/system-config
export SPACK_USER_CONFIG_PATH=$work/config SPACK_USER_CACHE_PATH=$work/cache
export PYTHONPATH=$clingo_py${PYTHONPATH:+:$PYTHONPATH}
unset SPACK_ENV
spack() { "$spack_root/bin/spack" "$@"; }
mkdir -p "$work/config"
cat >"$work/config/config.yaml" <<EOF
config:
  install_tree:
    root: $work/opt
  build_stage: [$work/stage]
  test_stage: $work/test-stage
  source_cache: $work/source-cache
  misc_cache: $work/cache/misc
  build_jobs: $jobs
EOF
cat >"$work/config/bootstrap.yaml" <<EOF
bootstrap:
  enable: false
EOF
cat >"$work/config/repos.yaml" <<EOF
repos::
  builtin: $builtin
EOF
cat >"$work/config/mirrors.yaml" <<EOF
mirrors::
  local:
    url: file://$mirror
    binary: false
EOF
pkgver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null | sed -e 's/^[0-9]*://' -e 's/[+~-].*//'; }
cli11_v=$(pkgver libcli11-dev) gtest_v=$(pkgver googletest) json_v=$(pkgver nlohmann-json3-dev)
[ -n "$cli11_v" ] || cli11_v=$(sed -n 's/^#define CLI11_VERSION "\(.*\)"/\1/p' /usr/include/CLI/Version.hpp)
[ -n "$gtest_v" ] || die "cannot tell GoogleTest's version (dpkg-query googletest)"
[ -n "$json_v" ] || die "cannot tell nlohmann/json's version (dpkg-query nlohmann-json3-dev)"
cat >"$work/config/packages.yaml" <<EOF
packages:
  cli11:
    buildable: false
    externals:
    - spec: "cli11@$cli11_v"
      prefix: /usr
  googletest:
    buildable: false
    externals:
    - spec: "googletest@$gtest_v"
      prefix: /usr
  nlohmann-json:
    buildable: false
    externals:
    - spec: "nlohmann-json@$json_v"
      prefix: /usr
EOF

step "spack $(spack --version): compilers and externals"
spack compiler find --scope user | sed -n '1,6p'
spack external find --scope user --not-buildable cmake gmake hdf5 2>&1 | tail -n 6
spack config get packages | grep -E -- '- spec:' | sed 's/^ */  external /'

# The environment: spack.yaml with the CPU spec and absolute paths.
env=$work/env
mkdir -p "$env"
$py - "$checkout/spack.yaml" "$env/spack.yaml" "$checkout" <<'EOF'
import sys
src, dst, checkout = sys.argv[1:]
text = open(src, encoding="utf-8").read()
edits = [
    ('+cuda cuda_arch=70', '~cuda'),
    ('gpp: spack/spack_repo/gpp', 'gpp: ' + checkout + '/spack/spack_repo/gpp'),
    ('path: .\n', 'path: ' + checkout + '\n'),
]
for old, new in edits:
    if text.count(old) != 1:
        sys.exit("spack-offline: spack.yaml: expected one '%s'" % old.strip())
    text = text.replace(old, new)
open(dst, "w", encoding="utf-8").write(text)
EOF
grep -E '^  - |path:|gpp:' "$env/spack.yaml" | sed 's/^/  /'

if [ ${#nochecksum[@]} -gt 0 ]; then
  step "spack install --no-checksum ${nochecksum[*]}"
  spack install --no-checksum "${nochecksum[@]}" 2>&1 | tail -n 3
fi

step "spack concretize"
s=$SECONDS
spack -e "$env" concretize --fresh --force >"$work/concretize.log" 2>&1 ||
  { tail -n 40 "$work/concretize.log"; die "concretization failed ($work/concretize.log)"; }
echo "concretized in $((SECONDS - s)) s"
grep -E ' \^?(gpp|kokkos|kokkos-kernels|hdf5|cli11|nlohmann-json|googletest|cmake|gmake|gcc|gcc-runtime|compiler-wrapper)@' "$work/concretize.log" |
  sed -e 's/^[ -]*\(\[.\]\)\{0,1\} *//' -e 's/ *\(cflags\|arch\|build_system\|patches\)=.*//' | sort -u -k2 | head -n 16

step "spack install (log: $work/install.log)"
s=$SECONDS
rc=0
spack -e "$env" install --fail-fast >"$work/install.log" 2>&1 || rc=$?
grep -E '^\[\+\]|^==> (Installing|Error)|^==> [a-z0-9-]+: Successfully|Total:' "$work/install.log" | sed "s|$work|\$WORK|g" || true
[ $rc -eq 0 ] || { tail -n 40 "$work/install.log"; die "spack install failed ($work/install.log)"; }
echo "installed in $((SECONDS - s)) s"
gpp=$(spack -e "$env" location -i gpp)/bin/gpp
OMP_PROC_BIND=false "$gpp" --version

if [ -n "$test" ]; then
  step "spack test run gpp (log: $work/test.log)"
  s=$SECONDS
  rc=0
  spack -e "$env" test remove -y gpp-offline >/dev/null 2>&1 || true  # a rerun reuses the alias
  spack -e "$env" test run --alias gpp-offline gpp >"$work/test.log" 2>&1 || rc=$?
  out=$(ls -t "$work"/test-stage/*/gpp-*-test-out.txt 2>/dev/null | head -n 1)
  [ -n "$out" ] && grep -hE '^(PASSED|FAILED|SKIPPED): |^==> .* test: ' "$out" | sed 's/^==> \[[^]]*\] /  /' >>"$work/test.log"
  grep -E 'passed of|failed|^  test: |^(PASSED|FAILED|SKIPPED): ' "$work/test.log" || true
  [ $rc -eq 0 ] && grep -qE '[0-9]+ passed of [0-9]+ spec' "$work/test.log" &&
    grep -q '^PASSED: ' "$work/test.log" && ! grep -qE '^FAILED: |[0-9]+ failed' "$work/test.log" ||
    { tail -n 40 "$work/test.log"; die "spack test run gpp did not pass ($work/test.log)"; }
  echo "tests ran in $((SECONDS - s)) s"
fi
step "done: $gpp"
