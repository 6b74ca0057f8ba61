// lbm on the device, in place: target_lean's two passes on one lattice. The
// step from target_lean (src/omp_target/lbm_lean.cpp), shown by
// `diff src/omp_target/lbm_lean.cpp src/omp_target/lbm_inplace.cpp`:
// - the collision pass writes the populations back into the lattice it read
//   (fn_push_bounce_in_place, src/common/lbm/lbm_cell.hpp), in the AA
//   pattern: after an even step a population sits in its cell's slot of the
//   opposite direction, after an odd step in the standard slot of the cell
//   it streamed to. Each cell's thread writes exactly the 19 slots it read,
//   so no second lattice is needed and no thread overwrites another's input;
// - the two parities are two instantiations of each pass (the slots are
//   constants in each), alternating step by step; after an odd number of
//   steps to_standard puts the state back in the standard layout, the one
//   validated and the next repetition starts from (every size's step count
//   is even: there it does not run);
// - the device data is one lattice, psi and the mask (device_data_in_place):
//   the second lattice and the fields rho, u of the other variants are not on
//   the device (at 512x512x512, 21.6 GB instead of 46.3 GB).
// The AA pattern rather than the esoteric pull (Lehmann 2022), which moves
// the same bytes: in the AA pattern an even step is local to the cell, every
// load and store at the cell's own index, the accesses of a warp aligned;
// only odd steps reach the neighbours. Bounce-back stays the push's, the
// population's slot chosen by the wall flag, so the arithmetic and the
// values are target_fused's (bit for bit where the host runs the kernels).
// The bytes stay the model's 59 doubles a cell a step (lbm.hpp): Shan-Chen's
// force needs the neighbours' psi of the step before any cell collides, so
// psi keeps its pass over the 19 populations, and the collision pass still
// reads and writes 19; what halves is the memory, so a lattice of twice the
// cells fits a device.
#include <cstdint>

#include "common/lbm/lbm.hpp"
#include "common/lbm/lbm_data.hpp"
#include "common/lbm/lbm_items.hpp"
#include "common/registry.hpp"
#include "common/team_bounds.hpp"

namespace ompref::lbm {

namespace {

// psi of every cell (solid cells: the walls' fixed density), the lattice in
// the form it has after an even (Odd false) or odd number of steps.
template <bool Odd>
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
      for (int x = 0; x < g.nx; ++x) {
        const int k = cell_at<int>(g, x, y, z);
        int nb[Q];
        neighbour_indices(g, x, y, z, nb);
        psi[k] = psi_cell_in_place<Odd>(c, f, stride, solid, k, nb);
      }
  ctx.clock.lap("calculate_phi");
}

// Force, collision, push and bounce-back of every fluid cell, in place.
template <bool Odd>
void calculate_fn(LbmInstance& s, RunContext& ctx) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const long stride = g.stride;
  double* f = s.current();
  const std::uint8_t* __restrict solid = s.solid.data();
  const double* __restrict psi = s.psi.data();
  const int dev = ctx.device;
  // Compiled for teams of at most 384 threads (.maxntid 384): ptxas then keeps
  // the pass within 168 registers a thread (unbounded: 194 and 236), 12 warps a
  // multiprocessor instead of 8, with no spills (docs/lbm.md).
#pragma omp target teams distribute parallel for collapse(3) firstprivate(c, g) device(dev) \
    OMPREF_MAX_TEAM_THREADS(384) map(alloc : f[0:Q * stride], solid[0:stride], psi[0:stride])
  for (int z = 0; z < g.nz; ++z)
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) {
        const int k = cell_at<int>(g, x, y, z);
        if (solid[k]) continue;
        int nb[Q];
        neighbour_indices(g, x, y, z, nb);
        fn_push_bounce_in_place<Odd>(c, f, stride, solid, psi, k, nb);
      }
  ctx.clock.lap("calculate_fn");
}

// After an odd number of steps: the standard layout again, nine exchanges a cell.
void to_standard(LbmInstance& s, RunContext& ctx) {
  const Grid g = s.grid;
  const long stride = g.stride;
  double* f = s.current();
  const int dev = ctx.device;
#pragma omp target teams distribute parallel for collapse(3) firstprivate(g) device(dev) map(alloc : f[0:Q * stride])
  for (int z = 0; z < g.nz; ++z)
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) {
        const int k = cell_at<int>(g, x, y, z);
        int nb[Q];
        neighbour_indices(g, x, y, z, nb);
        aa_to_standard(f, stride, k, nb);
      }
  ctx.clock.lap("to_standard");
}

void target_inplace(LbmInstance& s, RunContext& ctx) {
  // The arrays are on the device already (the runner entered
  // device_data_in_place() of lbm.cpp before the clock started); the
  // kernels' map(alloc:) find them present.
  for (int step = 0; step < s.p.steps; ++step) {
    if (step % 2 == 0) {
      calculate_phi<false>(s, ctx);
      calculate_fn<false>(s, ctx);
    } else {
      calculate_phi<true>(s, ctx);
      calculate_fn<true>(s, ctx);
    }
  }
  if (s.p.steps % 2 != 0) to_standard(s, ctx);
}

const Registration target_inplace_registration{target_variant(
    "lbm", "target_inplace",
    "target_lean's two passes on one lattice updated in place (the AA pattern: even steps read and write a cell's "
    "own slots, odd steps its neighbours'): half the device memory, the same bytes a step",
    target_inplace, device_data_in_place).for_kernel("inplace").follows("target_lean")
        .uses({"target teams distribute parallel for", "collapse", "declare target", "map(alloc)"})};

}  // namespace
}  // namespace ompref::lbm
