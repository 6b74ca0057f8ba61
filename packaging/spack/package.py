# A Spack recipe for ompref: copy this folder into a Spack repository as
# packages/ompref/ (`spack repo create`, then `spack install ompref ...`).
# Its variants are the project's CMake options (CMakeLists.txt, cmake/*.cmake),
# one for one, with the same values and defaults; SPACK_PRESETS gives the spec
# of each CMake preset (CMakePresets.json). tests/spack_package_check.py holds
# both against the CMake files.
from spack.package import *


class Ompref(CMakePackage):
    """An OpenMP offload reference suite: every workload as host SIMD OpenMP
    and as OpenMP target offload code (with CUDA twins where a CUDA toolkit is
    given), each run validated and held against a bandwidth ceiling measured
    in the same run."""

    homepage = "https://github.com/ompref/ompref"
    git = "https://github.com/ompref/ompref.git"

    license("MIT")

    version("main", branch="main")

    # The CMake cache variable each variant sets; "default" stands for an empty
    # value (the CMake files' own choice).
    CMAKE_VARIANTS = {
        "OMPREF_OFFLOAD": "offload",
        "OMPREF_OFFLOAD_ARCH": "offload_arch",
        "OMPREF_NATIVE": "native",
        "OMPREF_MPI": "mpi",
        "OMPREF_HOST_ARCH": "host_arch",
        "OMPREF_DEVICE_CODE": "device_code",
        "OMPREF_DEVICE_STRICT_ALIASING": "strict_aliasing",
        "OMPREF_TESTS": "tests",
        "OMPREF_BENCH": "bench",
    }

    # Each CMake preset of the project as a spec (the compiler is Spack's
    # %clang or %gcc of the version the preset names).
    SPACK_PRESETS = {
        "host": "%gcc offload=none native=off",
        "host-mpi": "%gcc offload=none native=off mpi=on",
        "virtual-device": "%clang@19 offload=x86_64 native=off ~bench",
        "offload": "%clang@19 offload=nvptx offload_arch=sm_90 native=off",
        "offload-22": "%clang@22 offload=nvptx offload_arch=sm_90 native=off",
        "gpu": "%clang@19 offload=nvptx-jit offload_arch=sm_90 host_arch=x86-64-v3 ~tests native=cuda device_code=file-lto",
        "gpu-mpi": "%clang@19 offload=nvptx-jit offload_arch=sm_90 host_arch=x86-64-v3 ~tests native=cuda mpi=on "
        "device_code=file-lto",
        "gpu-aot": "%clang@22 offload=nvptx offload_arch=sm_90 host_arch=x86-64-v3 ~tests native=cuda "
        "device_code=file-lto",
        "gpu-aot-lto": "%clang@22 offload=nvptx offload_arch=sm_90 host_arch=x86-64-v3 ~tests native=cuda "
        "device_code=lto",
        "gpu-aot-safe": "%clang@22 offload=nvptx offload_arch=sm_90 host_arch=x86-64-v3 ~tests native=cuda "
        "device_code=file-lto ~strict_aliasing",
        "gpu-aot-per-file": "%clang@22 offload=nvptx offload_arch=sm_90 host_arch=x86-64-v3 ~tests native=cuda "
        "device_code=per-file ~strict_aliasing",
        "gcc-offload": "%gcc@12 offload=nvptx host_arch=x86-64-v3 ~tests",
    }

    variant(
        "offload",
        default="none",
        values=("none", "nvptx", "nvptx-jit", "amdgcn", "spir64", "x86_64"),
        multi=False,
        description="OpenMP offload mode (none: target regions run on the host)",
    )
    variant(
        "offload_arch",
        default="default",
        values=lambda value: True,
        description="device architecture, e.g. sm_90 or gfx90a (default: the offload mode's)",
    )
    variant(
        "native",
        default="off",
        values=("off", "cuda"),
        multi=False,
        description="native CUDA twins of the target variants",
    )
    variant("mpi", default="off", values=("auto", "on", "off"), multi=False, description="MPI ranks")
    variant(
        "host_arch",
        default="default",
        values=lambda value: True,
        description="host -march value (default: the compiler's, portable)",
    )
    variant(
        "device_code",
        default="per-file",
        values=("lto", "file-lto", "per-file"),
        multi=False,
        description="clang ahead-of-time device code: per file, each file with the device runtime (file-lto), "
        "or whole program at the device link",
    )
    variant(
        "strict_aliasing",
        default=True,
        description="device code may use type-based alias analysis",
    )
    variant("tests", default=True, description="build the GoogleTest suites")
    variant("bench", default=True, description="build the Google Benchmark binary")

    depends_on("cmake@3.25:", type="build")
    depends_on("cli11", type="build")
    depends_on("nlohmann-json@3.10:", type="build")
    depends_on("fmt")
    depends_on("googletest", type="build", when="+tests")
    depends_on("benchmark", when="+bench")
    depends_on("mpi", when="mpi=on")
    depends_on("cuda", when="native=cuda")
    depends_on("cuda", when="offload=nvptx")
    depends_on("cuda", when="offload=nvptx-jit")
    depends_on("py-matplotlib", type="run")

    def cmake_args(self):
        args = []
        for cache, name in self.CMAKE_VARIANTS.items():
            value = self.spec.variants[name].value
            if isinstance(value, bool):
                args.append(self.define(cache, value))
            else:
                args.append(self.define(cache, "" if value == "default" else value))
        if self.spec.satisfies("^cuda"):
            args.append(self.define("OMPREF_CUDA_PATH", self.spec["cuda"].prefix))
        return args
