#!/usr/bin/env python3
"""scripts/spack-offline.sh checks every tarball's sha256 before it builds anything (ctest
SpackConfig.OfflineChecksumsFirst; needs python3 and bash, not spack).

  python3 tests/spack/test_spack_offline.py [-v]

A stand-in spack checkout (its bin/spack records that it was called) and a stand-in
spack-packages tree (package.py files with version("V", sha256=...)) are made in a scratch
folder. A tarball whose sha256 differs from the listed one must stop the script with one
line naming the tarball and both checksums, before the prerequisites step, before spack or
clingo is run, and with nothing in the mirror; compiler-wrapper's release asset may differ
(it is installed with --no-checksum); a version the package does not list is one line."""
import hashlib
import os
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.normpath(os.path.join(HERE, "..", "..", "scripts", "spack-offline.sh"))

PACKAGE = '''from spack.package import *


class {cls}(CMakePackage):
    """A stand-in."""

    version("develop", branch="develop")
    version("{version}", sha256="{sha}")
    version("0.0.1", sha256="{other}")
'''


class OfflineChecksums(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        self.spack = os.path.join(d, "spack")
        os.makedirs(os.path.join(self.spack, "bin"))
        self.called = os.path.join(d, "spack-was-called")
        with open(os.path.join(self.spack, "bin", "spack"), "w") as f:
            f.write(f"#!/bin/sh\ntouch {self.called}\nexit 3\n")
        os.chmod(os.path.join(self.spack, "bin", "spack"), 0o755)
        self.packages = os.path.join(d, "spack-packages")
        builtin = os.path.join(self.packages, "repos", "spack_repo", "builtin")
        os.makedirs(builtin)
        with open(os.path.join(builtin, "repo.yaml"), "w") as f:
            f.write("repo:\n  namespace: builtin\n")
        self.tarballs = {}
        for name, version in (("kokkos", "4.7.00"), ("kokkos-kernels", "4.7.00"), ("compiler-wrapper", "1.1.0")):
            data = f"{name}-{version} release asset\n".encode()
            path = os.path.join(d, f"{name}-{version}.tar.gz")
            with open(path, "wb") as f:
                f.write(data)
            self.tarballs[name] = path
            pkg = os.path.join(builtin, "packages", name.replace("-", "_"))
            os.makedirs(pkg)
            with open(os.path.join(pkg, "package.py"), "w") as f:
                f.write(PACKAGE.format(cls=name.title().replace("-", ""), version=version,
                                       sha=hashlib.sha256(data).hexdigest(), other="0" * 64))
        self.mirror = os.path.join(d, "mirror")
        self.work = os.path.join(d, "work")

    def tearDown(self):
        self.tmp.cleanup()

    def run_script(self, *sources):
        return subprocess.run(["bash", SCRIPT, "--work", self.work, self.spack, self.packages, self.mirror, *sources],
                              capture_output=True, text=True, timeout=120)

    def mirrored(self):
        found = []
        for base, _, files in os.walk(self.mirror):
            found += files
        return found

    def test_a_wrong_tarball_stops_before_anything_is_built(self):
        with open(self.tarballs["kokkos-kernels"], "ab") as f:
            f.write(b"a byte more, as a git archive of another commit would have\n")
        r = self.run_script(f"kokkos@4.7.00={self.tarballs['kokkos']}",
                            f"kokkos-kernels@4.7.00={self.tarballs['kokkos-kernels']}")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        lines = r.stderr.strip().split("\n")
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertRegex(lines[0], r"^spack-offline: kokkos-kernels-4\.7\.00\.tar\.gz: sha256 [0-9a-f]{8}\.\.\., "
                                   r"but the kokkos-kernels package lists [0-9a-f]{8}\.\.\. for 4\.7\.00 ")
        self.assertIn("When a checksum differs", lines[0])
        self.assertNotIn("prerequisites", r.stdout)
        self.assertFalse(os.path.exists(self.called), "spack ran before the checksums were checked")
        self.assertEqual(self.mirrored(), [], "a tarball went into the mirror before all were checked")

    def test_right_tarballs_go_into_the_mirror_first(self):
        with open(self.tarballs["compiler-wrapper"], "ab") as f:
            f.write(b"git archive, not the release asset\n")
        r = self.run_script(*(f"{n}@{v}={self.tarballs[n]}" for n, v in
                              (("kokkos", "4.7.00"), ("kokkos-kernels", "4.7.00"), ("compiler-wrapper", "1.1.0"))))
        # It goes on past the checks (and stops later: no real spack here).
        self.assertIn("mirror: kokkos@4.7.00 <- kokkos-4.7.00.tar.gz (sha256 ", r.stdout)
        self.assertIn("mirror: compiler-wrapper@1.1.0 <- compiler-wrapper-1.1.0.tar.gz (not the release asset", r.stdout)
        self.assertEqual(len(self.mirrored()), 3)
        with open(self.tarballs["kokkos"], "rb") as f:
            sha = hashlib.sha256(f.read()).hexdigest()
        self.assertTrue(os.path.isfile(os.path.join(self.mirror, "_source-cache", "archive", sha[:2], sha + ".tar.gz")))
        self.assertNotIn("sha256", r.stderr)

    def test_an_unlisted_version_or_a_bad_argument_is_one_line(self):
        for source, message in ((f"kokkos@9.9.9={self.tarballs['kokkos']}", "lists no sha256 for version 9.9.9"),
                                (f"nosuchpackage@1.0={self.tarballs['kokkos']}", "no package nosuchpackage"),
                                (f"kokkos@4.7.00={self.tarballs['kokkos']}.missing", "no such file"),
                                (self.tarballs["kokkos"], "expected NAME@VERSION=TARBALL")):
            r = self.run_script(source)
            self.assertEqual(r.returncode, 1, source)
            self.assertEqual(len(r.stderr.strip().split("\n")), 1, r.stderr)
            self.assertIn(message, r.stderr, source)
            self.assertFalse(os.path.exists(self.called))
            self.assertEqual(self.mirrored(), [])


if __name__ == "__main__":
    unittest.main()
