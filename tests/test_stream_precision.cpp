// stream --precision single: every variant validates on arrays of floats, the
// model counts 4-byte elements, params say single, the tolerances follow the
// bounds derived in src/common/stream/stream.cpp (the dot's growing with n),
// a wrong element or dot still fails, and compare does not set a single-
// precision run against a double one.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "app/compare.hpp"
#include "common/stream/stream.hpp"
#include "test_support.hpp"

namespace ompref::stream {
namespace {

using ompref::testing::count_lines;
using ompref::testing::run_ompref;
using ompref::testing::run_one;
using ompref::testing::test_limits;

std::unique_ptr<StreamInstance> tiny_single() {
  return make_instance(elements_for_size("tiny"), test_limits(), Precision::single);
}

TEST(StreamSingle, EveryVariantPassesOnFloats) {
  auto variants = ompref::testing::runnable_variants("stream");
  ASSERT_GE(variants.size(), 3u);
  for (const Variant* v : variants) {
    auto s = tiny_single();
    ASSERT_EQ(s->a.size(), 0u);
    ASSERT_EQ(s->af.size(), s->n);
    RunResult r = run_one(*s, "stream", v->name, "tiny", 3, 1);
    EXPECT_TRUE(r.check.valid) << v->name << ": " << r.check.detail;
    EXPECT_GT(r.check.max_rel_error, 0) << v->name << ": floats against a long-double replay are not exact";
    EXPECT_LE(r.check.max_rel_error, r.check.tolerance) << v->name;
    EXPECT_NEAR(s->observables("")["dot"].get<double>(), s->observables("")["a0"].get<double>() *
                                                              s->observables("")["b0"].get<double>() * double(s->n),
                1e-5 * std::fabs(s->observables("")["dot"].get<double>()))
        << v->name;
  }
}

TEST(StreamSingle, ModelAndParamsCountFloats) {
  const std::size_t n = 1024;
  StreamInstance single(n, Precision::single), dbl(n, Precision::double_);
  EXPECT_DOUBLE_EQ(single.model("").bytes * 2, dbl.model("").bytes);
  EXPECT_DOUBLE_EQ(single.phases()[3].bytes, 3.0 * 4 * n);
  EXPECT_EQ(single.params()["precision"], "single");
  EXPECT_EQ(single.params()["array_bytes"], 4 * n);
  // Double precision keeps the params of files written before the option.
  EXPECT_FALSE(dbl.params().contains("precision"));
  EXPECT_EQ(dbl.params()["array_bytes"], 8 * n);
}

TEST(StreamSingle, TolerancesFollowTheDerivedBounds) {
  const double uf = std::ldexp(1.0, -24), ud = std::ldexp(1.0, -53);
  // An element: (4 r + 2) u, never below 100 epsilons.
  EXPECT_DOUBLE_EQ(tolerances(Precision::single, 1024, 5).element, 100 * 2 * uf);
  EXPECT_DOUBLE_EQ(tolerances(Precision::single, 1024, 1000).element, 4002 * uf);
  EXPECT_DOUBLE_EQ(tolerances(Precision::double_, 1024, 5).element, 100 * 2 * ud);
  // The dot: 2 (4 r + 2) u + u + (n - 1) 2^-53, growing with n, never below 1e-8.
  const Tolerances small = tolerances(Precision::single, std::size_t(1) << 16, 5);
  const Tolerances large = tolerances(Precision::single, std::size_t(1) << 34, 5);
  EXPECT_DOUBLE_EQ(small.dot, 2 * 22 * uf + uf + (std::ldexp(1.0, 16) - 1) * ud);
  EXPECT_GT(large.dot, small.dot);
  EXPECT_DOUBLE_EQ(tolerances(Precision::double_, 1024, 5).dot, 1e-8);
  EXPECT_GT(tolerances(Precision::double_, std::size_t(1) << 28, 5).dot, 1e-8) << "2^28 terms: 3.0e-8";
}

TEST(StreamSingle, AWrongElementOrDotFails) {
  auto s = tiny_single();
  RunResult r = run_one(*s, "stream", "host_simd", "tiny", 2, 0);
  ASSERT_TRUE(r.check.valid) << r.check.detail;
  const float kept = s->bf[777];
  s->bf[777] *= 1.0f + 1e-4f;  // beyond 100 float epsilons (1.2e-5)
  Check c = s->validate(2, "");
  EXPECT_FALSE(c.valid);
  EXPECT_NE(c.detail.find("b[777]"), std::string::npos) << c.detail;
  s->bf[777] = kept;
  ASSERT_TRUE(s->validate(2, "").valid);
  s->dot *= 1.0 + 1e-4;
  EXPECT_FALSE(s->validate(2, "").valid);
}

TEST(StreamSingle, CommandRecordsPrecisionAndRefusesOthers) {
  ompref::testing::ScratchDir dir;
  const std::string json = (dir.path / "single.json").string();
  auto r = run_ompref("run stream --size tiny --reps 2 --no-ceiling --save none --precision single --json " + json);
  ASSERT_EQ(r.status, 0) << r.output;
  const ResultFile file = load_result_file(json);
  ASSERT_FALSE(file.runs.empty());
  for (const ResultRun& run : file.runs) EXPECT_EQ(run.params["precision"], "single") << run.variant;

  auto bad = run_ompref("run stream --size tiny --precision half");
  EXPECT_EQ(bad.status, 2) << bad.output;
  EXPECT_EQ(count_lines(bad.stderr_text), 1) << bad.stderr_text;
  EXPECT_NE(bad.stderr_text.find("--precision"), std::string::npos) << bad.stderr_text;
}

// compare.cpp's rate_rules do not know `precision`: a different value (or one
// run without it) makes the two runs not comparable, by time or by rate.
TEST(StreamSingle, CompareRefusesAcrossPrecisions) {
  ResultRun dbl, single, single_larger;
  for (ResultRun* r : {&dbl, &single, &single_larger}) {
    r->workload = "stream";
    r->variant = "host_simd";
    r->size = "tiny";
    r->place = "host";
    r->ran_on = "host";
    r->median_s = 1.0;
    r->fom_name = "GB/s";
    r->fom_value = 1.0;
  }
  dbl.params = {{"n", 1024}, {"array_bytes", 8192}};
  single.params = {{"n", 1024}, {"array_bytes", 4096}, {"precision", "single"}};
  single_larger.params = {{"n", 4096}, {"array_bytes", 16384}, {"precision", "single"}};
  single_larger.size = "small";
  const Comparison across = compare_runs(&dbl, &single);
  EXPECT_EQ(across.basis, Basis::not_comparable);
  EXPECT_FALSE(across.speedup.has_value());
  EXPECT_NE(across.why.find("precision"), std::string::npos) << across.why;
  // Two single-precision runs of other sizes: by rate, as for double.
  const Comparison same = compare_runs(&single, &single_larger);
  EXPECT_EQ(same.basis, Basis::rate) << same.why;
}

}  // namespace
}  // namespace ompref::stream
