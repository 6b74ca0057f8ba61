#pragma once
// What the tuned two-level reductions (mesh's target_tuned_reduce_blocks,
// stream's target_tuned dot) share: the last team's turn, and the host slot
// their result comes back to.
#include <new>

#include <omp.h>

namespace ompref {

#pragma omp declare target
// Counts the calling team done, its stores made visible to the other teams
// first; true for the last of `teams` teams, which then sets the counter back
// to 0 for the next launch (CUDA's last-block reduction, with OpenMP's flush
// and atomic capture). `counter` is a declare-target variable of the caller.
inline bool last_team_done(unsigned& counter, int teams) {
  unsigned done;
#pragma omp flush
#pragma omp atomic capture
  done = ++counter;
#pragma omp flush
  if (done != unsigned(teams)) return false;
  counter = 0;
  return true;
}
#pragma omp end declare target

// One object of type T in page-locked host memory, allocated on first use and
// kept for the life of the process: the host copy of a result that a tuned
// kernel maps back with `map(always, from:)`, so that the runtime copies it
// directly instead of through a staging buffer. LLVM's host allocator with
// clang (its runtime does not pin for the standard `pinned` trait: measured
// no faster than pageable memory), the standard trait elsewhere, plain memory
// where neither is offered.
template <class T>
T* pinned_slot() {
  static T* const slot = [] {
#if defined(__clang__) && !defined(__INTEL_LLVM_COMPILER)
    const omp_allocator_handle_t pinned = llvm_omp_target_host_mem_alloc;
#else
    omp_alloctrait_t trait[] = {{omp_atk_pinned, omp_atv_true}};
    const omp_allocator_handle_t pinned = omp_init_allocator(omp_default_mem_space, 1, trait);
#endif
    void* p = pinned != omp_null_allocator ? omp_alloc(sizeof(T), pinned) : nullptr;
    return static_cast<T*>(p != nullptr ? p : ::operator new(sizeof(T)));
  }();
  return slot;
}

}  // namespace ompref
