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

The package: package.py must compile, derive from CudaPackage (the cuda and cuda_arch
variants), declare the openmp, hdf5, kokkos-kernels and mpi variants, and every GPP_* CMake
option it sets must be one the project's CMake declares. The repository must be laid out
as spack 1.x expects (<...>/spack_repo/<namespace>/repo.yaml, packages/gpp/package.py).
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
REQUIRED_VARIANTS = ("openmp", "hdf5", "kokkos-kernels", "mpi")
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
    return problems + check_package(package, source_dir)


def check_package(package, source_dir):
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            py_compile.compile(package, cfile=os.path.join(tmp, "package.pyc"), doraise=True)
        except py_compile.PyCompileError as e:
            return [f"{package}: does not compile: {e.msg.strip().splitlines()[-1]}"]
    with open(package, encoding="utf-8") as f:
        tree = ast.parse(f.read(), package)
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Gpp"]
    if not classes:
        return [f"{package}: no class Gpp"]
    cls = classes[0]
    bases = {b.id for b in cls.bases if isinstance(b, ast.Name)}
    for base in ("CMakePackage", "CudaPackage"):
        if base not in bases:
            problems.append(f"{package}: class Gpp must derive from {base}")
    variants, strings = set(), set()
    for node in ast.walk(cls):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "variant" and node.args
                and isinstance(node.args[0], ast.Constant)):
            variants.add(node.args[0].value)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            strings.add(node.value)
    for v in REQUIRED_VARIANTS:
        if v not in variants:
            problems.append(f"{package}: no `{v}` variant")
    declared = set()
    cmake_files = [os.path.join(source_dir, "CMakeLists.txt")]
    cmake_dir = os.path.join(source_dir, "cmake")
    if os.path.isdir(cmake_dir):
        cmake_files += [os.path.join(cmake_dir, n) for n in os.listdir(cmake_dir) if n.endswith(".cmake")]
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


def self_test():
    """The checker must reject each bad snippet on the named line and accept the good."""
    bad = {
        # the spack.yaml of issue 8, as it was
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
