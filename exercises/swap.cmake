# -DOMPREF_EXERCISE=<name>: the suite built with exercises/<name>.cpp in place
# of its solution (the file its `// solution:` line names), so that
# `ompref run <workload> --variant <variant>` validates the exercise
# (exercises/README.md). Empty (the default): the solutions.
set(OMPREF_EXERCISE "" CACHE STRING "Build exercises/<name>.cpp in place of its solution (exercises/README.md)")
if(OMPREF_EXERCISE)
  set(_exercise_file ${PROJECT_SOURCE_DIR}/exercises/${OMPREF_EXERCISE}.cpp)
  if(NOT EXISTS ${_exercise_file})
    message(FATAL_ERROR "ompref: no exercise '${OMPREF_EXERCISE}' (exercises/README.md lists them)")
  endif()
  file(STRINGS ${_exercise_file} _exercise_line REGEX "^// solution: " LIMIT_COUNT 1)
  string(REPLACE "// solution: " "" _exercise_solution "${_exercise_line}")
  list(FIND OMPREF_KERNEL_SOURCES ${PROJECT_SOURCE_DIR}/${_exercise_solution} _exercise_at)
  if(_exercise_at EQUAL -1)
    message(FATAL_ERROR "ompref: exercise '${OMPREF_EXERCISE}' names '${_exercise_solution}', not a kernel source")
  endif()
  list(REMOVE_AT OMPREF_KERNEL_SOURCES ${_exercise_at})
  list(APPEND OMPREF_KERNEL_SOURCES ${_exercise_file})
  message(STATUS "ompref: exercise ${OMPREF_EXERCISE} built in place of ${_exercise_solution}")
endif()
