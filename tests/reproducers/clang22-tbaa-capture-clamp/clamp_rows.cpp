// Counts the rows [0, n) in chunks of `chunk` on the device; clamp_rows N CHUNK
// prints PASS/FAIL and exits 0/1 (2 on bad arguments). README.md: why clang 22
// counts CHUNK rows here at -O2 for NVPTX.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
int main(int argc, char** argv) {
  auto arg = [&](int i) { char* end; const long v = std::strtol(argv[i], &end, 10); return *end || v < 1 || v > 1 << 24 ? 0 : v; };
  const long a = argc == 3 ? arg(1) : 0, b = argc == 3 ? arg(2) : 0;
  if (!a || !b) return std::fprintf(stderr, "usage: clamp_rows N CHUNK (integers 1..2^24)\n"), 2;
  const int n = int(a), chunk = int(b), nchunks = (n - 1) / chunk + 1;
  long sum = 0;
#pragma omp target teams distribute parallel for reduction(+ : sum)
  for (int c = 0; c < nchunks; ++c)
    for (int i = c * chunk; i < std::min(n, c * chunk + chunk); ++i) sum += 1;
  std::printf("%s: n %d, chunk %d: %ld rows counted, expected %d\n", sum == n ? "PASS" : "FAIL", n, chunk, sum, n);
  return sum == n ? 0 : 1;
}
