# The one table of OpenMP offload flags, keyed by compiler and offload mode.
#
# OMPREF_OFFLOAD selects the mode:
#   none       target regions compile for the host only (the reference build)
#   nvptx      ahead-of-time device code for NVIDIA (OMPREF_OFFLOAD_ARCH, e.g. sm_90)
#   nvptx-jit  clang: device code kept as LLVM IR and compiled at first launch
#   amdgcn     AMD GPUs (OMPREF_OFFLOAD_ARCH, e.g. gfx90a)
#   spir64     Intel GPUs
#   x86_64     clang: a virtual device on the host CPU (LLVM's host plugin), with
#              memory of its own: a missing map or target update, or a helper
#              without `declare target`, fails as on a GPU (docs/learn.md)
#
# Outputs:
#   OMPREF_OPENMP_FLAGS   compile flags for every translation unit
#   OMPREF_OFFLOAD_FLAGS  extra compile flags for translation units with target regions
#   OMPREF_LINK_FLAGS     link flags of every executable
#   OMPREF_OFFLOAD_BUILD  1 when built for a device, 0 otherwise (also a macro)
#   OMPREF_OFFLOAD_DESC   one line naming the compiler mode (also a macro; provenance.cpp's
#                         offload_description() adds the device-code mode and workarounds)
#   OMPREF_VIRTUAL_DEVICE ON when target regions run on the virtual device (x86_64),
#                         which every machine has: the builds whose tests see device memory
#   OMPREF_DEVICE_CODE_MODE  how device code becomes the device image (a macro of the build info):
#                         lto       the whole program's device code (and the device runtime)
#                                   optimised together at the device link (clang -foffload-lto;
#                                   gcc's offloading always works this way)
#                         file-lto  each file's device code and the device runtime optimised
#                                   together as one closed program: device LTO of one file
#                                   (clang -foffload-lto, then a relocatable device link of
#                                   each object, OMPREF_DEVICE_LINK), each object carrying
#                                   its own device image
#                         per-file  each file's device code compiled alone, linked by nvlink
#                                   (clang -fno-offload-lto): the runtime's team state stays
#                         jit       LLVM IR linked and compiled at first launch (nvptx-jit)
#                         file-jit  nvptx-jit with OMPREF_DEVICE_CODE=file-lto: each file's IR
#                                   linked with the runtime's into its own image at build time,
#                                   each image compiled alone at run time
#                         host      no device code
#   OMPREF_DEVICE_WORKAROUNDS  the flags given to avoid known compiler defects (likewise)
#   OMPREF_DEVICE_LINK    file-lto: the relocatable device link of one object, its
#                         arguments separated by '|' (cmake/compile_step.cmake runs it)
#
# OMPREF_DEVICE_CODE (per-file, file-lto or lto) picks clang's ahead-of-time
# mode; per-file by default (the CI builds), file-lto in the GPU presets: with
# clang 22.1.8 the device LTO link of the whole suite spends over 12 minutes of
# CPU in OpenMPOpt's Attributor (unfinished when stopped), while one file's
# takes seconds (docs/toolchains.md, "Device code"). OMPREF_DEVICE_STRICT_ALIASING=OFF compiles device code with
# -fno-strict-aliasing: the workaround for the defect of
# tests/reproducers/clang22-tbaa-capture-clamp/README.md, said so in the build's description.
#
# Rows marked "untested" are documented from vendor manuals and have not been
# built here; they are the starting point for a port, not a promise. Rows
# marked "compiled in CI" build their device code in scripts/test.sh
# (scripts/amd_compile_check.py) but never run on such a device.

set(OMPREF_OFFLOAD "none" CACHE STRING "OpenMP offload mode: none, nvptx, nvptx-jit, amdgcn, spir64, x86_64")
set_property(CACHE OMPREF_OFFLOAD PROPERTY STRINGS none nvptx nvptx-jit amdgcn spir64 x86_64)
set(OMPREF_CUDA_PATH "/usr/local/cuda" CACHE PATH "CUDA toolkit used by clang for NVIDIA offload")
set(OMPREF_LLVM_RT "" CACHE PATH
    "clang >= 21: prefix with the NVPTX device runtime (lib/nvptx64-nvidia-cuda), omp.h and libomp.so (empty: .toolchains/llvm-<major>, built by scripts/setup.sh)")

set(OMPREF_DEVICE_CODE "per-file" CACHE STRING "clang ahead-of-time device code: per-file, file-lto (device LTO of each file), or lto (whole program at the device link)")
set_property(CACHE OMPREF_DEVICE_CODE PROPERTY STRINGS lto file-lto per-file)
option(OMPREF_DEVICE_STRICT_ALIASING "device code may use type-based alias analysis (OFF: -fno-strict-aliasing in device code)" ON)
if(NOT OMPREF_DEVICE_CODE MATCHES "^(lto|file-lto|per-file)$")
  message(FATAL_ERROR "ompref: OMPREF_DEVICE_CODE '${OMPREF_DEVICE_CODE}' (accepted: lto, file-lto, per-file)")
endif()
set(OMPREF_DEVICE_WORKAROUNDS "")
set(OMPREF_DEVICE_LINK "")

set(_id "${CMAKE_CXX_COMPILER_ID}")
set(_mode "${OMPREF_OFFLOAD}")
if(NOT OMPREF_OFFLOAD_ARCH)
  if(_mode MATCHES "^nvptx")
    set(OMPREF_OFFLOAD_ARCH "sm_90")
  elseif(_mode STREQUAL "amdgcn")
    set(OMPREF_OFFLOAD_ARCH "gfx90a")
  endif()
endif()
set(_arch "${OMPREF_OFFLOAD_ARCH}")

set(OMPREF_OPENMP_FLAGS "")
set(OMPREF_OFFLOAD_FLAGS "")
set(OMPREF_LINK_FLAGS "")
set(OMPREF_NEEDS_NVPTX_JIT_INIT OFF)
set(OMPREF_VIRTUAL_DEVICE OFF)

if(_id STREQUAL "GNU")
  # Debian's g++ offloads to every installed offload compiler by default:
  # the host build says explicitly that it wants none.
  if(_mode STREQUAL "none")
    set(OMPREF_OPENMP_FLAGS -fopenmp -foffload=disable)
  elseif(_mode STREQUAL "nvptx")
    # PTX, compiled by the driver. -latomic: reductions over 16-byte types; -lm: exp() in device code.
    # gcc-12's nvptx back end knows sm_30/sm_35/sm_53/sm_70/sm_75/sm_80: newer
    # GPUs run sm_80 PTX, compiled by their driver (and the description says so).
    set(_arch sm_80)
    set(OMPREF_OPENMP_FLAGS -fopenmp)
    set(OMPREF_OFFLOAD_FLAGS -foffload=nvptx-none "-foffload-options=nvptx-none=-march=${_arch} -latomic -lm")
    set(OMPREF_LINK_FLAGS -foffload=nvptx-none "-foffload-options=nvptx-none=-march=${_arch} -latomic -lm")
  elseif(_mode STREQUAL "amdgcn")  # compiled in CI for gfx906 (the amd-compile-gcc preset), not run
    # gcc-12's amdgcn back end knows fiji, gfx900, gfx906 and gfx908 (not gfx90a);
    # Debian's gcc-12-offload-amdgcn has its device libgomp for fiji/gfx900 and gfx906 only.
    # -lm: exp() and fmin() in device code (as on nvptx; the device link fails without it).
    set(OMPREF_OPENMP_FLAGS -fopenmp)
    set(OMPREF_OFFLOAD_FLAGS -foffload=amdgcn-amdhsa "-foffload-options=amdgcn-amdhsa=-march=${_arch} -lm")
    set(OMPREF_LINK_FLAGS ${OMPREF_OFFLOAD_FLAGS})
  endif()
elseif(_id STREQUAL "Clang")
  # clang, amdclang and AOMP share this row.
  set(OMPREF_OPENMP_FLAGS -fopenmp)
  string(REGEX MATCH "^[0-9]+" _clang_major "${CMAKE_CXX_COMPILER_VERSION}")
  set(_llvm_rt "")
  if(_clang_major GREATER_EQUAL 21 AND NOT _mode STREQUAL "amdgcn")
    # LLVM >= 21 keeps the NVPTX device runtime in lib/nvptx64-nvidia-cuda/
    # (libomptarget-nvptx.bc for the device compile, libompdevice.a for the
    # device link). Debian 12's LLVM 22 ships neither, nor omp.h beside clang
    # 22 (libomp-22-dev conflicts with libomp-19-dev): scripts/setup.sh builds
    # them into a prefix of the checkout.
    set(_llvm_rt "${OMPREF_LLVM_RT}")
    if(NOT _llvm_rt)
      set(_llvm_rt "${PROJECT_SOURCE_DIR}/.toolchains/llvm-${_clang_major}")
    endif()
    if(NOT EXISTS "${_llvm_rt}/include/omp.h" OR NOT EXISTS "${_llvm_rt}/lib/nvptx64-nvidia-cuda/libompdevice.a")
      message(FATAL_ERROR "ompref: clang ${_clang_major} needs ${_llvm_rt} (the NVPTX device runtime, omp.h, "
                          "libomp.so): run scripts/setup.sh --preset <this preset>, or set OMPREF_LLVM_RT")
    endif()
  endif()
  if(_mode STREQUAL "nvptx" OR _mode STREQUAL "nvptx-jit")
    get_filename_component(_bin "${CMAKE_CXX_COMPILER}" REALPATH)
    get_filename_component(_llvm_lib "${_bin}/../../lib" ABSOLUTE)
    set(OMPREF_OFFLOAD_FLAGS --offload-arch=${_arch} --cuda-path=${OMPREF_CUDA_PATH})
    if(_mode STREQUAL "nvptx-jit" AND _llvm_rt)
      message(FATAL_ERROR "ompref: nvptx-jit is the clang-19 build; clang ${_clang_major} builds ahead of time "
                          "(OMPREF_OFFLOAD=nvptx: the gpu-aot preset)")
    elseif(_mode STREQUAL "nvptx-jit")
      list(APPEND OMPREF_OFFLOAD_FLAGS -fopenmp-target-jit)
      set(OMPREF_NEEDS_NVPTX_JIT_INIT ON)
      set(OMPREF_DEVICE_CODE_MODE jit)
    endif()
    if(_mode STREQUAL "nvptx")
      # Device LTO: the kernels, the shared arithmetic of other files and the
      # device runtime (libompdevice's bitcode) optimised as one program, so
      # that the runtime's team and worksharing set-up inlines and folds. Per
      # file, each kernel calls __kmpc_target_init and the static-schedule
      # entry points through nvlink and keeps the runtime's per-team state in
      # shared memory (docs/toolchains.md, "Device code").
      if(OMPREF_DEVICE_CODE MATCHES "lto")
        list(APPEND OMPREF_OFFLOAD_FLAGS -foffload-lto)
      else()
        list(APPEND OMPREF_OFFLOAD_FLAGS -fno-offload-lto)
      endif()
      set(OMPREF_DEVICE_CODE_MODE ${OMPREF_DEVICE_CODE})
    endif()
    if(_mode STREQUAL "nvptx" AND _llvm_rt)
      list(APPEND OMPREF_OFFLOAD_FLAGS --libomptarget-nvptx-bc-path=${_llvm_rt}/lib/nvptx64-nvidia-cuda)
    elseif(_mode STREQUAL "nvptx")
      # Debian's LLVM 19 keeps the device runtime bitcode beside the host libraries.
      list(APPEND OMPREF_OFFLOAD_FLAGS --libomptarget-nvptx-bc-path=${_llvm_lib})
    endif()
    # `simd` hints the device vectoriser cannot honour are reported at device link.
    set(OMPREF_LINK_FLAGS ${OMPREF_OFFLOAD_FLAGS} -Wno-pass-failed)
    if(_llvm_rt)
      # The device link's -lompdevice.
      list(APPEND OMPREF_LINK_FLAGS -Xoffload-linker -L${_llvm_rt}/lib/nvptx64-nvidia-cuda)
    endif()
    if(OMPREF_DEVICE_CODE STREQUAL "file-lto" AND _mode STREQUAL "nvptx-jit")
      # Each object's LLVM IR linked with the device runtime's into an image
      # of its own, which the JIT compiles alone: the whole suite's IR at
      # once keeps clang 19's OpenMPOpt (its Attributor) busy for many
      # minutes at the first target region (docs/toolchains.md).
      set(OMPREF_DEVICE_CODE_MODE file-jit)
    endif()
    if(OMPREF_DEVICE_CODE STREQUAL "file-lto")
      # One object's device link: `clang -r` links the object's device code
      # (LLVM IR) with the device runtime's and optimises them as one program
      # (or, JIT, keeps the linked IR for the run-time compile), then embeds
      # the image and its registration in the object; the final link finds no
      # device code left to link.
      set(_link ${CMAKE_CXX_COMPILER} -fopenmp ${OMPREF_LINK_FLAGS} -Wno-unused-command-line-argument -r)
      if(NOT _llvm_rt)
        # clang 19's relocatable link leaves the device runtime out unless named.
        list(APPEND _link -L${_llvm_lib} -lomptarget.devicertl)
      endif()
      string(JOIN "|" OMPREF_DEVICE_LINK ${_link})
      get_filename_component(_bin_dir "${_bin}" DIRECTORY)
      find_program(OMPREF_LLVM_OBJCOPY NAMES llvm-objcopy-${_clang_major} llvm-objcopy HINTS "${_bin_dir}" NO_DEFAULT_PATH)
      find_program(OMPREF_LLVM_OBJCOPY NAMES llvm-objcopy-${_clang_major} llvm-objcopy REQUIRED)
    endif()
  elseif(_mode STREQUAL "x86_64")
    # The virtual device (the virtual-device preset): device code compiled for
    # the host CPU and run by libomptarget's host plugin, on memory of its own.
    set(OMPREF_OFFLOAD_FLAGS -fopenmp-targets=x86_64-unknown-linux-gnu)
    set(OMPREF_LINK_FLAGS ${OMPREF_OFFLOAD_FLAGS})
    set(_arch "virtual device")
    set(OMPREF_VIRTUAL_DEVICE ON)
  elseif(_mode STREQUAL "amdgcn")  # compiled in CI for gfx90a (clang-19, the amd-compile preset), not run; amdclang++ / AOMP untested
    # The ROCm device libraries (ocml, ockl, oclc_*): Debian's rocm-device-libs
    # where installed, else clang's own search (--rocm-path, /opt/rocm).
    set(OMPREF_ROCM_DEVICE_LIB_PATH "" CACHE PATH "Folder of the ROCm device libraries' bitcode (empty: Debian's, else clang's search)")
    set(_rocm_bitcode "${OMPREF_ROCM_DEVICE_LIB_PATH}")
    if(NOT _rocm_bitcode AND EXISTS /usr/lib/x86_64-linux-gnu/amdgcn/bitcode/ocml.bc)
      set(_rocm_bitcode /usr/lib/x86_64-linux-gnu/amdgcn/bitcode)
    endif()
    set(OMPREF_OFFLOAD_FLAGS --offload-arch=${_arch})
    set(OMPREF_DEVICE_CODE_MODE lto)  # clang links AMDGPU device code as one program
    if(_rocm_bitcode)
      list(APPEND OMPREF_OFFLOAD_FLAGS --rocm-device-lib-path=${_rocm_bitcode})
    endif()
    set(OMPREF_LINK_FLAGS ${OMPREF_OFFLOAD_FLAGS})
  endif()
elseif(_id STREQUAL "IntelLLVM")  # untested: icpx
  set(OMPREF_OPENMP_FLAGS -fiopenmp)
  if(_mode STREQUAL "spir64")
    set(OMPREF_OFFLOAD_FLAGS -fopenmp-targets=spir64)
    set(OMPREF_LINK_FLAGS ${OMPREF_OFFLOAD_FLAGS})
  endif()
elseif(_id STREQUAL "NVHPC")  # untested: nvc++
  if(_mode STREQUAL "none")
    set(OMPREF_OPENMP_FLAGS -mp)
  else()
    string(REPLACE "sm_" "cc" _cc "${_arch}")
    set(OMPREF_OPENMP_FLAGS -mp=gpu -gpu=${_cc})
    set(OMPREF_LINK_FLAGS -mp=gpu -gpu=${_cc})
  endif()
else()
  message(FATAL_ERROR "ompref: no offload flags for compiler '${_id}' (known: GNU, Clang, IntelLLVM, NVHPC)")
endif()

if(NOT _mode STREQUAL "none" AND NOT OMPREF_OFFLOAD_FLAGS AND NOT _id STREQUAL "NVHPC")
  message(FATAL_ERROR "ompref: offload mode '${_mode}' has no row for compiler '${_id}' in cmake/OffloadFlags.cmake")
endif()

if(_id STREQUAL "GNU" AND NOT _mode STREQUAL "none")
  # mkoffload compiles the device code of every object from its LTO stream at link.
  set(OMPREF_DEVICE_CODE_MODE lto)
endif()
if(NOT OMPREF_DEVICE_STRICT_ALIASING AND NOT _mode STREQUAL "none")
  if(_id STREQUAL "Clang")
    list(APPEND OMPREF_OFFLOAD_FLAGS -Xarch_device -fno-strict-aliasing)
  else()
    list(APPEND OMPREF_OFFLOAD_FLAGS -fno-strict-aliasing)
  endif()
  set(OMPREF_DEVICE_WORKAROUNDS "-fno-strict-aliasing (device code)")
endif()
if(_mode STREQUAL "none")
  set(OMPREF_OFFLOAD_BUILD 0)
  set(OMPREF_DEVICE_CODE_MODE host)
  set(OMPREF_OFFLOAD_DESC "${_id} ${CMAKE_CXX_COMPILER_VERSION}, no offload (target regions run on the host)")
else()
  set(OMPREF_OFFLOAD_BUILD 1)
  if(NOT OMPREF_DEVICE_CODE_MODE)
    set(OMPREF_DEVICE_CODE_MODE unknown)
  endif()
  set(OMPREF_OFFLOAD_DESC "${_id} ${CMAKE_CXX_COMPILER_VERSION}, ${_mode} ${_arch}")
endif()
list(APPEND OMPREF_LINK_FLAGS ${OMPREF_OPENMP_FLAGS})
if(_id STREQUAL "Clang")
  # libomp and libomptarget live beside the compiler, not on the loader's path.
  get_filename_component(_bin "${CMAKE_CXX_COMPILER}" REALPATH)
  get_filename_component(_llvm_lib "${_bin}/../../lib" ABSOLUTE)
  list(APPEND OMPREF_LINK_FLAGS -L${_llvm_lib} -Wl,-rpath,${_llvm_lib})
  set(OMPREF_LLVM_LIBDIR "${_llvm_lib}")
  if(_llvm_rt)
    # omp.h and libomp.so of the prefix (after the link flags took the OpenMP
    # flags: an include directory means nothing to the link).
    list(APPEND OMPREF_OPENMP_FLAGS -isystem${_llvm_rt}/include)
    list(PREPEND OMPREF_LINK_FLAGS -L${_llvm_rt}/lib)
    list(APPEND OMPREF_LINK_FLAGS -Wl,-rpath,${_llvm_rt}/lib)
  endif()
endif()
message(STATUS "ompref offload: ${OMPREF_OFFLOAD_DESC}, device code ${OMPREF_DEVICE_CODE_MODE} "
               "(workarounds: ${OMPREF_DEVICE_WORKAROUNDS})")
