// The sweep behind the native twins' launch shapes (docs/native.md): the cost
// of a launch and wait with CUDA's default scheduling and with blocking
// synchronisation (what LLVM's OpenMP plugin sets), the triad one element per
// thread in 128..1024-thread blocks (64- and 32-bit index) and grid-stride,
// and the dot's blocks per multiprocessor, at n = 2^25 and 2^28. Each figure
// is the best of 40 launches after 5 warm-ups, timed by the host clock.
//   nvcc -O3 -arch=sm_90 bench/native_shapes.cu -o /tmp/shapes && /tmp/shapes blocking && /tmp/shapes
// (results/h200/native/launch-shapes-cuda/launch-shapes.txt)
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <vector>
#include <algorithm>
using clk = std::chrono::steady_clock;
static void spin() { while (cudaStreamQuery(0) == cudaErrorNotReady) {} }
__global__ void touch(double* a) { a[0] += 1.0; }
template <class I> __global__ void triad_flat(double* a, const double* b, const double* c, size_t n) {
  I i = I(blockIdx.x) * blockDim.x + threadIdx.x; if (i < n) a[i] = b[i] + 0.4 * c[i]; }
__global__ void triad_stride(double* a, const double* b, const double* c, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) a[i] = b[i] + 0.4 * c[i]; }
__device__ double parts[16384];
__device__ double warp_sum(double x) { for (int o = 16; o > 0; o /= 2) x += __shfl_down_sync(0xffffffffu, x, o); return x; }
template <int U> __global__ void dotk(const double* a, const double* b, size_t n) {
  __shared__ double ws[32];
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  double s = 0;
#pragma unroll U
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) s += a[i] * b[i];
  s = warp_sum(s);
  unsigned lane = threadIdx.x % 32, w = threadIdx.x / 32;
  if (lane == 0) ws[w] = s;
  __syncthreads();
  if (w == 0) { s = warp_sum(lane < blockDim.x / 32 ? ws[lane] : 0.0); if (lane == 0) parts[blockIdx.x] = s; }
}
template <class F> double best(F f, bool use_spin, int reps = 40) {
  for (int w = 0; w < 5; ++w) f(); cudaDeviceSynchronize();
  double b = 1e30;
  for (int r = 0; r < reps; ++r) { auto t0 = clk::now(); f(); if (use_spin) spin(); else cudaDeviceSynchronize();
    b = std::min(b, std::chrono::duration<double>(clk::now() - t0).count()); }
  return b;
}
int main(int argc, char** argv) {
  if (argc > 1) cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  double* t; cudaMalloc(&t, 8);
  printf("%s: launch+cudaDeviceSynchronize %.1f us, launch+spin %.1f us\n", argc > 1 ? "blocking-sync ctx" : "default ctx",
         1e6 * best([&] { touch<<<1, 1>>>(t); }, false, 200), 1e6 * best([&] { touch<<<1, 1>>>(t); }, true, 200));
  if (argc > 1) return 0;
  for (int lg : {25, 28}) {
    size_t n = size_t(1) << lg;
    double *a, *b, *c; cudaMalloc(&a, n * 8); cudaMalloc(&b, n * 8); cudaMalloc(&c, n * 8);
    cudaMemset(a, 0, n * 8); cudaMemset(b, 0, n * 8); cudaMemset(c, 0, n * 8);
    auto gb = [&](double s, int arrays) { return arrays * 8.0 * n / s / 1e9; };
    for (int T : {128, 256, 512, 1024}) {
      unsigned blocks = (n + T - 1) / T;
      printf("2^%d triad flat %4d size_t %.0f  int %.0f GB/s\n", lg, T, gb(best([&] { triad_flat<size_t><<<blocks, T>>>(a, b, c, n); }, true), 3),
             gb(best([&] { triad_flat<int><<<blocks, T>>>(a, b, c, n); }, true), 3));
    }
    for (int T : {256, 512, 1024}) for (int k : {2, 4, 8, 16}) {
      if (T * k > 4096) continue;
      printf("2^%d triad stride %dx%d per SM %.0f GB/s\n", lg, k, T, gb(best([&] { triad_stride<<<k * sms, T>>>(a, b, c, n); }, true), 3));
    }
    std::vector<double> h(16384);
    for (int T : {256, 512, 1024}) for (int k : {1, 2, 4, 8}) {
      int blocks = k * sms * 1024 / T;
      auto f1 = [&] { dotk<1><<<blocks, T>>>(a, b, n); cudaMemcpyFromSymbol(h.data(), parts, blocks * 8); };
      auto f4 = [&] { dotk<4><<<blocks, T>>>(a, b, n); cudaMemcpyFromSymbol(h.data(), parts, blocks * 8); };
      printf("2^%d dot %d blocks x %d (%d x 1024 threads/SM): u1 %.0f u4 %.0f GB/s\n", lg, blocks, T, k, gb(best(f1, true), 2), gb(best(f4, true), 2));
    }
    cudaFree(a); cudaFree(b); cudaFree(c);
  }
}
