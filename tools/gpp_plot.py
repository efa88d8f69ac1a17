#!/usr/bin/env python3
"""Charts of gpp's roofline and sweep files (formats: docs/formats.md, section "Charts").

  gpp_plot.py roofline      --csv R.csv --ceilings C.json --policy P   hierarchical roofline of one policy
  gpp_plot.py path          --csv R.csv --ceilings C.json [--level all] v0 -> ... -> tuned with arrows
  gpp_plot.py times         --csv R.csv [--paper]                      step times beside the paper's V100
  gpp_plot.py sweep-heatmap --csv S.csv --policy P [--x T --y T]       time per pair of tunables
  gpp_plot.py sweep-lines   --csv S.csv --policy P                     time against each tunable
  gpp_plot.py table         --csv F.csv [--out T.md]                   a Markdown table of a roofline,
                                                                       sweep or bench CSV

Reads only the machine-readable files (schema_version 1), never gpp's human text. Units are
decimal (GFLOP/s = 1e9 FLOP/s, GB/s = 1e9 B/s). Bad input: one line on stderr, exit 1,
and no file written; charts are rendered in memory first, then each file is written under a
temporary name and renamed. Needs matplotlib (Debian: python3-matplotlib, which brings numpy).
"""
import argparse
import csv
import io
import json
import stat
import math
import os
import re
import sys
import tempfile

SCHEMA_VERSION = "1"
UMASK = os.umask(0)
os.umask(UMASK)

ROOFLINE_COLUMNS = (
    "schema_version,date,git,device,backend,space,deck,nbands,ngpown,ncouls,nw,updates,policy,tunables,"
    "repeats,time_s,flops_counted,reciprocals_counted,flops_nominal,bytes_compulsory,"
    "profiler,clock_control,flops_profiled,dadd,dmul,dfma,bytes_l1,bytes_l2,bytes_dram,byte_definition,"
    "ai_l1,ai_l2,ai_dram,ai_compulsory,gflops_counted,gflops_profiled,fma_ratio,pct_fp64_peak,"
    "registers,occupancy_pct").split(",")

SWEEP_COLUMNS = (
    "schema_version,date,git,version,kokkos,backend,space,device,deck,nbands,ngpown,ncouls,nw,updates,"
    "policy,band_block,ig_block,team_size,vector_length,tile,repeats,time_min_s,time_median_s,"
    "time_max_s,updates_per_s,gflops,rel_error,status,reason").split(",")

# The tunables' columns: those between policy and repeats (one per row of gpp's table of
# tunables, policies/gpp_tunables.cpp).
TUNABLES = SWEEP_COLUMNS[SWEEP_COLUMNS.index("policy") + 1:SWEEP_COLUMNS.index("repeats")]

# The optimisation path of the paper, as gpp's policies name its steps (policies/registry.cpp).
PATH_ORDER = ["v0-collapse3", "v1-reciprocal", "v2-branch2", "v3-noabs", "v4-collapse2", "v5-iw-outside",
              "v6-blocked", "v7-swapped", "v8-bounded", "tuned"]

# Kernel times in seconds on an NVIDIA V100 (1312 MHz), from Table I of C. Yang, "8 Steps to
# 3.7 TFLOP/s on NVIDIA V100 GPU: Roofline Analysis and Other Tricks", arXiv:2008.11326 (2020)
# (the paper's Table I). Columns: Si-214, Si-510.
PAPER_TABLE_I = {
    "v0": (1.691, 24.705), "v1": (1.106, 13.269), "v2": (1.098, 13.260), "v3": (0.987, 11.983),
    "v4": (0.977, 11.246), "v5": (0.873, 10.257), "v6": (1.022, 11.923), "v7": (0.996, 10.901),
    "v8": (0.717, 7.565),
}
# Deck sizes of the paper's two problems (inputs/si214.toml, si510.toml); Si-510's are approximate.
PAPER_DECKS = {
    "si214": {"column": 0, "label": "Si-214", "sizes": (800, 1385, 11075), "rtol": 0.0},
    "si510": {"column": 1, "label": "Si-510", "sizes": (1740, 3010, 24090), "rtol": 0.05},
}

LEVEL_COLORS = {"L1": "#d62728", "L2": "#2ca02c", "HBM": "#1f77b4", "DRAM": "#1f77b4", "L3": "#9467bd",
                "compulsory": "#444444", "analytic": "#000000"}
POLICY_MARKERS = ["o", "s", "^", "v", "D", "P", "X", "p", "h", "*", "<", ">", "8", "d"]


class InputError(Exception):
    """Bad input: reported as one line on stderr, exit status 1."""


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------

MAX_INPUT_BYTES = 256 << 20


def read_input(path, what):
    """The text of a regular file of at most MAX_INPUT_BYTES: opened without blocking (a FIFO
    cannot hold the open), checked on the open descriptor (a FIFO, a device such as /dev/zero,
    a directory or a symlink to one is refused before anything is read)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise InputError(f"cannot read {what} {path}: {e.strerror}")
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise InputError(f"cannot read {what} {path}: it is a directory")
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"cannot read {what} {path}: not a regular file")
        if st.st_size > MAX_INPUT_BYTES:
            raise InputError(f"{path}: {st.st_size} bytes, more than a {what} can be ({MAX_INPUT_BYTES})")
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if size > MAX_INPUT_BYTES:
                raise InputError(f"{path}: more than {MAX_INPUT_BYTES} bytes")
            chunks.append(chunk)
    except OSError as e:
        raise InputError(f"cannot read {what} {path}: {e.strerror}")
    finally:
        os.close(fd)
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text ({e.reason})")


def read_csv(path, columns, kind, text=None):
    """Rows (dicts) of a gpp CSV of the given kind, checked against schema_version 1 (text:
    the file's text when the caller has read it already)."""
    if text is None:
        text = read_input(path, f"{kind} CSV")
    try:
        records = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as e:
        raise InputError(f"{path}: not a readable CSV ({e})")
    if not records:
        raise InputError(f"{path}: empty file, expected a {kind} CSV")
    header = records[0]
    if not header or header[0] != "schema_version":
        raise InputError(f"{path}: first column is '{header[0] if header else ''}', expected 'schema_version' "
                         f"(not a {kind} CSV)")
    rows = []
    for lineno, rec in enumerate(records[1:], start=2):
        if not rec:
            continue
        if rec[0] != SCHEMA_VERSION:
            raise InputError(f"{path}:{lineno}: unknown schema_version '{rec[0]}' (this script reads "
                             f"{kind} CSV schema_version {SCHEMA_VERSION})")
        if len(rec) != len(header):
            raise InputError(f"{path}:{lineno}: {len(rec)} fields, the header has {len(header)}")
        row = dict(zip(header, rec))
        row["_where"] = f"{path}:{lineno}"
        rows.append(row)
    missing = [c for c in columns if c not in header]
    if missing:
        raise InputError(f"{path}: missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                         f"({kind} CSV schema_version {SCHEMA_VERSION})")
    if not rows:
        raise InputError(f"{path}: no data rows")
    return rows


def number(row, column, required=True):
    """The float in row[column]; None for an empty field unless required."""
    text = row[column].strip()
    if text == "":
        if required:
            raise InputError(f"{row['_where']}: empty {column} (policy {row.get('policy', '?')})")
        return None
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{row['_where']}: {column} '{text}' is not a number")
    if not math.isfinite(value):
        raise InputError(f"{row['_where']}: {column} '{text}' is not finite")
    return value


def positive(row, column):
    value = number(row, column)
    if value <= 0:
        raise InputError(f"{row['_where']}: {column} {row[column]} must be positive (log axes)")
    return value


def read_ceilings(path):
    """The ceilings JSON: {device, date, peak (GFLOP/s), compute [...], bandwidth [(level, GB/s)]}."""
    text = read_input(path, "ceilings JSON")
    def no_constant(name):
        # Python reads NaN, Infinity and -Infinity, which JSON does not have.
        raise ValueError(f"{name} is not a JSON number")

    try:
        doc = json.loads(text, parse_constant=no_constant)
    except (ValueError, RecursionError) as e:
        raise InputError(f"{path}: not valid JSON ({e})")
    if not isinstance(doc, dict):
        raise InputError(f"{path}: not a gpp ceilings JSON object")
    version = doc.get("schema_version")
    if str(version) != SCHEMA_VERSION or isinstance(version, bool):
        raise InputError(f"{path}: unknown schema_version '{version}' (this script reads ceilings JSON "
                         f"schema_version {SCHEMA_VERSION})")
    if doc.get("kind") != "gpp-ceilings":
        raise InputError(f"{path}: kind is '{doc.get('kind')}', expected 'gpp-ceilings'")

    def need(obj, key, types, where):
        if not isinstance(obj, dict) or key not in obj:
            raise InputError(f"{path}: missing {where}{key}")
        value = obj[key]
        if not isinstance(value, types) or isinstance(value, bool):
            raise InputError(f"{path}: {where}{key} has the wrong type")
        # A number too large for a double (1e999) reads as inf: no axis can hold it.
        if isinstance(value, float) and not math.isfinite(value):
            raise InputError(f"{path}: {where}{key} is not finite")
        return value

    device = need(doc, "device", dict, "")
    name = need(device, "name", str, "device.")
    backend = device.get("backend", "")
    compute = []
    for i, c in enumerate(need(doc, "compute", list, "")):
        gflops = need(c, "gflops", (int, float), f"compute[{i}].")
        ratio = need(c, "fma_ratio", (int, float), f"compute[{i}].")
        label = need(c, "name", str, f"compute[{i}].")
        if not gflops > 0 or not 0 <= ratio <= 1:
            raise InputError(f"{path}: compute[{i}] needs gflops > 0 and 0 <= fma_ratio <= 1")
        compute.append({"name": label, "gflops": float(gflops), "fma_ratio": float(ratio)})
    peaks = [c["gflops"] for c in compute if c["fma_ratio"] == 1.0]
    if not peaks:
        raise InputError(f"{path}: no FP64 FMA peak (a compute entry with fma_ratio 1)")
    bandwidth = []
    for i, b in enumerate(need(doc, "bandwidth", list, "")):
        level = need(b, "level", str, f"bandwidth[{i}].")
        gbs = need(b, "gbs", (int, float), f"bandwidth[{i}].")
        if not gbs > 0:
            raise InputError(f"{path}: bandwidth[{i}] ({level}) needs gbs > 0")
        bandwidth.append((level, float(gbs)))
    if not bandwidth:
        raise InputError(f"{path}: no bandwidth level")
    return {"path": path, "device": name, "backend": backend, "date": str(doc.get("date", "")),
            "peak": max(peaks), "compute": compute, "bandwidth": bandwidth}


# ---------------------------------------------------------------------------------------------
# Selecting
# ---------------------------------------------------------------------------------------------

def distinct(rows, column):
    seen = []
    for r in rows:
        if r[column] not in seen:
            seen.append(r[column])
    return seen


def select(rows, path, policy=None, deck=None, device=None):
    """Rows matching the filters that are given; an empty selection is an error."""
    for column, wanted in (("policy", policy), ("deck", deck), ("device", device)):
        if wanted is None:
            continue
        kept = [r for r in rows if r[column] == wanted]
        if not kept:
            raise InputError(f"{path}: no row with {column} '{wanted}' (present: {', '.join(distinct(rows, column))})")
        rows = kept
    return rows


def one_group(rows, path):
    """The rows of one (deck, device): charts never mix decks or devices silently."""
    groups = distinct([dict(r, _g=f"{r['deck']} on {r['device']}") for r in rows], "_g")
    if len(groups) > 1:
        raise InputError(f"{path}: rows of several decks/devices ({'; '.join(groups)}): choose with --deck/--device")
    return rows


def path_order(policies, order):
    """Policies in the paper's path order (others after, in file order), or in file order."""
    if order == "csv":
        return list(policies)
    known = [p for p in PATH_ORDER if p in policies]
    return known + [p for p in policies if p not in PATH_ORDER]


def short_name(policy):
    m = re.match(r"(v\d+)-", policy)
    return m.group(1) if m else policy


def memory_level(ceilings):
    """The name of the outermost level: the CSV's *_dram columns are HBM on GPUs, DRAM on CPUs."""
    levels = [lvl for lvl, _ in ceilings["bandwidth"]]
    if "HBM" in levels:
        return "HBM"
    if "DRAM" in levels:
        return "DRAM"
    return "HBM" if ceilings["backend"] in ("Cuda", "HIP", "SYCL") else "DRAM"


def roofline_points(row, dram_name="HBM"):
    """[(level, AI [FLOP/B], GFLOP/s)] of one roofline row.

    Profiled rows give one point per level (profiled FLOPs over the level's bytes, at the
    profiled FLOP rate) and the compulsory point (counted FLOPs, compulsory bytes). A row
    with profiler=none gives the analytic point only."""
    points = []
    if row["profiler"].strip() not in ("", "none"):
        gflops = positive(row, "gflops_profiled")
        for level, column in (("L1", "ai_l1"), ("L2", "ai_l2"), (dram_name, "ai_dram")):
            ai = number(row, column, required=False)
            if ai is not None:
                if ai <= 0:
                    raise InputError(f"{row['_where']}: {column} {row[column]} must be positive (log axes)")
                points.append((level, ai, gflops))
        if not points:
            raise InputError(f"{row['_where']}: profiled row of {row['policy']} without any ai_l1/ai_l2/ai_dram")
        points.append(("compulsory", positive(row, "ai_compulsory"), positive(row, "gflops_counted")))
    else:
        points.append(("analytic", positive(row, "ai_compulsory"), positive(row, "gflops_counted")))
    return points


def fma_ceiling(peak, fma_ratio):
    """FP64 ceiling of a kernel whose FP64 instructions are a fraction f FMAs: peak (1 + f) / 2."""
    return peak * (1.0 + fma_ratio) / 2.0


def check_device(rows, ceilings, path):
    for r in rows:
        if r["device"] != ceilings["device"]:
            raise InputError(f"{path}: device '{r['device']}' but the ceilings in {ceilings['path']} are of "
                             f"'{ceilings['device']}'")


def log_limits(values, pad_low, pad_high):
    """Decade-aligned log-axis limits that keep every value inside with some margin."""
    lo = min(values) / pad_low
    hi = max(values) * pad_high
    return 10 ** math.floor(math.log10(lo)), 10 ** math.ceil(math.log10(hi))


def roofline_limits(points, ceilings):
    """(xlim, ylim) covering every point, every ridge point and the peak with room for labels.

    Decade-aligned where that costs little, so that the decade ticks carry labels; the top
    stops a little above the peak so that the interesting band is not squeezed."""
    peak = ceilings["peak"]
    ridges = [peak / gbs for _, gbs in ceilings["bandwidth"]]
    xs = [p[1] for p in points]
    ys = [p[2] for p in points]
    x_lo = 10 ** math.floor(math.log10(min(min(xs), min(ridges)) / 3.0))
    x_hi = 10 ** math.ceil(math.log10(max(max(xs), max(ridges)) * 2.0))
    y_lo = 10 ** math.floor(math.log10(min(min(ys) / 3.0, peak / 30.0)))
    y_hi = max(peak, max(ys)) * 2.2
    return (x_lo, x_hi), (y_lo, y_hi)


# ---------------------------------------------------------------------------------------------
# Sweep extraction
# ---------------------------------------------------------------------------------------------

def tunable_key(value):
    """Sort key of a tunable's value: integers numerically, tiles (64x2x1) by their integers."""
    parts = value.split("x")
    if all(p.isdigit() for p in parts):
        return (0, tuple(int(p) for p in parts), value)
    return (1, (), value)


def sweep_selection(rows, path, policy, deck=None, device=None):
    rows = one_group(select(rows, path, policy=policy, deck=deck, device=device), path)
    for r in rows:
        if r["status"] not in ("ok", "invalid", "wrong"):
            raise InputError(f"{r['_where']}: unknown status '{r['status']}' (ok, invalid, wrong)")
        if r["status"] != "invalid":
            positive(r, "time_median_s")
    return rows


def varying_tunables(rows):
    """Tunables with more than one value among the rows, in the CSV's column order."""
    return [t for t in TUNABLES if len({r[t] for r in rows if r[t] != ""}) > 1]


def best_row(rows, path):
    ok = [r for r in rows if r["status"] == "ok"]
    if not ok:
        raise InputError(f"{path}: no row with status=ok for policy {rows[0]['policy']}")
    return min(ok, key=lambda r: float(r["time_median_s"]))


def fixed_rows(rows, best, free):
    """Rows whose tunables other than `free` equal the best row's (the others at their best)."""
    others = [t for t in TUNABLES if t not in free]
    return [r for r in rows if all(r[t] == best[t] for t in others)]


def heatmap_grid(rows, path, policy, x, y, deck=None, device=None):
    """The data of one heatmap: time_median_s per (x, y) with the other tunables at the best row's.

    Returns {"x_values", "y_values" (sorted), "cells": {(xv, yv): {"status", "time", "reason",
    "rel_error"}}, "best": (xv, yv), "fixed": {tunable: value}, "best_row": row}. A point
    listed twice keeps its last row (a resumed sweep appends)."""
    rows = sweep_selection(rows, path, policy, deck, device)
    vary = varying_tunables(rows)
    for name in (x, y):
        if name not in TUNABLES:
            raise InputError(f"unknown tunable '{name}' (tunables: {', '.join(TUNABLES)})")
        if name not in vary:
            raise InputError(f"{path}: tunable {name} does not vary for policy {policy} "
                             f"(varying: {', '.join(vary) or 'none'})")
    if x == y:
        raise InputError(f"--x and --y are both {x}")
    best = best_row(rows, path)
    sel = fixed_rows(rows, best, (x, y))
    cells = {}
    for r in sel:
        ran = r["status"] != "invalid"
        cells[(r[x], r[y])] = {"status": r["status"], "reason": r["reason"],
                               "time": float(r["time_median_s"]) if ran else None,
                               "range": (float(r["time_min_s"]), float(r["time_max_s"])) if ran else None,
                               "rel_error": number(r, "rel_error", required=False)}
    # Ties: verified points whose range of repeats (min..max) overlaps the best point's,
    # i.e. not faster or slower than it beyond the noise of the runs.
    best_lo, best_hi = float(best["time_min_s"]), float(best["time_max_s"])
    ties = sorted(k for k, c in cells.items()
                  if c["status"] == "ok" and k != (best[x], best[y])
                  and c["range"][0] <= best_hi and c["range"][1] >= best_lo)
    return {"x": x, "y": y,
            "x_values": sorted({k[0] for k in cells}, key=tunable_key),
            "y_values": sorted({k[1] for k in cells}, key=tunable_key),
            "cells": cells, "best": (best[x], best[y]), "best_row": best, "ties": ties,
            "fixed": {t: best[t] for t in vary if t not in (x, y)}}


def line_series(rows, best, tunable):
    """[(value, row)] along one tunable with the others at the best row's, sorted by value."""
    sel = {}
    for r in fixed_rows(rows, best, (tunable,)):
        sel[r[tunable]] = r
    return [(v, sel[v]) for v in sorted(sel, key=tunable_key)]


# ---------------------------------------------------------------------------------------------
# Drawing helpers
# ---------------------------------------------------------------------------------------------

def pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        # Which interpreter: the python3 on PATH is often not the one matplotlib was installed for.
        raise InputError(f"matplotlib cannot be imported by {sys.executable} (Python {sys.version.split()[0]}: {e}); "
                         "install it for that interpreter (Debian: apt-get install python3-matplotlib) or run "
                         "the script with one that has it (gpp: GPP_PLOT_PYTHON)")
    return plt


def fmt_rate(gflops):
    return f"{gflops / 1000:.3g} TFLOP/s" if gflops >= 1000 else f"{gflops:.3g} GFLOP/s"


def fmt_bw(gbs):
    return f"{gbs / 1000:.3g} TB/s" if gbs >= 1000 else f"{gbs:.3g} GB/s"


def fmt_num(value):
    """3 significant digits without exponents for the magnitudes charts show (1e-3 .. 1e6)."""
    if value >= 1000:
        return f"{value:.0f}"
    return f"{value:.3g}"


def fmt_time(seconds):
    return f"{seconds * 1000:.3g} ms" if seconds < 1 else f"{seconds:.3g} s"


def day(date):
    return date[:10] if date else "date unknown"


def setup_roofline_axes(ax):
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("Arithmetic Intensity [FLOP/Byte]")
    ax.set_ylabel("Performance [GFLOP/s]")
    ax.grid(True, which="major", color="#dddddd", linewidth=0.6)
    ax.grid(True, which="minor", color="#f2f2f2", linewidth=0.4)
    ax.set_axisbelow(True)


def plain_number(value, _pos=None):
    """Tick label in plain decimal notation: 0.1, 1, 20, 5000, 20000."""
    if value >= 1:
        return f"{value:.0f}"
    return f"{value:.6g}"


def label_log_axes(ax):
    """Plain decimal tick labels; 1-2-5 ticks on an axis that spans fewer than three decades,
    so that every axis carries at least three labels."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    for axis, (lo, hi) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
        subs = (1.0, 2.0, 5.0) if math.log10(hi / lo) < 3 else (1.0,)
        axis.set_major_locator(LogLocator(base=10, subs=subs))
        axis.set_major_formatter(FuncFormatter(plain_number))
        axis.set_minor_formatter(NullFormatter())


def text_angle(ax, x0, y0, x1, y1):
    """Angle on screen of the data segment (x0, y0)-(x1, y1); valid once the layout is fixed."""
    (a, b), (c, d) = ax.transData.transform([(x0, y0), (x1, y1)])
    return math.degrees(math.atan2(d - b, c - a))


def display_points(ax, points):
    """Pixel positions of (level, ai, gflops) points, for label placement."""
    return [tuple(xy) for xy in ax.transData.transform([(p[1], p[2]) for p in points])] if points else []


def line_pixels(ax, x0, y0, x1, y1, step=4.0):
    """Pixels along a segment that is straight on screen (a roof on log-log axes)."""
    (a, b), (c, d) = ax.transData.transform([(x0, y0), (x1, y1)])
    n = max(2, int(math.hypot(c - a, d - b) / step))
    return [(a + (c - a) * i / n, b + (d - b) * i / n) for i in range(n + 1)]


def place_label(ax, candidates, avoid, placed, fallback=True, lines=(), **kw):
    """Draw the first candidate (x, y, {text options}) whose box stays inside the axes, covers
    no point of `avoid` (pixels, with a marker's margin) nor of `lines` (pixels of lines the
    text must not cross) and overlaps no box in `placed`; else the first candidate (fallback)
    or nothing. Returns the Text or None."""
    from matplotlib.transforms import Bbox
    renderer = ax.figure.canvas.get_renderer()
    axbox = ax.get_window_extent(renderer)
    pad = 6.0 * ax.figure.dpi / 72.0  # about a marker's radius
    for x, y, extra in candidates:
        t = ax.text(x, y, **dict(kw, **extra))
        bb = t.get_window_extent(renderer)
        grown = Bbox.from_extents(bb.x0 - pad, bb.y0 - pad, bb.x1 + pad, bb.y1 + pad)
        inside = axbox.x0 <= bb.x0 and bb.x1 <= axbox.x1 and axbox.y0 <= bb.y0 and bb.y1 <= axbox.y1
        if (inside and not any(grown.contains(px, py) for px, py in avoid)
                and not any(bb.contains(px, py) for px, py in lines) and not any(bb.overlaps(o) for o in placed)):
            placed.append(bb)
            return t
        t.remove()
    if not fallback:
        return None
    x, y, extra = candidates[0]
    t = ax.text(x, y, **dict(kw, **extra))
    placed.append(t.get_window_extent(renderer))
    return t


def draw_roofs(ax, ceilings, xlim, ylim, fma_ratio=None, fma_label="", points=(), levels=None):
    """Bandwidth roofs (of `levels`, default all) up to the FP64 peak, the peak, other compute
    ceilings and the FMA-ratio ceiling, each labelled with its value where it covers no data
    point and crosses no other line. Call after the axes' position and limits are final.
    Returns (label boxes, line pixels) for further labels to avoid."""
    peak = ceilings["peak"]
    x_lo, x_hi = xlim
    y_lo, y_hi = ylim
    avoid = display_points(ax, points)
    placed = []
    roofs = [(lvl, gbs) for lvl, gbs in ceilings["bandwidth"] if levels is None or lvl in levels]
    x_left = min(peak / gbs for _, gbs in ceilings["bandwidth"])
    if roofs:
        x_left = min(peak / gbs for _, gbs in roofs)
    horizontals = [("peak", peak, "black", 1.8, "-", f"FP64 FMA peak {fmt_rate(peak)}", True, 9)]
    for c in ceilings["compute"]:
        if c["gflops"] != peak:
            horizontals.append((c["name"], c["gflops"], "#555555", 1.0, ":", f"{c['name']} {fmt_rate(c['gflops'])}",
                                False, 8))
    if fma_ratio is not None:
        y = fma_ceiling(peak, fma_ratio)
        horizontals.append(("fma", y, "#555555", 1.3, "--",
                            f"FP64 at FMA ratio {fma_ratio:.2f}{fma_label}: {fmt_rate(y)}", False, 8.5))
    pixels = {}
    for level, gbs in roofs:
        ax.plot([x_lo, peak / gbs], [gbs * x_lo, peak], color=LEVEL_COLORS.get(level, "#7f7f7f"), linewidth=1.6,
                zorder=2)
        pixels[level] = line_pixels(ax, x_lo, gbs * x_lo, peak / gbs, peak)
    for name, y, color, width, style, _, _, _ in horizontals:
        start = x_left * y / peak
        ax.plot([start, x_hi], [y, y], color=color, linewidth=width, linestyle=style, zorder=2)
        pixels[name] = line_pixels(ax, start, y, x_hi, y)

    def others(names):
        return [px for key, pxs in pixels.items() if key not in names for px in pxs]

    # Roofs closer on screen than about two lines of their labels' text (a machine whose
    # levels measured alike: a quick ceilings file) share one label, from the highest down;
    # each alone would find no room between the lines and fall back onto the others.
    gap = 2.2 * 9 * ax.figure.dpi / 72.0
    x_ref = x_lo * 1.3
    groups = []
    for level, gbs in sorted(roofs, key=lambda r: -r[1]):
        y_px = ax.transData.transform([(x_ref, gbs * x_ref)])[0][1]
        if groups and groups[-1][-1][2] - y_px < gap:
            groups[-1].append((level, gbs, y_px))
        else:
            groups.append([(level, gbs, y_px)])
    order = [lvl for lvl, _ in roofs]
    for group in groups:
        gbs = min(g for _, g, _ in group)  # the label starts where the lowest line enters the axes,
        top = max(g for _, g, _ in group)  # above the highest
        group.sort(key=lambda g: order.index(g[0]))  # named in the levels' order (L1 first)
        ridge = peak / top
        if len(group) == 1:
            text, color = f"{group[0][0]} {fmt_bw(top)}", LEVEL_COLORS.get(group[0][0], "#7f7f7f")
        else:
            unit = fmt_bw(top).split()[-1]
            scale = 1000 if unit == "TB/s" else 1
            text = ", ".join(f"{lvl} {g / scale:.3g}" for lvl, g, _ in group) + f" {unit}"
            color = "#333333"
        # On the slope, above the line: from its left end (or where it enters the axes) upwards.
        x0 = max(x_lo * 1.3, y_lo * 1.6 / gbs)
        candidates = []
        for f in (1.0, 1.8, 3.2, 5.6, 10.0, 0.7):
            xl = x0 * f
            if x_lo < xl and xl * 2.5 < ridge:
                angle = text_angle(ax, xl, top * xl, xl * 10, top * xl * 10)
                candidates.append((xl, top * xl * 1.15, {"rotation": angle}))
        if candidates:
            place_label(ax, candidates, avoid, placed, lines=others({lvl for lvl, _, _ in group}), s=text,
                        rotation_mode="anchor", color=color, fontsize=9, ha="left", va="bottom", zorder=3)
    for name, y, color, _, _, text, above, size in horizontals:
        near, far = (1.08, 1 / 1.08) if above else (1 / 1.08, 1.08)
        start = x_left * y / peak
        candidates = [(x_hi / 1.25, y * near, {"ha": "right"}),
                      (math.sqrt(start * x_hi), y * near, {"ha": "center"}),
                      (start * 1.3, y * near, {"ha": "left"}),
                      (x_hi / 1.25, y * far, {"ha": "right", "va": "top" if above else "bottom"}),
                      (math.sqrt(start * x_hi), y * far, {"ha": "center", "va": "top" if above else "bottom"})]
        place_label(ax, candidates, avoid, placed, lines=others({name}), s=text, va="bottom" if above else "top",
                    fontsize=size, color=color, zorder=3)
    return placed, [px for pxs in pixels.values() for px in pxs]


def render(fig, formats):
    """{format: bytes} of a figure; the figure is closed."""
    plt = pyplot()
    out = {}
    try:
        for fmt in formats:
            buf = io.BytesIO()
            fig.savefig(buf, format=fmt, dpi=150, bbox_inches="tight", metadata={"Software": "gpp_plot.py"}
                        if fmt == "png" else None)
            out[fmt] = buf.getvalue()
    finally:
        plt.close(fig)
    return out


def check_outputs(paths, inputs):
    """Before anything is written: no output is an input (the same file however spelled:
    a symlink, a hard link) nor another output, and none is a directory or a special file."""
    ids = {}
    for p in inputs:
        if p:
            try:
                st = os.stat(p)
                ids[(st.st_dev, st.st_ino)] = p
            except OSError:
                pass
    seen = {}
    for path in paths:
        target = os.path.realpath(path)
        if target in seen:
            raise InputError(f"{path}: written twice (also as {seen[target]})")
        seen[target] = path
        try:
            st = os.stat(target)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{path}: exists and is not a regular file")
        if (st.st_dev, st.st_ino) in ids:
            raise InputError(f"{path}: it is the input {ids[(st.st_dev, st.st_ino)]} (it would be replaced)")
        # The rename that replaces it would ignore its mode: a file its user may not write is
        # refused, as the shell's > refuses it (gpp's own outputs follow the same rule).
        if not os.access(target, os.W_OK):
            raise InputError(f"{path}: Permission denied (it exists, mode {stat.filemode(st.st_mode)[1:]}: "
                             "no file its user may not write is replaced, as the shell's > would not)")


def write_outputs(outputs):
    """Write each (path, bytes) under a temporary name beside the file it replaces (through a
    symlink to its target), keeping that file's mode, then rename."""
    for path, data in outputs:
        target = os.path.realpath(path)
        directory = os.path.dirname(target)
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(target) + ".", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            try:
                mode = stat.S_IMODE(os.stat(target).st_mode)  # a replaced file keeps its mode
            except OSError:
                mode = 0o666 & ~UMASK  # mkstemp makes 0600; give a new file the mode open() would
            os.chmod(tmp, mode)
            os.replace(tmp, target)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        print(path)


def safe(text):
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text)


def footer(fig, text):
    fig.text(0.01, 0.005, text, fontsize=7, color="#555555", ha="left", va="bottom")


# ---------------------------------------------------------------------------------------------
# Charts
# ---------------------------------------------------------------------------------------------

def draw_roofline(row, ceilings, csv_path):
    """Hierarchical roofline of one (policy, deck, device) row."""
    plt = pyplot()
    dram = memory_level(ceilings)
    points = roofline_points(row, dram)
    fma = number(row, "fma_ratio", required=False)
    xlim, ylim = roofline_limits(points, ceilings)
    fig = plt.figure(figsize=(10.5, 6.4), dpi=150)
    ax = fig.add_axes([0.08, 0.10, 0.58, 0.80])
    setup_roofline_axes(ax)
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    label_log_axes(ax)
    fma_source = " (profiled)" if row["profiler"].strip() not in ("", "none") else " (counted)"
    draw_roofs(ax, ceilings, xlim, ylim, fma, fma_source, points)
    for level, ai, gflops in points:
        color = LEVEL_COLORS.get(level, "#7f7f7f")
        if level == "compulsory":
            label = f"compulsory bytes, counted FLOPs: AI {fmt_num(ai)}, {fmt_rate(gflops)}"
            ax.scatter([ai], [gflops], s=70, facecolors="none", edgecolors=color, linewidths=1.6, marker="D",
                       zorder=5, label=label)
        elif level == "analytic":
            label = f"analytic (no profiler): compulsory AI {fmt_num(ai)}, {fmt_rate(gflops)} counted"
            ax.scatter([ai], [gflops], s=90, color=color, marker="D", zorder=5, label=label)
        else:
            label = f"{level}: AI {fmt_num(ai)} FLOP/B, {fmt_rate(gflops)}"
            ax.scatter([ai], [gflops], s=90, color=color, edgecolors="black", linewidths=0.6, marker="o",
                       zorder=5, label=label)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8.5, frameon=False,
              title=f"{row['policy']} ({row['deck']})", title_fontsize=10, alignment="left")
    peak = ceilings["peak"]
    achieved = points[0][2]
    facts = [f"time {fmt_time(number(row, 'time_s'))} (median of {row['repeats']})",
             f"{fmt_rate(achieved)} = {100 * achieved / peak:.1f}% of FP64 peak"]
    if fma is not None:
        facts.append(f"= {100 * achieved / fma_ceiling(peak, fma):.1f}% of the FMA-ratio ceiling")
        facts.append(f"FMA ratio {fma:.2f}{fma_source}")
    counted = number(row, "flops_counted", required=False)
    nominal = number(row, "flops_nominal", required=False)
    profiled = number(row, "flops_profiled", required=False)
    updates = number(row, "updates", required=False)
    if updates:
        if profiled:
            facts.append(f"FLOPs/update: {profiled / updates:.1f} profiled")
        if counted:
            facts.append(f"FLOPs/update: {counted / updates:.1f} counted")
        if nominal:
            facts.append(f"FLOPs/update: {nominal / updates:.1f} nominal (paper)")
    if row["registers"].strip():
        facts.append(f"registers {row['registers']}")
    if row["occupancy_pct"].strip():
        facts.append(f"occupancy {float(row['occupancy_pct']):.1f}% (achieved)")
    if row["tunables"].strip():
        facts.append(f"tunables: {row['tunables']}")
    fig.text(0.675, 0.62, "\n".join(facts), fontsize=8.5, va="top", ha="left", linespacing=1.45)
    ax.set_title(f"Hierarchical roofline: {row['policy']}, {row['deck']}\n{row['device']} ({row['backend']}), "
                 f"{day(row['date'])}", fontsize=11)
    profiler = row["profiler"] or "none"
    footer(fig, f"gpp {row['git']} | profiler {profiler}"
                + (f", clock control {row['clock_control']}" if row["clock_control"] else "")
                + (f", bytes {row['byte_definition']}" if row["byte_definition"] else "")
                + f" | ceilings: {os.path.basename(ceilings['path'])} ({day(ceilings['date'])}) | decimal units")
    return fig


def draw_path(rows, ceilings, csv_path, levels, order):
    """The optimisation path on one roofline: a marker per step, arrows between successive steps."""
    plt = pyplot()
    dram = memory_level(ceilings)
    policies = path_order(distinct(rows, "policy"), order)
    by_policy = {}
    for r in rows:
        if r["policy"] in by_policy:
            raise InputError(f"{r['_where']}: second row for policy {r['policy']} on {r['deck']}, {r['device']}")
        by_policy[r["policy"]] = r
    series = {}  # level -> [(policy, ai, gflops)]
    for p in policies:
        for level, ai, gflops in roofline_points(by_policy[p], dram):
            if level == "compulsory":
                continue
            if levels != ["all"] and level not in levels and level != "analytic":
                continue
            series.setdefault(level, []).append((p, ai, gflops))
    all_points = [(lvl, ai, g) for lvl, pts in series.items() for _, ai, g in pts]
    fmas = [number(by_policy[p], "fma_ratio", required=False) for p in policies]
    fmas = [f for f in fmas if f is not None]
    xlim, ylim = roofline_limits(all_points, ceilings)
    fig = plt.figure(figsize=(11.5, 7.0), dpi=150)
    ax = fig.add_axes([0.07, 0.09, 0.66, 0.82])
    setup_roofline_axes(ax)
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    label_log_axes(ax)
    last = by_policy[policies[-1]]
    last_fma = number(last, "fma_ratio", required=False)
    placed, lines = draw_roofs(ax, ceilings, xlim, ylim, last_fma,
                               f" ({last['policy']})" if last_fma is not None else "", all_points,
                               None if levels == ["all"] else levels)
    marker = {p: POLICY_MARKERS[i % len(POLICY_MARKERS)] for i, p in enumerate(policies)}
    drawn = [lvl for lvl in ("L1", "L2", dram, "analytic") if lvl in series]
    for level in drawn:
        pts = series[level]
        color = LEVEL_COLORS.get(level, "#7f7f7f")
        for (p0, x0, y0), (p1, x1, y1) in zip(pts, pts[1:]):
            ax.annotate("", xy=(x1, y1), xytext=(x0, y0), zorder=4,
                        arrowprops=dict(arrowstyle="-|>", color=color, lw=1.3, alpha=0.8, shrinkA=4.5, shrinkB=4.5,
                                        mutation_scale=11))
        for p, ai, gflops in pts:
            ax.scatter([ai], [gflops], s=80, marker=marker[p], color=color, edgecolors="black", linewidths=0.5,
                       zorder=5)
    # Step names next to the points where they fit; the legend's markers name the others.
    avoid = display_points(ax, all_points)
    to_data = ax.transData.inverted()
    for level in drawn:
        color = LEVEL_COLORS.get(level, "#7f7f7f")
        for p, ai, gflops in series[level]:
            px, py = ax.transData.transform((ai, gflops))
            off = 7.0 * fig.dpi / 72.0
            candidates = []
            for dx, dy, ha, va in ((off, -off, "left", "top"), (off, off, "left", "bottom"),
                                   (-off, off, "right", "bottom"), (-off, -off, "right", "top")):
                x, y = to_data.transform((px + dx, py + dy))
                candidates.append((x, y, {"ha": ha, "va": va}))
            place_label(ax, candidates, avoid, placed, fallback=False, lines=lines, s=short_name(p), fontsize=7.5,
                        color=color, zorder=6)
    from matplotlib.lines import Line2D
    level_handles = [Line2D([], [], color=LEVEL_COLORS.get(lvl, "#7f7f7f"), marker="o", linestyle="-",
                            label={"analytic": "analytic (compulsory AI, counted FLOPs)"}.get(lvl, lvl))
                     for lvl in ("L1", "L2", dram, "analytic") if lvl in series]
    step_handles = [Line2D([], [], color="#666666", marker=marker[p], linestyle="", markersize=7,
                           label=f"{p}: {fmt_time(number(by_policy[p], 'time_s'))}") for p in policies]
    leg1 = ax.legend(handles=level_handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8.5,
                     frameon=False, title="level", title_fontsize=9.5, alignment="left")
    ax.add_artist(leg1)
    ax.legend(handles=step_handles, loc="upper left", bbox_to_anchor=(1.02, 0.70), fontsize=8.5, frameon=False,
              title="step: median time", title_fontsize=9.5, alignment="left")
    first = rows[0]
    which = "hierarchical" if levels == ["all"] else "/".join(levels)
    ax.set_title(f"Optimisation path ({which} roofline): {first['deck']}\n{first['device']} ({first['backend']}), "
                 f"{day(max(r['date'] for r in rows))}", fontsize=11)
    profilers = sorted({r["profiler"] or "none" for r in rows})
    defs = sorted({r["byte_definition"] for r in rows if r["byte_definition"]})
    footer(fig, f"gpp {first['git']} | profiler {', '.join(profilers)}"
                + (f", bytes {'; '.join(defs)}" if defs else "")
                + f" | ceilings: {os.path.basename(ceilings['path'])} ({day(ceilings['date'])}) | decimal units")
    return fig


def paper_deck_of(row, requested):
    if requested:
        return requested
    sizes = (number(row, "nbands"), number(row, "ngpown"), number(row, "ncouls"))
    for key, deck in PAPER_DECKS.items():
        if all(abs(a - b) <= deck["rtol"] * b for a, b in zip(sizes, deck["sizes"])):
            return key
    raise InputError(f"deck {row['deck']} ({int(sizes[0])} bands, {int(sizes[1])} G', {int(sizes[2])} G) has "
                     f"neither Si-214's nor Si-510's sizes: name the paper's column with --paper-deck")


def draw_times(rows, csv_path, paper, paper_deck, order):
    plt = pyplot()
    import numpy as np
    policies = path_order(distinct(rows, "policy"), order)
    by_policy = {}
    for r in rows:
        if r["policy"] in by_policy:
            raise InputError(f"{r['_where']}: second row for policy {r['policy']} on {r['deck']}, {r['device']}")
        by_policy[r["policy"]] = r
    times = [positive(by_policy[p], "time_s") for p in policies]
    first = rows[0]
    column = None
    if paper:
        key = paper_deck_of(first, paper_deck)
        column = PAPER_DECKS[key]["column"]
        paper_label = f"paper: V100, {PAPER_DECKS[key]['label']} (Yang 2020, Table I)"
    paper_times = [PAPER_TABLE_I.get(short_name(p), (None, None))[column] if paper else None for p in policies]
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(13, 5.6), gridspec_kw={"width_ratios": [1.35, 1]})
    x = np.arange(len(policies))
    width = 0.4 if paper else 0.6
    ours_label = f"gpp: {first['device']}, {first['deck']}"
    bars = ax.bar(x - (width / 2 if paper else 0), times, width, color="#1f77b4", label=ours_label)
    for b, t in zip(bars, times):
        ax.annotate(f"{t:.3g}", (b.get_x() + b.get_width() / 2, t), xytext=(0, 2), textcoords="offset points",
                    ha="center", va="bottom", fontsize=7.5, color="#1f77b4")
    if paper:
        px = [i + width / 2 for i, t in enumerate(paper_times) if t is not None]
        pt = [t for t in paper_times if t is not None]
        pb = ax.bar(px, pt, width, color="#bbbbbb", edgecolor="#777777", label=paper_label)
        for b, t in zip(pb, pt):
            ax.annotate(f"{t:.3g}", (b.get_x() + b.get_width() / 2, t), xytext=(0, 2), textcoords="offset points",
                        ha="center", va="bottom", fontsize=7.5, color="#555555")
    ax.set_xticks(x)
    ax.set_xticklabels(policies, rotation=35, ha="right", fontsize=8.5)
    ax.set_ylabel("Kernel time [s] (median)")
    ax.set_ylim(0, max(times + [t for t in paper_times if t is not None]) * 1.15)
    ax.grid(True, axis="y", color="#e5e5e5")
    ax.set_axisbelow(True)
    ax.legend(loc="upper right", fontsize=8.5)
    ax.set_title("Time per step", fontsize=10)
    # Speed-up over the first step: the shape of the path, comparable across machines.
    ax2.plot(x, [times[0] / t for t in times], marker="o", color="#1f77b4", label=ours_label)
    for i, t in enumerate(times):
        ax2.annotate(f"{times[0] / t:.2f}", (i, times[0] / t), xytext=(0, 7), textcoords="offset points",
                     ha="center", va="bottom", fontsize=7.5, color="#1f77b4", zorder=5,
                     bbox=dict(boxstyle="round,pad=0.1", facecolor="white", edgecolor="none", alpha=0.85))
    if paper and paper_times[0] is not None:
        idx = [i for i, t in enumerate(paper_times) if t is not None]
        ax2.plot(idx, [paper_times[0] / paper_times[i] for i in idx], marker="s", color="#777777",
                 linestyle="--", label=paper_label)
    ax2.axhline(1.0, color="#999999", linewidth=0.8)
    ax2.set_xticks(x)
    ax2.set_xticklabels([short_name(p) for p in policies], fontsize=8.5)
    ax2.set_ylabel(f"Speed-up over {policies[0]}")
    ax2.set_ylim(0, max([times[0] / t for t in times] + ([paper_times[0] / t for t in paper_times if t] if paper and
                                                           paper_times[0] else [])) * 1.15)
    ax2.grid(True, color="#e5e5e5")
    ax2.set_axisbelow(True)
    ax2.legend(loc="upper left", fontsize=8)
    ax2.set_title(f"Speed-up over {short_name(policies[0])}", fontsize=10)
    fig.suptitle(f"Kernel time of each step: {first['deck']} on {first['device']} ({first['backend']}), "
                 f"{day(max(r['date'] for r in rows))}" + (" vs the paper's V100" if paper else ""), fontsize=11)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    footer(fig, f"gpp {first['git']} | median of {first['repeats']} fenced runs | "
                + ("paper: OpenACC on a V100 at 1312 MHz, C. Yang, arXiv:2008.11326, Table I" if paper else ""))
    return fig


def cell_text_color(rgba):
    r, g, b = rgba[:3]
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.55 else "white"


def draw_heatmap(grid, rows):
    plt = pyplot()
    import numpy as np
    from matplotlib.colors import LogNorm, Normalize
    from matplotlib.patches import Patch, Rectangle
    xs, ys, cells = grid["x_values"], grid["y_values"], grid["cells"]
    data = np.full((len(ys), len(xs)), np.nan)
    for (xv, yv), c in cells.items():
        if c["status"] == "ok":
            data[ys.index(yv), xs.index(xv)] = c["time"]
    ok_times = data[~np.isnan(data)]
    lo, hi = float(ok_times.min()), float(ok_times.max())
    norm = LogNorm(lo, hi) if hi > 4 * lo else Normalize(lo, hi if hi > lo else lo * 1.01)
    cmap = plt.get_cmap("viridis").copy()
    cmap.set_bad("white")
    n_reasons = len({c["reason"] for c in cells.values() if c["status"] == "invalid"})
    legend_lines = 1 + n_reasons + any(c["status"] == "wrong" for c in cells.values()) + bool(grid["ties"])
    width = max(7.0, 1.25 * len(xs) + 3.8)
    axes_h = max(3.6, 0.8 * len(ys) + 1.6)
    below = 0.75 + 0.2 * legend_lines + 0.35  # tick labels and x label, legend, footer (inches)
    height = axes_h + below + 0.8
    fig, ax = plt.subplots(figsize=(width, height), dpi=150)
    fig.subplots_adjust(left=0.9 / width, right=1 - 0.2 / width, bottom=below / height, top=1 - 0.8 / height)
    mesh = ax.imshow(np.ma.masked_invalid(data), cmap=cmap, norm=norm, origin="lower", aspect="auto")
    cb = fig.colorbar(mesh, ax=ax, pad=0.02)
    cb.set_label("time_median_s [s]")
    reasons = []
    for (xv, yv), c in cells.items():
        i, j = xs.index(xv), ys.index(yv)
        if c["status"] == "ok":
            ax.text(i, j, f"{c['time']:.3g}", ha="center", va="center", fontsize=8.5,
                    color=cell_text_color(cmap(norm(c["time"]))))
        elif c["status"] == "invalid":
            if c["reason"] not in reasons:
                reasons.append(c["reason"])
            ax.add_patch(Rectangle((i - 0.5, j - 0.5), 1, 1, facecolor="#eeeeee", edgecolor="#888888",
                                   hatch="///", linewidth=0.0, zorder=2))
            ax.text(i, j, f"invalid ({chr(ord('a') + reasons.index(c['reason']))})", ha="center", va="center",
                    fontsize=7.5, color="#333333", zorder=3,
                    bbox=dict(boxstyle="round,pad=0.15", facecolor="#eeeeee", edgecolor="none"))
        else:  # wrong: ran, failed verification
            ax.add_patch(Rectangle((i - 0.5, j - 0.5), 1, 1, facecolor="#f4b6b6", edgecolor="#c00000",
                                   hatch="xx", linewidth=1.5, zorder=2))
            err = f"\nrel err {c['rel_error']:.1e}" if c["rel_error"] is not None else ""
            ax.text(i, j, f"WRONG\n{c['time']:.3g}{err}", ha="center", va="center", fontsize=7, color="#8b0000",
                    zorder=3, fontweight="bold",
                    bbox=dict(boxstyle="round,pad=0.15", facecolor="#f4b6b6", edgecolor="none"))
    for i, xv in enumerate(xs):
        for j, yv in enumerate(ys):
            if (xv, yv) not in cells:
                ax.text(i, j, "not swept", ha="center", va="center", fontsize=7, color="#999999")
    bi, bj = xs.index(grid["best"][0]), ys.index(grid["best"][1])
    ax.add_patch(Rectangle((bi - 0.5, bj - 0.5), 1, 1, fill=False, edgecolor="#ff7f0e", linewidth=3.5, zorder=4))
    for (xv, yv) in grid["ties"]:
        ti, tj = xs.index(xv), ys.index(yv)
        ax.add_patch(Rectangle((ti - 0.45, tj - 0.45), 0.9, 0.9, fill=False, edgecolor="#ff7f0e", linewidth=1.8,
                               linestyle="--", zorder=4))
    ax.set_xticks(range(len(xs)))
    ax.set_xticklabels(xs)
    ax.set_yticks(range(len(ys)))
    ax.set_yticklabels(ys)
    ax.set_xlabel(grid["x"])
    ax.set_ylabel(grid["y"])
    best = grid["best_row"]
    handles = [Patch(facecolor="none", edgecolor="#ff7f0e", linewidth=2.5,
                     label=f"best: {grid['x']}={grid['best'][0]}, {grid['y']}={grid['best'][1]}, "
                           f"{float(best['time_median_s']):.4g} s")]
    if grid["ties"]:
        handles.append(Patch(facecolor="none", edgecolor="#ff7f0e", linewidth=1.5, linestyle="--",
                             label=f"ties with the best ({len(grid['ties'])}): their min..max over the repeats "
                                   f"overlaps the best's"))
    for k, reason in enumerate(reasons):
        handles.append(Patch(facecolor="#eeeeee", edgecolor="#888888", hatch="///",
                             label=f"invalid ({chr(ord('a') + k)}): {reason}"))
    if any(c["status"] == "wrong" for c in cells.values()):
        handles.append(Patch(facecolor="#f4b6b6", edgecolor="#c00000", hatch="xx",
                             label="wrong: ran, failed verification (time shown)"))
    fig.legend(handles=handles, loc="lower left", bbox_to_anchor=(0.9 / width, 0.3 / height), fontsize=8,
               frameon=False, borderaxespad=0.0)
    fixed = ", ".join(f"{k}={v}" for k, v in grid["fixed"].items())
    ax.set_title(f"Sweep of {best['policy']}: {best['deck']} on {best['device']} ({best['backend']}), "
                 f"{day(best['date'])}\ntime_median_s per ({grid['x']}, {grid['y']})"
                 + (f"; others at the best point: {fixed}" if fixed else ""), fontsize=10)
    footer(fig, f"gpp {best['git']}, Kokkos {best['kokkos']} | median of {best['repeats']} fenced runs per point")
    return fig


def draw_lines(rows, path, policy):
    plt = pyplot()
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    vary = varying_tunables(rows)
    if not vary:
        raise InputError(f"{path}: no tunable varies for policy {policy}")
    best = best_row(rows, path)
    n = len(vary)
    ncols = min(n, 2)
    nrows = (n + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.6 * ncols, 3.9 * nrows + 1.6), squeeze=False, dpi=150)
    best_t = float(best["time_median_s"])
    reasons, any_wrong = [], False
    for k, t in enumerate(vary):
        ax = axes[k // ncols][k % ncols]
        series = line_series(rows, best, t)
        pos = {v: i for i, (v, _) in enumerate(series)}
        ok = [(pos[v], float(r["time_median_s"])) for v, r in series if r["status"] == "ok"]
        wrong = [(pos[v], float(r["time_median_s"])) for v, r in series if r["status"] == "wrong"]
        invalid = [(pos[v], r["reason"]) for v, r in series if r["status"] == "invalid"]
        if ok:
            ax.plot([p for p, _ in ok], [y for _, y in ok], marker="o", color="#1f77b4", zorder=3)
        if wrong:
            any_wrong = True
            ax.scatter([p for p, _ in wrong], [y for _, y in wrong], marker="X", s=90, color="#c00000", zorder=5)
        ax.scatter([pos[best[t]]], [best_t], marker="*", s=260, color="#ff7f0e", edgecolors="black", zorder=6)
        top = max([y for _, y in ok + wrong] + [best_t])
        ax.set_ylim(0, top * 1.15)
        for p, reason in invalid:
            if reason not in reasons:
                reasons.append(reason)
            ax.axvspan(p - 0.4, p + 0.4, facecolor="#eeeeee", edgecolor="#999999", hatch="///", zorder=0)
            ax.text(p, top * 0.04, f"invalid ({chr(ord('a') + reasons.index(reason))})", rotation=90, ha="center",
                    va="bottom", fontsize=8, color="#333333",
                    bbox=dict(boxstyle="round,pad=0.15", facecolor="#eeeeee", edgecolor="none"))
        ax.set_xticks(range(len(series)))
        ax.set_xticklabels([v for v, _ in series])
        ax.set_xlim(-0.6, len(series) - 0.4)
        ax.set_xlabel(t)
        ax.set_ylabel("time_median_s [s]")
        others = ", ".join(f"{o}={best[o]}" for o in vary if o != t)
        ax.set_title(f"{t}" + (f" (at {others})" if others else ""), fontsize=9.5)
        ax.grid(True, color="#e5e5e5")
        ax.set_axisbelow(True)
    for k in range(n, nrows * ncols):
        axes[k // ncols][k % ncols].set_visible(False)
    handles = [Line2D([], [], color="#1f77b4", marker="o", label="ok (ran, verified)"),
               Line2D([], [], color="#ff7f0e", marker="*", markersize=14, markeredgecolor="black", linestyle="",
                      label="best: " + ", ".join(f"{t}={best[t]}" for t in vary) + f", {best_t:.4g} s")]
    if any_wrong:
        handles.append(Line2D([], [], color="#c00000", marker="X", markersize=9, linestyle="",
                              label="wrong (ran, failed verification)"))
    for k, reason in enumerate(reasons):
        handles.append(Patch(facecolor="#eeeeee", edgecolor="#999999", hatch="///",
                             label=f"invalid ({chr(ord('a') + k)}): {reason}"))
    height = fig.get_figheight()
    legend_h = (0.25 + 0.2 * ((len(handles) + 1) // 2)) / height
    fig.legend(handles=handles, loc="lower center", ncol=2, bbox_to_anchor=(0.5, 0.22 / height), fontsize=8,
               frameon=False, borderaxespad=0.0)
    fig.suptitle(f"Sweep of {policy}: {best['deck']} on {best['device']} ({best['backend']}), {day(best['date'])}"
                 f"\ntime against each tunable, the others at the best point", fontsize=10.5)
    fig.tight_layout(rect=(0, legend_h + 0.22 / height, 1, 1))
    footer(fig, f"gpp {best['git']}, Kokkos {best['kokkos']} | median of {best['repeats']} fenced runs per point")
    return fig


# ---------------------------------------------------------------------------------------------
# Tables (Markdown, for docs/)
# ---------------------------------------------------------------------------------------------

def csv_kind(path, text):
    """'roofline' or 'sweep' (gpp sweep and gpp bench write the same columns), from the header."""
    try:
        header = next(csv.reader(io.StringIO(text, newline="")), [])
    except csv.Error as e:
        raise InputError(f"{path}: not a readable CSV ({e})")
    if all(c in header for c in ROOFLINE_COLUMNS):
        return "roofline"
    if all(c in header for c in SWEEP_COLUMNS):
        return "sweep"
    raise InputError(f"{path}: neither a roofline CSV (gpp roofline --csv) nor a sweep or bench CSV "
                     f"(gpp sweep/bench --csv): its header lacks their columns")


def fmt_sig(value, digits=4):
    return f"{value:.{digits}g}" if value is not None else "n/a"


def table_caption(rows):
    keys = ("deck", "device", "backend", "space", "git")
    groups = sorted({tuple(r[k] for k in keys) for r in rows})
    dates = sorted(r["date"] for r in rows)
    parts = []
    for deck, device, backend, space, git in groups:
        parts.append(f"deck {deck}, {device} ({backend}, {space} space), gpp {git}")
    span = day(dates[0]) if day(dates[0]) == day(dates[-1]) else f"{day(dates[0])} to {day(dates[-1])}"
    return f"{'; '.join(parts)}; {span}"


def roofline_table(rows):
    lines = ["| policy | time [s] | counted FLOP/update | profiled FLOP/update | % FP64 peak | AI L1 | AI L2 | "
             "AI DRAM/HBM | registers | occupancy % |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in path_rows(rows):
        updates = positive(r, "updates")
        counted = number(r, "flops_counted") / updates
        profiled = number(r, "flops_profiled", required=False)
        cells = [r["policy"], fmt_sig(number(r, "time_s")), f"{counted:.1f}",
                 f"{profiled / updates:.1f}" if profiled is not None else "n/a",
                 fmt_sig(number(r, "pct_fp64_peak", required=False), 3)]
        cells += [fmt_sig(number(r, c, required=False), 3) for c in ("ai_l1", "ai_l2", "ai_dram")]
        cells += [r["registers"] or "n/a", fmt_sig(number(r, "occupancy_pct", required=False), 3)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def path_rows(rows, then=lambda r: ()):
    """rows sorted by policy in path order, then by then(row)."""
    order = path_order(distinct(rows, "policy"), "path")
    return sorted(rows, key=lambda r: (order.index(r["policy"]), then(r)))


def sweep_table(rows):
    vary = varying_tunables(rows)
    shown = vary or [t for t in TUNABLES if any(r[t] for r in rows)]
    lines = ["| policy | " + " | ".join(shown) + (" | " if shown else "") +
             "time median [s] | min [s] | max [s] | rel. error | status |",
             "|---" * (len(shown) + 6) + "|"]
    best = {}
    for r in rows:
        if r["status"] == "ok":
            t = number(r, "time_median_s")
            if r["policy"] not in best or t < best[r["policy"]][0]:
                best[r["policy"]] = (t, id(r))
    for r in path_rows(rows, lambda r: [tunable_key(r[t]) for t in shown]):
        ok = r["status"] == "ok"
        times = [fmt_sig(number(r, c, required=ok)) for c in ("time_median_s", "time_min_s", "time_max_s")]
        if ok and best[r["policy"]][1] == id(r) and len(rows) > len(best):
            times[0] = f"**{times[0]}**"
        policy = r["policy"] + (f" ({r['space']})" if len(distinct(rows, "space")) > 1 else "")
        cells = [policy] + [r[t] or "-" for t in shown] + times + \
            [fmt_sig(number(r, "rel_error", required=False), 2), r["status"] + (f" ({r['reason']})" if r["reason"]
                                                                                else "")]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def markdown_table(path):
    text = read_input(path, "CSV")
    kind = csv_kind(path, text)
    rows = read_csv(path, ROOFLINE_COLUMNS if kind == "roofline" else SWEEP_COLUMNS, kind, text)
    body = roofline_table(rows) if kind == "roofline" else sweep_table(rows)
    note = ("best time per policy in bold; " if kind == "sweep" and len(rows) > len(distinct(rows, "policy"))
            else "")
    caption = f"{os.path.basename(path)}: {note}{table_caption(rows)}"
    return "\n".join([caption, ""] + body) + "\n"


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------

class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise InputError(message + f" (see {self.prog} --help)")


def parse_formats(text):
    formats = [f.strip().lower() for f in text.split(",") if f.strip()]
    bad = [f for f in formats if f not in ("png", "svg")]
    if not formats or bad:
        raise InputError(f"--formats '{text}': choose from png, svg (comma-separated)")
    return list(dict.fromkeys(formats))


def check_directory(path):
    """The folder an output path names exists."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise InputError(f"output directory {directory} does not exist")


def out_paths(prefix, formats):
    check_directory(prefix)
    return [(f, f"{prefix}.{f}") for f in formats]


def add_common(p, csv_help):
    p.add_argument("--csv", required=True, help=csv_help)
    p.add_argument("--deck", help="keep rows of this deck")
    p.add_argument("--device", help="keep rows of this device")
    p.add_argument("--out", help="output path without extension (default: a name from the chart in the current "
                                 "directory)")
    p.add_argument("--formats", default="png", help="comma-separated: png, svg (default png)")


def build_parser():
    parser = Parser(prog="gpp_plot.py", description=__doc__.split("\n\n")[0],
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    p = sub.add_parser("roofline", help="hierarchical roofline of one policy")
    add_common(p, "roofline CSV (gpp roofline --csv)")
    p.add_argument("--ceilings", required=True, help="ceilings JSON (gpp ceilings --json)")
    p.add_argument("--policy", help="policy (needed when the CSV has several)")
    p = sub.add_parser("path", help="the optimisation path v0 -> ... -> tuned on one roofline, with arrows")
    add_common(p, "roofline CSV (gpp roofline --csv)")
    p.add_argument("--ceilings", required=True, help="ceilings JSON (gpp ceilings --json)")
    p.add_argument("--level", default="all", help="L1, L2, HBM (or DRAM), or all (default), comma-separated")
    p.add_argument("--policies", help="comma-separated policies, in path order (default: all in the CSV)")
    p.add_argument("--order", choices=("path", "csv"), default="path",
                   help="path: the paper's order v0..v8, tuned, then others (default); csv: the file's order")
    p = sub.add_parser("times", help="time of each step beside the paper's V100 Table I")
    add_common(p, "roofline CSV (gpp roofline --csv)")
    p.add_argument("--paper", action="store_true", help="add the paper's V100 times (Table I)")
    p.add_argument("--paper-deck", choices=sorted(PAPER_DECKS), help="the paper's column (default: by deck sizes)")
    p.add_argument("--policies", help="comma-separated policies (default: all in the CSV)")
    p.add_argument("--order", choices=("path", "csv"), default="path", help="as for path")
    p = sub.add_parser("sweep-heatmap", help="time per pair of tunables, the others at their best")
    add_common(p, "sweep CSV (gpp sweep --csv)")
    p.add_argument("--policy", required=True)
    p.add_argument("--x", help="tunable on the x axis (with --y; default: every pair of varying tunables)")
    p.add_argument("--y", help="tunable on the y axis")
    p = sub.add_parser("sweep-lines", help="time against each tunable, the others at their best")
    add_common(p, "sweep CSV (gpp sweep --csv)")
    p.add_argument("--policy", required=True)
    p = sub.add_parser("table", help="a Markdown table of a roofline, sweep or bench CSV")
    p.add_argument("--csv", required=True, help="roofline, sweep or bench CSV")
    p.add_argument("--out", help="write the table to this file (default: standard output)")
    return parser


def split_list(text):
    return [t.strip() for t in text.split(",") if t.strip()]


def restrict_policies(rows, path, policies):
    if not policies:
        return rows
    wanted = split_list(policies)
    present = distinct(rows, "policy")
    for p in wanted:
        if p not in present:
            raise InputError(f"{path}: no row with policy '{p}' (present: {', '.join(present)})")
    return [r for r in rows if r["policy"] in wanted]


def run(argv):
    args = build_parser().parse_args(argv)
    if not args.command:
        raise InputError("no command: roofline, path, times, sweep-heatmap, sweep-lines or table (see --help)")
    if args.command == "table":
        text = markdown_table(args.csv)
        if args.out is None:
            sys.stdout.write(text)
        else:
            check_directory(args.out)
            check_outputs([args.out], [args.csv])
            write_outputs([(args.out, text.encode("utf-8"))])
        return 0
    formats = parse_formats(args.formats)
    figures = []  # (prefix, figure-maker)
    if args.command in ("roofline", "path"):
        rows = read_csv(args.csv, ROOFLINE_COLUMNS, "roofline")
        ceilings = read_ceilings(args.ceilings)
        if args.command == "roofline":
            rows = select(rows, args.csv, policy=args.policy, deck=args.deck, device=args.device)
            if len(rows) > 1:
                what = [f"{r['policy']}/{r['deck']}/{r['device']}" for r in rows]
                raise InputError(f"{args.csv}: {len(rows)} rows match ({', '.join(what)}): choose one with "
                                 f"--policy/--deck/--device")
            row = rows[0]
            check_device(rows, ceilings, args.csv)
            prefix = args.out or f"roofline-{safe(row['policy'])}-{safe(row['deck'])}"
            figures.append((prefix, lambda: draw_roofline(row, ceilings, args.csv)))
        else:
            rows = one_group(select(rows, args.csv, deck=args.deck, device=args.device), args.csv)
            rows = restrict_policies(rows, args.csv, args.policies)
            check_device(rows, ceilings, args.csv)
            levels = split_list(args.level)
            known = ("L1", "L2", "HBM", "DRAM", "all")
            if not levels or any(lvl not in known for lvl in levels) or ("all" in levels and len(levels) > 1):
                raise InputError(f"--level '{args.level}': choose L1, L2, HBM (DRAM), comma-separated, or all")
            dram = memory_level(ceilings)
            levels = [dram if lvl in ("HBM", "DRAM") else lvl for lvl in levels]
            prefix = args.out or f"path-{safe(rows[0]['deck'])}-{safe('-'.join(levels))}"
            figures.append((prefix, lambda: draw_path(rows, ceilings, args.csv, levels, args.order)))
    elif args.command == "times":
        rows = read_csv(args.csv, ROOFLINE_COLUMNS, "roofline")
        rows = one_group(select(rows, args.csv, deck=args.deck, device=args.device), args.csv)
        rows = restrict_policies(rows, args.csv, args.policies)
        if args.paper:
            paper_deck_of(rows[0], args.paper_deck)  # refuse before drawing
        prefix = args.out or f"times-{safe(rows[0]['deck'])}"
        figures.append((prefix, lambda: draw_times(rows, args.csv, args.paper, args.paper_deck, args.order)))
    else:
        rows = read_csv(args.csv, SWEEP_COLUMNS, "sweep")
        rows = sweep_selection(rows, args.csv, args.policy, args.deck, args.device)
        best_row(rows, args.csv)
        base = args.out or f"sweep-{safe(args.policy)}-{safe(rows[0]['deck'])}"
        if args.command == "sweep-lines":
            figures.append((args.out or base + "-lines", lambda: draw_lines(rows, args.csv, args.policy)))
        else:
            if (args.x is None) != (args.y is None):
                raise InputError("give both --x and --y, or neither (every pair of varying tunables)")
            if args.x:
                pairs = [(args.x, args.y)]
            else:
                vary = varying_tunables(rows)
                pairs = [(a, b) for i, a in enumerate(vary) for b in vary[i + 1:]]
                if not pairs:
                    raise InputError(f"{args.csv}: fewer than two tunables vary for policy {args.policy} "
                                     f"(varying: {', '.join(vary) or 'none'})")
            for x, y in pairs:
                grid = heatmap_grid(rows, args.csv, args.policy, x, y)
                prefix = args.out if args.x and args.out else f"{base}-{x}-{y}" if args.out else \
                    f"{base}-heatmap-{x}-{y}"
                figures.append((prefix, lambda g=grid: draw_heatmap(g, rows)))
    outputs = []
    check_outputs([path for prefix, _ in figures for _, path in out_paths(prefix, formats)],
                  [args.csv, getattr(args, "ceilings", None)])
    for prefix, make in figures:
        paths = out_paths(prefix, formats)
        rendered = render(make(), formats)
        outputs.extend((path, rendered[fmt]) for fmt, path in paths)
    write_outputs(outputs)
    return 0


def main(argv=None):
    try:
        return run(sys.argv[1:] if argv is None else argv)
    except InputError as e:
        print(f"gpp_plot.py: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
