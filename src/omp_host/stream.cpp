// stream on the host: BabelStream's kernels as `parallel for simd` loops.
// Its offload port is src/omp_target/stream.cpp: the same program, differing
// only in directives, the device argument and the data mapping.
#include <cstddef>

#include "common/registry.hpp"
#include "common/stream/stream.hpp"

namespace ompref::stream {
namespace {

// Host data needs no mapping: the arrays were first-touched in parallel by
// StreamInstance::reset() with the same static schedule the kernels use.

// mirror: begin
// One program for both precisions: T is the arrays' type (--precision); the
// dot's products are T's, its sum a double.
template <class T>
void host_simd_kernels(T* a, T* b, T* c, std::size_t n, double& dot, RunContext& ctx) {
  const T q = T(scalar);

#pragma omp parallel for simd schedule(static)
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i];
  ctx.clock.lap("copy");

#pragma omp parallel for simd schedule(static)
  for (std::size_t i = 0; i < n; ++i) b[i] = q * c[i];
  ctx.clock.lap("mul");

#pragma omp parallel for simd schedule(static)
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
  ctx.clock.lap("add");

#pragma omp parallel for simd schedule(static)
  for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + q * c[i];
  ctx.clock.lap("triad");

  double sum = 0;
#pragma omp parallel for simd schedule(static) reduction(+ : sum)
  for (std::size_t i = 0; i < n; ++i) sum += a[i] * b[i];
  dot = sum;
  ctx.clock.lap("dot");
}

void host_simd(StreamInstance& s, RunContext& ctx) {
  s.with_arrays([&](auto* a, auto* b, auto* c) { host_simd_kernels(a, b, c, s.n, s.dot, ctx); });
}
// mirror: end

const Registration host_simd_registration{
    host_variant("stream", "host_simd",
                 "BabelStream on the host: `parallel for simd` over arrays first-touched in parallel; the host ceiling",
                 host_simd)
        .measuring_ceiling("triad").uses({"parallel for", "simd", "reduction", "schedule"})};

}  // namespace
}  // namespace ompref::stream
