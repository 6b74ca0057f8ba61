// stream: every variant validates at tiny size, and the validation catches a
// changed element, an unwritten (NaN) element and a wrong dot.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include <omp.h>

#include "common/stream/stream.hpp"
#include "common/usage_error.hpp"
#include "test_support.hpp"

namespace ompref::stream {
namespace {

using ompref::testing::run_one;
using ompref::testing::test_limits;

std::unique_ptr<StreamInstance> tiny() { return make_instance(elements_for_size("tiny"), test_limits()); }

TEST(Stream, EveryVariantPassesAtTiny) {
  auto variants = ompref::testing::runnable_variants("stream");
  ASSERT_GE(variants.size(), 3u);
  for (const Variant* v : variants) {
    auto s = tiny();
    RunResult r = run_one(*s, "stream", v->name, "tiny", 3, 1);
    EXPECT_TRUE(r.check.valid) << v->name << ": " << r.check.detail;
    EXPECT_LE(r.check.max_rel_error, r.check.tolerance) << v->name;
    ASSERT_EQ(r.phases.size(), 5u) << v->name;
    EXPECT_EQ(r.phases[3].name, "triad");
    EXPECT_GT(r.fom, 0) << v->name;
  }
}

TEST(Stream, ValidationReplaysTheRecurrenceExactly) {
  // After 4 repetitions the gold values are the recurrence's, not the start values.
  auto s = tiny();
  RunResult r = run_one(*s, "stream", "host_simd", "tiny", 3, 1);
  ASSERT_TRUE(r.check.valid);
  EXPECT_FALSE(s->validate(3, "").valid) << "validating with the wrong repetition count must fail";
  EXPECT_FALSE(s->validate(5, "").valid);
}

class StreamCorruption : public ::testing::Test {
 protected:
  void SetUp() override {
    s = tiny();
    RunResult r = run_one(*s, "stream", "host_simd", "tiny", 2, 0);
    ASSERT_TRUE(r.check.valid) << r.check.detail;
  }
  std::unique_ptr<StreamInstance> s;
  const int reps = 2;
};

TEST_F(StreamCorruption, OneChangedElementFails) {
  s->b[12345] *= 1.0 + 1e-12;  // far beyond 100 eps
  Check c = s->validate(reps, "");
  EXPECT_FALSE(c.valid);
  EXPECT_NE(c.detail.find("b[12345]"), std::string::npos) << c.detail;
}

TEST_F(StreamCorruption, OneNaNElementFails) {
  s->c[s->n - 1] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(s->validate(reps, "").valid);
}

TEST_F(StreamCorruption, OneInfElementFails) {
  s->a[0] = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(s->validate(reps, "").valid);
}

TEST_F(StreamCorruption, WrongDotFails) {
  s->dot *= 1.0 + 1e-6;
  EXPECT_FALSE(s->validate(reps, "").valid);
  s->dot = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(s->validate(reps, "").valid);
}

TEST_F(StreamCorruption, AnErrorWithinToleranceStillPasses) {
  s->a[7] *= 1.0 + 10 * std::numeric_limits<double>::epsilon();
  EXPECT_TRUE(s->validate(reps, "").valid);
}

TEST(Stream, ResetPoisonsTheDot) {
  auto s = tiny();
  s->reset();
  EXPECT_TRUE(std::isnan(s->dot));
  EXPECT_FALSE(s->validate(0, "").valid) << "an unwritten dot must fail";
}

TEST(Stream, TargetVariantsSayWhereTheyRan) {
  for (const char* name : {"target_basic", "target_simd"}) {
    auto s = tiny();
    RunResult r = run_one(*s, "stream", name, "tiny", 1, 0);
    if (!OMPREF_OFFLOAD_BUILD || omp_get_num_devices() == 0) {  // host build: never on a device
      EXPECT_EQ(r.ran_on, "host (fallback)") << name;
      EXPECT_FALSE(r.on_device);
    } else {
      EXPECT_NE(r.ran_on.find("(device 0)"), std::string::npos) << r.ran_on;
    }
  }
}

TEST(Stream, ModelCountsBabelStreamBytes) {
  auto s = tiny();
  const double n = double(s->n);
  EXPECT_DOUBLE_EQ(s->model("").bytes, 12 * 8 * n);  // copy 2 + mul 2 + add 3 + triad 3 + dot 2 arrays
  auto phases = s->phases();
  ASSERT_EQ(phases.size(), 5u);
  EXPECT_DOUBLE_EQ(phases[3].bytes, 3 * 8 * n);
}

TEST(Stream, MemoryIsCheckedBeforeAllocating) {
  MemoryLimits small;
  small.host_bytes = 1e6;
  EXPECT_THROW(make_instance(elements_for_size("large"), small), UsageError);
  MemoryLimits device;
  device.host_bytes = 1e15;
  device.device_bytes = 1e6;
  EXPECT_THROW(make_instance(elements_for_size("small"), device), UsageError);
}

}  // namespace
}  // namespace ompref::stream
