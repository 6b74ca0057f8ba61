#pragma once
// The FP64 rate the host reaches with this build's flags: the ceiling a
// compute-bound host run (gpp) is held against, as the CUDA probe
// (src/native_cuda/fp64_peak.cu) gives it for a device.
#include <string>

namespace ompref {

struct HostFp64 {
  double gflops = 0;
  bool valid = false;
  std::string measured;  // how, in words
  double spread_percent = 0;  // (median pass - best pass) / best pass: the probe's own noise
};

// Every OpenMP thread runs 32 independent chains x -> a x + b (one fused
// multiply-add where the build's ISA has it: 2 flops), `omp simd` across the
// chains; best of 5 after a warm-up. Checked against the closed form.
HostFp64 measure_host_fp64();

}  // namespace ompref
