#pragma once
// The launch shape of mesh's tuned form, set by its first step
// (src/omp_target/mesh_1_shaped.cpp) and kept by the steps after it
// (mesh_2_narrow.cpp, mesh_tuned.cpp): the threads of a team, the teams of a
// loop, the teams of the two-level reduction.
#include <cstdint>

#include "common/mesh/mesh.hpp"
#include "common/run_context.hpp"

namespace ompref::mesh {

// Threads per team, and on a device as many teams as it takes to give each
// thread one item (league(): one team on the host fallback).
constexpr int tuned_threads = 256;
inline int teams_for(std::int64_t items, const RunContext& ctx) {
  return league(ctx.on_device, long((items + tuned_threads - 1) / tuned_threads));
}
// Teams of the two-level reduction: 5 of 256 threads per multiprocessor of an
// H200 (132), as many as run at once at 48 registers a thread (one wave); at
// most reduce_blocks partials.
constexpr int reduce_teams = 660;
static_assert(reduce_teams <= reduce_blocks);

}  // namespace ompref::mesh
