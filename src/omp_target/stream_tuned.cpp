// stream on the device, tuned launch shapes: the step from
// src/omp_target/stream.cpp (`diff src/omp_target/stream.cpp src/omp_target/stream_tuned.cpp`).
// - copy, mul, add and triad give one element to each thread, in teams of 128
//   threads (num_teams = n / 128, thread_limit(128)): clang's default launch
//   is a fixed grid (3,200 teams of 128 threads on an H200) walking the arrays
//   in a grid-stride loop, 8% slower on the triad; 128 threads per team were
//   fastest there, as they are for the CUDA twin (bench/omp_shapes.cpp and
//   bench/native_shapes.cu sweep the shapes);
// - the dot reduces in two levels by hand, as mesh's tuned reduction does
//   (src/omp_target/mesh_tuned.cpp): `dot_teams` teams of 256 threads (4 a
//   multiprocessor of an H200, one wave), each a `parallel` region whose
//   thread i of team t takes every (dot_teams x 256)-th element from 256 t + i,
//   4 of each array loaded before any is added; each team stores its partial
//   on the device and counts itself done (`atomic capture` between flushes),
//   the last one adds the partials up, and only the sum comes back,
//   into page-locked memory (pinned_slot). The runtime's cross-team reduction
//   (`reduction(+)` on the combined construct, as in the plain form) and a
//   `parallel for` over one block per team with the partials mapped back to
//   the host were both slower (docs/log/stream.md).
// What stays between this step and CUDA is measured in docs/native.md and
// docs/stream.md: the OpenMP construct's fixed cost on the host (10-13 µs with
// the spinning context, against 9.5 µs for a CUDA launch), and kernels 1-3%
// slower than the twin's at 2^28.
#include <cstddef>

#include <omp.h>

#include "common/registry.hpp"
#include "common/stream/stream.hpp"
#include "common/stream/stream_data.hpp"
#include "omp_target/team_reduction.hpp"

namespace ompref::stream {

namespace {

constexpr int threads = 128;  // per team, one element each

#pragma omp declare target
// The dot's teams: 4 of 256 threads per multiprocessor of an H200 (132), as
// many as its 60 registers a thread let run at once (one wave).
constexpr int dot_teams = 528;
constexpr int dot_threads = 256;
constexpr int in_flight = 4;  // elements of each array a thread loads before adding
// The dot's partial sum of each team, and how many teams have stored theirs
// in the running dot (last_team_done).
double dot_partial[dot_teams];
unsigned dot_teams_done = 0;

// The partials added by one team, its threads striding through them.
inline double sum_on_team(const double* part, int count) {
  double total = 0;
#pragma omp parallel firstprivate(part, count) reduction(+ : total)
  for (int k = omp_get_thread_num(); k < count; k += omp_get_num_threads()) total += part[k];
  return total;
}
#pragma omp end declare target

// The dot in two levels on `nt` teams: each team stores its partial on the
// device, the last one done adds them up, and only the sum comes back.
template <class T>
double tuned_dot(T* a, T* b, std::size_t n, int nt, int dev) {
  double* result = pinned_slot<double>();
#pragma omp target teams distribute num_teams(nt) thread_limit(dot_threads) device(dev) \
    map(alloc : a[0:n], b[0:n]) map(always, from : result[0:1])
  for (int t = 0; t < nt; ++t) {
    double sum = 0;
#pragma omp parallel firstprivate(a, b, n, nt, t) reduction(+ : sum)
    {
      const std::size_t stride = std::size_t(nt) * dot_threads;
      for (int lane = omp_get_thread_num(); lane < dot_threads; lane += omp_get_num_threads()) {
        std::size_t i = std::size_t(t) * dot_threads + lane;
        for (; i + (in_flight - 1) * stride < n; i += in_flight * stride) {
          T x[in_flight], y[in_flight];
          for (int k = 0; k < in_flight; ++k) x[k] = a[i + k * stride];
          for (int k = 0; k < in_flight; ++k) y[k] = b[i + k * stride];
          for (int k = 0; k < in_flight; ++k) sum += x[k] * y[k];
        }
        for (; i < n; i += stride) sum += a[i] * b[i];
      }
    }
    dot_partial[t] = sum;
    if (last_team_done(dot_teams_done, nt)) *result = sum_on_team(dot_partial, nt);
  }
  return *result;
}

template <class T>
void target_tuned_kernels(T* a, T* b, T* c, std::size_t n, double& dot, RunContext& ctx) {
  const T q = T(scalar);
  const int dev = ctx.device;
  // The shapes are the device's (league(): one team on the host fallback).
  const int teams = league(ctx.on_device, long((n + threads - 1) / threads));
  const int nt = league(ctx.on_device, dot_teams);
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
#pragma omp target teams distribute parallel for simd device(dev) map(alloc : a[0:n], c[0:n]) \
    num_teams(teams) thread_limit(threads)
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i];
  ctx.clock.lap("copy");

#pragma omp target teams distribute parallel for simd device(dev) map(alloc : b[0:n], c[0:n]) \
    num_teams(teams) thread_limit(threads)
  for (std::size_t i = 0; i < n; ++i) b[i] = q * c[i];
  ctx.clock.lap("mul");

#pragma omp target teams distribute parallel for simd device(dev) map(alloc : a[0:n], b[0:n], c[0:n]) \
    num_teams(teams) thread_limit(threads)
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
  ctx.clock.lap("add");

#pragma omp target teams distribute parallel for simd device(dev) map(alloc : a[0:n], b[0:n], c[0:n]) \
    num_teams(teams) thread_limit(threads)
  for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + q * c[i];
  ctx.clock.lap("triad");

  dot = tuned_dot(a, b, n, nt, dev);
  ctx.clock.lap("dot");
  // The reference taken above is given back; the results come to the host
  // when the last reference goes (here the runner's, after the clock stops).
#pragma omp target exit data device(dev) map(from : a[0:n], b[0:n], c[0:n])
}

void target_tuned(StreamInstance& s, RunContext& ctx) {
  s.with_arrays([&](auto* a, auto* b, auto* c) { target_tuned_kernels(a, b, c, s.n, s.dot, ctx); });
}

const Registration target_tuned_registration{
    target_variant("stream", "target_tuned",
                   "BabelStream offloaded in launch shapes chosen by hand: one element per thread in teams of 128, "
                   "the dot in two levels, its team sums added on the device by the last team",
                   target_tuned, device_data)
        .measuring_ceiling("triad").follows("target_simd").uses({"target teams distribute parallel for", "teams distribute", "simd", "declare target", "reduction", "target enter/exit data", "map(alloc)", "thread_limit", "num_teams"})};

}  // namespace
}  // namespace ompref::stream
