#!/usr/bin/env python3
"""Tests of lab/variants.sh and lab/variants_summary.py (registered with ctest by
tests/CMakeLists.txt).

  python3 tests/lab/test_variants.py [-v]

A made-up repository and build folder: `ninja` on PATH is a stand-in that builds app/gpp
only where the source is newer than it (as ninja decides), and the gpp it writes reports
the number in the source as its kernel median and twice it as its reference pass. So
each binary's times say which source it was built from, and the ratios are known."""
import json
import os
import stat
import subprocess
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "lab", "variants.sh")
SUMMARY = os.path.join(HERE, "..", "..", "lab", "variants_summary.py")

FAKE_NINJA = r"""#!/bin/bash
# ninja -C DIR gpp: app/gpp from the tree's src/kernel.txt, where that is newer
[ "$1" = -C ] && [ "$3" = gpp ] || { echo "fake ninja: $*" >&2; exit 1; }
dir=$2
src=$(cat "$dir/source")
if [ ! -e "$dir/app/gpp" ] || [ "$src" -nt "$dir/app/gpp" ]; then
  v=$(cat "$src")
  [ "$v" != fail ] || { echo "error: the source says fail" >&2; exit 1; }
  mkdir -p "$dir/app"
  cat > "$dir/app/gpp" <<EOF
#!/bin/bash
out=
while [ \$# -gt 0 ]; do [ "\$1" = --json ] && out=\$2; shift; done
printf '{"kind": "gpp-record", "runs": [{"policy": "tuned", "time_median_s": %s}],
 "verification": {"reference_source": "computed", "reference_s": %s}}' $v \$(python3 -c "print(2 * $v)") > "\$out"
EOF
  chmod +x "$dir/app/gpp"
  echo "built from $v" >> "$dir/builds.log"
fi
"""


class Variants(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = os.path.join(self.tmp.name, "repo")
        os.makedirs(os.path.join(self.root, "src"))
        self.write("src/kernel.txt", "0.5")
        self.bdir = os.path.join(self.root, "build")
        os.makedirs(self.bdir)
        self.write("build/build.ninja", "")
        self.write("build/source", os.path.join(self.root, "src", "kernel.txt"))
        bindir = os.path.join(self.tmp.name, "bin")
        os.makedirs(bindir)
        ninja = os.path.join(bindir, "ninja")
        with open(ninja, "w") as f:
            f.write(FAKE_NINJA)
        os.chmod(ninja, os.stat(ninja).st_mode | stat.S_IXUSR)
        self.env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"])
        self.out = os.path.join(self.tmp.name, "out")

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def run_script(self, *args):
        return subprocess.run(["bash", SCRIPT] + list(args), cwd=self.root, env=self.env, capture_output=True,
                              text=True)

    def variant(self, name, value, age=0):
        path = self.write("variants/%s/src/kernel.txt" % name, value)
        if age:
            t = time.time() - age
            os.utime(path, (t, t))
        return os.path.join(self.root, "variants", name)

    def median_of(self, binary):
        rec = os.path.join(self.tmp.name, "r.json")
        subprocess.run([binary, "run", "--json", rec], check=True)
        with open(rec) as f:
            return json.load(f)["runs"][0]["time_median_s"]

    def test_each_binary_is_built_from_its_own_source_and_the_tree_is_put_back(self):
        # a kept build folder whose app/gpp is newer than the variant's file: the script's
        # touch must still make the stand-in build it again
        subprocess.run(["ninja", "-C", self.bdir, "gpp"], env=self.env, check=True)
        older = self.variant("older", "0.4", age=3600)
        other = self.variant("other", "0.6")
        r = self.run_script("build", "build", self.out, older, other)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.median_of(os.path.join(self.out, "gpp-base")), 0.5)
        self.assertEqual(self.median_of(os.path.join(self.out, "gpp-older")), 0.4)
        self.assertEqual(self.median_of(os.path.join(self.out, "gpp-other")), 0.6)
        with open(os.path.join(self.root, "src", "kernel.txt")) as f:
            self.assertEqual(f.read(), "0.5")
        # and the next build of the tree is the tree's again
        subprocess.run(["ninja", "-C", self.bdir, "gpp"], env=self.env, check=True)
        self.assertEqual(self.median_of(os.path.join(self.bdir, "app", "gpp")), 0.5)

    def test_rounds_and_ratios(self):
        faster = self.variant("faster", "0.4")
        self.assertEqual(self.run_script("build", "build", self.out, faster).returncode, 0)
        r = self.run_script("time", self.out, "3", "deck", "--", "run", "inputs/x.toml")
        self.assertEqual(r.returncode, 0, r.stderr)
        records = sorted(os.listdir(os.path.join(self.out, "records")))
        self.assertIn("1.base.deck.json", records)
        self.assertIn("3.faster.deck.json", records)
        self.assertIn("deck, 3 rounds", r.stdout)
        lines = r.stdout.splitlines()
        kernel = [l for l in lines if l.strip().startswith("faster") and "/ base" in l]
        self.assertEqual(len(kernel), 2, r.stdout)  # the kernel's row and the pass's
        self.assertIn("/ base: 0.800 (0.800 to 0.800)", kernel[0])
        self.assertIn("/ base: 0.800 (0.800 to 0.800)", kernel[1])
        self.assertIn("0.8 (2.00)", kernel[1])  # the pass, 2 x 0.4, over its own kernel median

    def test_only_the_last_builds_binaries_are_timed(self):
        # an earlier build into the same folder left gpp-old; the later one built only new
        self.assertEqual(self.run_script("build", "build", self.out, self.variant("old", "0.3")).returncode, 0)
        self.assertEqual(self.run_script("build", "build", self.out, self.variant("new", "0.4")).returncode, 0)
        r = self.run_script("time", self.out, "1", "deck", "--", "run")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(os.listdir(os.path.join(self.out, "records"))),
                         ["1.base.deck.json", "1.base.deck.txt", "1.new.deck.json", "1.new.deck.txt"])
        # and a build that fails leaves nothing for `time` to mistake for its binaries
        self.assertEqual(self.run_script("build", "build", self.out, self.variant("broken", "fail")).returncode, 2)
        r = self.run_script("time", self.out, "1", "deck", "--", "run")
        self.assertEqual(r.returncode, 2)
        self.assertIn("build first", r.stderr)

    def test_a_file_not_in_the_tree_is_refused_before_any_build(self):
        v = self.variant("stray", "0.4")
        self.write("variants/stray/src/missing.txt", "x")
        r = self.run_script("build", "build", self.out, v)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("src/missing.txt", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.out, "gpp-base")))
        self.assertFalse(os.path.exists(os.path.join(self.bdir, "builds.log")))

    def test_a_failed_build_puts_the_tree_back(self):
        v = self.variant("broken", "fail")
        r = self.run_script("build", "build", self.out, v)
        self.assertEqual(r.returncode, 2)
        self.assertIn("broken: build failed", r.stderr)
        with open(os.path.join(self.root, "src", "kernel.txt")) as f:
            self.assertEqual(f.read(), "0.5")

    def test_bad_arguments(self):
        v = self.variant("ok", "0.4")
        for args, words in [
            (["build", "build", self.out], "usage"),
            (["build", "nowhere", self.out, v], "build.ninja"),
            (["build", "build", self.out, v, v], "second variant"),
            (["time", self.out, "3", "deck", "--", "run"], "build first"),
            (["frobnicate"], "unknown mode"),
        ]:
            r = self.run_script(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(words, r.stderr, args)
        self.assertEqual(self.run_script("build", "build", self.out, v).returncode, 0)
        for args, words in [
            (["time", self.out, "0", "deck", "--", "run"], "ROUNDS"),
            (["time", self.out, "2", "a.b", "--", "run"], "TAG"),
            (["time", self.out, "2", "deck", "--", "run", "--json", "x"], "--json"),
            (["time", self.out, "2", "deck", "run"], "usage"),
        ]:
            r = self.run_script(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(words, r.stderr, args)


class Summary(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def rec(self, name, median, ref=None):
        path = os.path.join(self.tmp.name, name)
        r = {"kind": "gpp-record", "runs": [{"policy": "tuned", "time_median_s": median}]}
        if ref is not None:
            r["verification"] = {"reference_source": "computed", "reference_s": ref}
        with open(path, "w") as f:
            json.dump(r, f)
        return path

    def summary(self, *paths):
        return subprocess.run(["python3", SUMMARY] + list(paths), capture_output=True, text=True)

    def test_ratios_by_round(self):
        # rounds of base 1.0, 2.0, 4.0 and of v 0.9, 2.2, 3.6: ratios 0.9, 1.1, 0.9
        paths = [self.rec("%d.base.t.json" % (i + 1), b, 2 * b) for i, b in enumerate((1.0, 2.0, 4.0))]
        paths += [self.rec("%d.v.t.json" % (i + 1), x, 3 * x) for i, x in enumerate((0.9, 2.2, 3.6))]
        r = self.summary(*paths)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [l for l in r.stdout.splitlines() if l.strip().startswith("v ")]
        self.assertIn("/ base: 0.900 (0.900 to 1.100)", rows[0])
        self.assertIn("/ base: 1.350 (1.350 to 1.650)", rows[1])  # 3x / 2x of the same rounds
        self.assertIn("2.7 (3.00)", rows[1])

    def test_a_stored_reference_gives_no_pass_row(self):
        a = self.rec("1.base.t.json", 1.0)
        b = self.rec("1.v.t.json", 1.0)
        r = self.summary(a, b)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("reference pass", r.stdout)

    def test_bad_input(self):
        good = self.rec("1.base.t.json", 1.0)
        missing_round = self.rec("2.v.t.json", 1.0)
        no_base = self.rec("1.w.u.json", 1.0)
        badname = self.rec("base.t.json", 1.0)
        notrec = os.path.join(self.tmp.name, "1.v.x.json")
        with open(notrec, "w") as f:
            f.write("[1, 2]")
        for paths, words in [([good, missing_round], "rounds"), ([no_base], "no record of base"),
                             ([badname], "ROUND.NAME.TAG"), ([notrec], "not a gpp run record"),
                             ([os.path.join(self.tmp.name, "1.base.nothere.json")], "No such file")]:
            r = self.summary(*paths)
            self.assertEqual(r.returncode, 1, paths)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
            self.assertIn(words, r.stderr)


if __name__ == "__main__":
    unittest.main()
