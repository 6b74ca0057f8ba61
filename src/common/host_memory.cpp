// Host memory for mapped arrays (host_memory.hpp).
//
// From pageable memory the driver copies through a staging buffer of its
// own, a CPU copy per chunk; from page-locked memory the device reads and
// writes host memory directly, at the link's rate. The pages are locked when
// an instance is made, before any timing. LLVM's allocator (KMP_VERSION_MAJOR:
// its omp.h) gives null where no device can lock them (the host fallback);
// libgomp has none: pageable memory then.
#include "common/host_memory.hpp"

#include <cstdlib>
#include <mutex>
#include <new>
#include <set>

#include <omp.h>

namespace ompref {
namespace {

// The page-locked blocks handed out, so that free_bytes returns each to
// whoever gave it: a handful per instance.
std::mutex locked_mutex;
std::set<const void*>& locked_blocks() {
  static std::set<const void*> blocks;
  return blocks;
}

}  // namespace

void* allocate_bytes(std::size_t bytes, [[maybe_unused]] Memory memory) {
  const std::size_t rounded = (bytes + 63) / 64 * 64;
#if defined(KMP_VERSION_MAJOR)
  if (memory == Memory::page_locked) {
    if (void* p = omp_alloc(rounded, llvm_omp_target_host_mem_alloc)) {
      const std::lock_guard<std::mutex> lock(locked_mutex);
      locked_blocks().insert(p);
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
#if defined(KMP_VERSION_MAJOR)
  {
    const std::lock_guard<std::mutex> lock(locked_mutex);
    if (locked_blocks().erase(p) > 0) {
      omp_free(p, llvm_omp_target_host_mem_alloc);
      return;
    }
  }
#endif
  std::free(p);
}

bool is_page_locked(const void* p) {
  const std::lock_guard<std::mutex> lock(locked_mutex);
  return locked_blocks().count(p) > 0;
}

}  // namespace ompref
