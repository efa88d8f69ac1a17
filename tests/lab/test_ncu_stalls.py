#!/usr/bin/env python3
"""Tests of lab/ncu_stalls.py (registered with ctest by tests/CMakeLists.txt).

  python3 tests/lab/test_ncu_stalls.py [-v]

A source page written here as Nsight Compute's CSV writes it (quoted fields, numbers with
thousands separators, a "Kernel Name" line before each kernel's table), with a loop of
three instructions inside a loop of six, a forward branch that is no loop, and samples
counted by hand; and a file without the sampled column."""
import csv
import io
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "lab", "ncu_stalls.py")

HEADER = ["Address", "Source", "Warp Stall Sampling (All Samples)", "Warp Stall Sampling (Not-issued Samples)",
          "Instructions Executed", "stall_wait", "stall_long_sb", "stall_math", "stall_wait (Not Issued)"]


def kernel_rows(base):
    """(address, source, samples, executed, wait, long_sb, math): instructions 1..6 are the
    outer loop (back edge at 6), 2..4 the inner one (back edge at 4), 5 a forward branch."""
    a = lambda k: f"0x{base + 16 * k:x}"
    return [
        (a(0), "MOV R1, c[0x0][0x28]", 0, 1, 0, 0, 0),
        (a(1), "LDG.E.128 R4, desc[UR4][R2.64]", 100, 10, 0, 0, 0),
        (a(2), "DFMA R8, R4, R6, R8", 1200, 1000, 700, 0, 500),
        (a(3), "IMAD.MOV.U32 R10, RZ, RZ, R4", 1500, 1000, 0, 1500, 0),
        (a(4), f"@P0 BRA {a(2)}", 200, 1000, 200, 0, 0),
        (a(5), f"@P1 BRA {a(6)}", 0, 10, 0, 0, 0),
        (a(6), f"@P2 BRA {a(1)}", 0, 10, 0, 0, 0),
        (a(7), "EXIT", 0, 1, 0, 0, 0),
    ]


def write_page(path, kernels, with_samples=True):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        for name, rows in kernels:
            w.writerow(["Kernel Name", name])
            header = HEADER if with_samples else [h for h in HEADER if "Sampling" not in h]
            w.writerow(header)
            for addr, src, samples, executed, wait, long_sb, math in rows:
                values = [addr, src, f"{samples:,}", "0", f"{executed:,}", str(wait), str(long_sb), str(math), "0"]
                if not with_samples:
                    values = [addr, src, f"{executed:,}", str(wait), str(long_sb), str(math), "0"]
                w.writerow(values)


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


class NcuStalls(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def page(self, kernels, **kw):
        path = os.path.join(self.dir.name, "source.csv")
        write_page(path, kernels, **kw)
        return path

    def test_reasons_loops_and_top_instructions(self):
        r = run(self.page([("tuned_kernel", kernel_rows(0x7f00))]), "--top", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = r.stdout
        self.assertIn("kernel tuned_kernel", out)
        self.assertIn("samples 3000, instructions executed 3032", out)
        # 3000 samples: wait 900 (30%), long_sb 1500 (50%), math 500 (16.7%); the
        # not-issued column is not a reason of its own
        self.assertIn("by reason: long_sb 50.0%, wait 30.0%, math 16.7%", out)
        self.assertNotIn("(Not Issued)", out)
        self.assertIn("loop 1-6 (6 instructions): 100.0% of the samples", out)
        self.assertIn("loop 2-4 (3 instructions): 96.7% of the samples", out)
        self.assertNotIn("loop 5", out)  # a forward branch is no loop
        top = [line.split()[0] for line in out.splitlines() if re.match(r"^\s+\d+ ", line)]
        self.assertEqual(top, ["2", "3"])  # the two with the most samples, in program order
        self.assertIn("50.00%  IMAD.MOV.U32 R10, RZ, RZ, R4", out)
        self.assertIn("long_sb=1500", out)
        self.assertIn("wait=700 math=500", out)

    def test_every_kernel_of_the_file(self):
        r = run(self.page([("first", kernel_rows(0x1000)), ("second", kernel_rows(0x9000))]))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.count("samples 3000"), 2)
        self.assertIn("kernel first", r.stdout)
        self.assertIn("kernel second", r.stdout)

    def test_a_page_without_samples_is_refused(self):
        r = run(self.page([("k", kernel_rows(0x1000))], with_samples=False))
        self.assertEqual(r.returncode, 2)
        self.assertIn("no 'Warp Stall Sampling (All Samples)' column", r.stderr)
        self.assertEqual(r.stdout, "")

    def test_not_a_source_page(self):
        path = os.path.join(self.dir.name, "other.csv")
        with open(path, "w") as f:
            f.write('"ID","Kernel","Metric"\n"0","k","1"\n')
        r = run(path)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no table with an Address column", r.stderr)


if __name__ == "__main__":
    unittest.main()
