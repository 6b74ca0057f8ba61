#pragma once
// The arrays of a mesh instance: std::vector with an allocator of its own.
//  - New elements are default-initialised, not zero-filled: `resize(n)` on a
//    std::vector<double> writes every element on the calling thread, and at
//    the cube of 256 the instance's arrays are about 22 GB, every page first
//    touched by that one thread. Here the first write is the parallel loop
//    that sets the values (so every array is written in full before it is
//    read; a value the code needs is set by a parallel fill, fill_array).
//  - Where the instance is made for a device, the arrays a kernel maps are
//    page-locked (common/host_memory.hpp): the runner maps each kernel's
//    arrays before every variant and its outputs back after (mesh_data.hpp),
//    at the cube of 256 2 to 9 GB a variant.
#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/host_memory.hpp"

namespace ompref::mesh {

template <class T>
class ArrayAllocator {
 public:
  using value_type = T;
  // An array keeps the kind of memory it was made with: assigning another
  // array to it copies the elements where the kinds differ.
  using propagate_on_container_copy_assignment = std::false_type;
  using propagate_on_container_move_assignment = std::false_type;
  using propagate_on_container_swap = std::false_type;
  using is_always_equal = std::false_type;

  ArrayAllocator() = default;
  explicit ArrayAllocator(Memory memory) : memory_(memory) {}
  template <class U>
  ArrayAllocator(const ArrayAllocator<U>& other) noexcept : memory_(other.memory()) {}

  T* allocate(std::size_t n) { return static_cast<T*>(allocate_bytes(n * sizeof(T), memory_)); }
  void deallocate(T* p, std::size_t) noexcept { free_bytes(p); }
  // Default-initialisation: nothing written for numbers.
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  Memory memory() const { return memory_; }
  template <class U>
  bool operator==(const ArrayAllocator<U>& other) const {
    return memory_ == other.memory();
  }
  template <class U>
  bool operator!=(const ArrayAllocator<U>& other) const {
    return memory_ != other.memory();
  }

 private:
  Memory memory_ = Memory::pageable;
};

template <class T>
using Array = std::vector<T, ArrayAllocator<T>>;

// An empty array whose elements will live in `memory`.
template <class T>
Array<T> array_in(Memory memory) {
  return Array<T>(ArrayAllocator<T>(memory));
}

// `a` resized to n elements, each `value`, set in parallel.
template <class T>
void fill_array(Array<T>& a, std::size_t n, T value) {
  a.resize(n);
  T* to = a.data();
  const std::int64_t count = std::int64_t(n);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) to[i] = value;
}

// `to` made a copy of `from`, copied in parallel, in `to`'s memory.
template <class T>
void copy_array(Array<T>& to, const Array<T>& from) {
  to.resize(from.size());
  T* out = to.data();
  const T* in = from.data();
  const std::int64_t count = std::int64_t(from.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) out[i] = in[i];
}

// `from`'s elements given to `to`: the block itself where both are of one
// kind of memory, else copied in parallel into `to`'s; `from` left empty.
template <class T>
void take_array(Array<T>& to, Array<T>& from) {
  if (to.get_allocator() == from.get_allocator()) {
    to = std::move(from);
  } else {
    copy_array(to, from);
    from.clear();
    from.shrink_to_fit();
  }
}

}  // namespace ompref::mesh
