// Host memory for mapped arrays (host_memory.hpp).
//
// From pageable memory the driver copies through a staging buffer of its
// own, a CPU copy per chunk; from page-locked memory the device reads and
// writes host memory directly, at the link's rate. The pages are locked when
// an instance is made, before any timing, in one of two ways:
// - Where the CUDA driver is present (libcuda, opened at run time: nothing
//   is linked), the memory is allocated pageable, its pages placed by a
//   parallel loop (each thread writes the pages of its static share, as the
//   instances' loops later read them) and then registered
//   (cuMemHostRegister, portable: locked for every context). Allocating
//   locked pages with cuMemAllocHost, which LLVM's allocator below calls,
//   costs several times as much for a lattice of gigabytes, its single thread
//   faulting and clearing every page, and freeing them again a good part of
//   that (docs/lbm.md, Validation). LLVM's llvm_omp_target_lock_mem, the
//   OpenMP runtime's own way to lock existing memory, leaves the pages
//   pageable with its CUDA plugin (the plugin's lock returns the pointer).
// - Otherwise LLVM's allocator (KMP_VERSION_MAJOR: its omp.h) gives locked
//   memory, or null where no device can lock it (the host fallback); libgomp
//   has none: pageable memory then.
#include "common/host_memory.hpp"

#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <type_traits>

#include <dlfcn.h>
#include <omp.h>
#include <unistd.h>

namespace ompref {
namespace {

// The CUDA driver's entry points that registration needs, where libcuda and
// a CUDA device are there. Registration wants a current context: the
// primary context of the OpenMP default device (the one the OpenMP runtime
// and the CUDA runtime use; an MPI rank's default device is its own),
// retained for the life of the process.
class CudaRegistration {
 public:
  static CudaRegistration& get() {
    static CudaRegistration driver;
    return driver;
  }
  bool usable() const { return context_ != nullptr; }
  bool lock(void* p, std::size_t bytes) const {
    return usable() && in_context([&] { return register_(p, bytes, portable) == 0; });
  }
  void unlock(void* p) const {
    in_context([&] { return unregister_(p) == 0; });
  }

 private:
  using Result = int;  // CUresult: 0 is success
  static constexpr unsigned portable = 0x01;  // CU_MEMHOSTREGISTER_PORTABLE

  CudaRegistration() {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) return;
    const auto find = [lib](const char* name, auto& fn) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
      return fn != nullptr;
    };
    Result (*init)(unsigned) = nullptr;
    Result (*count)(int*) = nullptr;
    Result (*device_get)(int*, int) = nullptr;
    Result (*retain)(void**, int) = nullptr;
    if (!find("cuInit", init) || !find("cuDeviceGetCount", count) || !find("cuDeviceGet", device_get) ||
        !find("cuDevicePrimaryCtxRetain", retain) || !find("cuCtxPushCurrent_v2", push_) ||
        !find("cuCtxPopCurrent_v2", pop_) || !find("cuMemHostRegister_v2", register_) ||
        !find("cuMemHostUnregister", unregister_))
      return;
    int devices = 0, device = 0;
    if (init(0) != 0 || count(&devices) != 0 || devices <= 0) return;
    const int wanted = omp_get_default_device();
    if (device_get(&device, wanted >= 0 && wanted < devices ? wanted : 0) != 0) return;
    void* context = nullptr;
    if (retain(&context, device) == 0) context_ = context;
  }

  template <class F>
  bool in_context(F&& call) const {
    if (push_(context_) != 0) return false;
    const bool done = call();
    void* popped = nullptr;
    pop_(&popped);
    return done;
  }

  void* context_ = nullptr;
  Result (*push_)(void*) = nullptr;
  Result (*pop_)(void**) = nullptr;
  Result (*register_)(void*, std::size_t, unsigned) = nullptr;
  Result (*unregister_)(void*) = nullptr;
};

// Each thread writes a byte of each page of its static share.
void place_pages(char* p, std::size_t bytes) {
  const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
#pragma omp parallel for schedule(static)
  for (std::size_t at = 0; at < bytes; at += page) p[at] = 0;
}

// The page-locked blocks handed out and how each was locked, so that
// free_bytes returns each to whoever locked it: a handful per instance.
enum class Lock : std::uint8_t { registered, allocated };
std::mutex locked_mutex;
std::map<const void*, Lock>& locked_blocks() {
  static std::map<const void*, Lock> blocks;
  return blocks;
}

void note_locked(const void* p, Lock how) {
  const std::lock_guard<std::mutex> lock(locked_mutex);
  locked_blocks().emplace(p, how);
}

}  // namespace

void* allocate_bytes(std::size_t bytes, Memory memory) {
  const std::size_t rounded = (bytes + 63) / 64 * 64;
  if (memory == Memory::page_locked && CudaRegistration::get().usable()) {
    void* p = std::aligned_alloc(64, rounded);
    if (p == nullptr) throw std::bad_alloc();
    place_pages(static_cast<char*>(p), rounded);
    if (CudaRegistration::get().lock(p, rounded)) note_locked(p, Lock::registered);
    return p;  // pageable where the driver refused to lock it
  }
#if defined(KMP_VERSION_MAJOR)
  if (memory == Memory::page_locked) {
    if (void* p = omp_alloc(rounded, llvm_omp_target_host_mem_alloc)) {
      note_locked(p, Lock::allocated);
      return p;
    }
  }
#endif
  void* p = std::aligned_alloc(64, rounded);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void free_bytes(void* p) noexcept {
  if (p == nullptr) return;
  Lock how = Lock::registered;
  bool locked = false;
  {
    const std::lock_guard<std::mutex> lock(locked_mutex);
    const auto it = locked_blocks().find(p);
    if (it != locked_blocks().end()) {
      locked = true;
      how = it->second;
      locked_blocks().erase(it);
    }
  }
#if defined(KMP_VERSION_MAJOR)
  if (locked && how == Lock::allocated) {
    omp_free(p, llvm_omp_target_host_mem_alloc);
    return;
  }
#endif
  if (locked && how == Lock::registered) CudaRegistration::get().unlock(p);
  std::free(p);
}

bool is_page_locked(const void* p) {
  const std::lock_guard<std::mutex> lock(locked_mutex);
  return locked_blocks().count(p) > 0;
}

}  // namespace ompref
