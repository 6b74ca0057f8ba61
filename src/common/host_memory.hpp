#pragma once
// Host memory for the arrays target variants map: 64-byte aligned and
// untouched when allocated (the first write, a parallel loop, places the
// pages), and page-locked where asked and the runtime can lock it, so that
// the device copies it at the link's rate (host_memory.cpp says how). lbm's
// FieldArray and mesh's Array allocate through it.
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
