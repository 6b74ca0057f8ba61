// The native back end: what the runner asks of CUDA (registry.hpp,
// NativeBackend), and the device copies of the arrays native variants declare.
// A native variant's DeviceData is the same declaration its target twin hands
// to OpenMP; here it is entered with cudaMalloc + cudaMemcpy and kept in a
// table keyed by (device, host address), the way OpenMP's runtime keeps its
// present table, so that a kernel finds its arrays with present() and nothing
// is allocated or copied while the runner times.
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "common/device_data.hpp"
#include "common/registry.hpp"
#include "native_cuda/cuda_support.hpp"

namespace ompref::native {
namespace {

struct Copy {
  void* device = nullptr;
  std::int64_t bytes = 0;
  int references = 0;  // entered this many times (OpenMP's reference count)
};

std::map<std::pair<int, const void*>, Copy>& copies() {
  static std::map<std::pair<int, const void*>, Copy> table;
  return table;
}

std::string version() {
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  return fmt::format("CUDA runtime {}.{}, driver {}", runtime / 1000, runtime % 1000 / 10,
                     driver > 0 ? fmt::format("{}.{}", driver / 1000, driver % 1000 / 10) : std::string("none"));
}

// Asked once per process: a machine without a driver or a GPU says why.
int device_count(std::string& why) {
  static std::string reason;
  static const int count = [] {
    int n = 0;
    const cudaError_t status = cudaGetDeviceCount(&n);
    if (status != cudaSuccess) {
      cudaGetLastError();
      reason = fmt::format("cudaGetDeviceCount: {}", cudaGetErrorString(status));
      return 0;
    }
    if (n == 0) reason = "cudaGetDeviceCount: no device";
    return n;
  }();
  why = reason;
  return count;
}

std::string device_name(int device) {
  cudaDeviceProp properties{};
  check(cudaGetDeviceProperties(&properties, device), fmt::format("cudaGetDeviceProperties({})", device));
  return properties.name;
}

void synchronize(int device) {
  select(device);
  wait_for_device();
}

// Every declared array to the device, outputs too: the instance's reset()
// poisoned them (NaN), so an element a kernel fails to write comes back NaN.
// Scratch arrays are poisoned on the device instead (every byte 0xFF).
void enter_data(const DeviceData& data, int device) {
  select(device);
  for (const DeviceData::Array& array : data.arrays()) {
    auto [it, added] = copies().try_emplace({device, array.data});
    Copy& copy = it->second;
    if (!added) {
      if (copy.bytes != array.bytes)
        throw std::runtime_error(fmt::format("native enter: an array at {} is already on device {} with another size",
                                             static_cast<const void*>(array.data), device));
      ++copy.references;
      continue;
    }
    copy.bytes = array.bytes;
    copy.references = 1;
    const cudaError_t status = cudaMalloc(&copy.device, std::size_t(array.bytes));
    if (status != cudaSuccess) copies().erase(it);
    check(status, fmt::format("cudaMalloc of {} bytes on device {}", array.bytes, device));
    if (array.scratch)
      check(cudaMemset(copy.device, 0xFF, std::size_t(array.bytes)), "cudaMemset of a scratch array");
    else
      check(cudaMemcpy(copy.device, array.data, std::size_t(array.bytes), cudaMemcpyHostToDevice),
            "cudaMemcpy to the device");
  }
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after the copies to the device");
}

// Outputs back to the host, then every array freed (OpenMP's map(from:) and map(release:)).
void exit_data(const DeviceData& data, int device) {
  select(device);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize before the copies back");
  for (const DeviceData::Array& array : data.arrays()) {
    auto it = copies().find({device, array.data});
    if (it == copies().end())
      throw std::runtime_error(fmt::format("native exit: the array at {} was not entered on device {}",
                                           static_cast<const void*>(array.data), device));
    if (--it->second.references > 0) continue;
    if (array.out)
      check(cudaMemcpy(array.data, it->second.device, std::size_t(array.bytes), cudaMemcpyDeviceToHost),
            "cudaMemcpy to the host");
    check(cudaFree(it->second.device), "cudaFree");
    copies().erase(it);
  }
}

const Registration backend{NativeBackend{"CUDA", version, device_count, device_name, synchronize, enter_data, exit_data}};

}  // namespace

void* present_bytes(const void* host, int device) {
  auto it = copies().find({device, host});
  if (it == copies().end())
    throw std::runtime_error(fmt::format("native kernel: the array at {} is not on device {} (missing from the "
                                         "variant's DeviceData declaration)", host, device));
  return it->second.device;
}

int multiprocessors(int device) {
  static std::map<int, int> known;
  auto it = known.find(device);
  if (it != known.end()) return it->second;
  int count = 0;
  check(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  return known.emplace(device, count).first->second;
}

}  // namespace ompref::native
