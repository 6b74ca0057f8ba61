// The CUDA side of bench/launch_cost.cpp: microseconds per launch of a
// one-thread kernel followed by a synchronisation, the floor any offload
// runtime stands on. nvcc -O3 -arch=sm_90 bench/launch_cost.cu -o /tmp/lc
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

__global__ void touch(double* a) { a[0] += 1.0; }

int main() {
  double* a = nullptr;
  if (cudaMalloc(&a, sizeof(double)) != cudaSuccess) return 1;
  const int reps = 2000;
  for (int w = 0; w < 100; ++w) touch<<<1, 1>>>(a);
  cudaDeviceSynchronize();
  std::vector<double> batches;
  for (int b = 0; b < 7; ++b) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) {
      touch<<<1, 1>>>(a);
      cudaStreamSynchronize(0);
    }
    batches.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / reps);
  }
  std::sort(batches.begin(), batches.end());
  std::printf("{\"cuda_launch_and_sync_us\": %.2f}\n", batches[3]);
  cudaFree(a);
  return 0;
}
