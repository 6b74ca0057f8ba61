#pragma once
// lbm over MPI ranks: the lattice split into slabs along z, as openLBMflow's
// MPI version and the multi-node runs of Ding et al. 2023 split it. Rank r of
// n owns the planes [nz r / n, nz (r + 1) / n) and keeps them between two
// ghost planes (local z = 0 and nzl + 1: its neighbours' edge planes, z
// periodic); walls stay the solid planes y = 0 and ny - 1 inside every slab.
// A step is target_fused's two passes (common/lbm/lbm_cell.hpp's psi_cell and
// fn_push_bounce, so every fluid cell computes what it computes in one
// process, bit for bit), each followed by an exchange:
//   psi:         the edge planes' psi go to the neighbours' ghost planes
//                (the force reads the psi of the 18 neighbours);
//   populations: what the edge planes pushed into a ghost plane (the five
//                directions with e_z > 0 upwards, e_z < 0 downwards) goes to
//                the neighbour's edge plane, where it lands wherever its
//                source cell is fluid (a solid source pushed nothing: the
//                bounce-back already wrote that slot).
// The halo stays on the device: packed and unpacked there, moved by one of
// lbm_halo.hpp's paths (device copy, node IPC, CUDA-aware MPI, host-staged).
// Two forms: lbm_slabs.cpp exchanges, then computes; lbm_slabs_overlap.cpp
// computes the slab's inner planes while the edges' halo moves.
#include <cstdint>
#include <memory>

#include "common/aligned_array.hpp"
#include "common/lbm/lbm.hpp"
#include "common/lbm/lbm_items.hpp"
#include "common/registry.hpp"
#include "mpi/lbm_halo.hpp"
#include "mpi/lbm_slab_instance.hpp"

namespace ompref::lbm::slabs {

// The directions that cross a slab face, upwards and downwards.
#pragma omp declare target
constexpr int crossing = 5;
constexpr int up[crossing] = {9, 10, 11, 15, 16};     // e_z = +1
constexpr int down[crossing] = {12, 13, 14, 17, 18};  // e_z = -1
#pragma omp end declare target

struct Slab {
  int rank = 0, ranks = 1, below = 0, above = 0;
  int z0 = 0, nzl = 0;   // first owned global plane; planes owned
  long plane = 0;        // cells of one plane
  Grid g;                // nx x ny x (nzl + 2): ghost planes at z = 0 and nzl + 1
  // The lattices: the rank's SlabInstance's (lbm_slab_instance.hpp), mapped
  // by enter_lattices; psi and the mask the run's own.
  double* lat[2] = {nullptr, nullptr};
  AlignedArray<double> psi;
  AlignedArray<std::uint8_t> solid;
  // The packed crossing populations (device arrays, entered by slab_data):
  // what goes to the neighbour below / above, what comes from them. Their
  // host side is the staging of the host-staged path: page-locked where
  // asked and the runtime offers it (lbm.hpp's FieldArray), so that the
  // driver copies them without a bounce through a pageable buffer.
  FieldArray send_down, send_up, recv_below, recv_above;
  HaloPath path = HaloPath::host_staged;
  // The device addresses of psi and the four buffers (node IPC and
  // CUDA-aware MPI paths).
  double *device_psi = nullptr, *device_send_down = nullptr, *device_send_up = nullptr;
  double *device_recv_below = nullptr, *device_recv_above = nullptr;
  std::unique_ptr<NodeIpc, NodeIpcDeleter> ipc;  // node IPC's mappings
  double halo_s = 0;    // wall time in the exchanges so far
  long halo_steps = 0;  // steps exchanged so far
  // Where halo_s went, timestamped around each part of the exchanges (the
  // run's notes: halo_parts_s_per_step): kernels that pack the ghost planes
  // and unpack what arrived (device), copies of the planes (node IPC's device
  // to device copies and their stream wait; the host-staged path's `target
  // update`s), MPI's messages (waiting for the neighbours' data, or for
  // their "your planes are there"), and the device copy path's kernels.
  struct HaloParts {
    double pack = 0, copy = 0, message = 0, unpack = 0, self = 0;
  } parts;
  // target_slabs_overlap: the master thread's wait for the inner planes
  // after its exchange ended (zero where the exchange took longer).
  double inner_wait_s = 0;
  int cur = 0;
  double* current() { return lat[cur]; }
  double* next() { return lat[cur ^ 1]; }
};

// The run's slab of the rank's SlabInstance `s`: its planes, its mask, psi
// poisoned, the instance's lattices (entered by enter_lattices), its staging
// buffers page-locked if asked.
std::unique_ptr<Slab> make_slab(SlabInstance& s, bool page_locked);
// The instance's two lattices entered on `dev` (copied there where
// `on_device`: the whole slab, ghost planes included), and after the run the
// current one copied back into the instance (its `cur` set) and both
// released.
void enter_lattices(Slab& slab, bool on_device, int dev);
void exit_lattices(Slab& slab, SlabInstance& s, bool on_device, int dev);
// The halo's path (lbm_halo.hpp) for a slab whose data slab_data entered on
// `dev` (`on_device`: target regions really run there).
void choose_path(Slab& slab, bool on_device, int dev);
// Every array of the slab but the lattices, for the runner's data region.
DeviceData slab_data(Slab& slab);

// The two passes and the two exchanges, on planes [z_lo, z_hi) of the slab.
void psi_planes(const SlabInstance& s, Slab& slab, int dev, int z_lo, int z_hi);
void fn_planes(const SlabInstance& s, Slab& slab, int dev, int z_lo, int z_hi);
// (lbm_halo.cpp; each adds its wall time to slab.halo_s and its parts.)
// psi's edge planes to the neighbours' ghost planes; once a step.
void exchange_psi(Slab& slab, int dev);
// The ghost planes' crossing populations to the neighbours, theirs into the
// edge planes: pack_populations, move_populations, unpack_populations (on
// one rank, a kernel of its own).
void exchange_populations(Slab& slab, int dev);
// The parts of exchange_populations between ranks. move_populations runs
// no kernel on the node IPC and CUDA-aware paths (copy engines and MPI only),
// so that it can run beside a kernel that fills the device; pack before it,
// unpack after it.
void pack_populations(Slab& slab, int dev);
void move_populations(Slab& slab, int dev);
void unpack_populations(Slab& slab, int dev);
// One step of whole passes over planes [1, nzl], each followed by its
// exchange (target_slabs' order); the exchanges are phases of their own where
// `halo_phases`, else timed with the pass they follow.
void whole_step(const SlabInstance& s, Slab& slab, RunContext& ctx, bool halo_phases);
// The halo's bytes one rank sends per step: psi's two edge planes and the
// crossing directions of the two ghost planes.
inline double halo_bytes_per_step(const Slab& slab) { return 8.0 * slab.plane * (2 + 2 * crossing); }
// The bytes this rank holds on its device (the slab's two lattices, psi,
// the mask and the four halo buffers, as allocated) and on the host for the
// run and its validation (lbm.hpp's slab_host_bytes: no array of the whole
// lattice).
struct BytesHeld {
  double device = 0, host = 0;
};
BytesHeld bytes_held(const Slab& slab, const SlabInstance& s);

// A slab variant: it runs on the rank's SlabInstance (its part_of:
// slab_part), and `run` is one repetition on the run's slab. The slab is a
// state object of the variant's run: its enter_data makes it (make_slab,
// enter_lattices, slab_data, choose_path), each repetition is handed it, and
// its exit_data ends it (notes, IPC closed, the state home in the instance,
// freed). `file` is the registering source file (the call site's).
using SlabRun = void (*)(SlabInstance&, Slab&, RunContext&);
Variant slab_variant(const char* name, const char* sentence, SlabRun run, const char* file = __builtin_FILE());

}  // namespace ompref::lbm::slabs
