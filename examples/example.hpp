#pragma once
// What every example does around its kernels, written once: read a count
// from the command line, refuse in one line to run under
// OMP_TARGET_OFFLOAD=MANDATORY where there is no device, and say `present`
// where the compiler takes it.
#include <omp.h>
#include <strings.h>

#include <cstdio>
#include <cstdlib>

// `present` (OpenMP 5.1) makes a kernel fail, instead of silently copying,
// when its data is not on the device: `map(PRESENT alloc : ...)`. clang 19
// accepts it; g++-12 rejects the modifier, so there the kernels say `alloc`
// alone (which also moves nothing for data already present).
#if defined(__clang__)
#define PRESENT present,
#else
#define PRESENT
#endif

namespace example {

// A whole number in 1..max written alone, into value; false for anything else.
inline bool parse_count(const char* text, long max, long& value) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v <= 0 || v > max) return false;
  value = v;
  return true;
}

// Under OMP_TARGET_OFFLOAD=MANDATORY a machine without a device is an error,
// said here in one line before any target construct (the runtime would stop
// the program at the first one, and some runtimes crash doing so). True when
// it is said: the program then exits 2.
inline bool mandatory_without_device(const char* program) {
  const char* policy = std::getenv("OMP_TARGET_OFFLOAD");
  if (policy && strcasecmp(policy, "MANDATORY") == 0 && omp_get_num_devices() == 0) {
    std::fprintf(stderr, "%s: OMP_TARGET_OFFLOAD=MANDATORY but no offload device is available\n", program);
    return true;
  }
  return false;
}

}  // namespace example
