#pragma once
// A fixed-size array on 64-byte aligned storage that is NOT touched when
// allocated: the first write (a parallel init loop) decides which NUMA node
// and which thread's cache owns each page ("first touch").
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>

namespace ompref {

template <class T>
class AlignedArray {
 public:
  AlignedArray() = default;
  explicit AlignedArray(std::size_t n) : n_(n) {
    if (n == 0) return;
    std::size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
    data_.reset(static_cast<T*>(std::aligned_alloc(64, bytes)));
    if (!data_) throw std::bad_alloc();
  }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::size_t size() const { return n_; }
  T& operator[](std::size_t i) { return data_.get()[i]; }
  const T& operator[](std::size_t i) const { return data_.get()[i]; }

 private:
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  std::unique_ptr<T, Free> data_;
  std::size_t n_ = 0;
};

}  // namespace ompref
