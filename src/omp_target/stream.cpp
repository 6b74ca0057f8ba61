// stream on the device: BabelStream's kernels as `target teams distribute`
// loops. Compare with src/omp_host/stream.cpp: same functions, same order.
#include <cstddef>

#include "common/registry.hpp"
#include "common/stream.hpp"

namespace ompref::stream {
namespace {

// The arrays go to the device once, before timing; the kernels then name
// them with map(alloc:), which finds them present and moves nothing.
void enter_data(StreamInstance& s, RunContext& ctx) {
  const std::size_t n = s.n;
  [[maybe_unused]] double* a = s.a.data();  // unused where target pragmas compile away
  [[maybe_unused]] double* b = s.b.data();
  [[maybe_unused]] double* c = s.c.data();
#pragma omp target enter data device(ctx.device) map(to : a[0:n], b[0:n], c[0:n])
}

void exit_data(StreamInstance& s, RunContext& ctx) {
  const std::size_t n = s.n;
  [[maybe_unused]] double* a = s.a.data();
  [[maybe_unused]] double* b = s.b.data();
  [[maybe_unused]] double* c = s.c.data();
#pragma omp target exit data device(ctx.device) map(from : a[0:n], b[0:n], c[0:n])
}

// The plain port: teams share the iterations, each team's threads share its chunk.
void target_basic(StreamInstance& s, RunContext& ctx) {
  const std::size_t n = s.n;
  double* a = s.a.data();
  double* b = s.b.data();
  double* c = s.c.data();
  const int dev = ctx.device;

#pragma omp target teams distribute parallel for device(dev) map(alloc : a[0:n], c[0:n])
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i];
  ctx.clock.lap("copy");

#pragma omp target teams distribute parallel for device(dev) map(alloc : b[0:n], c[0:n])
  for (std::size_t i = 0; i < n; ++i) b[i] = scalar * c[i];
  ctx.clock.lap("mul");

#pragma omp target teams distribute parallel for device(dev) map(alloc : a[0:n], b[0:n], c[0:n])
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
  ctx.clock.lap("add");

#pragma omp target teams distribute parallel for device(dev) map(alloc : a[0:n], b[0:n], c[0:n])
  for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + scalar * c[i];
  ctx.clock.lap("triad");

  double sum = 0;
#pragma omp target teams distribute parallel for device(dev) map(alloc : a[0:n], b[0:n]) \
    map(tofrom : sum) reduction(+ : sum)
  for (std::size_t i = 0; i < n; ++i) sum += a[i] * b[i];
  s.dot = sum;
  ctx.clock.lap("dot");
}

// The same with `simd`: on gcc's nvptx a thread is a warp and simd its lanes;
// without simd one lane in 32 works. clang maps threads to lanes either way.
void target_simd(StreamInstance& s, RunContext& ctx) {
  const std::size_t n = s.n;
  double* a = s.a.data();
  double* b = s.b.data();
  double* c = s.c.data();
  const int dev = ctx.device;

#pragma omp target teams distribute parallel for simd device(dev) map(alloc : a[0:n], c[0:n])
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i];
  ctx.clock.lap("copy");

#pragma omp target teams distribute parallel for simd device(dev) map(alloc : b[0:n], c[0:n])
  for (std::size_t i = 0; i < n; ++i) b[i] = scalar * c[i];
  ctx.clock.lap("mul");

#pragma omp target teams distribute parallel for simd device(dev) map(alloc : a[0:n], b[0:n], c[0:n])
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
  ctx.clock.lap("add");

#pragma omp target teams distribute parallel for simd device(dev) map(alloc : a[0:n], b[0:n], c[0:n])
  for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + scalar * c[i];
  ctx.clock.lap("triad");

  double sum = 0;
#pragma omp target teams distribute parallel for simd device(dev) map(alloc : a[0:n], b[0:n]) \
    map(tofrom : sum) reduction(+ : sum)
  for (std::size_t i = 0; i < n; ++i) sum += a[i] * b[i];
  s.dot = sum;
  ctx.clock.lap("dot");
}

const Registration target_basic_registration{target_variant(
    "stream", "target_basic",
    "BabelStream offloaded as `target teams distribute parallel for`, data resident on the device",
    target_basic, enter_data, exit_data)};
const Registration target_simd_registration{target_variant(
    "stream", "target_simd",
    "the same with `parallel for simd`: what gcc's nvptx needs to use all 32 lanes of a warp; the device ceiling",
    target_simd, enter_data, exit_data)};

}  // namespace
}  // namespace ompref::stream
