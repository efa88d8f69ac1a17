#!/usr/bin/env python3
"""Checks the spack files (docs/spack.md) before spack ever reads them.

usage: spack_config_check.py SOURCE_DIR    check SOURCE_DIR/spack.yaml and the gpp package
       spack_config_check.py --yaml FILE   check only that spack.yaml-like FILE
       spack_config_check.py --self-test   the checker against known good and bad snippets

spack.yaml: every item of a `specs:` list and every `spec:` value must be a YAML string.
An unquoted `- cmake@3.24:` is a mapping ({"cmake@3.24": None}) and spack rejects the
whole environment. The file is read with a small parser for the block-style YAML subset
spack.yaml uses (no third-party module needed); anything outside that subset is an error.
When PyYAML is importable (Debian: python3-yaml) it reads the file too, as an independent
oracle, and both must find the same specs.

The package: package.py must compile, start with spack's license header, derive from
CMakePackage, CudaPackage and ROCmPackage, declare the openmp, hdf5, kokkos-kernels, mpi,
library, fortran and python variants and cuda_arch and amdgpu_target again as single-valued (the base classes' take
several, which Kokkos cannot honour), have a homepage, url, maintainers and license, the
versions main and a released one with a sha256, the stand-alone tests (test_version,
test_small_deck, test_installed_deck, and the library's test_library_cxx, _c, _fortran and
_python, each with a docstring), accept exactly the Kokkos
range that was tested (KOKKOS_RANGE), and every GPP_* CMake option it sets must be one the
project's CMake declares. The repository must be laid out as spack 1.x expects
(<...>/spack_repo/<namespace>/repo.yaml, packages/gpp/package.py).

spack.yaml's requirements must pin kokkos, kokkos-nvcc-wrapper and kokkos-kernels to one
release (spack's kokkos-kernels@V needs kokkos@V) of 4.7 or newer (Kokkos Kernels 4.6
crashes GCC 12 on AVX-512 targets), and each text scripts/spack-offline.sh replaces in
spack.yaml to get the CPU variant must occur exactly once.
Prints one line per problem and exits 1 when there is any.
"""
import ast
import os
import py_compile
import re
import sys
import tempfile

SPEC_LIST_KEYS = ("specs",)
SPEC_VALUE_KEYS = ("spec",)
REQUIRED_VARIANTS = ("openmp", "hdf5", "kokkos-kernels", "mpi", "cxxstd", "library", "fortran", "python")
SINGLE_VALUED = ("cuda_arch", "amdgpu_target")
REQUIRED_TESTS = ("test_version", "test_small_deck", "test_installed_deck", "test_library_cxx", "test_library_c",
                  "test_library_fortran", "test_library_python")
# The Kokkos releases gpp was built and tested with: 3.4 (Debian 12), 4.6, 4.7, 5.2.
KOKKOS_RANGE = "kokkos@3.4:5"
LICENSE_HEADER = (
    "# Copyright Spack Project Developers. See COPYRIGHT file for details.\n"
    "#\n"
    "# SPDX-License-Identifier: (Apache-2.0 OR MIT)\n"
)
MATCHED = ("kokkos", "kokkos-nvcc-wrapper", "kokkos-kernels")
# CMake options the package passes before the project reads them (none now).
PENDING_OPTIONS = set()

# YAML 1.1 (PyYAML) and 1.2 core plain scalars that are not strings.
_NOT_STRING = re.compile(
    r"""^(?:~|null|Null|NULL
        |y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF
        |[-+]?(?:0|[1-9][0-9_]*)
        |0o?[0-7_]+|0x[0-9a-fA-F_]+|0b[01_]+
        |[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+]?[0-9]+)?
        |[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+
        |[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)
        |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?)$""",
    re.VERBOSE,
)


class YamlSubsetError(Exception):
    pass


def _strip_comment(line):
    """The line without its comment (a # at the start or after a blank, outside quotes)."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in "\"'" and (i == 0 or line[i - 1] in " \t-:[{,"):
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip()
    return line.rstrip()


def scalar_kind(text):
    """'string' with its value, or the YAML kind of a one-line node that is not a string."""
    t = text.strip()
    if t == "":
        return "null", None
    if t[0] == '"':
        if len(t) < 2 or t[-1] != '"' or t.endswith('\\"'):
            raise YamlSubsetError(f"unterminated or multi-line double-quoted scalar {t}")
        return "string", t[1:-1]
    if t[0] == "'":
        if len(t) < 2 or t[-1] != "'":
            raise YamlSubsetError(f"unterminated or multi-line single-quoted scalar {t}")
        return "string", t[1:-1].replace("''", "'")
    if t[0] in "[{":
        return "flow collection", None
    if t[0] in "&*!|>%@`":
        raise YamlSubsetError(f"'{t[0]}' (anchor, alias, tag, block scalar or reserved) in {t}")
    if t.startswith("- ") or t == "-":
        return "sequence", None
    if t.endswith(":") or ": " in t or ":\t" in t:
        return "mapping", None
    if _NOT_STRING.match(t):
        return "non-string scalar", None
    return "string", t


def read_specs(text, name):
    """(specs, problems): each `specs:` item and `spec:` value as (line, kind, value)."""
    specs, problems = [], []
    stack = []  # (indent, key) of the mapping keys enclosing the current line
    prev_item = None  # (indent of the item's content) to catch continuation lines
    for lineno, raw in enumerate(text.splitlines(), 1):
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            problems.append(f"{name}:{lineno}: tab in indentation")
            continue
        line = _strip_comment(raw)
        if not line.strip() or line.strip() in ("---", "..."):
            continue
        indent = len(line) - len(line.lstrip())
        body = line.strip()
        if prev_item is not None and indent > prev_item:
            problems.append(f"{name}:{lineno}: a multi-line or nested list item: not a string")
            continue
        prev_item = None
        if body.startswith("- ") or body == "-":
            while stack and stack[-1][0] > indent:
                stack.pop()
            parent = stack[-1][1] if stack else None
            if parent in SPEC_LIST_KEYS:
                item = body[1:].strip()
                try:
                    kind, value = scalar_kind(item)
                except YamlSubsetError as e:
                    problems.append(f"{name}:{lineno}: {e}")
                    continue
                specs.append((lineno, kind, value))
                prev_item = indent + 1
            continue
        m = re.match(r"""^("[^"]*"|'[^']*'|[^\s"'#][^:#]*?)\s*:(?:\s+(.*))?$""", body)
        if not m:
            problems.append(f"{name}:{lineno}: not a block mapping or sequence line: {body}")
            continue
        key = m.group(1).strip("\"'")
        value = (m.group(2) or "").strip()
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if value:
            if key in SPEC_VALUE_KEYS or key in SPEC_LIST_KEYS:
                try:
                    kind, v = scalar_kind(value)
                except YamlSubsetError as e:
                    problems.append(f"{name}:{lineno}: {e}")
                    continue
                if key in SPEC_LIST_KEYS and kind != "flow collection":
                    problems.append(f"{name}:{lineno}: `{key}:` must be a list of specs")
                elif key in SPEC_LIST_KEYS:
                    problems.append(f"{name}:{lineno}: write `{key}:` as a block list (- \"spec\")")
                else:
                    specs.append((lineno, kind, v))
        else:
            stack.append((indent, key))
    for lineno, kind, value in specs:
        if kind != "string":
            problems.append(
                f"{name}:{lineno}: spec is a YAML {kind}, not a string: quote it (\"...\")"
            )
        elif not value.strip():
            problems.append(f"{name}:{lineno}: empty spec")
    return specs, problems


def pyyaml_specs(text):
    """The specs PyYAML finds (None when PyYAML is not importable)."""
    try:
        import yaml
    except ImportError:
        return None
    found = []

    def walk(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k in SPEC_LIST_KEYS and isinstance(v, list):
                    found.extend(v)
                elif k in SPEC_VALUE_KEYS and not isinstance(v, (dict, list)):
                    found.append(v)
                else:
                    walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(yaml.safe_load(text))
    return found


def check_yaml(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    name = os.path.basename(path)
    specs, problems = read_specs(text, name)
    if not specs and not problems:
        problems.append(f"{name}: no specs found")
    oracle = pyyaml_specs(text)
    if oracle is not None and not problems:
        mine = [v for _, _, v in specs]
        if mine != oracle:
            problems.append(f"{name}: PyYAML reads the specs as {oracle!r}, this checker as {mine!r}")
    return specs, problems, oracle is not None, text


def check_repo(source_dir, spack_yaml_text):
    problems = []
    m = re.search(r"^\s+(\w+):\s*(\S*spack_repo/\S+)\s*$", spack_yaml_text, re.M)
    if not m:
        return [f"spack.yaml: no `repos:` entry naming a spack_repo/<namespace> directory"]
    repo = os.path.normpath(os.path.join(source_dir, m.group(2)))
    namespace = os.path.basename(repo)
    repo_yaml = os.path.join(repo, "repo.yaml")
    if not os.path.isfile(repo_yaml):
        return [f"{repo_yaml}: missing"]
    with open(repo_yaml, encoding="utf-8") as f:
        ry = f.read()
    ns = re.search(r"^\s+namespace:\s*['\"]?([\w.]+)", ry, re.M)
    api = re.search(r"^\s+api:\s*['\"]?v(\d+)\.(\d+)", ry, re.M)
    if not ns or ns.group(1) != namespace:
        problems.append(f"{repo_yaml}: namespace must be '{namespace}' (its directory name)")
    if not api or int(api.group(1)) < 2:
        problems.append(f"{repo_yaml}: spack 1.x layout needs `api: v2.x`")
    package = os.path.join(repo, "packages", "gpp", "package.py")
    if not os.path.isfile(package):
        return problems + [f"{package}: missing"]
    problems += check_requirements(spack_yaml_text, "spack.yaml")
    problems += check_offline_edits(spack_yaml_text, "spack.yaml",
                                    os.path.join(source_dir, "scripts", "spack-offline.sh"))
    return problems + check_package(package, source_dir)


def _calls(cls, name):
    """The calls of NAME(...) anywhere in the class body."""
    return [n for n in ast.walk(cls) if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name) and n.func.id == name]


def _kw(call, key):
    for k in call.keywords:
        if k.arg == key:
            return k.value
    return None


def check_package_class(cls, where):
    """Problems of the Gpp class: bases, metadata, variants, versions, tests, Kokkos range."""
    problems = []
    bases = {b.id for b in cls.bases if isinstance(b, ast.Name)}
    for base in ("CMakePackage", "CudaPackage", "ROCmPackage"):
        if base not in bases:
            problems.append(f"{where}: class Gpp must derive from {base}")
    attrs = {}
    for node in cls.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            attrs[node.targets[0].id] = node.value
    for attr in ("homepage", "url"):
        v = attrs.get(attr)
        if not (isinstance(v, ast.Constant) and isinstance(v.value, str) and v.value.startswith("https://")):
            problems.append(f"{where}: `{attr}` must be an https:// string")
        elif "example.com" in v.value:
            problems.append(f"{where}: `{attr}` uses example.com, which spack audit rejects")
    for directive in ("maintainers", "license"):
        calls = _calls(cls, directive)
        if not calls or not calls[0].args:
            problems.append(f"{where}: no {directive}(...)")
    if not ast.get_docstring(cls):
        problems.append(f"{where}: class Gpp has no docstring")

    variants = {}
    for call in _calls(cls, "variant"):
        if call.args and isinstance(call.args[0], ast.Constant):
            variants[call.args[0].value] = call
    for v in REQUIRED_VARIANTS:
        if v not in variants:
            problems.append(f"{where}: no `{v}` variant")
    for v in SINGLE_VALUED:
        call = variants.get(v)
        multi = _kw(call, "multi") if call else None
        if not (isinstance(multi, ast.Constant) and multi.value is False):
            problems.append(f"{where}: `{v}` must be declared again with multi=False (one architecture)")

    versions = {}
    for call in _calls(cls, "version"):
        if call.args and isinstance(call.args[0], ast.Constant):
            versions[call.args[0].value] = call
    main = versions.get("main")
    if main is None or not isinstance(_kw(main, "branch"), ast.Constant):
        problems.append(f"{where}: no version(\"main\", branch=...)")
    released = [v for v in versions if re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", v)]
    if not released:
        problems.append(f"{where}: no released version (MAJOR.MINOR.PATCH) beside main")
    for v in released:
        sha = _kw(versions[v], "sha256")
        if not (isinstance(sha, ast.Constant) and re.fullmatch(r"[0-9a-f]{64}", str(sha.value))):
            problems.append(f"{where}: version(\"{v}\") needs sha256= 64 hex digits")

    methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
    for t in REQUIRED_TESTS:
        if t not in methods:
            problems.append(f"{where}: no stand-alone test {t}")
        elif not ast.get_docstring(methods[t]):
            problems.append(f"{where}: {t} has no docstring (spack audit requires one)")

    kokkos = [c.args[0].value for c in _calls(cls, "depends_on") if c.args
              and isinstance(c.args[0], ast.Constant) and isinstance(c.args[0].value, str)
              and re.match(r"kokkos@", c.args[0].value)]
    if kokkos != [KOKKOS_RANGE]:
        problems.append(f"{where}: the Kokkos range must be depends_on(\"{KOKKOS_RANGE}\") "
                        f"(what was tested), found {kokkos or 'none'}")
    return problems


def check_requirements(text, name):
    """kokkos, kokkos-nvcc-wrapper and kokkos-kernels required at one release, >= 4.7."""
    problems, found = [], {}
    for pkg in MATCHED:
        m = re.search(r"^    " + re.escape(pkg) + r":\n      require: ['\"]?@=?([0-9][0-9.]*)(?: [^'\"\n]*)?['\"]?\s*$", text, re.M)
        if not m:
            problems.append(f"{name}: packages: must require one version of {pkg} (require: \"@V\")")
        else:
            found[pkg] = m.group(1)
    if len(set(found.values())) > 1:
        problems.append(f"{name}: {', '.join(f'{p}@{v}' for p, v in found.items())}: not one release "
                        "(spack's kokkos-kernels@V needs kokkos@V)")
    for pkg, v in found.items():
        if tuple(int(x) for x in v.split(".")[:2]) < (4, 7):
            problems.append(f"{name}: {pkg}@{v}: Kokkos Kernels before 4.7 crashes GCC 12 on AVX-512 targets")
    return problems


def check_offline_edits(text, name, script):
    """Each text scripts/spack-offline.sh replaces must occur exactly once in spack.yaml."""
    if not os.path.isfile(script):
        return [f"{script}: missing"]
    with open(script, encoding="utf-8") as f:
        body = f.read()
    block = re.search(r"^edits = \[\n(.*?)^\]", body, re.M | re.S)
    olds = re.findall(r"^    \('((?:[^'\\]|\\.)*)', ", block.group(1), re.M) if block else []
    if not olds:
        return [f"{script}: no `edits = [('old', new), ...]` block found"]
    problems = []
    for old in olds:
        old = old.encode().decode("unicode_escape")
        n = text.count(old)
        if n != 1:
            problems.append(f"{name}: scripts/spack-offline.sh replaces {old.strip()!r}, found {n} times (needs 1)")
    return problems


def check_package(package, source_dir):
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            py_compile.compile(package, cfile=os.path.join(tmp, "package.pyc"), doraise=True)
        except py_compile.PyCompileError as e:
            return [f"{package}: does not compile: {e.msg.strip().splitlines()[-1]}"]
    with open(package, encoding="utf-8") as f:
        tree = ast.parse(f.read(), package)
    with open(package, encoding="utf-8") as f:
        text = f.read()
    if not text.startswith(LICENSE_HEADER):
        problems.append(f"{package}: does not start with spack's license header")
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Gpp"]
    if not classes:
        return problems + [f"{package}: no class Gpp"]
    cls = classes[0]
    problems += check_package_class(cls, package)
    strings = {n.value for n in ast.walk(cls) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    declared = set()
    cmake_files = []
    cmake_dir = os.path.join(source_dir, "cmake")
    if os.path.isdir(cmake_dir):
        cmake_files += [os.path.join(cmake_dir, n) for n in os.listdir(cmake_dir) if n.endswith(".cmake")]
    # Every CMakeLists.txt of the project (the rooms declare options too: api/python), not
    # the build folders' nor the examples' (separate projects).
    for base, dirs, files in os.walk(source_dir):
        dirs[:] = [d for d in dirs if d not in ("build", "examples", "spack") and not d.startswith(".")]
        cmake_files += [os.path.join(base, n) for n in files if n == "CMakeLists.txt"]
    for path in cmake_files:
        with open(path, encoding="utf-8") as f:
            declared.update(re.findall(r"(?:option|set)\(\s*(GPP_\w+)", f.read()))
    used = {s for s in strings if re.fullmatch(r"GPP_[A-Z0-9_]+", s)}
    for opt in ("GPP_ENABLE_HDF5", "GPP_ENABLE_KOKKOSKERNELS", "GPP_ENABLE_TESTS",
                "GPP_EXPECT_DEVICES", "GPP_EXPECT_ARCH"):
        if opt not in used:
            problems.append(f"{package}: does not set {opt}")
    for opt in sorted(used - declared - PENDING_OPTIONS):
        problems.append(f"{package}: sets {opt}, which the project's CMake does not declare")
    return problems


_GOOD_PACKAGE = '''
class Gpp(CMakePackage, CudaPackage, ROCmPackage):
    """doc"""
    homepage = "https://gpp.invalid/"
    url = "https://gpp.invalid/gpp-1.0.0.tar.gz"
    maintainers("someone")
    license("BSD-3-Clause")
    version("main", branch="main")
    version("1.0.0", sha256="%s")
    variant("openmp", default=True, description="d")
    variant("hdf5", default=True, description="d")
    variant("kokkos-kernels", default=True, description="d")
    variant("mpi", default=False, description="d")
    variant("cxxstd", default="17", values=("17", "20"), multi=False, description="d")
    variant("library", default=True, description="d")
    variant("fortran", default=True, when="+library", description="d")
    variant("python", default=False, when="+library", description="d")
    variant("cuda_arch", values=("none", "70"), default="none", multi=False, description="d")
    variant("amdgpu_target", values=("none",), default="none", multi=False, description="d")
    depends_on("kokkos@3.4:5")
    def test_version(self):
        """v"""
    def test_small_deck(self):
        """s"""
    def test_installed_deck(self):
        """i"""
    def test_library_cxx(self):
        """x"""
    def test_library_c(self):
        """c"""
    def test_library_fortran(self):
        """f"""
    def test_library_python(self):
        """p"""
''' % ("0" * 64)
_GOOD_YAML = (
    "spack:\n  packages:\n    kokkos:\n      require: \"@4.7.00\"\n"
    "    kokkos-nvcc-wrapper:\n      require: \"@4.7.00\"\n"
    "    kokkos-kernels:\n      require: \"@4.7.00\"\n"
)


def self_test_package():
    """The package and requirement checks against one good snippet and its broken copies."""
    failures = 0

    def problems_of(src):
        return check_package_class(ast.parse(src).body[0], "pkg")

    if problems_of(_GOOD_PACKAGE):
        print(f"self-test: good package: {problems_of(_GOOD_PACKAGE)}")
        failures += 1
    breakages = {
        "ROCmPackage": ("CudaPackage, ROCmPackage", "CudaPackage"),
        "homepage": ('homepage = "https://gpp.invalid/"', 'homepage = "http://example.com/"'),
        "maintainers": ('maintainers("someone")', ""),
        "cuda_arch": ('("none", "70"), default="none", multi=False', '("none", "70"), default="none", multi=True'),
        "amdgpu_target": ('variant("amdgpu_target", values=("none",), default="none", multi=False, description="d")', ""),
        "sha256": ('sha256="%s"' % ("0" * 64), 'sha256="abc"'),
        "main": ('version("main", branch="main")', ""),
        "test_small_deck": ('"""s"""', "pass"),
        "test_installed_deck": ("def test_installed_deck", "def installed_deck"),
        "Kokkos range": ('"kokkos@3.4:5"', '"kokkos@3.4:4"'),
        "mpi": ('variant("mpi", default=False, description="d")', ""),
    }
    for what, (old, new) in breakages.items():
        assert old in _GOOD_PACKAGE, what
        if not problems_of(_GOOD_PACKAGE.replace(old, new)):
            print(f"self-test: a package without a good {what} passed")
            failures += 1
    if check_requirements(_GOOD_YAML, "good"):
        print(f"self-test: good requirements: {check_requirements(_GOOD_YAML, 'good')}")
        failures += 1
    for what, (old, new) in {
        "mismatched releases": ('kokkos-kernels:\n      require: "@4.7.00"', 'kokkos-kernels:\n      require: "@4.7.01"'),
        "Kokkos Kernels 4.6": ("@4.7.00", "@4.6.02"),
        "no wrapper pin": ('    kokkos-nvcc-wrapper:\n      require: "@4.7.00"\n', ""),
    }.items():
        if not check_requirements(_GOOD_YAML.replace(old, new), "bad"):
            print(f"self-test: requirements with {what} passed")
            failures += 1
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "s.sh")
        with open(script, "w", encoding="utf-8") as f:
            f.write("edits = [\n    ('+cuda cuda_arch=70', '~cuda'),\n    ('path: .\\n', 'x'),\n]\n")
        ok = "  - \"gpp +cuda cuda_arch=70\"\n      path: .\n"
        if check_offline_edits(ok, "ok", script):
            print(f"self-test: offline edits: {check_offline_edits(ok, 'ok', script)}")
            failures += 1
        for bad_text in (ok.replace("+cuda cuda_arch=70", "+cuda cuda_arch=90"), ok + "      path: .\n"):
            if not check_offline_edits(bad_text, "bad", script):
                print(f"self-test: offline edits passed {bad_text!r}")
                failures += 1
    return failures


def self_test():
    """The checker must reject each bad snippet on the named line and accept the good."""
    bad = {
        # an early spack.yaml, with unquoted specs
        "spack:\n  specs:\n  - cuda@12\n  - hdf5@1.14 ~mpi +hl\n  - cli11@2\n"
        "  - googletest@1.12:\n  - cmake@3.24:\n  packages:\n    cuda:\n      require: \"@12\"\n": (6, 7),
        "spack:\n  specs:\n    - kokkos: {}\n": (3,),
        "spack:\n  specs:\n  - [cmake, hdf5]\n": (3,),
        "spack:\n  specs:\n  - 1.12\n  - yes\n  - ~\n  - \"ok\"\n  -\n": (3, 4, 5, 7),
        "spack:\n  specs:\n  - cmake\n    @3.24\n": (4,),
        "spack:\n  develop:\n    gpp:\n      spec: gpp@main: x\n      path: .\n": (4,),
        "spack:\n  specs: [cmake]\n": (2,),
        "spack:\n  specs:\n  - \"cmake@3.24:\n": (3,),
    }
    good = {
        "spack:\n  specs:\n  - \"cmake@3.24:\"  # quoted\n  - 'googletest@1.12:'\n"
        "  - hdf5@1.14 ~mpi +hl\n  - \"gpp +cuda cuda_arch=70\"\n  packages:\n"
        "    cuda:\n      require: \"@12\"\n  develop:\n    gpp:\n      spec: gpp@main\n":
        ["cmake@3.24:", "googletest@1.12:", "hdf5@1.14 ~mpi +hl", "gpp +cuda cuda_arch=70", "gpp@main"],
    }
    failures = 0
    for i, (text, lines) in enumerate(bad.items()):
        _, problems = read_specs(text, f"bad{i}")
        got = sorted({int(p.split(":")[1]) for p in problems if p.split(":")[1].isdigit()})
        if got != sorted(lines):
            print(f"self-test: bad{i}: expected problems on lines {list(lines)}, got {problems}")
            failures += 1
    for i, (text, expected) in enumerate(good.items()):
        specs, problems = read_specs(text, f"good{i}")
        if problems or [v for _, _, v in specs] != expected:
            print(f"self-test: good{i}: expected {expected}, got {specs} {problems}")
            failures += 1
        oracle = pyyaml_specs(text)
        if oracle is not None and oracle != expected:
            print(f"self-test: good{i}: PyYAML reads {oracle}, expected {expected}")
            failures += 1
    failures += self_test_package()
    print(f"self-test: {len(bad)} bad and {len(good)} good snippets, {failures} failures")
    return 1 if failures else 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) == 3 and argv[1] == "--yaml":
        source_dir, path, whole = None, argv[2], False
    elif len(argv) == 2 and not argv[1].startswith("-"):
        source_dir, path, whole = argv[1], os.path.join(argv[1], "spack.yaml"), True
    else:
        print("usage: spack_config_check.py SOURCE_DIR | --yaml FILE | --self-test", file=sys.stderr)
        return 2
    if not os.path.isfile(path):
        print(f"spack_config_check: {path}: no such file", file=sys.stderr)
        return 2
    specs, problems, had_oracle, text = check_yaml(path)
    if whole:
        problems += check_repo(source_dir, text)
    for p in problems:
        print(p)
    if problems:
        return 1
    oracle = "PyYAML agrees" if had_oracle else "PyYAML not importable: no second reading"
    print(f"{path}: {len(specs)} specs, all strings ({oracle})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
