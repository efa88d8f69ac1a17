#!/usr/bin/env python3
"""README.md is a front door of current facts (ctest Docs.Readme).

  check_readme.py SOURCE_DIR
  check_readme.py --self-test SOURCE_DIR

- at most 150 lines;
- no commit hash, no date: history goes to CHANGELOG.md and the lab log;
- its Debian quick start is exactly the two commands `scripts/quickstart.sh` and
  `ctest --preset serial`, and .ci/run runs exactly those, from the repository root;
- every measured time in it (a decimal number followed by " s") is in docs/results.md, the
  page scripts/regenerate-docs.sh writes: the README quotes the results, never a number of
  its own."""
import os
import re
import sys

HASH = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b")
DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")
TIME = re.compile(r"\b(\d+\.\d+) s\b")
QUICK = ["scripts/quickstart.sh", "ctest --preset serial"]


def problems(readme, results, ci):
    out = []
    lines = readme.split("\n")
    if readme.endswith("\n"):
        lines = lines[:-1]
    if len(lines) > 150:
        out.append(f"README.md has {len(lines)} lines (at most 150)")
    for n, line in enumerate(lines, 1):
        for rx, what in ((HASH, "a commit hash"), (DATE, "a date")):
            m = rx.search(line)
            if m:
                out.append(f"README.md:{n}: {what} ({m.group(0)}): history goes to CHANGELOG.md or docs/lab/")
        for m in TIME.finditer(line):
            if m.group(1) not in results:
                out.append(f"README.md:{n}: {m.group(1)} s is not on docs/results.md: quote the results page")
    blocks = re.findall(r"```sh\n(.*?)```", readme, re.S)
    quick = [b for b in blocks if "scripts/quickstart.sh" in b]
    if len(quick) != 1:
        out.append("README.md: expected one ```sh block with scripts/quickstart.sh (the quick start)")
    else:
        commands = [l.split("#")[0].strip() for l in quick[0].split("\n") if l.split("#")[0].strip()]
        if commands != QUICK:
            out.append(f"README.md: the quick start is {commands}, not exactly {QUICK}")
    for c in QUICK:
        if not re.search(r'in_root "cd /root/gpp && ' + re.escape(c) + '"|"cd /root/gpp && ' + re.escape(c) + '"', ci):
            out.append(f".ci/run does not run `{c}` as written, from the repository root")
    return out


def main():
    args = sys.argv[1:]
    self_test = args[:1] == ["--self-test"]
    root = os.path.abspath(args[-1]) if args else "."
    read = lambda p: open(os.path.join(root, p), encoding="utf-8").read()
    readme, results, ci = read("README.md"), read("docs/results.md"), read(".ci/run")
    if not self_test:
        found = problems(readme, results, ci)
        for p in found:
            print(p)
        return 1 if found else 0
    bad = 0
    if problems(readme, results, ci):
        print("self-test: the README already fails")
        bad += 1
    broken = {
        "a hash": readme + "\nsince 6b2964b\n",
        "a date": readme + "\nmeasured on 2026-11-27\n",
        "a time not on the results page": readme + "\ntuned takes 0.0123 s\n",
        "a longer quick start": readme.replace("ctest --preset serial\n", "ctest --preset serial\ngpp run small\n", 1),
        "too long": readme + "\n" * 200,
    }
    for what, text in broken.items():
        if not problems(text, results, ci):
            print(f"self-test: {what} passed")
            bad += 1
    if not problems(readme, results, ci.replace("cd /root/gpp && scripts/quickstart.sh", "cd /root/gpp && true")):
        print("self-test: a CI that skips the quick start passed")
        bad += 1
    print(f"self-test: {'failed' if bad else 'passed'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
