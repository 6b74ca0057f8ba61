// The run at its edges: --budget bounds the warm-ups as well as the timed
// repetitions, and a host name that cannot name the results folder is
// refused before any work.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace ompref::testing;

namespace {

// --budget bounds the warm-ups too: many short ones stop at a fifth of it.
TEST(RunEdges, TheBudgetBoundsTheWarmUps) {
  ScratchDir dir;
  const fs::path json = dir.path / "r.json";
  const auto started = std::chrono::steady_clock::now();
  const auto r = run_ompref(fmt::format("run stream --size tiny --variant host_simd --warmup 100000 --budget 2 "
                                        "--no-ceiling --quiet --save none --json {} >/dev/null",
                                        json.string()),
                            "OMP_NUM_THREADS=2 timeout -s KILL 120");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(slurp(json));
  const int warmup = j["runs"][0]["warmup"].get<int>();
  EXPECT_GE(warmup, 1);
  EXPECT_LT(warmup, 100000);
  EXPECT_LT(seconds, 60) << "warm-ups beyond the budget";
}

// A host name that cannot be part of the results folder's name is refused
// before any work (where this test may set one: a UTS namespace, as root).
TEST(RunEdges, AHostNameWithASlashIsRefusedBeforeAnyWork) {
  ScratchDir dir;
  const auto probe = run_ompref("--version", "unshare -u sh -c 'printf a/b > /proc/sys/kernel/hostname' &&");
  if (probe.status != 0) GTEST_SKIP() << "cannot set a host name here (a UTS namespace needs root)";
  const std::string script = fmt::format(
      "unshare -u sh -c 'printf a/b > /proc/sys/kernel/hostname && OMP_NUM_THREADS=2 exec {} run stream --size tiny "
      "--reps 1 --no-ceiling --quiet --save {}' 2>&1; echo \"exit $?\"",
      OMPREF_BIN, dir.path.string());
  const std::string text = shell_text(script);
  EXPECT_NE(text.find("exit 2"), std::string::npos) << text;
  EXPECT_NE(text.find("host name 'a/b'"), std::string::npos) << text;
  EXPECT_EQ(text.find("host_simd"), std::string::npos) << "refused after a run\n" << text;
  EXPECT_TRUE(fs::is_empty(dir.path));
}

}  // namespace
