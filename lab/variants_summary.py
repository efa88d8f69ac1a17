#!/usr/bin/env python3
"""What lab/variants.sh timed, read from gpp's JSON records.

  variants_summary.py ROUND.NAME.TAG.json...

Each record's file name says its round (1, 2, ...), its binary (base, or a variant's
name) and what was run (TAG). Per TAG and policy: each binary's kernel median
(runs[].time_median_s) round by round and, where the run computed its reference,
the reference pass (verification.reference_s) and the pass over the run's own kernel
median; for a variant, its ratio to base in each round (the same round's base) and the
median of those ratios with their range. A ratio smaller than the rounds' spread is
not a speed-up (docs/dev/performance.md). Bad input is one line on stderr and exit
status 1.
"""
import os
import re
import statistics
import sys

# a record is read and refused as lab/scaling_summary.py reads and refuses one
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scaling_summary import Bad, load as load_record  # noqa: E402

NAME = re.compile(r"^([1-9][0-9]*)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.json$")


def load(path):
    m = NAME.match(os.path.basename(path))
    if not m:
        raise Bad("%s: not named ROUND.NAME.TAG.json" % path)
    r = load_record(path)
    out = {}
    for run in r["runs"]:
        median = run.get("time_median_s")
        if not isinstance(median, (int, float)) or median <= 0:
            raise Bad("%s: policy %s has no kernel median" % (path, run.get("policy")))
        out[run.get("policy")] = median
    v = r.get("verification") or {}
    ref = v.get("reference_s") if v.get("reference_source") == "computed" else None
    return int(m.group(1)), m.group(2), m.group(3), out, ref


def ratio_line(values, base):
    ratios = [v / b for v, b in zip(values, base)]
    return "%.3f (%.3f to %.3f)" % (statistics.median(ratios), min(ratios), max(ratios))


def summarise(paths):
    runs = {}  # tag -> name -> round -> (medians by policy, reference_s)
    for p in paths:
        rnd, name, tag, medians, ref = load(p)
        slot = runs.setdefault(tag, {}).setdefault(name, {})
        if rnd in slot:
            raise Bad("%s: a second record of round %d of %s, %s" % (p, rnd, name, tag))
        slot[rnd] = (medians, ref)
    lines = []
    for tag in sorted(runs):
        by_name = runs[tag]
        if "base" not in by_name:
            raise Bad("%s: no record of base" % tag)
        rounds = sorted(by_name["base"])
        names = ["base"] + sorted(n for n in by_name if n != "base")
        for n in names:
            if sorted(by_name[n]) != rounds:
                raise Bad("%s: %s has rounds %s where base has %s" % (tag, n, sorted(by_name[n]), rounds))
        policies = sorted(by_name["base"][rounds[0]][0])
        lines.append("%s, %d round%s" % (tag, len(rounds), "" if len(rounds) == 1 else "s"))
        for pol in policies:
            series = {}
            for n in names:
                try:
                    series[n] = [by_name[n][r][0][pol] for r in rounds]
                except KeyError:
                    raise Bad("%s: %s did not run policy %s in every round" % (tag, n, pol))
            lines.append("  kernel median, %s [s]" % pol)
            for n in names:
                row = "    %-12s %s" % (n, "  ".join("%-9.5g" % x for x in series[n]))
                if n != "base":
                    row += "   / base: " + ratio_line(series[n], series["base"])
                lines.append(row)
        refs = {n: [by_name[n][r][1] for r in rounds] for n in names}
        if all(x is not None for n in names for x in refs[n]):
            first = policies[0]
            lines.append("  reference pass [s] (and over the run's %s median)" % first)
            for n in names:
                own = [by_name[n][r][0][first] for r in rounds]
                row = "    %-12s %s" % (n, "  ".join("%.4g (%.2f)" % (x, x / k) for x, k in zip(refs[n], own)))
                if n != "base":
                    row += "   / base: " + ratio_line(refs[n], refs["base"])
                lines.append(row)
    return "\n".join(lines)


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 1
    try:
        print(summarise(argv))
    except Bad as e:
        print("variants_summary.py: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
