// The progress line says "validating" once a run's repetitions are over and
// the host checks its result: the runner announces it after the last
// repetition, and the command's line shows it.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/registry.hpp"
#include "common/runner.hpp"
#include "test_support.hpp"

namespace ompref {
namespace {

using ompref::testing::run_ompref;
using ompref::testing::test_limits;

TEST(Progress, TheRunnerAnnouncesValidationAfterTheLastRepetition) {
  Workload* w = registry().workload("stream");
  ASSERT_NE(w, nullptr);
  auto instance = w->make("tiny", test_limits());
  const Variant* v = registry().variant("stream", "host_simd");
  ASSERT_NE(v, nullptr);
  std::vector<std::string> events;
  RunSettings settings{3, 1, 0, [&](int done, int total) { events.push_back(std::to_string(done) + "/" + std::to_string(total)); },
                       [&] { events.push_back("validating"); }};
  const RunResult r = run_variant(*v, *instance, "tiny", settings, 0, {0});
  EXPECT_TRUE(r.check.valid);
  EXPECT_EQ(events, (std::vector<std::string>{"1/4", "2/4", "3/4", "4/4", "validating"}));
}

TEST(Progress, TheLineSaysValidatingAfterTheRepetitions) {
  auto r = run_ompref("run lbm --size tiny --reps 2 --warmup 0 --no-ceiling --variant host_basic", "OMPREF_QUIET=0");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::size_t last_rep = r.stderr_text.find("host_basic 1/1, repetition 2/2");
  const std::size_t validating = r.stderr_text.find("host_basic 1/1, validating");
  ASSERT_NE(validating, std::string::npos) << r.stderr_text;
  if (last_rep != std::string::npos) {
    EXPECT_LT(last_rep, validating) << r.stderr_text;
  }
}

}  // namespace
}  // namespace ompref
