#!/usr/bin/env python3
"""Run the commands a documentation page marks as runnable, against a gpp build.

  run_doc_commands.py --gpp GPP --source-dir SRC PAGE.md [PAGE.md ...]
  run_doc_commands.py --self-test --gpp GPP --source-dir SRC
  run_doc_commands.py --list DOCS_DIR      (the pages that have a runnable block)

A block is runnable when the line just before its opening fence is an HTML comment
(invisible on the site and on GitHub):

  <!-- runnable -->             the block must exit 0
  <!-- runnable exit=N -->      the block must exit N (a refusal shown on purpose)

and its fence is ```sh or ```bash, or ```python (the library's Python module, docs/library.md).
The blocks of a page run in order, as a reader would
type them, in one fresh empty folder (a later block may read what an earlier one wrote),
each with bash -e (-o pipefail), GPP's folder first on PATH, HOME a fresh folder (no
tuning file of the user's), GPP_TUNING_FILE unset and OMP_PROC_BIND=false: so decks are
found by name (`gpp run small`) and a command that works only from the repository root
fails here. A python block runs with the --python interpreter, the --python-path folder (the
built module gpp) first on PYTHONPATH and MPLBACKEND=Agg, as a notebook cell: after the
page's earlier python blocks, in the same namespace (they run again first, their output
not shown). A page with a python block is skipped (exit 77) when no --python is given: a
build without the Python module.

A fenced block right after a runnable one may be marked, on the line before its fence:

  <!-- output -->   every line of it must appear in what the runnable block printed
                    (stdout then stderr), in the same order; in a shown line a number is
                    any number, a 12-hex git hash any hash (or "unknown", what a build
                    from a tarball without .git prints), and ... (or …) any text
  <!-- output: labels -->   only the first word of each line (up to a space, ':', '=' or
                    '(') must match, in order: for a whole output shown as one machine
                    printed it, whose backend, device and compiler differ from build to build

so a shown output or error message cannot drift from what gpp prints. A page with no
runnable block is an error: the test that names it would check nothing."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

RUN = re.compile(r"^<!--\s*runnable(?:\s+exit=(\d+))?\s*-->\s*$")
OUT = re.compile(r"^<!--\s*output(?:\s*:\s*(labels))?\s*-->\s*$")
FENCE = re.compile(r"^(`{3,}|~{3,})\s*([\w+-]*)")
NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"


class Block:
    def __init__(self, page, line, lang, text, marker):
        self.page, self.line, self.lang, self.text, self.marker = page, line, lang, text, marker
        self.expect_exit = None
        self.output = None  # the block shown after it, when marked <!-- output -->


def blocks(path):
    """The fenced blocks of a page with the marker comment before each (or None)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i].strip())
        if m:
            fence, lang, start = m.group(1), m.group(2), i
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(fence):
                j += 1
            marker = lines[start - 1].strip() if start > 0 else ""
            out.append(Block(path, start + 1, lang, "\n".join(lines[start + 1:j]), marker))
            i = j + 1
        else:
            i += 1
    return out


def runnable(path):
    """[(block, expected exit)], each with .output set when the next block is marked."""
    bs, result = blocks(path), []
    for k, b in enumerate(bs):
        m = RUN.match(b.marker)
        if not m:
            if OUT.match(b.marker) and not (k and RUN.match(bs[k - 1].marker)):
                raise SystemExit(f"{path}:{b.line}: an <!-- output --> block must follow a runnable block")
            continue
        if b.lang not in ("sh", "bash", "python"):
            raise SystemExit(f"{path}:{b.line}: a runnable block must be ```sh, ```bash or ```python, not '{b.lang}'")
        b.expect_exit = int(m.group(1) or 0)
        if k + 1 < len(bs) and OUT.match(bs[k + 1].marker):
            b.output = bs[k + 1]
        result.append(b)
    return result


def line_pattern(shown):
    parts = re.split(r"(\.\.\.|…|\b[0-9a-f]{12}\b(?:-dirty)?|" + NUMBER + ")", shown.strip())
    rx = ""
    for n, p in enumerate(parts):
        if n % 2 == 0:
            rx += re.escape(p)
        elif p in ("...", "…"):
            rx += ".*?"
        elif re.fullmatch(r"[0-9a-f]{12}(?:-dirty)?", p):
            rx += r"(?:[0-9a-f]{12}(?:-dirty)?|unknown)"
        else:
            rx += NUMBER
    return re.compile(rx)


def label(line):
    return re.split(r"[\s:=(]", line.strip(), maxsplit=1)[0]


def check_output(block, printed):
    """The first shown line not found, in order, in what was printed (or None)."""
    lines = [l.strip() for l in printed.split("\n")]
    labels_only = OUT.match(block.output.marker).group(1) == "labels"
    at = 0
    for shown in block.output.text.split("\n"):
        if not shown.strip():
            continue
        if labels_only:
            rx = re.compile(re.escape(label(shown)) + r"(?:[\s:=(].*)?")
        else:
            rx = line_pattern(shown)
        while at < len(lines) and not rx.fullmatch(lines[at]):
            at += 1
        if at == len(lines):
            return shown
        at += 1
    return None


# A python block as a notebook cell: the earlier cells run first, quietly, in one namespace.
PYTHON_DRIVER = """
import contextlib, io, json, sys
cells = json.load(open(sys.argv[1]))
scope = {"__name__": "__main__"}
for n, cell in enumerate(cells):
    last = n == len(cells) - 1
    with contextlib.ExitStack() as quiet:
        if not last:
            quiet.enter_context(contextlib.redirect_stdout(io.StringIO()))
        exec(compile(cell, "<block %d>" % (n + 1), "exec"), scope)
"""


def run_block(block, gpp, timeout, work, python=None, earlier=()):
    """Run one block in the page's folder WORK (a python block after the page's `earlier`
    python blocks); a problem as text, or None."""
    home = os.path.join(work, ".home")
    os.makedirs(home, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "GPP_TUNING_FILE"}
    env.update(PATH=os.path.dirname(gpp) + os.pathsep + env.get("PATH", ""), HOME=home, OMP_PROC_BIND="false")
    if block.lang == "python":
        interpreter, path = python
        env.update(PYTHONPATH=path + os.pathsep + env.get("PYTHONPATH", ""), MPLBACKEND="Agg")
        cells = os.path.join(home, "cells.json")
        with open(cells, "w", encoding="utf-8") as f:
            json.dump([b.text for b in earlier] + [block.text], f)
        command = [interpreter, "-c", PYTHON_DRIVER, cells]
    else:
        command = ["bash", "-c", "set -eo pipefail\n" + block.text + "\n"]
    try:
        r = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"did not finish in {timeout} s"
    printed = r.stdout + r.stderr
    if r.returncode != block.expect_exit:
        tail = "\n".join(printed.strip().split("\n")[-15:])
        return f"exited {r.returncode}, the page expects {block.expect_exit}; last lines:\n{tail}"
    if block.output is not None:
        missing = check_output(block, printed)
        if missing is not None:
            tail = "\n".join(printed.strip().split("\n")[-25:])
            return (f"the output shown at line {block.output.line} has a line gpp did not print "
                    f"(in that order): {missing.strip()!r}\nwhat it printed:\n{tail}")
    return None


SKIPPED = 77


def check_pages(pages, gpp, source_dir, timeout, python=None):
    """The failures; SKIPPED when a page has python blocks and no python is given."""
    failures = 0
    for page in pages:
        bs = runnable(page)
        if not bs:
            print(f"{page}: no runnable block (<!-- runnable --> before a ```sh fence)")
            failures += 1
            continue
        if python is None and any(b.lang == "python" for b in bs):
            print(f"{page}: skipped: it has python blocks, and this build has no Python module (no --python)")
            return SKIPPED
        work = tempfile.mkdtemp(prefix="gpp-docs.")
        done = []
        for b in bs:
            first = b.text.strip().split("\n")[0]
            problem = run_block(b, gpp, timeout, work, python, [e for e in done if e.lang == "python"])
            done.append(b)
            where = f"{os.path.relpath(page, source_dir)}:{b.line}"
            if problem:
                failures += 1
                print(f"FAIL {where}: {first}\n  " + problem.replace("\n", "\n  "))
            else:
                print(f"ok   {where}: {first}")
        shutil.rmtree(work, ignore_errors=True)
    return failures


def self_test(gpp, source_dir, timeout):
    """The runner fails what it must: a failing command, a wrong exit, a shown line gpp does
    not print, a deck path that works only from the repository root, an empty page."""
    cases = [
        ("<!-- runnable -->\n```sh\ngpp --version\n```\n<!-- output -->\n```text\ngpp 9.9.9\ngit 0123456789ab\n```\n", True),
        ("<!-- runnable -->\n```sh\ngpp --version\n```\n<!-- output -->\n```text\ngpp ...\nnot a line gpp prints\n```\n", False),
        ("<!-- runnable -->\n```sh\ngpp run no-such-deck-anywhere\n```\n", False),
        ("<!-- runnable exit=1 -->\n```sh\ngpp run no-such-deck-anywhere\n```\n<!-- output -->\n```text\ngpp run: error: no deck 'no-such-deck-anywhere' ...\n```\n", True),
        ("<!-- runnable exit=1 -->\n```sh\ngpp --version\n```\n", False),
        ("<!-- runnable -->\n```sh\ntest -f inputs/small.toml\n```\n", False),
        ("<!-- runnable -->\n```sh\nfalse\ngpp --version\n```\n", False),
        ("<!-- runnable -->\n```sh\ngpp --version\n```\n<!-- output: labels -->\n```text\ngpp 0.0.0 anything\nKokkos 9 (Other)\n```\n", True),
        ("<!-- runnable -->\n```sh\ngpp --version\n```\n<!-- output: labels -->\n```text\ngpp 0.0.0\nnolabel here\n```\n", False),
        ("<!-- runnable -->\n```sh\necho one > f\n```\n<!-- runnable -->\n```sh\ntest -f f\n```\n", True),
        # A build from a tarball (no .git) prints "git unknown" where a shown line has a hash.
        ("<!-- runnable -->\n```sh\nprintf 'git unknown\\n'\n```\n<!-- output -->\n```text\ngit 0123456789ab\n```\n", True),
        ("<!-- runnable -->\n```sh\nprintf 'git unknowable\\n'\n```\n<!-- output -->\n```text\ngit 0123456789ab\n```\n", False),
        ("Only prose, no runnable block.\n", False),
        ("<!-- runnable -->\n```python\nx = 6 * 7\n```\n<!-- runnable -->\n```python\nprint('x is', x)\n```\n"
         "<!-- output -->\n```text\nx is 42\n```\n", True),
        ("<!-- runnable -->\n```python\nraise SystemExit(3)\n```\n", False),
        ("<!-- runnable -->\n```python\nprint('a')\n```\n<!-- runnable -->\n```python\nprint('b')\n```\n"
         "<!-- output -->\n```text\na\n```\n", False),
        ("<!-- runnable -->\n```python\nprint(undefined_name)\n```\n", False),
    ]
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        for n, (text, passes) in enumerate(cases):
            page = os.path.join(d, f"case{n}.md")
            with open(page, "w", encoding="utf-8") as f:
                f.write(text)
            with open(os.devnull, "w") as null:
                saved, sys.stdout = sys.stdout, null
                try:
                    failed = check_pages([page], gpp, source_dir, timeout, (sys.executable, d)) > 0
                finally:
                    sys.stdout = saved
            if failed == passes:
                bad += 1
                print(f"self-test case {n}: {'failed' if failed else 'passed'}, should have "
                      f"{'passed' if passes else 'failed'}:\n{text}")
    print(f"self-test: {len(cases) - bad} of {len(cases)} cases as expected")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpp")
    ap.add_argument("--source-dir", default=".")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per block")
    ap.add_argument("--python", help="the interpreter of python blocks (one that imports the module gpp)")
    ap.add_argument("--python-path", default="", help="the folder holding the module gpp, first on PYTHONPATH")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--list", metavar="DIR", help="print the pages under DIR that have a runnable block, one a line")
    ap.add_argument("pages", nargs="*")
    a = ap.parse_args()
    if a.list:
        for base, dirs, files in sorted(os.walk(a.list)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith(".md") and runnable(os.path.join(base, f)):
                    print(os.path.join(base, f))
        return 0
    if not a.gpp:
        raise SystemExit("--gpp is required")
    gpp = os.path.abspath(a.gpp)
    if not os.access(gpp, os.X_OK):
        raise SystemExit(f"{a.gpp}: not an executable")
    if a.self_test:
        return 1 if self_test(gpp, os.path.abspath(a.source_dir), 120) else 0
    if not a.pages:
        raise SystemExit("no page given")
    python = (a.python, os.path.abspath(a.python_path) if a.python_path else "") if a.python else None
    failures = check_pages([os.path.abspath(p) for p in a.pages], gpp, os.path.abspath(a.source_dir), a.timeout, python)
    return SKIPPED if failures == SKIPPED else (1 if failures else 0)


if __name__ == "__main__":
    sys.exit(main())
