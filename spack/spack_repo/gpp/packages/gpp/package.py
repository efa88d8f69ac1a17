# Copyright Spack Project Developers. See COPYRIGHT file for details.
#
# SPDX-License-Identifier: (Apache-2.0 OR MIT)
import os
import re

from spack_repo.builtin.build_systems.cmake import CMakePackage
from spack_repo.builtin.build_systems.cuda import CudaPackage
from spack_repo.builtin.build_systems.rocm import ROCmPackage
from spack_repo.builtin.packages.kokkos.package import Kokkos

from spack.package import *

# This file lives at <checkout>/spack/spack_repo/gpp/packages/gpp/package.py.
_CHECKOUT = os.path.abspath(os.path.join(os.path.dirname(__file__), *([os.pardir] * 5)))


class Gpp(CMakePackage, CudaPackage, ROCmPackage):
    """The General Plasmon Pole (GPP) self-energy kernel of BerkeleyGW in C++/Kokkos:
    every step of the published GPU optimisation path as an execution policy, with
    verification, roofline counts and HDF5/Fortran-format decks."""

    # Placeholder: the project has no public address yet (.invalid is a reserved domain,
    # RFC 2606). Replace homepage and url before submitting to spack-packages.
    homepage = "https://gpp.invalid/"
    url = "https://gpp.invalid/releases/gpp-1.0.0.tar.gz"
    # `main` is the committed main branch of the git clone this file belongs to.
    git = f"file://{_CHECKOUT}"

    maintainers("gpp-maintainers")

    license("BSD-3-Clause")

    version("main", branch="main")
    # `git archive --format=tar.gz --prefix=gpp-1.0.0/ v1.0.0` (scripts/release.sh 1.0.0)
    version("1.0.0", sha256="c4023abf59fd9469307a3f44b940ea1b90daa22237f4947504cc44254795183b")

    variant("openmp", default=True, description="Kokkos OpenMP host backend (off: Serial)")
    variant("hdf5", default=True, description="HDF5 decks and result files (C API, no MPI)")
    variant(
        "kokkos-kernels",
        default=True,
        description="achstemp with KokkosBlas::gemm (cuBLAS with +cuda); off: a Kokkos product",
    )
    variant("mpi", default=False, description="MPI over G' (GPP_ENABLE_MPI, docs/mpi.md)")
    variant(
        "xsimd",
        default=True,
        description="the host policy's loops on xsimd vectors (off: portable packs, GPP_ENABLE_XSIMD)",
    )
    variant("cxxstd", default="17", values=("17", "20"), multi=False, description="C++ standard")
    # The library (docs/library.md): libgpp with the C++ API and the C interface; its
    # Fortran module and Python module where asked for.
    variant("library", default=True, description="libgpp, <gpp/gpp.hpp> and <gpp/gpp.h> (needs a shared Kokkos)")
    variant("fortran", default=True, when="+library", description="the Fortran module gpp (libgpp_fortran)")
    variant("python", default=False, when="+library", description="the Python module gpp (pybind11, NumPy)")

    # Kokkos builds for exactly one GPU architecture: one value, not a list (the base
    # classes' variants take several, which Kokkos cannot honour).
    variant(
        "cuda_arch",
        description="CUDA architecture (exactly one)",
        values=("none",) + CudaPackage.cuda_arch_values,
        default="none",
        multi=False,
        sticky=True,
        when="+cuda",
    )
    variant(
        "amdgpu_target",
        description="AMD GPU architecture (exactly one)",
        values=("none",) + ROCmPackage.amdgpu_targets,
        default="none",
        multi=False,
        sticky=True,
        when="+rocm",
    )

    depends_on("c", type="build")  # project(... LANGUAGES C CXX): FindHDF5 needs C
    depends_on("cxx", type="build")
    depends_on("fortran", type="build", when="+fortran")
    depends_on("cmake@3.21:", type="build")  # cmake_minimum_required, as the presets

    # Tested: Kokkos 3.4 (Debian 12), 4.6, 4.7 and 5.2 (backend/gpp_compat.hpp). Kokkos 5
    # needs C++20 (cxxstd=20).
    depends_on("kokkos@3.4:5")
    for _std in ("17", "20"):
        depends_on(f"kokkos cxxstd={_std}", when=f"cxxstd={_std}")
    depends_on("kokkos+openmp", when="+openmp")
    depends_on("kokkos+serial", when="~openmp")

    # CUDA: Kokkos targets the one architecture gpp is built for and compiles through
    # its nvcc wrapper; Kokkos Kernels instantiates gemm for the CUDA spaces (cuBLAS).
    conflicts("+cuda", when="cuda_arch=none", msg="+cuda needs one cuda_arch (70 for V100)")
    conflicts("+cuda", when="+rocm", msg="Kokkos has one GPU backend: +cuda or +rocm")
    for _arch in CudaPackage.cuda_arch_values:
        _on = f"+cuda cuda_arch={_arch}"
        if _arch not in Kokkos.spack_cuda_arch_map:
            conflicts(_on, msg=f"Kokkos has no architecture for cuda_arch={_arch}")
            continue
        _since = Kokkos.spack_cuda_arch_map[_arch][1] or ""
        depends_on(f"kokkos{_since}+cuda+wrapper cuda_arch={_arch}", when=_on)
        depends_on(
            f"kokkos-kernels+cuda+execspace_cuda+memspace_cudaspace+cublas cuda_arch={_arch}",
            when=f"+kokkos-kernels {_on}",
        )

    # Kokkos 4 needs cuda_lambda for gpp's device lambdas (Kokkos 5 has no such variant).
    conflicts("^kokkos@:4~cuda_lambda", when="+cuda", msg="Kokkos 4 needs +cuda_lambda")

    # ROCm: the HIP presets (hip-gfx90a, hip-gfx942) with Kokkos from spack.
    for _target in ROCmPackage.amdgpu_targets:
        _on = f"+rocm amdgpu_target={_target}"
        if _target not in Kokkos.amdgpu_arch_map:
            conflicts(_on, msg=f"Kokkos has no architecture for amdgpu_target={_target}")
            continue
        _since = Kokkos.amdgpu_arch_map[_target][1] or ""
        depends_on(f"kokkos{_since}+rocm amdgpu_target={_target}", when=_on)

    # The kokkos package leaves its wrapper's version free (spack picked wrapper 5.1.1
    # for Kokkos 4.6.02): use the nvcc_wrapper of the Kokkos release gpp builds with.
    for _v in Kokkos.versions:
        if str(_v)[0].isdigit():
            depends_on(f"kokkos-nvcc-wrapper@={_v}", when=f"+cuda ^kokkos@={_v}")

    with when("+kokkos-kernels"):
        depends_on("kokkos-kernels scalars=complex_double layouts=left")
        depends_on("kokkos-kernels+execspace_openmp", when="+openmp")
        # GCC 12 crashes (internal compiler error) in Kokkos Kernels 4.6's complex
        # reciprocal ETI on AVX-512 targets, spack's default there (x86_64_v4); fixed in
        # 4.7.00. Without this the concretizer picks 4.6 (4.7 flips a Kokkos default).
        conflicts(
            "^kokkos-kernels@:4.6 %gcc@12",
            when="target=x86_64_v4:",
            msg="GCC 12 crashes in Kokkos Kernels 4.6 on AVX-512 targets: use 4.7 or newer",
        )

    # Every rank reads a deck file with the serial HDF5 C API (docs/mpi.md), also with +mpi.
    depends_on("hdf5~mpi", when="+hdf5")
    depends_on("mpi", when="+mpi")
    depends_on("cli11@2:")
    depends_on("xsimd@8:", when="+xsimd")  # header-only
    depends_on("nlohmann-json@3.10:")  # run records, ceilings and tuning files
    depends_on("googletest@1.12:", type="test")

    # One Kokkos for the library and its caller: a shared one.
    depends_on("kokkos+shared", when="+library")
    with when("+python"):
        extends("python")
        depends_on("python@3.8:", type=("build", "run"))
        depends_on("py-pybind11@2.6:", type="build")
        depends_on("py-numpy", type=("build", "run", "test"))
    # The stand-alone tests build the installed examples with CMake.
    depends_on("cmake@3.21:", type="test", when="+library")

    sanity_check_is_file = [
        join_path("bin", "gpp"),
        join_path("share", "gpp", "inputs", "small.toml"),
    ]

    def _kokkos_devices(self):
        """GPP_EXPECT_DEVICES: the backends this spec asked Kokkos for."""
        devices = []
        if self.spec.satisfies("+cuda"):
            devices.append("CUDA")
        if self.spec.satisfies("+rocm"):
            devices.append("HIP")
        devices.append("OPENMP" if self.spec.satisfies("+openmp") else "SERIAL")
        return devices

    def _kokkos_arch(self):
        """GPP_EXPECT_ARCH: the name spack's kokkos package gives Kokkos for the GPU
        (VOLTA70 for cuda_arch=70, VEGA90A for amdgpu_target=gfx90a, AMD_GFX942 for
        gfx942); empty for a CPU build (no architecture is checked)."""
        if self.spec.satisfies("+cuda"):
            arch = self.spec.variants["cuda_arch"].value
            return Kokkos.spack_cuda_arch_map[arch][0].upper()
        if self.spec.satisfies("+rocm"):
            target = self.spec.variants["amdgpu_target"].value
            return Kokkos.amdgpu_arch_map[target][0].upper()
        return ""

    def cmake_args(self):
        args = [
            self.define("CMAKE_CXX_STANDARD", self.spec.variants["cxxstd"].value),
            self.define("GPP_ENABLE_HDF5", "ON" if self.spec.satisfies("+hdf5") else "OFF"),
            self.define_from_variant("GPP_ENABLE_KOKKOSKERNELS", "kokkos-kernels"),
            self.define_from_variant("GPP_ENABLE_MPI", "mpi"),
            self.define("GPP_ENABLE_XSIMD", "ON" if self.spec.satisfies("+xsimd") else "OFF"),
            self.define("GPP_ENABLE_TESTS", self.run_tests),
            self.define("GPP_EXPECT_DEVICES", ";".join(self._kokkos_devices())),
            self.define("GPP_EXPECT_ARCH", self._kokkos_arch()),
            # The host ISA is the spec's target: spack's compiler wrapper adds its flags
            # (e.g. -march=sapphirerapids for target=sapphirerapids), so no -march=native.
            self.define("GPP_HOST_ARCH", "OFF"),
            self.define("GPP_ENABLE_LIBRARY", "ON" if self.spec.satisfies("+library") else "OFF"),
            self.define("GPP_ENABLE_FORTRAN", "ON" if self.spec.satisfies("+fortran") else "OFF"),
            self.define("GPP_ENABLE_PYTHON", "ON" if self.spec.satisfies("+python") else "OFF"),
        ]
        if self.spec.satisfies("+python"):
            # spack's python, and its site-packages layout under the prefix (extends).
            args.append(self.define("GPP_PYTHON", self.spec["python"].command.path))
            args.append(self.define("GPP_PYTHON_INSTALL_DIR", os.path.relpath(python_platlib, self.prefix)))
        if self.spec.satisfies("+cuda"):
            # nvcc_wrapper of the kokkos-nvcc-wrapper package, itself wrapping spack's C++.
            args.append(self.define("CMAKE_CXX_COMPILER", self["kokkos"].kokkos_cxx))
        elif self.spec.satisfies("+rocm"):
            # hipcc, as the hip-gfx90a and hip-gfx942 presets (single-source HIP).
            args.append(self.define("CMAKE_CXX_COMPILER", self.spec["hip"].hipcc))
        return args

    # Stand-alone tests (spack test run gpp): they run the installed binary on the host
    # it was built for; a +cuda or +rocm build needs that GPU.
    def _gpp(self, *args, status=0):
        """gpp's stdout and stderr; its exit status must be `status`."""
        gpp = which(join_path(self.prefix.bin, "gpp"), required=True)
        with set_env(OMP_NUM_THREADS="2", OMP_PROC_BIND="false"):
            out = gpp(*args, output=str.split, error=str.split, fail_on_error=False)
        assert gpp.returncode == status, f"gpp {' '.join(args)}: exit {gpp.returncode}\n{out}"
        return out

    def test_version(self):
        """gpp --version names the release, the Kokkos version and the backend"""
        out = self._gpp("--version")
        if not self.spec.satisfies("@main"):
            assert f"gpp {self.spec.version}\n" in out, out
        kokkos = [int(x) for x in re.findall(r"\d+", str(self.spec["kokkos"].version))[:3]]
        found = re.search(r"^Kokkos (\d+)\.(\d+)\.(\d+) \(", out, re.M)
        assert found and [int(x) for x in found.groups()] == kokkos, out
        backend = "Cuda" if self.spec.satisfies("+cuda") else "HIP" if "+rocm" in self.spec else ""
        backend = backend or ("OpenMP" if self.spec.satisfies("+openmp") else "Serial")
        assert backend in out.split("\n")[2], out

    def test_small_deck(self):
        """every policy on the installed small deck verifies against the reference"""
        deck = join_path(self.prefix.share.gpp.inputs, "small.toml")
        out = self._gpp("run", deck, "--policy", "all")
        results = [line for line in out.splitlines() if line.startswith("RESULT ")]
        assert len(results) >= 10, out
        assert all("verified=yes" in line for line in results), out

    # The library's stand-alone tests build the installed examples (cached with the
    # package) against the prefix, as a user's project would, and run them: each exits 1
    # when gpp's sums differ from its own loop.
    @run_after("install")
    def cache_examples(self):
        if self.spec.satisfies("+library"):
            cache_extra_test_sources(self, ["examples"])

    def _example(self, language):
        """builds examples/LANGUAGE against the install with CMake and runs it"""
        src = join_path(self.test_suite.current_test_cache_dir, "examples", language)
        build = join_path(self.test_suite.current_test_cache_dir, "build-" + language)
        cmake = which("cmake", required=True)
        cmake("-S", src, "-B", build, f"-DCMAKE_PREFIX_PATH={self.prefix}", "-DCMAKE_BUILD_TYPE=Release")
        cmake("--build", build)
        example = which(join_path(build, "gpp_example_" + language), required=True)
        with set_env(OMP_NUM_THREADS="2", OMP_PROC_BIND="false"):
            out = example(output=str.split, error=str.split)
        return out

    def test_library_cxx(self):
        """the C++ example, built against the installed package, agrees with its own loop"""
        if not self.spec.satisfies("+library"):
            raise SkipTest("built without the library (~library)")
        out = self._example("cxx")
        assert "DIFFERS" not in out and "agrees" in out, out

    def test_library_c(self):
        """the C example, built against the installed package, agrees with its own loop"""
        if not self.spec.satisfies("+library"):
            raise SkipTest("built without the library (~library)")
        out = self._example("c")
        assert "agree" in out and "DIFFER" not in out, out

    def test_library_fortran(self):
        """the Fortran example calls gpp through the module and agrees with its own loop"""
        if not self.spec.satisfies("+fortran"):
            raise SkipTest("built without the Fortran module (~fortran)")
        out = self._example("fortran")
        assert "the sums agree with the loop" in out, out

    def test_library_python(self):
        """the Python example calls the installed module and agrees with its own loop"""
        if not self.spec.satisfies("+python"):
            raise SkipTest("built without the Python module (~python)")
        script = join_path(self.test_suite.current_test_cache_dir, "examples", "python", "gpp_example.py")
        python = which(self.spec["python"].command.path, required=True)
        with set_env(PYTHONPATH=python_platlib, OMP_NUM_THREADS="2", OMP_PROC_BIND="false"):
            out = python(script, output=str.split, error=str.split)
        assert "imported gpp from " + python_platlib in out and "DIFFERS" not in out, out

    def test_installed_deck(self):
        """a deck given by name is found in the installed share/gpp/inputs"""
        assert os.path.isfile(join_path(self.prefix.share.gpp.inputs, "si214.toml"))
        out = self._gpp("run", "small", "--policy", "host")
        assert re.search(r"^RESULT deck=small policy=host .*verified=yes", out, re.M), out
        out = self._gpp("run", "no-such-deck", status=1)
        # the installed directory is among the places named (a long path keeps its tail)
        assert "no deck 'no-such-deck'" in out and "share/gpp/inputs/no-such-deck" in out, out
