// lbm over MPI ranks (lbm_slabs.hpp): the halo's four paths (lbm_halo.hpp; node
// IPC's mappings and copies are lbm_ipc.cpp's),
// the kernels that pack, unpack and copy the ghost planes, and the two
// exchanges. Every kernel is a synchronous target region naming with
// map(alloc:) the arrays slab_data entered, nothing else: the exchanges may
// run beside the overlap form's inner planes (lbm_slabs_overlap.cpp), and a
// synchronous region with present arrays has nothing to outlive. No
// `target update nowait` either: the overlap form's taskwait would wait for
// it and for the inner planes alike; the copies overlap the messages instead
// (nonblocking MPI: one packed buffer travels while the next is copied).
#include <mpi.h>
#include <omp.h>

#include <cstdlib>
#include <new>
#include <utility>

#include "mpi/lbm_slabs.hpp"

// OpenMPI declares its CUDA extension here (MPIX_CUDA_AWARE_SUPPORT, the
// build's; MPIX_Query_cuda_support(), the library's at run time).
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace ompref::lbm::slabs {

const char* path_name(HaloPath path) {
  switch (path) {
    case HaloPath::device_copy: return "device copy";
    case HaloPath::node_ipc: return "node IPC";
    case HaloPath::device_mpi: return "CUDA-aware MPI";
    case HaloPath::host_staged: return "host-staged";
  }
  return "?";
}

bool mpi_reads_device_memory() {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  // Asked at run time: a program built against one OpenMPI runs under another.
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

namespace {

enum Tag { psi_down, psi_up, populations_up, populations_down };

// Adds the seconds since `since` to `part`; returns the time now.
double lap(double& part, double since) {
  const double now = omp_get_wtime();
  part += now - since;
  return now;
}

// (A build without offload drops the directives: hence [[maybe_unused]].)
void update_from([[maybe_unused]] double* p, [[maybe_unused]] long offset, [[maybe_unused]] long count,
                 [[maybe_unused]] int dev) {
#pragma omp target update from(p[offset:count]) device(dev)
}
void update_to([[maybe_unused]] double* p, [[maybe_unused]] long offset, [[maybe_unused]] long count,
               [[maybe_unused]] int dev) {
#pragma omp target update to(p[offset:count]) device(dev)
}

// The device address of a host array entered by slab_data.
double* device_address(double* p, [[maybe_unused]] int dev) {
  double* address = p;
#pragma omp target data use_device_ptr(p) device(dev)
  address = p;
  return address;
}

// One rank: the plane below the first is its own last, the plane above the
// last its own first (z periodic).
void psi_self(Slab& b, int dev) {
  const long stride = b.g.stride, plane = b.plane, first = plane, last = b.nzl * plane, top = (b.nzl + 1) * plane;
  double* psi = b.psi.data();
#pragma omp target teams distribute parallel for device(dev) map(alloc : psi[0:stride])
  for (long c = 0; c < plane; ++c) {
    psi[c] = psi[last + c];
    psi[top + c] = psi[first + c];
  }
}

// Which crossing populations land in column (x, y)'s edge planes: bit d of
// `first` where up[d] lands in the first plane, bit d of `last` where down[d]
// lands in the last; a population lands where its source cell (in the ghost
// plane it comes from) is fluid.
struct Landing {
  unsigned first = 0, last = 0;
};
#pragma omp declare target
inline Landing landing(const Grid& g, const std::uint8_t* solid, int x, int y, int nzl) {
  int nb_first[Q], nb_last[Q];
  neighbour_indices(g, x, y, 1, nb_first);
  neighbour_indices(g, x, y, nzl, nb_last);
  Landing l;
  for (int d = 0; d < crossing; ++d) {
    if (!solid[nb_first[opp(up[d])]]) l.first |= 1u << d;
    if (!solid[nb_last[opp(down[d])]]) l.last |= 1u << d;
  }
  return l;
}
#pragma omp end declare target

// One rank: what the last plane pushed up into the ghost plane above lands
// in the first plane, what the first pushed down into the ghost plane below
// lands in the last, where the source cell (in the opposite ghost plane) is
// fluid: exchange_populations' landing rule. Reads ghost planes, writes the
// edge planes' crossing directions (with one plane, its up and its down
// directions: other slots).
void populations_self(Slab& b, int dev) {
  const Grid g = b.g;
  const long stride = g.stride, plane = b.plane, top = (b.nzl + 1) * plane;
  const int nzl = b.nzl;
  double* out = b.next();
  const std::uint8_t* solid = b.solid.data();
#pragma omp target teams distribute parallel for collapse(2) firstprivate(g) device(dev) \
    map(alloc : out[0:Q * stride], solid[0:stride])
  for (int y = 0; y < g.ny; ++y)
    for (int x = 0; x < g.nx; ++x) {
      const long c = x + long(g.nx) * y, first = c + plane, last = c + nzl * plane;
      const Landing lands = landing(g, solid, x, y, nzl);
      for (int d = 0; d < crossing; ++d) {
        if (lands.first >> d & 1u) out[up[d] * stride + first] = out[up[d] * stride + top + c];
        if (lands.last >> d & 1u) out[down[d] * stride + last] = out[down[d] * stride + c];
      }
    }
}

// The ghost planes' crossing populations into send_up and send_down (device).
void pack_kernel(Slab& b, int dev) {
  const long stride = b.g.stride, plane = b.plane, top = (b.nzl + 1) * plane, n = crossing * plane;
  const double* out = b.next();
  double *send_up = b.send_up.data(), *send_down = b.send_down.data();
#pragma omp target teams distribute parallel for collapse(2) device(dev) \
    map(alloc : out[0:Q * stride], send_up[0:n], send_down[0:n])
  for (int d = 0; d < crossing; ++d)
    for (long c = 0; c < plane; ++c) {
      send_up[d * plane + c] = out[up[d] * stride + top + c];
      send_down[d * plane + c] = out[down[d] * stride + c];
    }
}

// recv_below and recv_above (device) into the edge planes, where the source
// cell (in the ghost plane) is fluid.
void unpack_kernel(Slab& b, int dev) {
  const Grid g = b.g;
  const long stride = g.stride, plane = b.plane, n = crossing * plane;
  const int nzl = b.nzl;
  double* out = b.next();
  const std::uint8_t* solid = b.solid.data();
  const double *recv_below = b.recv_below.data(), *recv_above = b.recv_above.data();
#pragma omp target teams distribute parallel for collapse(2) firstprivate(g) device(dev) \
    map(alloc : out[0:Q * stride], solid[0:stride], recv_below[0:n], recv_above[0:n])
  for (int y = 0; y < g.ny; ++y)
    for (int x = 0; x < g.nx; ++x) {
      const long c = x + long(g.nx) * y, first = c + plane, last = c + nzl * plane;
      const Landing lands = landing(g, solid, x, y, nzl);
      for (int d = 0; d < crossing; ++d) {
        if (lands.first >> d & 1u) out[up[d] * stride + first] = recv_below[d * plane + c];
        if (lands.last >> d & 1u) out[down[d] * stride + last] = recv_above[d * plane + c];
      }
    }
}

// Sends `count` doubles at `send` to `to`, receives as many from `from` into
// `receive`; `ready` (may be null) makes the send's data ready first, after
// the receive is posted.
struct Message {
  double *send, *receive;
  int to, from, tag;
};
// Its `ready` calls count as copies, the rest as messages.
void exchange_two(const Message (&m)[2], long count, void (*ready)(Slab&, int, int), Slab& b, int dev) {
  MPI_Request requests[4];
  double t = omp_get_wtime();
  for (int i = 0; i < 2; ++i)
    MPI_Irecv(m[i].receive, int(count), MPI_DOUBLE, m[i].from, m[i].tag, MPI_COMM_WORLD, &requests[i]);
  for (int i = 0; i < 2; ++i) {
    if (ready) {
      t = lap(b.parts.message, t);
      ready(b, dev, i);
      t = lap(b.parts.copy, t);
    }
    MPI_Isend(m[i].send, int(count), MPI_DOUBLE, m[i].to, m[i].tag, MPI_COMM_WORLD, &requests[2 + i]);
  }
  MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
  lap(b.parts.message, t);
}

}  // namespace

void choose_path(Slab& b, bool on_device, int dev) {
  if (b.ranks == 1) {
    b.path = HaloPath::device_copy;
    return;
  }
  if (on_device) {
    b.device_psi = device_address(b.psi.data(), dev);
    b.device_send_up = device_address(b.send_up.data(), dev);
    b.device_send_down = device_address(b.send_down.data(), dev);
    b.device_recv_below = device_address(b.recv_below.data(), dev);
    b.device_recv_above = device_address(b.recv_above.data(), dev);
  }
  // (open_node_ipc is collective: every rank asks, whatever its own answer.)
  b.path = open_node_ipc(b)                           ? HaloPath::node_ipc
           : on_device && mpi_reads_device_memory() ? HaloPath::device_mpi
                                                    : HaloPath::host_staged;
}

namespace {

// Node IPC: this rank's planes are in its neighbours' memory; an empty
// message tells each so (tag `to_above` up, `to_below` down), and the
// exchange ends when both neighbours have said the same of theirs.
// Its time from `since` counts as messages.
void planes_are_there(Slab& b, int to_above, int to_below, double since) {
  MPI_Request requests[4];
  MPI_Irecv(nullptr, 0, MPI_BYTE, b.below, to_above, MPI_COMM_WORLD, &requests[0]);
  MPI_Irecv(nullptr, 0, MPI_BYTE, b.above, to_below, MPI_COMM_WORLD, &requests[1]);
  MPI_Isend(nullptr, 0, MPI_BYTE, b.above, to_above, MPI_COMM_WORLD, &requests[2]);
  MPI_Isend(nullptr, 0, MPI_BYTE, b.below, to_below, MPI_COMM_WORLD, &requests[3]);
  MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
  lap(b.parts.message, since);
}

}  // namespace

void exchange_psi(Slab& b, int dev) {
  const double t0 = omp_get_wtime();
  const long plane = b.plane, first = plane, last = b.nzl * plane, top = (b.nzl + 1) * plane;
  if (b.path == HaloPath::device_copy) {
    psi_self(b, dev);
    lap(b.parts.self, t0);
  } else if (b.path == HaloPath::node_ipc) {
    put_psi_ipc(b);
    planes_are_there(b, psi_up, psi_down, lap(b.parts.copy, t0));
  } else {
    const bool staged = b.path == HaloPath::host_staged;
    double* psi = staged ? b.psi.data() : b.device_psi;
    // The first plane goes down (the neighbour below's ghost above), the last up.
    const Message m[2] = {{psi + first, psi + top, b.below, b.above, psi_down},
                          {psi + last, psi, b.above, b.below, psi_up}};
    const auto from_device = [](Slab& s, int d, int i) {
      update_from(s.psi.data(), i == 0 ? s.plane : s.nzl * s.plane, s.plane, d);
    };
    exchange_two(m, plane, staged ? +from_device : nullptr, b, dev);
    if (staged) {
      const double t = omp_get_wtime();
      update_to(b.psi.data(), 0, plane, dev);
      update_to(b.psi.data(), top, plane, dev);
      lap(b.parts.copy, t);
    }
  }
  b.halo_s += omp_get_wtime() - t0;
  ++b.halo_steps;
}

void pack_populations(Slab& b, int dev) {
  const double t0 = omp_get_wtime();
  pack_kernel(b, dev);
  b.halo_s += lap(b.parts.pack, t0) - t0;
}

void move_populations(Slab& b, int dev) {
  const double t0 = omp_get_wtime();
  const long n = crossing * b.plane;
  if (b.path == HaloPath::node_ipc) {
    put_populations_ipc(b);
    planes_are_there(b, populations_up, populations_down, lap(b.parts.copy, t0));
  } else {
    const bool staged = b.path == HaloPath::host_staged;
    const Message m[2] = {
        {staged ? b.send_up.data() : b.device_send_up, staged ? b.recv_below.data() : b.device_recv_below, b.above,
         b.below, populations_up},
        {staged ? b.send_down.data() : b.device_send_down, staged ? b.recv_above.data() : b.device_recv_above,
         b.below, b.above, populations_down}};
    const auto from_device = [](Slab& s, int d, int i) {
      update_from(i == 0 ? s.send_up.data() : s.send_down.data(), 0, crossing * s.plane, d);
    };
    exchange_two(m, n, staged ? +from_device : nullptr, b, dev);
    if (staged) {
      const double t = omp_get_wtime();
      update_to(b.recv_below.data(), 0, n, dev);
      update_to(b.recv_above.data(), 0, n, dev);
      lap(b.parts.copy, t);
    }
  }
  b.halo_s += omp_get_wtime() - t0;
}

void unpack_populations(Slab& b, int dev) {
  const double t0 = omp_get_wtime();
  unpack_kernel(b, dev);
  b.halo_s += lap(b.parts.unpack, t0) - t0;
}

void exchange_populations(Slab& b, int dev) {
  if (b.path == HaloPath::device_copy) {
    const double t0 = omp_get_wtime();
    populations_self(b, dev);
    b.halo_s += lap(b.parts.self, t0) - t0;
    return;
  }
  pack_populations(b, dev);
  move_populations(b, dev);
  unpack_populations(b, dev);
}

}  // namespace ompref::lbm::slabs
