#!/usr/bin/env python3
"""Tests of lab/gpp_sass.py (registered with ctest by tests/CMakeLists.txt).

  python3 tests/lab/test_gpp_sass.py [-v]

Listings written here in both formats the tool reads (nvdisasm's labels, cuobjdump's
addresses), with loops whose bounds and contents are counted by hand: nested loops, a
forward branch that is no loop, a predicated backward branch, a second function the
kernel filter must skip, and a listing with a skipped address."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "lab", "gpp_sass.py")


def nvdisasm_listing(gap=False):
    """An nvdisasm -c listing: function `outer_kernel` with an outer loop (instructions
    1..9) around an inner loop (3..6), a forward branch (7) and, after the outer loop, an
    exit; then function `other_kernel` with one loop of 2 instructions."""
    body = [
        (None, "MOV R1, c[0x0][0x28]"),                     # 0
        (".L_x_1", "LDG.E.128 R4, [R2.64]"),                # 1  outer head
        (None, "DMUL R8, R4, R6"),                          # 2
        (".L_x_2", "DFMA R8, R8, R8, R10"),                 # 3  inner head
        (None, "LDS.64 R12, [R3]"),                         # 4
        (None, "DSETP.GT.AND P0, PT, R8, R12, PT"),         # 5
        (None, "@P1 BRA `(.L_x_2)"),                        # 6  inner back edge
        (None, "@P0 BRA `(.L_x_3)"),                        # 7  forward: no loop
        (None, "DADD R14, R8, -R12"),                       # 8
        (".L_x_3", "@!P2 BRA `(.L_x_1)"),                   # 9  outer back edge
        (None, "EXIT"),                                     # 10
    ]
    lines = ["\t.text.outer_kernel:"]
    address = 0
    for i, (label, instr) in enumerate(body):
        if label:
            lines.append(label + ":")
        if gap and i == 4:
            address += 16  # an instruction the disassembler did not print
        lines.append("        /*%04x*/                   %s ;" % (address, instr))
        address += 16
    lines += ["\t.text.other_kernel:", ".L_x_9:",
              "        /*0000*/                   IADD3 R1, R1, 0x1, RZ ;",
              "        /*0010*/                   BRA `(.L_x_9) ;"]
    return "\n".join(lines) + "\n"


def cuobjdump_listing():
    """cuobjdump -sass: branch targets as addresses; a loop of instructions 1..4."""
    rows = ["MOV R1, c[0x0][0x28]", "LDG.E R2, desc[UR4][R2.64]", "DFMA R4, R2, R2, R4",
            "LDGSTS.E.128 [R5], desc[UR4][R6.64]", "@!P0 BRA 0x10", "EXIT"]
    lines = ["\t\tFunction : _Z6kernelv", "\t.headerflags\t@\"EF_CUDA_SM90\""]
    for i, r in enumerate(rows):
        lines.append("        /*%04x*/                   %s ;   /* 0x000fe20000000f00 */" % (16 * i, r))
        lines.append("                                                      /* 0x000fe20000000f00 */")
    return "\n".join(lines) + "\n"


def run(listing, *args):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "k.sass")
        with open(path, "w") as f:
            f.write(listing)
        p = subprocess.run([sys.executable, SCRIPT, "loops", path] + list(args), capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr


def loop_lines(stdout):
    return [line.strip() for line in stdout.splitlines() if line.startswith("  loop ")]


class Loops(unittest.TestCase):
    def test_nested_loops_of_the_chosen_kernel(self):
        rc, out, err = run(nvdisasm_listing(), "--kernel", "outer")
        self.assertEqual(rc, 0, err)
        self.assertIn("outer_kernel (11 instructions)", out)
        self.assertNotIn("other_kernel", out)
        loops = loop_lines(out)
        self.assertEqual(len(loops), 2, out)  # the forward branch is no loop
        # outermost first: 1..9 (9 instructions: DMUL, DFMA, DSETP, DADD on the FP64 pipe;
        # its global load is its first instruction), then 3..6 (DFMA, DSETP; no load)
        self.assertTrue(loops[0].startswith("loop 1-9: 9 instructions, 4 FP64; global loads at 0;"), loops[0])
        self.assertIn("BRA 3", loops[0])
        self.assertTrue(loops[1].startswith("loop 3-6: 4 instructions, 2 FP64; global loads at -;"), loops[1])
        self.assertIn("LDS 1", loops[1])

    def test_size_filter(self):
        rc, out, _ = run(nvdisasm_listing(), "--min", "5")
        self.assertEqual(rc, 0)
        self.assertEqual([line.split(":")[0] for line in loop_lines(out)], ["loop 1-9"])
        rc, out, _ = run(nvdisasm_listing(), "--max", "4")
        self.assertEqual([line.split(":")[0] for line in loop_lines(out)], ["loop 3-6", "loop 0-1"])

    def test_cuobjdump_addresses(self):
        rc, out, err = run(cuobjdump_listing())
        self.assertEqual(rc, 0, err)
        self.assertIn("_Z6kernelv (6 instructions)", out)
        self.assertEqual(loop_lines(out),
                         ["loop 1-4: 4 instructions, 1 FP64; global loads at 0,2; "
                          "LDG 1 DFMA 1 LDGSTS 1 BRA 1"])

    def test_skipped_address_is_refused(self):
        rc, out, err = run(nvdisasm_listing(gap=True), "--kernel", "outer")
        self.assertEqual(rc, 2)
        self.assertEqual(out, "")
        self.assertIn("1 gaps in the addresses of outer_kernel", err)

    def test_no_matching_kernel(self):
        rc, out, err = run(nvdisasm_listing(), "--kernel", "absent")
        self.assertEqual(rc, 1)
        self.assertIn("no loop of a function matching 'absent'", err)


if __name__ == "__main__":
    unittest.main()
