// lbm on the device: openLBMflow's three passes per time step (calculate_phi,
// calculate_fn, update_boundary) as `target teams distribute parallel for
// collapse(3)` loops, the launch shape left to the runtime: the basic kernel
// of the SYCL port by Ding et al. 2023. The port of src/omp_host/lbm.cpp: the
// same program, differing only in directives, the device argument and the
// data mapping (`diff src/omp_host/lbm.cpp src/omp_target/lbm.cpp`). The
// cell arithmetic is common/lbm/lbm_cell.hpp, each pass's loop item
// common/lbm/lbm_items.hpp (declare target), shared with the host variants.
//
// The further steps are files of their own, each opening with its diff
// against the step it follows (`ompref list --json`: step_of; docs/lbm.md's table).
#include <cstdint>

#include "common/lbm/lbm.hpp"
#include "common/lbm/lbm_data.hpp"
#include "common/lbm/lbm_items.hpp"
#include "common/registry.hpp"

namespace ompref::lbm {

// Both lattices, the fields and the mask are on the device once, before
// timing (the runner enters this declaration); the kernels name them with
// map(alloc:), which finds them present. Nothing moves per step: swapping
// the lattices swaps two host pointers whose device copies are both present.
// The current lattice and the mask are copied in. The next lattice and the
// fields, which a step writes before it reads them, are scratch: poisoned on
// the device, not copied (at the paper size 12.7 GB the link does not carry
// per variant). After timing the current lattice comes back for validation.
// Every lbm target variant uses this declaration.
DeviceData device_data(LbmInstance& s) {
  const long lattice = Q * s.grid.stride;
  return DeviceData().out(s.current(), lattice).scratch(s.next(), lattice)
      .scratch(s.rho).scratch(s.ux).scratch(s.uy).scratch(s.uz).scratch(s.psi).in(s.solid);
}

// The variants that stream in place (lbm_inplace.cpp and its CUDA twin) use
// one lattice, the current one, which comes back; psi (scratch) and the
// mask. Half the device memory of the declaration above.
DeviceData device_data_in_place(LbmInstance& s) {
  return DeviceData().out(s.current(), Q * s.grid.stride).scratch(s.psi).in(s.solid);
}

namespace {

// mirror: begin
// rho, u and psi of every cell (solid cells: the walls' fixed density).
void calculate_phi(LbmInstance& s, RunContext& ctx) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const double* f = s.current();
  const std::uint8_t* solid = s.solid.data();
  double *rho = s.rho.data(), *ux = s.ux.data(), *uy = s.uy.data(), *uz = s.uz.data(), *psi = s.psi.data();
  const int dev = ctx.device;
#pragma omp target teams distribute parallel for collapse(3) firstprivate(c, g) device(dev) \
    map(alloc : f[0:Q * g.stride], solid[0:g.stride], rho[0:g.stride], ux[0:g.stride], uy[0:g.stride], \
        uz[0:g.stride], psi[0:g.stride])
  for (int z = 0; z < g.nz; ++z)
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x)
        phi_item(c, g, f, solid, rho, ux, uy, uz, psi, x, y, z);
  ctx.clock.lap("calculate_phi");
}

// Force, collision and push of every fluid cell into the next lattice.
void calculate_fn(LbmInstance& s, RunContext& ctx) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const double* f = s.current();
  double* out = s.next();
  const std::uint8_t* solid = s.solid.data();
  const double *rho = s.rho.data(), *ux = s.ux.data(), *uy = s.uy.data(), *uz = s.uz.data(), *psi = s.psi.data();
  const int dev = ctx.device;
#pragma omp target teams distribute parallel for collapse(3) firstprivate(c, g) device(dev) \
    map(alloc : f[0:Q * g.stride], out[0:Q * g.stride], solid[0:g.stride], rho[0:g.stride], ux[0:g.stride], \
        uy[0:g.stride], uz[0:g.stride], psi[0:g.stride])
  for (int z = 0; z < g.nz; ++z)
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) fn_item(c, g, f, out, solid, rho, ux, uy, uz, psi, x, y, z);
  ctx.clock.lap("calculate_fn");
}

// Half-way bounce-back at every solid cell.
void update_boundary(LbmInstance& s, RunContext& ctx) {
  const Grid g = s.grid;
  double* out = s.next();
  const std::uint8_t* solid = s.solid.data();
  const int dev = ctx.device;
#pragma omp target teams distribute parallel for collapse(3) firstprivate(g) device(dev) \
    map(alloc : out[0:Q * g.stride], solid[0:g.stride])
  for (int z = 0; z < g.nz; ++z)
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) boundary_item(g, solid, out, x, y, z);
  ctx.clock.lap("update_boundary");
}

void target_basic(LbmInstance& s, RunContext& ctx) {
  // The data lesson: one data region around the time loop, not one per
  // kernel (the kernels' map(alloc:) find the arrays present and copy
  // nothing; OpenMP 5.1's `present` modifier would make an absent one an
  // error, but g++-12 rejects it). In this suite the runner has already
  // entered the same arrays (device_data() above, before the clock starts),
  // so this `enter data` counts one more reference and moves nothing.
  [[maybe_unused]] const long lattice = Q * s.grid.stride, cells = s.grid.stride;
  [[maybe_unused]] double *f = s.current(), *out = s.next();
  [[maybe_unused]] double *rho = s.rho.data(), *ux = s.ux.data(), *uy = s.uy.data(), *uz = s.uz.data(),
                          *psi = s.psi.data();
  [[maybe_unused]] const std::uint8_t* solid = s.solid.data();
  const int dev = ctx.device;
#pragma omp target enter data device(dev) map(to : f[0:lattice], out[0:lattice], solid[0:cells], rho[0:cells], \
                                                   ux[0:cells], uy[0:cells], uz[0:cells], psi[0:cells])
  for (int step = 0; step < s.p.steps; ++step) {
    calculate_phi(s, ctx);
    calculate_fn(s, ctx);
    update_boundary(s, ctx);
    s.swap();
  }
  // Both lattices come home when the last reference goes (the runner's,
  // after the clock stops): the swaps only exchanged two host pointers.
#pragma omp target exit data device(dev) map(from : f[0:lattice], out[0:lattice]) \
    map(release : solid[0:cells], rho[0:cells], ux[0:cells], uy[0:cells], uz[0:cells], psi[0:cells])
}
// mirror: end

const Registration target_basic_registration{target_variant(
    "lbm", "target_basic",
    "the paper's basic kernel: `target teams distribute parallel for collapse(3)` per pass, shape left to the runtime",
    target_basic, device_data).mirror_of("host_basic")
        .uses({"target teams distribute parallel for", "collapse", "declare target", "target enter/exit data",
               "map(alloc)"})};

}  // namespace
}  // namespace ompref::lbm
