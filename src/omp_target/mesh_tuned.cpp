// mesh on the device, the tuned form (step 3): loads as the CUDA twins
// (src/native_cuda/mesh.cu) issue them, and the reduction finished on the
// device (`diff src/omp_target/mesh_2_narrow.cpp src/omp_target/mesh_tuned.cpp`):
//  - a tet's 4 vertex (or neighbour) numbers read from a row known to be
//    16-byte aligned (row4, `__builtin_assume_aligned`): one vector load
//    instead of four. tet[] and tet_nbr[] start 16-byte aligned (operator new
//    on the host, the runtime's device allocations) and a row is 16 bytes.
//  - the gathered coordinates copied into registers before anything is
//    stored (load_point), and a ball's bounds read once: `__restrict__` does
//    not reach the region's outlined function in clang-19, which otherwise
//    loads the 12 coordinates again after the volume's store.
//  - direct and ball_binned gather no rows: they are step 2's kernels, under
//    the names every measurement of the tuned form uses.
//  - the two-level reduction: 4 elements of each array loaded before any is
//    folded in (8 loads in flight a thread instead of 2: clang does not unroll
//    the loop by itself); the partials stay on the device, where the last team
//    to finish (last_team_done: an `atomic capture` between two flushes, shared
//    with stream's tuned dot in team_reduction.hpp) combines them, so only the
//    56-byte result comes back with the kernel, into page-locked host memory
//    (pinned_slot). The combination has its own variables in its own function:
//    reusing the block's reduction variables gave a wrong minimum under clang-19.
// The steps: mesh.cpp (the pair), mesh_1_shaped.cpp, mesh_2_narrow.cpp, this
// file; docs/mesh.md has what each was measured to give.
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
#include "omp_target/team_reduction.hpp"

namespace ompref::mesh {
namespace {

#pragma omp declare target
// Row t of a 4-column int32 table (tet, tet_nbr): 16-byte aligned.
inline const std::int32_t* row4(const std::int32_t* table, std::int32_t t) {
  return static_cast<const std::int32_t*>(__builtin_assume_aligned(table + 4 * t, 16));
}
// Point v's 3 coordinates, copied into registers.
inline void load_point(const double* xyz, std::int32_t v, double p[3]) {
  for (int k = 0; k < 3; ++k) p[k] = xyz[3 * v + k];
}
// The 4 vertices of the tet whose vertex numbers are e, copied into registers.
inline void load_tet(const double* crd, const std::int32_t* e, double a[3], double b[3], double c[3], double d[3]) {
  load_point(crd, e[0], a);
  load_point(crd, e[1], b);
  load_point(crd, e[2], c);
  load_point(crd, e[3], d);
}
// The quarter volume of the tet whose 4 vertex numbers are e.
inline double quarter_volume(const double* crd, const std::int32_t* e) {
  double a[3], b[3], c[3], d[3];
  load_tet(crd, e, a, b, c, d);
  return 0.25 * tet_volume(a, b, c, d);
}
#pragma omp end declare target

// Direct: loop over vertices, read and write the vertex's own data.
void target_tuned_direct(MeshInstance& m, RunContext& ctx) {
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
void target_tuned_downward(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int32_t nt = std::int32_t(m.nt);
  const std::int32_t* __restrict__ tet = m.tet.data();
  const double* __restrict__ crd = m.crd.data();
  double* __restrict__ volume = m.output("out_volume").data();
  double* __restrict__ centre = m.output("out_centre").data();
  const int teams = teams_for(nt, ctx);
#pragma omp target teams distribute parallel for device(dev) num_teams(teams) thread_limit(tuned_threads) \
    map(alloc : tet[0:4 * nt], crd[0:3 * m.nv], volume[0:nt], centre[0:3 * nt])
  for (std::int32_t t = 0; t < nt; ++t) {
    double a[3], b[3], c[3], d[3];
    load_tet(crd, row4(tet, t), a, b, c, d);
    volume[t] = tet_volume(a, b, c, d);
    tet_barycentre(a, b, c, d, centre + 3 * t);
  }
}

// Transverse: loop over tets, read their face neighbours' data.
void target_tuned_transverse(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int32_t nt = std::int32_t(m.nt);
  const std::int32_t* __restrict__ nbr = m.tet_nbr.data();
  const double* __restrict__ centre = m.centre.data();
  double* __restrict__ spread = m.output("spread").data();
  const int teams = teams_for(nt, ctx);
#pragma omp target teams distribute parallel for device(dev) num_teams(teams) thread_limit(tuned_threads) \
    map(alloc : nbr[0:4 * nt], centre[0:3 * nt], spread[0:nt])
  for (std::int32_t t = 0; t < nt; ++t) {
    const std::int32_t* row = row4(nbr, t);
    const std::int32_t u[4] = {row[0], row[1], row[2], row[3]};
    double g[3];
    load_point(centre, t, g);
    double best = 0;
    for (int k = 0; k < 4; ++k) {
      if (u[k] < 0) continue;
      double h[3];
      load_point(centre, u[k], h);
      best = std::fmax(best, distance(g, h));
    }
    spread[t] = best;
  }
}

// Upward, CSR: loop over vertices, read the ball between two offsets.
void target_tuned_ball_csr(MeshInstance& m, RunContext& ctx) {
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
  for (std::int32_t v = 0; v < nv; ++v) {
    double s[3] = {0, 0, 0};
    const std::int32_t lo = offset[v], hi = offset[v + 1];
    for (std::int32_t i = lo; i < hi; ++i) {
      const std::int32_t t = corner[i] >> 2;
      for (int k = 0; k < 3; ++k) s[k] += centre[3 * t + k];
    }
    const int degree = hi - lo;
    for (int k = 0; k < 3; ++k) smooth[3 * v + k] = relax(crd[3 * v + k], s[k], degree, omega);
  }
}

// Upward, degree-binned (GMlib): one loop over the rows of all bins; a row
// finds its bin, then reads column j of the bin's matrix at j * rows + row.
// The matrices' offsets stay 64-bit: the padded matrices may outgrow 2^31 entries.
void target_tuned_ball_binned(MeshInstance& m, RunContext& ctx) {
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
void target_tuned_lumped_atomic(MeshInstance& m, RunContext& ctx) {
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
    const std::int32_t* row = row4(tet, t);
    const std::int32_t e[4] = {row[0], row[1], row[2], row[3]};
    const double quarter = quarter_volume(crd, e);
    for (int k = 0; k < 4; ++k) {
#pragma omp atomic update
      lumped[e[k]] += quarter;
    }
  }
}

// Indirect write as a scatter/gather pair: each tet writes its own 4 corner
// temporaries (no conflict), then each vertex sums its ball's corners (no conflict).
void target_tuned_lumped_scatter_gather(MeshInstance& m, RunContext& ctx) {
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
  for (std::int32_t t = 0; t < nt; ++t) {
    const std::int32_t* row = row4(tet, t);
    const std::int32_t e[4] = {row[0], row[1], row[2], row[3]};
    const double quarter = quarter_volume(crd, e);
    for (int k = 0; k < 4; ++k) tmp[4 * t + k] = quarter;
  }
#pragma omp target teams distribute parallel for device(dev) num_teams(vertex_teams) thread_limit(tuned_threads) \
    map(alloc : offset[0:nv + 1], corner[0:4 * nt], tmp[0:4 * nt], lumped[0:nv])
  for (std::int32_t v = 0; v < nv; ++v) {
    double s = 0;
    const std::int32_t lo = offset[v], hi = offset[v + 1];
    for (std::int32_t i = lo; i < hi; ++i) s += tmp[corner[i]];
    lumped[v] = s;
  }
}

// Elements of each array a thread of the two-level reduction keeps in flight per pass.
constexpr int in_flight = 4;

#pragma omp declare target
// Teams of the running reduction that have stored their partial (last_team_done).
unsigned tuned_teams_done = 0;

// The partials combined by one team, its threads striding through them.
inline Reductions combine_on_team(const double* part, const std::int64_t* part_index, int nb) {
  const double inf = std::numeric_limits<double>::infinity();
  double vsum = 0, vmin = inf, vmax = -inf, qsum = 0, qmax = -inf;
  MinLoc qmin{inf, std::numeric_limits<std::int64_t>::max()};
#pragma omp parallel firstprivate(part, part_index, nb) reduction(+ : vsum, qsum) reduction(min : vmin) \
    reduction(max : vmax, qmax) reduction(minloc : qmin)
  {
    for (int c = omp_get_thread_num(); c < nb; c += omp_get_num_threads()) {
      vsum += part[6 * c + 0];
      vmin = std::fmin(vmin, part[6 * c + 1]);
      vmax = std::fmax(vmax, part[6 * c + 2]);
      qsum += part[6 * c + 3];
      qmax = std::fmax(qmax, part[6 * c + 4]);
      qmin = minloc_better(qmin, MinLoc{part[6 * c + 5], part_index[c]});
    }
  }
  return Reductions{vsum, vmin, vmax, qsum, qmax, qmin};
}
#pragma omp end declare target

// The same reductions in two levels: team b's threads take every
// (reduce_teams x 256)-th element from lane 256 b + i, in_flight at a time;
// the partials stay on the device, where the last team to finish combines
// them, and only the result comes back with the kernel.
void target_tuned_reduce_blocks(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int32_t nt = std::int32_t(m.nt);
  const double* __restrict__ volume = m.volume.data();
  const double* __restrict__ quality = m.quality.data();
  double* __restrict__ part = m.block_partial.data();
  std::int64_t* __restrict__ part_index = m.block_argmin.data();
  Reductions* result = pinned_slot<Reductions>();
  const int nb = reduce_teams;
  const double inf = std::numeric_limits<double>::infinity();
#pragma omp target teams distribute num_teams(league(ctx.on_device, nb)) thread_limit(tuned_threads) device(dev) \
    map(alloc : volume[0:nt], quality[0:nt], part[0:6 * nb], part_index[0:nb]) map(always, from : result[0:1])
  for (int b = 0; b < nb; ++b) {
    double vsum = 0, vmin = inf, vmax = -inf, qsum = 0, qmax = -inf;
    MinLoc qmin{inf, std::numeric_limits<std::int64_t>::max()};
#pragma omp parallel firstprivate(volume, quality, nt, nb, b) reduction(+ : vsum, qsum) reduction(min : vmin) \
    reduction(max : vmax, qmax) reduction(minloc : qmin)
    {
      const std::int32_t stride = nb * tuned_threads;
      for (std::int32_t lane = omp_get_thread_num(); lane < tuned_threads; lane += omp_get_num_threads()) {
        std::int32_t t = b * tuned_threads + lane;
        for (; t + (in_flight - 1) * stride < nt; t += in_flight * stride) {
          double v[in_flight], q[in_flight];
          for (int k = 0; k < in_flight; ++k) v[k] = volume[t + k * stride];
          for (int k = 0; k < in_flight; ++k) q[k] = quality[t + k * stride];
          for (int k = 0; k < in_flight; ++k)
            reduce_item(v[k], q[k], t + k * stride, vsum, vmin, vmax, qsum, qmax, qmin);
        }
        for (; t < nt; t += stride) reduce_item(volume[t], quality[t], t, vsum, vmin, vmax, qsum, qmax, qmin);
      }
    }
    store_partial(part, part_index, b, Reductions{vsum, vmin, vmax, qsum, qmax, qmin});
    if (last_team_done(tuned_teams_done, nb)) *result = combine_on_team(part, part_index, nb);
  }
  m.red = *result;
}

const Registration registrations[] = {
    Registration{target_variant("mesh", "target_tuned_direct",
                                "direct, tuned: num_teams/thread_limit for one coordinate per thread, 32-bit indices, restrict",
                                target_tuned_direct, "direct")
                     .follows("target_narrow_direct").uses({"target teams distribute parallel for", "simd", "declare target", "target enter/exit data", "map(alloc)", "thread_limit", "num_teams"})},
    Registration{target_variant("mesh", "target_tuned_downward",
                                "downward, tuned: one tet per thread (num_teams/thread_limit), 32-bit indices, restrict, 16-byte tet rows",
                                target_tuned_downward, "downward")
                     .follows("target_narrow_downward").uses({"target teams distribute parallel for", "declare target", "map(alloc)", "thread_limit", "num_teams"})},
    Registration{target_variant("mesh", "target_tuned_transverse",
                                "transverse, tuned: one tet per thread, 32-bit indices, restrict, 16-byte neighbour rows",
                                target_tuned_transverse, "transverse")
                     .follows("target_narrow_transverse").uses({"target teams distribute parallel for", "declare target", "map(alloc)", "thread_limit", "num_teams"})},
    Registration{target_variant("mesh", "target_tuned_ball_csr",
                                "upward over CSR balls, tuned: one vertex per thread, 32-bit indices, restrict",
                                target_tuned_ball_csr, "upward_csr")
                     .follows("target_narrow_ball_csr").uses({"target teams distribute parallel for", "declare target", "map(alloc)", "thread_limit", "num_teams"})},
    Registration{target_variant("mesh", "target_tuned_ball_binned",
                                "upward over degree-binned balls, tuned: one bin row per thread, 32-bit row indices, restrict",
                                target_tuned_ball_binned, "upward_binned")
                     .follows("target_narrow_ball_binned").uses({"target teams distribute parallel for", "declare target", "map(alloc)", "thread_limit", "num_teams"})},
    Registration{target_variant("mesh", "target_tuned_lumped_atomic",
                                "lumped volumes with atomics, tuned: one tet per thread, 32-bit indices, restrict, 16-byte tet rows",
                                target_tuned_lumped_atomic, "lumped_atomic")
                     .follows("target_narrow_lumped_atomic").uses({"target teams distribute parallel for", "simd", "declare target", "atomic", "map(alloc)", "thread_limit", "num_teams"})},
    Registration{target_variant("mesh", "target_tuned_lumped_scatter_gather",
                                "lumped volumes by scatter/gather, tuned: one tet, then one vertex per thread, 32-bit indices, restrict",
                                target_tuned_lumped_scatter_gather, "lumped_scatter_gather")
                     .follows("target_narrow_lumped_scatter_gather").uses({"target teams distribute parallel for", "declare target", "map(alloc)", "thread_limit", "num_teams"})},
    Registration{target_variant("mesh", "target_tuned_reduce_blocks",
                                "reductions in two levels, tuned: one wave of teams, 4 loads in flight a thread, the last team combines, result pinned",
                                target_tuned_reduce_blocks, "reduce")
                     .follows("target_narrow_reduce_blocks").uses({"teams distribute", "declare target", "declare reduction", "reduction", "struct reduction", "map(alloc)", "thread_limit", "num_teams"})},
};

}  // namespace
}  // namespace ompref::mesh
