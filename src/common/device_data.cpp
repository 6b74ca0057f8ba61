// DeviceData's two data regions: compiled with the offload flags (it is part
// of the kernels library), since `target enter/exit data` are device constructs.
#include "common/device_data.hpp"

namespace ompref {

void DeviceData::enter(int device) const {
  for (const Array& a : arrays_) {
    char* p = a.data;
    const std::int64_t n = a.bytes;
#pragma omp target enter data device(device) map(to : p[0:n])
  }
}

void DeviceData::exit(int device) const {
  for (const Array& a : arrays_) {
    char* p = a.data;
    const std::int64_t n = a.bytes;
    if (a.out) {
#pragma omp target exit data device(device) map(from : p[0:n])
    } else {
#pragma omp target exit data device(device) map(release : p[0:n])
    }
  }
}

std::int64_t DeviceData::bytes() const {
  std::int64_t total = 0;
  for (const Array& a : arrays_) total += a.bytes;
  return total;
}

}  // namespace ompref
