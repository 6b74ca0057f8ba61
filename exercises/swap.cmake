# The exercises, written into <build>/exercises/ by scripts/make_exercises.py
# from the solutions and its cut table; OMPREF_EXERCISE_NAMES lists them, and
# _solution_<name>, _workload_<name>, _variant_<name> say what each is cut from.
# A cut that no longer matches its solution is a warning here (the build goes
# on without the exercises) and a failure of the test exercises_current.
function(ompref_write_exercises)
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  set(_make ${PROJECT_SOURCE_DIR}/scripts/make_exercises.py)
  execute_process(COMMAND ${Python3_EXECUTABLE} ${_make} ${PROJECT_SOURCE_DIR} --list
                  OUTPUT_VARIABLE _lines RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "ompref: scripts/make_exercises.py --list failed")
  endif()
  string(REPLACE "\n" ";" _lines "${_lines}")
  set(_names "")
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_make})
  foreach(_line ${_lines})
    string(REPLACE " " ";" _fields "${_line}")
    list(GET _fields 0 _name)
    list(GET _fields 1 _solution)
    list(GET _fields 2 _workload)
    list(GET _fields 3 _variant)
    list(APPEND _names ${_name})
    set(_solution_${_name} ${_solution} PARENT_SCOPE)
    set(_workload_${_name} ${_workload} PARENT_SCOPE)
    set(_variant_${_name} ${_variant} PARENT_SCOPE)
    set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
                 ${PROJECT_SOURCE_DIR}/${_solution})
  endforeach()
  set(OMPREF_EXERCISE_NAMES ${_names} PARENT_SCOPE)
  execute_process(COMMAND ${Python3_EXECUTABLE} ${_make} ${PROJECT_SOURCE_DIR} --write ${PROJECT_BINARY_DIR}/exercises
                  RESULT_VARIABLE _rc ERROR_VARIABLE _err)
  if(_rc EQUAL 0)
    set(OMPREF_EXERCISES_WRITTEN TRUE PARENT_SCOPE)
  else()
    message(WARNING "ompref: the exercises were not written (no exercise targets): ${_err}")
    set(OMPREF_EXERCISES_WRITTEN FALSE PARENT_SCOPE)
  endif()
endfunction()

# -DOMPREF_EXERCISE=<name>: the suite built with <build>/exercises/<name>.cpp in place
# of its solution (the file its `// solution:` line names), so that
# `ompref run <workload> --variant <variant>` validates the exercise
# (exercises/README.md). Empty (the default): the solutions.
set(OMPREF_EXERCISE "" CACHE STRING "Build <build>/exercises/<name>.cpp in place of its solution (exercises/README.md)")
if(OMPREF_EXERCISE)
  ompref_write_exercises()
  set(_exercise_file ${PROJECT_BINARY_DIR}/exercises/${OMPREF_EXERCISE}.cpp)
  if(NOT OMPREF_EXERCISE IN_LIST OMPREF_EXERCISE_NAMES OR NOT EXISTS ${_exercise_file})
    message(FATAL_ERROR "ompref: no exercise '${OMPREF_EXERCISE}' (exercises/README.md lists them)")
  endif()
  set(_exercise_solution ${_solution_${OMPREF_EXERCISE}})
  list(FIND OMPREF_KERNEL_SOURCES ${PROJECT_SOURCE_DIR}/${_exercise_solution} _exercise_at)
  if(_exercise_at EQUAL -1)
    message(FATAL_ERROR "ompref: exercise '${OMPREF_EXERCISE}' names '${_exercise_solution}', not a kernel source")
  endif()
  list(REMOVE_AT OMPREF_KERNEL_SOURCES ${_exercise_at})
  list(APPEND OMPREF_KERNEL_SOURCES ${_exercise_file})
  message(STATUS "ompref: exercise ${OMPREF_EXERCISE} built in place of ${_exercise_solution}")
endif()
