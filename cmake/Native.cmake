# The native variants: plain CUDA twins of the target variants, on the same
# instance data (docs/native.md). Built only when asked for and where a CUDA
# toolkit is found; with OMPREF_NATIVE=off nothing CUDA is compiled or linked
# and no native variant exists.
#
#   OMPREF_NATIVE              off (default) or cuda
#   OMPREF_NATIVE_ARCH         the GPU to compile for (default: OMPREF_OFFLOAD_ARCH, else sm_90)
#   OMPREF_CUDA_HOST_COMPILER  nvcc's host compiler (default: g++-12, which CUDA 13 accepts;
#                              the suite's own C++ compiler may be one nvcc refuses)
#
# Outputs: OMPREF_NATIVE_BUILD (1 or 0, also a macro) and, when 1, the CUDA
# language enabled and the CUDA::cudart_static target.

set(OMPREF_NATIVE "off" CACHE STRING "Native (plain CUDA) twins of the target variants: off or cuda")
set_property(CACHE OMPREF_NATIVE PROPERTY STRINGS off cuda)
set(OMPREF_CUDA_HOST_COMPILER "" CACHE STRING "Host compiler for nvcc (empty: g++-12 if found)")

set(OMPREF_NATIVE_BUILD 0)
if(OMPREF_NATIVE STREQUAL "cuda")
  if(NOT CMAKE_CUDA_COMPILER)
    find_program(OMPREF_NVCC nvcc HINTS "${OMPREF_CUDA_PATH}/bin" NO_CACHE)
    if(NOT OMPREF_NVCC)
      message(FATAL_ERROR "ompref: OMPREF_NATIVE=cuda but no nvcc in ${OMPREF_CUDA_PATH}/bin or on PATH "
                          "(set OMPREF_CUDA_PATH, or OMPREF_NATIVE=off)")
    endif()
    set(CMAKE_CUDA_COMPILER "${OMPREF_NVCC}")
  endif()
  if(NOT CMAKE_CUDA_HOST_COMPILER)
    if(OMPREF_CUDA_HOST_COMPILER)
      set(CMAKE_CUDA_HOST_COMPILER "${OMPREF_CUDA_HOST_COMPILER}")
    else()
      find_program(OMPREF_GXX12 g++-12 NO_CACHE)
      if(OMPREF_GXX12)
        set(CMAKE_CUDA_HOST_COMPILER "${OMPREF_GXX12}")
      endif()
    endif()
  endif()
  if(NOT OMPREF_NATIVE_ARCH)
    set(OMPREF_NATIVE_ARCH "${OMPREF_OFFLOAD_ARCH}")
  endif()
  if(NOT OMPREF_NATIVE_ARCH MATCHES "^sm_[0-9]+$")
    set(OMPREF_NATIVE_ARCH "sm_90")
  endif()
  string(REGEX REPLACE "^sm_" "" CMAKE_CUDA_ARCHITECTURES "${OMPREF_NATIVE_ARCH}")
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  set(CMAKE_CUDA_EXTENSIONS OFF)
  set(CMAKE_CUDA_FLAGS_RELEASE "-O3 -DNDEBUG")
  # The shared arithmetic headers (src/common/host_device.hpp) ask gcc and clang
  # to unroll with `#pragma GCC unroll`; nvcc unrolls such loops itself and
  # would warn about the unknown pragma at every use.
  string(APPEND CMAKE_CUDA_FLAGS " -diag-suppress=1675")
  # Their OpenMP pragmas (`declare target`, mesh's `declare reduction`) are for
  # the OpenMP compilers; nvcc's host compiler runs without OpenMP and would
  # warn that it ignores them, at every include.
  string(APPEND CMAKE_CUDA_FLAGS " -Xcompiler=-Wno-unknown-pragmas")
  set(OMPREF_NATIVE_BUILD 1)
  message(STATUS "ompref native: CUDA ${CMAKE_CUDA_COMPILER_VERSION}, ${OMPREF_NATIVE_ARCH}, host compiler "
                 "${CMAKE_CUDA_HOST_COMPILER}")
elseif(NOT OMPREF_NATIVE STREQUAL "off")
  message(FATAL_ERROR "ompref: OMPREF_NATIVE='${OMPREF_NATIVE}' (accepted: off, cuda)")
else()
  message(STATUS "ompref native: off")
endif()
