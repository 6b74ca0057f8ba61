// stream on the device without `simd`: the step from src/omp_target/stream.cpp
// that drops the `simd` of every construct
// (`diff src/omp_target/stream.cpp src/omp_target/stream_basic.cpp`).
// On clang's NVPTX the two are the same kernels; on gcc's nvptx, where a
// thread is a warp and `simd` its lanes, this form keeps one lane in 32 busy.
#include <cstddef>

#include "common/registry.hpp"
#include "common/stream/stream.hpp"
#include "common/stream/stream_data.hpp"

namespace ompref::stream {

namespace {

template <class T>
void target_basic_kernels(T* a, T* b, T* c, std::size_t n, double& dot, RunContext& ctx) {
  const T q = T(scalar);
  const int dev = ctx.device;
  // The data lesson: the arrays go to the device once and stay there while
  // every kernel runs. In this suite the runner has already entered them
  // (device_data() of stream.cpp, before the clock starts), so this `enter data`
  // finds them present, counts one more reference and moves nothing; a
  // program without the runner would put it before its repetition loop.
#pragma omp target enter data device(dev) map(to : a[0:n], b[0:n], c[0:n])

  // map(alloc:): the arrays are expected present, so nothing is copied.
  // (OpenMP 5.1's `present` modifier would make an absent array an error,
  // but g++-12 rejects the modifier, and this file is plain OpenMP for every
  // compiler the suite builds with.)
#pragma omp target teams distribute parallel for device(dev) map(alloc : a[0:n], c[0:n])
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i];
  ctx.clock.lap("copy");

#pragma omp target teams distribute parallel for device(dev) map(alloc : b[0:n], c[0:n])
  for (std::size_t i = 0; i < n; ++i) b[i] = q * c[i];
  ctx.clock.lap("mul");

#pragma omp target teams distribute parallel for device(dev) map(alloc : a[0:n], b[0:n], c[0:n])
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
  ctx.clock.lap("add");

#pragma omp target teams distribute parallel for device(dev) map(alloc : a[0:n], b[0:n], c[0:n])
  for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + q * c[i];
  ctx.clock.lap("triad");

  double sum = 0;
#pragma omp target teams distribute parallel for device(dev) map(alloc : a[0:n], b[0:n]) \
    map(tofrom : sum) reduction(+ : sum)
  for (std::size_t i = 0; i < n; ++i) sum += a[i] * b[i];
  dot = sum;
  ctx.clock.lap("dot");
  // The reference taken above is given back; the results come to the host
  // when the last reference goes (here the runner's, after the clock stops).
#pragma omp target exit data device(dev) map(from : a[0:n], b[0:n], c[0:n])
}

void target_basic(StreamInstance& s, RunContext& ctx) {
  s.with_arrays([&](auto* a, auto* b, auto* c) { target_basic_kernels(a, b, c, s.n, s.dot, ctx); });
}

const Registration target_basic_registration{
    target_variant("stream", "target_basic",
                   "BabelStream offloaded as `target teams distribute parallel for` (no `simd`), data resident on "
                   "the device",
                   target_basic, device_data)
        .measuring_ceiling("triad").follows("target_simd").uses({"target teams distribute parallel for", "reduction", "target enter/exit data", "map(alloc)"})};

}  // namespace
}  // namespace ompref::stream
