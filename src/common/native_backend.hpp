#pragma once
// The native (plain CUDA) back end as the runner sees it, and the device
// probes it measures. No CUDA here: src/native_cuda/backend.cu implements it.
#include <string>
#include <utility>
#include <vector>

#include "common/device_data.hpp"

namespace ompref {

// What the runner needs from a native back end. The CUDA one
// (src/native_cuda/backend.cu) registers itself at program start; a build
// without it has none, and no native variant. Device numbers are OpenMP's:
// native variants run on the CUDA device of the same number, which is the
// same GPU when OpenMP's only offload plugin is NVIDIA's (LLVM's libomptarget
// and gcc's nvptx plugin both number devices in CUDA's order, after
// CUDA_VISIBLE_DEVICES). Errors from the device are thrown as std::runtime_error.
struct NativeBackend {
  std::string name;                                        // "CUDA"
  std::string (*version)() = nullptr;                      // "CUDA runtime 13.0, driver 13.0"
  int (*device_count)(std::string& why) = nullptr;         // usable devices; 0 with the reason in `why`
  std::string (*device_name)(int device) = nullptr;        // "NVIDIA H200"
  void (*synchronize)(int device) = nullptr;               // waits (polling) for the device's queued work
  void (*enter)(const DeviceData& data, int device) = nullptr;  // allocate, copy every array to the device
  void (*exit)(const DeviceData& data, int device) = nullptr;   // copy outputs back, free every array
};

// A measurement of the device itself with the native back end (the CUDA
// triad over launch shapes, the FP64 FMA rate), reported in the device's
// entry of the JSON `ceilings` beside the OpenMP ceiling.
struct ProbeResult {
  double value = 0;
  bool valid = false;
  std::string measured;                                    // how: kernel, launch shape, repetitions
  std::vector<std::pair<std::string, double>> details;     // e.g. each launch shape's rate
};
struct NativeProbe {
  std::string field;                                       // the JSON field: "native_triad_GBps"
  std::string unit;                                        // "GB/s"
  int order = 0;                                           // probes run in this order
  ProbeResult (*measure)(int device) = nullptr;
  // A probe of the FP64 rate (the ceiling of compute-bound runs) gives how
  // many GFLOP/s one unit of its value is (TFLOP/s: 1000); 0 for the others.
  double fp64_gflops_per_unit = 0;
};

}  // namespace ompref
