// lbm over MPI ranks: a rank's slab as an instance of its own
// (lbm_slab_instance.hpp): its state, its host reference with the halo
// exchanged by MPI, and its validation and observables combined over the
// ranks.
#include "mpi/lbm_slab_instance.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <omp.h>

#include "common/lbm/lbm_items.hpp"
#include "common/ranks.hpp"
#include "common/usage_error.hpp"
#include "common/validation.hpp"

namespace ompref::lbm::slabs {

namespace {

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int world_size() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// `count` doubles at `send` to rank `to`, and as many from rank `from` into
// `recv` (host arrays).
void shift(const double* send, int to, double* recv, int from, long count, int tag) {
  MPI_Sendrecv(send, int(count), MPI_DOUBLE, to, tag, recv, int(count), MPI_DOUBLE, from, tag, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
}

// Psi's ghost planes from the neighbours' edge planes.
void exchange_psi_planes(const SlabInstance& s, double* psi) {
  const long plane = s.plane;
  shift(psi + plane, s.below, psi + (s.nzl + 1) * plane, s.above, plane, 11);
  shift(psi + s.nzl * plane, s.above, psi, s.below, plane, 12);
}

// The sum over the ranks, added in rank order: the same bits on every rank
// and for every number of threads.
long double sum_in_rank_order(long double mine) {
  std::vector<long double> all(static_cast<std::size_t>(world_size()));
  MPI_Allgather(&mine, 1, MPI_LONG_DOUBLE, all.data(), 1, MPI_LONG_DOUBLE, MPI_COMM_WORLD);
  long double total = 0;
  for (long double m : all) total += m;
  return total;
}

// The mass of the owned planes of `pop`, planes in z order (mass_of's sum).
long double slab_mass(const SlabInstance& s, const double* pop) {
  std::vector<long double> planes(std::size_t(s.nzl), 0.0L);
  const std::uint8_t* sol = s.solid.data();
#pragma omp parallel for schedule(static)
  for (int lz = 1; lz <= s.nzl; ++lz) {
    long double mine = 0;
    for (long k0 = lz * s.plane; k0 < (lz + 1) * s.plane; k0 += block_cells)
      mine = add_block_mass(mine, pop, s.g.stride, sol, k0, int(std::min<long>(block_cells, (lz + 1) * s.plane - k0)));
    planes[std::size_t(lz - 1)] = mine;
  }
  long double total = 0;
  for (long double m : planes) total += m;
  return total;
}

// One step of the slab's reference: psi of the owned planes, psi's halo,
// force, collision and push (with bounce-back) of the owned fluid cells, the
// populations' halo. A cell of an edge plane receives, in each direction i
// that crosses the slab's face, what its source cell x - e_i (in the ghost
// plane, owned by the neighbour) pushed, where that source is fluid: the
// neighbour computed it into its own ghost plane. (Where the source is
// solid, the cell's own bounce-back wrote the slot.)
void reference_step(const SlabInstance& s, const double* f, double* out, double* psi) {
  const Grid g = s.g;
  const Coeffs c = s.coeffs;
  const long stride = g.stride, plane = s.plane;
  const int nzl = s.nzl;
  const std::uint8_t* solid = s.solid.data();
#pragma omp parallel for collapse(2) schedule(static)
  for (int z = 1; z <= nzl; ++z)
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) psi_item<long>(c, g, f, solid, psi, x, y, z);
  exchange_psi_planes(s, psi);
#pragma omp parallel for collapse(2) schedule(static)
  for (int z = 1; z <= nzl; ++z)
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) fused_item(c, g, f, out, solid, psi, x, y, z);
  // The directions that cross a face, upwards (e_z = +1) and downwards.
  std::vector<int> up, down;
  for (int i = 0; i < Q; ++i) {
    if (ez(i) > 0) up.push_back(i);
    if (ez(i) < 0) down.push_back(i);
  }
  const long n = long(up.size()) * plane;
  const std::size_t count = static_cast<std::size_t>(n);
  std::vector<double> send_up(count), send_down(count), from_below(count), from_above(count);
  const long top = (nzl + 1) * plane;
  for (std::size_t d = 0; d < up.size(); ++d)
    for (long cell = 0; cell < plane; ++cell) {
      send_up[d * plane + cell] = out[up[d] * stride + top + cell];
      send_down[d * plane + cell] = out[down[d] * stride + cell];
    }
  shift(send_up.data(), s.above, from_below.data(), s.below, n, 13);
  shift(send_down.data(), s.below, from_above.data(), s.above, n, 14);
  const auto source_fluid = [&](int x, int y, int i, int ghost) {
    const int sx = (x - ex(i) + g.nx) % g.nx, sy = (y - ey(i) + g.ny) % g.ny;
    return solid[sx + long(g.nx) * (sy + long(g.ny) * ghost)] == 0;
  };
#pragma omp parallel for collapse(2) schedule(static)
  for (int y = 0; y < g.ny; ++y)
    for (int x = 0; x < g.nx; ++x) {
      const long cell = x + long(g.nx) * y;
      for (std::size_t d = 0; d < up.size(); ++d) {
        if (source_fluid(x, y, up[d], 0)) out[up[d] * stride + plane + cell] = from_below[d * plane + cell];
        if (source_fluid(x, y, down[d], nzl + 1)) out[down[d] * stride + nzl * plane + cell] = from_above[d * plane + cell];
      }
    }
}

}  // namespace

void SlabInstance::check(const LbmInstance& whole) {
  const Params& p = whole.p;
  const int ranks = world_size(), rank = world_rank();
  if (p.nz < ranks)
    throw UsageError(fmt::format("lbm --nz {}: fewer planes than the {} MPI ranks a slab variant splits them over "
                                 "(accepted: nz >= ranks)", p.nz, ranks));
  const int planes = slab_planes(p.nz, rank, ranks);
  const std::string what = fmt::format("lbm {} {}x{}x{}: rank {}'s slab of {} planes", case_name(p.kind), p.nx, p.ny,
                                       p.nz, rank, planes);
  const int node = rank_place().local_count;
  whole.limits().check_host(slab_host_bytes(p, planes) * node,
                            fmt::format("{} with its reference run ({} ranks on this node)", what, node));
  if (whole.for_device()) whole.limits().check_device(slab_device_bytes(p, planes), what + " (two lattices, psi, halo)");
}

SlabInstance::SlabInstance(const LbmInstance& whole) : p(whole.p), coeffs(whole.coeffs), whole_(whole) {
  rank = world_rank();
  ranks = world_size();
  below = (rank + ranks - 1) % ranks;
  above = (rank + 1) % ranks;
  z0 = slab_first(p.nz, rank, ranks);
  nzl = slab_planes(p.nz, rank, ranks);
  plane = long(p.nx) * p.ny;
  g = Grid{p.nx, p.ny, nzl + 2, plane * (nzl + 2), slab_stride(p, nzl)};
  const std::size_t ls = std::size_t(g.stride);
  for (FieldArray& l : lat) l = FieldArray(Q * ls, whole.for_device());
  solid = AlignedArray<std::uint8_t>(ls);
}

void SlabInstance::reset() {
  const long ls = g.stride;
  std::uint8_t* sol = solid.data();
  double* poisoned = lat[1].data();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Local plane lz is the lattice's plane z0 - 1 + lz (periodic). First
  // touch in parallel, row by row, as the instance's reset.
#pragma omp parallel for collapse(2) schedule(static)
  for (int lz = 0; lz < g.nz; ++lz)
    for (int y = 0; y < g.ny; ++y) {
      const long row = long(g.nx) * (y + long(g.ny) * lz);
      const std::uint8_t wall = wall_row(p, y) ? 1 : 0;
      for (int x = 0; x < g.nx; ++x) sol[row + x] = wall;
      for (int i = 0; i < Q; ++i)
        for (int x = 0; x < g.nx; ++x) poisoned[i * ls + row + x] = nan;
    }
  for (long k = g.n; k < ls; ++k) {  // the padding: solid
    sol[k] = 1;
    for (int i = 0; i < Q; ++i) poisoned[i * ls + k] = nan;
  }
  cur = 0;
  validated_ = nullptr;
  initial_populations(p, g, z0 - 1, sol, lat[0].data());
  if (initial_mass == 0) initial_mass = sum_in_rank_order(slab_mass(*this, lat[0].data()));
}

const double* SlabInstance::reference_state(long total_steps) const {
  Reference& r = ref_;
  const std::size_t ls = std::size_t(g.stride);
  if (r.psi.size() == 0) {
    for (AlignedArray<double>& l : r.lat) l = AlignedArray<double>(Q * ls);
    r.psi = AlignedArray<double>(ls);
  }
  if (r.steps < 0 || r.steps > total_steps) {
    initial_populations(p, g, z0 - 1, solid.data(), r.lat[0].data());
    const double nan = std::numeric_limits<double>::quiet_NaN();
    double* poisoned = r.lat[1].data();
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < Q * ls; ++i) poisoned[i] = nan;
    double* psi = r.psi.data();
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < ls; ++i) psi[i] = nan;
    r.cur = 0;
    r.steps = 0;
  }
  for (; r.steps < total_steps; ++r.steps) {
    reference_step(*this, r.lat[r.cur].data(), r.lat[r.cur ^ 1].data(), r.psi.data());
    r.cur ^= 1;
  }
  return r.lat[r.cur].data();
}

namespace {

// Every plane's digest on every rank, in z order (rank order).
std::vector<std::uint64_t> all_plane_digests(const SlabInstance& s, const std::vector<std::uint64_t>& mine) {
  std::vector<int> counts(static_cast<std::size_t>(s.ranks)), offsets(static_cast<std::size_t>(s.ranks));
  for (int r = 0; r < s.ranks; ++r) {
    counts[std::size_t(r)] = slab_planes(s.p.nz, r, s.ranks);
    offsets[std::size_t(r)] = slab_first(s.p.nz, r, s.ranks);
  }
  std::vector<std::uint64_t> digests(std::size_t(s.p.nz));
  MPI_Allgatherv(mine.data(), s.nzl, MPI_UINT64_T, digests.data(), counts.data(), offsets.data(), MPI_UINT64_T,
                 MPI_COMM_WORLD);
  return digests;
}

// The droplet's observables over the ranks: the cells they read (the cubes
// at the centre and the corner, the axes through the centre), each from the
// rank that owns it: a sum over the ranks of values that are zero but on
// their owner.
void droplet_over_ranks(const SlabInstance& s, const Grid& whole, const double* rho, const double* psi,
                        Observables& o) {
  const Params& p = s.p;
  const int cx = p.nx / 2, cy = p.ny / 2, cz = p.nz / 2;
  std::vector<long> cells;
  const auto add = [&](int x, int y, int z) {
    cells.push_back(((x % p.nx + p.nx) % p.nx) + long(p.nx) * (((y % p.ny + p.ny) % p.ny) +
                                                                 long(p.ny) * ((z % p.nz + p.nz) % p.nz)));
  };
  for (int dz = -2; dz <= 2; ++dz)
    for (int dy = -2; dy <= 2; ++dy)
      for (int dx = -2; dx <= 2; ++dx) {
        add(cx + dx, cy + dy, cz + dz);
        add(dx, dy, dz);
      }
  for (int x = 0; x < p.nx; ++x) add(x, cy, cz);
  for (int y = 0; y < p.ny; ++y) add(cx, y, cz);
  for (int z = 0; z < p.nz; ++z) add(cx, cy, z);
  std::sort(cells.begin(), cells.end());
  cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
  std::vector<double> mine(2 * cells.size(), 0.0), all(2 * cells.size());
  for (std::size_t j = 0; j < cells.size(); ++j) {
    const long z = cells[j] / s.plane;
    if (z < s.z0 || z >= s.z0 + s.nzl) continue;
    const long k = cells[j] - z * s.plane + (z - s.z0 + 1) * s.plane;
    mine[2 * j] = rho[k];
    mine[2 * j + 1] = psi[k];
  }
  MPI_Allreduce(mine.data(), all.data(), int(all.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  droplet_observables(whole, s.coeffs.G, [&](int x, int y, int z) {
    const long k = x + long(p.nx) * (y + long(p.ny) * z);
    const auto at = std::lower_bound(cells.begin(), cells.end(), k);
    if (at == cells.end() || *at != k) throw std::logic_error("lbm slab: a droplet cell not gathered");
    const std::size_t j = std::size_t(at - cells.begin());
    return CellFields{all[2 * j], all[2 * j + 1]};
  }, o);
}

}  // namespace

nlohmann::json SlabInstance::observe(const double* pop, long double& mass, const BlockVisit& visit) const {
  const std::size_t n = std::size_t(g.stride);
  if (observed_rho_.size() != n) {
    observed_rho_ = AlignedArray<double>(n);
    observed_psi_ = AlignedArray<double>(n);
  }
  double *rho = observed_rho_.data(), *psi = observed_psi_.data();
  const StateView v = view();
  const PlaneFields fields = scan_fields(v, pop, true, rho, psi, visit);
  exchange_psi_planes(*this, psi);  // the force at the edge planes reads the neighbours' psi
  Observables o;
  state_ranges(v, pop, psi, o);
  double low = o.rho_min, high = o.rho_max, fastest = o.max_U;
  MPI_Allreduce(&low, &o.rho_min, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&high, &o.rho_max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&fastest, &o.max_U, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  mass = sum_in_rank_order(fields.mass);
  o.mass = double(mass);
  const std::vector<std::uint64_t> digests = all_plane_digests(*this, fields.digests);
  if (p.kind == Case::droplet) droplet_over_ranks(*this, whole_.grid, rho, psi, o);
  return observables_json(o, combine_digests(digests));
}

// Every population of every owned fluid cell against the slab's reference
// of the same number of steps, then the mass, as LbmInstance::validate: the
// worst error over the ranks (the lowest rank among equal ones) and its
// cell, the mass summed over the ranks.
Check SlabInstance::validate(int repetitions, const std::string&) const {
  const long total = long(repetitions) * p.steps;
  const double* want = reference_state(total);
  const double* got = current();
  const long stride = g.stride;
  const double tol = population_tolerance(total);
  Validation v(fmt::format("host reference run of each rank's slab, its halo exchanged by MPI ({} steps, {} ranks)",
                           total, ranks));
  long double mass = 0;
  const WorstPopulation w = worst_in_pass(got, want, stride, solid.data(), g.nz,
                                          [&](const BlockVisit& visit) { validated_ = observe(got, mass, visit); });
  // The worst over the ranks; its rank says where.
  struct {
    double error;
    int rank;
  } in{std::isnan(w.error) ? std::numeric_limits<double>::infinity() : w.error, rank}, out{};
  MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  std::string where;
  if (rank == out.rank && w.k >= 0) {
    const long lz = w.k / plane, c = w.k % plane;
    where = fmt::format("population {} of cell ({}, {}, {}) = {} (reference {}), relative error {:.3g} > {:.3g}", w.i,
                        c % p.nx, c / p.nx, z0 - 1 + lz, got[w.i * stride + w.k], want[w.i * stride + w.k], w.error,
                        tol);
  } else if (rank == out.rank) {
    where = "no fluid cell";
  }
  int length = int(where.size());
  MPI_Bcast(&length, 1, MPI_INT, out.rank, MPI_COMM_WORLD);
  where.resize(std::size_t(length));
  MPI_Bcast(where.data(), length, MPI_CHAR, out.rank, MPI_COMM_WORLD);
  v.note(out.error, tol, [&] { return where; });
  note_mass(v, mass, initial_mass, total);
  return v.result();
}

nlohmann::json SlabInstance::observables(const std::string&) const {
  if (!validated_.is_null()) return validated_;
  long double mass = 0;
  return observe(current(), mass, {});
}

Instance& slab_part(Instance& instance) {
  LbmInstance& whole = static_cast<LbmInstance&>(instance);
  if (!whole.rank_part) {
    // One lattice split over the ranks: each rank validates its own slab
    // against its own reference, so ranks given other physics would each pass.
    agree_on("lbm parameters", whole.params().dump());
    SlabInstance::check(whole);
    whole.release();  // one layout at a time: the whole lattice is made again by a variant that runs it
    whole.rank_part = std::make_unique<SlabInstance>(whole);
  }
  return *whole.rank_part;
}

}  // namespace ompref::lbm::slabs
