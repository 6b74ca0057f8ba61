# MPI ranks, one device each (docs/mpi.md): optional. With MPI every rank runs
# the same variants in step on its own device, rank 0 prints and writes the
# results, and the decomposed variants (src/mpi/) exist. Without it nothing of
# MPI is compiled or linked and the program is the single-process one.
#
#   OMPREF_MPI   off (default: the single-process program), auto (MPI where find_package
#                finds it), on (MPI required: the host-mpi and gpu-mpi presets)
#
# Outputs: OMPREF_MPI_BUILD (1 or 0) and, when 1, the MPI::MPI_C target (the C
# bindings are all the suite calls; the C++ bindings OpenMPI may ship are skipped).

set(OMPREF_MPI "off" CACHE STRING "MPI ranks: off, auto or on")
set_property(CACHE OMPREF_MPI PROPERTY STRINGS auto on off)
if(NOT OMPREF_MPI MATCHES "^(auto|on|off)$")
  message(FATAL_ERROR "ompref: OMPREF_MPI=${OMPREF_MPI} (accepted: auto, on, off)")
endif()

set(OMPREF_MPI_BUILD 0)
if(NOT OMPREF_MPI STREQUAL "off")
  if(OMPREF_MPI STREQUAL "on")
    find_package(MPI REQUIRED COMPONENTS C)
  else()
    find_package(MPI QUIET COMPONENTS C)
  endif()
  if(MPI_C_FOUND)
    set(OMPREF_MPI_BUILD 1)
    message(STATUS "ompref: MPI ranks with MPI ${MPI_C_VERSION} (${MPI_C_LIBRARIES})")
  else()
    message(STATUS "ompref: no MPI found: single-process build (OMPREF_MPI=on to require it)")
  endif()
endif()
