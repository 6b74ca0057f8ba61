// mesh: where the instance's arrays live (mesh_array.hpp).
//
// Page-locked memory: where target variants run on a device, the runner maps
// each kernel's arrays to the device before every variant and its outputs
// back after (mesh_data.hpp): at the cube of 256, 2 to 9 GB a variant. From
// pageable memory the driver copies through a staging buffer of its own, a
// CPU copy per chunk; from page-locked memory the device reads and writes
// host memory directly, at the link's rate. The pages are locked once, when
// the instance is made, before any timing. LLVM's allocator (KMP_VERSION_MAJOR:
// its omp.h) gives null where no device can lock them (the host fallback);
// libgomp has none: pageable memory then. The same choice as the lbm
// lattices' (src/common/lbm/lbm.cpp).
#include "common/mesh/mesh_array.hpp"

#include <cstdlib>
#include <mutex>
#include <set>

#include <omp.h>

namespace ompref::mesh {
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

}  // namespace ompref::mesh
