// lbm on the host: openLBMflow's three passes per time step (calculate_phi,
// calculate_fn, update_boundary) as `parallel for` loops over the cells.
// Its offload port is src/omp_target/lbm.cpp: the same program, differing
// only in directives, the device argument and the data mapping
// (`diff src/omp_host/lbm.cpp src/omp_target/lbm.cpp`). The arithmetic of a
// cell is in common/lbm/lbm_cell.hpp, shared with every variant and the
// reference, each pass's loop item in common/lbm/lbm_items.hpp; the tiled
// host step is src/omp_host/lbm_tiled.cpp.
#include <cstdint>

#include "common/lbm/lbm.hpp"
#include "common/lbm/lbm_items.hpp"
#include "common/registry.hpp"

namespace ompref::lbm {
namespace {

// Host data needs no mapping: LbmInstance::reset() first-touched every array
// in parallel with the static schedule the kernels use.

// mirror: begin
// rho, u and psi of every cell (solid cells: the walls' fixed density).
void calculate_phi(LbmInstance& s, RunContext& ctx) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const double* f = s.current();
  const std::uint8_t* solid = s.solid.data();
  double *rho = s.rho.data(), *ux = s.ux.data(), *uy = s.uy.data(), *uz = s.uz.data(), *psi = s.psi.data();
#pragma omp parallel for collapse(3) schedule(static)
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
#pragma omp parallel for collapse(3) schedule(static)
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
#pragma omp parallel for collapse(3) schedule(static)
  for (int z = 0; z < g.nz; ++z)
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) boundary_item(g, solid, out, x, y, z);
  ctx.clock.lap("update_boundary");
}

void host_basic(LbmInstance& s, RunContext& ctx) {
  // The arrays of the time loop: the device form maps them once around it.
  [[maybe_unused]] const long lattice = Q * s.grid.stride, cells = s.grid.stride;
  [[maybe_unused]] double *f = s.current(), *out = s.next();
  [[maybe_unused]] double *rho = s.rho.data(), *ux = s.ux.data(), *uy = s.uy.data(), *uz = s.uz.data(),
                          *psi = s.psi.data();
  [[maybe_unused]] const std::uint8_t* solid = s.solid.data();
  for (int step = 0; step < s.p.steps; ++step) {
    calculate_phi(s, ctx);
    calculate_fn(s, ctx);
    update_boundary(s, ctx);
    s.swap();
  }
}
// mirror: end

const Registration host_basic_registration{host_variant(
    "lbm", "host_basic",
    "openLBMflow's three passes as `parallel for collapse(3)` loops over the cells: the plain host port", host_basic)
        .uses({"parallel for", "collapse", "schedule"})};

}  // namespace
}  // namespace ompref::lbm
