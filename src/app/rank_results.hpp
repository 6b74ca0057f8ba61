#pragma once
// One run's result over MPI ranks (docs/mpi.md): every rank's summary goes to
// rank 0, which holds the run's aggregate; every rank learns the verdict.
// Nothing happens in a single-process run.
#include "app/result_files.hpp"
#include "common/registry.hpp"
#include "common/results.hpp"

namespace ompref {

// A collective: every rank calls it after the same run. On rank 0 the run's
// figure of merit becomes the aggregate (a sum over ranks that each ran their
// own copy; for a variant that splits one instance, the instance's work over
// the slowest rank's median time), time_s the times over ranks (min of
// minima, the slowest median, max of maxima), the ceiling the sum of the
// ranks' ceilings, and `ranks` each rank's host, device, times and check. On
// every rank the check fails when any rank's failed.
void combine_ranks(RunResult& run, const Variant& variant);

// Rank 0 writes the files; the other ranks none.
OutputPaths outputs_of_this_rank(OutputPaths paths);

}  // namespace ompref
