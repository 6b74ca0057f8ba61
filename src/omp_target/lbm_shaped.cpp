// lbm on the device, shaped: the ND-range kernel of the SYCL port by Ding et
// al. 2023, whose work-group is a tile of cells. The step from target_basic
// (src/omp_target/lbm.cpp), shown by
// `diff src/omp_target/lbm.cpp src/omp_target/lbm_shaped.cpp`: instead of
// collapse(3) with the launch left to the runtime, each pass loops over
// (tile, cell of the tile) flattened, with a team per TX x TY x TZ tile
// (--shape) and its threads over the tile's cells: num_teams, thread_limit,
// dist_schedule and schedule come from common/lbm/lbm_tiling.hpp. The cell
// arithmetic is unchanged.
#include <cstdint>

#include "common/lbm/lbm.hpp"
#include "common/lbm/lbm_data.hpp"
#include "common/lbm/lbm_items.hpp"
#include "common/lbm/lbm_tiling.hpp"
#include "common/registry.hpp"

namespace ompref::lbm {

namespace {

// rho, u and psi of every cell (solid cells: the walls' fixed density).
void calculate_phi(LbmInstance& s, RunContext& ctx) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const Tiling t = tiling(g, s.p.shape, ctx.on_device);
  const long stride = g.stride, total = t.tiles * t.threads;
  const double* f = s.current();
  const std::uint8_t* solid = s.solid.data();
  double *rho = s.rho.data(), *ux = s.ux.data(), *uy = s.uy.data(), *uz = s.uz.data(), *psi = s.psi.data();
  const int dev = ctx.device;
#pragma omp target teams distribute parallel for firstprivate(c, g, t) device(dev) num_teams(t.teams) \
    thread_limit(t.limit) dist_schedule(static, t.span) schedule(static, t.chunk) \
    map(alloc : f[0:Q * stride], solid[0:stride], rho[0:stride], ux[0:stride], uy[0:stride], uz[0:stride], \
        psi[0:stride])
  for (long it = 0; it < total; ++it) {
    int x, y, z;
    if (!tile_cell(t, g, it, x, y, z)) continue;
    phi_item(c, g, f, solid, rho, ux, uy, uz, psi, x, y, z);
  }
  ctx.clock.lap("calculate_phi");
}

// Force, collision and push of every fluid cell into the next lattice.
void calculate_fn(LbmInstance& s, RunContext& ctx) {
  const Coeffs c = s.coeffs;
  const Grid g = s.grid;
  const Tiling t = tiling(g, s.p.shape, ctx.on_device);
  const long stride = g.stride, total = t.tiles * t.threads;
  const double* f = s.current();
  double* out = s.next();
  const std::uint8_t* solid = s.solid.data();
  const double *rho = s.rho.data(), *ux = s.ux.data(), *uy = s.uy.data(), *uz = s.uz.data(), *psi = s.psi.data();
  const int dev = ctx.device;
#pragma omp target teams distribute parallel for firstprivate(c, g, t) device(dev) num_teams(t.teams) \
    thread_limit(t.limit) dist_schedule(static, t.span) schedule(static, t.chunk) \
    map(alloc : f[0:Q * stride], out[0:Q * stride], solid[0:stride], rho[0:stride], ux[0:stride], uy[0:stride], \
        uz[0:stride], psi[0:stride])
  for (long it = 0; it < total; ++it) {
    int x, y, z;
    if (tile_cell(t, g, it, x, y, z)) fn_item(c, g, f, out, solid, rho, ux, uy, uz, psi, x, y, z);
  }
  ctx.clock.lap("calculate_fn");
}

// Half-way bounce-back at every solid cell.
void update_boundary(LbmInstance& s, RunContext& ctx) {
  const Grid g = s.grid;
  const Tiling t = tiling(g, s.p.shape, ctx.on_device);
  const long total = t.tiles * t.threads;
  double* out = s.next();
  const std::uint8_t* solid = s.solid.data();
  const int dev = ctx.device;
#pragma omp target teams distribute parallel for firstprivate(g, t) device(dev) num_teams(t.teams) \
    thread_limit(t.limit) dist_schedule(static, t.span) schedule(static, t.chunk) \
    map(alloc : out[0:Q * g.stride], solid[0:g.stride])
  for (long it = 0; it < total; ++it) {
    int x, y, z;
    if (tile_cell(t, g, it, x, y, z)) boundary_item(g, solid, out, x, y, z);
  }
  ctx.clock.lap("update_boundary");
}

void target_shaped(LbmInstance& s, RunContext& ctx) {
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

const Registration target_shaped_registration{target_variant(
    "lbm", "target_shaped",
    "the ND-range kernel: a team per TX x TY x TZ tile (--shape), its threads over the tile's cells",
    target_shaped, device_data).follows("target_basic").reading({"--shape"})
        .uses({"target teams distribute parallel for", "declare target", "map(alloc)",
               "thread_limit", "num_teams", "schedule"})};

}  // namespace
}  // namespace ompref::lbm
