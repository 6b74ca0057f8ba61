// lbm over MPI ranks, slabs along z, step 2: the halo moves while the slab's
// inner planes compute. What it changes from target_slabs
// (`diff src/mpi/lbm_slabs.cpp src/mpi/lbm_slabs_overlap.cpp`, the run
// function at the end): each pass computes the two edge planes first (the
// planes a neighbour needs), then the inner planes [2, nzl) in an OpenMP task
// that a second host thread runs, its (synchronous) target region in flight
// on the device, while the master thread moves the edges' halo by the same
// path as target_slabs (lbm_halo.cpp: the device kernels that pack, copy and
// unpack, and MPI_THREAD_FUNNELED: MPI calls stay on the master thread).
// What runs beside the inner planes is only what needs no kernel: psi's
// exchange, and of the populations' the move between pack and unpack
// (node IPC: device-to-device copies on copy engines and empty MPI messages;
// CUDA-aware MPI: MPI; host-staged: `target update`s and MPI). The pack
// kernel runs before the task and the unpack kernel after the taskwait: a
// small kernel launched while the inner planes' kernel fills the device
// waits for its blocks to drain, and the exchange would end only with the
// inner planes, however fast the link (the halo's parts in the notes show
// which).
// Same cells, same arithmetic: the result is target_slabs' bit for bit. A
// rank that is its own neighbour (one rank) has only a device copy to hide,
// cheaper than the split, and runs target_slabs' order.
//
// The task and the exchange run at the same time, so they touch disjoint
// data (both read `solid`, neither writes it):
//   psi pass: the task writes psi of planes [2, nzl); the exchange reads psi
//     of the edge planes 1 and nzl and writes the ghost planes 0 and nzl + 1.
//   fn pass: the task reads f and psi and writes `out` only at cells of
//     planes [1, nzl] (a cell of plane z pushes into z - 1 .. z + 1; its
//     bounce-back writes its own cell). The move reads and writes only the
//     four halo buffers (send_up and send_down, packed from the ghost planes
//     before the task began; recv_below and recv_above, unpacked into the
//     edge planes after the taskwait). With nzl <= 2 there are no inner
//     planes and no task work.
#include <algorithm>

#include <omp.h>

#include "mpi/lbm_slabs.hpp"

namespace ompref::lbm::slabs {
namespace {

// A pass over the edge planes (1 and nzl; one plane when the slab has one).
void edges(void (*pass)(const SlabInstance&, Slab&, int, int, int), const SlabInstance& s, Slab& b, int dev) {
  pass(s, b, dev, 1, 2);
  if (b.nzl > 1) pass(s, b, dev, b.nzl, b.nzl + 1);
}

// The inner planes of a pass in a task, the exchange on the master thread;
// the master's wait for the task after its exchange is slab.inner_wait_s.
void inner_while(void (*pass)(const SlabInstance&, Slab&, int, int, int), void (*exchange)(Slab&, int),
                 const SlabInstance& s, Slab& b, int dev) {
  const int lo = 2, hi = std::max(2, b.nzl);
#pragma omp parallel num_threads(2)
#pragma omp masked
  {
#pragma omp task default(shared)
    pass(s, b, dev, lo, hi);
    exchange(b, dev);
    const double t = omp_get_wtime();
#pragma omp taskwait
    b.inner_wait_s += omp_get_wtime() - t;
  }
}

void target_slabs_overlap(SlabInstance& s, Slab& b, RunContext& ctx) {
  const int dev = ctx.device;
  for (int step = 0; step < s.p.steps; ++step) {
    if (b.path == HaloPath::device_copy) {
      // A rank that is its own neighbour: its halo is one copy kernel on the
      // device (0.2 ms a step at 512x512x256 on an H100), less than the
      // split costs (two more launches and a parallel region a pass), so
      // there is nothing to hide and the passes run whole, as in target_slabs.
      whole_step(s, b, ctx, false);
      continue;
    }
    edges(psi_planes, s, b, dev);
    inner_while(psi_planes, exchange_psi, s, b, dev);
    ctx.clock.lap("calculate_phi");
    edges(fn_planes, s, b, dev);
    pack_populations(b, dev);
    inner_while(fn_planes, move_populations, s, b, dev);
    unpack_populations(b, dev);
    ctx.clock.lap("calculate_fn");
    b.cur ^= 1;
  }
}

const Registration target_slabs_overlap_registration{slab_variant(
    "target_slabs_overlap",
    "target_slabs with the halo hidden: edge planes first, then the inner planes in a task while the master thread "
    "moves the edges' halo (by target_slabs' path)",
    target_slabs_overlap)
        .follows("target_slabs")
        .uses({"taskwait", "num_threads"})};  // the passes and exchanges it calls are target_slabs'

}  // namespace
}  // namespace ompref::lbm::slabs
