// stream on the device: BabelStream's kernels as `target teams distribute
// parallel for simd` loops. The port of src/omp_host/stream.cpp: the same
// program, differing only in directives, the device argument and the data
// mapping (`diff src/omp_host/stream.cpp src/omp_target/stream.cpp`).
#include <cstddef>

#include "common/registry.hpp"
#include "common/stream/stream.hpp"
#include "common/stream/stream_data.hpp"

namespace ompref::stream {

// The arrays go to the device once, before timing (the runner enters this
// declaration); the kernels then name them with map(alloc:), which finds
// them present and moves nothing. Every array is read and written: the
// double arrays or the single ones (the others are empty and declare nothing).
DeviceData device_data(StreamInstance& s) {
  return DeviceData().out(s.a).out(s.b).out(s.c).out(s.af).out(s.bf).out(s.cf);
}

namespace {

// mirror: begin
// One program for both precisions: T is the arrays' type (--precision); the
// dot's products are T's, its sum a double.
// `simd` matters on gcc's nvptx, where a thread is a warp and simd its lanes
// (without it one lane in 32 works); clang maps threads to lanes either way.
template <class T>
void target_simd_kernels(T* a, T* b, T* c, std::size_t n, double& dot, RunContext& ctx) {
  const T q = T(scalar);
  const int dev = ctx.device;
  // The data lesson: the arrays go to the device once and stay there while
  // every kernel runs. In this suite the runner has already entered them
  // (device_data() above, before the clock starts), so this `enter data`
  // finds them present, counts one more reference and moves nothing; a
  // program without the runner would put it before its repetition loop.
#pragma omp target enter data device(dev) map(to : a[0:n], b[0:n], c[0:n])

  // map(alloc:): the arrays are expected present, so nothing is copied.
  // (OpenMP 5.1's `present` modifier would make an absent array an error,
  // but g++-12 rejects the modifier, and this file is plain OpenMP for every
  // compiler the suite builds with.)
#pragma omp target teams distribute parallel for simd device(dev) map(alloc : a[0:n], c[0:n])
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i];
  ctx.clock.lap("copy");

#pragma omp target teams distribute parallel for simd device(dev) map(alloc : b[0:n], c[0:n])
  for (std::size_t i = 0; i < n; ++i) b[i] = q * c[i];
  ctx.clock.lap("mul");

#pragma omp target teams distribute parallel for simd device(dev) map(alloc : a[0:n], b[0:n], c[0:n])
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
  ctx.clock.lap("add");

#pragma omp target teams distribute parallel for simd device(dev) map(alloc : a[0:n], b[0:n], c[0:n])
  for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + q * c[i];
  ctx.clock.lap("triad");

  double sum = 0;
#pragma omp target teams distribute parallel for simd device(dev) map(alloc : a[0:n], b[0:n]) \
    map(tofrom : sum) reduction(+ : sum)
  for (std::size_t i = 0; i < n; ++i) sum += a[i] * b[i];
  dot = sum;
  ctx.clock.lap("dot");
  // The reference taken above is given back; the results come to the host
  // when the last reference goes (here the runner's, after the clock stops).
#pragma omp target exit data device(dev) map(from : a[0:n], b[0:n], c[0:n])
}

void target_simd(StreamInstance& s, RunContext& ctx) {
  s.with_arrays([&](auto* a, auto* b, auto* c) { target_simd_kernels(a, b, c, s.n, s.dot, ctx); });
}
// mirror: end

const Registration target_simd_registration{
    target_variant("stream", "target_simd",
                   "BabelStream offloaded as `target teams distribute parallel for simd`, data resident on the "
                   "device; with the other target form, the device ceiling",
                   target_simd, device_data)
        .measuring_ceiling("triad").mirror_of("host_simd").uses({"target teams distribute parallel for", "simd", "reduction", "target enter/exit data", "map(alloc)"})};

}  // namespace
}  // namespace ompref::stream
