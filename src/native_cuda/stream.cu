// stream as plain CUDA: the native twin of src/omp_target/stream.cpp and
// stream_basic.cpp (docs/native.md). BabelStream's five kernels on the same
// instance arrays, entered by the runner from the same DeviceData declaration
// (device_data, beside target_simd); held against the target variants by
// native_fraction. Written for this suite after BabelStream's CUDA form (one
// element per thread; the dot summed per block on the device, the block sums
// added on the host), in the launch shape that measured fastest.
//
// Also the CUDA triad ceiling: the triad in several launch shapes on arrays
// of its own, the best of which is the device's bandwidth ceiling as CUDA
// reaches it (reported beside the OpenMP ceiling in the JSON `ceilings`).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "common/registry.hpp"
#include "common/stream/stream.hpp"
#include "common/stream/stream_data.hpp"
#include "native_cuda/cuda_support.hpp"

namespace ompref::stream {

namespace {

using native::check;
using native::check_launch;

// BabelStream's kernels, one element each, on arrays of T (--precision).
template <class T>
struct Copy {
  const T* a;
  T* c;
  static constexpr const char* name = "copy";
  __device__ void operator()(std::size_t i) const { c[i] = a[i]; }
};
template <class T>
struct Mul {
  T* b;
  const T* c;
  static constexpr const char* name = "mul";
  __device__ void operator()(std::size_t i) const { b[i] = T(scalar) * c[i]; }
};
template <class T>
struct Add {
  const T* a;
  const T* b;
  T* c;
  static constexpr const char* name = "add";
  __device__ void operator()(std::size_t i) const { c[i] = a[i] + b[i]; }
};
template <class T>
struct Triad {
  T* a;
  const T* b;
  const T* c;
  static constexpr const char* name = "triad";
  __device__ void operator()(std::size_t i) const { a[i] = b[i] + T(scalar) * c[i]; }
};

template <class Op>
__global__ void each_element(Op op, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) op(i);
}

template <class Op>
__global__ void each_strided(Op op, std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) op(i);
}

// A launch shape: `threads` per block, and either one element per thread
// (blocks_per_sm == 0: n / threads blocks) or a grid-stride loop over
// blocks_per_sm blocks per multiprocessor.
struct Shape {
  const char* name;
  int threads;
  int blocks_per_sm;
};
// The ceiling's shapes. The first is the twin's, the fastest measured
// (docs/log/stream.md, "Measurements behind the sources").
constexpr Shape shapes[] = {{"flat_128", 128, 0},     {"flat_256", 256, 0},        {"flat_512", 512, 0},
                            {"flat_1024", 1024, 0},   {"stride_8x512", 512, 8},    {"stride_2x1024", 1024, 2}};
constexpr const Shape& twin_shape = shapes[0];

struct Launcher {
  Shape shape;
  int multiprocessors;

  template <class Op>
  void operator()(Op op, std::size_t n) const {
    if (n == 0) return;
    if (shape.blocks_per_sm == 0) {
      const std::size_t blocks = (n + std::size_t(shape.threads) - 1) / std::size_t(shape.threads);
      each_element<<<unsigned(blocks), unsigned(shape.threads)>>>(op, n);
    } else {
      each_strided<<<unsigned(multiprocessors * shape.blocks_per_sm), unsigned(shape.threads)>>>(op, n);
    }
    check_launch(Op::name);
  }
};

// The dot: each block sums its grid-stride share (in each warp by shuffles,
// then across the block's warps), one partial sum per block; the host adds
// the partial sums in block order. Two 1024-thread blocks per multiprocessor
// fill every multiprocessor in one wave (the fastest of the forms measured:
// docs/log/stream.md).
constexpr int dot_threads = 1024;
constexpr int dot_blocks_per_sm = 2;
constexpr int max_dot_blocks = 4096;
__device__ double dot_partials[max_dot_blocks];

__device__ double warp_sum(double x) {
  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_down_sync(0xffffffffu, x, offset);
  return x;
}

// The products are T's, the sums doubles (as the OpenMP variants sum them).
template <class T>
__global__ void dot_blocks(const T* a, const T* b, std::size_t n) {
  __shared__ double warp_sums[dot_threads / 32];
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  double sum = 0;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) sum += a[i] * b[i];
  sum = warp_sum(sum);
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = warp_sum(lane < blockDim.x / 32 ? warp_sums[lane] : 0.0);
    if (lane == 0) dot_partials[blockIdx.x] = sum;
  }
}

// The block sums come back by an asynchronous copy into pinned host memory,
// and the wait polls: a synchronous copy into pageable memory waits the
// context's way (blocking, once OpenMP's runtime has set it), which cost the
// dot time (docs/log/stream.md). Allocated at the first call (a warm-up).
double* pinned_partials() {
  static double* const host = native::pinned_host<double>(max_dot_blocks);
  return host;
}

template <class T>
double dot(const T* a, const T* b, std::size_t n, int device) {
  const int blocks = std::min(max_dot_blocks, dot_blocks_per_sm * native::multiprocessors(device));
  double* partials = pinned_partials();
  dot_blocks<<<unsigned(blocks), unsigned(dot_threads)>>>(a, b, n);
  check_launch("dot");
  check(cudaMemcpyFromSymbolAsync(partials, dot_partials, std::size_t(blocks) * sizeof(double), 0,
                                  cudaMemcpyDeviceToHost, 0),
        "cudaMemcpyFromSymbolAsync (the dot's block sums)");
  native::wait_for_device();
  double sum = 0;
  for (int k = 0; k < blocks; ++k) sum += partials[k];
  return sum;
}

// The native twin: the same program as target_simd, kernel for kernel.
template <class T>
void native_kernels(T* host_a, T* host_b, T* host_c, std::size_t n, double& result, RunContext& ctx) {
  native::select(ctx.device);
  T* a = native::present(host_a, ctx.device);
  T* b = native::present(host_b, ctx.device);
  T* c = native::present(host_c, ctx.device);
  const Launcher launch{twin_shape, native::multiprocessors(ctx.device)};

  launch(Copy<T>{a, c}, n);
  ctx.clock.lap("copy");
  launch(Mul<T>{b, c}, n);
  ctx.clock.lap("mul");
  launch(Add<T>{a, b, c}, n);
  ctx.clock.lap("add");
  launch(Triad<T>{a, b, c}, n);
  ctx.clock.lap("triad");
  result = dot(a, b, n, ctx.device);
  ctx.clock.lap("dot");
}

void native_stream(StreamInstance& s, RunContext& ctx) {
  s.with_arrays([&](auto* a, auto* b, auto* c) { native_kernels(a, b, c, s.n, s.dot, ctx); });
}

const Registration native_stream_registration{native_variant(
    "stream", "native_stream",
    "BabelStream's five kernels as plain CUDA on the target variants' data (one element per thread, 128-thread "
    "blocks; dot: block sums added on the host): what the hardware gives the same program",
    native_stream, device_data)};

// The ceiling probe's own arrays are checked on the device: every element of
// a must hold b + scalar * c after each shape (a is poisoned before each).
__device__ unsigned long long wrong_elements;

struct Fill {
  double* x;
  double value;
  static constexpr const char* name = "fill";
  __device__ void operator()(std::size_t i) const { x[i] = value; }
};
struct CountWrong {
  const double* a;
  double want, tolerance;
  static constexpr const char* name = "check";
  __device__ void operator()(std::size_t i) const {
    if (!(fabs(a[i] - want) <= tolerance)) atomicAdd(&wrong_elements, 1ull);
  }
};

// The best (min) time of `reps` launches after `warmup`, each launch followed
// by a synchronisation, as the runner times a native variant.
template <class Launch>
double best_seconds(Launch&& launch, int warmup, int reps) {
  for (int w = 0; w < warmup; ++w) launch();
  native::wait_for_device();
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    launch();
    native::wait_for_device();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

unsigned long long count_wrong(const Launcher& launch, const double* a, double want, std::size_t n) {
  const unsigned long long zero = 0;
  check(cudaMemcpyToSymbol(wrong_elements, &zero, sizeof zero), "cudaMemcpyToSymbol");
  launch(CountWrong{a, want, 4 * std::numeric_limits<double>::epsilon() * std::fabs(want)}, n);
  unsigned long long wrong = 0;
  check(cudaMemcpyFromSymbol(&wrong, wrong_elements, sizeof wrong), "cudaMemcpyFromSymbol");
  return wrong;
}

// The CUDA triad ceiling: the OpenMP device ceiling's size (three 2 GiB
// arrays, halved until they take at most half the free memory) and
// repetitions (5 warm-up, best of 20), in every launch shape.
ProbeResult triad_ceiling(int device) {
  native::select(device);
  std::size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  std::size_t n = elements_for_size("large");
  while (n > (std::size_t(1) << 20) && 3.0 * sizeof(double) * double(n) > 0.5 * double(free_bytes)) n /= 2;
  native::DeviceArray<double> a(n), b(n), c(n);
  const int sms = native::multiprocessors(device);
  const Launcher fill{twin_shape, sms};
  fill(Fill{b.data(), start_b}, n);
  fill(Fill{c.data(), start_a}, n);
  const double want = std::fma(scalar, start_a, start_b);  // nvcc contracts b + scalar * c into one FMA
  const int warmup = 5, reps = 20;

  ProbeResult result;
  result.valid = true;
  std::string best_shape;
  for (const Shape& shape : shapes) {
    const Launcher launch{shape, sms};
    check(cudaMemset(a.data(), 0xff, n * sizeof(double)), "cudaMemset");  // NaN
    const double seconds = best_seconds([&] { launch(Triad<double>{a.data(), b.data(), c.data()}, n); }, warmup, reps);
    const double gbps = 3.0 * sizeof(double) * double(n) / seconds / 1e9;
    result.details.emplace_back(shape.name, gbps);
    result.valid = result.valid && count_wrong(launch, a.data(), want, n) == 0;
    if (gbps > result.value) {
      result.value = gbps;
      best_shape = shape.name;
    }
  }
  result.details.emplace_back("n", double(n));
  result.measured = fmt::format("CUDA triad, best of {} launch shapes x {} repetitions, n = {}: {}",
                                std::size(shapes), reps, n, best_shape);
  return result;
}

const Registration triad_ceiling_registration{NativeProbe{"native_triad_GBps", "GB/s", 0, triad_ceiling}};

}  // namespace
}  // namespace ompref::stream
