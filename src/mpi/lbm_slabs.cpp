// lbm over MPI ranks, slabs along z (lbm_slabs.hpp): the slab, its device
// data, the two passes and the two exchanges, and the plain form
// target_slabs: each exchange after the pass it serves, staged through the
// host with `target update` (the device pointer path of a CUDA-aware MPI is
// not used). The cell arithmetic is common/lbm/lbm_cell.hpp's, not a copy.
#include "mpi/lbm_slabs.hpp"

#include <mpi.h>

#include <cstring>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "common/usage_error.hpp"

namespace ompref::lbm::slabs {

std::unique_ptr<Slab> make_slab(LbmInstance& s) {
  auto slab = std::make_unique<Slab>();
  Slab& b = *slab;
  MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &b.ranks);
  const int nz = s.p.nz;
  if (nz < b.ranks)
    throw UsageError(fmt::format("lbm --nz {}: fewer planes than the {} MPI ranks a slab variant splits them over "
                                 "(accepted: nz >= ranks)", nz, b.ranks));
  b.below = (b.rank + b.ranks - 1) % b.ranks;
  b.above = (b.rank + 1) % b.ranks;
  b.z0 = int(long(nz) * b.rank / b.ranks);
  b.nzl = int(long(nz) * (b.rank + 1) / b.ranks) - b.z0;
  b.plane = long(s.p.nx) * s.p.ny;
  b.g = Grid{s.p.nx, s.p.ny, b.nzl + 2, b.plane * (b.nzl + 2), (b.plane * (b.nzl + 2) + 7) / 8 * 8};
  const long ls = b.g.stride, gs = s.grid.stride;
  for (AlignedArray<double>& lat : b.lat) lat = AlignedArray<double>(std::size_t(Q * ls));
  b.psi = AlignedArray<double>(std::size_t(ls));
  b.solid = AlignedArray<std::uint8_t>(std::size_t(ls));
  for (AlignedArray<double>* buffer : {&b.send_down, &b.send_up, &b.recv_below, &b.recv_above})
    *buffer = AlignedArray<double>(std::size_t(crossing * b.plane));
  // Local plane lz holds global plane z0 - 1 + lz (periodic): ghosts included.
  const double* from[2] = {s.current(), s.next()};
  for (int lz = 0; lz < b.nzl + 2; ++lz) {
    const long gz = (b.z0 - 1 + lz + nz) % nz;
    std::memcpy(b.solid.data() + lz * b.plane, s.solid.data() + gz * b.plane, std::size_t(b.plane));
    for (int l = 0; l < 2; ++l)
      for (int i = 0; i < Q; ++i)
        std::memcpy(b.lat[l].data() + i * ls + lz * b.plane, from[l] + i * gs + gz * b.plane,
                    std::size_t(b.plane) * sizeof(double));
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (long k = 0; k < ls; ++k) b.psi[std::size_t(k)] = nan;
  for (long k = b.g.n; k < ls; ++k) {  // the padding: solid, like the instance's
    b.solid[std::size_t(k)] = 1;
    for (int l = 0; l < 2; ++l)
      for (int i = 0; i < Q; ++i) b.lat[l][std::size_t(i * ls + k)] = 0.0;
  }
  return slab;
}

DeviceData slab_data(Slab& b) {
  const long lattice = Q * b.g.stride;
  return DeviceData().out(b.current(), lattice).in(b.next(), lattice).in(b.psi).in(b.solid)
      .in(b.send_down).in(b.send_up).in(b.recv_below).in(b.recv_above);
}

void gather(const Slab& b, LbmInstance& s) {
  std::vector<int> counts(std::size_t(b.ranks)), offsets(std::size_t(b.ranks));
  for (int r = 0; r < b.ranks; ++r) {
    const long z0 = long(s.p.nz) * r / b.ranks, z1 = long(s.p.nz) * (r + 1) / b.ranks;
    counts[std::size_t(r)] = int((z1 - z0) * b.plane);
    offsets[std::size_t(r)] = int(z0 * b.plane);
  }
  const double* local = b.lat[b.cur].data();
  for (int i = 0; i < Q; ++i)
    MPI_Allgatherv(local + i * b.g.stride + b.plane, int(b.nzl * b.plane), MPI_DOUBLE, s.current() + i * s.grid.stride,
                   counts.data(), offsets.data(), MPI_DOUBLE, MPI_COMM_WORLD);
}

// psi of every cell of planes [z_lo, z_hi): target_fused's first pass.
void psi_planes(const LbmInstance& s, Slab& b, int dev, int z_lo, int z_hi) {
  const Coeffs c = s.coeffs;
  const Grid g = b.g;
  const long stride = g.stride;
  const double* f = b.current();
  const std::uint8_t* solid = b.solid.data();
  double* psi = b.psi.data();
#pragma omp target teams distribute parallel for collapse(3) firstprivate(c, g) device(dev) \
    map(alloc : f[0:Q * stride], solid[0:stride], psi[0:stride])
  for (int z = z_lo; z < z_hi; ++z)
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) {
        const long k = x + long(g.nx) * (y + long(g.ny) * z);
        psi[k] = psi_cell(c, f, stride, solid, k);
      }
}

// Force, collision, push and bounce-back of the fluid cells of planes
// [z_lo, z_hi): target_fused's second pass; the pushes across a slab face
// land in the ghost planes.
void fn_planes(const LbmInstance& s, Slab& b, int dev, int z_lo, int z_hi) {
  const Coeffs c = s.coeffs;
  const Grid g = b.g;
  const long stride = g.stride;
  const double* f = b.current();
  double* out = b.next();
  const std::uint8_t* solid = b.solid.data();
  const double* psi = b.psi.data();
#pragma omp target teams distribute parallel for collapse(3) firstprivate(c, g) device(dev) \
    map(alloc : f[0:Q * stride], out[0:Q * stride], solid[0:stride], psi[0:stride])
  for (int z = z_lo; z < z_hi; ++z)
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) {
        const long k = x + long(g.nx) * (y + long(g.ny) * z);
        if (solid[k]) continue;
        int nb[Q];
        neighbour_indices(g, x, y, z, nb);
        fn_push_bounce(c, f, out, stride, solid, psi, k, nb);
      }
}

namespace {

enum Tag { psi_down, psi_up, populations_up, populations_down };

// (A build without offload drops the directive: hence [[maybe_unused]].)
void update_from([[maybe_unused]] double* p, [[maybe_unused]] long offset, [[maybe_unused]] long count,
                 [[maybe_unused]] int dev) {
#pragma omp target update from(p[offset:count]) device(dev)
}
void update_to([[maybe_unused]] double* p, [[maybe_unused]] long offset, [[maybe_unused]] long count,
               [[maybe_unused]] int dev) {
#pragma omp target update to(p[offset:count]) device(dev)
}

}  // namespace

void exchange_psi(Slab& b, int dev) {
  double* psi = b.psi.data();
  const long plane = b.plane, first = plane, last = b.nzl * plane, ghost_below = 0, ghost_above = (b.nzl + 1) * plane;
  update_from(psi, first, plane, dev);
  if (last != first) update_from(psi, last, plane, dev);
  MPI_Sendrecv(psi + first, int(plane), MPI_DOUBLE, b.below, psi_down, psi + ghost_above, int(plane), MPI_DOUBLE,
               b.above, psi_down, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv(psi + last, int(plane), MPI_DOUBLE, b.above, psi_up, psi + ghost_below, int(plane), MPI_DOUBLE, b.below,
               psi_up, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  update_to(psi, ghost_below, plane, dev);
  update_to(psi, ghost_above, plane, dev);
}

void exchange_populations(Slab& b, int dev) {
  const Grid g = b.g;
  const long stride = g.stride, plane = b.plane, top = (b.nzl + 1) * plane, n = crossing * plane;
  const int nzl = b.nzl;
  double* out = b.next();
  const std::uint8_t* solid = b.solid.data();
  double *send_up = b.send_up.data(), *send_down = b.send_down.data();
  double *recv_below = b.recv_below.data(), *recv_above = b.recv_above.data();
  // The ghost planes' crossing populations, packed on the device.
#pragma omp target teams distribute parallel for collapse(2) device(dev) \
    map(alloc : out[0:Q * stride], send_up[0:n], send_down[0:n])
  for (int d = 0; d < crossing; ++d)
    for (long c = 0; c < plane; ++c) {
      send_up[d * plane + c] = out[up[d] * stride + top + c];
      send_down[d * plane + c] = out[down[d] * stride + c];
    }
  update_from(send_up, 0, n, dev);
  update_from(send_down, 0, n, dev);
  MPI_Sendrecv(send_up, int(n), MPI_DOUBLE, b.above, populations_up, recv_below, int(n), MPI_DOUBLE, b.below,
               populations_up, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv(send_down, int(n), MPI_DOUBLE, b.below, populations_down, recv_above, int(n), MPI_DOUBLE, b.above,
               populations_down, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  update_to(recv_below, 0, n, dev);
  update_to(recv_above, 0, n, dev);
  // Into the edge planes, where the source cell (in the ghost plane) is fluid.
#pragma omp target teams distribute parallel for collapse(2) firstprivate(g) device(dev) \
    map(alloc : out[0:Q * stride], solid[0:stride], recv_below[0:n], recv_above[0:n])
  for (int y = 0; y < g.ny; ++y)
    for (int x = 0; x < g.nx; ++x) {
      const long c = x + long(g.nx) * y, first = c + plane, last = c + nzl * plane;
      int nb_first[Q], nb_last[Q];
      neighbour_indices(g, x, y, 1, nb_first);
      neighbour_indices(g, x, y, nzl, nb_last);
      for (int d = 0; d < crossing; ++d) {
        if (!solid[nb_first[opp(up[d])]]) out[up[d] * stride + first] = recv_below[d * plane + c];
        if (!solid[nb_last[opp(down[d])]]) out[down[d] * stride + last] = recv_above[d * plane + c];
      }
    }
}

namespace {

std::unique_ptr<Slab>& holder() {
  static std::unique_ptr<Slab> slab;
  return slab;
}

}  // namespace

Slab& active() { return *holder(); }

// The slab is made from the instance's initial state before timing, and its
// owned planes gathered back into the instance after, where validate() holds
// them against the single-process reference as for every lbm variant.
Variant slab_variant(const char* name, const char* sentence, void (*run)(LbmInstance&, RunContext&)) {
  Variant v;
  v.workload = "lbm";
  v.name = name;
  v.file = source_path(__FILE__);
  v.kind = Kind::target;
  v.sentence = sentence;
  v.run = typed(run);
  v.enter_data = [](Instance& instance, RunContext& ctx) {
    holder() = make_slab(static_cast<LbmInstance&>(instance));
    slab_data(*holder()).enter(ctx.device);
  };
  v.exit_data = [](Instance& instance, RunContext& ctx) {
    slab_data(*holder()).exit(ctx.device);
    gather(*holder(), static_cast<LbmInstance&>(instance));
    holder().reset();
  };
  return v.split_across_ranks();
}

namespace {

// One step at a time: each exchange after the pass it serves.
void target_slabs(LbmInstance& s, RunContext& ctx) {
  Slab& b = active();
  const int dev = ctx.device;
  for (int step = 0; step < s.p.steps; ++step) {
    psi_planes(s, b, dev, 1, b.nzl + 1);
    ctx.clock.lap("calculate_phi");
    exchange_psi(b, dev);
    ctx.clock.lap("halo_psi");
    fn_planes(s, b, dev, 1, b.nzl + 1);
    ctx.clock.lap("calculate_fn");
    exchange_populations(b, dev);
    ctx.clock.lap("halo_populations");
    b.cur ^= 1;
  }
}

const Registration target_slabs_registration{slab_variant(
    "target_slabs",
    "slabs along z over MPI ranks: target_fused's passes on each rank's slab, ghost planes of psi and of the crossing "
    "populations exchanged through the host (`target update`) after each pass",
    target_slabs)};

}  // namespace
}  // namespace ompref::lbm::slabs
