// The `--device-wait` knob (device_wait.hpp). The CUDA driver is reached
// through dlopen: the OpenMP builds are not linked against CUDA, and a machine
// without the driver (or without NVIDIA devices) simply keeps the runtime's
// choice.
#include "common/device_wait.hpp"

#include <dlfcn.h>

#include <fmt/format.h>

namespace ompref {
namespace {

std::string& description() {
  static std::string d = "runtime";
  return d;
}

// The CUDA driver entry points used here (CUresult is an int, CUdevice an int).
struct Driver {
  int (*init)(unsigned) = nullptr;
  int (*device_count)(int*) = nullptr;
  int (*device_get)(int*, int) = nullptr;
  int (*set_flags)(int, unsigned) = nullptr;
  int (*retain)(void**, int) = nullptr;

  bool load() {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (lib == nullptr) return false;
    init = reinterpret_cast<decltype(init)>(dlsym(lib, "cuInit"));
    device_count = reinterpret_cast<decltype(device_count)>(dlsym(lib, "cuDeviceGetCount"));
    device_get = reinterpret_cast<decltype(device_get)>(dlsym(lib, "cuDeviceGet"));
    set_flags = reinterpret_cast<decltype(set_flags)>(dlsym(lib, "cuDevicePrimaryCtxSetFlags_v2"));
    retain = reinterpret_cast<decltype(retain)>(dlsym(lib, "cuDevicePrimaryCtxRetain"));
    return init && device_count && device_get && set_flags && retain;
  }
};

constexpr unsigned sched_spin = 1;  // CU_CTX_SCHED_SPIN

}  // namespace

void apply_device_wait(DeviceWait mode) {
  if (mode == DeviceWait::runtime) {
    description() = "runtime";
    return;
  }
  Driver cuda;
  int count = 0;
  if (!cuda.load() || cuda.init(0) != 0 || cuda.device_count(&count) != 0 || count == 0) {
    description() = "runtime (no CUDA device)";
    return;
  }
  int spinning = 0;
  for (int i = 0; i < count; ++i) {
    int device = 0;
    void* context = nullptr;  // kept active (retained) for the life of the process
    if (cuda.device_get(&device, i) == 0 && cuda.set_flags(device, sched_spin) == 0 &&
        cuda.retain(&context, device) == 0)
      ++spinning;
  }
  description() = spinning == count ? fmt::format("spin ({} CUDA device{})", count, count == 1 ? "" : "s")
                                    : fmt::format("spin on {} of {} CUDA devices", spinning, count);
}

std::string device_wait_description() { return description(); }

}  // namespace ompref
