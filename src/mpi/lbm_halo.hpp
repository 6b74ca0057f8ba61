#pragma once
// lbm over MPI ranks (lbm_slabs.hpp): how a slab's halo moves. The ghost
// planes are packed and unpacked by device kernels; what lies between them
// depends on who the neighbour is and what MPI can read:
//   device copy      one rank, its own neighbour: one kernel moves the edge
//                    planes into the ghost planes (psi) and the ghost planes
//                    into the opposite edge planes (populations); no MPI;
//   node IPC         every rank on one node, target regions on a CUDA
//                    device: each rank maps its neighbours' device psi and
//                    receive buffers into its own address space once (CUDA
//                    IPC handles, lbm_ipc.cpp), copies its planes straight
//                    into them device to device, and MPI carries only an
//                    empty message a neighbour: "your planes are there";
//   CUDA-aware MPI   MPI is given the device buffers (OpenMPI's
//                    MPIX_Query_cuda_support() says it reads them) and target
//                    regions really run on a device;
//   host-staged      otherwise: only the packed planes cross to the host and
//                    back (`target update`), into page-locked host buffers
//                    where the OpenMP runtime offers them.
// lbm_halo.cpp holds the kernels and the exchanges; docs/mpi.md their costs.
#include <cstddef>
#include <memory>

namespace ompref::lbm::slabs {

enum class HaloPath { device_copy, node_ipc, device_mpi, host_staged };

// The path's name in the run's notes and docs/mpi.md.
const char* path_name(HaloPath path);

// Whether the MPI library in use reads device memory: OpenMPI's run-time
// query where its <mpi-ext.h> has the CUDA extension; false otherwise.
bool mpi_reads_device_memory();

struct Slab;

// The node IPC path (lbm_ipc.cpp). Collective: true when every rank mapped
// its neighbours' buffers (the build has CUDA's driver API header, the
// driver loads, every rank is on one node and on a CUDA device); false, with
// nothing left open, otherwise.
bool open_node_ipc(Slab& slab);
// Copies the first plane of psi into the neighbour below's upper ghost
// plane and the last into the neighbour above's lower one; returns when both
// copies are complete.
void put_psi_ipc(Slab& slab);
// Copies send_up into the neighbour above's recv_below and send_down into
// the neighbour below's recv_above; returns when both are complete.
void put_populations_ipc(Slab& slab);
// Unmaps the neighbours' buffers; collective (a rank frees its own only
// after every neighbour has unmapped them).
void close_node_ipc(Slab& slab);
// What node IPC keeps open (lbm_ipc.cpp), freed by close_node_ipc.
struct NodeIpc;
struct NodeIpcDeleter {
  void operator()(NodeIpc* ipc) const;
};

}  // namespace ompref::lbm::slabs
