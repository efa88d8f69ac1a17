#!/usr/bin/env python3
"""Constructs of gpp's sources that the oldest compilers it is built with refuse.

  check_old_compilers.py SOURCE_DIR     every tracked *.cpp and *.hpp under SOURCE_DIR
  check_old_compilers.py --self-test    the checker on snippets it must flag and must pass

The V100 build (scripts/volta-build.sh) compiles every source with nvcc 11.8, whose front end
cannot deduce the type of a range-for over a braced list whose first element names its type
and whose later ones are bare braces:

    for (const auto& [k, v] : {std::pair<std::string, int>{"a", 1}, {"b", 2}})   // refused

(an array declared first is accepted). No CI machine has nvcc 11.8, so this is checked here;
each finding is one line, FILE:LINE and the loop, and the exit status is 1.
"""
import os
import re
import sys

# `for (... : {` then a type (letters, ::, <...>, commas, spaces, *) and its opening brace.
LOOP = re.compile(r"for\s*\(([^;{)]*?):\s*\{\s*([A-Za-z_][\w:<>, *]*?)\{", re.S)


def findings(text):
    """(line, loop text) of each range-for over a braced list that nvcc 11.8 refuses."""
    out = []
    for m in LOOP.finditer(text):
        depth, i, tail = 1, 0, text[m.end():m.end() + 2000]
        while i < len(tail) and depth:  # to the end of the first element
            depth += {"{": 1, "}": -1}.get(tail[i], 0)
            i += 1
        rest = tail[i:].lstrip()
        if rest.startswith(",") and rest[1:].lstrip().startswith("{"):
            out.append((text.count("\n", 0, m.start()) + 1, " ".join(m.group(0).split())))
    return out


def sources(root):
    for d, dirs, files in os.walk(root):  # not build trees, the site, or hidden folders
        dirs[:] = sorted(x for x in dirs if x not in ("build", "site") and not x.startswith("."))
        for f in sorted(files):
            if f.endswith((".cpp", ".hpp")):
                yield os.path.join(d, f)


def self_test():
    bad = [
        'for (const auto& [k, v] : {std::pair<std::string, int>{"a", 1}, {"b", 2}}) f(k);',
        'for (const auto& [opt, path] :\n     {std::pair<std::string, std::string>{"--json", j},\n      {"--out", o}})',
        "for (auto x : { Range{1, 2}, {3, 4} }) g(x);",
    ]
    good = [
        "for (const char* k : {\"a\", \"b\"}) f(k);",
        "for (const int v : {t.band_block, t.ig_block}) f(v);",
        "const std::pair<const char*, int> xs[] = {{\"a\", 1}, {\"b\", 2}};\nfor (const auto& [k, v] : xs) f(k);",
        "for (const Range& r : {Range{1, 2}, Range{3, 4}}) g(r);",
        "for (int i = 0; i < n; ++i) { s += a[i]; }",
    ]
    failed = [s for s in bad if len(findings(s)) != 1] + [s for s in good if findings(s)]
    for s in failed:
        print("self-test: wrong answer for:", s.replace("\n", " "))
    print("self-test:", "FAIL" if failed else f"ok ({len(bad)} flagged, {len(good)} passed)")
    return 1 if failed else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    n = 0
    for path in sources(argv[1]):
        with open(path, encoding="utf-8") as f:
            for line, loop in findings(f.read()):
                print(f"{os.path.relpath(path, argv[1])}:{line}: nvcc 11.8 cannot deduce this range "
                      f"(declare the list as an array first): {loop}")
                n += 1
    return 1 if n else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
