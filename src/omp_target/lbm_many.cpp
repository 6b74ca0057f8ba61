// lbm on the device, many-to-one: the third kernel style of the SYCL port by
// Ding et al. 2023, where a work-item updates a block of cells. Like
// target_shaped, a step from target_basic (src/omp_target/lbm.cpp), shown by
// `diff src/omp_target/lbm.cpp src/omp_target/lbm_many.cpp`: collapse(3)
// runs over blocks of BX x BY x BZ cells (--block) instead of cells, and a
// thread walks its block x fastest. Blocks along y or z keep a warp's reads
// consecutive in x; blocks along x spread them (BX doubles apart). The cell
// arithmetic is unchanged.
#include <algorithm>
#include <cstdint>

#include "common/lbm/lbm.hpp"
#include "common/lbm/lbm_data.hpp"
#include "common/lbm/lbm_items.hpp"
#include "common/registry.hpp"

namespace ompref::lbm {

namespace {

// rho, u and psi of every cell (solid cells: the walls' fixed density).
void calculate_phi(LbmInstance& s, RunContext& ctx) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const int bx = s.p.block[0], by = s.p.block[1], bz = s.p.block[2];
  const int nbx = (g.nx + bx - 1) / bx, nby = (g.ny + by - 1) / by, nbz = (g.nz + bz - 1) / bz;
  const long stride = g.stride;
  const double* f = s.current();
  const std::uint8_t* solid = s.solid.data();
  double *rho = s.rho.data(), *ux = s.ux.data(), *uy = s.uy.data(), *uz = s.uz.data(), *psi = s.psi.data();
  const int dev = ctx.device;
#pragma omp target teams distribute parallel for collapse(3) firstprivate(c, g) device(dev) \
    map(alloc : f[0:Q * stride], solid[0:stride], rho[0:stride], ux[0:stride], uy[0:stride], uz[0:stride], \
        psi[0:stride])
  for (int Z = 0; Z < nbz; ++Z)
    for (int Y = 0; Y < nby; ++Y)
      for (int X = 0; X < nbx; ++X)
        for (int z = Z * bz; z < std::min(Z * bz + bz, g.nz); ++z)
          for (int y = Y * by; y < std::min(Y * by + by, g.ny); ++y)
            for (int x = X * bx; x < std::min(X * bx + bx, g.nx); ++x)
              phi_item(c, g, f, solid, rho, ux, uy, uz, psi, x, y, z);
  ctx.clock.lap("calculate_phi");
}

// Force, collision and push of every fluid cell into the next lattice.
void calculate_fn(LbmInstance& s, RunContext& ctx) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const int bx = s.p.block[0], by = s.p.block[1], bz = s.p.block[2];
  const int nbx = (g.nx + bx - 1) / bx, nby = (g.ny + by - 1) / by, nbz = (g.nz + bz - 1) / bz;
  const long stride = g.stride;
  const double* f = s.current();
  double* out = s.next();
  const std::uint8_t* solid = s.solid.data();
  const double *rho = s.rho.data(), *ux = s.ux.data(), *uy = s.uy.data(), *uz = s.uz.data(), *psi = s.psi.data();
  const int dev = ctx.device;
#pragma omp target teams distribute parallel for collapse(3) firstprivate(c, g) device(dev) \
    map(alloc : f[0:Q * stride], out[0:Q * stride], solid[0:stride], rho[0:stride], ux[0:stride], uy[0:stride], \
        uz[0:stride], psi[0:stride])
  for (int Z = 0; Z < nbz; ++Z)
    for (int Y = 0; Y < nby; ++Y)
      for (int X = 0; X < nbx; ++X)
        for (int z = Z * bz; z < std::min(Z * bz + bz, g.nz); ++z)
          for (int y = Y * by; y < std::min(Y * by + by, g.ny); ++y)
            for (int x = X * bx; x < std::min(X * bx + bx, g.nx); ++x)
              fn_item(c, g, f, out, solid, rho, ux, uy, uz, psi, x, y, z);
  ctx.clock.lap("calculate_fn");
}

// Half-way bounce-back at every solid cell.
void update_boundary(LbmInstance& s, RunContext& ctx) {
  const Grid g = s.grid;
  const int bx = s.p.block[0], by = s.p.block[1], bz = s.p.block[2];
  const int nbx = (g.nx + bx - 1) / bx, nby = (g.ny + by - 1) / by, nbz = (g.nz + bz - 1) / bz;
  double* out = s.next();
  const std::uint8_t* solid = s.solid.data();
  const int dev = ctx.device;
#pragma omp target teams distribute parallel for collapse(3) firstprivate(g) device(dev) \
    map(alloc : out[0:Q * g.stride], solid[0:g.stride])
  for (int Z = 0; Z < nbz; ++Z)
    for (int Y = 0; Y < nby; ++Y)
      for (int X = 0; X < nbx; ++X)
        for (int z = Z * bz; z < std::min(Z * bz + bz, g.nz); ++z)
          for (int y = Y * by; y < std::min(Y * by + by, g.ny); ++y)
            for (int x = X * bx; x < std::min(X * bx + bx, g.nx); ++x) boundary_item(g, solid, out, x, y, z);
  ctx.clock.lap("update_boundary");
}

void target_many(LbmInstance& s, RunContext& ctx) {
  // The arrays stay on the device for the whole time loop: the runner
  // entered them (device_data() of lbm.cpp) before the clock started; the
  // data region of target_basic (src/omp_target/lbm.cpp) is the lesson.
  for (int step = 0; step < s.p.steps; ++step) {
    calculate_phi(s, ctx);
    calculate_fn(s, ctx);
    update_boundary(s, ctx);
    s.swap();
  }
}

const Registration target_many_registration{target_variant(
    "lbm", "target_many", "many-to-one: each thread updates a BX x BY x BZ block of cells (--block)", target_many,
    device_data).follows("target_basic").reading({"--block"})
        .uses({"target teams distribute parallel for", "collapse", "declare target", "map(alloc)"})};

}  // namespace
}  // namespace ompref::lbm
