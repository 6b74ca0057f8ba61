// mesh on the device: GMlib's access patterns as `target teams distribute
// parallel for` loops over an entity (vertices or tetrahedra), one thread per
// entity. Compare with src/omp_host/mesh.cpp: same functions, same order; the
// per-element arithmetic is in common/mesh_element.hpp (declare target).
#include <algorithm>
#include <cstdint>
#include <limits>

#include "common/mesh.hpp"
#include "common/mesh_element.hpp"
#include "common/registry.hpp"

namespace ompref::mesh {
namespace {

// Each kernel's arrays go to the device once, before timing: inputs and the
// NaN-poisoned outputs (map(to:), so that an element a kernel fails to write
// comes back NaN); the kernels then name them with map(alloc:), which finds
// them present and moves nothing. Exit: outputs come back, the rest is released.
// `[[maybe_unused]]`: unused where target pragmas compile away.

void enter_direct(MeshInstance& m, RunContext& ctx) {
  const std::int64_t n = 3 * m.nv;
  [[maybe_unused]] double* pos = m.pos.data();
  [[maybe_unused]] double* vel = m.vel.data();
#pragma omp target enter data device(ctx.device) map(to : pos[0:n], vel[0:n])
}
void exit_direct(MeshInstance& m, RunContext& ctx) {
  const std::int64_t n = 3 * m.nv;
  [[maybe_unused]] double* pos = m.pos.data();
  [[maybe_unused]] double* vel = m.vel.data();
#pragma omp target exit data device(ctx.device) map(from : pos[0:n]) map(release : vel[0:n])
}

void enter_downward(MeshInstance& m, RunContext& ctx) {
  const std::int64_t nv = m.nv, nt = m.nt;
  [[maybe_unused]] std::int32_t* tet = m.tet.data();
  [[maybe_unused]] double* crd = m.crd.data();
  [[maybe_unused]] double* volume = m.out_volume.data();
  [[maybe_unused]] double* centre = m.out_centre.data();
#pragma omp target enter data device(ctx.device) map(to : tet[0:4 * nt], crd[0:3 * nv], volume[0:nt], centre[0:3 * nt])
}
void exit_downward(MeshInstance& m, RunContext& ctx) {
  const std::int64_t nv = m.nv, nt = m.nt;
  [[maybe_unused]] std::int32_t* tet = m.tet.data();
  [[maybe_unused]] double* crd = m.crd.data();
  [[maybe_unused]] double* volume = m.out_volume.data();
  [[maybe_unused]] double* centre = m.out_centre.data();
#pragma omp target exit data device(ctx.device) map(from : volume[0:nt], centre[0:3 * nt]) \
    map(release : tet[0:4 * nt], crd[0:3 * nv])
}

void enter_transverse(MeshInstance& m, RunContext& ctx) {
  const std::int64_t nt = m.nt;
  [[maybe_unused]] std::int32_t* nbr = m.tet_nbr.data();
  [[maybe_unused]] double* centre = m.centre.data();
  [[maybe_unused]] double* spread = m.spread.data();
#pragma omp target enter data device(ctx.device) map(to : nbr[0:4 * nt], centre[0:3 * nt], spread[0:nt])
}
void exit_transverse(MeshInstance& m, RunContext& ctx) {
  const std::int64_t nt = m.nt;
  [[maybe_unused]] std::int32_t* nbr = m.tet_nbr.data();
  [[maybe_unused]] double* centre = m.centre.data();
  [[maybe_unused]] double* spread = m.spread.data();
#pragma omp target exit data device(ctx.device) map(from : spread[0:nt]) map(release : nbr[0:4 * nt], centre[0:3 * nt])
}

void enter_ball_csr(MeshInstance& m, RunContext& ctx) {
  const std::int64_t nv = m.nv, nt = m.nt, ne = std::int64_t(m.ball_corner.size());
  [[maybe_unused]] std::int32_t* offset = m.ball_offset.data();
  [[maybe_unused]] std::int32_t* corner = m.ball_corner.data();
  [[maybe_unused]] double* centre = m.centre.data();
  [[maybe_unused]] double* crd = m.crd.data();
  [[maybe_unused]] double* smooth = m.smooth.data();
#pragma omp target enter data device(ctx.device) \
    map(to : offset[0:nv + 1], corner[0:ne], centre[0:3 * nt], crd[0:3 * nv], smooth[0:3 * nv])
}
void exit_ball_csr(MeshInstance& m, RunContext& ctx) {
  const std::int64_t nv = m.nv, nt = m.nt, ne = std::int64_t(m.ball_corner.size());
  [[maybe_unused]] std::int32_t* offset = m.ball_offset.data();
  [[maybe_unused]] std::int32_t* corner = m.ball_corner.data();
  [[maybe_unused]] double* centre = m.centre.data();
  [[maybe_unused]] double* crd = m.crd.data();
  [[maybe_unused]] double* smooth = m.smooth.data();
#pragma omp target exit data device(ctx.device) map(from : smooth[0:3 * nv]) \
    map(release : offset[0:nv + 1], corner[0:ne], centre[0:3 * nt], crd[0:3 * nv])
}

void enter_ball_binned(MeshInstance& m, RunContext& ctx) {
  const std::int64_t nv = m.nv, nt = m.nt, rows = m.bins.rows(), ne = std::int64_t(m.bins.corner.size());
  const int nb = m.bins.bin_count();
  [[maybe_unused]] std::int32_t* first = m.bins.first.data();
  [[maybe_unused]] std::int32_t* count = m.bins.count.data();
  [[maybe_unused]] std::int64_t* offset = m.bins.offset.data();
  [[maybe_unused]] std::int32_t* vertex = m.bins.vertex.data();
  [[maybe_unused]] std::int32_t* degree = m.bins.degree.data();
  [[maybe_unused]] std::int32_t* corner = m.bins.corner.data();
  [[maybe_unused]] double* centre = m.centre.data();
  [[maybe_unused]] double* crd = m.crd.data();
  [[maybe_unused]] double* smooth = m.smooth.data();
#pragma omp target enter data device(ctx.device)                                                   \
    map(to : first[0:nb], count[0:nb], offset[0:nb], vertex[0:rows], degree[0:rows], corner[0:ne], \
             centre[0:3 * nt], crd[0:3 * nv], smooth[0:3 * nv])
}
void exit_ball_binned(MeshInstance& m, RunContext& ctx) {
  const std::int64_t nv = m.nv, nt = m.nt, rows = m.bins.rows(), ne = std::int64_t(m.bins.corner.size());
  const int nb = m.bins.bin_count();
  [[maybe_unused]] std::int32_t* first = m.bins.first.data();
  [[maybe_unused]] std::int32_t* count = m.bins.count.data();
  [[maybe_unused]] std::int64_t* offset = m.bins.offset.data();
  [[maybe_unused]] std::int32_t* vertex = m.bins.vertex.data();
  [[maybe_unused]] std::int32_t* degree = m.bins.degree.data();
  [[maybe_unused]] std::int32_t* corner = m.bins.corner.data();
  [[maybe_unused]] double* centre = m.centre.data();
  [[maybe_unused]] double* crd = m.crd.data();
  [[maybe_unused]] double* smooth = m.smooth.data();
#pragma omp target exit data device(ctx.device) map(from : smooth[0:3 * nv])                          \
    map(release : first[0:nb], count[0:nb], offset[0:nb], vertex[0:rows], degree[0:rows], corner[0:ne], \
                  centre[0:3 * nt], crd[0:3 * nv])
}

void enter_lumped_atomic(MeshInstance& m, RunContext& ctx) {
  const std::int64_t nv = m.nv, nt = m.nt;
  [[maybe_unused]] std::int32_t* tet = m.tet.data();
  [[maybe_unused]] double* crd = m.crd.data();
  [[maybe_unused]] double* lumped = m.lumped.data();
#pragma omp target enter data device(ctx.device) map(to : tet[0:4 * nt], crd[0:3 * nv], lumped[0:nv])
}
void exit_lumped_atomic(MeshInstance& m, RunContext& ctx) {
  const std::int64_t nv = m.nv, nt = m.nt;
  [[maybe_unused]] std::int32_t* tet = m.tet.data();
  [[maybe_unused]] double* crd = m.crd.data();
  [[maybe_unused]] double* lumped = m.lumped.data();
#pragma omp target exit data device(ctx.device) map(from : lumped[0:nv]) map(release : tet[0:4 * nt], crd[0:3 * nv])
}

void enter_lumped_scatter_gather(MeshInstance& m, RunContext& ctx) {
  const std::int64_t nv = m.nv, nt = m.nt;
  [[maybe_unused]] std::int32_t* tet = m.tet.data();
  [[maybe_unused]] double* crd = m.crd.data();
  [[maybe_unused]] std::int32_t* offset = m.ball_offset.data();
  [[maybe_unused]] std::int32_t* corner = m.ball_corner.data();
  [[maybe_unused]] double* tmp = m.corner_tmp.data();
  [[maybe_unused]] double* lumped = m.lumped.data();
#pragma omp target enter data device(ctx.device)                                                      \
    map(to : tet[0:4 * nt], crd[0:3 * nv], offset[0:nv + 1], corner[0:4 * nt], tmp[0:4 * nt], lumped[0:nv])
}
void exit_lumped_scatter_gather(MeshInstance& m, RunContext& ctx) {
  const std::int64_t nv = m.nv, nt = m.nt;
  [[maybe_unused]] std::int32_t* tet = m.tet.data();
  [[maybe_unused]] double* crd = m.crd.data();
  [[maybe_unused]] std::int32_t* offset = m.ball_offset.data();
  [[maybe_unused]] std::int32_t* corner = m.ball_corner.data();
  [[maybe_unused]] double* tmp = m.corner_tmp.data();
  [[maybe_unused]] double* lumped = m.lumped.data();
#pragma omp target exit data device(ctx.device) map(from : lumped[0:nv]) \
    map(release : tet[0:4 * nt], crd[0:3 * nv], offset[0:nv + 1], corner[0:4 * nt], tmp[0:4 * nt])
}

void enter_reduce(MeshInstance& m, RunContext& ctx) {
  const std::int64_t nt = m.nt;
  [[maybe_unused]] double* volume = m.volume.data();
  [[maybe_unused]] double* quality = m.quality.data();
#pragma omp target enter data device(ctx.device) map(to : volume[0:nt], quality[0:nt])
}
void exit_reduce(MeshInstance& m, RunContext& ctx) {
  const std::int64_t nt = m.nt;
  [[maybe_unused]] double* volume = m.volume.data();
  [[maybe_unused]] double* quality = m.quality.data();
#pragma omp target exit data device(ctx.device) map(release : volume[0:nt], quality[0:nt])
}

void enter_reduce_blocks(MeshInstance& m, RunContext& ctx) {
  const std::int64_t nt = m.nt;
  const int nb = reduce_blocks;
  [[maybe_unused]] double* volume = m.volume.data();
  [[maybe_unused]] double* quality = m.quality.data();
  [[maybe_unused]] double* part = m.block_partial.data();
  [[maybe_unused]] std::int64_t* part_index = m.block_argmin.data();
#pragma omp target enter data device(ctx.device) map(to : volume[0:nt], quality[0:nt]) \
    map(alloc : part[0:6 * nb], part_index[0:nb])
}
void exit_reduce_blocks(MeshInstance& m, RunContext& ctx) {
  const std::int64_t nt = m.nt;
  const int nb = reduce_blocks;
  [[maybe_unused]] double* volume = m.volume.data();
  [[maybe_unused]] double* quality = m.quality.data();
  [[maybe_unused]] double* part = m.block_partial.data();
  [[maybe_unused]] std::int64_t* part_index = m.block_argmin.data();
#pragma omp target exit data device(ctx.device) map(release : volume[0:nt], quality[0:nt], part[0:6 * nb], part_index[0:nb])
}

// Direct: loop over vertices, read and write the vertex's own data.
void target_direct(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int64_t n = 3 * m.nv;
  double* pos = m.pos.data();
  const double* vel = m.vel.data();
  const double dt = direct_dt;
#pragma omp target teams distribute parallel for simd device(dev) map(alloc : pos[0:n], vel[0:n])
  for (std::int64_t i = 0; i < n; ++i) pos[i] = pos[i] + vel[i] * dt;
  m.last = Kernel::direct;
}

// Downward: loop over tets, read their 4 vertices through tet[].
void target_downward(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int64_t nv = m.nv, nt = m.nt;
  const std::int32_t* tet = m.tet.data();
  const double* crd = m.crd.data();
  double* volume = m.out_volume.data();
  double* centre = m.out_centre.data();
#pragma omp target teams distribute parallel for device(dev) \
    map(alloc : tet[0:4 * nt], crd[0:3 * nv], volume[0:nt], centre[0:3 * nt])
  for (std::int64_t t = 0; t < nt; ++t) {
    const double* a = crd + 3 * std::int64_t(tet[4 * t + 0]);
    const double* b = crd + 3 * std::int64_t(tet[4 * t + 1]);
    const double* c = crd + 3 * std::int64_t(tet[4 * t + 2]);
    const double* d = crd + 3 * std::int64_t(tet[4 * t + 3]);
    volume[t] = tet_volume(a, b, c, d);
    tet_barycentre(a, b, c, d, centre + 3 * t);
  }
  m.last = Kernel::downward;
}

// Transverse: loop over tets, read their face neighbours' data.
void target_transverse(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int64_t nt = m.nt;
  const std::int32_t* nbr = m.tet_nbr.data();
  const double* centre = m.centre.data();
  double* spread = m.spread.data();
#pragma omp target teams distribute parallel for device(dev) map(alloc : nbr[0:4 * nt], centre[0:3 * nt], spread[0:nt])
  for (std::int64_t t = 0; t < nt; ++t) {
    double best = 0;
    for (int k = 0; k < 4; ++k) {
      const std::int32_t u = nbr[4 * t + k];
      if (u >= 0) best = std::fmax(best, distance(centre + 3 * t, centre + 3 * std::int64_t(u)));
    }
    spread[t] = best;
  }
  m.last = Kernel::transverse;
}

// Upward, CSR: loop over vertices, read the ball between two offsets.
void target_ball_csr(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int64_t nv = m.nv, nt = m.nt, ne = std::int64_t(m.ball_corner.size());
  const std::int32_t* offset = m.ball_offset.data();
  const std::int32_t* corner = m.ball_corner.data();
  const double* centre = m.centre.data();
  const double* crd = m.crd.data();
  double* smooth = m.smooth.data();
  const double omega = smoothing_omega;
#pragma omp target teams distribute parallel for device(dev) \
    map(alloc : offset[0:nv + 1], corner[0:ne], centre[0:3 * nt], crd[0:3 * nv], smooth[0:3 * nv])
  for (std::int64_t v = 0; v < nv; ++v) {
    double s[3] = {0, 0, 0};
    for (std::int32_t i = offset[v]; i < offset[v + 1]; ++i) {
      const std::int64_t t = corner[i] >> 2;
      for (int k = 0; k < 3; ++k) s[k] += centre[3 * t + k];
    }
    const int degree = offset[v + 1] - offset[v];
    for (int k = 0; k < 3; ++k) smooth[3 * v + k] = relax(crd[3 * v + k], s[k], degree, omega);
  }
  m.last = Kernel::upward_csr;
}

// Upward, degree-binned (GMlib): one loop over the rows of all bins; a row
// finds its bin, then reads column j of the bin's matrix at j * rows + row.
void target_ball_binned(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int64_t nv = m.nv, nt = m.nt, rows = m.bins.rows(), ne = std::int64_t(m.bins.corner.size());
  const int nb = m.bins.bin_count();
  const std::int32_t* first = m.bins.first.data();
  const std::int32_t* count = m.bins.count.data();
  const std::int64_t* offset = m.bins.offset.data();
  const std::int32_t* vertex = m.bins.vertex.data();
  const std::int32_t* degree = m.bins.degree.data();
  const std::int32_t* corner = m.bins.corner.data();
  const double* centre = m.centre.data();
  const double* crd = m.crd.data();
  double* smooth = m.smooth.data();
  const double omega = smoothing_omega;
#pragma omp target teams distribute parallel for device(dev)                                      \
    map(alloc : first[0:nb], count[0:nb], offset[0:nb], vertex[0:rows], degree[0:rows], corner[0:ne], \
                centre[0:3 * nt], crd[0:3 * nv], smooth[0:3 * nv])
  for (std::int64_t r = 0; r < rows; ++r) {
    int b = 0;
    while (b + 1 < nb && r >= first[b + 1]) ++b;
    const std::int64_t stride = count[b];
    const std::int32_t* column = corner + offset[b] + (r - first[b]);
    const std::int32_t deg = degree[r];
    double s[3] = {0, 0, 0};
    for (std::int32_t j = 0; j < deg; ++j) {
      const std::int64_t t = column[j * stride] >> 2;
      for (int k = 0; k < 3; ++k) s[k] += centre[3 * t + k];
    }
    const std::int64_t v = vertex[r];
    for (int k = 0; k < 3; ++k) smooth[3 * v + k] = relax(crd[3 * v + k], s[k], deg, omega);
  }
  m.last = Kernel::upward_binned;
}

// Indirect write with atomics: loop over tets, add volume / 4 to each vertex.
void target_lumped_atomic(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int64_t nv = m.nv, nt = m.nt;
  const std::int32_t* tet = m.tet.data();
  const double* crd = m.crd.data();
  double* lumped = m.lumped.data();
#pragma omp target teams distribute parallel for simd device(dev) map(alloc : lumped[0:nv])
  for (std::int64_t v = 0; v < nv; ++v) lumped[v] = 0;
#pragma omp target teams distribute parallel for device(dev) map(alloc : tet[0:4 * nt], crd[0:3 * nv], lumped[0:nv])
  for (std::int64_t t = 0; t < nt; ++t) {
    const std::int32_t* e = tet + 4 * t;
    const double quarter = 0.25 * tet_volume(crd + 3 * std::int64_t(e[0]), crd + 3 * std::int64_t(e[1]),
                                             crd + 3 * std::int64_t(e[2]), crd + 3 * std::int64_t(e[3]));
    for (int k = 0; k < 4; ++k) {
#pragma omp atomic update
      lumped[e[k]] += quarter;
    }
  }
  m.last = Kernel::lumped_atomic;
}

// Indirect write as a scatter/gather pair: each tet writes its own 4 corner
// temporaries (no conflict), then each vertex sums its ball's corners (no conflict).
void target_lumped_scatter_gather(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int64_t nv = m.nv, nt = m.nt;
  const std::int32_t* tet = m.tet.data();
  const double* crd = m.crd.data();
  const std::int32_t* offset = m.ball_offset.data();
  const std::int32_t* corner = m.ball_corner.data();
  double* tmp = m.corner_tmp.data();
  double* lumped = m.lumped.data();
#pragma omp target teams distribute parallel for device(dev) map(alloc : tet[0:4 * nt], crd[0:3 * nv], tmp[0:4 * nt])
  for (std::int64_t t = 0; t < nt; ++t) {
    const std::int32_t* e = tet + 4 * t;
    const double quarter = 0.25 * tet_volume(crd + 3 * std::int64_t(e[0]), crd + 3 * std::int64_t(e[1]),
                                             crd + 3 * std::int64_t(e[2]), crd + 3 * std::int64_t(e[3]));
    for (int k = 0; k < 4; ++k) tmp[4 * t + k] = quarter;
  }
#pragma omp target teams distribute parallel for device(dev) \
    map(alloc : offset[0:nv + 1], corner[0:4 * nt], tmp[0:4 * nt], lumped[0:nv])
  for (std::int64_t v = 0; v < nv; ++v) {
    double s = 0;
    for (std::int32_t i = offset[v]; i < offset[v + 1]; ++i) s += tmp[corner[i]];
    lumped[v] = s;
  }
  m.last = Kernel::lumped_scatter_gather;
}

// Reductions: sum, min, max of the volumes, sum and max of the quality, and
// (min quality, its tet) through the user-defined reduction `minloc`.
void target_reduce(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int64_t nt = m.nt;
  const double* volume = m.volume.data();
  const double* quality = m.quality.data();
  const double inf = std::numeric_limits<double>::infinity();
  double vsum = 0, vmin = inf, vmax = -inf, qsum = 0, qmax = -inf;
  MinLoc qmin{inf, std::numeric_limits<std::int64_t>::max()};
#pragma omp target teams distribute parallel for device(dev) map(alloc : volume[0:nt], quality[0:nt]) \
    map(tofrom : vsum, vmin, vmax, qsum, qmax, qmin) reduction(+ : vsum, qsum) reduction(min : vmin) \
    reduction(max : vmax, qmax) reduction(minloc : qmin)
  for (std::int64_t t = 0; t < nt; ++t) {
    vsum += volume[t];
    vmin = std::fmin(vmin, volume[t]);
    vmax = std::fmax(vmax, volume[t]);
    qsum += quality[t];
    qmax = std::fmax(qmax, quality[t]);
    qmin = minloc_better(qmin, MinLoc{quality[t], t});
  }
  m.red = Reductions{vsum, vmin, vmax, qsum, qmax, qmin};
  m.last = Kernel::reduce;
}

// The same reductions in two levels, shaped by hand: reduce_blocks teams of 256
// threads, each team reduces one block of tets with a `parallel for` reduction
// (lanes read consecutive tets: schedule(static, 1)) and writes its partial;
// the partials (48 KiB) come back and are combined in block order on the host.
// No cross-team reduction by the runtime.
void target_reduce_blocks(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int64_t nt = m.nt;
  const double* volume = m.volume.data();
  const double* quality = m.quality.data();
  double* part = m.block_partial.data();
  std::int64_t* part_index = m.block_argmin.data();
  const int nb = reduce_blocks;
  const std::int64_t chunk = (nt + nb - 1) / nb;
  const double inf = std::numeric_limits<double>::infinity();
#pragma omp target teams distribute num_teams(nb) thread_limit(256) device(dev) \
    map(alloc : volume[0:nt], quality[0:nt], part[0:6 * nb], part_index[0:nb])
  for (int b = 0; b < nb; ++b) {
    const std::int64_t lo = std::min(nt, b * chunk), hi = std::min(nt, lo + chunk);
    double vsum = 0, vmin = inf, vmax = -inf, qsum = 0, qmax = -inf;
    MinLoc qmin{inf, std::numeric_limits<std::int64_t>::max()};
#pragma omp parallel for schedule(static, 1) reduction(+ : vsum, qsum) reduction(min : vmin) \
    reduction(max : vmax, qmax) reduction(minloc : qmin)
    for (std::int64_t t = lo; t < hi; ++t) {
      vsum += volume[t];
      vmin = std::fmin(vmin, volume[t]);
      vmax = std::fmax(vmax, volume[t]);
      qsum += quality[t];
      qmax = std::fmax(qmax, quality[t]);
      qmin = minloc_better(qmin, MinLoc{quality[t], t});
    }
    part[6 * b + 0] = vsum;
    part[6 * b + 1] = vmin;
    part[6 * b + 2] = vmax;
    part[6 * b + 3] = qsum;
    part[6 * b + 4] = qmax;
    part[6 * b + 5] = qmin.value;
    part_index[b] = qmin.index;
  }
#pragma omp target update device(dev) from(part[0:6 * nb], part_index[0:nb])
  m.red = combine_blocks(part, part_index, nb);
  m.last = Kernel::reduce;
}

const Registration target_direct_registration{target_variant(
    "mesh", "target_direct",
    "direct: x += v dt over the vertices' own fields, a stream over the mesh",
    target_direct, enter_direct, exit_direct)};
const Registration target_downward_registration{target_variant(
    "mesh", "target_downward", "downward: each tet reads its 4 vertices through tet[] for its volume and barycentre",
    target_downward, enter_downward, exit_downward)};
const Registration target_transverse_registration{target_variant(
    "mesh", "target_transverse", "transverse: each tet reads its face neighbours' barycentres (largest distance)",
    target_transverse, enter_transverse, exit_transverse)};
const Registration target_ball_csr_registration{target_variant(
    "mesh", "target_ball_csr", "upward: each vertex averages its ball of tets, ball stored as CSR (offsets + corners)",
    target_ball_csr, enter_ball_csr, exit_ball_csr)};
const Registration target_ball_binned_registration{target_variant(
    "mesh", "target_ball_binned",
    "upward: the same smoothing over GMlib's degree-binned balls (power-of-two padded column-major matrices)",
    target_ball_binned, enter_ball_binned, exit_ball_binned)};
const Registration target_lumped_atomic_registration{target_variant(
    "mesh", "target_lumped_atomic", "indirect write: each tet adds volume/4 to its 4 vertices with `omp atomic`",
    target_lumped_atomic, enter_lumped_atomic, exit_lumped_atomic)};
const Registration target_lumped_scatter_gather_registration{target_variant(
    "mesh", "target_lumped_scatter_gather",
    "indirect write as GMlib's scatter/gather pair: per-corner temporaries, then a gather over each vertex ball",
    target_lumped_scatter_gather, enter_lumped_scatter_gather, exit_lumped_scatter_gather)};
const Registration target_reduce_registration{target_variant(
    "mesh", "target_reduce", "reductions: sum/min/max and a `declare reduction` for (min quality, its tet)",
    target_reduce, enter_reduce, exit_reduce)};
const Registration target_reduce_blocks_registration{target_variant(
    "mesh", "target_reduce_blocks",
    "reductions in two levels: a team per block reduces with `parallel for`, block partials combined on the host",
    target_reduce_blocks, enter_reduce_blocks, exit_reduce_blocks)};

}  // namespace
}  // namespace ompref::mesh
