// lbm on the device, fused: two passes per step instead of three, the
// minimal traffic. The step from target_shaped (src/omp_target/lbm_shaped.cpp),
// shown by `diff src/omp_target/lbm_shaped.cpp src/omp_target/lbm_fused.cpp`:
// calculate_phi writes psi only (rho and u are recomputed from the 19
// populations the collision loads anyway); calculate_fn does force,
// collision, streaming and bounce-back at once (fn_push_bounce: a population
// pushed towards a solid cell is written, reversed, into the cell it came
// from), so update_boundary goes. 59 doubles per cell per step: the bytes
// model. Launched like target_shaped (a team per tile, --fused-shape), the
// shape that measured best.
#include <cstdint>

#include "common/lbm/lbm.hpp"
#include "common/lbm/lbm_data.hpp"
#include "common/lbm/lbm_items.hpp"
#include "common/lbm/lbm_tiling.hpp"
#include "common/registry.hpp"

namespace ompref::lbm {

namespace {

// psi of every cell (solid cells: the walls' fixed density).
void calculate_phi(LbmInstance& s, RunContext& ctx) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const Tiling t = tiling(g, s.p.fused_shape, ctx.on_device);
  const long stride = g.stride, total = t.tiles * t.threads;
  const double* f = s.current();
  const std::uint8_t* solid = s.solid.data();
  double* psi = s.psi.data();
  const int dev = ctx.device;
#pragma omp target teams distribute parallel for firstprivate(c, g, t) device(dev) num_teams(t.teams) \
    thread_limit(t.limit) dist_schedule(static, t.span) schedule(static, t.chunk) \
    map(alloc : f[0:Q * stride], solid[0:stride], psi[0:stride])
  for (long it = 0; it < total; ++it) {
    int x, y, z;
    if (tile_cell(t, g, it, x, y, z)) psi_item<long>(c, g, f, solid, psi, x, y, z);
  }
  ctx.clock.lap("calculate_phi");
}

// Force, collision, push and bounce-back of every fluid cell into the next lattice.
void calculate_fn(LbmInstance& s, RunContext& ctx) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const Tiling t = tiling(g, s.p.fused_shape, ctx.on_device);
  const long stride = g.stride, total = t.tiles * t.threads;
  const double* __restrict f = s.current();
  double* __restrict out = s.next();
  const std::uint8_t* __restrict solid = s.solid.data();
  const double* __restrict psi = s.psi.data();
  const int dev = ctx.device;
#pragma omp target teams distribute parallel for firstprivate(c, g, t) device(dev) num_teams(t.teams) \
    thread_limit(t.limit) dist_schedule(static, t.span) schedule(static, t.chunk) \
    map(alloc : f[0:Q * stride], out[0:Q * stride], solid[0:stride], psi[0:stride])
  for (long it = 0; it < total; ++it) {
    int x, y, z;
    if (tile_cell(t, g, it, x, y, z)) fused_item(c, g, f, out, solid, psi, x, y, z);
  }
  ctx.clock.lap("calculate_fn");
}

void target_fused(LbmInstance& s, RunContext& ctx) {
  // The arrays stay on the device for the whole time loop: the runner
  // entered them (device_data() of lbm.cpp) before the clock started; the
  // data region of target_basic (src/omp_target/lbm.cpp) is the lesson.
  for (int step = 0; step < s.p.steps; ++step) {
    calculate_phi(s, ctx);
    calculate_fn(s, ctx);
    s.swap();
  }
}

const Registration target_fused_registration{target_variant(
    "lbm", "target_fused",
    "two passes instead of three: psi alone, then force + collision + streaming + bounce-back, rho and u recomputed",
    target_fused, device_data)
        .for_kernel("fused").follows("target_shaped").reading({"--fused-shape"})
        .uses({"target teams distribute parallel for", "declare target", "map(alloc)",
               "thread_limit", "num_teams", "schedule"})};  // the kernel tag its CUDA twin native_fused (src/native_cuda/lbm.cu) shares

}  // namespace
}  // namespace ompref::lbm
