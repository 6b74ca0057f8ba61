// lbm over MPI ranks (lbm_slabs.hpp): the halo's node IPC path
// (lbm_halo.hpp). Ranks of one node whose slabs live on CUDA devices map
// their neighbours' device psi and receive buffers into their own address
// space once (CUDA IPC: cuIpcGetMemHandle, cuIpcOpenMemHandle), and each
// exchange copies the edge planes straight into them, device to device, on a
// stream of its own. The copies are complete when put_* returns; the
// exchange (lbm_halo.cpp) then tells each neighbour so with an empty MPI
// message and waits for theirs, so a rank reads its ghost planes or receive
// buffers only once both neighbours' planes are there.
//
// Why a neighbour may write at any time without asking: a rank writes into
// another's ghost psi in exchange_psi of step k + 1 only after that rank's
// "populations are there" of step k, which it sends after its fn pass over
// the edge planes of step k, the only pass that reads the ghost psi; and it
// writes into another's receive buffers in exchange_populations of step
// k + 1 only after that rank's "psi is there" of step k + 1, which it sends
// after unpacking step k's buffers.
//
// The device pointers are the OpenMP runtime's (use_device_ptr): LLVM's
// CUDA plugin allocates them with cuMemAlloc in the device's primary
// context, the memory CUDA IPC exports. The driver API is loaded at run time
// (libcuda.so.1, already loaded by that plugin), so the program links and
// starts without it; a build without CUDA's header, or a run without a
// driver, on several nodes or on the host fallback, does not open the path
// and the exchange takes the next one.
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "mpi/lbm_slabs.hpp"

#if defined(OMPREF_CUDA_IPC)
#include <cuda.h>
#include <dlfcn.h>
#endif

namespace ompref::lbm::slabs {

#if defined(OMPREF_CUDA_IPC)

namespace {

// The driver API functions the path calls, found by the versioned names
// cuda.h maps each to (cuMemGetAddressRange is cuMemGetAddressRange_v2).
struct Driver {
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuGetErrorString) error_string = nullptr;
  decltype(&::cuPointerGetAttribute) pointer_attribute = nullptr;
  decltype(&::cuCtxSetCurrent) set_current = nullptr;
  decltype(&::cuMemGetAddressRange) address_range = nullptr;
  struct Ipc {  // an allocation's handle, and a neighbour's allocation opened and closed through it
    decltype(&::cuIpcGetMemHandle) get = nullptr;
    decltype(&::cuIpcOpenMemHandle) open = nullptr;
    decltype(&::cuIpcCloseMemHandle) close = nullptr;
  } ipc;
  struct Stream {  // the exchange's stream and its copies
    decltype(&::cuStreamCreate) create = nullptr;
    decltype(&::cuStreamDestroy) destroy = nullptr;
    decltype(&::cuMemcpyDtoDAsync) copy = nullptr;
    decltype(&::cuStreamSynchronize) synchronize = nullptr;
  } stream;
  bool loaded = false;
};

// The name a driver API macro stands for, as a string.
#define OMPREF_CUDA_SYMBOL(name) OMPREF_CUDA_SYMBOL_TEXT(name)
#define OMPREF_CUDA_SYMBOL_TEXT(name) #name

template <class F>
bool find(void* library, F& function, const char* name) {
  function = reinterpret_cast<F>(dlsym(library, name));
  return function != nullptr;
}

const Driver& driver() {
  static const Driver loaded = [] {
    Driver d;
    void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) return d;
    d.loaded = find(library, d.init, OMPREF_CUDA_SYMBOL(cuInit)) &&
               find(library, d.error_string, OMPREF_CUDA_SYMBOL(cuGetErrorString)) &&
               find(library, d.pointer_attribute, OMPREF_CUDA_SYMBOL(cuPointerGetAttribute)) &&
               find(library, d.set_current, OMPREF_CUDA_SYMBOL(cuCtxSetCurrent)) &&
               find(library, d.address_range, OMPREF_CUDA_SYMBOL(cuMemGetAddressRange)) &&
               find(library, d.ipc.get, OMPREF_CUDA_SYMBOL(cuIpcGetMemHandle)) &&
               find(library, d.ipc.open, OMPREF_CUDA_SYMBOL(cuIpcOpenMemHandle)) &&
               find(library, d.ipc.close, OMPREF_CUDA_SYMBOL(cuIpcCloseMemHandle)) &&
               find(library, d.stream.create, OMPREF_CUDA_SYMBOL(cuStreamCreate)) &&
               find(library, d.stream.destroy, OMPREF_CUDA_SYMBOL(cuStreamDestroy)) &&
               find(library, d.stream.copy, OMPREF_CUDA_SYMBOL(cuMemcpyDtoDAsync)) &&
               find(library, d.stream.synchronize, OMPREF_CUDA_SYMBOL(cuStreamSynchronize)) &&
               d.init(0) == CUDA_SUCCESS;
    return d;
  }();
  return loaded;
}

#undef OMPREF_CUDA_SYMBOL
#undef OMPREF_CUDA_SYMBOL_TEXT

// A failed driver call in an exchange: the run cannot go on.
void check(CUresult result, const char* what) {
  if (result == CUDA_SUCCESS) return;
  const char* text = nullptr;
  driver().error_string(result, &text);
  throw std::runtime_error(fmt::format("node IPC halo: {} failed: {}", what, text ? text : "unknown CUDA error"));
}

CUdeviceptr address(const double* p) { return CUdeviceptr(reinterpret_cast<std::uintptr_t>(p)); }

// What a rank tells the others: its psi and two receive buffers, each as
// the IPC handle of its allocation and its byte offset there, and where its
// upper ghost plane of psi starts (in doubles: it depends on its planes).
enum Buffer { psi_buffer, recv_below_buffer, recv_above_buffer, buffers };
struct Exported {
  CUipcMemHandle handle[buffers];
  long offset[buffers];
  long psi_top;
};

}  // namespace

struct NodeIpc {
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  std::vector<CUdeviceptr> opened;  // the neighbours' allocations, mapped here
  // Where this rank's planes go: the neighbour below's upper ghost plane of
  // psi and its recv_above; the neighbour above's lower ghost plane of psi
  // and its recv_below.
  CUdeviceptr below_psi_top = 0, below_recv_above = 0, above_psi_bottom = 0, above_recv_below = 0;
};

void NodeIpcDeleter::operator()(NodeIpc* ipc) const {
  if (ipc == nullptr) return;
  const Driver& d = driver();
  // Nothing was opened where the driver did not load or no context was found
  // (the host fallback, a machine without a GPU).
  if (d.loaded && ipc->context != nullptr) {
    d.set_current(ipc->context);
    for (CUdeviceptr base : ipc->opened) d.ipc.close(base);
    if (ipc->stream != nullptr) d.stream.destroy(ipc->stream);
  }
  delete ipc;
}

namespace {

// This rank's buffers as handles; false where the driver refuses any.
bool export_buffers(const Slab& b, NodeIpc& ipc, Exported& out) {
  const Driver& d = driver();
  if (d.pointer_attribute(&ipc.context, CU_POINTER_ATTRIBUTE_CONTEXT, address(b.device_psi)) != CUDA_SUCCESS ||
      d.set_current(ipc.context) != CUDA_SUCCESS)
    return false;
  const double* mine[buffers] = {b.device_psi, b.device_recv_below, b.device_recv_above};
  for (int i = 0; i < buffers; ++i) {
    CUdeviceptr base = 0;
    std::size_t size = 0;
    if (d.address_range(&base, &size, address(mine[i])) != CUDA_SUCCESS ||
        d.ipc.get(&out.handle[i], base) != CUDA_SUCCESS)
      return false;
    out.offset[i] = long(address(mine[i]) - base);
  }
  out.psi_top = (b.nzl + 1) * b.plane;
  return d.stream.create(&ipc.stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS;
}

// The neighbours' buffers mapped here (a neighbour below and above at once,
// as with two ranks, is mapped once); false where the driver refuses any.
bool map_neighbours(const Slab& b, const std::vector<Exported>& all, NodeIpc& ipc) {
  const Driver& d = driver();
  std::vector<std::pair<int, int>> keys;  // (rank, buffer) of ipc.opened
  const auto mapped = [&](int rank, Buffer which, CUdeviceptr& out) {
    const Exported& e = all[std::size_t(rank)];
    for (std::size_t k = 0; k < keys.size(); ++k)
      if (keys[k] == std::pair{rank, int(which)}) {
        out = ipc.opened[k] + CUdeviceptr(e.offset[which]);
        return true;
      }
    CUdeviceptr base = 0;
    if (d.ipc.open(&base, e.handle[which], CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) != CUDA_SUCCESS) return false;
    keys.emplace_back(rank, int(which));
    ipc.opened.push_back(base);
    out = base + CUdeviceptr(e.offset[which]);
    return true;
  };
  CUdeviceptr below_psi = 0;
  if (!mapped(b.below, psi_buffer, below_psi) || !mapped(b.above, psi_buffer, ipc.above_psi_bottom) ||
      !mapped(b.below, recv_above_buffer, ipc.below_recv_above) ||
      !mapped(b.above, recv_below_buffer, ipc.above_recv_below))
    return false;
  ipc.below_psi_top = below_psi + CUdeviceptr(all[std::size_t(b.below)].psi_top * long(sizeof(double)));
  return true;
}

bool everywhere(bool ok) {
  int local = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&local, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

}  // namespace

bool open_node_ipc(Slab& b) {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, b.rank, MPI_INFO_NULL, &node);
  int node_ranks = 0;
  MPI_Comm_size(node, &node_ranks);
  MPI_Comm_free(&node);
  std::unique_ptr<NodeIpc, NodeIpcDeleter> ipc(new NodeIpc);
  Exported mine{};
  const bool exported = node_ranks == b.ranks && b.device_psi != nullptr && driver().loaded &&
                        export_buffers(b, *ipc, mine);
  if (!everywhere(exported)) return false;
  std::vector<Exported> all(std::size_t(b.ranks));
  MPI_Allgather(&mine, int(sizeof mine), MPI_BYTE, all.data(), int(sizeof mine), MPI_BYTE, MPI_COMM_WORLD);
  const bool ok = everywhere(map_neighbours(b, all, *ipc));
  if (!ok) {
    ipc.reset();
    MPI_Barrier(MPI_COMM_WORLD);  // every mapping closed before any rank frees its buffers
    return false;
  }
  b.ipc = std::move(ipc);
  return true;
}

namespace {

// Two copies of `bytes` on the path's stream; returns when both are complete.
void put_two(const NodeIpc& ipc, CUdeviceptr to_below, const double* from_below, CUdeviceptr to_above,
             const double* from_above, std::size_t bytes, const char* what) {
  const Driver& d = driver();
  check(d.set_current(ipc.context), "cuCtxSetCurrent");
  check(d.stream.copy(to_below, address(from_below), bytes, ipc.stream), what);
  check(d.stream.copy(to_above, address(from_above), bytes, ipc.stream), what);
  check(d.stream.synchronize(ipc.stream), what);
}

}  // namespace

void put_psi_ipc(Slab& b) {
  put_two(*b.ipc, b.ipc->below_psi_top, b.device_psi + b.plane, b.ipc->above_psi_bottom,
          b.device_psi + b.nzl * b.plane, std::size_t(b.plane) * sizeof(double), "copying psi planes");
}

void put_populations_ipc(Slab& b) {
  put_two(*b.ipc, b.ipc->below_recv_above, b.device_send_down, b.ipc->above_recv_below, b.device_send_up,
          std::size_t(crossing * b.plane) * sizeof(double), "copying populations");
}

void close_node_ipc(Slab& b) {
  if (!b.ipc) return;
  b.ipc.reset();
  MPI_Barrier(MPI_COMM_WORLD);
}

#else  // no CUDA driver API header in this build: the path is never open

struct NodeIpc {};
void NodeIpcDeleter::operator()(NodeIpc* ipc) const { delete ipc; }
bool open_node_ipc(Slab&) { return false; }
void put_psi_ipc(Slab&) { throw std::logic_error("node IPC halo: not in this build"); }
void put_populations_ipc(Slab&) { throw std::logic_error("node IPC halo: not in this build"); }
void close_node_ipc(Slab&) {}

#endif

}  // namespace ompref::lbm::slabs
