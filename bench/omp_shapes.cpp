// Launch shapes of BabelStream's triad and dot as OpenMP offload constructs,
// on one device: what clang's defaults give against shapes chosen by hand
// (one element per thread, 32-bit indices, teams x threads for the dot). The
// measurement behind the tuned stream step (src/omp_target/stream_tuned.cpp);
// bench/native_shapes.cu is the same sweep in CUDA. Prints GB/s, best of 20
// after 5 warm-ups, for n = 2^25 and 2^28 doubles per array.
//   ompref_omp_shapes [device] [spin]
// `spin`: before OpenMP touches the device, its CUDA primary context is made
// active with CU_CTX_SCHED_SPIN (what a CUDA program gets by default on a
// machine with more cores than contexts): LLVM's CUDA plugin then keeps it,
// instead of creating the context with CU_CTX_SCHED_BLOCKING_SYNC, where each
// wait for a kernel sleeps and wakes late.
#include <dlfcn.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/core.h>

namespace {

template <class F>
double best_seconds(F&& body) {
  for (int r = 0; r < 5; ++r) body();
  double best = 1e30;
  for (int r = 0; r < 20; ++r) {
    const double t0 = omp_get_wtime();
    body();
    best = std::min(best, omp_get_wtime() - t0);
  }
  return best;
}

void sweep(std::size_t n, int dev) {
  double* a = static_cast<double*>(omp_target_alloc(n * sizeof(double), dev));
  double* b = static_cast<double*>(omp_target_alloc(n * sizeof(double), dev));
  double* c = static_cast<double*>(omp_target_alloc(n * sizeof(double), dev));
  if (!a || !b || !c) {
    fmt::print("n = {}: omp_target_alloc failed\n", n);
    std::exit(2);
  }
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(a, b, c)
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = 0.1;
    b[i] = 0.2;
    c[i] = 0.0;
  }
  const double scalar = 0.4;
  const double triad_bytes = 3.0 * sizeof(double) * double(n), dot_bytes = 2.0 * sizeof(double) * double(n);
  auto report = [&](const char* what, double bytes, double s) {
    fmt::print("n=2^{} {:<44} {:8.1f} GB/s {:9.1f} us\n", __builtin_ctzll(n), what, bytes / s / 1e9, s * 1e6);
  };
  const int ni = int(n);

  report("triad default size_t", triad_bytes, best_seconds([&] {
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(a, b, c)
           for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + scalar * c[i];
         }));
  report("triad default int", triad_bytes, best_seconds([&] {
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(a, b, c)
           for (int i = 0; i < ni; ++i) a[i] = b[i] + scalar * c[i];
         }));
  for (int threads : {128, 256, 512, 1024}) {
    const int teams = int((n + threads - 1) / threads);
    report(fmt::format("triad 1/thread {} threads size_t", threads).c_str(), triad_bytes, best_seconds([&] {
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(a, b, c) num_teams(teams) thread_limit(threads)
             for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + scalar * c[i];
           }));
    report(fmt::format("triad 1/thread {} threads int", threads).c_str(), triad_bytes, best_seconds([&] {
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(a, b, c) num_teams(teams) thread_limit(threads)
             for (int i = 0; i < ni; ++i) a[i] = b[i] + scalar * c[i];
           }));
  }
  for (int teams : {132 * 4, 132 * 8, 132 * 16, 132 * 32}) {
    report(fmt::format("triad {} teams x 256 int", teams).c_str(), triad_bytes, best_seconds([&] {
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(a, b, c) num_teams(teams) thread_limit(256)
             for (int i = 0; i < ni; ++i) a[i] = b[i] + scalar * c[i];
           }));
  }
  double sum = 0;
  report("dot default size_t", dot_bytes, best_seconds([&] {
           sum = 0;
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(a, b) reduction(+ : sum)
           for (std::size_t i = 0; i < n; ++i) sum += a[i] * b[i];
         }));
  report("dot default int", dot_bytes, best_seconds([&] {
           sum = 0;
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(a, b) reduction(+ : sum)
           for (int i = 0; i < ni; ++i) sum += a[i] * b[i];
         }));
  for (int threads : {256, 1024}) {
    for (int teams : {132, 264, 528, 1056, 2112}) {
      report(fmt::format("dot {} teams x {} int", teams, threads).c_str(), dot_bytes, best_seconds([&] {
               sum = 0;
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(a, b) reduction(+ : sum) \
    num_teams(teams) thread_limit(threads)
               for (int i = 0; i < ni; ++i) sum += a[i] * b[i];
             }));
    }
  }
  // Two levels by hand: each team reduces one block with a `parallel for`
  // reduction (lanes read consecutive elements: schedule(static, 1)) into its
  // own partial; the partials are added on the host.
  for (int teams : {264, 528, 1056}) {
    std::vector<double> part(teams);
    double* p = part.data();
    report(fmt::format("dot partials {} teams x 1024", teams).c_str(), dot_bytes, best_seconds([&] {
#pragma omp target teams distribute num_teams(teams) thread_limit(1024) device(dev) is_device_ptr(a, b) \
    map(from : p[0:teams])
             for (int t = 0; t < teams; ++t) {
               const int chunk = (ni + teams - 1) / teams;
               const int lo = std::min(ni, t * chunk), hi = std::min(ni, lo + chunk);
               double s = 0;
#pragma omp parallel for schedule(static, 1) reduction(+ : s)
               for (int i = lo; i < hi; ++i) s += a[i] * b[i];
               p[t] = s;
             }
             sum = 0;
             for (int t = 0; t < teams; ++t) sum += p[t];
           }));
  }
  fmt::print("n=2^{} dot check {} (want {})\n", __builtin_ctzll(n), sum, (0.2 + scalar * 0.0) * 0.2 * double(n));
  omp_target_free(a, dev);
  omp_target_free(b, dev);
  omp_target_free(c, dev);
}

// The CUDA driver's primary context of `device`, made active with spin waits
// (driver API through dlopen: this program is not linked against CUDA).
bool activate_spinning_context(int device) {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!cuda) return false;
  using Init = int (*)(unsigned);
  using DeviceGet = int (*)(int*, int);
  using SetFlags = int (*)(int, unsigned);
  using Retain = int (*)(void**, int);
  auto init = reinterpret_cast<Init>(dlsym(cuda, "cuInit"));
  auto device_get = reinterpret_cast<DeviceGet>(dlsym(cuda, "cuDeviceGet"));
  auto set_flags = reinterpret_cast<SetFlags>(dlsym(cuda, "cuDevicePrimaryCtxSetFlags_v2"));
  auto retain = reinterpret_cast<Retain>(dlsym(cuda, "cuDevicePrimaryCtxRetain"));
  int handle = 0;
  void* context = nullptr;
  constexpr unsigned sched_spin = 1;  // CU_CTX_SCHED_SPIN
  return init && device_get && set_flags && retain && init(0) == 0 && device_get(&handle, device) == 0 &&
         set_flags(handle, sched_spin) == 0 && retain(&context, handle) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::string(argv[2]) == "spin") {
    const bool ok = activate_spinning_context(argc > 1 ? std::atoi(argv[1]) : 0);
    fmt::print("spinning CUDA context: {}\n", ok ? "active" : "not available");
  }
  const int dev = argc > 1 ? std::atoi(argv[1]) : omp_get_default_device();
  if (dev < 0 || dev >= omp_get_num_devices()) {
    fmt::print(stderr, "ompref_omp_shapes: no offload device {} (this machine has {})\n", dev, omp_get_num_devices());
    return 2;
  }
  fmt::print("devices: {}, device {}\n", omp_get_num_devices(), dev);
  for (std::size_t n : {std::size_t(1) << 25, std::size_t(1) << 28}) sweep(n, dev);
}
