// mesh on the device, step 1 of the tuned form: the launch shape. The pair's
// kernels (src/omp_target/mesh.cpp) with the teams and threads the CUDA twins
// (src/native_cuda/mesh.cu) launch, nothing else changed
// (`diff src/omp_target/mesh.cpp src/omp_target/mesh_1_shaped.cpp`):
//  - the gathers and indirect writes: `num_teams(teams_for(n, ctx))
//    thread_limit(256)`, one item per thread (teams_for and the team sizes,
//    kept by the steps after this one: mesh_launch.hpp). Left to itself
//    clang-19 chose 3,200 teams of 128 threads on an H200, each thread
//    walking a grid-stride loop of 31 tets at cube 128. (Its default schedules for a combined
//    construct, dist_schedule(static, threads per team) and schedule(static,
//    1), then give thread i of team b item 256 b + i, as CUDA does.)
//  - the two-level reduction: one wave of teams (660: 5 of 256 threads on each
//    of an H200's 132 multiprocessors) instead of 1024, about two waves.
// On the host fallback league() makes every league one team. Next:
// mesh_2_narrow.cpp; the device data, model and check are the pair's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "common/mesh/mesh.hpp"
#include "common/mesh/mesh_element.hpp"
#include "common/mesh/mesh_items.hpp"
#include "common/mesh/mesh_variant.hpp"
#include "common/registry.hpp"
#include "omp_target/mesh_launch.hpp"

namespace ompref::mesh {
namespace {

// Direct: loop over vertices, read and write the vertex's own data.
void target_shaped_direct(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int64_t n = 3 * m.nv;
  double* pos = m.output("pos").data();
  const double* vel = m.vel.data();
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
  for (std::int64_t i = 0; i < n; ++i) pos[i] = pos[i] + vel[i] * dt;
#pragma omp target exit data device(dev) map(from : pos[0:n]) map(release : vel[0:n])
}

// Downward: loop over tets, read their 4 vertices through tet[].
void target_shaped_downward(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int64_t nt = m.nt;
  const std::int32_t* tet = m.tet.data();
  const double* crd = m.crd.data();
  double* volume = m.output("out_volume").data();
  double* centre = m.output("out_centre").data();
  const int teams = teams_for(nt, ctx);
#pragma omp target teams distribute parallel for device(dev) num_teams(teams) thread_limit(tuned_threads) \
    map(alloc : tet[0:4 * nt], crd[0:3 * m.nv], volume[0:nt], centre[0:3 * nt])
  for (std::int64_t t = 0; t < nt; ++t) downward_item(tet, crd, volume, centre, t);
}

// Transverse: loop over tets, read their face neighbours' data.
void target_shaped_transverse(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int64_t nt = m.nt;
  const std::int32_t* nbr = m.tet_nbr.data();
  const double* centre = m.centre.data();
  double* spread = m.output("spread").data();
  const int teams = teams_for(nt, ctx);
#pragma omp target teams distribute parallel for device(dev) num_teams(teams) thread_limit(tuned_threads) \
    map(alloc : nbr[0:4 * nt], centre[0:3 * nt], spread[0:nt])
  for (std::int64_t t = 0; t < nt; ++t) spread[t] = transverse_item(nbr, centre, t);
}

// Upward, CSR: loop over vertices, read the ball between two offsets.
void target_shaped_ball_csr(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int64_t nv = m.nv;
  const std::int32_t* offset = m.ball_offset.data();
  const std::int32_t* corner = m.ball_corner.data();
  const double* centre = m.centre.data();
  const double* crd = m.crd.data();
  double* smooth = m.output("smooth").data();
  const double omega = smoothing_omega;
  const int teams = teams_for(nv, ctx);
#pragma omp target teams distribute parallel for device(dev) num_teams(teams) thread_limit(tuned_threads) \
    map(alloc : offset[0:nv + 1], corner[0:4 * m.nt], centre[0:3 * m.nt], crd[0:3 * nv], smooth[0:3 * nv])
  for (std::int64_t v = 0; v < nv; ++v) ball_csr_item(offset, corner, centre, crd, smooth, omega, v);
}

// Upward, degree-binned (GMlib): one loop over the rows of all bins; a row
// finds its bin, then reads column j of the bin's matrix at j * rows + row.
void target_shaped_ball_binned(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int64_t rows = m.bins.rows();
  const int nb = m.bins.bin_count();
  const std::int32_t* first = m.bins.first.data();
  const std::int32_t* count = m.bins.count.data();
  const std::int64_t* offset = m.bins.offset.data();
  const std::int32_t* vertex = m.bins.vertex.data();
  const std::int32_t* degree = m.bins.degree.data();
  const std::int32_t* corner = m.bins.corner.data();
  const double* centre = m.centre.data();
  const double* crd = m.crd.data();
  double* smooth = m.output("smooth").data();
  const double omega = smoothing_omega;
  const int teams = teams_for(rows, ctx);
#pragma omp target teams distribute parallel for device(dev) num_teams(teams) thread_limit(tuned_threads)  \
    map(alloc : first[0:nb], count[0:nb], offset[0:nb], vertex[0:rows], degree[0:rows],            \
                corner[0:m.bins.corner.size()], centre[0:3 * m.nt], crd[0:3 * m.nv], smooth[0:3 * m.nv])
  for (std::int64_t r = 0; r < rows; ++r)
    ball_binned_item(nb, first, count, offset, vertex, degree, corner, centre, crd, smooth, omega, r);
}

// Indirect write with atomics: loop over tets, add volume / 4 to each vertex.
void target_shaped_lumped_atomic(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int64_t nv = m.nv, nt = m.nt;
  const std::int32_t* tet = m.tet.data();
  const double* crd = m.crd.data();
  double* lumped = m.output("lumped").data();
  const int vertex_teams = teams_for(nv, ctx), tet_teams = teams_for(nt, ctx);
#pragma omp target teams distribute parallel for simd device(dev) num_teams(vertex_teams) \
    thread_limit(tuned_threads) map(alloc : lumped[0:nv])
  for (std::int64_t v = 0; v < nv; ++v) lumped[v] = 0;
#pragma omp target teams distribute parallel for device(dev) num_teams(tet_teams) thread_limit(tuned_threads) \
    map(alloc : tet[0:4 * nt], crd[0:3 * nv], lumped[0:nv])
  for (std::int64_t t = 0; t < nt; ++t) {
    const std::int32_t* e = tet + 4 * t;
    const double quarter = quarter_volume_of<std::int64_t>(crd, e);
    for (int k = 0; k < 4; ++k) {
#pragma omp atomic update
      lumped[e[k]] += quarter;
    }
  }
}

// Indirect write as a scatter/gather pair: each tet writes its own 4 corner
// temporaries (no conflict), then each vertex sums its ball's corners (no conflict).
void target_shaped_lumped_scatter_gather(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int64_t nv = m.nv, nt = m.nt;
  const std::int32_t* tet = m.tet.data();
  const double* crd = m.crd.data();
  const std::int32_t* offset = m.ball_offset.data();
  const std::int32_t* corner = m.ball_corner.data();
  double* tmp = m.corner_tmp.data();
  double* lumped = m.output("lumped").data();
  const int vertex_teams = teams_for(nv, ctx), tet_teams = teams_for(nt, ctx);
#pragma omp target teams distribute parallel for device(dev) num_teams(tet_teams) thread_limit(tuned_threads) \
    map(alloc : tet[0:4 * nt], crd[0:3 * nv], tmp[0:4 * nt])
  for (std::int64_t t = 0; t < nt; ++t) scatter_item(tet, crd, tmp, t);
#pragma omp target teams distribute parallel for device(dev) num_teams(vertex_teams) thread_limit(tuned_threads) \
    map(alloc : offset[0:nv + 1], corner[0:4 * nt], tmp[0:4 * nt], lumped[0:nv])
  for (std::int64_t v = 0; v < nv; ++v) lumped[v] = gather_item(offset, corner, tmp, v);
}

// The same reductions in two levels: one wave of reduce_teams teams of 256
// threads, each reducing one block of tets with a `parallel for` reduction
// (lanes read consecutive tets: schedule(static, 1)) into its partial; the
// partials come back and are combined in block order on the host.
void target_shaped_reduce_blocks(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int64_t nt = m.nt;
  const double* volume = m.volume.data();
  const double* quality = m.quality.data();
  double* part = m.block_partial.data();
  std::int64_t* part_index = m.block_argmin.data();
  const int nb = reduce_teams;
  const std::int64_t chunk = (nt + nb - 1) / nb;
  const double inf = std::numeric_limits<double>::infinity();
#pragma omp target teams distribute num_teams(league(ctx.on_device, nb)) thread_limit(tuned_threads) device(dev) \
    map(alloc : volume[0:nt], quality[0:nt], part[0:6 * nb], part_index[0:nb])
  for (int b = 0; b < nb; ++b) {
    const std::int64_t lo = std::min(nt, b * chunk), hi = std::min(nt, lo + chunk);
    double vsum = 0, vmin = inf, vmax = -inf, qsum = 0, qmax = -inf;
    MinLoc qmin{inf, std::numeric_limits<std::int64_t>::max()};
#pragma omp parallel for schedule(static, 1) reduction(+ : vsum, qsum) reduction(min : vmin) \
    reduction(max : vmax, qmax) reduction(minloc : qmin)
    for (std::int64_t t = lo; t < hi; ++t) reduce_item(volume[t], quality[t], t, vsum, vmin, vmax, qsum, qmax, qmin);
    store_partial(part, part_index, b, Reductions{vsum, vmin, vmax, qsum, qmax, qmin});
  }
#pragma omp target update device(dev) from(part[0:6 * nb], part_index[0:nb])
  m.red = combine_blocks(part, part_index, nb);
}

const Registration registrations[] = {
    Registration{target_variant("mesh", "target_shaped_direct",
                                "direct, shaped: one coordinate per thread (num_teams/thread_limit)",
                                target_shaped_direct, "direct")
                     .follows("target_direct").uses({"target teams distribute parallel for", "simd", "declare target", "target enter/exit data", "map(alloc)", "thread_limit", "num_teams"})},
    Registration{target_variant("mesh", "target_shaped_downward",
                                "downward, shaped: one tet per thread (num_teams/thread_limit)",
                                target_shaped_downward, "downward")
                     .follows("target_downward").uses({"target teams distribute parallel for", "declare target", "map(alloc)", "thread_limit", "num_teams"})},
    Registration{target_variant("mesh", "target_shaped_transverse",
                                "transverse, shaped: one tet per thread (num_teams/thread_limit)",
                                target_shaped_transverse, "transverse")
                     .follows("target_transverse").uses({"target teams distribute parallel for", "declare target", "map(alloc)", "thread_limit", "num_teams"})},
    Registration{target_variant("mesh", "target_shaped_ball_csr",
                                "upward over CSR balls, shaped: one vertex per thread",
                                target_shaped_ball_csr, "upward_csr")
                     .follows("target_ball_csr").uses({"target teams distribute parallel for", "declare target", "map(alloc)", "thread_limit", "num_teams"})},
    Registration{target_variant("mesh", "target_shaped_ball_binned",
                                "upward over degree-binned balls, shaped: one bin row per thread",
                                target_shaped_ball_binned, "upward_binned")
                     .follows("target_ball_binned").uses({"target teams distribute parallel for", "declare target", "map(alloc)", "thread_limit", "num_teams"})},
    Registration{target_variant("mesh", "target_shaped_lumped_atomic",
                                "lumped volumes with atomics, shaped: one vertex, then one tet per thread",
                                target_shaped_lumped_atomic, "lumped_atomic")
                     .follows("target_lumped_atomic").uses({"target teams distribute parallel for", "simd", "declare target", "atomic", "map(alloc)", "thread_limit", "num_teams"})},
    Registration{target_variant("mesh", "target_shaped_lumped_scatter_gather",
                                "lumped volumes by scatter/gather, shaped: one tet, then one vertex per thread",
                                target_shaped_lumped_scatter_gather, "lumped_scatter_gather")
                     .follows("target_lumped_scatter_gather").uses({"target teams distribute parallel for", "declare target", "map(alloc)", "thread_limit", "num_teams"})},
    Registration{target_variant("mesh", "target_shaped_reduce_blocks",
                                "reductions in two levels, shaped: one wave of 660 teams of 256 threads",
                                target_shaped_reduce_blocks, "reduce")
                     .follows("target_reduce_blocks").uses({"parallel for", "teams distribute", "declare target", "declare reduction", "reduction", "struct reduction", "map(alloc)", "target update", "thread_limit", "num_teams", "schedule"})},
};

}  // namespace
}  // namespace ompref::mesh
