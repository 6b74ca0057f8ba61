// The FP64 FMA rate of the device as CUDA reaches it: the ceiling for
// compute-bound work (gpp's complex arithmetic), reported in the JSON
// `ceilings` beside the bandwidth ceilings (docs/native.md).
//
// Every thread runs `chains` independent FMA chains, enough independent work
// to hide the FMA latency; eight 256-thread blocks per multiprocessor fill
// every multiprocessor. Nothing is read from memory: the rate is the FP64
// units'. The result is checked against the same chains replayed on the host
// with std::fma (IEEE fused multiply-add, correctly rounded on both sides).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "common/registry.hpp"
#include "native_cuda/cuda_support.hpp"

namespace ompref::native {
namespace {

constexpr int chains = 8;
constexpr int threads = 256;
constexpr int blocks_per_sm = 8;
constexpr int iterations = 1 << 15;
constexpr double factor = 0.999999;  // x -> factor * x + addend: bounded, never denormal
constexpr double addend = 1e-7;

__host__ __device__ double chain_start(unsigned thread, int k) { return 1.0 + (thread % 1024) * 1e-6 + k * 1e-3; }

__global__ void fma_chains(double* out, int count, double m, double add) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  double x[chains];
#pragma unroll
  for (int k = 0; k < chains; ++k) x[k] = chain_start(t, k);
#pragma unroll 4
  for (int i = 0; i < count; ++i)
#pragma unroll
    for (int k = 0; k < chains; ++k) x[k] = fma(x[k], m, add);
  double sum = 0;
#pragma unroll
  for (int k = 0; k < chains; ++k) sum += x[k];
  out[t] = sum;
}

double host_chains(unsigned thread) {
  double x[chains];
  for (int k = 0; k < chains; ++k) x[k] = chain_start(thread, k);
  for (int i = 0; i < iterations; ++i)
    for (int k = 0; k < chains; ++k) x[k] = std::fma(x[k], factor, addend);
  double sum = 0;
  for (int k = 0; k < chains; ++k) sum += x[k];
  return sum;
}

ProbeResult fp64_fma_peak(int device) {
  select(device);
  const int blocks = blocks_per_sm * multiprocessors(device);
  const std::size_t total = std::size_t(blocks) * threads;
  DeviceArray<double> out(total);
  const auto launch = [&] {
    fma_chains<<<unsigned(blocks), unsigned(threads)>>>(out.data(), iterations, factor, addend);
    check_launch("fma_chains");
  };
  const int warmup = 1, reps = 5;
  for (int w = 0; w < warmup; ++w) launch();
  wait_for_device();
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    launch();
    wait_for_device();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  const double flops = 2.0 * chains * iterations * double(total);

  // A few threads replayed on the host: first, last, and two in between.
  std::vector<double> got(total);
  check(cudaMemcpy(got.data(), out.data(), total * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy to the host");
  ProbeResult result;
  result.valid = true;
  for (std::size_t t : {std::size_t(0), total / 3, total / 2 + 17, total - 1}) {
    const double want = host_chains(unsigned(t));
    result.valid = result.valid && std::fabs(got[t] - want) <= 1e-14 * std::fabs(want);
  }
  result.value = flops / best / 1e12;
  result.details = {{"blocks", double(blocks)}, {"threads", double(threads)}, {"chains", double(chains)},
                    {"iterations", double(iterations)}};
  result.measured = fmt::format("CUDA FP64 FMA, {} chains x {} iterations per thread, {} x {} threads, best of {}",
                                chains, iterations, blocks, threads, reps);
  return result;
}

const Registration fp64_peak_registration{NativeProbe{"native_fp64_fma_TFLOPs", "TFLOP/s", 1, fp64_fma_peak, 1000}};

}  // namespace
}  // namespace ompref::native
