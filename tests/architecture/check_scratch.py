#!/usr/bin/env python3
"""The tests leave nothing behind in /tmp (docs/dev/testing.md).

  python3 tests/architecture/check_scratch.py SOURCE_DIR     check the tree
  python3 tests/architecture/check_scratch.py --self-test    check the checker

The C++ tests write only under their process's scratch directory, which the test main makes
and removes with everything in it (gpp::test::scratch_dir(), memory_scratch_dir() and the
ScratchDir they are made of, in tests/support/gpp_test_util.hpp, the one file allowed to
name the system's temporary places, with its test): no test names /tmp or /dev/shm, gtest's TempDir(),
$TMPDIR, std::filesystem::temp_directory_path, tmpnam or tmpfile. The scripts under tests/
(Python, shell, CMake) name no /tmp or /dev/shm either; a Python one makes its temporary
places with tempfile.TemporaryDirectory, or removes what tempfile.mkdtemp and mkstemp
made (shutil.rmtree, os.remove) and never keeps a NamedTemporaryFile(delete=False) nor
calls tempfile.mktemp; a shell one removes what mktemp made (a trap). Exit 0 when all holds,
else 1 with one line per violation.
"""
import os
import re
import sys

import checker

HELPER = os.path.join("tests", "support", "gpp_test_util.hpp")
# The helper, its own test, and this checker (whose rules and cases name what they refuse);
# and the fuzz targets' support, which runs under libFuzzer's main, not the test main: it
# makes its own work directory the same way (mkdtemp under $TMPDIR) and removes it at exit.
EXEMPT = {HELPER, os.path.join("tests", "support", "test_scratch.cpp"),
          os.path.join("tests", "architecture", "check_scratch.py"),
          os.path.join("tests", "fuzz", "fuzz_contract.hpp")}
CXX = (".cpp", ".hpp", ".h", ".cc")
# What a C++ test must not name: the system's temporary places, and the ways to them.
CXX_FORBIDDEN = [
    (re.compile(r'"/tmp\b'), "/tmp"),
    (re.compile(r'"/dev/shm\b'), "/dev/shm"),
    (re.compile(r"\bTempDir\s*\("), "gtest's TempDir()"),
    (re.compile(r'getenv\(\s*"TMPDIR"'), "$TMPDIR"),
    (re.compile(r"\btemp_directory_path\b"), "std::filesystem::temp_directory_path"),
    (re.compile(r"\btmpnam\s*\("), "tmpnam"),
    (re.compile(r"\btmpfile\s*\("), "tmpfile"),
]
SCRIPT_FORBIDDEN = [
    (re.compile(r"(?<![\w.$-])/tmp\b"), "/tmp"),
    (re.compile(r"(?<![\w.$-])/dev/shm\b"), "/dev/shm"),
]
COMMENT = {"cxx": re.compile(r"//[^\n]*|/\*.*?\*/", re.S), "script": re.compile(r"(?m)^\s*#[^\n]*|(?<=\s)#[^\n]*")}


def strip(text, kind):
    return COMMENT[kind].sub(lambda m: "\n" * m.group(0).count("\n"), text)


def check(src):
    problems = []
    base = os.path.join(src, "tests")
    for root, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", "fixtures"))
        for f in sorted(files):
            path = os.path.join(root, f)
            rel = os.path.relpath(path, src)
            if rel in EXEMPT:
                continue
            if f.endswith(CXX):
                kind = "cxx"
            elif f.endswith((".py", ".sh", ".cmake")) or f == "CMakeLists.txt":
                kind = "script"
            else:
                continue
            text = strip(open(path, encoding="utf-8", errors="replace").read(), kind)
            for n, line in enumerate(text.split("\n"), 1):
                for pattern, what in CXX_FORBIDDEN if kind == "cxx" else SCRIPT_FORBIDDEN:
                    if pattern.search(line):
                        where = "gpp::test::scratch_dir()" if kind == "cxx" else "a temporary directory it removes"
                        problems.append("%s:%d names %s: write under %s" % (rel, n, what, where))
            if f.endswith(".py"):
                if re.search(r"\bmkdtemp\s*\(", text) and not re.search(r"\brmtree\s*\(", text):
                    problems.append("%s: tempfile.mkdtemp without shutil.rmtree (use TemporaryDirectory)" % rel)
                if re.search(r"\bmkstemp\s*\(", text) and not re.search(r"\bos\.(remove|unlink)\s*\(", text):
                    problems.append("%s: tempfile.mkstemp without os.remove" % rel)
                if re.search(r"\bmktemp\s*\(", text):
                    problems.append("%s: tempfile.mktemp (use TemporaryDirectory)" % rel)
                if re.search(r"NamedTemporaryFile\([^)]*delete\s*=\s*False", text):
                    problems.append("%s: NamedTemporaryFile(delete=False) is left behind" % rel)
            if f.endswith(".sh") and re.search(r"\bmktemp\b", text) and not re.search(r"\btrap\b[^\n]*\brm\b", text):
                problems.append("%s: mktemp without a trap that removes it" % rel)
    return problems


def cases():
    helper = "inline std::string base() { return \"/tmp\"; }\n"
    good = {
        HELPER: helper,
        "tests/files/test_files.cpp": 'std::string p = gpp::test::scratch_dir() + "gpp_files_XXXXXX";\n'
                                      "// not in /tmp, nor TempDir()\n",
        "tests/tools/test_plot.py": "import tempfile\nwith tempfile.TemporaryDirectory() as d:\n    pass\n",
        "tests/attack/attack.py": "import shutil, tempfile\nw = tempfile.mkdtemp()\nshutil.rmtree(w)\n",
        "tests/oracle/make.sh": "tmp=$(mktemp -d)\ntrap 'rm -rf \"$tmp\"' EXIT\n",
        "tests/cmake/check.cmake": "set(work ${WORK}/prefix)  # never /tmp\n",
    }
    cases = [
        ("tests that write only in their scratch directories", good, 0),
        ("a C++ test in /tmp", dict(good, **{"tests/commands/test_cli.cpp": 'std::string p = "/tmp/gpp_cli_x";\n'}), 1),
        ("a C++ test in gtest's TempDir()",
         dict(good, **{"tests/commands/test_cli.cpp": "std::string p = ::testing::TempDir() + \"x\";\n"}), 1),
        ("a C++ test in /dev/shm and $TMPDIR",
         dict(good, **{"tests/a/t.cpp": 'auto a = "/dev/shm/x";\nauto b = std::getenv("TMPDIR");\n'}), 2),
        ("a Python test's mkdtemp never removed",
         dict(good, **{"tests/attack/attack.py": "import tempfile\nw = tempfile.mkdtemp()\n"}), 1),
        ("a Python test's file kept",
         dict(good, **{"tests/a/t.py": "f = tempfile.NamedTemporaryFile(delete=False)\n"}), 1),
        ("a Python test in /tmp", dict(good, **{"tests/a/t.py": "open('/tmp/gpp_x', 'w')\n"}), 1),
        ("a shell script's mktemp left", dict(good, **{"tests/oracle/make.sh": "tmp=$(mktemp -d)\n"}), 1),
        ("a CMake test in /tmp", dict(good, **{"tests/cmake/check.cmake": "set(work /tmp/gpp-check)\n"}), 1),
    ]
    return cases


def summary(src):
    print("the tests under %s write only where they remove" % os.path.join(src, "tests"))


if __name__ == "__main__":
    sys.exit(checker.main(sys.argv, __doc__, check, cases, summary))
