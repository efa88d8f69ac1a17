#!/usr/bin/env python3
"""Every environment variable gpp reads and every CMake cache option gpp declares is on its
reference page (registered with ctest as Docs.NamesDocumented).

  check_names.py SOURCE_DIR
  check_names.py --self-test SOURCE_DIR

Environment variables: the string literals "GPP_...", "KOKKOS_..." and "NCU" in the program's
sources (every room but tests/): gpp reads its variables by these names, through getenv or
a table of names. They must appear in docs/reference/environment.md.
CMake options: option(GPP_...) and set(GPP_... CACHE ...) in every CMakeLists.txt and
cmake/*.cmake. They must appear in docs/reference/cmake.md."""
import os
import re
import sys

ROOMS = ("api", "app", "backend", "commands", "core", "files", "formats", "measure", "policies", "record", "session")
ENV = re.compile(r'"((?:GPP|KOKKOS)_[A-Z0-9_]+|NCU)"')
CMAKE = re.compile(r"^\s*(?:option\(\s*(GPP_[A-Z0-9_]+)|set\(\s*(GPP_[A-Z0-9_]+)\s[^)]*\bCACHE\b)", re.M)


def sources(root, dirs, exts):
    for d in dirs:
        for base, _, files in os.walk(os.path.join(root, d)):
            for f in files:
                if f.endswith(exts):
                    yield os.path.join(base, f)


def c_constants(root):
    """The enumerators of the library's C header (GPP_OK, GPP_AQSNTEMP, ...): constants whose
    names its sources spell as text (gpp_status_name), not variables."""
    path = os.path.join(root, "include", "gpp", "gpp.h")
    if not os.path.isfile(path):
        return set()
    return set(re.findall(r"^\s*(GPP_[A-Z0-9_]+)\s*=", open(path, encoding="utf-8").read(), re.M))


def names(root):
    env, cmake = {}, {}
    constants = c_constants(root)
    for path in sources(root, ROOMS, (".cpp", ".hpp")):
        for m in ENV.finditer(open(path, encoding="utf-8", errors="replace").read()):
            if m.group(1) not in constants:
                env.setdefault(m.group(1), os.path.relpath(path, root))
    cmake_files = [os.path.join(root, "CMakeLists.txt")]
    cmake_files += sources(root, ROOMS + ("cmake", "tests"), ("CMakeLists.txt", ".cmake"))
    for path in cmake_files:
        for m in CMAKE.finditer(open(path, encoding="utf-8").read()):
            cmake.setdefault(m.group(1) or m.group(2), os.path.relpath(path, root))
    return env, cmake


def missing(root):
    env, cmake = names(root)
    problems = []
    for found, page in ((env, "docs/reference/environment.md"), (cmake, "docs/reference/cmake.md")):
        text = open(os.path.join(root, page), encoding="utf-8").read()
        documented = set(re.findall(r"`([A-Z][A-Z0-9_]+)`", text))
        for name, where in sorted(found.items()):
            if name not in documented:
                problems.append(f"{page} does not name `{name}` ({where} reads or declares it)")
    if not env or not cmake:
        problems.append("found no environment variable or no CMake option: is this the source tree?")
    return problems


def self_test(root):
    """A name removed from a page is reported; the real pages pass."""
    import shutil
    import tempfile
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        for sub in ROOMS + ("cmake", "tests", "docs", "include"):
            if os.path.isdir(os.path.join(root, sub)):
                shutil.copytree(os.path.join(root, sub), os.path.join(d, sub),
                                ignore=shutil.ignore_patterns("*.png", "*.svg", "*.csv", "*.json", "*.dat", "*.h5"))
        shutil.copy(os.path.join(root, "CMakeLists.txt"), d)
        if missing(d):
            print("self-test: the copied tree already fails")
            bad += 1
        for page, name in (("environment.md", "GPP_TUNING_FILE"), ("cmake.md", "GPP_MAX_NW")):
            p = os.path.join(d, "docs", "reference", page)
            text = open(p, encoding="utf-8").read()
            open(p, "w", encoding="utf-8").write(text.replace(f"`{name}`", name))
            if not any(name in m for m in missing(d)):
                print(f"self-test: {name} removed from {page} was not reported")
                bad += 1
            open(p, "w", encoding="utf-8").write(text)
        # The C header's constants are exempt only while the header declares them.
        os.remove(os.path.join(d, "include", "gpp", "gpp.h"))
        if not any("`GPP_OK`" in m for m in missing(d)):
            print("self-test: GPP_OK, no longer a constant of gpp.h, was not reported")
            bad += 1
    print(f"self-test: {'failed' if bad else 'passed'}")
    return bad


def main():
    args = sys.argv[1:]
    if args and args[0] == "--self-test":
        return 1 if self_test(os.path.abspath(args[1])) else 0
    if len(args) != 1:
        print(__doc__)
        return 1
    problems = missing(os.path.abspath(args[0]))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
