#!/usr/bin/env python3
"""Where a kernel's warps wait, from Nsight Compute's source page: the stall samples of
each instruction, summed by reason, by loop and listed for the instructions that hold the
most.

usage:
  ncu --clock-control none -k regex:KERNEL --launch-count 1 --section SourceCounters \\
      --section WarpStateStats -o REPORT gpp run DECK --policy tuned --repeat 1 --warmup 0 --verify none
  ncu -i REPORT.ncu-rep --page source --csv --print-source sass > source.csv
  lab/ncu_stalls.py source.csv [--top N]

For each kernel of the file (a "Kernel Name" line starts one; a file of one kernel may have
none): its samples and executed instructions; each stall reason's share of the samples
(the `stall_*` columns, not-issued ones apart); each loop (a backward branch's range of
instructions, by address) that holds at least 1% of the samples; and the N instructions
(default 40) with the most samples, in program order, with their three largest reasons.
Exit 2 where the file has no column of stall samples (not a source page of sampled
counters)."""
import csv
import re
import sys

SAMPLES = "Warp Stall Sampling (All Samples)"
EXECUTED = "Instructions Executed"
BRANCH = re.compile(r"\bBRA\s+(?:`\()?(0x[0-9a-fA-F]+)")


def number(text):
    text = (text or "").replace(",", "").strip()
    try:
        return float(text)
    except ValueError:
        return 0.0


def tables(rows):
    """[(kernel name, header, rows)] from the CSV's rows."""
    out = []
    name, header, body = "(unnamed)", None, []
    for r in rows:
        if not r or not any(c.strip() for c in r):
            continue
        if r[0].strip().startswith("Kernel Name"):
            if header is not None:
                out.append((name, header, body))
            name, header, body = ",".join(c for c in r[1:] if c).strip() or r[0], None, []
        elif r[0].strip() in ("Address", "# Address"):
            if header is not None:
                out.append((name, header, body))
                name, body = "(unnamed)", []
            header = [c.strip() for c in r]
        elif header is not None:
            body.append(r)
    if header is not None:
        out.append((name, header, body))
    return out


def summarise(name, header, body, top):
    col = {c: i for i, c in enumerate(header)}
    if SAMPLES not in col:
        raise KeyError(SAMPLES)
    s, src = col[SAMPLES], col.get("Source")
    ex = col.get(EXECUTED)
    val = lambda r, i: number(r[i]) if i is not None and i < len(r) else 0.0
    total = sum(val(r, s) for r in body)
    lines = [f"kernel {name}", f"  samples {total:.0f}, instructions executed {sum(val(r, ex) for r in body):.4g}"]
    if total == 0:
        return lines
    reasons = [(c, i) for c, i in col.items() if c.startswith("stall_") and "Not Issued" not in c]
    shares = sorted(((sum(val(r, i) for r in body) / total, c) for c, i in reasons), reverse=True)
    lines.append("  by reason: " + ", ".join(f"{c[6:]} {f:.1%}" for f, c in shares if f >= 0.005))
    address = [int(r[0], 16) if r[0].strip().lower().startswith("0x") else None for r in body]
    index = {a: k for k, a in enumerate(address) if a is not None}
    loops = set()
    for k, r in enumerate(body):
        m = BRANCH.search(r[src] if src is not None and src < len(r) else "")
        if m and int(m.group(1), 16) in index and index[int(m.group(1), 16)] <= k:
            loops.add((index[int(m.group(1), 16)], k))
    for a, b in sorted(loops):
        held = sum(val(r, s) for r in body[a:b + 1])
        if held >= 0.01 * total:
            lines.append(f"  loop {a}-{b} ({b - a + 1} instructions): {held / total:.1%} of the samples")
    chosen = sorted(sorted(range(len(body)), key=lambda k: -val(body[k], s))[:top])
    for k in chosen:
        r = body[k]
        most = sorted(((val(r, i), c[6:]) for c, i in reasons if val(r, i) > 0), reverse=True)[:3]
        text = (r[src] if src is not None and src < len(r) else "").strip()
        lines.append(f"  {k:5d} {val(r, s) / total:6.2%}  {text[:56]:56s} " + " ".join(f"{c}={v:.0f}" for v, c in most))
    return lines


def main(argv):
    args = argv[1:]
    top = 40
    if "--top" in args:
        i = args.index("--top")
        top = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        sys.stderr.write(__doc__)
        return 2
    with open(args[0], newline="") as f:
        found = tables(list(csv.reader(f)))
    if not found:
        sys.stderr.write(f"ncu_stalls.py: {args[0]}: no table with an Address column\n")
        return 2
    for name, header, body in found:
        try:
            print("\n".join(summarise(name, header, body, top)))
        except KeyError:
            sys.stderr.write(f"ncu_stalls.py: {args[0]}: no '{SAMPLES}' column (profile with --section SourceCounters)\n")
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
