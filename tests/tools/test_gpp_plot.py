#!/usr/bin/env python3
"""Tests of tools/gpp_plot.py on tests/fixtures (registered with ctest by tests/CMakeLists.txt).

  python3 tests/tools/test_gpp_plot.py [Charts|Tables|BadInput|Extraction] [-v]

Charts runs every subcommand as a user would and checks the files it writes; BadInput
checks that bad files and options give one line on stderr, exit 1 and no file; Extraction
imports the module and checks the data behind the charts against the fixture files read
here with the csv module alone."""
import csv
import importlib.util
import io
import os
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "tools", "gpp_plot.py")
FIXTURES = os.path.join(HERE, "..", "fixtures")
ROOFLINE = os.path.join(FIXTURES, "roofline-h100.csv")
CEILINGS = os.path.join(FIXTURES, "ceilings-h100.json")
SWEEP = os.path.join(FIXTURES, "sweep-h100.csv")

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def load_module():
    spec = importlib.util.spec_from_file_location("gpp_plot", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gpp_plot = load_module()


def run_plot(args, cwd):
    env = dict(os.environ, MPLBACKEND="Agg")
    return subprocess.run([sys.executable, SCRIPT] + args, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=240)


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def png_size(path):
    """(width, height) from the IHDR chunk of a PNG file; fails on anything else."""
    with open(path, "rb") as f:
        head = f.read(33)
    assert head[:8] == PNG_SIGNATURE, f"{path}: not a PNG signature"
    assert head[12:16] == b"IHDR", f"{path}: no IHDR chunk first"
    return struct.unpack(">II", head[16:24])


class Charts(unittest.TestCase):
    """Each subcommand writes a non-empty, plausible PNG (and SVG when asked) from the fixtures."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def check_png(self, name, min_width=700, min_height=450):
        path = os.path.join(self.dir, name)
        self.assertTrue(os.path.isfile(path), f"{name} not written (dir has {sorted(os.listdir(self.dir))})")
        # A chart with axes, text and points compresses to tens of kB at 150 dpi; an empty
        # or blank figure of the same size compresses to a few kB.
        self.assertGreater(os.path.getsize(path), 20000, name)
        width, height = png_size(path)
        self.assertGreaterEqual(width, min_width, name)
        self.assertGreaterEqual(height, min_height, name)
        self.assertLess(width * height, 12000 * 12000, name)

    def check_svg(self, name):
        path = os.path.join(self.dir, name)
        with open(path, "rb") as f:
            data = f.read()
        self.assertTrue(data.startswith(b"<?xml"), name)
        self.assertIn(b"<svg", data[:2000])
        self.assertTrue(data.rstrip().endswith(b"</svg>"), name)
        self.assertGreater(len(data), 20000, name)

    def ok(self, args, expected, earlier=()):
        """Run; `expected` are the files it must write (and print), `earlier` those already there."""
        r = run_plot(args, self.dir)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr.strip(), "", r.stderr)
        printed = [os.path.basename(line) for line in r.stdout.split()]
        self.assertEqual(sorted(printed), sorted(expected))
        # Nothing else (no temporary files) is left in the directory.
        self.assertEqual(sorted(os.listdir(self.dir)), sorted(list(expected) + list(earlier)))

    def test_roofline_png_and_svg(self):
        self.ok(["roofline", "--csv", ROOFLINE, "--ceilings", CEILINGS, "--policy", "v8-bounded", "--out",
                 os.path.join(self.dir, "v8"), "--formats", "png,svg"], ["v8.png", "v8.svg"])
        self.check_png("v8.png")
        self.check_svg("v8.svg")

    def test_roofline_default_name_png_only(self):
        self.ok(["roofline", "--csv", ROOFLINE, "--ceilings", CEILINGS, "--policy", "tuned", "--deck", "si214"],
                ["roofline-tuned-si214.png"])
        self.check_png("roofline-tuned-si214.png")

    def test_roofline_analytic_row(self):
        self.ok(["roofline", "--csv", ROOFLINE, "--ceilings", CEILINGS, "--policy", "tuned", "--deck", "benchmark"],
                ["roofline-tuned-benchmark.png"])
        self.check_png("roofline-tuned-benchmark.png")

    def test_path_all_levels_and_one(self):
        self.ok(["path", "--csv", ROOFLINE, "--ceilings", CEILINGS, "--deck", "si214", "--formats", "svg,png"],
                ["path-si214-all.png", "path-si214-all.svg"])
        self.check_png("path-si214-all.png")
        self.check_svg("path-si214-all.svg")
        self.ok(["path", "--csv", ROOFLINE, "--ceilings", CEILINGS, "--deck", "si214", "--level", "L2",
                 "--out", "p"], ["p.png"], ["path-si214-all.png", "path-si214-all.svg"])
        self.check_png("p.png")

    def test_times_with_paper(self):
        self.ok(["times", "--csv", ROOFLINE, "--deck", "si214", "--paper"], ["times-si214.png"])
        self.check_png("times-si214.png")
        # The mini-app deck has neither of the paper's sizes: the column is named explicitly.
        self.ok(["times", "--csv", ROOFLINE, "--deck", "benchmark", "--paper", "--paper-deck", "si214"],
                ["times-benchmark.png"], ["times-si214.png"])
        self.check_png("times-benchmark.png")

    def test_heatmaps_every_pair(self):
        self.ok(["sweep-heatmap", "--csv", SWEEP, "--policy", "v8-bounded"],
                [f"sweep-v8-bounded-si214-heatmap-{x}-{y}.png"
                 for x, y in (("band_block", "ig_block"), ("band_block", "team_size"), ("ig_block", "team_size"))])
        for name in os.listdir(self.dir):
            self.check_png(name, 600, 400)

    def test_heatmap_one_pair_svg(self):
        self.ok(["sweep-heatmap", "--csv", SWEEP, "--policy", "tuned", "--x", "team_size", "--y", "band_block",
                 "--out", "hm", "--formats", "png,svg"], ["hm.png", "hm.svg"])
        self.check_png("hm.png")
        self.check_svg("hm.svg")

    def test_lines(self):
        self.ok(["sweep-lines", "--csv", SWEEP, "--policy", "tuned"], ["sweep-tuned-si214-lines.png"])
        self.check_png("sweep-tuned-si214-lines.png")
        self.ok(["sweep-lines", "--csv", SWEEP, "--policy", "v8-bounded", "--out", "l8", "--formats", "svg"],
                ["l8.svg"], ["sweep-tuned-si214-lines.png"])
        self.check_svg("l8.svg")


def table_rows(text):
    """The body rows of a Markdown table (lists of cells), header and rule dropped."""
    lines = [line for line in text.splitlines() if line.startswith("|")]
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]


class Tables(unittest.TestCase):
    """gpp_plot.py table: every CSV row once, its numbers as the csv module reads them."""

    def run_table(self, csv_path):
        r = run_plot(["table", "--csv", csv_path], HERE)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")
        return r.stdout

    def test_roofline_table(self):
        rows = read_rows(ROOFLINE)
        cells = table_rows(self.run_table(ROOFLINE))
        self.assertEqual(len(cells), len(rows))
        # Rows in path order, v0 first, tuned after v8 (both decks of the fixture).
        self.assertEqual(cells[0][0], "v0-collapse3")
        policies = [c[0] for c in cells]
        self.assertLess(policies.index("v8-bounded"), policies.index("tuned"))
        unmatched = list(rows)
        for c in cells:
            match = [r for r in unmatched if r["policy"] == c[0] and
                     abs(float(c[1]) - float(r["time_s"])) <= 5e-4 * float(r["time_s"]) and
                     abs(float(c[2]) - float(r["flops_counted"]) / float(r["updates"])) <= 0.05]
            self.assertTrue(match, f"table row {c} matches no CSV row")
            r = match[0]
            unmatched.remove(r)
            if r["flops_profiled"]:
                self.assertAlmostEqual(float(c[3]), float(r["flops_profiled"]) / float(r["updates"]), delta=0.05)
                self.assertEqual(c[8], r["registers"])
            else:
                self.assertEqual(c[3], "n/a")
        self.assertEqual(unmatched, [])

    def test_sweep_table_marks_the_best_ok_point(self):
        rows = read_rows(SWEEP)
        cells = table_rows(self.run_table(SWEEP))
        self.assertEqual(len(cells), len(rows))
        best = {}
        for r in rows:
            if r["status"] == "ok":
                best[r["policy"]] = min(best.get(r["policy"], float("inf")), float(r["time_median_s"]))
        self.assertEqual(set(best), {"tuned", "v8-bounded"})
        time_col = 4  # policy, band_block, ig_block, team_size (the fixture varies all three)
        bold = [c for c in cells if c[time_col].startswith("**")]
        self.assertEqual(sorted(c[0] for c in bold), sorted(best))
        for c in bold:
            self.assertAlmostEqual(float(c[time_col].strip("*")), best[c[0]], delta=5e-4 * best[c[0]])
        self.assertEqual(sum(1 for c in cells if c[-1].startswith("invalid")),
                         sum(1 for r in rows if r["status"] == "invalid"))

    def test_table_written_to_a_file(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "t.md")
            r = run_plot(["table", "--csv", SWEEP, "--out", out], d)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(os.listdir(d), ["t.md"])
            with open(out) as f:
                self.assertEqual(f.read(), self.run_table(SWEEP))

    def test_table_refusals(self):
        with tempfile.TemporaryDirectory() as d:
            copy = os.path.join(d, "s.csv")
            with open(SWEEP) as f, open(copy, "w") as g:
                g.write(f.read())
            for args, fragment in ((["--csv", CEILINGS], "neither a roofline CSV"),
                                   (["--csv", copy, "--out", copy], "it is the input"),
                                   (["--csv", copy, "--out", os.path.join(d, "no", "t.md")], "does not exist")):
                r = run_plot(["table"] + args, d)
                self.assertEqual(r.returncode, 1, args)
                self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
                self.assertIn(fragment, r.stderr)
                self.assertEqual(r.stdout, "")
                self.assertEqual(os.listdir(d), ["s.csv"])
            with open(SWEEP) as f, open(copy) as g:
                self.assertEqual(f.read(), g.read())


class BadInput(unittest.TestCase):
    """Bad files and options: exit 1, exactly one line on stderr, no file written or changed."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.out = os.path.join(self.dir, "out")
        os.mkdir(self.out)
        # A chart already there must survive a refused run unchanged.
        self.keep = os.path.join(self.out, "chart.png")
        with open(self.keep, "wb") as f:
            f.write(b"previous chart")

    def tearDown(self):
        self.tmp.cleanup()

    def variant(self, source, name, edit):
        """A copy of a fixture with `edit` applied to its text."""
        with open(source) as f:
            text = f.read()
        changed = edit(text)
        self.assertNotEqual(changed, text, "the edit must change the fixture")
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(changed)
        return path

    def refused(self, args, *fragments):
        r = run_plot(args + ["--out", os.path.join(self.out, "chart"), "--formats", "png,svg"], self.out)
        self.assertEqual(r.returncode, 1, f"stdout {r.stdout!r} stderr {r.stderr!r}")
        lines = r.stderr.splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertTrue(lines[0].startswith("gpp_plot.py: error: "), lines[0])
        for fragment in fragments:
            self.assertIn(fragment, lines[0])
        self.assertEqual(r.stdout, "")
        self.assertEqual(os.listdir(self.out), ["chart.png"])
        with open(self.keep, "rb") as f:
            self.assertEqual(f.read(), b"previous chart")

    def test_unknown_schema_version_roofline_csv(self):
        bad = self.variant(ROOFLINE, "r.csv", lambda t: t.replace("\n1,2026-11-23T10:41:07Z,",
                                                                    "\n2,2026-11-23T10:41:07Z,", 1))
        self.refused(["roofline", "--csv", bad, "--ceilings", CEILINGS, "--policy", "tuned", "--deck", "si214"],
                     "unknown schema_version '2'")

    def test_unknown_schema_version_ceilings(self):
        bad = self.variant(CEILINGS, "c.json", lambda t: t.replace('"schema_version": 1', '"schema_version": 2', 1))
        self.refused(["path", "--csv", ROOFLINE, "--ceilings", bad, "--deck", "si214"], "unknown schema_version")

    def test_unknown_schema_version_sweep_csv(self):
        bad = self.variant(SWEEP, "s.csv", lambda t: t.replace("\n1,", "\n3,"))
        self.refused(["sweep-lines", "--csv", bad, "--policy", "tuned"], "unknown schema_version '3'")

    def test_missing_column_roofline(self):
        def drop_ai_l2(text):
            rows = list(csv.reader(io.StringIO(text)))
            k = rows[0].index("ai_l2")
            out = io.StringIO()
            csv.writer(out, lineterminator="\n").writerows([r[:k] + r[k + 1:] for r in rows])
            return out.getvalue()
        bad = self.variant(ROOFLINE, "r.csv", drop_ai_l2)
        self.refused(["roofline", "--csv", bad, "--ceilings", CEILINGS, "--policy", "v8-bounded"],
                     "missing column ai_l2")

    def test_missing_column_sweep(self):
        def drop_status(text):
            rows = list(csv.reader(io.StringIO(text)))
            k = rows[0].index("status")
            out = io.StringIO()
            csv.writer(out, lineterminator="\n").writerows([r[:k] + r[k + 1:] for r in rows])
            return out.getvalue()
        bad = self.variant(SWEEP, "s.csv", drop_status)
        self.refused(["sweep-heatmap", "--csv", bad, "--policy", "tuned"], "missing column status")

    def test_missing_ceiling_peak(self):
        bad = self.variant(CEILINGS, "c.json", lambda t: t.replace('"fma_ratio": 1.0', '"fma_ratio": 0.5', 1))
        self.refused(["roofline", "--csv", ROOFLINE, "--ceilings", bad, "--policy", "v0-collapse3"], "FP64 FMA peak")

    def test_infinite_ceiling(self):
        # Python's json reads Infinity and NaN, and 1e999 as inf; a roof at infinity has no axis.
        for name, edit, says in [
                ("inf.json", lambda t: t.replace('"gflops": 32900.0', '"gflops": Infinity', 1), "Infinity"),
                ("nan.json", lambda t: t.replace('"gflops": 32900.0', '"gflops": NaN', 1), "NaN"),
                ("big.json", lambda t: t.replace('"gbs": 2900.0', '"gbs": 1e999', 1), "bandwidth[0].gbs is not finite"),
                ("big2.json", lambda t: t.replace('"gflops": 32900.0', '"gflops": -1e999', 1),
                 "compute[0].gflops is not finite")]:
            with self.subTest(name):
                bad = self.variant(CEILINGS, name, edit)
                self.refused(["roofline", "--csv", ROOFLINE, "--ceilings", bad, "--policy", "v8-bounded"], says)
                self.refused(["path", "--csv", ROOFLINE, "--ceilings", bad, "--deck", "si214"], says)

    def test_unknown_policy(self):
        self.refused(["roofline", "--csv", ROOFLINE, "--ceilings", CEILINGS, "--policy", "v9-imaginary"],
                     "no row with policy 'v9-imaginary'", "v0-collapse3")
        self.refused(["sweep-heatmap", "--csv", SWEEP, "--policy", "host"], "no row with policy 'host'")
        self.refused(["path", "--csv", ROOFLINE, "--ceilings", CEILINGS, "--deck", "si214", "--policies",
                      "v0-collapse3,v9"], "no row with policy 'v9'")

    def test_empty_selection(self):
        self.refused(["times", "--csv", ROOFLINE, "--deck", "si510"], "no row with deck 'si510'")
        self.refused(["sweep-lines", "--csv", SWEEP, "--policy", "tuned", "--device", "Tesla V100"],
                     "no row with device")

    def test_ambiguous_selection(self):
        self.refused(["roofline", "--csv", ROOFLINE, "--ceilings", CEILINGS, "--policy", "tuned"], "2 rows match")
        self.refused(["path", "--csv", ROOFLINE, "--ceilings", CEILINGS], "several decks")

    def test_ceilings_of_another_device(self):
        bad = self.variant(CEILINGS, "c.json", lambda t: t.replace('"name": "NVIDIA H100 80GB HBM3"',
                                                                   '"name": "NVIDIA H200"', 1))
        self.refused(["roofline", "--csv", ROOFLINE, "--ceilings", bad, "--policy", "v8-bounded"], "NVIDIA H200")

    def test_paper_column_unknown_for_deck(self):
        self.refused(["times", "--csv", ROOFLINE, "--deck", "benchmark", "--paper"], "--paper-deck")

    def test_tunable_options(self):
        self.refused(["sweep-heatmap", "--csv", SWEEP, "--policy", "tuned", "--x", "band_block"], "--x and --y")
        self.refused(["sweep-heatmap", "--csv", SWEEP, "--policy", "tuned", "--x", "band_block", "--y",
                      "vector_length"], "vector_length does not vary")
        self.refused(["sweep-heatmap", "--csv", SWEEP, "--policy", "tuned", "--x", "band_block", "--y", "colour"],
                     "unknown tunable 'colour'")

    def test_bad_options(self):
        self.refused(["roofline", "--csv", ROOFLINE], "--ceilings")
        self.refused(["path", "--csv", ROOFLINE, "--ceilings", CEILINGS, "--deck", "si214", "--level", "L4"],
                     "--level 'L4'")
        r = run_plot(["sweep-lines", "--csv", SWEEP, "--policy", "tuned", "--formats", "gif"], self.out)
        self.assertEqual((r.returncode, len(r.stderr.splitlines())), (1, 1), r.stderr)
        self.assertIn("--formats 'gif'", r.stderr)

    def test_matplotlib_missing_names_the_interpreter(self):
        # A matplotlib that cannot be imported (first on the path): the one line names the
        # python that tried, the usual cause being another python3 than matplotlib's.
        fake = os.path.join(self.dir, "fake")
        os.makedirs(os.path.join(fake, "matplotlib"))
        with open(os.path.join(fake, "matplotlib", "__init__.py"), "w") as f:
            f.write("raise ImportError('no module named matplotlib (a stand-in)')\n")
        env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=fake)
        r = subprocess.run([sys.executable, SCRIPT, "sweep-lines", "--csv", SWEEP, "--policy", "tuned"], cwd=self.out,
                           env=env, capture_output=True, text=True, timeout=240)
        self.assertEqual((r.returncode, len(r.stderr.splitlines())), (1, 1), r.stderr)
        self.assertIn(f"matplotlib cannot be imported by {sys.executable} (Python ", r.stderr)
        self.assertIn("a stand-in", r.stderr)

    def test_missing_output_directory(self):
        r = run_plot(["sweep-lines", "--csv", SWEEP, "--policy", "tuned", "--out",
                      os.path.join(self.dir, "nowhere", "x")], self.out)
        self.assertEqual((r.returncode, len(r.stderr.splitlines())), (1, 1), r.stderr)
        self.assertIn("does not exist", r.stderr)
        self.assertEqual(os.listdir(self.out), ["chart.png"])

    def test_unreadable_and_non_numeric(self):
        self.refused(["sweep-lines", "--csv", os.path.join(self.dir, "absent.csv"), "--policy", "tuned"],
                     "cannot read sweep CSV")
        bad = self.variant(SWEEP, "s.csv", lambda t: t.replace(",0.0953,", ",fast,", 1))
        self.refused(["sweep-lines", "--csv", bad, "--policy", "tuned"], "time_median_s 'fast' is not a number")


class Extraction(unittest.TestCase):
    """The data behind the charts, against the fixtures read independently with csv."""

    @classmethod
    def setUpClass(cls):
        cls.sweep = gpp_plot.read_csv(SWEEP, gpp_plot.SWEEP_COLUMNS, "sweep")
        cls.raw = read_rows(SWEEP)

    def oracle_best(self, policy, raw=None):
        ok = [r for r in (raw or self.raw) if r["policy"] == policy and r["status"] == "ok"]
        best = ok[0]
        for r in ok:
            if float(r["time_median_s"]) < float(best["time_median_s"]):
                best = r
        return best

    def oracle_cells(self, policy, x, y, best, status, raw=None):
        others = [t for t in ("band_block", "ig_block", "team_size", "vector_length", "tile") if t not in (x, y)]
        return {(r[x], r[y]) for r in (raw or self.raw)
                if r["policy"] == policy and r["status"] == status and all(r[t] == best[t] for t in others)}

    def test_tuned_grid_best_and_holes(self):
        grid = gpp_plot.heatmap_grid(self.sweep, SWEEP, "tuned", "band_block", "team_size")
        best = self.oracle_best("tuned")
        self.assertEqual(grid["best"], (best["band_block"], best["team_size"]))
        # The fixture was built with its optimum at band_block 32, team_size 128.
        self.assertEqual(grid["best"], ("32", "128"))
        self.assertEqual(grid["x_values"], ["8", "16", "32", "64", "128"])  # numeric, not string, order
        self.assertEqual(grid["y_values"], ["64", "128", "256", "512", "1024"])
        for status in ("invalid", "wrong", "ok"):
            got = {k for k, c in grid["cells"].items() if c["status"] == status}
            self.assertEqual(got, self.oracle_cells("tuned", "band_block", "team_size", best, status), status)
        invalid = {k for k, c in grid["cells"].items() if c["status"] == "invalid"}
        self.assertEqual(len(invalid), 7)
        self.assertIn(("128", "256"), invalid)
        self.assertEqual({k for k, c in grid["cells"].items() if c["status"] == "wrong"}, {("8", "64")})
        self.assertEqual(len({c["reason"] for c in grid["cells"].values() if c["status"] == "invalid"}), 3)
        for r in self.raw:
            if r["policy"] == "tuned" and r["status"] != "invalid":
                self.assertEqual(grid["cells"][(r["band_block"], r["team_size"])]["time"], float(r["time_median_s"]))
        self.assertEqual(grid["fixed"], {})

    def test_v8_pairs_fix_the_third_tunable_at_its_best(self):
        self.assertEqual(gpp_plot.varying_tunables([r for r in self.sweep if r["policy"] == "v8-bounded"]),
                         ["band_block", "ig_block", "team_size"])
        best = self.oracle_best("v8-bounded")
        for x, y, third in (("ig_block", "team_size", "band_block"), ("band_block", "ig_block", "team_size"),
                            ("band_block", "team_size", "ig_block")):
            grid = gpp_plot.heatmap_grid(self.sweep, SWEEP, "v8-bounded", x, y)
            self.assertEqual(grid["fixed"], {third: best[third]})
            self.assertEqual(grid["best"], (best[x], best[y]))
            for status in ("invalid", "ok", "wrong"):
                got = {k for k, c in grid["cells"].items() if c["status"] == status}
                self.assertEqual(got, self.oracle_cells("v8-bounded", x, y, best, status), (x, y, status))
        grid = gpp_plot.heatmap_grid(self.sweep, SWEEP, "v8-bounded", "ig_block", "team_size")
        self.assertEqual({k for k, c in grid["cells"].items() if c["status"] == "invalid"}, {("256", "512")})
        self.assertEqual(len(grid["cells"]), 6)

    def test_ties_are_points_whose_range_overlaps_the_best(self):
        best = self.oracle_best("tuned")
        lo, hi = float(best["time_min_s"]), float(best["time_max_s"])
        want = {(r["band_block"], r["team_size"]) for r in self.raw
                if r["policy"] == "tuned" and r["status"] == "ok" and r is not best
                and (r["band_block"], r["team_size"]) != (best["band_block"], best["team_size"])
                and all(r[t] == best[t] for t in ("ig_block", "vector_length", "tile"))
                and float(r["time_min_s"]) <= hi and float(r["time_max_s"]) >= lo}
        grid = gpp_plot.heatmap_grid(self.sweep, SWEEP, "tuned", "band_block", "team_size")
        self.assertEqual(set(grid["ties"]), want)
        # One point made to overlap the best's range, another made to miss it just above.
        rows = [dict(r) for r in self.sweep]
        others = [r for r in rows if r["policy"] == "tuned" and r["status"] == "ok"
                  and (r["band_block"], r["team_size"]) != (best["band_block"], best["team_size"])]
        tie, apart = others[0], others[1]
        tie["time_min_s"], tie["time_max_s"] = repr(lo * 0.999), repr(hi * 1.5)
        tie["time_median_s"] = repr(hi * 1.2)
        apart["time_min_s"], apart["time_median_s"], apart["time_max_s"] = repr(hi * 1.001), repr(hi * 1.1), repr(hi * 1.2)
        grid = gpp_plot.heatmap_grid(rows, SWEEP, "tuned", "band_block", "team_size")
        self.assertIn((tie["band_block"], tie["team_size"]), grid["ties"])
        self.assertNotIn((apart["band_block"], apart["team_size"]), grid["ties"])
        self.assertNotIn(grid["best"], grid["ties"])

    def test_best_moves_with_the_data(self):
        # Make another ok point the fastest: the extraction must follow it (and the fixed value).
        rows = [dict(r) for r in self.sweep]
        raw = [dict(r) for r in self.raw]
        for table in (rows, raw):
            for r in table:
                if r["policy"] == "tuned" and (r["band_block"], r["team_size"]) == ("16", "256"):
                    r["time_median_s"] = "0.05"
        grid = gpp_plot.heatmap_grid(rows, SWEEP, "tuned", "band_block", "team_size")
        self.assertEqual(grid["best"], ("16", "256"))
        self.assertEqual(grid["best"], tuple(self.oracle_best("tuned", raw)[k] for k in ("band_block", "team_size")))
        # A wrong point, however fast, is never the best.
        for r in rows:
            if r["policy"] == "tuned" and (r["band_block"], r["team_size"]) == ("8", "64"):
                r["time_median_s"] = "0.01"
        self.assertEqual(gpp_plot.heatmap_grid(rows, SWEEP, "tuned", "band_block", "team_size")["best"], ("16", "256"))

    def test_line_series(self):
        rows = [r for r in self.sweep if r["policy"] == "tuned"]
        best = gpp_plot.best_row(rows, SWEEP)
        series = gpp_plot.line_series(rows, best, "team_size")
        self.assertEqual([v for v, _ in series], ["64", "128", "256", "512", "1024"])
        self.assertTrue(all(r["band_block"] == "32" for _, r in series))
        self.assertEqual(series[-1][1]["status"], "invalid")

    def test_roofline_points(self):
        raw = {(r["policy"], r["deck"]): r for r in read_rows(ROOFLINE)}
        rows = gpp_plot.read_csv(ROOFLINE, gpp_plot.ROOFLINE_COLUMNS, "roofline")
        v8 = [r for r in rows if r["policy"] == "v8-bounded"][0]
        points = dict((lvl, (ai, g)) for lvl, ai, g in gpp_plot.roofline_points(v8, "HBM"))
        src = raw[("v8-bounded", "si214")]
        # Profiled FLOPs over each level's bytes, at the profiled rate: recomputed from the raw counters.
        flops = float(src["dadd"]) + float(src["dmul"]) + 2 * float(src["dfma"])
        rate = flops / float(src["time_s"]) / 1e9
        for level, column in (("L1", "bytes_l1"), ("L2", "bytes_l2"), ("HBM", "bytes_dram")):
            ai, g = points[level]
            self.assertLess(abs(ai - flops / float(src[column])), 1e-4 * ai, level)  # CSV rounds to 6 digits
            self.assertLess(abs(g - rate), 1e-4 * rate, level)
        self.assertEqual(set(points), {"L1", "L2", "HBM", "compulsory"})
        analytic = [r for r in rows if r["profiler"] == "none"][0]
        pts = gpp_plot.roofline_points(analytic, "HBM")
        self.assertEqual([p[0] for p in pts], ["analytic"])
        src = raw[("tuned", "benchmark")]
        self.assertLess(abs(pts[0][1] - float(src["flops_counted"]) / float(src["bytes_compulsory"])), 1.0)

    def test_fma_ceiling_matches_the_paper(self):
        # The paper: V100 peak 6.7 TFLOP/s, FMA ratio 58% -> "5.3 TFLOP/s".
        self.assertLess(abs(gpp_plot.fma_ceiling(6700.0, 0.58) - 5300.0), 50.0)
        self.assertEqual(gpp_plot.fma_ceiling(32900.0, 1.0), 32900.0)
        self.assertEqual(gpp_plot.fma_ceiling(32900.0, 0.0), 16450.0)

    def test_paper_column_by_deck_sizes(self):
        rows = gpp_plot.read_csv(ROOFLINE, gpp_plot.ROOFLINE_COLUMNS, "roofline")
        si214 = [r for r in rows if r["deck"] == "si214"][0]
        self.assertEqual(gpp_plot.paper_deck_of(si214, None), "si214")
        si510 = dict(si214, nbands="1742", ngpown="3016", ncouls="24140")
        self.assertEqual(gpp_plot.paper_deck_of(si510, None), "si510")
        bench = [r for r in rows if r["deck"] == "benchmark"][0]
        with self.assertRaises(gpp_plot.InputError):
            gpp_plot.paper_deck_of(bench, None)
        self.assertEqual(gpp_plot.paper_deck_of(bench, "si510"), "si510")

    def test_drawn_charts_keep_points_and_labels_inside(self):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        rows = gpp_plot.read_csv(ROOFLINE, gpp_plot.ROOFLINE_COLUMNS, "roofline")
        ceilings = gpp_plot.read_ceilings(CEILINGS)
        si214 = [r for r in rows if r["deck"] == "si214"]
        figures = [gpp_plot.draw_roofline(r, ceilings, ROOFLINE) for r in rows]
        figures.append(gpp_plot.draw_path(si214, ceilings, ROOFLINE, ["all"], "path"))
        for fig in figures:
            ax = fig.axes[0]
            fig.canvas.draw()
            (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
            n = 0
            for coll in ax.collections:
                for x, y in coll.get_offsets():
                    n += 1
                    self.assertTrue(x0 < x < x1 and y0 < y < y1, (x, y, ax.get_title()))
            self.assertGreater(n, 0)
            texts = [t.get_text() for t in ax.texts]
            for label in ("L1 33 TB/s", "L2 7.7 TB/s", "HBM 2.9 TB/s", "FP64 FMA peak 32.9 TFLOP/s"):
                self.assertIn(label, texts, ax.get_title())
            self.assertTrue(any(t.startswith("FP64 at FMA ratio") for t in texts), ax.get_title())
            box = ax.get_window_extent()
            for t in ax.texts:
                bb = t.get_window_extent()
                self.assertTrue(box.x0 - 1 <= bb.x0 and bb.x1 <= box.x1 + 1 and box.y0 - 1 <= bb.y0
                                and bb.y1 <= box.y1 + 1, (t.get_text(), ax.get_title()))
            self.assertEqual(ax.get_xlabel(), "Arithmetic Intensity [FLOP/Byte]")
            self.assertEqual(ax.get_ylabel(), "Performance [GFLOP/s]")
            self.assertIn("NVIDIA H100 80GB HBM3", ax.get_title())
            self.assertIn("2026-11-23", ax.get_title())
            plt.close(fig)
        # Levels that measured alike (a quick ceilings file: every level about 78 GB/s) share
        # one label: four labels on one line overlapped and could not be read.
        alike = dict(ceilings, bandwidth=[("HBM", 77.9), ("L2", 78.8), ("L1", 78.7), ("L3", 78.0)], peak=58.7,
                     compute=[])
        for fig in (gpp_plot.draw_roofline(rows[0], alike, ROOFLINE),
                    gpp_plot.draw_path(si214, alike, ROOFLINE, ["all"], "path")):
            ax = fig.axes[0]
            fig.canvas.draw()
            level_texts = [t for t in ax.texts if "GB/s" in t.get_text()]
            self.assertEqual([t.get_text() for t in level_texts], ["HBM 77.9, L2 78.8, L1 78.7, L3 78 GB/s"])
            boxes = [t.get_window_extent() for t in ax.texts if t.get_text()]
            for i, a in enumerate(boxes):
                for b in boxes[i + 1:]:
                    self.assertFalse(a.overlaps(b), [t.get_text() for t in ax.texts])
            plt.close(fig)
        # The path's arrows: one per successive pair of steps on each of the three levels.
        fig = gpp_plot.draw_path(si214, ceilings, ROOFLINE, ["all"], "path")
        arrows = [c for c in fig.axes[0].get_children() if type(c).__name__ == "Annotation" and c.arrow_patch]
        self.assertEqual(len(arrows), 3 * (len(si214) - 1))
        plt.close(fig)


if __name__ == "__main__":
    unittest.main()
