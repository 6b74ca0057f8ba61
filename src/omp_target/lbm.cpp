// lbm on the device: openLBMflow's passes as target regions. Compare with
// src/omp_host/lbm.cpp: same functions, same order. The cell arithmetic is
// in common/lbm_cell.hpp (declare target), shared with the host variants.
//
// The paper's three SYCL kernel styles become three launch shapes of the same
// loops: target_basic (the runtime picks the shape), target_shaped (a team is
// a tile of cells: the ND-range kernel), target_many (a thread updates a
// block of cells: many-to-one); target_fused then cuts the passes to two.
#include <algorithm>
#include <cstdint>

#include <omp.h>

#include "common/device.hpp"
#include "common/lbm.hpp"
#include "common/registry.hpp"

namespace ompref::lbm {
namespace {

// Both lattices, the fields and the mask go to the device once, before
// timing; kernels name them with map(alloc:), which finds them present.
// Nothing moves per step: swapping the lattices swaps two host pointers
// whose device copies are both present.
void enter_data(LbmInstance& s, RunContext& ctx) {
  const long len = s.grid.stride, lat = len * Q;
  [[maybe_unused]] double* f0 = s.lat[0].data();  // unused where target pragmas compile away
  [[maybe_unused]] double* f1 = s.lat[1].data();
  [[maybe_unused]] double* rho = s.rho.data();
  [[maybe_unused]] double* ux = s.ux.data();
  [[maybe_unused]] double* uy = s.uy.data();
  [[maybe_unused]] double* uz = s.uz.data();
  [[maybe_unused]] double* psi = s.psi.data();
  [[maybe_unused]] std::uint8_t* solid = s.solid.data();
#pragma omp target enter data device(ctx.device) \
    map(to : f0[0:lat], f1[0:lat], rho[0:len], ux[0:len], uy[0:len], uz[0:len], psi[0:len], solid[0:len])
  s.on_device = target_runs_on_device(ctx.device);
}

// The current lattice comes back for validation; the rest is released.
void exit_data(LbmInstance& s, RunContext& ctx) {
  const long len = s.grid.stride, lat = len * Q;
  [[maybe_unused]] double* fc = s.f();
  [[maybe_unused]] double* fo = s.g();
  [[maybe_unused]] double* rho = s.rho.data();
  [[maybe_unused]] double* ux = s.ux.data();
  [[maybe_unused]] double* uy = s.uy.data();
  [[maybe_unused]] double* uz = s.uz.data();
  [[maybe_unused]] double* psi = s.psi.data();
  [[maybe_unused]] std::uint8_t* solid = s.solid.data();
#pragma omp target exit data device(ctx.device) map(from : fc[0:lat]) \
    map(release : fo[0:lat], rho[0:len], ux[0:len], uy[0:len], uz[0:len], psi[0:len], solid[0:len])
  s.on_device = false;
}

// The device pointers every pass names (host addresses; map(alloc:) finds them).
struct Arrays {
  long len, lat;
  const double* f;
  double* out;
  double *rho, *ux, *uy, *uz, *psi;
  const std::uint8_t* solid;
};
Arrays arrays(LbmInstance& s) {
  return {s.grid.stride, s.grid.stride * Q, s.f(), s.g(), s.rho.data(), s.ux.data(),
          s.uy.data(), s.uz.data(), s.psi.data(), s.solid.data()};
}

// ---- target_basic: collapse(3), launch shape left to the runtime ----------

void basic_phi(LbmInstance& s, int dev) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const Arrays a = arrays(s);
  const long len = a.len, lat = a.lat, stride = g.stride;
  const double* f = a.f;
  const std::uint8_t* solid = a.solid;
  double *rho = a.rho, *ux = a.ux, *uy = a.uy, *uz = a.uz, *psi = a.psi;
#pragma omp target teams distribute parallel for firstprivate(c, g) collapse(3) device(dev) \
    map(alloc : f[0:lat], solid[0:len], rho[0:len], ux[0:len], uy[0:len], uz[0:len], psi[0:len])
  for (int z = 0; z < g.nz; ++z)
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x)
        phi_cell(c, f, stride, solid, x + long(g.nx) * (y + long(g.ny) * z), rho, ux, uy, uz, psi);
}

void basic_fn(LbmInstance& s, int dev) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const Arrays a = arrays(s);
  const long len = a.len, lat = a.lat, stride = g.stride;
  const double* f = a.f;
  double* out = a.out;
  const std::uint8_t* solid = a.solid;
  const double *rho = a.rho, *ux = a.ux, *uy = a.uy, *uz = a.uz, *psi = a.psi;
#pragma omp target teams distribute parallel for firstprivate(c, g) collapse(3) device(dev) \
    map(alloc : f[0:lat], out[0:lat], solid[0:len], rho[0:len], ux[0:len], uy[0:len], uz[0:len], psi[0:len])
  for (int z = 0; z < g.nz; ++z)
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) {
        const long k = x + long(g.nx) * (y + long(g.ny) * z);
        if (solid[k]) continue;
        int nb[Q];
        neighbour_indices(g, x, y, z, nb);
        double fl[Q];
        load_cell(f, stride, k, fl);
        fn_cell(c, solid, psi, k, nb, rho[k], ux[k], uy[k], uz[k], fl);
        for (int i = 0; i < Q; ++i) out[i * stride + nb[i]] = fl[i];  // push: stream to x + e_i
      }
}

void basic_boundary(LbmInstance& s, int dev) {
  const Grid g = s.grid;
  const Arrays a = arrays(s);
  const long len = a.len, lat = a.lat, stride = g.stride;
  double* out = a.out;
  const std::uint8_t* solid = a.solid;
#pragma omp target teams distribute parallel for firstprivate(g) collapse(3) device(dev) map(alloc : out[0:lat], solid[0:len])
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

void target_basic(LbmInstance& s, RunContext& ctx) {
  for (int step = 0; step < s.p.steps; ++step) {
    basic_phi(s, ctx.device);
    ctx.clock.lap("calculate_phi");
    basic_fn(s, ctx.device);
    ctx.clock.lap("calculate_fn");
    basic_boundary(s, ctx.device);
    ctx.clock.lap("update_boundary");
    s.swap();
  }
}

// ---- target_shaped: a team is a TX x TY x TZ tile (the ND-range kernel) ----
// The loop runs over (tile, cell of the tile) flattened; dist_schedule gives
// each team one tile's worth of iterations, schedule(static, t.chunk) gives its
// threads consecutive cells: x fastest, so a warp reads consecutive doubles.

#pragma omp declare target
struct Tiling {
  int tx, ty, tz, threads, ntx, nty, ntz;
  long tiles;
  int teams;  // one per tile on a device; one on the host fallback
  int limit;  // threads per team: the tile's cells on a device; the host's threads on the fallback
  long chunk; // schedule chunk: 1 on a device (a warp on consecutive x); contiguous shares on the host
  long span;  // dist_schedule chunk: one tile per team on a device; everything at once on the host,
              // where each distribute chunk would open a parallel region of its own
};
// Cell (x, y, z) of iteration `it`; false when the tile sticks out of the lattice.
inline bool tile_cell(const Tiling& t, const Grid& g, long it, int& x, int& y, int& z) {
  const long tile = it / t.threads;
  const int c = int(it - tile * t.threads);
  const int bx = int(tile % t.ntx), by = int(tile / t.ntx % t.nty), bz = int(tile / (long(t.ntx) * t.nty));
  x = bx * t.tx + c % t.tx;
  y = by * t.ty + c / t.tx % t.ty;
  z = bz * t.tz + c / (t.tx * t.ty);
  return x < g.nx && y < g.ny && z < g.nz;
}
#pragma omp end declare target

Tiling tiling(const LbmInstance& s, const int (&shape)[3]) {
  Tiling t;
  t.tx = shape[0];
  t.ty = shape[1];
  t.tz = shape[2];
  t.threads = t.tx * t.ty * t.tz;
  t.ntx = (s.grid.nx + t.tx - 1) / t.tx;
  t.nty = (s.grid.ny + t.ty - 1) / t.ty;
  t.ntz = (s.grid.nz + t.tz - 1) / t.tz;
  t.tiles = long(t.ntx) * t.nty * t.ntz;
  t.teams = s.on_device ? int(std::min<long>(t.tiles, 1L << 30)) : 1;
  t.limit = s.on_device ? t.threads : omp_get_max_threads();
  t.chunk = s.on_device ? 1 : (t.tiles * t.threads + t.limit - 1) / t.limit;
  t.span = s.on_device ? t.threads : t.tiles * t.threads;
  return t;
}

void shaped_phi(LbmInstance& s, int dev) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const Tiling t = tiling(s, s.p.shape);
  const Arrays a = arrays(s);
  const long len = a.len, lat = a.lat, stride = g.stride, total = t.tiles * t.threads;
  const double* f = a.f;
  const std::uint8_t* solid = a.solid;
  double *rho = a.rho, *ux = a.ux, *uy = a.uy, *uz = a.uz, *psi = a.psi;
#pragma omp target teams distribute parallel for firstprivate(c, g, t) device(dev) num_teams(t.teams) thread_limit(t.limit) \
    dist_schedule(static, t.span) schedule(static, t.chunk) \
    map(alloc : f[0:lat], solid[0:len], rho[0:len], ux[0:len], uy[0:len], uz[0:len], psi[0:len])
  for (long it = 0; it < total; ++it) {
    int x, y, z;
    if (!tile_cell(t, g, it, x, y, z)) continue;
    phi_cell(c, f, stride, solid, x + long(g.nx) * (y + long(g.ny) * z), rho, ux, uy, uz, psi);
  }
}

void shaped_fn(LbmInstance& s, int dev) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const Tiling t = tiling(s, s.p.shape);
  const Arrays a = arrays(s);
  const long len = a.len, lat = a.lat, stride = g.stride, total = t.tiles * t.threads;
  const double* f = a.f;
  double* out = a.out;
  const std::uint8_t* solid = a.solid;
  const double *rho = a.rho, *ux = a.ux, *uy = a.uy, *uz = a.uz, *psi = a.psi;
#pragma omp target teams distribute parallel for firstprivate(c, g, t) device(dev) num_teams(t.teams) thread_limit(t.limit) \
    dist_schedule(static, t.span) schedule(static, t.chunk) \
    map(alloc : f[0:lat], out[0:lat], solid[0:len], rho[0:len], ux[0:len], uy[0:len], uz[0:len], psi[0:len])
  for (long it = 0; it < total; ++it) {
    int x, y, z;
    if (!tile_cell(t, g, it, x, y, z)) continue;
    const long k = x + long(g.nx) * (y + long(g.ny) * z);
    if (solid[k]) continue;
    int nb[Q];
    neighbour_indices(g, x, y, z, nb);
    double fl[Q];
    load_cell(f, stride, k, fl);
    fn_cell(c, solid, psi, k, nb, rho[k], ux[k], uy[k], uz[k], fl);
    for (int i = 0; i < Q; ++i) out[i * stride + nb[i]] = fl[i];
  }
}

void shaped_boundary(LbmInstance& s, int dev) {
  const Grid g = s.grid;
  const Tiling t = tiling(s, s.p.shape);
  const Arrays a = arrays(s);
  const long len = a.len, lat = a.lat, stride = g.stride, total = t.tiles * t.threads;
  double* out = a.out;
  const std::uint8_t* solid = a.solid;
#pragma omp target teams distribute parallel for firstprivate(g, t) device(dev) num_teams(t.teams) thread_limit(t.limit) \
    dist_schedule(static, t.span) schedule(static, t.chunk) map(alloc : out[0:lat], solid[0:len])
  for (long it = 0; it < total; ++it) {
    int x, y, z;
    if (!tile_cell(t, g, it, x, y, z)) continue;
    const long k = x + long(g.nx) * (y + long(g.ny) * z);
    if (!solid[k]) continue;
    int nb[Q];
    neighbour_indices(g, x, y, z, nb);
    for (int i = 1; i < Q; ++i) {
      const int from = nb[opp[i]];
      if (!solid[from]) out[opp[i] * stride + from] = out[i * stride + k];
    }
  }
}

void target_shaped(LbmInstance& s, RunContext& ctx) {
  for (int step = 0; step < s.p.steps; ++step) {
    shaped_phi(s, ctx.device);
    ctx.clock.lap("calculate_phi");
    shaped_fn(s, ctx.device);
    ctx.clock.lap("calculate_fn");
    shaped_boundary(s, ctx.device);
    ctx.clock.lap("update_boundary");
    s.swap();
  }
}

// ---- target_many: each thread updates a BX x BY x BZ block (many-to-one) ---
// Threads run over blocks (collapse(3)); a thread walks its block x fastest.
// Blocks along y or z keep a warp's reads consecutive in x; blocks along x
// spread them (BX doubles apart).

void many_phi(LbmInstance& s, int dev) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const int bx = s.p.block[0], by = s.p.block[1], bz = s.p.block[2];
  const int nbx = (g.nx + bx - 1) / bx, nby = (g.ny + by - 1) / by, nbz = (g.nz + bz - 1) / bz;
  const Arrays a = arrays(s);
  const long len = a.len, lat = a.lat, stride = g.stride;
  const double* f = a.f;
  const std::uint8_t* solid = a.solid;
  double *rho = a.rho, *ux = a.ux, *uy = a.uy, *uz = a.uz, *psi = a.psi;
#pragma omp target teams distribute parallel for firstprivate(c, g) collapse(3) device(dev) \
    map(alloc : f[0:lat], solid[0:len], rho[0:len], ux[0:len], uy[0:len], uz[0:len], psi[0:len])
  for (int Z = 0; Z < nbz; ++Z)
    for (int Y = 0; Y < nby; ++Y)
      for (int X = 0; X < nbx; ++X)
        for (int z = Z * bz; z < std::min(Z * bz + bz, g.nz); ++z)
          for (int y = Y * by; y < std::min(Y * by + by, g.ny); ++y)
            for (int x = X * bx; x < std::min(X * bx + bx, g.nx); ++x)
              phi_cell(c, f, stride, solid, x + long(g.nx) * (y + long(g.ny) * z), rho, ux, uy, uz, psi);
}

void many_fn(LbmInstance& s, int dev) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const int bx = s.p.block[0], by = s.p.block[1], bz = s.p.block[2];
  const int nbx = (g.nx + bx - 1) / bx, nby = (g.ny + by - 1) / by, nbz = (g.nz + bz - 1) / bz;
  const Arrays a = arrays(s);
  const long len = a.len, lat = a.lat, stride = g.stride;
  const double* f = a.f;
  double* out = a.out;
  const std::uint8_t* solid = a.solid;
  const double *rho = a.rho, *ux = a.ux, *uy = a.uy, *uz = a.uz, *psi = a.psi;
#pragma omp target teams distribute parallel for firstprivate(c, g) collapse(3) device(dev) \
    map(alloc : f[0:lat], out[0:lat], solid[0:len], rho[0:len], ux[0:len], uy[0:len], uz[0:len], psi[0:len])
  for (int Z = 0; Z < nbz; ++Z)
    for (int Y = 0; Y < nby; ++Y)
      for (int X = 0; X < nbx; ++X)
        for (int z = Z * bz; z < std::min(Z * bz + bz, g.nz); ++z)
          for (int y = Y * by; y < std::min(Y * by + by, g.ny); ++y)
            for (int x = X * bx; x < std::min(X * bx + bx, g.nx); ++x) {
              const long k = x + long(g.nx) * (y + long(g.ny) * z);
              if (solid[k]) continue;
              int nb[Q];
              neighbour_indices(g, x, y, z, nb);
              double fl[Q];
              load_cell(f, stride, k, fl);
              fn_cell(c, solid, psi, k, nb, rho[k], ux[k], uy[k], uz[k], fl);
              for (int i = 0; i < Q; ++i) out[i * stride + nb[i]] = fl[i];
            }
}

void many_boundary(LbmInstance& s, int dev) {
  const Grid g = s.grid;
  const int bx = s.p.block[0], by = s.p.block[1], bz = s.p.block[2];
  const int nbx = (g.nx + bx - 1) / bx, nby = (g.ny + by - 1) / by, nbz = (g.nz + bz - 1) / bz;
  const Arrays a = arrays(s);
  const long len = a.len, lat = a.lat, stride = g.stride;
  double* out = a.out;
  const std::uint8_t* solid = a.solid;
#pragma omp target teams distribute parallel for firstprivate(g) collapse(3) device(dev) map(alloc : out[0:lat], solid[0:len])
  for (int Z = 0; Z < nbz; ++Z)
    for (int Y = 0; Y < nby; ++Y)
      for (int X = 0; X < nbx; ++X)
        for (int z = Z * bz; z < std::min(Z * bz + bz, g.nz); ++z)
          for (int y = Y * by; y < std::min(Y * by + by, g.ny); ++y)
            for (int x = X * bx; x < std::min(X * bx + bx, g.nx); ++x) {
              const long k = x + long(g.nx) * (y + long(g.ny) * z);
              if (!solid[k]) continue;
              int nb[Q];
              neighbour_indices(g, x, y, z, nb);
              for (int i = 1; i < Q; ++i) {
                const int from = nb[opp[i]];
                if (!solid[from]) out[opp[i] * stride + from] = out[i * stride + k];
              }
            }
}

void target_many(LbmInstance& s, RunContext& ctx) {
  for (int step = 0; step < s.p.steps; ++step) {
    many_phi(s, ctx.device);
    ctx.clock.lap("calculate_phi");
    many_fn(s, ctx.device);
    ctx.clock.lap("calculate_fn");
    many_boundary(s, ctx.device);
    ctx.clock.lap("update_boundary");
    s.swap();
  }
}

// ---- target_fused: two passes, the minimal traffic ------------------------
// calculate_phi writes psi only (rho and u are recomputed from the 19
// populations the collision loads anyway); calculate_fn does force,
// collision, streaming and bounce-back at once: a population pushed towards
// a solid cell is written, reversed, into the cell it came from. 59 doubles
// per cell per step: the bytes model. Launched like target_shaped (a team
// per tile, --fused-shape), the shape that measured best.

void fused_phi(LbmInstance& s, int dev) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const Tiling t = tiling(s, s.p.fshape);
  const Arrays a = arrays(s);
  const long len = a.len, lat = a.lat, stride = g.stride, total = t.tiles * t.threads;
  const double* f = a.f;
  const std::uint8_t* solid = a.solid;
  double* psi = a.psi;
#pragma omp target teams distribute parallel for firstprivate(c, g, t) device(dev) num_teams(t.teams) \
    thread_limit(t.limit) dist_schedule(static, t.span) schedule(static, t.chunk) \
    map(alloc : f[0:lat], solid[0:len], psi[0:len])
  for (long it = 0; it < total; ++it) {
    int x, y, z;
    if (!tile_cell(t, g, it, x, y, z)) continue;
    const long k = x + long(g.nx) * (y + long(g.ny) * z);
    psi[k] = psi_cell(c, f, stride, solid, k);
  }
}

void fused_fn(LbmInstance& s, int dev) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const Tiling t = tiling(s, s.p.fshape);
  const Arrays a = arrays(s);
  const long len = a.len, lat = a.lat, stride = g.stride, total = t.tiles * t.threads;
  const double* __restrict f = a.f;
  double* __restrict out = a.out;
  const std::uint8_t* __restrict solid = a.solid;
  const double* __restrict psi = a.psi;
#pragma omp target teams distribute parallel for firstprivate(c, g, t) device(dev) num_teams(t.teams) \
    thread_limit(t.limit) dist_schedule(static, t.span) schedule(static, t.chunk) \
    map(alloc : f[0:lat], out[0:lat], solid[0:len], psi[0:len])
  for (long it = 0; it < total; ++it) {
    int x, y, z;
    if (!tile_cell(t, g, it, x, y, z)) continue;
    const long k = x + long(g.nx) * (y + long(g.ny) * z);
    if (solid[k]) continue;
    int nb[Q];
    neighbour_indices(g, x, y, z, nb);
    double fl[Q];
    load_cell(f, stride, k, fl);
    double r, vx, vy, vz;
    moments(fl, r, vx, vy, vz);
    fn_cell(c, solid, psi, k, nb, r, vx, vy, vz, fl);
    long dst[Q];
    for (int i = 0; i < Q; ++i) dst[i] = solid[nb[i]] ? opp[i] * stride + k : i * stride + nb[i];
    for (int i = 0; i < Q; ++i) out[dst[i]] = fl[i];
  }
}

void target_fused(LbmInstance& s, RunContext& ctx) {
  for (int step = 0; step < s.p.steps; ++step) {
    fused_phi(s, ctx.device);
    ctx.clock.lap("calculate_phi");
    fused_fn(s, ctx.device);
    ctx.clock.lap("calculate_fn");
    s.swap();
  }
}

const Registration target_basic_registration{target_variant(
    "lbm", "target_basic",
    "the paper's basic kernel: `target teams distribute parallel for collapse(3)` per pass, shape left to the runtime",
    target_basic, enter_data, exit_data)};
const Registration target_shaped_registration{target_variant(
    "lbm", "target_shaped",
    "the ND-range kernel: a team per TX x TY x TZ tile (--shape), its threads over the tile's cells",
    target_shaped, enter_data, exit_data)};
const Registration target_many_registration{target_variant(
    "lbm", "target_many",
    "many-to-one: each thread updates a BX x BY x BZ block of cells (--block)", target_many, enter_data,
    exit_data)};
const Registration target_fused_registration{target_variant(
    "lbm", "target_fused",
    "two passes instead of three: psi alone, then force + collision + streaming + bounce-back, rho and u recomputed",
    target_fused, enter_data, exit_data)};

}  // namespace
}  // namespace ompref::lbm
