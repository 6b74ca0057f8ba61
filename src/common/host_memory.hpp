#pragma once
// Host memory for the arrays target variants map: 64-byte aligned, and
// page-locked where asked and the CUDA driver or the OpenMP runtime can lock
// it, so that the device copies it at the link's rate (host_memory.cpp says
// how). Pageable memory is untouched when allocated (the first write, a
// parallel loop, places the pages); memory locked by registration has its
// pages placed by a parallel loop of its own. lbm's FieldArray and mesh's
// Array allocate through it.
#include <cstddef>
#include <cstdint>

namespace ompref {

enum class Memory : std::uint8_t { pageable, page_locked };

// `bytes` (> 0) of 64-byte aligned memory of the kind asked for, or pageable
// where the runtime cannot lock pages (no device, no LLVM runtime); throws
// std::bad_alloc. free_bytes frees either kind.
void* allocate_bytes(std::size_t bytes, Memory memory);
void free_bytes(void* p) noexcept;
// Whether `p` is the start of page-locked memory from allocate_bytes.
bool is_page_locked(const void* p);

}  // namespace ompref
