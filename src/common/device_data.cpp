// DeviceData's two data regions: compiled with the offload flags (it is part
// of the kernels library), since `target enter/exit data` are device constructs.
#include "common/device_data.hpp"

#include <cstdint>

namespace ompref {

namespace {

// Every byte of the device copy of p[0:n] (present) set to 0xFF, eight at a
// time where they are 8-byte aligned.
void poison_on_device(char* p, std::int64_t n, int device) {
  const std::int64_t head = std::int64_t((8 - reinterpret_cast<std::uintptr_t>(p) % 8) % 8);
  const std::int64_t lead = head < n ? head : n;
  const std::int64_t words = (n - lead) / 8;
  std::uint64_t* w = reinterpret_cast<std::uint64_t*>(p + lead);
#pragma omp target teams distribute parallel for device(device) map(alloc : w[0:words])
  for (std::int64_t i = 0; i < words; ++i) w[i] = ~std::uint64_t(0);
  const std::int64_t tail_at = lead + 8 * words;
  if (lead == 0 && tail_at == n) return;
#pragma omp target device(device) map(alloc : p[0:n])
  {
    for (std::int64_t i = 0; i < lead; ++i) p[i] = char(0xFF);
    for (std::int64_t i = tail_at; i < n; ++i) p[i] = char(0xFF);
  }
}

// One array onto the device: copied in, or, a scratch array, allocated and poisoned.
void enter_array(char* p, std::int64_t n, bool scratch, int device) {
  if (scratch) {
#pragma omp target enter data device(device) map(alloc : p[0:n])
    poison_on_device(p, n, device);
  } else {
#pragma omp target enter data device(device) map(to : p[0:n])
  }
}

// One array off the device: copied home where it is an output, released
// otherwise. (A build without offload drops the directives: hence [[maybe_unused]].)
void exit_array([[maybe_unused]] char* p, [[maybe_unused]] std::int64_t n, bool out, [[maybe_unused]] int device) {
  if (out) {
#pragma omp target exit data device(device) map(from : p[0:n])
  } else {
#pragma omp target exit data device(device) map(release : p[0:n])
  }
}

}  // namespace

void DeviceData::enter(int device) const {
  for (const Array& a : arrays_) enter_array(a.data, a.bytes, a.scratch, device);
}

void DeviceData::exit(int device) const {
  for (const Array& a : arrays_) exit_array(a.data, a.bytes, a.out, device);
}

std::int64_t DeviceData::bytes() const {
  std::int64_t total = 0;
  for (const Array& a : arrays_) total += a.bytes;
  return total;
}

}  // namespace ompref
