// mesh on the device, tuned: the pair's gathers and indirect writes
// (src/omp_target/mesh.cpp) shaped the way their CUDA twins
// (src/native_cuda/mesh.cu) run, with standard OpenMP only. What changes,
// kernel for kernel (`diff src/omp_target/mesh.cpp src/omp_target/mesh_tuned.cpp`):
//  - `num_teams(teams_for(n, ctx)) thread_limit(tuned_threads)`: on a device
//    n / 256 teams of 256 threads, one item per thread. Without them clang-19
//    chose 3,200 teams of 128 threads on an H200, and each thread walked a
//    grid-stride loop of 31 tets where CUDA gives each thread one. (Its
//    default schedules for a combined construct on a GPU, dist_schedule(
//    static, threads per team) and schedule(static, 1), then give thread i of
//    team b item 256 b + i: consecutive threads read consecutive items, as in
//    CUDA.) The kernels read the run context for it, as the target pair does
//    for its device number.
//  - 32-bit loop variables and index arithmetic: make_instance keeps 4 nt and
//    3 nv below 2^31, so every corner, neighbour and coordinate offset fits.
//    A 64-bit loop costs 64-bit compares, increments and multiplies per item.
//  - `__restrict__` on the local pointers: no store may alias a load, so the
//    compiler may keep and reorder loads (and use the read-only path).
//  - a tet's 4 vertex (or neighbour) numbers read from a row known to be
//    16-byte aligned (`__builtin_assume_aligned`): one vector load instead of
//    four. tet[] and tet_nbr[] start 16-byte aligned (operator new on the
//    host, the runtime's device allocations) and a row is 16 bytes.
//  - the gathered coordinates copied into registers before anything is
//    stored (load_point): `__restrict__` does not reach the region's outlined
//    function in clang-19, which otherwise loads the 12 coordinates again
//    after the volume's store, in case it changed them.
// The device data are the pair's declarations (mesh_data.hpp); the
// validation, the model and the kernel tags are the pair's. Of the
// reductions only the two-level one has a tuned step (target_reduce is the
// runtime's cross-team reduction, the lesson of docs/mesh.md):
//  - as many teams as run at once (660: 5 of 256 threads per multiprocessor
//    of an H200 at 48 registers a thread) instead of 1024, about two waves
//    of the pair's kernel at its 56 registers.
//  - inside a team a `parallel` region whose threads take their elements by
//    their number (omp_get_thread_num) instead of `parallel for
//    schedule(static, 1)`, which ran the runtime's chunk loop around every
//    element (42.2 M warp instructions at cube 128 against 23.6 M); lane
//    256 b + i of team b takes every (660 x 256)-th element, as CUDA's
//    grid-stride loop does, a thread looping over lanes if the runtime gives
//    the region fewer than 256 threads.
//  - 4 elements of each array loaded before any is folded in, so that a
//    thread has 8 loads in flight instead of 2 (clang does not unroll the
//    loop by itself).
//  - `firstprivate` for the pointers and bounds the loop reads, so that the
//    nested region gets their values rather than their addresses.
//  - the partials stay on the device: each team counts itself done with an
//    `atomic capture` between two flushes (last_team_done, shared with
//    stream's tuned dot in team_reduction.hpp), and the last one combines them
//    (CUDA's last-block reduction), so only the 56-byte result comes back,
//    mapped with the kernel into page-locked host memory (pinned_slot).
//    The combination uses its own variables in its own function: reusing
//    the block's reduction variables gave a wrong minimum under clang-19.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include <omp.h>

#include "common/mesh/mesh.hpp"
#include "common/mesh/mesh_element.hpp"
#include "common/registry.hpp"
#include "common/mesh/mesh_data.hpp"
#include "omp_target/team_reduction.hpp"

namespace ompref::mesh {
namespace {

// Threads per team, and on a device as many teams as it takes to give each
// thread one item (league(): one team on the host fallback).
constexpr int tuned_threads = 256;
int teams_for(std::int64_t items, const RunContext& ctx) {
  return league(ctx.on_device, long((items + tuned_threads - 1) / tuned_threads));
}

#pragma omp declare target
// Row t of a 4-column int32 table (tet, tet_nbr): 16-byte aligned.
inline const std::int32_t* row4(const std::int32_t* table, std::int32_t t) {
  return static_cast<const std::int32_t*>(__builtin_assume_aligned(table + 4 * t, 16));
}
// Point v's 3 coordinates, copied into registers.
inline void load_point(const double* xyz, std::int32_t v, double p[3]) {
  for (int k = 0; k < 3; ++k) p[k] = xyz[3 * v + k];
}
// The quarter volume of the tet whose 4 vertex numbers are e.
inline double quarter_volume(const double* crd, const std::int32_t* e) {
  double a[3], b[3], c[3], d[3];
  load_point(crd, e[0], a);
  load_point(crd, e[1], b);
  load_point(crd, e[2], c);
  load_point(crd, e[3], d);
  return 0.25 * tet_volume(a, b, c, d);
}
#pragma omp end declare target

// Direct: loop over vertices, read and write the vertex's own data.
void target_tuned_direct(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int32_t n = std::int32_t(3 * m.nv);
  double* __restrict__ pos = m.pos.data();
  const double* __restrict__ vel = m.vel.data();
  const double dt = direct_dt;
  const int teams = teams_for(n, ctx);
#pragma omp target teams distribute parallel for simd device(dev) num_teams(teams) thread_limit(tuned_threads) \
    map(alloc : pos[0:n], vel[0:n])
  for (std::int32_t i = 0; i < n; ++i) pos[i] = pos[i] + vel[i] * dt;
}

// Downward: loop over tets, read their 4 vertices through tet[].
void target_tuned_downward(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int32_t nt = std::int32_t(m.nt);
  const std::int32_t* __restrict__ tet = m.tet.data();
  const double* __restrict__ crd = m.crd.data();
  double* __restrict__ volume = m.out_volume.data();
  double* __restrict__ centre = m.out_centre.data();
  const int teams = teams_for(nt, ctx);
#pragma omp target teams distribute parallel for device(dev) num_teams(teams) thread_limit(tuned_threads) \
    map(alloc : tet[0:4 * nt], crd[0:3 * m.nv], volume[0:nt], centre[0:3 * nt])
  for (std::int32_t t = 0; t < nt; ++t) {
    const std::int32_t* e = row4(tet, t);
    double a[3], b[3], c[3], d[3];
    load_point(crd, e[0], a);
    load_point(crd, e[1], b);
    load_point(crd, e[2], c);
    load_point(crd, e[3], d);
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
  double* __restrict__ spread = m.spread.data();
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
  double* __restrict__ smooth = m.smooth.data();
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
  double* __restrict__ smooth = m.smooth.data();
  const double omega = smoothing_omega;
  const int teams = teams_for(rows, ctx);
#pragma omp target teams distribute parallel for device(dev) num_teams(teams) thread_limit(tuned_threads)  \
    map(alloc : first[0:nb], count[0:nb], offset[0:nb], vertex[0:rows], degree[0:rows],                      \
                corner[0:m.bins.corner.size()], centre[0:3 * m.nt], crd[0:3 * m.nv], smooth[0:3 * m.nv])
  for (std::int32_t r = 0; r < rows; ++r) {
    int b = 0;
    while (b + 1 < nb && r >= first[b + 1]) ++b;
    const std::int64_t stride = count[b];
    const std::int32_t* column = corner + offset[b] + (r - first[b]);
    const std::int32_t deg = degree[r];
    double s[3] = {0, 0, 0};
    for (std::int32_t j = 0; j < deg; ++j) {
      const std::int32_t t = column[j * stride] >> 2;
      for (int k = 0; k < 3; ++k) s[k] += centre[3 * t + k];
    }
    const std::int32_t v = vertex[r];
    for (int k = 0; k < 3; ++k) smooth[3 * v + k] = relax(crd[3 * v + k], s[k], deg, omega);
  }
}

// Indirect write with atomics: loop over tets, add volume / 4 to each vertex.
void target_tuned_lumped_atomic(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int32_t nv = std::int32_t(m.nv), nt = std::int32_t(m.nt);
  const std::int32_t* __restrict__ tet = m.tet.data();
  const double* __restrict__ crd = m.crd.data();
  double* __restrict__ lumped = m.lumped.data();
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
  double* __restrict__ lumped = m.lumped.data();
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

// Teams of the tuned two-level reduction: 5 of 256 threads per multiprocessor
// of an H200 (132), as many as its 48 registers a thread let run at once
// (one wave); at most reduce_blocks partials. Each thread keeps in_flight
// elements of each array in flight per pass.
constexpr int reduce_teams = 660;
static_assert(reduce_teams <= reduce_blocks);
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
          for (int k = 0; k < in_flight; ++k) {
            vsum += v[k];
            vmin = std::fmin(vmin, v[k]);
            vmax = std::fmax(vmax, v[k]);
            qsum += q[k];
            qmax = std::fmax(qmax, q[k]);
            qmin = minloc_better(qmin, MinLoc{q[k], t + k * stride});
          }
        }
        for (; t < nt; t += stride) {
          const double v = volume[t], q = quality[t];
          vsum += v;
          vmin = std::fmin(vmin, v);
          vmax = std::fmax(vmax, v);
          qsum += q;
          qmax = std::fmax(qmax, q);
          qmin = minloc_better(qmin, MinLoc{q, t});
        }
      }
    }
    part[6 * b + 0] = vsum;
    part[6 * b + 1] = vmin;
    part[6 * b + 2] = vmax;
    part[6 * b + 3] = qsum;
    part[6 * b + 4] = qmax;
    part[6 * b + 5] = qmin.value;
    part_index[b] = qmin.index;
    if (last_team_done(tuned_teams_done, nb)) *result = combine_on_team(part, part_index, nb);
  }
  m.red = *result;
}

const Registration target_tuned_direct_registration{target_variant(
    "mesh", "target_tuned_direct",
    "direct, tuned: num_teams/thread_limit for one coordinate per thread, 32-bit indices, restrict",
    target_tuned_direct, direct_data).for_kernel("direct").follows("target_direct")};
const Registration target_tuned_downward_registration{target_variant(
    "mesh", "target_tuned_downward",
    "downward, tuned: one tet per thread (num_teams/thread_limit), 32-bit indices, restrict, 16-byte tet rows",
    target_tuned_downward, downward_data).for_kernel("downward").follows("target_downward")};
const Registration target_tuned_transverse_registration{target_variant(
    "mesh", "target_tuned_transverse",
    "transverse, tuned: one tet per thread, 32-bit indices, restrict, 16-byte neighbour rows",
    target_tuned_transverse, transverse_data).for_kernel("transverse").follows("target_transverse")};
const Registration target_tuned_ball_csr_registration{target_variant(
    "mesh", "target_tuned_ball_csr", "upward over CSR balls, tuned: one vertex per thread, 32-bit indices, restrict",
    target_tuned_ball_csr, ball_csr_data).for_kernel("upward_csr").follows("target_ball_csr")};
const Registration target_tuned_ball_binned_registration{target_variant(
    "mesh", "target_tuned_ball_binned",
    "upward over degree-binned balls, tuned: one bin row per thread, 32-bit row indices, restrict",
    target_tuned_ball_binned, ball_binned_data).for_kernel("upward_binned").follows("target_ball_binned")};
const Registration target_tuned_lumped_atomic_registration{target_variant(
    "mesh", "target_tuned_lumped_atomic",
    "lumped volumes with atomics, tuned: one tet per thread, 32-bit indices, restrict, 16-byte tet rows",
    target_tuned_lumped_atomic, lumped_atomic_data).for_kernel("lumped_atomic").follows("target_lumped_atomic")};
const Registration target_tuned_lumped_scatter_gather_registration{target_variant(
    "mesh", "target_tuned_lumped_scatter_gather",
    "lumped volumes by scatter/gather, tuned: one tet, then one vertex per thread, 32-bit indices, restrict",
    target_tuned_lumped_scatter_gather, lumped_scatter_gather_data).for_kernel("lumped_scatter_gather").follows("target_lumped_scatter_gather")};
const Registration target_tuned_reduce_blocks_registration{target_variant(
    "mesh", "target_tuned_reduce_blocks",
    "reductions in two levels, tuned: one wave of teams, 4 loads in flight a thread, the last team combines, result pinned",
    target_tuned_reduce_blocks, reduce_blocks_data).for_kernel("reduce").follows("target_reduce_blocks")};

}  // namespace
}  // namespace ompref::mesh
