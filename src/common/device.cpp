#include "common/device.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <omp.h>

#include "common/registry.hpp"

namespace ompref {

static double read_meminfo_kib(const std::string& key) {
  std::ifstream in("/proc/meminfo");
  std::string name;
  double value = 0;
  std::string unit;
  while (in >> name >> value >> unit)
    if (name == key + ":") return value * 1024.0;
  return 0;
}

static double cgroup_limit_bytes() {
  std::ifstream in("/sys/fs/cgroup/memory.max");  // cgroup v2; "max" when unlimited
  std::string text;
  if (!(in >> text) || text == "max") return 0;
  try {
    return std::stod(text);
  } catch (...) {
    return 0;
  }
}

// /sys/devices/system/cpu/cpuN/cache/indexM/{level,size,shared_cpu_list}:
// the highest level's size, once per distinct set of CPUs sharing it.
static double last_level_cache_bytes() {
  static const double bytes = [] {
  int top = 0;
  std::map<std::string, double> instances;  // shared_cpu_list -> bytes, at level `top`
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  for (long cpu = 0; cpu < cpus; ++cpu)
    for (int index = 0; index < 8; ++index) {
      const std::string dir = fmt::format("/sys/devices/system/cpu/cpu{}/cache/index{}/", cpu, index);
      std::ifstream level_file(dir + "level"), size_file(dir + "size"), shared_file(dir + "shared_cpu_list");
      int level = 0;
      std::string size, shared;
      if (!(level_file >> level) || !(size_file >> size) || !(shared_file >> shared)) continue;
      double bytes = 0;
      try {
        std::size_t used = 0;
        bytes = std::stod(size, &used);
        const std::string unit = size.substr(used);
        bytes *= unit == "K" ? 1024.0 : unit == "M" ? 1024.0 * 1024 : unit == "G" ? 1024.0 * 1024 * 1024 : 1.0;
      } catch (...) {
        continue;
      }
      if (level > top) {
        top = level;
        instances.clear();
      }
      if (level == top) instances[shared] = bytes;
    }
  double total = 0;
  for (const auto& [shared, one] : instances) total += one;
  return total;
  }();
  return bytes;
}

HostInfo host_info() {
  HostInfo info;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0) {
      info.cpu = line.substr(line.find(':') + 2);
      break;
    }
  info.cores = static_cast<int>(std::thread::hardware_concurrency());
  info.threads = omp_get_max_threads();
  info.memory_bytes = read_meminfo_kib("MemTotal");
  info.available_bytes = read_meminfo_kib("MemAvailable");
  if (double limit = cgroup_limit_bytes(); limit > 0) {
    info.memory_bytes = std::min(info.memory_bytes, limit);
    info.available_bytes = std::min(info.available_bytes, limit);
  }
  if (info.available_bytes <= 0) info.available_bytes = double(sysconf(_SC_AVPHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  info.last_level_cache_bytes = last_level_cache_bytes();
  return info;
}

// The CUDA driver API, opened at run time so that no build depends on it.
namespace {
struct CudaDriver {
  using Init = int (*)(unsigned);
  using Count = int (*)(int*);
  using Get = int (*)(int*, int);
  using Name = int (*)(char*, int, int);
  using TotalMem = int (*)(std::size_t*, int);
  Init init = nullptr;
  Count count = nullptr;
  Get get = nullptr;
  Name name = nullptr;
  TotalMem total_mem = nullptr;
  bool ok = false;

  CudaDriver() {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    init = reinterpret_cast<Init>(dlsym(lib, "cuInit"));
    count = reinterpret_cast<Count>(dlsym(lib, "cuDeviceGetCount"));
    get = reinterpret_cast<Get>(dlsym(lib, "cuDeviceGet"));
    name = reinterpret_cast<Name>(dlsym(lib, "cuDeviceGetName"));
    total_mem = reinterpret_cast<TotalMem>(dlsym(lib, "cuDeviceTotalMem_v2"));
    ok = init && count && get && name && total_mem && init(0) == 0;
  }
};
}  // namespace

static std::vector<DeviceInfo> query_devices() {
  std::vector<DeviceInfo> out;
  int n = omp_get_num_devices();
  if (n <= 0) return out;
  static CudaDriver cuda;
  int cuda_count = 0;
  // OpenMP numbers NVIDIA devices as CUDA does when CUDA is the only plugin.
  bool named = cuda.ok && cuda.count(&cuda_count) == 0 && cuda_count == n;
  for (int id = 0; id < n; ++id) {
    DeviceInfo d;
    d.id = id;
    d.name = fmt::format("offload device {}", id);
    int handle = 0;
    if (named && cuda.get(&handle, id) == 0) {
      char buf[256] = {};
      std::size_t bytes = 0;
      if (cuda.name(buf, sizeof buf, handle) == 0) d.name = buf;
      if (cuda.total_mem(&bytes, handle) == 0) d.memory_bytes = double(bytes);
    }
    out.push_back(d);
  }
  return out;
}

std::vector<DeviceInfo> offload_devices() {
  static const std::vector<DeviceInfo> devices = query_devices();
  return devices;
}

bool offload_mandatory() {
  const char* value = std::getenv("OMP_TARGET_OFFLOAD");
  if (!value) return false;
  std::string v(value);
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::toupper(c); });
  return v == "MANDATORY";
}

std::string target_place(int device, bool on_device) {
  if (!on_device) return "host (fallback)";
  for (const DeviceInfo& d : offload_devices())
    if (d.id == device) return fmt::format("{} (device {})", d.name, device);
  return fmt::format("offload device {}", device);
}

std::string native_unusable(const std::vector<int>& devices) {
  const NativeBackend* native = registry().native();
  if (!native) return "this build has no native back end (configure with -DOMPREF_NATIVE=cuda)";
  std::string why;
  const int count = native->device_count(why);
  if (count <= 0) return fmt::format("no usable {} device ({})", native->name, why);
  const int openmp = omp_get_num_devices();
  if (openmp > 0 && openmp != count)
    return fmt::format("OpenMP sees {} offload devices and {} sees {}: the same number may name different GPUs", openmp,
                       native->name, count);
  for (int d : devices)
    if (d < 0 || d >= count)
      return fmt::format("OpenMP device {} has no {} device of the same number ({} sees {})", d, native->name,
                         native->name, count);
  return "";
}

std::string native_place(int device) {
  const NativeBackend* native = registry().native();
  return fmt::format("{} (device {})", native ? native->device_name(device) : "no native back end", device);
}

}  // namespace ompref
