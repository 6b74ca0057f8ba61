// lbm on the host, tiled: the OpenMP baseline of the SYCL port by Ding et al.
// 2023. The step from host_basic (src/omp_host/lbm.cpp), shown by
// `diff src/omp_host/lbm.cpp src/omp_host/lbm_tiled.cpp`: the loops of
// calculate_phi and calculate_fn run over tiles of TX x TY x TZ cells
// (--tile) shared among the threads, with `omp simd` on the innermost x loop
// of each tile, so that a tile's psi and populations stay in cache while its
// neighbours need them. update_boundary stays host_basic's. Same arithmetic
// in the same order: the populations equal host_basic's bit for bit.
#include <algorithm>
#include <cstdint>

#include "common/lbm/lbm.hpp"
#include "common/lbm/lbm_items.hpp"
#include "common/registry.hpp"

namespace ompref::lbm {
namespace {

// The tiles of TX x TY x TZ cells (--tile), shared among the threads:
// segment(y, z, row, x0, x1) for each tile's row segment [x0, x1) at (y, z),
// row the index of cell (0, y, z).
template <class Segment>
void for_each_tile_row(const Grid& g, const Shape& tile, Segment segment) {
  const int tx = tile[0], ty = tile[1], tz = tile[2];
#pragma omp parallel for collapse(3) schedule(static)
  for (int z0 = 0; z0 < g.nz; z0 += tz)
    for (int y0 = 0; y0 < g.ny; y0 += ty)
      for (int x0 = 0; x0 < g.nx; x0 += tx)
        for (int z = z0; z < (z0 + tz < g.nz ? z0 + tz : g.nz); ++z)
          for (int y = y0; y < (y0 + ty < g.ny ? y0 + ty : g.ny); ++y)
            segment(y, z, long(g.nx) * (y + long(g.ny) * z), x0, x0 + tx < g.nx ? x0 + tx : g.nx);
}

// rho, u and psi of every cell, tile by tile. Two loops per row instead of
// phi_cell: the moments vectorise, the call to exp() would stop them; psi
// then reads rho back from L1.
void calculate_phi(LbmInstance& s, RunContext& ctx) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const Shape& tile = s.p.tile;
  const double* f = s.current();
  const std::uint8_t* solid = s.solid.data();
  double *rho = s.rho.data(), *ux = s.ux.data(), *uy = s.uy.data(), *uz = s.uz.data(), *psi = s.psi.data();
  for_each_tile_row(g, tile, [&](int, int, long row, int x0, int x1) {
#pragma omp simd
    for (int x = x0; x < x1; ++x) moments_cell(c, f, g.stride, solid, row + x, rho, ux, uy, uz);
    for (int x = x0; x < x1; ++x) psi[row + x] = pseudo_potential(rho[row + x]);
  });
  ctx.clock.lap("calculate_phi");
}

// Force, collision and push of every fluid cell, tile by tile. In a row
// segment of the tile, cells on an x face, and segments holding solid cells,
// take the general path (wrapped neighbours, a test per cell); the rest,
// nearly every cell, is a branch-free `omp simd` loop whose neighbours are
// fixed offsets (row_offsets), so its loads and stores are vectors.
void calculate_fn(LbmInstance& s, RunContext& ctx) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const long stride = g.stride;
  const Shape& tile = s.p.tile;
  const double* f = s.current();
  double* out = s.next();
  const std::uint8_t* solid = s.solid.data();
  const double *rho = s.rho.data(), *ux = s.ux.data(), *uy = s.uy.data(), *uz = s.uz.data(), *psi = s.psi.data();
  for_each_tile_row(g, tile, [&](int y, int z, long row, int x0, int x1) {
    bool any_solid = false;
    for (int x = x0; x < x1; ++x) any_solid |= solid[row + x] != 0;
    const int lo = any_solid ? x1 : (x0 > 1 ? x0 : 1);
    const int hi = any_solid ? x1 : std::max(lo, x1 < g.nx - 1 ? x1 : g.nx - 1);
    for (int x = x0; x < lo; ++x) fn_item(c, g, f, out, solid, rho, ux, uy, uz, psi, x, y, z);
    for (int x = hi; x < x1; ++x) fn_item(c, g, f, out, solid, rho, ux, uy, uz, psi, x, y, z);
    int off[Q];
    row_offsets(g, y, z, off);
#pragma omp simd
    for (int x = lo; x < hi; ++x) {
      const long k = row + x;
      int nb[Q];
#pragma GCC unroll 19
      for (int i = 0; i < Q; ++i) nb[i] = int(k) + off[i];
      fn_push(c, f, out, stride, solid, psi, k, nb, rho[k], ux[k], uy[k], uz[k]);
    }
  });
  ctx.clock.lap("calculate_fn");
}

// Half-way bounce-back at every solid cell: it touches only the cells beside
// walls, nothing to tile; host_basic's loop.
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

void host_tiled(LbmInstance& s, RunContext& ctx) {
  for (int step = 0; step < s.p.steps; ++step) {
    calculate_phi(s, ctx);
    calculate_fn(s, ctx);
    update_boundary(s, ctx);
    s.swap();
  }
}

const Registration host_tiled_registration{host_variant(
    "lbm", "host_tiled",
    "the paper's OpenMP baseline: loops tiled TX x TY x TZ (--tile), `omp simd` on the innermost x loop",
    host_tiled).follows("host_basic").reading({"--tile"})
        .uses({"parallel for", "simd", "collapse", "schedule"})};

}  // namespace
}  // namespace ompref::lbm
