#!/usr/bin/env python3
"""What lab/mpi_scaling.sh measured, read from gpp's JSON records (docs/mpi.md).

  scaling_summary.py deck-size --ceilings FILE [--factor 1.2] [--nbands 48] [--nvband 20]
                               [--host-bytes N] [--ranks 1]
      The gpp run options of a random deck of FACTOR x the device's free memory (from
      `gpp ceilings --json`), G' = G = N: its G' columns (wtilde_array, I_eps_array, 32 N^2
      bytes) dominate. Capped by the host: the largest rank's arrays plus 10% within
      --host-bytes (default: MemAvailable). Exit 1 with one line when the host cannot
      hold a deck larger than the device.
  scaling_summary.py record FILE.json...
      One paragraph per record: deck, ranks, chunks, kernel time, time with the chunks'
      copies, transfers and their bandwidth, time to solution, verification.
  scaling_summary.py strong ONE.json MANY.json     efficiency T1 / (P TP)
  scaling_summary.py weak ONE.json MANY.json       efficiency T1 / TP (G' grown with P)
  scaling_summary.py chunks WHOLE.json CHUNKED.json
      One pass of the chunked run, its copies included, against the whole run's copy to
      the device plus one kernel pass (goal: at most 1.3x), and their times to solution.

Times are the medians gpp reports (slowest rank plus the reduction). Every comparison
says whether both runs were verified and how far their sums are apart. Bad input is one
line on stderr and exit status 1.
"""
import argparse
import json
import math
import sys


class Bad(Exception):
    pass


def load(path):
    try:
        with open(path) as f:
            r = json.load(f)
    except (OSError, ValueError) as e:
        raise Bad("%s: %s" % (path, e))
    if not isinstance(r, dict) or r.get("kind") != "gpp-record" or not r.get("runs"):
        raise Bad("%s: not a gpp run record with runs" % path)
    return r


def run0(r):
    return r["runs"][0]


def num(x):
    return x if isinstance(x, (int, float)) and math.isfinite(x) else float("nan")


def kernel(r):
    return num(run0(r).get("time_median_s"))


def with_copies(r):
    v = run0(r).get("time_with_transfers_median_s")
    return kernel(r) if v is None else num(v)


def sums(r):
    run = run0(r)
    return [complex(*z) for z in run.get("achtemp", []) + run.get("asxtemp", [])]


def max_rel_diff(a, b):
    sa, sb = sums(a), sums(b)
    if not sa or len(sa) != len(sb):
        return float("nan")
    return max(abs(x - y) / abs(y) if y else abs(x - y) for x, y in zip(sa, sb))


def verified(r):
    return all(run.get("verified") for run in r["runs"])


def fmt(x, digits=4):
    return "n/a" if not math.isfinite(x) else "%.*g" % (digits, x)


def describe(path, r):
    run, d, setup = run0(r), r["deck"], r.get("setup", {})
    v = r.get("verification", {})
    lines = ["%s: deck %s (nbands %d, ngpown %d, ncouls %d, nw %d, %.3g updates), %d rank(s), %s on %s"
             % (path, d["name"], d["nbands"], d["ngpown"], d["ncouls"], d["nw"], d["updates"], r.get("ranks", 1),
                run["policy"], run["space"]["device"])]
    lines.append("  kernel median %s s; one pass with the chunks' copies %s s; %d chunk(s) a pass"
                 % (fmt(kernel(r)), fmt(with_copies(r)), run.get("chunks", 1)))
    sb, sc = num(run.get("stream_bytes_per_pass", 0)), num(run.get("stream_copy_s_per_pass", 0))
    if sb > 0:
        lines.append("  streamed %s GB a pass%s" % (fmt(sb / 1e9), ", copies %s s at %s GB/s" % (fmt(sc), fmt(sb / sc / 1e9))
                                                   if sc > 0 else ""))
    tb, tc = num(setup.get("transfer_bytes", 0)), num(setup.get("transfer_copy_s", 0))
    lines.append("  transfer to the device %s s%s" % (fmt(num(setup.get("transfer_s", 0))),
                                                     " (copied once %s GB, copies at %s GB/s)" % (fmt(tb / 1e9), fmt(tb / tc / 1e9))
                                                     if tb > 0 and tc > 0 else ""))
    if setup.get("read_gbs") is not None:
        lines.append("  read %s GB at %s GB/s" % (fmt(num(setup.get("read_bytes", 0)) / 1e9), fmt(num(setup["read_gbs"]))))
    t = r.get("time_to_solution")
    if t:
        lines.append("  time to solution %s s = setup %s + transfer %s + kernels %s + verification %s + output %s"
                     % tuple(fmt(num(t[k])) for k in ("total_s", "setup_s", "transfer_s", "kernel_s", "verification_s",
                                                       "output_s")))
    lines.append("  verified against the %s (took %s s): %s, relative error %s, tolerance %s"
                 % (v.get("against", "?"), fmt(num(v.get("reference_s", float("nan")))),
                    "yes" if verified(r) else "NO", fmt(num(run.get("rel_error", float("nan"))), 2),
                    fmt(num(v.get("tolerance", float("nan"))), 2)))
    if run.get("ranks", 1) > 1:
        k = run.get("rank_kernel_median_s", [])
        mean = sum(k) / len(k) if k else float("nan")
        lines.append("  per-rank kernel medians %s s, imbalance %s, MPI_Allreduce %s us"
                     % (" ".join(fmt(x) for x in k), fmt(max(k) / mean if k and mean > 0 else float("nan")),
                        fmt(num(run.get("comm_median_s", 0)) * 1e6)))
    return "\n".join(lines)


def both(a, b):
    return "both verified" if verified(a) and verified(b) else "NOT both verified"


def cmd_record(args):
    for p in args.files:
        print(describe(p, load(p)))


def cmd_scaling(args, weak):
    one, many = load(args.one), load(args.many)
    p = many.get("ranks", 1)
    if p <= 1 or one.get("ranks", 1) != 1:
        raise Bad("expected a 1-rank record and a record of several ranks")
    label = "weak" if weak else "strong"
    for what, f in (("kernel", kernel), ("with the chunks' copies", with_copies)):
        t1, tp = f(one), f(many)
        e = t1 / tp if weak else t1 / (p * tp)
        print("%s scaling (%s): 1 rank %s s, %d ranks %s s: efficiency %s" % (label, what, fmt(t1), p, fmt(tp), fmt(e, 3)))
    t1 = one.get("time_to_solution") or {}
    tp = many.get("time_to_solution") or {}
    if t1 and tp:
        e = t1["total_s"] / tp["total_s"] if weak else t1["total_s"] / (p * tp["total_s"])
        print("%s scaling (time to solution): 1 rank %s s, %d ranks %s s: efficiency %s"
              % (label, fmt(t1["total_s"]), p, fmt(tp["total_s"]), fmt(e, 3)))
    if not weak:
        print("sums 1 rank vs %d ranks: largest relative difference %s; %s" % (p, fmt(max_rel_diff(many, one), 2),
                                                                           both(one, many)))
    else:
        print("%s" % both(one, many))


def cmd_chunks(args):
    whole, chunked = load(args.whole), load(args.chunked)
    base = num(whole.get("setup", {}).get("transfer_s", float("nan"))) + kernel(whole)
    pass_ = with_copies(chunked)
    print("chunks: one pass with its copies %s s (kernel %s s, %d chunks) against the whole run's transfer + kernel "
          "%s s: %sx (goal at most 1.3x)" % (fmt(pass_), fmt(kernel(chunked)), run0(chunked).get("chunks", 1), fmt(base),
                                            fmt(pass_ / base, 3)))
    tw, tc = whole.get("time_to_solution"), chunked.get("time_to_solution")
    if tw and tc:
        print("chunks: time to solution %s s chunked, %s s whole (%sx)" % (fmt(tc["total_s"]), fmt(tw["total_s"]),
                                                                          fmt(tc["total_s"] / tw["total_s"], 3)))
    print("sums chunked vs whole: largest relative difference %s; %s" % (fmt(max_rel_diff(chunked, whole), 2),
                                                                       both(whole, chunked)))


def mem_available():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def cmd_deck_size(args):
    try:
        with open(args.ceilings) as f:
            c = json.load(f)
        free = float(c["device"]["memory_free_bytes"])
        name = c["device"]["name"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise Bad("%s: no device memory in it (%s): run gpp ceilings --space device --json" % (args.ceilings, e))
    if not free > 0:
        raise Bad("%s: the device's free memory is not positive" % args.ceilings)
    nb = args.nbands
    # Host bytes per rank of a G = G' = n deck: 32 n^2 / ranks (wtilde_array, I_eps_array)
    # + 32 n nb (aqsmtemp, aqsntemp) + 32 n nb / ranks (aqsmtemp_local and its copy).
    def host_bytes(n):
        return 32.0 * n * n / args.ranks + 32.0 * n * nb + 32.0 * n * nb / args.ranks
    n = int(math.sqrt(args.factor * free / 32.0))
    host = args.host_bytes if args.host_bytes > 0 else mem_available()
    note = ""
    if host > 0 and 1.1 * host_bytes(n) > host:
        while n > 1 and 1.1 * host_bytes(n) > host:
            n = int(n * 0.99)
        note = " (capped by the host's %.1f GiB available)" % (host / 2**30)
    data = 32.0 * n * n + 32.0 * n * nb
    if data <= free:
        raise Bad("the host (%.1f GiB available) cannot hold a deck larger than the %.1f GiB free on the %s"
                  % (host / 2**30, free / 2**30, name))
    print("--name big --generator random --seed 4242 --nbands %d --nvband %d --ngpown %d --ncouls %d"
          % (nb, args.nvband, n, n))
    print("big deck: G = G' = %d, %d bands: %.1f GiB of data, %.2fx the %.1f GiB free on the %s%s"
          % (n, nb, data / 2**30, data / free, free / 2**30, name, note), file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("deck-size")
    d.add_argument("--ceilings", required=True)
    d.add_argument("--factor", type=float, default=1.2)
    d.add_argument("--nbands", type=int, default=48)
    d.add_argument("--nvband", type=int, default=20)
    d.add_argument("--host-bytes", type=float, default=0)
    d.add_argument("--ranks", type=int, default=1)
    r = sub.add_parser("record")
    r.add_argument("files", nargs="+")
    for name in ("strong", "weak"):
        s = sub.add_parser(name)
        s.add_argument("one")
        s.add_argument("many")
    c = sub.add_parser("chunks")
    c.add_argument("whole")
    c.add_argument("chunked")
    args = ap.parse_args()
    try:
        if args.cmd == "deck-size":
            if not (args.factor > 0 and args.nbands > args.nvband >= 0 and args.ranks >= 1):
                raise Bad("deck-size: need factor > 0, nbands > nvband >= 0, ranks >= 1")
            cmd_deck_size(args)
        elif args.cmd == "record":
            cmd_record(args)
        elif args.cmd in ("strong", "weak"):
            cmd_scaling(args, args.cmd == "weak")
        else:
            cmd_chunks(args)
    except Bad as e:
        print("scaling_summary: " + str(e), file=sys.stderr)
        return 1
    except (KeyError, TypeError, IndexError) as e:
        print("scaling_summary: a record lacks a field it needs (%r)" % (e,), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
