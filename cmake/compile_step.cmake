# The compiler launcher of the kernels (CMakeLists.txt): a source listed in
# STEPS_FILE (the step files and the native twins) is compiled so that its failure
# does not fail the build. When the compiler rejects it, crashes or runs past
# TIMEOUT seconds, the object becomes instead a registration-only translation
# unit that names the file's variants (cmake/step_variants.cmake) with the
# compiler's first error line, so the program builds without them and
# `ompref list` / `ompref check` report them; LEFT_OUT/<file>.txt keeps the
# compiler's whole output. Every other source is compiled as it is, and its
# failure fails the build.
#
#   cmake -DSTEPS_FILE=<file> -DLEFT_OUT=<dir> -DROOT=<source dir> -DTIMEOUT=<s>
#         [-DDEVICE_LINK=<command, '|' between arguments>] -P compile_step.cmake -- <command>
# STEPS_FILE: the optional sources' absolute paths, one a line (CMakeLists.txt).
# DEVICE_LINK (the file-lto device-code mode, cmake/OffloadFlags.cmake): the
# compiler writes <object>.tu.o, and DEVICE_LINK <object>.tu.o -o <object>
# links that file's device code with the device runtime into the object's own
# device image (a relocatable offload link); its failure is the file's failure.
# DEVICE_OBJCOPY (with DEVICE_LINK): llvm-objcopy, which then marks the image's
# section as plain data, so that the program's link, which extracts every
# section of the offloading type, does not take the linked image for device
# code to link again (clang 22's nvlink wrapper stops: "Unsupported file type");
# the image stays where the object's registration points.
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/step_variants.cmake)

set(_cmd "")
set(_in_cmd OFF)
math(EXPR _last "${CMAKE_ARGC} - 1")
foreach(_i RANGE 1 ${_last})
  set(_arg "${CMAKE_ARGV${_i}}")
  if(_in_cmd)
    if(_arg MATCHES ";")
      message(FATAL_ERROR "compile_step.cmake: an argument holds a ';', which this launcher cannot pass on: ${_arg}")
    endif()
    list(APPEND _cmd "${_arg}")
  elseif(_arg STREQUAL "--")
    set(_in_cmd ON)
  endif()
endforeach()

# The source (after -c) and the object (after -o).
set(_source "")
set(_object "")
list(LENGTH _cmd _n)
math(EXPR _n_last "${_n} - 2")
foreach(_i RANGE 0 ${_n_last})
  list(GET _cmd ${_i} _arg)
  math(EXPR _next "${_i} + 1")
  if(_arg STREQUAL "-c")
    list(GET _cmd ${_next} _source)
  elseif(_arg STREQUAL "-o")
    list(GET _cmd ${_next} _object)
  endif()
endforeach()

# With DEVICE_LINK: the compile writes <object>.tu.o, the device link <object>.
set(_link_cmd "")
if(DEVICE_LINK AND NOT _object STREQUAL "" AND NOT _source MATCHES "\\.cu$")
  string(REPLACE "|" ";" _link_cmd "${DEVICE_LINK}")
  list(APPEND _link_cmd "${_object}.tu.o" -o "${_object}")
  set(_mark_cmd "${DEVICE_OBJCOPY}" --set-section-type=.llvm.offloading.relocatable=1 "${_object}")
  list(FIND _cmd "-o" _at)
  math(EXPR _at "${_at} + 1")
  list(REMOVE_AT _cmd ${_at})
  list(INSERT _cmd ${_at} "${_object}.tu.o")
endif()

file(STRINGS "${STEPS_FILE}" _steps)
if(NOT _source IN_LIST _steps OR _object STREQUAL "")
  execute_process(COMMAND ${_cmd} RESULT_VARIABLE _rc)
  if(_rc EQUAL 0 AND _link_cmd)
    execute_process(COMMAND ${_link_cmd} RESULT_VARIABLE _rc)
    if(_rc EQUAL 0)
      execute_process(COMMAND ${_mark_cmd} RESULT_VARIABLE _rc)
    endif()
  endif()
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "")  # the compiler has said why
  endif()
  return()
endif()

file(RELATIVE_PATH _file "${ROOT}" "${_source}")
string(REPLACE "/" "_" _record_name "${_file}")
set(_record "${LEFT_OUT}/${_record_name}.txt")
execute_process(COMMAND ${_cmd} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out TIMEOUT ${TIMEOUT})
if(_rc EQUAL 0 AND _link_cmd)
  execute_process(COMMAND ${_link_cmd} RESULT_VARIABLE _rc OUTPUT_VARIABLE _link_out ERROR_VARIABLE _link_out
                  TIMEOUT ${TIMEOUT})
  if(_rc EQUAL 0)
    execute_process(COMMAND ${_mark_cmd} RESULT_VARIABLE _rc OUTPUT_VARIABLE _mark_out ERROR_VARIABLE _mark_out)
    string(APPEND _link_out "${_mark_out}")
  endif()
  string(APPEND _out "${_link_out}")
endif()
if(NOT _out STREQUAL "")
  message(NOTICE "${_out}")
endif()
if(_rc EQUAL 0)
  file(REMOVE "${_record}")
  return()
endif()

# Why: the first line the compiler calls an error, else its first line, else the status.
set(_reason "")
string(REPLACE "\n" ";" _lines "${_out}")
foreach(_line IN LISTS _lines)
  if(_line MATCHES "[Ee]rror")
    set(_reason "${_line}")
    break()
  endif()
endforeach()
if(_reason STREQUAL "" AND _lines)
  list(GET _lines 0 _reason)
endif()
if(_rc MATCHES "timeout")
  set(_reason "the compiler ran past ${TIMEOUT} s")
elseif(_reason STREQUAL "")
  set(_reason "the compiler exited with '${_rc}' and no message")
endif()
# Paths from the build's point of view are noise: keep them from src/.
string(REPLACE "${ROOT}/" "" _reason "${_reason}")
string(STRIP "${_reason}" _reason)

ompref_step_variants("${_source}" _variants)
if(_source MATCHES "/native_cuda/")
  set(_default_kind native)
else()
  set(_default_kind target)
endif()
set(_entries "")
foreach(_v IN LISTS _variants)
  string(REPLACE "|" ";" _parts "${_v}")
  list(GET _parts 0 _kind)
  list(GET _parts 1 _workload)
  list(GET _parts 2 _name)
  string(APPEND _entries "    {ompref::Kind::${_kind}, \"${_workload}\", \"${_name}\", \"${_file}\", reason},\n")
endforeach()
if(_entries STREQUAL "")
  string(APPEND _entries "    {ompref::Kind::${_default_kind}, \"\", \"\", \"${_file}\", reason},\n")
endif()
set(_placeholder "${_object}.left_out.cpp")
file(WRITE "${_placeholder}" "// Written by cmake/compile_step.cmake: ${_file} did not compile, and its variants
// are left out of the program.
#include \"common/registry.hpp\"
namespace {
const char* const reason = R\"ompref_reason(${_reason})ompref_reason\";
const ompref::Registration left_out{std::vector<ompref::LeftOut>{
${_entries}}};
}  // namespace
")
file(MAKE_DIRECTORY "${LEFT_OUT}")
file(WRITE "${_record}" "${_file}: left out of the program: ${_reason}\n\n${_out}")
message(NOTICE "ompref: ${_file} left out of the program (`ompref check` reports its variants): ${_reason}")

# The placeholder compiled in the source's place, with the same command.
set(_placeholder_cmd "")
foreach(_arg IN LISTS _cmd)
  if(_arg STREQUAL _source)
    list(APPEND _placeholder_cmd "${_placeholder}")
  elseif(_arg STREQUAL "${_object}.tu.o")
    list(APPEND _placeholder_cmd "${_object}")  # registrations only: no device code to link
  else()
    list(APPEND _placeholder_cmd "${_arg}")
  endif()
endforeach()
execute_process(COMMAND ${_placeholder_cmd} RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "ompref: the placeholder of ${_file} (${_placeholder}) did not compile either")
endif()
# The dependency file: the source's own headers (preprocessing alone, which
# usually succeeds where compiling did not), so that a fix in a header it
# includes re-checks it too. nvcc's dependency file stays the placeholder's.
if(NOT _source MATCHES "\\.cu$" AND "${_cmd}" MATCHES ";-MF;")
  set(_deps_cmd "")
  set(_skip OFF)
  foreach(_arg IN LISTS _cmd)
    if(_skip)
      list(APPEND _deps_cmd "/dev/null")
      set(_skip OFF)
    elseif(_arg STREQUAL "-c")
      list(APPEND _deps_cmd "-E")
    elseif(_arg STREQUAL "-o")
      list(APPEND _deps_cmd "-o")
      set(_skip ON)
    else()
      list(APPEND _deps_cmd "${_arg}")
    endif()
  endforeach()
  list(FIND _cmd "-MF" _at)
  math(EXPR _at "${_at} + 1")
  list(GET _cmd ${_at} _depfile)
  if(EXISTS "${_depfile}")
    file(COPY_FILE "${_depfile}" "${_depfile}.placeholder")
  endif()
  execute_process(COMMAND ${_deps_cmd} RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT _rc EQUAL 0 AND EXISTS "${_depfile}.placeholder")
    file(RENAME "${_depfile}.placeholder" "${_depfile}")
  endif()
  file(REMOVE "${_depfile}.placeholder")
endif()
