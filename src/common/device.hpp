#pragma once
// What this process can run on: the host, and the OpenMP offload devices with
// the names and memory the vendor driver reports (OpenMP itself has no query
// for either). Also the probe that says where a target region really ran.
#include <string>
#include <vector>

namespace ompref {

struct HostInfo {
  std::string cpu;           // model name from /proc/cpuinfo
  int cores = 0;             // logical CPUs this process may use
  int threads = 0;           // omp_get_max_threads()
  double memory_bytes = 0;   // physical memory (or the cgroup limit, if lower)
  double available_bytes = 0;
  // The caches of the highest level, summed over the distinct instances the
  // online CPUs share (Linux sysfs); 0 where the system does not tell.
  double last_level_cache_bytes = 0;
};

struct DeviceInfo {
  int id = 0;                // OpenMP device number
  std::string name;          // "NVIDIA H200", or "offload device N" where the driver cannot say
  double memory_bytes = 0;   // 0 where unknown
};

HostInfo host_info();
std::vector<DeviceInfo> offload_devices();
// True when OMP_TARGET_OFFLOAD asks for MANDATORY (case-insensitive).
bool offload_mandatory();
// Runs an empty target region on `device` and asks it omp_is_initial_device():
// true when the region ran on the device, false when it fell back to the host.
bool target_runs_on_device(int device);
// While on: when the first region on a device lasts more than 3 s (clang's
// runtime compiling the device code just in time: about 20 s for this suite
// on an H200), a line on standard error every 5 s says what is happening.
// The command turns it on while it prepares, before any progress line exists.
void set_device_start_notes(bool on);
// "NVIDIA H200 (device 0)" or "host (fallback)".
std::string target_place(int device, bool on_device);

// The native (CUDA) back end's view of the same devices (registry().native(),
// absent in builds without one). Native variants run on the CUDA device of
// the OpenMP device number: empty when every device in `devices` has one,
// otherwise one phrase saying why not (no back end, no usable CUDA device,
// OpenMP and CUDA counting different devices, a number CUDA does not have).
std::string native_unusable(const std::vector<int>& devices);
// "NVIDIA H200 (device 0)": the CUDA device's name, in target_place's form.
std::string native_place(int device);

}  // namespace ompref
