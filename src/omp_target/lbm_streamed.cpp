// lbm on the device, streamed: target_lean's two passes with the collision
// pass's thread holding only sums. The step from target_lean
// (src/omp_target/lbm_lean.cpp), shown by
// `diff src/omp_target/lbm_lean.cpp src/omp_target/lbm_streamed.cpp`:
// - the collision pass calls fn_push_bounce_streamed
//   (src/common/lbm/lbm_cell.hpp): the populations are read twice (for the
//   moments, then for the collision: the second read comes from the cache),
//   and each neighbour's index, psi and flag are read when its direction
//   comes, so that no 19-value array stays live across the directions;
// - f and out lose `__restrict`: a store into out may then alias f, so the
//   compiler reads the populations again for the collision instead of
//   keeping all 19 in registers from the first read.
// target_lean's collision pass was register-bound; this one offers cache
// reads for resident warps instead. The arithmetic and the values are
// target_fused's. clang-19 keeps the pass's registers where nvcc lowers them
// for the same cell function (native_streamed): the trade pays in CUDA, not
// through clang-19's register allocation (the measurements: docs/lbm.md and
// docs/log/lbm.md). A step kept for that lesson.
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
  const double* f = s.current();
  double* out = s.next();
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
        fn_push_bounce_streamed(c, g, f, out, solid, psi, x, y, z, k);
      }
  ctx.clock.lap("calculate_fn");
}

void target_streamed(LbmInstance& s, RunContext& ctx) {
  // The arrays stay on the device for the whole time loop: the runner
  // entered them (device_data() of lbm.cpp) before the clock started; the
  // data region of target_basic (src/omp_target/lbm.cpp) is the lesson.
  for (int step = 0; step < s.p.steps; ++step) {
    calculate_phi(s, ctx);
    calculate_fn(s, ctx);
    s.swap();
  }
}

const Registration target_streamed_registration{
    target_variant("lbm", "target_streamed",
                   "target_lean with a collision pass that keeps only sums live: populations read twice, each "
                   "neighbour's psi and flag read when its direction comes",
                   target_streamed, device_data)
        .for_kernel("streamed").follows("target_lean")
        .uses({"target teams distribute parallel for", "collapse", "declare target", "map(alloc)"})};

}  // namespace
}  // namespace ompref::lbm
