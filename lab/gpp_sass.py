#!/usr/bin/env python3
"""The loops of a kernel's SASS: where the time of a GPU kernel's inner loop goes, read
without a GPU.

usage:
  lab/gpp_sass.py loops SASS [--kernel REGEX] [--min N] [--max N]
      SASS: `nvdisasm -c` output (labels .L_x_N) or `cuobjdump -sass` output (addresses).
      One line per loop (a backward branch) of each function whose name matches REGEX, of
      N instructions or more (--min 1) and at most --max (no limit): its first and last
      instruction's index within the function, the instructions, those on the FP64 pipe
      (DFMA, DMUL, DADD, DSETP), where in the loop its global loads (LDG, LDGSTS) sit, and
      the counts by opcode.
      Exit 2 where the listing skips addresses: an nvdisasm older than the compiler leaves
      out the instructions it does not know, and the labels on them (the nvdisasm of CUDA
      11.8 drops sm_90's VIADD from CUDA 13's code, and with it the head of the tuned
      kernels' band loop); CUDA 12.4's (Debian 13's nvidia-cuda-toolkit) reads CUDA 13's
      sm_90 code whole: its loops of the tuned kernels are the device's cuobjdump's,
      instruction for instruction.

lab/sass-offline.sh runs it on one translation unit of a CUDA build.
"""
import collections
import re
import sys

FP64 = ("DFMA", "DMUL", "DADD", "DSETP")
_NV_INSTR = re.compile(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
_NV_LABEL = re.compile(r"\s*(\.L_x_\d+):")
_FUNCTION = re.compile(r"^\s*(?:\.text\.(\S+?):|Function\s*:\s*(\S+))")
_BRANCH = re.compile(r"\bBRA\s+(?:`\()?(\.L_x_\d+|0x[0-9a-f]+)")


def opcode(instr):
    """DFMA for '@!P0 DFMA.RM R2, ...'."""
    text = re.sub(r"^@!?U?P\w+\s+", "", instr)
    return text.split()[0].split(".")[0]


def functions(text):
    """(name, [instruction], {label or address: index}, skipped addresses) per function
    of the listing (instructions are 16 bytes apart on sm_70 and later)."""
    out = []
    name, instrs, targets, gaps, last = None, [], {}, 0, None
    for line in text.splitlines():
        m = _FUNCTION.match(line)
        if m:
            if name is not None:
                out.append((name, instrs, targets, gaps))
            name, instrs, targets, gaps, last = m.group(1) or m.group(2), [], {}, 0, None
            continue
        if name is None:
            continue
        m = _NV_LABEL.match(line)
        if m:
            targets[m.group(1)] = len(instrs)
            continue
        m = _NV_INSTR.match(line)
        if m:
            address = int(m.group(1), 16)
            if last is not None and address != last + 16:
                gaps += 1
            last = address
            targets["0x%x" % address] = len(instrs)
            instrs.append(m.group(2).strip())
    if name is not None:
        out.append((name, instrs, targets, gaps))
    return out


def loops(instrs, targets):
    """(first, last) index of each backward branch's loop, outermost first."""
    found = set()
    for i, instr in enumerate(instrs):
        m = _BRANCH.search(instr)
        if not m:
            continue
        target = m.group(1)
        if target.startswith("0x"):
            target = "0x%x" % int(target, 16)
        first = targets.get(target)
        if first is not None and first <= i:
            found.add((first, i))
    return sorted(found, key=lambda r: (r[0] - r[1], r[0]))


def describe(instrs, first, last):
    body = instrs[first:last + 1]
    counts = collections.Counter(opcode(x) for x in body)
    fp64 = sum(counts[op] for op in FP64)
    loads = [i for i, x in enumerate(body) if opcode(x) in ("LDG", "LDGSTS")]
    return len(body), fp64, counts, loads


def cmd_loops(argv):
    path = argv[0]
    kernel = argv[argv.index("--kernel") + 1] if "--kernel" in argv else ""
    low = int(argv[argv.index("--min") + 1]) if "--min" in argv else 1
    high = int(argv[argv.index("--max") + 1]) if "--max" in argv else None
    with open(path, errors="replace") as f:
        text = f.read()
    shown = 0
    for name, instrs, targets, gaps in functions(text):
        if not re.search(kernel, name):
            continue
        if gaps:
            print("gpp_sass.py: %s: %d gaps in the addresses of %s: the disassembler left out instructions "
                  "it does not know (use a newer one)" % (path, gaps, name[:80]), file=sys.stderr)
            return 2
        rows = []
        for first, last in loops(instrs, targets):
            n, fp64, counts, loads = describe(instrs, first, last)
            if n < low or (high is not None and n > high):
                continue
            ops = " ".join("%s %d" % kv for kv in counts.most_common())
            rows.append("  loop %d-%d: %d instructions, %d FP64; global loads at %s; %s" %
                        (first, last, n, fp64, ",".join(map(str, loads)) or "-", ops))
        if rows:
            print("%s (%d instructions)" % (name, len(instrs)))
            print("\n".join(rows))
            shown += 1
    if shown == 0:
        print("gpp_sass.py: no loop of a function matching %r in %s" % (kernel, path), file=sys.stderr)
        return 1
    return 0


def main(argv):
    if len(argv) >= 2 and argv[0] == "loops":
        return cmd_loops(argv[1:])
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
