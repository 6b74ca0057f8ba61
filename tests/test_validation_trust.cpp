// A reference that holds NaN or infinity validates nothing, in any workload:
// the shared relative error and the searches for the worst element, lbm's
// reference state (a cache entry damaged with a checksum that matches) and
// mesh's reference arrays.
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/lbm/lbm.hpp"
#include "common/lbm/lbm_reference_cache.hpp"
#include "common/mesh/mesh.hpp"
#include "common/validation.hpp"
#include "test_mesh_support.hpp"
#include "test_lbm_cache_support.hpp"
#include "test_support.hpp"

namespace ompref {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;

const double nan = std::numeric_limits<double>::quiet_NaN();
const double inf = std::numeric_limits<double>::infinity();

TEST(Trust, ANonFiniteReferenceOrResultFailsWhereverItIs) {
  EXPECT_EQ(relative_error(1.0, nan), inf);
  EXPECT_EQ(relative_error(1.0, inf), inf);
  EXPECT_EQ(relative_error(inf, inf), inf);
  EXPECT_EQ(Validation::scaled_error(1.0, nan, 1.0), inf);
  // A NaN reference at the first of many elements, then exact ones: the
  // search for the worst must not pass over it.
  for (int at : {0, 3, 9}) {
    Validation v("test");
    v.compare_all(10, [](std::int64_t) { return 1.0; }, [&](std::int64_t i) { return i == at ? nan : 1.0; }, 1e-12,
                  [](std::int64_t i) { return std::to_string(i); });
    EXPECT_FALSE(v.result().valid) << "NaN reference at " << at;
    Validation w("test");
    w.compare_all_to_scale(10, [](std::int64_t) { return 1.0; }, [&](std::int64_t i) { return i == at ? inf : 1.0; },
                           1.0, 1e-12, [](std::int64_t i) { return std::to_string(i); });
    EXPECT_FALSE(w.result().valid) << "infinite reference at " << at;
  }
  Validation v("test");
  v.note(0, 0, [] { return std::string("0 / 0"); });
  EXPECT_FALSE(v.result().valid) << "a NaN ratio";
}

// The one search for the worst element (every workload's validation): in
// parallel, it finds the largest error as a multiple of its tolerance, the
// first of equal ones whatever thread saw it, and a NaN as the worst.
TEST(Trust, TheWorstElementIsTheFirstOfTheLargestAndNaNIsWorst) {
  const std::int64_t n = 100000;
  const WorstElement w = worst_element(n, [](std::int64_t i) {
    return std::pair{i == 70001 || i == 30001 ? 4.0 : 1.0, i == 30001 ? 2.0 : 1.0};
  });
  EXPECT_EQ(w.at, 70001);  // 4 / 1 beats 4 / 2
  EXPECT_EQ(w.ratio(), 4.0);
  const WorstElement tie = worst_element(n, [](std::int64_t i) { return std::pair{i % 25000 == 7 ? 3.0 : 0.0, 1.0}; });
  EXPECT_EQ(tie.at, 7);
  const WorstElement bad = worst_element(n, [](std::int64_t i) { return std::pair{i == 99999 ? nan : 1e300, 1.0}; });
  EXPECT_EQ(bad.at, 99999);
  EXPECT_EQ(bad.error, inf);
  const WorstElement tiny = worst_element(3, [](std::int64_t) { return std::pair{0.0, 0.0}; });
  EXPECT_LE(tiny.ratio(), 1.0) << "an exact result passes a tolerance that underflowed";
}

// compare_all passes over blocks within the worst error so far by a quick
// test: it finds what the element-by-element search finds (the same error,
// the first of equal ones, NaN and Inf in either array as the worst), with
// the worst in the first block, in a later one, at a block's edges or tied
// (a tolerance below every error, so that each result names its place).
TEST(Trust, TheBlockedSearchFindsWhatTheElementSearchFinds) {
  const std::int64_t n = 50000;
  std::vector<double> got(n), want(n);
  const auto both = [&](const char* what, double floor) {
    Validation blocked("test"), plain("test");
    const auto where = [](std::int64_t i) { return std::to_string(i); };
    blocked.compare_all(n, [&](std::int64_t i) { return got[i]; }, [&](std::int64_t i) { return want[i]; }, 1e-15,
                        where, floor);
    plain.compare_each(
        n, [&](std::int64_t i) { return std::pair{relative_error(got[i], want[i], floor), 1e-15}; }, where);
    EXPECT_EQ(blocked.result().detail, plain.result().detail) << what;
    EXPECT_EQ(blocked.result().max_rel_error, plain.result().max_rel_error) << what;
    EXPECT_EQ(blocked.result().valid, plain.result().valid) << what;
  };
  for (std::int64_t i = 0; i < n; ++i) {
    want[i] = 1.0 + double(i % 97) * 0.25;
    got[i] = want[i] * (1 + 1e-12 * double(i % 13));
  }
  both("errors everywhere, the worst repeated", 0);
  for (std::int64_t at : {std::int64_t(0), std::int64_t(2047), std::int64_t(2048), std::int64_t(40000), n - 1}) {
    const double keep = got[at];
    got[at] = want[at] * (1 + 1e-6);
    both("one large error", 0);
    got[40001] = want[40001] * (1 + 1e-6);  // a tie after it
    both("a tie", 0);
    got[40001] = want[40001];
    got[at] = nan;
    both("NaN result", 0);
    got[at] = -inf;
    both("infinite result", 0);
    got[at] = keep;
    const double wanted = want[at];
    want[at] = nan;
    both("NaN reference", 0);
    want[at] = 0;
    both("zero reference, floor", 0.5);
    both("zero reference", 0);
    want[at] = wanted;
  }
}

using testing::CacheFolder;

// A reference state with NaN in one population of one fluid cell (an entry
// damaged with a checksum that matches): every variant fails against it,
// though every other value is the true reference.
TEST(Trust, AnLbmReferenceWithNaNFailsEveryVariant) {
  CacheFolder cache;
  const lbm::Params p = testing::tiny_lbm();
  const long steps = 2L * p.steps;
  auto writer = lbm::make_instance(p, testing::test_limits());
  writer->reset();  // the solid mask the reference run reads
  const std::size_t n = std::size_t(lbm::Q) * std::size_t(writer->grid.stride);
  std::vector<double> state(writer->reference_state(steps), writer->reference_state(steps) + n);
  for (const auto& e : cache.entries()) fs::remove(e);  // the true state, kept by the run above
  long fluid = 0;
  while (writer->solid[std::size_t(fluid)]) ++fluid;
  state[std::size_t(3 * writer->grid.stride + fluid + 1)] = nan;
  ASSERT_FALSE(writer->solid[std::size_t(fluid + 1)]);
  lbm::store_reference_state(*writer, steps, state.data());
  ASSERT_EQ(cache.entries().size(), 1u);
  for (const char* variant : {"host_basic", "host_tiled", "target_basic"}) {
    auto s = lbm::make_instance(p, testing::test_limits());
    const RunResult r = testing::run_one(*s, "lbm", variant, "tiny", 2, 0);
    EXPECT_EQ(s->reference_steps_computed(), 0) << "the entry was read";
    EXPECT_FALSE(r.check.valid) << variant << " passed against a reference holding NaN";
  }
  // The same entry without the NaN validates them.
  state[std::size_t(3 * writer->grid.stride + fluid + 1)] = writer->reference_state(steps)[3 * writer->grid.stride +
                                                                                          fluid + 1];
  lbm::store_reference_state(*writer, steps, state.data());
  auto s = lbm::make_instance(p, testing::test_limits());
  const RunResult clean = testing::run_one(*s, "lbm", "host_basic", "tiny", 2, 0);
  EXPECT_TRUE(clean.check.valid) << clean.check.detail;
}

// mesh: a NaN or an infinity in a reference array (an input the kernel's
// outputs are checked against) fails the kernel, wherever it is.
TEST(Trust, AMeshReferenceWithNaNFails) {
  for (const double bad : {nan, inf}) {
    for (const std::int64_t at : {std::int64_t(0), std::int64_t(17)}) {
      auto m = mesh::testing::cube(3, "none", 0.1);
      ASSERT_TRUE(testing::run_one(*m, "mesh", "host_downward", "custom", 1, 0).check.valid);
      const double saved = m->volume[at];
      m->volume[at] = bad;
      EXPECT_FALSE(m->validate(1, "downward").valid) << "volume " << at << " = " << bad;
      m->volume[at] = saved;
      m->centre[3 * at + 1] = bad;
      EXPECT_FALSE(m->validate(1, "downward").valid) << "centre " << at << " = " << bad;
    }
  }
}

}  // namespace
}  // namespace ompref
