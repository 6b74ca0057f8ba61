// lbm on the device, lean: target_fused's two passes with a lighter thread.
// The step from target_fused (src/omp_target/lbm_fused.cpp), shown by
// `diff src/omp_target/lbm_fused.cpp src/omp_target/lbm_lean.cpp`:
// - the launch is target_basic's, `collapse(3)` over z, y, x with the shape
//   left to the runtime (as fast as every hand-chosen tile: docs/log/lbm.md),
//   and no (tile, cell) decomposition: a thread's cell
//   costs no division by tile sizes;
// - the cell index is 32-bit (make_instance refuses lattices of 2^30 cells
//   or more), the direction arrays' offsets stay 64-bit;
// - the push stores each population as soon as its destination is known
//   (fn_push_bounce_each) instead of computing 19 64-bit destinations first:
//   the collision pass was register-bound (docs/lbm.md: at 19 live
//   populations plus the force its occupancy is limited by registers).
// The arithmetic and the values are target_fused's; the times of both are in
// docs/lbm.md's table.
#include <cstdint>

#include "common/lbm/lbm.hpp"
#include "common/lbm/lbm_data.hpp"
#include "common/lbm/lbm_items.hpp"
#include "common/registry.hpp"

namespace ompref::lbm {

namespace {

// psi of every cell (solid cells: the walls' fixed density).
void calculate_phi(LbmInstance& s, RunContext& ctx) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const long stride = g.stride;
  const double* f = s.current();
  const std::uint8_t* solid = s.solid.data();
  double* psi = s.psi.data();
  const int dev = ctx.device;
#pragma omp target teams distribute parallel for collapse(3) firstprivate(c, g) device(dev) \
    map(alloc : f[0:Q * stride], solid[0:stride], psi[0:stride])
  for (int z = 0; z < g.nz; ++z)
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) psi_item<int>(c, g, f, solid, psi, x, y, z);
  ctx.clock.lap("calculate_phi");
}

// Force, collision, push and bounce-back of every fluid cell into the next lattice.
void calculate_fn(LbmInstance& s, RunContext& ctx) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const long stride = g.stride;
  const double* __restrict f = s.current();
  double* __restrict out = s.next();
  const std::uint8_t* __restrict solid = s.solid.data();
  const double* __restrict psi = s.psi.data();
  const int dev = ctx.device;
#pragma omp target teams distribute parallel for collapse(3) firstprivate(c, g) device(dev) \
    map(alloc : f[0:Q * stride], out[0:Q * stride], solid[0:stride], psi[0:stride])
  for (int z = 0; z < g.nz; ++z)
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) {
        const int k = cell_at<int>(g, x, y, z);
        if (solid[k]) continue;
        int nb[Q];
        neighbour_indices(g, x, y, z, nb);
        fn_push_bounce_each(c, f, out, stride, solid, psi, k, nb);
      }
  ctx.clock.lap("calculate_fn");
}

void target_lean(LbmInstance& s, RunContext& ctx) {
  // The arrays stay on the device for the whole time loop: the runner
  // entered them (device_data() of lbm.cpp) before the clock started; the
  // data region of target_basic (src/omp_target/lbm.cpp) is the lesson.
  for (int step = 0; step < s.p.steps; ++step) {
    calculate_phi(s, ctx);
    calculate_fn(s, ctx);
    s.swap();
  }
}

const Registration target_lean_registration{target_variant(
    "lbm", "target_lean",
    "target_fused's two passes launched as collapse(3), 32-bit cell indices, each population stored as soon as its "
    "destination is known: fewer live registers in the collision pass",
    target_lean, device_data).follows("target_fused")
        .uses({"target teams distribute parallel for", "collapse", "declare target", "map(alloc)"})};

}  // namespace
}  // namespace ompref::lbm
