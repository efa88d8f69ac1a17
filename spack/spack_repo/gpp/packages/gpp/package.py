# The spack package of gpp (docs/spack.md). Package API v2 (spack 1.x); the build
# systems and the Kokkos package come from spack's builtin repository (spack/spack-packages).
import os

from spack_repo.builtin.build_systems.cmake import CMakePackage
from spack_repo.builtin.build_systems.cuda import CudaPackage
from spack_repo.builtin.packages.kokkos.package import Kokkos

from spack.package import *

# This file lives at <checkout>/spack/spack_repo/gpp/packages/gpp/package.py.
_CHECKOUT = os.path.abspath(os.path.join(os.path.dirname(__file__), *([os.pardir] * 5)))


class Gpp(CMakePackage, CudaPackage):
    """The General Plasmon Pole (GPP) self-energy kernel of BerkeleyGW in C++/Kokkos:
    every step of the published GPU optimisation path as an execution policy, with
    verification, roofline counts and HDF5/Fortran-format decks."""

    # The repository that holds this package is the project itself: `main` is fetched
    # from the git clone this file belongs to (its committed main branch). The
    # environment in the checkout (spack.yaml) builds the working tree instead, as a
    # develop spec.
    git = f"file://{_CHECKOUT}"

    license("BSD-3-Clause")

    version("main", branch="main")

    variant("openmp", default=True, description="Kokkos OpenMP host backend")
    variant("hdf5", default=True, description="HDF5 decks and result files (C API, no MPI)")
    variant(
        "kokkos-kernels",
        default=True,
        description="achstemp with KokkosBlas::gemm (cuBLAS with +cuda); off: a Kokkos product",
    )
    variant(
        "mpi",
        default=False,
        description="MPI over G' (GPP_ENABLE_MPI, docs/mpi.md): gpp run under mpirun shares the G' columns",
    )
    variant(
        "cxxstd", default="17", values=("17", "20"), multi=False, description="C++ standard"
    )

    depends_on("c", type="build")  # project(... LANGUAGES C CXX): FindHDF5 needs C
    depends_on("cxx", type="build")
    depends_on("cmake@3.18:", type="build")

    # Kokkos 3.4 (Debian 12) and 4.x are what the code is written and tested for
    # (backend/gpp_compat.hpp); Kokkos 5 is untested.
    depends_on("kokkos@3.4:4")
    for _std in ("17", "20"):
        depends_on(f"kokkos cxxstd={_std}", when=f"cxxstd={_std}")
    depends_on("kokkos+openmp", when="+openmp")
    depends_on("kokkos+serial", when="~openmp")

    # CUDA: Kokkos targets exactly one architecture, the one gpp is built for, and
    # compiles through its nvcc wrapper. Kokkos Kernels instantiates gemm for the CUDA
    # execution and memory spaces and calls cuBLAS.
    conflicts("+cuda", when="cuda_arch=none", msg="+cuda needs one cuda_arch (70 for V100)")
    for _arch in CudaPackage.cuda_arch_values:
        _on = f"+cuda cuda_arch={_arch}"
        if _arch not in Kokkos.spack_cuda_arch_map:
            conflicts(_on, msg=f"Kokkos has no architecture for cuda_arch={_arch}")
            continue
        depends_on(f"kokkos+cuda+wrapper+cuda_lambda cuda_arch={_arch}", when=_on)
        depends_on(
            "kokkos-kernels+cuda+execspace_cuda+memspace_cudaspace+cublas"
            f" cuda_arch={_arch}",
            when=f"+kokkos-kernels {_on}",
        )

    # The kokkos package leaves its wrapper's version free (spack picked wrapper 5.1.1
    # for Kokkos 4.6.02): use the nvcc_wrapper of the Kokkos release gpp builds with.
    for _v in Kokkos.versions:
        if str(_v)[0].isdigit():
            depends_on(f"kokkos-nvcc-wrapper@={_v}", when=f"+cuda ^kokkos@={_v}")

    with when("+kokkos-kernels"):
        depends_on("kokkos-kernels scalars=complex_double layouts=left")
        depends_on("kokkos-kernels+execspace_openmp", when="+openmp")

    # Every rank reads a deck file with the serial HDF5 C API (docs/mpi.md), also with +mpi.
    depends_on("hdf5~mpi", when="+hdf5")
    depends_on("mpi", when="+mpi")
    depends_on("cli11@2:")
    depends_on("googletest@1.12:", type="test")

    sanity_check_is_file = [join_path("bin", "gpp")]

    def _kokkos_devices(self):
        """GPP_EXPECT_DEVICES: the backends this spec asked Kokkos for."""
        devices = []
        if self.spec.satisfies("+cuda"):
            devices.append("CUDA")
        devices.append("OPENMP" if self.spec.satisfies("+openmp") else "SERIAL")
        return devices

    def _kokkos_arch(self):
        """GPP_EXPECT_ARCH: Kokkos's name of the GPU architecture (VOLTA70 for
        cuda_arch=70); empty for a CPU build (no architecture is checked)."""
        if not self.spec.satisfies("+cuda"):
            return ""
        arch = self.spec.variants["cuda_arch"].value[0]
        return Kokkos.spack_cuda_arch_map[arch][0].upper()

    def cmake_args(self):
        args = [
            self.define("CMAKE_CXX_STANDARD", self.spec.variants["cxxstd"].value),
            self.define("GPP_ENABLE_HDF5", "ON" if self.spec.satisfies("+hdf5") else "OFF"),
            self.define_from_variant("GPP_ENABLE_KOKKOSKERNELS", "kokkos-kernels"),
            self.define_from_variant("GPP_ENABLE_MPI", "mpi"),
            self.define("GPP_ENABLE_TESTS", self.run_tests),
            self.define("GPP_EXPECT_DEVICES", ";".join(self._kokkos_devices())),
            self.define("GPP_EXPECT_ARCH", self._kokkos_arch()),
            # The host ISA is the spec's target: spack's compiler wrapper adds its flags
            # (e.g. -march=sapphirerapids for target=sapphirerapids), so no -march=native.
            self.define("GPP_HOST_ARCH", "OFF"),
        ]
        if self.spec.satisfies("+cuda"):
            # nvcc_wrapper of the kokkos-nvcc-wrapper package, itself wrapping spack's C++.
            args.append(self.define("CMAKE_CXX_COMPILER", self["kokkos"].kokkos_cxx))
        return args
