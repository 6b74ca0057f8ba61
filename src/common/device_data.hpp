#pragma once
// A kernel's device data, declared once, beside the kernel: the arrays it reads
// (inputs) and the arrays it writes (outputs). The runner maps them before
// timing and unmaps them after, so that no array is listed twice by hand:
//   enter: `target enter data map(to:)` for every array. Outputs go too, NaN-
//          poisoned by the instance's reset(), so that an element the kernel
//          fails to write comes back NaN and fails validation.
//          Scratch arrays (written on the device before they are read: the
//          next lattice, fields a pass sets) are not copied: entered with
//          map(alloc:) and poisoned on the device (every byte 0xFF, a NaN in
//          every double), with the same effect at none of the link's cost.
//   exit:  `target exit data map(from:)` for outputs (a scratch array that
//          has become an output by a swap included), `map(release:)` for the
//          rest.
// The kernels then name the same arrays with map(alloc:) or map(to:)/(from:):
// the runtime finds them present and moves nothing. Native (CUDA) variants
// declare their data the same way (registry.hpp, native_variant).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ompref {

class DeviceData {
 public:
  template <class T>
  DeviceData& in(const T* data, std::int64_t count) {
    return add(data, count * std::int64_t(sizeof(T)), false);
  }
  template <class T>
  DeviceData& out(T* data, std::int64_t count) {
    return add(data, count * std::int64_t(sizeof(T)), true);
  }
  template <class T>
  DeviceData& scratch(T* data, std::int64_t count) {
    return add(data, count * std::int64_t(sizeof(T)), false, true);
  }
  // Whole containers (std::vector, AlignedArray: anything with data() and size()).
  template <class C>
  DeviceData& in(const C& container) {
    return in(container.data(), std::int64_t(container.size()));
  }
  template <class C>
  DeviceData& out(C& container) {
    return out(container.data(), std::int64_t(container.size()));
  }
  template <class C>
  DeviceData& scratch(C& container) {
    return scratch(container.data(), std::int64_t(container.size()));
  }

  // OpenMP: the data regions above (device_data.cpp).
  void enter(int device) const;
  void exit(int device) const;
  std::int64_t bytes() const;

  // The declared arrays, for the native back end (src/native_cuda/backend.cu),
  // which enters the same declaration with cudaMalloc and cudaMemcpy.
  struct Array {
    char* data;
    std::int64_t bytes;
    bool out;
    bool scratch;  // not copied in: poisoned on the device
  };
  const std::vector<Array>& arrays() const { return arrays_; }

 private:
  DeviceData& add(const void* data, std::int64_t bytes, bool out, bool scratch = false) {
    if (data != nullptr && bytes > 0)
      arrays_.push_back({static_cast<char*>(const_cast<void*>(data)), bytes, out, scratch});
    return *this;
  }
  std::vector<Array> arrays_;
};

}  // namespace ompref
