// OpenMP environment values that parse but cannot work on this machine
// (src/app/openmp_environment.cpp): refused before any runtime reads them,
// with exit 2 and one line, never a signal, a hang or a late exit 1. The
// machine's limits are read here as the program reads them, so that each
// case is beyond them wherever the test runs.
#include <sched.h>

#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "test_support.hpp"

using ompref::testing::count_lines;
using ompref::testing::run_ompref;

namespace {

const std::string stream = "run stream --size tiny --no-ceiling --reps 1 --warmup 0 --variant host_simd";

void expect_refused(const std::string& env, const std::string& name) {
  const auto r = ompref::testing::expect_one_line_refusal(stream, name, env);
  EXPECT_EQ(r.output.find("PASS"), std::string::npos) << env << ": refused after the work\n" << r.output;
}

void expect_runs(const std::string& env) {
  const auto r = run_ompref(stream, env);
  EXPECT_EQ(r.status, 0) << env << "\n" << r.output;
  EXPECT_NE(r.output.find("PASS"), std::string::npos) << env << "\n" << r.output;
}

long first_number_in(const char* path) {
  std::ifstream in(path);
  long n = 0;
  in >> n;
  return n;
}

// The first CPU that this process may (`inside`) or may not run on.
int first_cpu(bool inside) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  EXPECT_EQ(sched_getaffinity(0, sizeof mask, &mask), 0);
  int cpu = 0;
  while (cpu < CPU_SETSIZE - 1 && (CPU_ISSET(cpu, &mask) != 0) != inside) ++cpu;
  return cpu;
}

int cpu_outside_mask() { return first_cpu(false); }

int cpu_inside_mask() { return first_cpu(true);
}

}  // namespace

// OMP_NUM_THREADS up to 2^24 was accepted: libgomp ended in SIGSEGV at
// 100000 and ran `ompref check` past 90 s at 5000 (16 CPUs).
TEST(HostileEnvironment, MoreThreadsThanThisProcessMayStartAreRefused) {
  const long most = first_number_in("/proc/sys/kernel/threads-max");
  ASSERT_GT(most, 0);
  const std::string beyond = std::to_string(most + 1);
  expect_refused("OMP_NUM_THREADS=" + beyond, "OMP_NUM_THREADS");
  expect_refused("OMP_NUM_THREADS=2," + beyond, "OMP_NUM_THREADS");
  expect_refused("OMP_NUM_TEAMS=" + beyond, "OMP_NUM_TEAMS");
  expect_refused("OMP_NUM_THREADS=99999999999999999999", "OMP_NUM_THREADS");
  // 64 threads per CPU of the affinity mask: beyond it libgomp's check ran past
  // 90 s (5000 threads on 16 CPUs) or ended in SIGSEGV (100000).
  cpu_set_t mask;
  CPU_ZERO(&mask);
  ASSERT_EQ(sched_getaffinity(0, sizeof mask, &mask), 0);
  expect_refused("OMP_NUM_THREADS=" + std::to_string(64 * CPU_COUNT(&mask) + 1), "OMP_NUM_THREADS");
  for (const char* name : {"OMP_THREAD_LIMIT", "KMP_ALL_THREADS", "KMP_DEVICE_THREAD_LIMIT", "KMP_TEAMS_THREAD_LIMIT"})
    expect_refused(std::string(name) + "=0", name);
  expect_runs("OMP_NUM_THREADS=3 OMP_THREAD_LIMIT=64");
}

// A stack below 16 K was replaced by libgomp's default with a warning; one
// beyond the machine's memory failed thread creation late (exit 1); one that
// overflows its type was ignored with a warning.
TEST(HostileEnvironment, StackSizesThatCannotWorkAreRefused) {
  std::ifstream meminfo("/proc/meminfo");
  std::string label;
  long kb = 0;
  meminfo >> label >> kb;
  ASSERT_GT(kb, 0);
  const std::string too_large = std::to_string(kb * 4) + "K";
  for (const char* name : {"OMP_STACKSIZE", "GOMP_STACKSIZE", "KMP_STACKSIZE"}) {
    expect_refused(std::string(name) + "=1K", name);
    expect_refused(std::string(name) + "=" + too_large, name);
    expect_refused(std::string(name) + "=99999999999999999999", name);
  }
  expect_refused("OMP_STACKSIZE=1", "OMP_STACKSIZE");  // 1 K: the unit is K
  expect_refused("KMP_STACKSIZE=1024", "KMP_STACKSIZE");  // bytes there
  expect_runs("KMP_STACKSIZE=65536");
  expect_runs("OMP_STACKSIZE=16K");
  expect_runs("KMP_STACKSIZE=1M GOMP_STACKSIZE=256");
}

// Places naming a CPU outside the process's affinity mask were dropped by the
// runtime with a warning of its own, or bound threads to nothing.
TEST(HostileEnvironment, PlacesOutsideTheAffinityMaskAreRefused) {
  const std::string out = std::to_string(cpu_outside_mask());
  const std::string in = std::to_string(cpu_inside_mask());
  expect_refused("OMP_PLACES='{" + out + "}'", "CPU " + out);
  expect_refused("OMP_PLACES='{" + in + ":" + std::to_string(CPU_SETSIZE) + "}'", "OMP_PLACES");
  expect_refused("OMP_PLACES='{" + in + "}:2:" + std::to_string(CPU_SETSIZE) + "'", "OMP_PLACES");
  expect_refused("GOMP_CPU_AFFINITY=" + out, "CPU " + out);
  expect_refused("GOMP_CPU_AFFINITY=" + in + "-" + out, "GOMP_CPU_AFFINITY");
  expect_refused("KMP_AFFINITY='explicit,proclist=[" + out + "]'", "CPU " + out);
  expect_runs("OMP_PLACES='{" + in + "}' OMP_PROC_BIND=true");
  expect_runs("GOMP_CPU_AFFINITY=" + in);
  expect_runs("OMP_PLACES=threads");
}

// libomptarget reads LIBOMPTARGET_INFO and _DEBUG with std::stoi: anything
// else threw from its initialization. A device heap of 0 and a device stack
// beyond a thread's local memory cannot serve any kernel. A default device
// that names no device aborted libomptarget (SIGABRT) at the first target
// region; a profile file that cannot be written was reported after the work.
TEST(HostileEnvironment, OffloadSettingsThatCannotWorkAreRefused) {
  for (const char* setting : {"LIBOMPTARGET_INFO=abc", "LIBOMPTARGET_INFO=99999999999999999999",
                              "LIBOMPTARGET_DEBUG=x", "LIBOMPTARGET_HEAP_SIZE=0", "LIBOMPTARGET_HEAP_SIZE=-1",
                              "LIBOMPTARGET_STACK_SIZE=0", "LIBOMPTARGET_STACK_SIZE=99999999999",
                              "LIBOMPTARGET_JIT_OPT_LEVEL=99", "LIBOMPTARGET_JIT_REPLACEMENT_MODULE=/nonexistent",
                              "LIBOMPTARGET_NUM_INITIAL_STREAMS=99999999", "OMP_DEFAULT_DEVICE=-1",
                              "OMP_DEFAULT_DEVICE=99", "LIBOMPTARGET_PROFILE=/proc/ompref-profile",
                              "LIBOMPTARGET_PROFILE=/"}) {
    const std::string name(setting, std::string(setting).find('='));
    expect_refused(setting, name);
  }
  expect_runs("LIBOMPTARGET_INFO=0 LIBOMPTARGET_HEAP_SIZE=1048576 LIBOMPTARGET_STACK_SIZE=4096 OMP_DEFAULT_DEVICE=0");
}

// Values the runtimes replaced with a warning of their own and their default.
TEST(HostileEnvironment, RuntimeKnobsOutsideTheirGrammarAreRefused) {
  for (const char* setting : {"GOMP_SPINCOUNT=abc", "GOMP_SPINCOUNT=-1", "GOMP_DEBUG=x", "KMP_BLOCKTIME=abc",
                              "KMP_BLOCKTIME=-1", "KMP_LIBRARY=bogus", "OMP_MAX_ACTIVE_LEVELS=-1",
                              "OMP_MAX_ACTIVE_LEVELS=abc", "OMP_DISPLAY_ENV=maybe", "OMP_CANCELLATION=foo",
                              "OMP_SCHEDULE=foo", "OMP_SCHEDULE=dynamic,0", "OMP_SCHEDULE=auto,4",
                              "OMP_SCHEDULE=eager:static", "OMP_ALLOCATOR=foo"}) {
    const std::string name(setting, std::string(setting).find('='));
    expect_refused(setting, name);
  }
  expect_runs("GOMP_SPINCOUNT=10k KMP_BLOCKTIME=0 KMP_LIBRARY=throughput OMP_MAX_ACTIVE_LEVELS=1");
  expect_runs("GOMP_SPINCOUNT=infinite KMP_BLOCKTIME=infinite");
  expect_runs("OMP_CANCELLATION=true OMP_SCHEDULE=nonmonotonic:dynamic,4 OMP_ALLOCATOR=omp_default_mem_alloc");
  expect_runs("OMP_SCHEDULE=guided");
}
