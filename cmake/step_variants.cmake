# The variants a source file registers, found without compiling it: every
# `host_variant(`, `target_variant(` or `native_variant(` call whose first two
# arguments are string literals (the workload and the variant), across line
# breaks, and every Variant filled in field by field (`v.workload = "w";`
# then `v.name = "n";`: gpp_5_multi.cpp), its kind then the folder's, and
# every `slab_variant("n"` (lbm's slab variants over MPI ranks,
# src/mpi/lbm_slabs.hpp: target variants of lbm). Used by cmake/compile_step.cmake to name the variants of a file that
# did not compile, and checked against the registrations of every compiled
# file by tests/feature_tags.py (so the two cannot drift apart).
#
#   ompref_step_variants(<file> <out>): <out> is a list of kind|workload|name
#   cmake -DFILE=<file> -P cmake/step_variants.cmake   prints one kind|workload|name a line
if(CMAKE_SCRIPT_MODE_FILE)
  cmake_minimum_required(VERSION 3.25)
endif()
function(ompref_step_variants file out)
  file(READ "${file}" _text)
  string(REPLACE ";" " SEMICOLON " _text "${_text}")  # a ';' would split CMake's lists
  set(_ws "[ \t\r\n]*")
  string(REGEX MATCHALL "(host|target|native)_variant\\(${_ws}\"[a-z0-9_]+\"${_ws},${_ws}\"[a-z0-9_]+\"" _calls "${_text}")
  set(_found "")
  foreach(_call IN LISTS _calls)
    string(REGEX REPLACE "^(host|target|native)_variant\\(${_ws}\"([a-z0-9_]+)\"${_ws},${_ws}\"([a-z0-9_]+)\"$"
                         "\\1|\\2|\\3" _entry "${_call}")
    list(APPEND _found "${_entry}")
  endforeach()
  if("${file}" MATCHES "/omp_host/")
    set(_kind host)
  elseif("${file}" MATCHES "/native_cuda/")
    set(_kind native)
  else()
    set(_kind target)
  endif()
  string(REGEX MATCHALL "[a-z_]+\\.workload${_ws}=${_ws}\"[a-z0-9_]+\"${_ws}SEMICOLON${_ws}[a-z_]+\\.name${_ws}=${_ws}\"[a-z0-9_]+\""
         _fields "${_text}")
  foreach(_field IN LISTS _fields)
    string(REGEX REPLACE "^.*workload${_ws}=${_ws}\"([a-z0-9_]+)\"${_ws}SEMICOLON.*name${_ws}=${_ws}\"([a-z0-9_]+)\"$"
                         "${_kind}|\\1|\\2" _entry "${_field}")
    list(APPEND _found "${_entry}")
  endforeach()
  string(REGEX MATCHALL "slab_variant\\(${_ws}\"[a-z0-9_]+\"" _slabs "${_text}")
  foreach(_slab IN LISTS _slabs)
    string(REGEX REPLACE "^slab_variant\\(${_ws}\"([a-z0-9_]+)\"$" "target|lbm|\\1" _entry "${_slab}")
    list(APPEND _found "${_entry}")
  endforeach()
  set(${out} "${_found}" PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE AND DEFINED FILE)
  ompref_step_variants("${FILE}" _variants)
  foreach(_v IN LISTS _variants)
    execute_process(COMMAND ${CMAKE_COMMAND} -E echo "${_v}")
  endforeach()
endif()
