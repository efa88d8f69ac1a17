#!/usr/bin/env python3
"""The instruction mix of the hot loops of x86-64 or aarch64 functions in an object file.

    lab/loop_mix.py OBJECT [REGEX] [--objdump PROG] [--all-loops | --first] [--containing REGEX]

For each function whose (demangled) name matches REGEX (default: every function), the
innermost loops (a backward branch whose target lies in the function, with no other
backward branch inside it) are disassembled with objdump and their instructions counted by
kind: FP multiplies and FMAs (the kind one 512-bit FMA port takes), FP adds and
subtracts, divisions, compares, blends and masked moves, mask-register operations, loads,
stores, prefetches, gathers, integer and other. Without --all-loops only each function's
largest innermost loop is shown; --containing prefetch keeps the loops with a prefetch
(the host policy's G loops, where a function has epilogue loops too).
The counts are per pass of the loop, i.e. per vector of G for the host policy's loops.

Used to compare the host policy's loops across SIMD notations and instruction sets
(docs/lab/cpu-host.md); nothing in the build runs it.
"""
import argparse
import re
import subprocess
import sys

KINDS = [
    ("fma/mul", r"^v?f(n?m(add|sub)\d+[ps]d|madd|msub|nmadd|nmsub|mla|mls|mul)|^v?mul[ps]d|^fmul"),
    ("add/sub", r"^v?(add|sub)[ps]d|^fadd|^fsub|^fneg"),
    ("div", r"^v?div[ps]d|^fdiv"),
    ("sqrt/rcp", r"^v?(sqrt|rcp|rsqrt)|^frecp|^fsqrt"),
    ("compare", r"^v?cmp[a-z]*[ps]d|^v?cmppd|^fcm|^fac"),
    ("blend/select", r"^v?(blend|pblend)|^bsl|^bit|^bif|^fcsel|^v?maskmov"),
    ("mask", r"^k[a-z]+|^v?movmsk|^v?pmovmsk"),
    ("gather", r"gather"),
    ("compress", r"compress|expand"),
    ("shuffle", r"^v?(perm|shuf|unpck|insert|extract|broadcast)|^zip|^uzp|^trn|^dup|^ext\b"),
    ("prefetch", r"^prefetch|^prfm"),
]


def classify(mnemonic, operands, arch):
    for kind, pat in KINDS:
        if re.search(pat, mnemonic):
            return kind
    if arch == "x86":
        if mnemonic.startswith(("vmov", "mov", "vbroadcast")) and "(" in operands:
            # AT&T: the memory operand is the source when it comes first
            first = operands.split(",")[0]
            return "load" if "(" in first else "store"
    else:
        if mnemonic.startswith(("ldr", "ldp", "ld1", "ldur")):
            return "load"
        if mnemonic.startswith(("str", "stp", "st1", "stur")):
            return "store"
    if re.search(r"\(", operands) and arch == "x86" and mnemonic.startswith("v"):
        return "load+op"
    if mnemonic.startswith("v") or mnemonic.startswith("f"):
        return "other vector"
    return "integer/branch"


def functions(lines):
    """(name, [(addr, mnemonic, operands)]) per function of objdump -d output."""
    name, body = None, []
    for line in lines:
        m = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if m:
            if name:
                yield name, body
            name, body = m.group(1), []
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if m and name:
            body.append((int(m.group(1), 16), m.group(2), m.group(3)))
    if name:
        yield name, body


def loops(body, arch):
    """Innermost loops: (start index, end index) of backward branches."""
    branch = re.compile(r"^j|^b(\.|$|l?e|ne|eq|lt|gt|cc|cs|hi|ls|mi|pl)|^cb|^tb")
    found = []
    addrs = [a for a, _, _ in body]
    for i, (a, mn, ops) in enumerate(body):
        if not branch.search(mn) or mn in ("jmpq", "bl"):
            continue
        m = re.search(r"\b([0-9a-f]+) <", ops)
        if not m:
            continue
        target = int(m.group(1), 16)
        if target <= a and target >= addrs[0]:
            start = addrs.index(target) if target in addrs else None
            if start is not None:
                found.append((start, i))
    inner = [(s, e) for s, e in found if not any(s < s2 <= e2 < e or s <= s2 < e2 < e for s2, e2 in found if (s2, e2) != (s, e))]
    return inner


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("object")
    ap.add_argument("regex", nargs="?", default=".")
    ap.add_argument("--objdump", default="objdump")
    ap.add_argument("--all-loops", action="store_true")
    ap.add_argument("--first", action="store_true", help="only each function's first such loop (lowest address)")
    ap.add_argument("--containing", metavar="REGEX",
                    help="only loops with an instruction whose mnemonic matches REGEX (e.g. prefetch: the G loops)")
    a = ap.parse_args()
    try:
        out = subprocess.run([a.objdump, "-d", "-C", "--no-show-raw-insn", a.object], check=True, capture_output=True,
                             text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"loop_mix: {a.objdump} -d {a.object}: {e}")
    arch = "arm" if "aarch64" in out[:400] else "x86"
    rx = re.compile(a.regex)
    shown = 0
    for name, body in functions(out.splitlines()):
        if not rx.search(name) or not body:
            continue
        ls = loops(body, arch)
        if a.containing:
            ls = [(s, e) for s, e in ls if any(re.search(a.containing, mn) for _, mn, _ in body[s:e + 1])]
        if not ls:
            continue
        if a.first:
            ls = ls[:1]
        elif not a.all_loops:
            ls = [max(ls, key=lambda se: se[1] - se[0])]
        for s, e in ls:
            counts = {}
            for _, mn, ops in body[s:e + 1]:
                k = classify(mn, ops, arch)
                counts[k] = counts.get(k, 0) + 1
            total = e - s + 1
            print(f"{name[:150]}\n  loop {body[s][0]:#x}..{body[e][0]:#x}: {total} instructions")
            print("   " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1])))
            shown += 1
    if not shown:
        sys.exit(f"loop_mix: no loop in a function matching {a.regex!r} in {a.object}")


if __name__ == "__main__":
    main()
