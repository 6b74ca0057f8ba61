// The fixed cost of one OpenMP offload construct, measured alone: what a
// kernel that moves little data pays on top of its bytes (the mesh kernels at
// 12.6 M tets take tens of microseconds, so this cost is most of their time).
// Each form runs `reps` times back to back after a warm-up (the first target
// region pays the JIT); prints microseconds per construct, median of 7 batches.
// `spin` (the default, as `ompref run --device-wait spin`) makes the CUDA
// contexts spin-wait before the first target region; `runtime` keeps the
// OpenMP runtime's blocking wait (src/common/device_wait.hpp).
//   ompref_launch_cost [reps] [device] [spin|runtime]
// bench/launch_cost.cu is the same measurement for a CUDA kernel launch.
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fmt/core.h>

#include "common/device_wait.hpp"

namespace {

template <class F>
double micros_per_call(int reps, F&& body) {
  std::vector<double> batches;
  for (int b = 0; b < 7; ++b) {
    const double t0 = omp_get_wtime();
    for (int r = 0; r < reps; ++r) body();
    batches.push_back((omp_get_wtime() - t0) / reps * 1e6);
  }
  std::sort(batches.begin(), batches.end());
  return batches[batches.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 2000;
  const char* wait = argc > 3 ? argv[3] : "spin";
  const bool spin = std::strcmp(wait, "spin") == 0;
  if (argc > 4 || (!spin && std::strcmp(wait, "runtime") != 0)) {
    std::fprintf(stderr, "ompref_launch_cost: usage: ompref_launch_cost [reps 1..1e6] [device] [spin|runtime]\n");
    return 2;
  }
  ompref::apply_device_wait(spin ? ompref::DeviceWait::spin : ompref::DeviceWait::runtime);
  const int dev = argc > 2 ? std::atoi(argv[2]) : omp_get_default_device();
  if (reps < 1 || reps > 1000000 || dev < 0 || dev > omp_get_num_devices()) {
    std::fprintf(stderr, "ompref_launch_cost: usage: ompref_launch_cost [reps 1..1e6] [device 0..%d] [spin|runtime]\n",
                 omp_get_num_devices());
    return 2;
  }
  constexpr long n = 1 << 20;
  std::vector<double> a(n, 1.0), b(n, 2.0), c(n, 0.0), d(n, 0.0);
  double *pa = a.data(), *pb = b.data(), *pc = c.data(), *pd = d.data();
#pragma omp target enter data device(dev) map(to : pa[0:n], pb[0:n], pc[0:n], pd[0:n])
  double* raw = static_cast<double*>(omp_target_alloc(n * sizeof(double), dev));
  int on_device = 0;
#pragma omp target device(dev) map(from : on_device)
  on_device = !omp_is_initial_device();
  for (int w = 0; w < 10; ++w) {
#pragma omp target teams distribute parallel for device(dev) map(alloc : pa[0:n], pb[0:n])
    for (long i = 0; i < n; ++i) pa[i] += pb[i];
  }

  fmt::print("{{\"device\": {}, \"on_device\": {}, \"device_wait\": \"{}\", \"reps\": {}, \"microseconds\": {{\n", dev,
             on_device != 0, ompref::device_wait_description(), reps);
  const double empty = micros_per_call(reps, [&] {
#pragma omp target device(dev)
    {}
  });
  const double one = micros_per_call(reps, [&] {
#pragma omp target teams distribute parallel for device(dev) map(alloc : pa[0:n])
    for (long i = 0; i < 1; ++i) pa[i] += 1.0;
  });
  const double four = micros_per_call(reps, [&] {
#pragma omp target teams distribute parallel for device(dev) map(alloc : pa[0:n], pb[0:n], pc[0:n], pd[0:n])
    for (long i = 0; i < 1; ++i) pa[i] += pb[i] + pc[i] + pd[i];
  });
  const double devptr = micros_per_call(reps, [&] {
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(raw)
    for (long i = 0; i < 1; ++i) raw[i] = 1.0;
  });
  const double nowait = micros_per_call(reps, [&] {
#pragma omp target teams distribute parallel for device(dev) map(alloc : pa[0:n]) nowait
    for (long i = 0; i < 1; ++i) pa[i] += 1.0;
#pragma omp taskwait
  });
  const double four_nowait = micros_per_call(reps, [&] {
#pragma omp target teams distribute parallel for device(dev) map(alloc : pa[0:n], pb[0:n], pc[0:n], pd[0:n]) nowait
    for (long i = 0; i < 1; ++i) pa[i] += pb[i] + pc[i] + pd[i];
#pragma omp taskwait
  });
  double sum = 0;
  const double reduce = micros_per_call(reps, [&] {
    double s = 0;
#pragma omp target teams distribute parallel for device(dev) map(alloc : pa[0:n]) reduction(+ : s)
    for (long i = 0; i < 1; ++i) s += pa[i];
    sum += s;
  });
  const double update = micros_per_call(reps, [&] {
#pragma omp target update device(dev) from(pa[0:1])
  });
  fmt::print("  \"empty_target\": {:.2f},\n  \"kernel_1_map_alloc\": {:.2f},\n  \"kernel_4_map_alloc\": {:.2f},\n"
             "  \"kernel_is_device_ptr\": {:.2f},\n  \"kernel_nowait_taskwait\": {:.2f},\n"
             "  \"kernel_4_map_alloc_nowait_taskwait\": {:.2f},\n"
             "  \"kernel_reduction\": {:.2f},\n  \"update_from_8_bytes\": {:.2f}\n}}}}\n",
             empty, one, four, devptr, nowait, four_nowait, reduce, update);
  omp_target_free(raw, dev);
#pragma omp target exit data device(dev) map(release : pa[0:n], pb[0:n], pc[0:n], pd[0:n])
  return sum > 0 ? 0 : 1;
}
