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

std::unique_ptr<Slab> make_slab(SlabInstance& s, bool page_locked) {
  auto slab = std::make_unique<Slab>();
  Slab& b = *slab;
  b.rank = s.rank;
  b.ranks = s.ranks;
  b.below = s.below;
  b.above = s.above;
  b.z0 = s.z0;
  b.nzl = s.nzl;
  b.plane = s.plane;
  b.g = s.g;
  const long ls = b.g.stride;
  b.lat[0] = s.lat[0].data();
  b.lat[1] = s.lat[1].data();
  b.cur = s.cur;
  b.psi = AlignedArray<double>(std::size_t(ls));
  b.solid = AlignedArray<std::uint8_t>(std::size_t(ls));
  for (FieldArray* buffer : {&b.send_down, &b.send_up, &b.recv_below, &b.recv_above})
    *buffer = FieldArray(std::size_t(crossing * b.plane), page_locked);
  // The instance's mask (ghost planes and padding included); psi poisoned.
  std::memcpy(b.solid.data(), s.solid.data(), std::size_t(ls));
  const double nan = std::numeric_limits<double>::quiet_NaN();
#pragma omp parallel for
  for (long k = 0; k < ls; ++k) b.psi[std::size_t(k)] = nan;
  return slab;
}

// The slab's two lattices, the instance's, entered on the device: copied
// whole from the instance's page-locked arrays (lbm.hpp's FieldArray: at the
// link's rate), ghost planes and padding included. On the host the kernels
// run on the instance's arrays themselves.
void enter_lattices(Slab& b, bool, int dev) {
  const long ls = b.g.stride;
  [[maybe_unused]] double *l0 = b.lat[0], *l1 = b.lat[1];
#pragma omp target enter data device(dev) map(to : l0[0:Q * ls], l1[0:Q * ls])
}

// The current lattice back into the instance, whose state it is from now
// on, and both lattices released from the device.
void exit_lattices(Slab& b, SlabInstance& s, bool, int dev) {
  const long ls = b.g.stride;
  [[maybe_unused]] double* state = b.current();
#pragma omp target update device(dev) from(state[0:Q * ls])
  [[maybe_unused]] double *l0 = b.lat[0], *l1 = b.lat[1];
#pragma omp target exit data device(dev) map(release : l0[0:Q * ls], l1[0:Q * ls])
  s.cur = b.cur;
}

BytesHeld bytes_held(const Slab& b, const SlabInstance& s) {
  const double ls = double(b.g.stride), buffers = 4.0 * crossing * double(b.plane) * 8;
  const double slab_fields = double(b.psi.size()) * 8 + double(b.solid.size());  // psi, solid
  return BytesHeld{2 * Q * ls * 8 + slab_fields + buffers, slab_host_bytes(s.p, s.nzl)};
}

DeviceData slab_data(Slab& b) {
  return DeviceData().in(b.psi).in(b.solid).in(b.send_down).in(b.send_up).in(b.recv_below).in(b.recv_above);
}

// psi of every cell of planes [z_lo, z_hi): target_fused's first pass.
void psi_planes(const SlabInstance& s, Slab& b, int dev, int z_lo, int z_hi) {
  const Coeffs c = s.coeffs;
  const Grid g = b.g;
  const double* f = b.current();
  const std::uint8_t* solid = b.solid.data();
  double* psi = b.psi.data();
#pragma omp target teams distribute parallel for collapse(3) firstprivate(c, g) device(dev) \
    map(alloc : f[0:Q * g.stride], solid[0:g.stride], psi[0:g.stride])
  for (int z = z_lo; z < z_hi; ++z)
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) psi_item<long>(c, g, f, solid, psi, x, y, z);
}

// Force, collision, push and bounce-back of the fluid cells of planes
// [z_lo, z_hi): target_fused's second pass; the pushes across a slab face
// land in the ghost planes.
void fn_planes(const SlabInstance& s, Slab& b, int dev, int z_lo, int z_hi) {
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
      for (int x = 0; x < g.nx; ++x) fused_item(c, g, f, out, solid, psi, x, y, z);
}

void whole_step(const SlabInstance& s, Slab& b, RunContext& ctx, bool halo_phases) {
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

// The variant runs on the rank's slab (slab_part), reset and validated
// there: each rank holds and checks only its own planes. The three functions
// share the run's slab through `state`, which only the variant's own
// functions see: made by enter_data, ended by exit_data.
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
  v.part_of = slab_part;
  v.run = [run, slab_of](Instance& instance, RunContext& ctx) {
    run(static_cast<SlabInstance&>(instance), slab_of(), ctx);
  };
  v.enter_data = [state](Instance& instance, RunContext& ctx) {
    SlabInstance& s = static_cast<SlabInstance&>(instance);
    std::unique_ptr<Slab> slab = make_slab(s, ctx.on_device);
    enter_lattices(*slab, ctx.on_device, ctx.device);
    slab_data(*slab).enter(ctx.device);
    choose_path(*slab, ctx.on_device, ctx.device);
    *state = std::move(slab);
  };
  v.exit_data = [state, slab_of](Instance& instance, RunContext& ctx) {
    Slab& b = slab_of();
    SlabInstance& s = static_cast<SlabInstance&>(instance);
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
    state->reset();
  };
  return v.split_across_ranks();
}

namespace {

// One step at a time: each exchange after the pass it serves.
void target_slabs(SlabInstance& s, Slab& b, RunContext& ctx) {
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
