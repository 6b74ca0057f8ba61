# nvcc -c on every CUDA source of the native back end (src/native_cuda/*.cu):
# syntax, types and the device compile (ptxas), without linking or running.
# CTest runs it as native_cuda_compiles where nvcc was found at configure time
# (tests/CMakeLists.txt), so that the CUDA sources are checked in the host and
# offload builds, which compile no CUDA. Arguments (-D): NVCC, HOST_CXX (may be
# empty), ARCH (sm_NN), SOURCE_DIR, INCLUDES ('|'-separated), OUT (a folder).
file(GLOB sources "${SOURCE_DIR}/src/native_cuda/*.cu")
if(NOT sources)
  message(FATAL_ERROR "no CUDA sources in ${SOURCE_DIR}/src/native_cuda")
endif()
set(flags -std=c++17 -O3 -arch=${ARCH} -I${SOURCE_DIR}/src -Xcompiler=-Wall,-Wextra,-Wno-unknown-pragmas
    -diag-suppress=1675)  # as the gpu build (CMakeLists.txt, cmake/Native.cmake): the headers' OpenMP pragmas
string(REPLACE "|" ";" includes "${INCLUDES}")
foreach(dir IN LISTS includes)
  list(APPEND flags -I${dir})
endforeach()
if(HOST_CXX)
  list(APPEND flags -ccbin ${HOST_CXX})
endif()
file(MAKE_DIRECTORY "${OUT}")
foreach(source IN LISTS sources)
  get_filename_component(name "${source}" NAME_WE)
  execute_process(COMMAND "${NVCC}" ${flags} -c "${source}" -o "${OUT}/${name}.o"
                  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "nvcc -c ${source} failed:\n${output}")
  endif()
  message(STATUS "nvcc -c ${name}.cu: compiled${output}")
endforeach()
