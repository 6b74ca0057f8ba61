// Compiled with the offload flags (see CMakeLists.txt): the one target region
// of the infrastructure, asking the device where it runs.
#include <omp.h>

#include "common/device.hpp"

namespace ompref {

bool target_runs_on_device(int device) {
  int initial = 1;
#pragma omp target device(device) map(from : initial)
  { initial = omp_is_initial_device(); }
  return initial == 0;
}

}  // namespace ompref
