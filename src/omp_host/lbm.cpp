// lbm on the host: openLBMflow's three passes per time step. Compare with
// src/omp_target/lbm.cpp: same functions, same order. The cell arithmetic is
// in common/lbm_cell.hpp, shared with the target variants and the reference.
#include <algorithm>
#include <cstdint>

#include "common/lbm.hpp"
#include "common/registry.hpp"

namespace ompref::lbm {
namespace {

// Host data needs no mapping: LbmInstance::reset() first-touched every array
// in parallel with the static schedule the kernels use.

// ---- host_naive: `parallel for` over the cells, one loop per pass ---------

void naive_phi(LbmInstance& s) {
  const Coeffs c = s.coeffs;
  const long n = s.grid.n, stride = s.grid.stride;
  const double* f = s.f();
  const std::uint8_t* solid = s.solid.data();
  double *rho = s.rho.data(), *ux = s.ux.data(), *uy = s.uy.data(), *uz = s.uz.data(), *psi = s.psi.data();
#pragma omp parallel for schedule(static)
  for (long k = 0; k < n; ++k) phi_cell(c, f, stride, solid, k, rho, ux, uy, uz, psi);
}

// One fluid cell of calculate_fn with its 19 neighbours in nb: force,
// collision, push (stream to x + e_i). host_naive and host_tiled both call it.
[[gnu::always_inline]] inline void fn_push(const Coeffs& c, const double* f, double* out, long stride,
                                           const std::uint8_t* solid, const double* psi, long k, const int (&nb)[Q],
                                           double rho, double ux, double uy, double uz) {
  double fl[Q];
  load_cell(f, stride, k, fl);
  fn_cell(c, solid, psi, k, nb, rho, ux, uy, uz, fl);
  OMPREF_UNROLL
  for (int i = 0; i < Q; ++i) out[i * stride + nb[i]] = fl[i];
}

void naive_fn(LbmInstance& s) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const long stride = g.stride;
  const double* f = s.f();
  double* out = s.g();
  const std::uint8_t* solid = s.solid.data();
  const double *rho = s.rho.data(), *ux = s.ux.data(), *uy = s.uy.data(), *uz = s.uz.data(), *psi = s.psi.data();
#pragma omp parallel for collapse(2) schedule(static)
  for (int z = 0; z < g.nz; ++z)
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) {
        const long k = x + long(g.nx) * (y + long(g.ny) * z);
        if (solid[k]) continue;
        int nb[Q];
        neighbour_indices(g, x, y, z, nb);
        fn_push(c, f, out, stride, solid, psi, k, nb, rho[k], ux[k], uy[k], uz[k]);
      }
}

// Half-way bounce-back: what calculate_fn pushed into a solid cell s from
// the fluid cell s - e_i goes back to that cell as the opposite direction.
void naive_boundary(LbmInstance& s) {
  const Grid g = s.grid;
  const long stride = g.stride;
  double* out = s.g();
  const std::uint8_t* solid = s.solid.data();
#pragma omp parallel for collapse(2) schedule(static)
  for (int z = 0; z < g.nz; ++z)
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) {
        const long k = x + long(g.nx) * (y + long(g.ny) * z);
        if (!solid[k]) continue;
        int nb[Q];
        neighbour_indices(g, x, y, z, nb);
        for (int i = 1; i < Q; ++i) {
          const int from = nb[opp[i]];  // s - e_i
          if (!solid[from]) out[opp[i] * stride + from] = out[i * stride + k];
        }
      }
}

void host_naive(LbmInstance& s, RunContext& ctx) {
  for (int step = 0; step < s.p.steps; ++step) {
    naive_phi(s);
    ctx.clock.lap("calculate_phi");
    naive_fn(s);
    ctx.clock.lap("calculate_fn");
    naive_boundary(s);
    ctx.clock.lap("update_boundary");
    s.swap();
  }
}

// ---- host_tiled: the paper's OpenMP baseline -------------------------------
// Tiles of TX x TY x TZ cells shared among the threads, `omp simd` on the
// innermost (x) loop of each tile: a tile's psi and populations stay in
// cache while its neighbours need them.

void tiled_phi(LbmInstance& s) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const long stride = g.stride;
  const int tx = s.p.tile[0], ty = s.p.tile[1], tz = s.p.tile[2];
  const double* f = s.f();
  const std::uint8_t* solid = s.solid.data();
  double *rho = s.rho.data(), *ux = s.ux.data(), *uy = s.uy.data(), *uz = s.uz.data(), *psi = s.psi.data();
#pragma omp parallel for collapse(3) schedule(static)
  for (int z0 = 0; z0 < g.nz; z0 += tz)
    for (int y0 = 0; y0 < g.ny; y0 += ty)
      for (int x0 = 0; x0 < g.nx; x0 += tx)
        for (int z = z0; z < (z0 + tz < g.nz ? z0 + tz : g.nz); ++z)
          for (int y = y0; y < (y0 + ty < g.ny ? y0 + ty : g.ny); ++y) {
            const long row = long(g.nx) * (y + long(g.ny) * z);
            const int x1 = x0 + tx < g.nx ? x0 + tx : g.nx;
            // Two loops instead of phi_cell: the moments vectorise, the call to
            // exp() would stop them; psi then reads rho back from L1.
#pragma omp simd
            for (int x = x0; x < x1; ++x) moments_cell(c, f, stride, solid, row + x, rho, ux, uy, uz);
            for (int x = x0; x < x1; ++x) psi[row + x] = pseudo_potential(rho[row + x]);
          }
}

// A row segment of the tile: cells on an x face, and segments holding solid
// cells, take the general path (wrapped neighbours, a test per cell); the
// rest, nearly every cell, is a branch-free `omp simd` loop whose neighbours
// are fixed offsets (row_offsets), so its loads and stores are vectors.
void tiled_fn(LbmInstance& s) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const long stride = g.stride;
  const int tx = s.p.tile[0], ty = s.p.tile[1], tz = s.p.tile[2];
  const double* f = s.f();
  double* out = s.g();
  const std::uint8_t* solid = s.solid.data();
  const double *rho = s.rho.data(), *ux = s.ux.data(), *uy = s.uy.data(), *uz = s.uz.data(), *psi = s.psi.data();
#pragma omp parallel for collapse(3) schedule(static)
  for (int z0 = 0; z0 < g.nz; z0 += tz)
    for (int y0 = 0; y0 < g.ny; y0 += ty)
      for (int x0 = 0; x0 < g.nx; x0 += tx)
        for (int z = z0; z < (z0 + tz < g.nz ? z0 + tz : g.nz); ++z)
          for (int y = y0; y < (y0 + ty < g.ny ? y0 + ty : g.ny); ++y) {
            const long row = long(g.nx) * (y + long(g.ny) * z);
            const int x1 = x0 + tx < g.nx ? x0 + tx : g.nx;
            bool any_solid = false;
            for (int x = x0; x < x1; ++x) any_solid |= solid[row + x] != 0;
            const int lo = any_solid ? x1 : (x0 > 1 ? x0 : 1);
            const int hi = any_solid ? x1 : std::max(lo, x1 < g.nx - 1 ? x1 : g.nx - 1);
            const auto general = [&](int x) {
              const long k = row + x;
              if (solid[k]) return;
              int nb[Q];
              neighbour_indices(g, x, y, z, nb);
              fn_push(c, f, out, stride, solid, psi, k, nb, rho[k], ux[k], uy[k], uz[k]);
            };
            for (int x = x0; x < lo; ++x) general(x);
            for (int x = hi; x < x1; ++x) general(x);
            int off[Q];
            row_offsets(g, y, z, off);
#pragma omp simd
            for (int x = lo; x < hi; ++x) {
              const long k = row + x;
              int nb[Q];
              OMPREF_UNROLL
              for (int i = 0; i < Q; ++i) nb[i] = int(k) + off[i];
              fn_push(c, f, out, stride, solid, psi, k, nb, rho[k], ux[k], uy[k], uz[k]);
            }
          }
}

// The bounce-back pass touches only the cells beside walls: nothing to tile;
// rows are shared among the threads as in host_naive.
void tiled_boundary(LbmInstance& s) {
  const Grid g = s.grid;
  const long stride = g.stride;
  double* out = s.g();
  const std::uint8_t* solid = s.solid.data();
#pragma omp parallel for collapse(2) schedule(static)
  for (int z = 0; z < g.nz; ++z)
    for (int y = 0; y < g.ny; ++y) {
      const long row = long(g.nx) * (y + long(g.ny) * z);
      for (int x = 0; x < g.nx; ++x) {
        const long k = row + x;
        if (!solid[k]) continue;
        int nb[Q];
        neighbour_indices(g, x, y, z, nb);
        for (int i = 1; i < Q; ++i) {
          const int from = nb[opp[i]];
          if (!solid[from]) out[opp[i] * stride + from] = out[i * stride + k];
        }
      }
    }
}

void host_tiled(LbmInstance& s, RunContext& ctx) {
  for (int step = 0; step < s.p.steps; ++step) {
    tiled_phi(s);
    ctx.clock.lap("calculate_phi");
    tiled_fn(s);
    ctx.clock.lap("calculate_fn");
    tiled_boundary(s);
    ctx.clock.lap("update_boundary");
    s.swap();
  }
}

const Registration host_naive_registration{host_variant(
    "lbm", "host_naive",
    "openLBMflow's three passes as `parallel for` loops over the cells: the plain host port", host_naive)};
const Registration host_tiled_registration{host_variant(
    "lbm", "host_tiled",
    "the paper's OpenMP baseline: loops tiled TX x TY x TZ (--tile), `omp simd` on the innermost x loop",
    host_tiled)};

}  // namespace
}  // namespace ompref::lbm
