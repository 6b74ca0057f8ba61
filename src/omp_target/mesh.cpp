// mesh on the device: GMlib's access patterns as `target teams distribute
// parallel for` loops over an entity (vertices or tetrahedra), one thread per
// entity. The port of src/omp_host/mesh.cpp: the same program, differing only
// in directives, the device argument and the data mapping
// (`diff src/omp_host/mesh.cpp src/omp_target/mesh.cpp`). The per-element
// arithmetic is in common/mesh/mesh_element.hpp and each loop's item in
// common/mesh/mesh_items.hpp (declare target), called by both.
//
// Each kernel's device data is its row of the kernel table
// (common/mesh/mesh_kernels.cpp: the arrays it reads, its outputs, its
// variants' scratch): a registration names its kernel
// (common/mesh/mesh_variant.hpp), and kernel_data turns that row into the
// DeviceData the runner maps before timing (outputs too, NaN-poisoned by
// reset(), so that an element a kernel fails to write comes back NaN) and
// unmaps after (outputs come back, the rest is released);
// the kernels below name the same arrays with map(alloc:), which finds them
// present and moves nothing.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "common/mesh/mesh.hpp"
#include "common/mesh/mesh_element.hpp"
#include "common/mesh/mesh_items.hpp"
#include "common/mesh/mesh_variant.hpp"
#include "common/registry.hpp"

namespace ompref::mesh {
namespace {

// mirror: begin
// Direct: loop over vertices, read and write the vertex's own data.
void target_direct(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int64_t n = 3 * m.nv;
  double* pos = m.output("pos").data();
  const double* vel = m.vel.data();
  const double dt = direct_dt;
  // The data lesson, shown on this first kernel: its arrays go to the device
  // before it runs and come back after. In this suite the runner has already
  // entered them (kernel_data(), before the clock starts), so this `enter
  // data` counts one more reference and moves nothing, and the kernel's
  // map(alloc:) finds them present (OpenMP 5.1's `present` modifier would make
  // an absent one an error, but g++-12 rejects it). The other kernels of this
  // file rely on the runner's data region alone.
#pragma omp target enter data device(dev) map(to : pos[0:n], vel[0:n])
#pragma omp target teams distribute parallel for simd device(dev) map(alloc : pos[0:n], vel[0:n])
  for (std::int64_t i = 0; i < n; ++i) pos[i] = pos[i] + vel[i] * dt;
#pragma omp target exit data device(dev) map(from : pos[0:n]) map(release : vel[0:n])
}

// Downward: loop over tets, read their 4 vertices through tet[].
void target_downward(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int64_t nt = m.nt;
  const std::int32_t* tet = m.tet.data();
  const double* crd = m.crd.data();
  double* volume = m.output("out_volume").data();
  double* centre = m.output("out_centre").data();
#pragma omp target teams distribute parallel for device(dev) \
    map(alloc : tet[0:4 * nt], crd[0:3 * m.nv], volume[0:nt], centre[0:3 * nt])
  for (std::int64_t t = 0; t < nt; ++t) downward_item(tet, crd, volume, centre, t);
}

// Transverse: loop over tets, read their face neighbours' data.
void target_transverse(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int64_t nt = m.nt;
  const std::int32_t* nbr = m.tet_nbr.data();
  const double* centre = m.centre.data();
  double* spread = m.output("spread").data();
#pragma omp target teams distribute parallel for device(dev) map(alloc : nbr[0:4 * nt], centre[0:3 * nt], spread[0:nt])
  for (std::int64_t t = 0; t < nt; ++t) spread[t] = transverse_item(nbr, centre, t);
}

// Upward, CSR: loop over vertices, read the ball between two offsets.
void target_ball_csr(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int64_t nv = m.nv;
  const std::int32_t* offset = m.ball_offset.data();
  const std::int32_t* corner = m.ball_corner.data();
  const double* centre = m.centre.data();
  const double* crd = m.crd.data();
  double* smooth = m.output("smooth").data();
  const double omega = smoothing_omega;
#pragma omp target teams distribute parallel for device(dev) \
    map(alloc : offset[0:nv + 1], corner[0:4 * m.nt], centre[0:3 * m.nt], crd[0:3 * nv], smooth[0:3 * nv])
  for (std::int64_t v = 0; v < nv; ++v) ball_csr_item(offset, corner, centre, crd, smooth, omega, v);
}

// Upward, degree-binned (GMlib): one loop over the rows of all bins; a row
// finds its bin, then reads column j of the bin's matrix at j * rows + row.
void target_ball_binned(MeshInstance& m, RunContext& ctx) {
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
#pragma omp target teams distribute parallel for device(dev)                                      \
    map(alloc : first[0:nb], count[0:nb], offset[0:nb], vertex[0:rows], degree[0:rows],            \
                corner[0:m.bins.corner.size()], centre[0:3 * m.nt], crd[0:3 * m.nv], smooth[0:3 * m.nv])
  for (std::int64_t r = 0; r < rows; ++r)
    ball_binned_item(nb, first, count, offset, vertex, degree, corner, centre, crd, smooth, omega, r);
}

// Indirect write with atomics: loop over tets, add volume / 4 to each vertex.
void target_lumped_atomic(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int64_t nv = m.nv, nt = m.nt;
  const std::int32_t* tet = m.tet.data();
  const double* crd = m.crd.data();
  double* lumped = m.output("lumped").data();
#pragma omp target teams distribute parallel for simd device(dev) map(alloc : lumped[0:nv])
  for (std::int64_t v = 0; v < nv; ++v) lumped[v] = 0;
#pragma omp target teams distribute parallel for device(dev) map(alloc : tet[0:4 * nt], crd[0:3 * nv], lumped[0:nv])
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
void target_lumped_scatter_gather(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  const std::int64_t nv = m.nv, nt = m.nt;
  const std::int32_t* tet = m.tet.data();
  const double* crd = m.crd.data();
  const std::int32_t* offset = m.ball_offset.data();
  const std::int32_t* corner = m.ball_corner.data();
  double* tmp = m.corner_tmp.data();
  double* lumped = m.output("lumped").data();
#pragma omp target teams distribute parallel for device(dev) map(alloc : tet[0:4 * nt], crd[0:3 * nv], tmp[0:4 * nt])
  for (std::int64_t t = 0; t < nt; ++t) scatter_item(tet, crd, tmp, t);
#pragma omp target teams distribute parallel for device(dev) \
    map(alloc : offset[0:nv + 1], corner[0:4 * nt], tmp[0:4 * nt], lumped[0:nv])
  for (std::int64_t v = 0; v < nv; ++v) lumped[v] = gather_item(offset, corner, tmp, v);
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
  for (std::int64_t t = 0; t < nt; ++t) reduce_item(volume[t], quality[t], t, vsum, vmin, vmax, qsum, qmax, qmin);
  m.red = Reductions{vsum, vmin, vmax, qsum, qmax, qmin};
}

// The same reductions in two levels, shaped by hand: reduce_blocks teams of 256
// threads, each team reduces one block of tets with a `parallel for` reduction
// (lanes read consecutive tets: schedule(static, 1)) and writes its partial;
// the partials (48 KiB) come back and are combined in block order on the host.
// No cross-team reduction by the runtime. On the host fallback a league of
// reduce_blocks teams would be as many host threads (libomp: "Cannot form a
// team with 1024 threads"): there one team runs the blocks, its parallel for
// on the host's threads.
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
#pragma omp target teams distribute num_teams(league(ctx.on_device, nb)) thread_limit(256) device(dev) \
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

// mirror: end

const Registration registrations[] = {
    Registration{target_variant("mesh", "target_direct",
                                "direct: x += v dt over the vertices' own fields, a stream over the mesh",
                                target_direct, "direct")
                     .mirror_of("host_direct")
                     .uses({"target teams distribute parallel for", "simd", "declare target", "target enter/exit data",
                            "map(alloc)"})},
    Registration{target_variant("mesh", "target_downward",
                                "downward: each tet reads its 4 vertices through tet[] for its volume and barycentre",
                                target_downward, "downward")
                     .mirror_of("host_downward")
                     .uses({"target teams distribute parallel for", "declare target", "map(alloc)"})},
    Registration{target_variant("mesh", "target_transverse",
                                "transverse: each tet reads its face neighbours' barycentres (largest distance)",
                                target_transverse, "transverse")
                     .mirror_of("host_transverse")
                     .uses({"target teams distribute parallel for", "declare target", "map(alloc)"})},
    Registration{target_variant("mesh", "target_ball_csr",
                                "upward: each vertex averages its ball of tets, ball stored as CSR (offsets + corners)",
                                target_ball_csr, "upward_csr")
                     .mirror_of("host_ball_csr")
                     .uses({"target teams distribute parallel for", "declare target", "map(alloc)"})},
    Registration{target_variant("mesh", "target_lumped_atomic",
                                "indirect write: each tet adds volume/4 to its 4 vertices with `omp atomic`",
                                target_lumped_atomic, "lumped_atomic")
                     .mirror_of("host_lumped_atomic")
                     .uses({"target teams distribute parallel for", "simd", "declare target", "atomic", "map(alloc)"})},
    Registration{target_variant("mesh", "target_reduce",
                                "reductions: sum/min/max and a `declare reduction` for (min quality, its tet)",
                                target_reduce, "reduce")
                     .mirror_of("host_reduce")
                     .uses({"target teams distribute parallel for", "declare target", "declare reduction", "reduction",
                            "struct reduction", "map(alloc)"})},
    Registration{target_variant("mesh", "target_ball_binned",
                                "upward: the same smoothing over GMlib's degree-binned balls (power-of-two padded column-major matrices)",
                                target_ball_binned, "upward_binned")
                     .mirror_of("host_ball_binned")
                     .uses({"target teams distribute parallel for", "declare target", "map(alloc)"})},
    Registration{target_variant("mesh", "target_lumped_scatter_gather",
                                "indirect write as GMlib's scatter/gather pair: per-corner temporaries, then a gather over each vertex ball",
                                target_lumped_scatter_gather, "lumped_scatter_gather")
                     .mirror_of("host_lumped_scatter_gather")
                     .uses({"target teams distribute parallel for", "declare target", "map(alloc)"})},
    Registration{target_variant("mesh", "target_reduce_blocks",
                                "reductions in two levels: a team per block reduces with `parallel for`, block partials combined on the host",
                                target_reduce_blocks, "reduce")
                     .mirror_of("host_reduce_blocks")
                     .uses({"parallel for", "teams distribute", "declare target", "declare reduction", "reduction",
                            "struct reduction", "map(alloc)", "target update", "thread_limit", "num_teams",
                            "schedule"})},
};

}  // namespace
}  // namespace ompref::mesh
