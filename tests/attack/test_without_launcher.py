#!/usr/bin/env python3
"""Tests of gpp_attack.without_launcher (registered with ctest by tests/CMakeLists.txt):
what mpiexec adds to a run's output is left out, and gpp's own lines are kept.

  python3 tests/attack/test_without_launcher.py [-v]

The launcher's lines here are copied from Open MPI 4.1 runs of the MPI tests."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpp_attack import without_launcher  # noqa: E402

ERROR = b"gpp bench: error: runs on one rank; under mpirun, use gpp run (docs/mpi.md)\n"
BANNER = (b"--------------------------------------------------------------------------\n"
          b"Primary job  terminated normally, but 1 process returned\n"
          b"a non-zero exit code. Per user-direction, the job has been aborted.\n"
          b"--------------------------------------------------------------------------\n")
LIBEVENT = (b"[warn] Epoll MOD(1) on fd 23 failed. Old events were 6; read change was 0 (none); "
            b"write change was 2 (del); close change was 0 (none): Bad file descriptor\n")
AGGREGATED = b"[ci-host:01234] 2 more processes have sent help message help-mpi-api.txt / mpi-abort\n"


class WithoutLauncher(unittest.TestCase):
    def err(self, text):
        return without_launcher(b"", text)[1]

    def test_gpp_line_alone_is_kept(self):
        self.assertEqual(self.err(ERROR), ERROR)

    def test_banners_libevent_and_aggregated_lines_are_left_out(self):
        self.assertEqual(self.err(ERROR + BANNER + BANNER + LIBEVENT + AGGREGATED), ERROR)
        self.assertEqual(self.err(LIBEVENT + ERROR), ERROR)
        for severity in (b"debug", b"msg", b"err"):
            self.assertEqual(self.err(b"[" + severity + b"] something of libevent's\n" + ERROR), ERROR)

    def test_other_bracketed_lines_are_kept(self):
        # not the launcher's forms: a second gpp line would show, and fail the one-line check
        for line in (b"[warning] not libevent's word\n", b"[warn]no space\n", b"[1/3] a campaign's line\n"):
            self.assertEqual(self.err(ERROR + line), ERROR + line)

    def test_placement_lines_left_out_of_stdout(self):
        out = b"rank 0 of 2: host h, device 0\nRESULT deck=x\n"
        self.assertEqual(without_launcher(out, b"")[0], b"RESULT deck=x\n")


if __name__ == "__main__":
    unittest.main()
