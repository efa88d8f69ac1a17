#!/usr/bin/env python3
"""Tests of scripts/regenerate-docs.sh with a stand-in gpp (registered with ctest by
tests/CMakeLists.txt; needs git and a python3 with matplotlib).

  python3 tests/scripts/test_regenerate_docs.py [-v]

Each test makes a throw-away git checkout holding the script, tools/gpp_plot.py and a
docs/ folder, commits it, and runs the script there with a stand-in `gpp` (a shell
script) that answers --version with that checkout's HEAD and writes the test fixtures
where gpp would write its CSV and JSON files. What is checked is the script's own
contract: every file in place and named in results.md, tables that match the CSVs, the
provenance refusals, and that a failed step leaves docs/ as it was, with no staging
folder behind."""
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")

# The stand-in: `gpp --version` says the checkout's HEAD (or GIT_OVERRIDE); `ceilings`
# writes the ceilings fixture to --json; `roofline` writes the roofline fixture's si214
# rows to --csv; `sweep` and `bench` write the sweep fixture with the policy asked for;
# --tuning-out gets '{}'. FAIL_ON=<subcommand> makes that subcommand fail.
STAND_IN = r"""#!/bin/bash
fixtures=%(fixtures)s
git=${GIT_OVERRIDE:-$(git -C "%(checkout)s" rev-parse --short=12 HEAD)}
if [ "$1" = --version ]; then
  printf 'gpp 1.0.0\ngit %%s\nKokkos 4.7.1 (OpenMP,Cuda; default execution space Cuda)\n' "$git"; exit 0
fi
cmd=$1; shift
[ "${FAIL_ON:-}" = "$cmd" ] && { echo "stand-in: $cmd fails" >&2; exit 3; }
csv= json= policy=tuned
while [ $# -gt 0 ]; do
  case $1 in
    --csv) csv=$2; shift ;;
    --json) json=$2; shift ;;
    --policy|--policies) policy=${2%%%%,*}; shift ;;
    --tuning-out) echo '{}' > "$2"; shift ;;
  esac
  shift
done
[ -n "$json" ] && cp "$fixtures/ceilings-h100.json" "$json"
case $cmd in
  roofline) awk -F, -v g="$git" 'NR == 1 || $7 == "si214" { if (NR > 1) $3 = g; print }' OFS=, \
              "$fixtures/roofline-h100.csv" > "$csv" ;;
  sweep|bench) awk -F, -v g="$git" -v p="$policy" 'NR > 1 { $3 = g; if ($15 == "tuned") $15 = p } { print }' OFS=, \
              "$fixtures/sweep-h100.csv" > "$csv" ;;
esac
exit 0
"""


def run(cmd, cwd, env=None, check=True):
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    if check and r.returncode != 0:
        raise AssertionError(f"{cmd} failed ({r.returncode}): {r.stdout}\n{r.stderr}")
    return r


def tree(path):
    """{relative path: bytes} of every file under path."""
    out = {}
    for d, _, files in os.walk(path):
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, path)] = fh.read()
    return out


class RegenerateDocs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.repo = os.path.join(self.tmp.name, "checkout")
        os.makedirs(os.path.join(self.repo, "docs", "roofline"))
        for f in ("scripts/regenerate-docs.sh", "tools/gpp_plot.py"):
            os.makedirs(os.path.dirname(os.path.join(self.repo, f)), exist_ok=True)
            shutil.copy2(os.path.join(ROOT, f), os.path.join(self.repo, f))
        with open(os.path.join(self.repo, "docs", "roofline", "notes.txt"), "w") as f:
            f.write("a file of another kind, kept\n")
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
        run(["git", "init", "-q"], self.repo)
        run(["git", "add", "-A"], self.repo)
        run(git + ["commit", "-q", "-m", "t"], self.repo)
        self.head = run(["git", "rev-parse", "--short=12", "HEAD"], self.repo).stdout.strip()
        self.gpp = os.path.join(self.tmp.name, "gpp")
        with open(self.gpp, "w") as f:
            f.write(STAND_IN % {"fixtures": FIXTURES, "checkout": self.repo})
        os.chmod(self.gpp, 0o755)
        self.env = dict(os.environ, MPLBACKEND="Agg", GPP_PLOT_PYTHON=sys.executable)

    def tearDown(self):
        self.tmp.cleanup()

    def script(self, *args, env=None, check=True):
        return run(["bash", "scripts/regenerate-docs.sh", *args, self.gpp, "h100"], self.repo,
                   env=env or self.env, check=check)

    def docs(self):
        return os.path.join(self.repo, "docs")

    def no_staging_left(self):
        self.assertEqual([d for d in os.listdir(self.docs()) if d.startswith(".regenerate-docs")], [])

    def test_every_file_in_place_and_in_results(self):
        r = self.script()
        self.assertIn(f"written into {self.docs()}", r.stdout)
        self.no_staging_left()
        files = tree(self.docs())
        expected = [
            "roofline/ceilings-h100.json", "roofline/ceilings-h100-host.json", "roofline/roofline-si214-h100.csv",
            "roofline/path-si214-h100.png", "roofline/path-si214-h100.svg", "roofline/times-si214-h100.png",
            "roofline/roofline-tuned-si214-h100.png", "roofline/roofline-v8-bounded-si214-h100.svg",
            "roofline/roofline-v0-collapse3-si214-h100.png", "roofline/commands-h100.sh",
            "measurements/bench-si214-h100.csv", "measurements/bench-si214-h100-host.csv",
            "measurements/bench-miniapp-h100.csv", "measurements/bench-miniapp-h100-host.csv",
            "measurements/commands-h100.sh", "sweeps/sweep-si214-tuned-h100.csv", "sweeps/sweep-si214-v8-h100.csv",
            "sweeps/sweep-miniapp-tuned-h100.csv", "sweeps/sweep-miniapp-host-h100.csv", "sweeps/tuning-h100.json",
            "sweeps/lines-si214-tuned-h100.png", "sweeps/commands-h100.sh", "results.md"]
        for f in expected:
            self.assertIn(f, files)
        self.assertEqual(files["roofline/notes.txt"], b"a file of another kind, kept\n")
        self.assertIn("not h100's (kept): roofline/notes.txt", r.stdout)
        results = files["results.md"].decode()
        self.assertIn(f"Every file: gpp {self.head}.", results)
        # Every chart and every CSV of the tag appears in results.md, and nothing else does.
        for f in files:
            if f.endswith(".png"):
                self.assertIn(f"]({f})", results)
            if f.endswith(".csv"):
                self.assertIn(os.path.basename(f) + ":", results)
        self.assertNotIn("notes.txt", results)
        # The tables carry the CSVs' numbers: the roofline's tuned time, to 4 digits.
        with open(os.path.join(self.docs(), "roofline", "roofline-si214-h100.csv"), newline="") as f:
            tuned = [row for row in csv.DictReader(f) if row["policy"] == "tuned"][0]
        self.assertIn(f"| tuned | {float(tuned['time_s']):.4g} |", results)
        # The commands files name what ran, as run from the checkout.
        commands = files["roofline/commands-h100.sh"].decode()
        self.assertIn("gpp ceilings --space device --json docs/roofline/ceilings-h100.json", commands)
        self.assertIn("python3 tools/gpp_plot.py path --deck si214", commands)
        self.assertNotIn(self.tmp.name, commands)

    def test_refusals_leave_docs_alone(self):
        before = tree(self.docs())
        cases = [
            (dict(self.env, GIT_OVERRIDE=self.head + "-dirty"), (), "was built from git"),
            (dict(self.env, GIT_OVERRIDE="0123456789ab"), (), "was built from git '0123456789ab'"),
            (self.env, ("--steps", "roofline,bogus"), "unknown step 'bogus'"),
            (self.env, ("--steps", "roofline"), "no ceilings of h100"),
        ]
        for env, args, message in cases:
            r = self.script(*args, env=env, check=False)
            self.assertEqual(r.returncode, 1, (args, r.stdout, r.stderr))
            self.assertIn(message, r.stderr)
            self.assertEqual(tree(self.docs()), before)
            self.no_staging_left()
        # A tracked file changed: refused (outputs under docs/ excepted).
        with open(os.path.join(self.repo, "tools", "gpp_plot.py"), "a") as f:
            f.write("# changed\n")
        r = self.script(check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("tracked files differ from HEAD", r.stderr)
        self.assertIn("tools/gpp_plot.py", r.stderr)
        self.assertEqual(tree(self.docs()), before)

    def test_a_failed_step_leaves_docs_as_they_were(self):
        self.script("--steps", "ceilings")
        before = tree(self.docs())
        r = self.script(env=dict(self.env, FAIL_ON="sweep"), check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("failed: gpp sweep", r.stderr)
        self.assertEqual(tree(self.docs()), before)
        self.no_staging_left()

    def test_steps_in_two_runs(self):
        self.script("--steps", "ceilings,sweeps")
        # The second run's checkout has the first run's outputs under docs/ (allowed).
        self.script("--steps", "roofline,bench")
        files = tree(self.docs())
        commands = files["roofline/commands-h100.sh"].decode()
        # A roofline run alone keeps the ceilings' commands of the run that measured them.
        self.assertIn("# the ceilings read, as measured earlier:", commands)
        self.assertIn("gpp ceilings --space host", commands)
        self.assertIn("--ceilings docs/roofline/ceilings-h100.json", commands)
        self.assertIn("sweeps/sweep-si214-v8-h100.csv", files)
        self.assertIn("measurements/bench-si214-h100.csv", files)
        self.assertIn(f"Every file: gpp {self.head}.", files["results.md"].decode())


if __name__ == "__main__":
    unittest.main()
