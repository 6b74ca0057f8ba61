// Compiled with the offload flags (see CMakeLists.txt): the one target region
// of the infrastructure, asking the device where it runs.
// The first region on a device is where clang's runtime compiles the device
// code just in time: its vectoriser remarks are held back there
// (common/stderr_filter.hpp says why they are harmless).
#include <omp.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "common/device.hpp"
#include "common/stderr_filter.hpp"

namespace ompref {

bool target_runs_on_device(int device) {
  static std::vector<int> started;
  std::optional<StderrFilter> quiet;
  if (std::find(started.begin(), started.end(), device) == started.end()) {
    started.push_back(device);
    quiet.emplace();
  }
  int initial = 1;
#pragma omp target device(device) map(from : initial)
  { initial = omp_is_initial_device(); }
  return initial == 0;
}

}  // namespace ompref
