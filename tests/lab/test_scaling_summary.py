#!/usr/bin/env python3
"""Tests of lab/scaling_summary.py (registered with ctest by tests/CMakeLists.txt).

  python3 tests/lab/test_scaling_summary.py [-v]

Records written here with times whose efficiencies and ratios are worked out by hand;
decks sized from made-up ceilings files against a given host memory."""
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "lab", "scaling_summary.py")


def record(ranks=1, kernel=0.5, with_copies=None, transfer=0.45, sums=((1.0, 2.0), (3.0, -4.0)), verified=True,
           chunks=1, total=10.0, stream_bytes=0.0, stream_copy_s=0.0):
    run = {"policy": "tuned", "space": {"device": "NVIDIA H100"}, "time_median_s": kernel,
           "time_with_transfers_median_s": kernel if with_copies is None else with_copies, "chunks": chunks,
           "ranks": ranks, "rank_kernel_median_s": [kernel] * ranks, "comm_median_s": 19e-6,
           "rel_error": 1e-14, "verified": verified, "achtemp": [list(sums[0])], "asxtemp": [list(sums[1])],
           "stream_bytes_per_pass": stream_bytes, "stream_copy_s_per_pass": stream_copy_s}
    return {"kind": "gpp-record", "ranks": ranks, "runs": [run],
            "deck": {"name": "d", "nbands": 4, "ngpown": 8, "ncouls": 16, "nw": 1, "updates": 512.0},
            "setup": {"transfer_s": transfer, "transfer_bytes": 3.0e9, "transfer_copy_s": 0.12},
            "verification": {"against": "device reference", "reference_s": 12.0, "tolerance": 1e-10},
            "time_to_solution": {"setup_s": 1, "transfer_s": transfer, "kernel_s": 3, "verification_s": 5,
                                 "output_s": 0.01, "total_s": total}}


class Summary(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, obj):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(obj if isinstance(obj, str) else json.dumps(obj))
        return path

    def run_tool(self, *args):
        p = subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    def test_strong_efficiency_and_sums(self):
        one = self.write("one.json", record(kernel=0.4977, total=20.0))
        two = self.write("two.json", record(ranks=2, kernel=0.2445, total=12.5, sums=((1.0, 2.0), (3.0, -4.0 + 5e-13))))
        rc, out, err = self.run_tool("strong", one, two)
        self.assertEqual(rc, 0, err)
        self.assertIn("1 rank 0.4977 s, 2 ranks 0.2445 s: efficiency 1.02", out)  # 0.4977 / 0.489 = 1.0178
        self.assertIn("(time to solution): 1 rank 20 s, 2 ranks 12.5 s: efficiency 0.8", out)
        self.assertIn("largest relative difference 1e-13", out)  # 5e-13 / |3 - 4i|
        self.assertIn("both verified", out)

    def test_weak_efficiency(self):
        one = self.write("one.json", record(kernel=0.50))
        two = self.write("two.json", record(ranks=2, kernel=0.52, verified=False))
        rc, out, _ = self.run_tool("weak", one, two)
        self.assertEqual(rc, 0)
        self.assertIn("efficiency 0.962", out)  # 0.50 / 0.52
        self.assertIn("NOT both verified", out)

    def test_chunks_ratio(self):
        whole = self.write("whole.json", record(kernel=0.50, transfer=0.15, total=20.0))
        chunked = self.write("chunked.json", record(kernel=0.52, with_copies=0.585, chunks=13, total=22.0,
                                                    stream_bytes=2.5e9, stream_copy_s=0.1))
        rc, out, _ = self.run_tool("chunks", whole, chunked)
        self.assertEqual(rc, 0)
        self.assertIn("against the whole run's transfer + kernel 0.65 s: 0.9x", out)  # 0.585 / 0.65
        self.assertIn("13 chunks", out)
        self.assertIn("(1.1x)", out)
        rc, out, _ = self.run_tool("record", chunked)
        self.assertIn("streamed 2.5 GB a pass, copies 0.1 s at 25 GB/s", out)
        self.assertIn("copies at 25 GB/s", out)  # 3e9 / 0.12

    def test_deck_size(self):
        ceil = self.write("ceil.json", {"device": {"name": "NVIDIA H100 80GB HBM3", "memory_free_bytes": 84e9}})
        rc, out, err = self.run_tool("deck-size", "--ceilings", ceil, "--host-bytes", "200e9")
        self.assertEqual(rc, 0, err)
        n = int(out.split("--ngpown ")[1].split()[0])
        self.assertEqual(n, int(math.sqrt(1.2 * 84e9 / 32)))
        self.assertIn("--ncouls %d" % n, out)
        self.assertIn("1.20x the", err)
        # A host that holds 110 GB: the deck shrinks to fit it, still beyond the device.
        rc, out, err = self.run_tool("deck-size", "--ceilings", ceil, "--host-bytes", "110e9")
        self.assertEqual(rc, 0, err)
        m = int(out.split("--ngpown ")[1].split()[0])
        self.assertLess(m, n)
        self.assertLessEqual(1.1 * 32.0 * m * m, 110e9)
        self.assertGreater(32.0 * m * m, 84e9)
        self.assertIn("capped by the host", err)
        # Two ranks share the columns: each holds half.
        rc, out, _ = self.run_tool("deck-size", "--ceilings", ceil, "--host-bytes", "110e9", "--ranks", "2")
        self.assertEqual(int(out.split("--ngpown ")[1].split()[0]), n)
        # A host smaller than the device: refused in one line.
        rc, out, err = self.run_tool("deck-size", "--ceilings", ceil, "--host-bytes", "80e9")
        self.assertEqual(rc, 1)
        self.assertEqual(out, "")
        self.assertEqual(len(err.strip().splitlines()), 1)
        self.assertIn("cannot hold a deck larger than", err)

    def test_bad_input_is_one_line(self):
        cases = [("strong", self.write("bad.json", "{"), self.write("r.json", record(ranks=2))),
                 ("weak", self.write("notrecord.json", {"kind": "gpp-ceilings"}), self.write("r2.json", record(ranks=2))),
                 ("strong", self.write("a.json", record()), self.write("b.json", record())),  # no multi-rank run
                 ("deck-size", "--ceilings", self.write("c.json", {"device": {"name": "x"}}))]
        for args in cases:
            rc, out, err = self.run_tool(*args)
            self.assertEqual(rc, 1, args)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
            self.assertTrue(err.startswith("scaling_summary: "), err)


if __name__ == "__main__":
    unittest.main()
