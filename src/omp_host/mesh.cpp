// mesh on the host: GMlib's access patterns as `parallel for` loops over an
// entity (vertices or tetrahedra). Its offload port is src/omp_target/mesh.cpp:
// the same program, differing only in directives, the device argument and the
// data mapping (`diff src/omp_host/mesh.cpp src/omp_target/mesh.cpp`). The
// per-element arithmetic is in common/mesh/mesh_element.hpp and each loop's
// item in common/mesh/mesh_items.hpp, called by both.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "common/mesh/mesh.hpp"
#include "common/mesh/mesh_element.hpp"
#include "common/mesh/mesh_items.hpp"
#include "common/registry.hpp"

namespace ompref::mesh {
namespace {

// Host data needs no mapping: every array lives in the instance. The kernels
// take the run context as the device side does, unnamed: only the device side
// reads it, for its device number.

// mirror: begin
// Direct: loop over vertices, read and write the vertex's own data.
void host_direct(MeshInstance& m, RunContext&) {
  const std::int64_t n = 3 * m.nv;
  double* pos = m.output("pos").data();
  const double* vel = m.vel.data();
  const double dt = direct_dt;
#pragma omp parallel for simd schedule(static)
  for (std::int64_t i = 0; i < n; ++i) pos[i] = pos[i] + vel[i] * dt;
}

// Downward: loop over tets, read their 4 vertices through tet[].
void host_downward(MeshInstance& m, RunContext&) {
  const std::int64_t nt = m.nt;
  const std::int32_t* tet = m.tet.data();
  const double* crd = m.crd.data();
  double* volume = m.output("out_volume").data();
  double* centre = m.output("out_centre").data();
#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < nt; ++t) downward_item(tet, crd, volume, centre, t);
}

// Transverse: loop over tets, read their face neighbours' data.
void host_transverse(MeshInstance& m, RunContext&) {
  const std::int64_t nt = m.nt;
  const std::int32_t* nbr = m.tet_nbr.data();
  const double* centre = m.centre.data();
  double* spread = m.output("spread").data();
#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < nt; ++t) spread[t] = transverse_item(nbr, centre, t);
}

// Upward, CSR: loop over vertices, read the ball between two offsets.
void host_ball_csr(MeshInstance& m, RunContext&) {
  const std::int64_t nv = m.nv;
  const std::int32_t* offset = m.ball_offset.data();
  const std::int32_t* corner = m.ball_corner.data();
  const double* centre = m.centre.data();
  const double* crd = m.crd.data();
  double* smooth = m.output("smooth").data();
  const double omega = smoothing_omega;
#pragma omp parallel for schedule(static)
  for (std::int64_t v = 0; v < nv; ++v) ball_csr_item(offset, corner, centre, crd, smooth, omega, v);
}

// Upward, degree-binned (GMlib): one loop over the rows of all bins; a row
// finds its bin, then reads column j of the bin's matrix at j * rows + row.
void host_ball_binned(MeshInstance& m, RunContext&) {
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
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r)
    ball_binned_item(nb, first, count, offset, vertex, degree, corner, centre, crd, smooth, omega, r);
}

// Indirect write with atomics: loop over tets, add volume / 4 to each vertex.
void host_lumped_atomic(MeshInstance& m, RunContext&) {
  const std::int64_t nv = m.nv, nt = m.nt;
  const std::int32_t* tet = m.tet.data();
  const double* crd = m.crd.data();
  double* lumped = m.output("lumped").data();
#pragma omp parallel for simd schedule(static)
  for (std::int64_t v = 0; v < nv; ++v) lumped[v] = 0;
#pragma omp parallel for schedule(static)
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
void host_lumped_scatter_gather(MeshInstance& m, RunContext&) {
  const std::int64_t nv = m.nv, nt = m.nt;
  const std::int32_t* tet = m.tet.data();
  const double* crd = m.crd.data();
  const std::int32_t* offset = m.ball_offset.data();
  const std::int32_t* corner = m.ball_corner.data();
  double* tmp = m.corner_tmp.data();
  double* lumped = m.output("lumped").data();
#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < nt; ++t) scatter_item(tet, crd, tmp, t);
#pragma omp parallel for schedule(static)
  for (std::int64_t v = 0; v < nv; ++v) lumped[v] = gather_item(offset, corner, tmp, v);
}

// Reductions: sum, min, max of the volumes, sum and max of the quality, and
// (min quality, its tet) through the user-defined reduction `minloc`.
void host_reduce(MeshInstance& m, RunContext&) {
  const std::int64_t nt = m.nt;
  const double* volume = m.volume.data();
  const double* quality = m.quality.data();
  const double inf = std::numeric_limits<double>::infinity();
  double vsum = 0, vmin = inf, vmax = -inf, qsum = 0, qmax = -inf;
  MinLoc qmin{inf, std::numeric_limits<std::int64_t>::max()};
#pragma omp parallel for schedule(static) reduction(+ : vsum, qsum) reduction(min : vmin) \
    reduction(max : vmax, qmax) reduction(minloc : qmin)
  for (std::int64_t t = 0; t < nt; ++t) reduce_item(volume[t], quality[t], t, vsum, vmin, vmax, qsum, qmax, qmin);
  m.red = Reductions{vsum, vmin, vmax, qsum, qmax, qmin};
}

// The same reductions in two levels, as on the device: the tets cut into
// reduce_blocks blocks, each block reduced by one thread, the block partials
// combined in block order.
void host_reduce_blocks(MeshInstance& m, RunContext&) {
  const std::int64_t nt = m.nt;
  const double* volume = m.volume.data();
  const double* quality = m.quality.data();
  double* part = m.block_partial.data();
  std::int64_t* part_index = m.block_argmin.data();
  const int nb = reduce_blocks;
  const std::int64_t chunk = (nt + nb - 1) / nb;
  const double inf = std::numeric_limits<double>::infinity();
#pragma omp parallel for schedule(static)
  for (int b = 0; b < nb; ++b) {
    const std::int64_t lo = std::min(nt, b * chunk), hi = std::min(nt, lo + chunk);
    double vsum = 0, vmin = inf, vmax = -inf, qsum = 0, qmax = -inf;
    MinLoc qmin{inf, std::numeric_limits<std::int64_t>::max()};
    for (std::int64_t t = lo; t < hi; ++t) reduce_item(volume[t], quality[t], t, vsum, vmin, vmax, qsum, qmax, qmin);
    store_partial(part, part_index, b, Reductions{vsum, vmin, vmax, qsum, qmax, qmin});
  }
  m.red = combine_blocks(part, part_index, nb);
}

// mirror: end

const Registration host_direct_registration{host_variant(
    "mesh", "host_direct", "direct: x += v dt over the vertices' own fields, a stream over the mesh",
    host_direct).for_kernel("direct")
        .uses({"parallel for", "simd", "schedule"})};
const Registration host_downward_registration{host_variant(
    "mesh", "host_downward", "downward: each tet reads its 4 vertices through tet[] for its volume and barycentre",
    host_downward).for_kernel("downward")
        .uses({"parallel for", "schedule"})};
const Registration host_transverse_registration{host_variant(
    "mesh", "host_transverse", "transverse: each tet reads its face neighbours' barycentres (largest distance)",
    host_transverse).for_kernel("transverse")
        .uses({"parallel for", "schedule"})};
const Registration host_ball_csr_registration{host_variant(
    "mesh", "host_ball_csr", "upward: each vertex averages its ball of tets, ball stored as CSR (offsets + corners)",
    host_ball_csr).for_kernel("upward_csr")
        .uses({"parallel for", "schedule"})};
const Registration host_ball_binned_registration{host_variant(
    "mesh", "host_ball_binned",
    "upward: the same smoothing over GMlib's degree-binned balls (power-of-two padded column-major matrices)",
    host_ball_binned).for_kernel("upward_binned")
        .uses({"parallel for", "schedule"})};
const Registration host_lumped_atomic_registration{host_variant(
    "mesh", "host_lumped_atomic", "indirect write: each tet adds volume/4 to its 4 vertices with `omp atomic`",
    host_lumped_atomic).for_kernel("lumped_atomic")
        .uses({"parallel for", "simd", "atomic", "schedule"})};
const Registration host_lumped_scatter_gather_registration{host_variant(
    "mesh", "host_lumped_scatter_gather",
    "indirect write as GMlib's scatter/gather pair: per-corner temporaries, then a gather over each vertex ball",
    host_lumped_scatter_gather).for_kernel("lumped_scatter_gather")
        .uses({"parallel for", "schedule"})};
const Registration host_reduce_registration{host_variant(
    "mesh", "host_reduce", "reductions: sum/min/max and a `declare reduction` for (min quality, its tet)",
    host_reduce).for_kernel("reduce")
        .uses({"parallel for", "declare reduction", "reduction", "struct reduction", "schedule"})};
const Registration host_reduce_blocks_registration{host_variant(
    "mesh", "host_reduce_blocks", "reductions in two levels: one partial per block of tets, combined in block order",
    host_reduce_blocks).for_kernel("reduce")
        .uses({"parallel for", "schedule"})};

}  // namespace
}  // namespace ompref::mesh
