// mesh on the device, step 2 of the tuned form: narrow indices, no aliasing
// (`diff src/omp_target/mesh_1_shaped.cpp src/omp_target/mesh_2_narrow.cpp`):
//  - 32-bit loop variables and index arithmetic: make_instance keeps 4 nt and
//    3 nv below 2^31, so every corner, neighbour and coordinate offset fits.
//    A 64-bit loop costs 64-bit compares, increments and multiplies per item.
//    (The binned matrices' offsets stay 64-bit: padded, they may outgrow 2^31.)
//  - `__restrict__` on the local pointers: no store may alias a load, so the
//    compiler may keep and reorder loads.
//  - the two-level reduction: inside a team a `parallel` region whose threads
//    take their elements by their number (omp_get_thread_num) instead of
//    `parallel for schedule(static, 1)`, which ran the runtime's chunk loop
//    around every element (42.2 M warp instructions at cube 128 against
//    23.6 M); lane 256 b + i of team b takes every (660 x 256)-th element, as
//    CUDA's grid-stride loop does (a thread loops over lanes if the region
//    has fewer than 256 threads); the loop's pointers and bounds
//    `firstprivate`, so that the region gets their values, not their addresses.
// Next: mesh_tuned.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include <omp.h>

#include "common/mesh/mesh.hpp"
#include "common/mesh/mesh_element.hpp"
#include "common/mesh/mesh_items.hpp"
#include "common/mesh/mesh_variant.hpp"
#include "common/registry.hpp"
#include "omp_target/mesh_launch.hpp"

namespace ompref::mesh {
namespace {

// Direct: loop over vertices, read and write the vertex's own data.
void target_narrow_direct(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int32_t n = std::int32_t(3 * m.nv);
  double* __restrict__ pos = m.output("pos").data();
  const double* __restrict__ vel = m.vel.data();
  const double dt = direct_dt;
  const int teams = teams_for(n, ctx);
  // The data lesson, shown on this first kernel: its arrays go to the device
  // before it runs and come back after. In this suite the runner has already
  // entered them (kernel_data(), before the clock starts), so this `enter
  // data` counts one more reference and moves nothing, and the kernel's
  // map(alloc:) finds them present (OpenMP 5.1's `present` modifier would make
  // an absent one an error, but g++-12 rejects it). The other kernels of this
  // file rely on the runner's data region alone.
#pragma omp target enter data device(dev) map(to : pos[0:n], vel[0:n])
#pragma omp target teams distribute parallel for simd device(dev) num_teams(teams) thread_limit(tuned_threads) \
    map(alloc : pos[0:n], vel[0:n])
  for (std::int32_t i = 0; i < n; ++i) pos[i] = pos[i] + vel[i] * dt;
#pragma omp target exit data device(dev) map(from : pos[0:n]) map(release : vel[0:n])
}

// Downward: loop over tets, read their 4 vertices through tet[].
void target_narrow_downward(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int32_t nt = std::int32_t(m.nt);
  const std::int32_t* __restrict__ tet = m.tet.data();
  const double* __restrict__ crd = m.crd.data();
  double* __restrict__ volume = m.output("out_volume").data();
  double* __restrict__ centre = m.output("out_centre").data();
  const int teams = teams_for(nt, ctx);
#pragma omp target teams distribute parallel for device(dev) num_teams(teams) thread_limit(tuned_threads) \
    map(alloc : tet[0:4 * nt], crd[0:3 * m.nv], volume[0:nt], centre[0:3 * nt])
  for (std::int32_t t = 0; t < nt; ++t) downward_item(tet, crd, volume, centre, t);
}

// Transverse: loop over tets, read their face neighbours' data.
void target_narrow_transverse(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int32_t nt = std::int32_t(m.nt);
  const std::int32_t* __restrict__ nbr = m.tet_nbr.data();
  const double* __restrict__ centre = m.centre.data();
  double* __restrict__ spread = m.output("spread").data();
  const int teams = teams_for(nt, ctx);
#pragma omp target teams distribute parallel for device(dev) num_teams(teams) thread_limit(tuned_threads) \
    map(alloc : nbr[0:4 * nt], centre[0:3 * nt], spread[0:nt])
  for (std::int32_t t = 0; t < nt; ++t) spread[t] = transverse_item(nbr, centre, t);
}

// Upward, CSR: loop over vertices, read the ball between two offsets.
void target_narrow_ball_csr(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int32_t nv = std::int32_t(m.nv);
  const std::int32_t* __restrict__ offset = m.ball_offset.data();
  const std::int32_t* __restrict__ corner = m.ball_corner.data();
  const double* __restrict__ centre = m.centre.data();
  const double* __restrict__ crd = m.crd.data();
  double* __restrict__ smooth = m.output("smooth").data();
  const double omega = smoothing_omega;
  const int teams = teams_for(nv, ctx);
#pragma omp target teams distribute parallel for device(dev) num_teams(teams) thread_limit(tuned_threads) \
    map(alloc : offset[0:nv + 1], corner[0:4 * m.nt], centre[0:3 * m.nt], crd[0:3 * nv], smooth[0:3 * nv])
  for (std::int32_t v = 0; v < nv; ++v) ball_csr_item(offset, corner, centre, crd, smooth, omega, v);
}

// Upward, degree-binned (GMlib): one loop over the rows of all bins; a row
// finds its bin, then reads column j of the bin's matrix at j * rows + row.
// The matrices' offsets stay 64-bit: the padded matrices may outgrow 2^31 entries.
void target_narrow_ball_binned(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int32_t rows = m.bins.rows();
  const int nb = m.bins.bin_count();
  const std::int32_t* __restrict__ first = m.bins.first.data();
  const std::int32_t* __restrict__ count = m.bins.count.data();
  const std::int64_t* __restrict__ offset = m.bins.offset.data();
  const std::int32_t* __restrict__ vertex = m.bins.vertex.data();
  const std::int32_t* __restrict__ degree = m.bins.degree.data();
  const std::int32_t* __restrict__ corner = m.bins.corner.data();
  const double* __restrict__ centre = m.centre.data();
  const double* __restrict__ crd = m.crd.data();
  double* __restrict__ smooth = m.output("smooth").data();
  const double omega = smoothing_omega;
  const int teams = teams_for(rows, ctx);
#pragma omp target teams distribute parallel for device(dev) num_teams(teams) thread_limit(tuned_threads)  \
    map(alloc : first[0:nb], count[0:nb], offset[0:nb], vertex[0:rows], degree[0:rows],                      \
                corner[0:m.bins.corner.size()], centre[0:3 * m.nt], crd[0:3 * m.nv], smooth[0:3 * m.nv])
  for (std::int32_t r = 0; r < rows; ++r)
    ball_binned_item(nb, first, count, offset, vertex, degree, corner, centre, crd, smooth, omega, r);
}

// Indirect write with atomics: loop over tets, add volume / 4 to each vertex.
void target_narrow_lumped_atomic(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int32_t nv = std::int32_t(m.nv), nt = std::int32_t(m.nt);
  const std::int32_t* __restrict__ tet = m.tet.data();
  const double* __restrict__ crd = m.crd.data();
  double* __restrict__ lumped = m.output("lumped").data();
  const int vertex_teams = teams_for(nv, ctx), tet_teams = teams_for(nt, ctx);
#pragma omp target teams distribute parallel for simd device(dev) num_teams(vertex_teams) \
    thread_limit(tuned_threads) map(alloc : lumped[0:nv])
  for (std::int32_t v = 0; v < nv; ++v) lumped[v] = 0;
#pragma omp target teams distribute parallel for device(dev) num_teams(tet_teams) thread_limit(tuned_threads) \
    map(alloc : tet[0:4 * nt], crd[0:3 * nv], lumped[0:nv])
  for (std::int32_t t = 0; t < nt; ++t) {
    const std::int32_t* e = tet + 4 * t;
    const double quarter = quarter_volume_of<std::int32_t>(crd, e);
    for (int k = 0; k < 4; ++k) {
#pragma omp atomic update
      lumped[e[k]] += quarter;
    }
  }
}

// Indirect write as a scatter/gather pair: each tet writes its own 4 corner
// temporaries (no conflict), then each vertex sums its ball's corners (no conflict).
void target_narrow_lumped_scatter_gather(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int32_t nv = std::int32_t(m.nv), nt = std::int32_t(m.nt);
  const std::int32_t* __restrict__ tet = m.tet.data();
  const double* __restrict__ crd = m.crd.data();
  const std::int32_t* __restrict__ offset = m.ball_offset.data();
  const std::int32_t* __restrict__ corner = m.ball_corner.data();
  double* __restrict__ tmp = m.corner_tmp.data();
  double* __restrict__ lumped = m.output("lumped").data();
  const int vertex_teams = teams_for(nv, ctx), tet_teams = teams_for(nt, ctx);
#pragma omp target teams distribute parallel for device(dev) num_teams(tet_teams) thread_limit(tuned_threads) \
    map(alloc : tet[0:4 * nt], crd[0:3 * nv], tmp[0:4 * nt])
  for (std::int32_t t = 0; t < nt; ++t) scatter_item(tet, crd, tmp, t);
#pragma omp target teams distribute parallel for device(dev) num_teams(vertex_teams) thread_limit(tuned_threads) \
    map(alloc : offset[0:nv + 1], corner[0:4 * nt], tmp[0:4 * nt], lumped[0:nv])
  for (std::int32_t v = 0; v < nv; ++v) lumped[v] = gather_item(offset, corner, tmp, v);
}

// The same reductions in two levels: team b's threads take every
// (reduce_teams x 256)-th element from lane 256 b + i; the partials come back
// and are combined in block order on the host.
void target_narrow_reduce_blocks(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int32_t nt = std::int32_t(m.nt);
  const double* __restrict__ volume = m.volume.data();
  const double* __restrict__ quality = m.quality.data();
  double* __restrict__ part = m.block_partial.data();
  std::int64_t* __restrict__ part_index = m.block_argmin.data();
  const int nb = reduce_teams;
  const double inf = std::numeric_limits<double>::infinity();
#pragma omp target teams distribute num_teams(league(ctx.on_device, nb)) thread_limit(tuned_threads) device(dev) \
    map(alloc : volume[0:nt], quality[0:nt], part[0:6 * nb], part_index[0:nb])
  for (int b = 0; b < nb; ++b) {
    double vsum = 0, vmin = inf, vmax = -inf, qsum = 0, qmax = -inf;
    MinLoc qmin{inf, std::numeric_limits<std::int64_t>::max()};
#pragma omp parallel firstprivate(volume, quality, nt, nb, b) reduction(+ : vsum, qsum) reduction(min : vmin) \
    reduction(max : vmax, qmax) reduction(minloc : qmin)
    {
      const std::int32_t stride = nb * tuned_threads;
      for (std::int32_t lane = omp_get_thread_num(); lane < tuned_threads; lane += omp_get_num_threads()) {
        for (std::int32_t t = b * tuned_threads + lane; t < nt; t += stride)
          reduce_item(volume[t], quality[t], t, vsum, vmin, vmax, qsum, qmax, qmin);
      }
    }
    store_partial(part, part_index, b, Reductions{vsum, vmin, vmax, qsum, qmax, qmin});
  }
#pragma omp target update device(dev) from(part[0:6 * nb], part_index[0:nb])
  m.red = combine_blocks(part, part_index, nb);
}

const Registration registrations[] = {
    Registration{target_variant("mesh", "target_narrow_direct",
                                "direct, narrow: 32-bit index, restrict pointers",
                                target_narrow_direct, "direct")
                     .follows("target_shaped_direct").uses({"target teams distribute parallel for", "simd", "declare target", "target enter/exit data", "map(alloc)", "thread_limit", "num_teams"})},
    Registration{target_variant("mesh", "target_narrow_downward",
                                "downward, narrow: 32-bit tet and vertex indices, restrict pointers",
                                target_narrow_downward, "downward")
                     .follows("target_shaped_downward").uses({"target teams distribute parallel for", "declare target", "map(alloc)", "thread_limit", "num_teams"})},
    Registration{target_variant("mesh", "target_narrow_transverse",
                                "transverse, narrow: 32-bit tet and neighbour indices, restrict pointers",
                                target_narrow_transverse, "transverse")
                     .follows("target_shaped_transverse").uses({"target teams distribute parallel for", "declare target", "map(alloc)", "thread_limit", "num_teams"})},
    Registration{target_variant("mesh", "target_narrow_ball_csr",
                                "upward over CSR balls, narrow: 32-bit vertex, corner and tet indices, restrict pointers",
                                target_narrow_ball_csr, "upward_csr")
                     .follows("target_shaped_ball_csr").uses({"target teams distribute parallel for", "declare target", "map(alloc)", "thread_limit", "num_teams"})},
    Registration{target_variant("mesh", "target_narrow_ball_binned",
                                "upward over degree-binned balls, narrow: 32-bit row, tet and vertex indices, restrict pointers",
                                target_narrow_ball_binned, "upward_binned")
                     .follows("target_shaped_ball_binned").uses({"target teams distribute parallel for", "declare target", "map(alloc)", "thread_limit", "num_teams"})},
    Registration{target_variant("mesh", "target_narrow_lumped_atomic",
                                "lumped volumes with atomics, narrow: 32-bit indices, restrict pointers",
                                target_narrow_lumped_atomic, "lumped_atomic")
                     .follows("target_shaped_lumped_atomic").uses({"target teams distribute parallel for", "simd", "declare target", "atomic", "map(alloc)", "thread_limit", "num_teams"})},
    Registration{target_variant("mesh", "target_narrow_lumped_scatter_gather",
                                "lumped volumes by scatter/gather, narrow: 32-bit indices, restrict pointers",
                                target_narrow_lumped_scatter_gather, "lumped_scatter_gather")
                     .follows("target_shaped_lumped_scatter_gather").uses({"target teams distribute parallel for", "declare target", "map(alloc)", "thread_limit", "num_teams"})},
    Registration{target_variant("mesh", "target_narrow_reduce_blocks",
                                "reductions in two levels, narrow: each team's threads take elements by their number (grid stride), 32-bit, firstprivate",
                                target_narrow_reduce_blocks, "reduce")
                     .follows("target_shaped_reduce_blocks").uses({"teams distribute", "declare target", "declare reduction", "reduction", "struct reduction", "map(alloc)", "target update", "thread_limit", "num_teams"})},
};

}  // namespace
}  // namespace ompref::mesh
