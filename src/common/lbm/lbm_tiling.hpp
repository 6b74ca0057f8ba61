#pragma once
// The launch of target_shaped and target_fused: a team per TX x TY x TZ tile
// of cells, its threads the tile's cells (the ND-range kernel of the SYCL
// port by Ding et al. 2023, whose work-group is a tile). The kernels loop
// over (tile, cell of the tile) flattened; dist_schedule gives each team one
// tile's worth of iterations, schedule(static, chunk) gives its threads
// consecutive cells: x fastest, so a warp reads consecutive doubles.
#include <algorithm>

#include <omp.h>

#include "common/lbm/lbm.hpp"

namespace ompref::lbm {

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

// The launch for tiles of `shape` cells (at most 1024: make_instance checks
// it), on a device (`on_device`, the run's RunContext) or on the host fallback.
inline Tiling tiling(const Grid& g, const Shape& shape, bool on_device) {
  Tiling t;
  t.tx = shape[0];
  t.ty = shape[1];
  t.tz = shape[2];
  t.threads = t.tx * t.ty * t.tz;
  t.ntx = (g.nx + t.tx - 1) / t.tx;
  t.nty = (g.ny + t.ty - 1) / t.ty;
  t.ntz = (g.nz + t.tz - 1) / t.tz;
  t.tiles = long(t.ntx) * t.nty * t.ntz;
  t.teams = league(on_device, std::min<long>(t.tiles, 1L << 30));
  t.limit = on_device ? t.threads : omp_get_max_threads();
  t.chunk = on_device ? 1 : (t.tiles * t.threads + t.limit - 1) / t.limit;
  t.span = on_device ? t.threads : t.tiles * t.threads;
  return t;
}

}  // namespace ompref::lbm
