#!/usr/bin/env python3
"""Every script of the project lives in the folder of what it is for (docs/architecture.md).

  python3 tests/architecture/check_folders.py SOURCE_DIR     check the tree
  python3 tests/architecture/check_folders.py --self-test    check the checker

  tools/    what users run on gpp's output, installed in share/gpp/tools (gpp roofline
            --plot runs gpp_plot.py from there): Python only, each an executable with a
            python3 shebang and a docstring saying how to call it; it imports the standard
            library, numpy, matplotlib, h5py and its neighbours only, and names nothing
            of the source tree that an install lacks (scripts/, lab/, tests/)
  scripts/  building and testing gpp: the quick start, the tested matrix, CI's recipes,
            release, layout, the docs' generated pages; shell and Python
  lab/      microbenchmarks (C++ with a main) and the measurement campaigns and analyses
            behind the lab log (docs/lab/); shell and Python
  tests/    the tests, with the independent Fortran oracle (tests/oracle/) and the Fortran
            reader of the .dat round trip (tests/formats/)
  examples/ the library's examples (docs/library.md), each a program a user builds against
            an install: C++, C, Fortran, Python

A shell script is executable with `#!/usr/bin/env bash` and runs `set -euo pipefail` (or
-uo, where it carries on after a failed step), or is a library other scripts source: not
executable, no shebang, its first line "# Sourced by ...". A Python script is executable
with `#!/usr/bin/env python3`. No script lies outside these folders (docs/ keeps the
command lists it records, spack/ its package), no Fortran outside tests/, examples/ and
the library's Fortran module (api/fortran/), no text names a
file of tools/ that is not there (a script that moved), and cmake/GppInstall.cmake
installs tools/ and neither scripts/ nor lab/. Exit 0 when all holds, else 1 with one line
per violation.
"""
import os
import re
import subprocess
import sys

import checker

PRODUCT, BUILD, LAB = "tools", "scripts", "lab"
# Where each kind of file may live, by extension.
SCRIPT_HOMES = {PRODUCT, BUILD, LAB, "tests", "docs", "spack", ".ci", "examples"}
# Where Fortran may live: with the tests, the library's examples, the library's module.
FORTRAN_HOMES = ("tests" + os.sep, "examples" + os.sep, os.path.join("api", "fortran", ""))
PRODUCT_IMPORTS = {"numpy", "matplotlib", "h5py"}
SOURCE_TREE_ONLY = re.compile(r"(?<![\w/.-])(scripts|lab|tests)/")
SKIP = re.compile(r"^(build.*|\.git|\.spack-env|out|__pycache__)$")
# Outside a checkout, a hidden folder other than CI's: a virtual environment, an editor's,
# a developer's ignored folder that came with a copy of the tree.
HIDDEN = re.compile(r"^\.(?!ci$)")
TEXT_EXT = (".md", ".py", ".sh", ".cmake", ".txt", ".cpp", ".hpp", ".h", ".f90", ".json", ".yaml", ".toml", ".in")
TOOLS_FILE = re.compile(r"(?<![\w./$}-])tools/([\w-]+\.\w+)\b")


def git_files(src):
    """The files git sees in a checkout (tracked, and untracked ones it does not ignore), or
    None outside one (a release tarball): a developer's ignored folders (a fetched
    dependency, a build of another tree) are not the project's."""
    try:
        out = subprocess.run(["git", "-C", src, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    top = subprocess.run(["git", "-C", src, "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if top.returncode != 0 or os.path.realpath(top.stdout.strip()) != os.path.realpath(src):
        return None
    return {f for f in out.decode("utf-8", "replace").split("\0") if f}


_GIT_FILES = {}


def known_files(src):
    if src not in _GIT_FILES:
        _GIT_FILES[src] = git_files(src)
    return _GIT_FILES[src]


def skipped(src, name):
    """A folder that is not the project's: a build, git's or spack's; outside a checkout
    (where git cannot say what it ignores) also a hidden one other than .ci."""
    return bool(SKIP.match(name) or (known_files(src) is None and HIDDEN.match(name)))


def files_of(src, top):
    known = known_files(src)
    base = os.path.join(src, top)
    for root, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if not skipped(src, d))
        for f in sorted(files):
            rel = os.path.relpath(os.path.join(root, f), src)
            if known is None or rel in known:
                yield rel


def head(path, n=40):
    with open(path, encoding="utf-8", errors="replace") as f:
        return [line.rstrip("\n") for _, line in zip(range(n), f)]


def executable(path):
    return os.access(path, os.X_OK)


def shell_problem(src, rel):
    path = os.path.join(src, rel)
    lines = head(path)
    if lines[:1] == ["#!/usr/bin/env bash"]:
        if not executable(path):
            return "%s: a script with a shebang is not executable" % rel
        text = open(path, encoding="utf-8", errors="replace").read()
        if not re.search(r"^set -e?uo pipefail\b", text, re.M):
            return "%s: no `set -euo pipefail` (or -uo) of its own" % rel
        return None
    if lines[:1] and lines[0].startswith("# Sourced by"):
        return "%s: a sourced library is executable" % rel if executable(path) else None
    return "%s: neither `#!/usr/bin/env bash` nor a library whose first line is \"# Sourced by ...\"" % rel


def python_problem(src, rel):
    path = os.path.join(src, rel)
    if head(path, 1) != ["#!/usr/bin/env python3"] or not executable(path):
        return "%s: not an executable with `#!/usr/bin/env python3`" % rel
    return None


def imports_of(text):
    names = set()
    for m in re.finditer(r"^\s*(?:from\s+([\w.]+)\s+import|import\s+([\w., ]+))", text, re.M):
        if m.group(1):
            names.add(m.group(1).split(".")[0])
        else:
            names.update(n.strip().split()[0].split(".")[0] for n in m.group(2).split(",") if n.strip())
    return names


def check(src):
    problems = []
    tops = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)) and not skipped(src, d))
    dev_modules = {os.path.splitext(os.path.basename(f))[0]
                   for top in (BUILD, LAB, "tests") if top in tops for f in files_of(src, top) if f.endswith(".py")}
    stdlib = set(getattr(sys, "stdlib_module_names", ())) or None
    for top in tops:
        for rel in files_of(src, top):
            ext = os.path.splitext(rel)[1]
            if ext in (".sh", ".py") and top not in SCRIPT_HOMES:
                problems.append("%s: a script outside tools/, scripts/, lab/ and tests/" % rel)
            if ext in (".f90", ".f", ".F90") and not rel.startswith(FORTRAN_HOMES):
                problems.append("%s: Fortran belongs with the tests it serves (tests/), the library's module "
                                "(api/fortran/) or its examples (examples/)" % rel)
    if PRODUCT in tops:
        neighbours = {os.path.splitext(os.path.basename(f))[0] for f in files_of(src, PRODUCT)}
        for rel in files_of(src, PRODUCT):
            if not rel.endswith(".py"):
                problems.append("%s: tools/ holds only the Python scripts users run on gpp's output" % rel)
                continue
            p = python_problem(src, rel)
            if p:
                problems.append(p)
            text = open(os.path.join(src, rel), encoding="utf-8", errors="replace").read()
            if not re.search(r'^(?:#[^\n]*\n)*\s*"""', text):
                problems.append("%s: no docstring saying how to call it" % rel)
            for name in sorted(imports_of(text)):
                if name in dev_modules and name not in neighbours:
                    problems.append("%s imports %s, a module of scripts/, lab/ or tests/ (not installed)" % (rel, name))
                elif name not in neighbours | PRODUCT_IMPORTS and stdlib is not None and name not in stdlib:
                    problems.append("%s imports %s, which is neither the standard library, numpy, matplotlib, "
                                    "h5py nor a script of tools/" % (rel, name))
            for n, line in enumerate(text.split("\n"), 1):
                m = SOURCE_TREE_ONLY.search(line)
                if m:
                    problems.append("%s:%d names %s, which an install does not have" % (rel, n, m.group(0)))
    for top in (BUILD, LAB):
        if top not in tops:
            continue
        for rel in files_of(src, top):
            ext = os.path.splitext(rel)[1]
            if ext == ".sh":
                p = shell_problem(src, rel)
            elif ext == ".py":
                p = python_problem(src, rel)
            elif ext == ".cpp" and top == LAB:
                text = open(os.path.join(src, rel), encoding="utf-8", errors="replace").read()
                p = None if re.search(r"^int main\(", text, re.M) else "%s: a microbenchmark without main()" % rel
            else:
                p = "%s: %s/ holds %s" % (rel, top, "shell and Python scripts only" if top == BUILD else
                                          "microbenchmarks (C++) and shell and Python scripts only")
            if p:
                problems.append(p)
    # A reference to a file of tools/ that is not there: a script that moved to scripts/ or
    # lab/ (tests/oracle/*.expected keep the commands they were made with; the checkers'
    # own cases name made-up files).
    texts = [f for f in sorted(os.listdir(src)) if os.path.isfile(os.path.join(src, f))]
    texts += [rel for top in tops for rel in files_of(src, top)]
    for rel in texts:
        if not (rel.endswith(TEXT_EXT) or os.path.basename(rel) in ("run", "CMakeLists.txt")) or \
                rel.endswith(".expected") or rel.startswith(os.path.join("tests", "architecture", "")):
            continue
        text = open(os.path.join(src, rel), encoding="utf-8", errors="replace").read()
        for n, line in enumerate(text.split("\n"), 1):
            for name in TOOLS_FILE.findall(line):
                if not os.path.isfile(os.path.join(src, PRODUCT, name)):
                    problems.append("%s:%d names tools/%s, which is not in tools/ (moved to scripts/ or lab/?)"
                                    % (rel, n, name))
    install = os.path.join(src, "cmake", "GppInstall.cmake")
    if os.path.isfile(install):
        text = re.sub(r"#[^\n]*", "", open(install, encoding="utf-8").read())
        installed = set(re.findall(r"install\(\s*DIRECTORY\s+\$\{PROJECT_SOURCE_DIR\}/(\w+)/", text))
        if PRODUCT in tops and PRODUCT not in installed:
            problems.append("cmake/GppInstall.cmake does not install tools/")
        for top in sorted(installed & {BUILD, LAB}):
            problems.append("cmake/GppInstall.cmake installs %s/, which needs the source tree" % top)
    return problems


def cases():
    plot = '#!/usr/bin/env python3\n"""plot.py --csv F: a chart."""\nimport json\nimport numpy as np\nimport common\n'
    build = "#!/usr/bin/env bash\n# Builds it.\nset -euo pipefail\ncmake --preset serial\n"
    lib = "# Sourced by scripts/build.sh: the mirror.\nmirror() { echo x; }\n"
    bench = "// The throughput of a division.\n#include <cstdio>\nint main() { return 0; }\n"
    install = "install(DIRECTORY ${PROJECT_SOURCE_DIR}/tools/ DESTINATION share/gpp/tools)\n"
    good = {
        "tools/plot.py": (plot, True),
        "tools/common.py": ('#!/usr/bin/env python3\n"""common.py: shared parts."""\n', True),
        "scripts/build.sh": (build, True),
        "scripts/mirror.sh": (lib, False),
        "scripts/gen.py": ("#!/usr/bin/env python3\nimport lab_summary\n", True),
        "lab/div.cpp": (bench, False),
        "lab/run.sh": (build.replace("-euo", "-uo"), True),
        "lab/lab_summary.py": ("#!/usr/bin/env python3\n", True),
        "tests/oracle/oracle.f90": ("program oracle\nend program\n", False),
        "tests/tools/test_plot.py": ("import unittest\n", False),
        "docs/roofline/commands.sh": ("gpp roofline si214\n", False),
        "cmake/GppInstall.cmake": (install, False),
    }
    cases = [
        ("a tree of each kind in its place", good, 0),
        ("a build script among the product scripts", dict(good, **{"tools/build.sh": (build, True)}), 1),
        ("a product script that imports a lab module",
         dict(good, **{"tools/plot.py": (plot + "import lab_summary\n", True)}), 1),
        ("a product script that imports a package outside its list",
         dict(good, **{"tools/plot.py": (plot + "    import yaml\n", True)}), 1),
        ("a product script that runs a build script",
         dict(good, **{"tools/plot.py": (plot + 'os.system("scripts/build.sh")\n', True)}), 1),
        ("a product script without a docstring or exec bit",
         dict(good, **{"tools/common.py": ("#!/usr/bin/env python3\nimport os\n", False)}), 2),
        ("a microbenchmark among the build scripts", dict(good, **{"scripts/div.cpp": (bench, False)}), 1),
        ("a microbenchmark without main", dict(good, **{"lab/div.cpp": ("int f() { return 0; }\n", False)}), 1),
        ("a shell script without set -u and pipefail",
         dict(good, **{"scripts/build.sh": ("#!/usr/bin/env bash\ncmake --preset serial\n", True)}), 1),
        ("a sourced library that is executable", dict(good, **{"scripts/mirror.sh": (lib, True)}), 1),
        ("a shell script of neither form", dict(good, **{"lab/run.sh": ("#!/bin/sh\nset -eu\n", True)}), 1),
        ("a script at the top of another folder",
         dict(good, **{"inputs/make.py": ("#!/usr/bin/env python3\n", True)}), 1),
        ("the oracle outside tests/", dict(good, **{"lab/oracle.f90": ("program oracle\nend program\n", False)}), 2),
        ("the library's Fortran module and its examples",
         dict(good, **{"api/fortran/gpp.f90": ("module gpp\nend module\n", False),
                       "examples/fortran/main.f90": ("program example\nend program\n", False),
                       "examples/python/example.py": ("#!/usr/bin/env python3\n", True)}), 0),
        ("Fortran and a script elsewhere in the library's room",
         dict(good, **{"api/gpp.f90": ("module gpp\nend module\n", False),
                       "api/python/make.py": ("#!/usr/bin/env python3\n", True)}), 2),
        ("a page that names a script where it was",
         dict(good, **{"docs/install.md": "Run `tools/build.sh`, then `python3 tools/plot.py`.\n"}), 1),
        ("scripts/ installed", dict(good, **{"cmake/GppInstall.cmake": (
            install + "install(DIRECTORY ${PROJECT_SOURCE_DIR}/scripts/ DESTINATION share/gpp/scripts)\n", False)}), 1),
        # Outside a checkout (a release tarball, a copy of the tree): a hidden folder other
        # than .ci is not the project's; .ci is.
        ("a copy with a virtual environment and an editor's folder", dict(good, **{
            ".venv/bin/activate_this.py": ("import os\n", False), ".vscode/run.sh": ("#!/bin/sh\n", True)}), 0),
        ("a copy whose CI script names a tool that is not there",
         dict(good, **{".ci/run": "python3 tools/gone.py\n"}), 1),
        # In a git checkout (GIT_INIT: check_case runs git init): a folder git ignores is
        # not the project's; an untracked file git does not ignore is.
        ("a checkout with a script in an ignored folder", dict(good, **{
            "GIT_INIT": "", ".gitignore": "/ext/\n", "ext/kokkos/run.sh": ("#!/bin/sh\n", True)}), 0),
        ("a checkout with a new script outside the folders", dict(good, **{
            "GIT_INIT": "", ".gitignore": "/ext/\n", "inputs/make.py": ("#!/usr/bin/env python3\n", True)}), 1),
        ("a checkout with a script in a hidden folder git does not ignore", dict(good, **{
            "GIT_INIT": "", ".gitignore": "/ext/\n", ".github/gen.py": ("#!/usr/bin/env python3\n", True)}), 1),
    ]
    return cases


def check_case(src):
    """check, after `git init` where the case's tree holds GIT_INIT."""
    marker = os.path.join(src, "GIT_INIT")
    if os.path.exists(marker):
        os.remove(marker)
        subprocess.run(["git", "init", "-q", src], check=True)
    _GIT_FILES.pop(src, None)
    return check(src)


def summary(src):
    for top in (PRODUCT, BUILD, LAB):
        print("%-8s %s" % (top + "/", " ".join(os.path.basename(f) for f in files_of(src, top))))


if __name__ == "__main__":
    sys.exit(checker.main(sys.argv, __doc__, check, cases, summary, check_case))
