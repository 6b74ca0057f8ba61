// lbm over MPI ranks, slabs along z (lbm_slabs.hpp): the slab, its device
// data, the two passes, and the plain form target_slabs. What it changes from
// target_fused, one process (`diff src/omp_target/lbm_fused.cpp src/mpi/lbm_slabs.cpp`): each pass runs over the
// slab's planes [1, nzl] and is followed by its exchange (lbm_halo.cpp), not
// overlapped: the lesson of what a halo costs when nothing hides it. The halo
// stays on the device (packed, unpacked, and on one rank or between the
// ranks of one node copied there); only the packed planes cross to the host,
// and only where neither holds and MPI cannot read device memory. The cell
// arithmetic is common/lbm/lbm_cell.hpp's, not a copy.
#include "mpi/lbm_slabs.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <omp.h>

#include "common/usage_error.hpp"

namespace ompref::lbm::slabs {

std::unique_ptr<Slab> make_slab(LbmInstance& s, bool page_locked) {
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
  b.g = Grid{s.p.nx, s.p.ny, b.nzl + 2, b.plane * (b.nzl + 2), lattice_stride(b.plane * (b.nzl + 2))};
  const long ls = b.g.stride;
  for (AlignedArray<double>& lat : b.lat) lat = AlignedArray<double>(std::size_t(Q * ls));
  b.psi = AlignedArray<double>(std::size_t(ls));
  b.solid = AlignedArray<std::uint8_t>(std::size_t(ls));
  for (FieldArray* buffer : {&b.send_down, &b.send_up, &b.recv_below, &b.recv_above})
    *buffer = FieldArray(std::size_t(crossing * b.plane), page_locked);
  // Local plane lz holds global plane z0 - 1 + lz (periodic): ghosts
  // included. The lattices are made on the device (enter_lattices); here the
  // solid planes, psi poisoned and the padding solid, like the instance's.
#pragma omp parallel for schedule(static)
  for (int lz = 0; lz < b.nzl + 2; ++lz) {
    const long gz = (b.z0 - 1 + lz + nz) % nz;
    std::memcpy(b.solid.data() + lz * b.plane, s.solid.data() + gz * b.plane, std::size_t(b.plane));
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
#pragma omp parallel for
  for (long k = 0; k < ls; ++k) b.psi[std::size_t(k)] = nan;
  for (long k = b.g.n; k < ls; ++k) b.solid[std::size_t(k)] = 1;
  return slab;
}

namespace {

// Bytes `count` doubles from `from` (device `from_dev`, at double `from_at`)
// to `to` (device `to_dev`, at double `to_at`); a failed copy is an error.
void copy_doubles(double* to, long to_at, const double* from, long from_at, long count, int to_dev, int from_dev) {
  constexpr long b = sizeof(double);
  if (omp_target_memcpy(to, from, std::size_t(count * b), std::size_t(to_at * b), std::size_t(from_at * b), to_dev,
                        from_dev) != 0)
    throw std::runtime_error(fmt::format("lbm slabs: omp_target_memcpy of {} bytes failed", count * b));
}

}  // namespace

// The slab's two lattices, made on the device straight from the instance's:
// a direction's owned planes are one contiguous block of the instance's
// lattice (one copy), each ghost plane one plane (z periodic), the padding
// zero. The instance's lattices are page-locked where they were made for a
// device (lbm.hpp's FieldArray): the copies run at the link's rate, and the
// slab's host lattices are never touched. (Copied on the host first, then
// moved from that pageable memory, the lattices cost a paper-size slab
// variant about 5 s more than target_fused's transfers.) On the host the
// same calls copy host to host.
void enter_lattices(Slab& b, LbmInstance& s, bool on_device, int dev) {
  const long ls = b.g.stride, gs = s.grid.stride, plane = b.plane, nz = s.p.nz;
  const int host = omp_get_initial_device(), to_dev = on_device ? dev : host;
  static const double zeros[8] = {};  // the padding: fewer than 8 cells (lattice_stride)
  const double* from[2] = {s.current(), s.next()};
  for (int l = 0; l < 2; ++l) {
    double* lattice = b.lat[l].data();
#pragma omp target enter data device(dev) map(alloc : lattice[0:Q * ls])
    double* slab = lattice;
#pragma omp target data use_device_ptr(lattice) device(dev)
    slab = lattice;
    for (int i = 0; i < Q; ++i) {
      const long base = i * ls, whole = i * gs;
      copy_doubles(slab, base + plane, from[l], whole + b.z0 * plane, b.nzl * plane, to_dev, host);
      copy_doubles(slab, base, from[l], whole + (b.z0 - 1 + nz) % nz * plane, plane, to_dev, host);
      copy_doubles(slab, base + (b.nzl + 1) * plane, from[l], whole + (b.z0 + b.nzl) % nz * plane, plane, to_dev,
                   host);
      copy_doubles(slab, base + b.g.n, zeros, 0, ls - b.g.n, to_dev, host);
    }
  }
}

// The slab's owned planes into the instance's current lattice, one copy a
// direction, and the slab's lattices released from the device.
void exit_lattices(Slab& b, LbmInstance& s, bool on_device, int dev) {
  const long ls = b.g.stride, gs = s.grid.stride, plane = b.plane;
  const int host = omp_get_initial_device(), from_dev = on_device ? dev : host;
  double* lattice = b.current();
  const double* slab = lattice;
#pragma omp target data use_device_ptr(lattice) device(dev)
  slab = lattice;
  for (int i = 0; i < Q; ++i)
    copy_doubles(s.current(), i * gs + b.z0 * plane, slab, i * ls + plane, b.nzl * plane, host, from_dev);
  for (AlignedArray<double>& l : b.lat) {
    [[maybe_unused]] double* p = l.data();
#pragma omp target exit data device(dev) map(release : p[0:Q * ls])
  }
}

BytesHeld bytes_held(const Slab& b, const LbmInstance& s) {
  const double ls = double(b.g.stride), buffers = 4.0 * crossing * double(b.plane) * 8;
  const double slab_fields = ls * 8 + ls;  // psi, solid
  double instance = double(s.solid.size());
  for (const FieldArray* a : {&s.lat[0], &s.lat[1], &s.rho, &s.ux, &s.uy, &s.uz, &s.psi}) instance += 8.0 * double(a->size());
  return BytesHeld{2 * Q * ls * 8 + slab_fields + buffers, instance + slab_fields + buffers};
}

DeviceData slab_data(Slab& b) {
  return DeviceData().in(b.psi).in(b.solid).in(b.send_down).in(b.send_up).in(b.recv_below).in(b.recv_above);
}

void gather(const Slab& b, LbmInstance& s) {
  if (b.ranks == 1) return;  // the whole lattice is this rank's: exit_lattices put it there
  std::vector<int> counts(std::size_t(b.ranks)), offsets(std::size_t(b.ranks));
  for (int r = 0; r < b.ranks; ++r) {
    const long z0 = long(s.p.nz) * r / b.ranks, z1 = long(s.p.nz) * (r + 1) / b.ranks;
    counts[std::size_t(r)] = int((z1 - z0) * b.plane);
    offsets[std::size_t(r)] = int(z0 * b.plane);
  }
  // Each rank's own planes are in place already (exit_lattices).
  for (int i = 0; i < Q; ++i)
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, s.current() + i * s.grid.stride, counts.data(), offsets.data(),
                   MPI_DOUBLE, MPI_COMM_WORLD);
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

void whole_step(const LbmInstance& s, Slab& b, RunContext& ctx, bool halo_phases) {
  const int dev = ctx.device;
  psi_planes(s, b, dev, 1, b.nzl + 1);
  if (halo_phases) ctx.clock.lap("calculate_phi");
  exchange_psi(b, dev);
  ctx.clock.lap(halo_phases ? "halo_psi" : "calculate_phi");
  fn_planes(s, b, dev, 1, b.nzl + 1);
  if (halo_phases) ctx.clock.lap("calculate_fn");
  exchange_populations(b, dev);
  ctx.clock.lap(halo_phases ? "halo_populations" : "calculate_fn");
  b.cur ^= 1;
}

// The slab is made from the instance's initial state before timing, and its
// owned planes gathered back into the instance after, where validate() holds
// them against the single-process reference as for every lbm variant. The
// three functions share the run's slab through `state`, which only the
// variant's own functions see: made by enter_data, ended by exit_data.
Variant slab_variant(const char* name, const char* sentence, SlabRun run, const char* file) {
  Variant v;
  v.workload = "lbm";
  v.name = name;
  v.file = source_path(file);
  v.kind = Kind::target;
  v.sentence = sentence;
  auto state = std::make_shared<std::unique_ptr<Slab>>();
  const auto slab_of = [state, name = std::string(name)]() -> Slab& {
    if (!*state) throw std::logic_error(name + ": a repetition or exit_data without the slab enter_data makes");
    return **state;
  };
  v.run = [run, slab_of](Instance& instance, RunContext& ctx) {
    run(static_cast<LbmInstance&>(instance), slab_of(), ctx);
  };
  v.enter_data = [state](Instance& instance, RunContext& ctx) {
    LbmInstance& s = static_cast<LbmInstance&>(instance);
    std::unique_ptr<Slab> slab = make_slab(s, ctx.on_device);
    enter_lattices(*slab, s, ctx.on_device, ctx.device);
    slab_data(*slab).enter(ctx.device);
    choose_path(*slab, ctx.on_device, ctx.device);
    *state = std::move(slab);
  };
  v.exit_data = [state, slab_of](Instance& instance, RunContext& ctx) {
    Slab& b = slab_of();
    LbmInstance& s = static_cast<LbmInstance&>(instance);
    // How the halo moved and what it cost (warm-up steps included).
    ctx.notes["halo_path"] = path_name(b.path);
    ctx.notes["halo_bytes_per_step"] = long(halo_bytes_per_step(b));
    ctx.notes["halo_s_per_step"] = b.halo_steps > 0 ? b.halo_s / double(b.halo_steps) : 0.0;
    const double steps = double(std::max(b.halo_steps, 1L));
    ctx.notes["halo_parts_s_per_step"] = {{"pack", b.parts.pack / steps},       {"copy", b.parts.copy / steps},
                                          {"message", b.parts.message / steps}, {"unpack", b.parts.unpack / steps},
                                          {"self", b.parts.self / steps}};
    if (b.inner_wait_s > 0) ctx.notes["inner_wait_s_per_step"] = b.inner_wait_s / steps;
    const BytesHeld held = bytes_held(b, s);
    ctx.notes["device_bytes_held"] = held.device;
    ctx.notes["host_bytes_held"] = held.host;
    close_node_ipc(b);  // before any rank frees what a neighbour mapped
    exit_lattices(b, s, ctx.on_device, ctx.device);
    slab_data(b).exit(ctx.device);
    gather(b, s);
    state->reset();
  };
  return v.split_across_ranks();
}

namespace {

// One step at a time: each exchange after the pass it serves.
void target_slabs(LbmInstance& s, Slab& b, RunContext& ctx) {
  for (int step = 0; step < s.p.steps; ++step) whole_step(s, b, ctx, true);
}

const Registration target_slabs_registration{slab_variant(
    "target_slabs",
    "slabs along z over MPI ranks: target_fused's passes on each rank's slab, ghost planes of psi and of the crossing "
    "populations packed on the device and exchanged after each pass (a device copy on one rank, a device-to-device "
    "copy into the neighbours' mapped buffers between ranks of one node, device buffers to a CUDA-aware MPI, else the "
    "packed planes staged through the host)",
    target_slabs)
        .follows("target_fused")
        .uses({"target teams distribute parallel for", "collapse", "map(alloc)"})};

}  // namespace
}  // namespace ompref::lbm::slabs
