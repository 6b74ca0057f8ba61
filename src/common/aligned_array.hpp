#pragma once
// A fixed-size array on 64-byte aligned storage. Pageable, it is NOT touched
// when allocated: the first write (a parallel init loop) decides which NUMA
// node and which thread's cache owns each page ("first touch"). Page-locked
// where asked and the driver or the runtime can lock it
// (common/host_memory.hpp: its pages placed by a parallel loop of the same
// static shares): arrays that target variants map are copied at the link's
// rate.
#include <cstddef>
#include <memory>

#include "common/host_memory.hpp"

namespace ompref {

template <class T>
class AlignedArray {
 public:
  AlignedArray() = default;
  explicit AlignedArray(std::size_t n, Memory memory = Memory::pageable) : n_(n) {
    if (n == 0) return;
    data_.reset(static_cast<T*>(allocate_bytes(n * sizeof(T), memory)));
  }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::size_t size() const { return n_; }
  T& operator[](std::size_t i) { return data_.get()[i]; }
  const T& operator[](std::size_t i) const { return data_.get()[i]; }

 private:
  struct Free {
    void operator()(T* p) const { free_bytes(p); }
  };
  std::unique_ptr<T, Free> data_;
  std::size_t n_ = 0;
};

}  // namespace ompref
