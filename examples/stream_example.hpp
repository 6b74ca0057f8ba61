#pragma once
// What the stream pair (stream_host.cpp, stream_target.cpp) shares around its
// kernels, written once: the arguments, the report of the best times, and the
// check of every element and the dot against the kernels' recurrence replayed
// on scalars. The kernels and where they run are each program's own.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "example.hpp"

namespace example {

constexpr double scalar = 0.4;

// n and reps from the command line, each in 1..2^30; false, after a usage
// line on stderr, for anything else (the program then exits 2).
inline bool stream_arguments(int argc, char** argv, long& n, long& reps) {
  if (argc > 3 || (argc > 1 && !parse_count(argv[1], 1L << 30, n)) ||
      (argc > 2 && !parse_count(argv[2], 1L << 30, reps))) {
    std::fprintf(stderr, "usage: %s [n] [reps], each in 1..2^30\n", argv[0]);
    return false;
  }
  return true;
}

// The value every element of a, b, c holds after `reps` repetitions, and the
// dot of the last one: the kernels replayed on three scalars.
inline void expected(long n, long reps, double& a, double& b, double& c, double& dot) {
  a = 0.1, b = 0.2, c = 0.0;
  for (long r = 0; r < reps; ++r) {
    c = a;
    b = scalar * c;
    c = a + b;
    a = b + scalar * c;
  }
  dot = a * b * double(n);
}

// Each kernel's best time and its bandwidth (copy, mul, add, triad, dot).
inline void print_best(long n, const double best[5]) {
  const char* names[5] = {"copy", "mul", "add", "triad", "dot"};
  const double bytes[5] = {2.0 * 8 * n, 2.0 * 8 * n, 3.0 * 8 * n, 3.0 * 8 * n, 2.0 * 8 * n};
  for (int k = 0; k < 5; ++k) std::printf("  %-5s %10.6f s  %8.1f GB/s\n", names[k], best[k], bytes[k] / best[k] * 1e-9);
}

// Every element of a, b, c and the last dot against expected(): prints PASS
// and returns 0 when right, prints FAIL and returns 1 when not.
inline int check(long n, long reps, const double* a, const double* b, const double* c, double sum) {
  double ea, eb, ec, edot;
  expected(n, reps, ea, eb, ec, edot);
  long wrong = 0;
  for (long i = 0; i < n; ++i) {
    const double err = std::max({std::fabs(a[i] - ea) / ea, std::fabs(b[i] - eb) / eb, std::fabs(c[i] - ec) / ec});
    if (!(err <= 1e-13)) ++wrong;  // a NaN counts as wrong
  }
  const bool dot_ok = std::fabs(sum - edot) <= 1e-8 * std::fabs(edot);
  if (wrong != 0 || !dot_ok) {
    std::printf("FAIL: %ld wrong elements, dot %.17g (expected %.17g)\n", wrong, sum, edot);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}

}  // namespace example
