// lbm's reference run is made once per instance: variants validated after
// different numbers of steps (a budget stops some of them early) share it,
// and each gets the check it would get from a reference of its own. With
// OMPREF_CACHE, a state is kept across instances only for the same
// parameters, and only whole. The mass is the same sum whatever the number
// of threads.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <omp.h>

#include "common/lbm/lbm.hpp"
#include "test_support.hpp"

namespace ompref::lbm {
namespace {

using ompref::testing::run_one;
using ompref::testing::ScratchDir;
using ompref::testing::test_limits;

TEST(LbmReference, RunsOncePerInstanceForVariantsOfDifferentStepCounts) {
  Params p;
  size_defaults("tiny", p);
  auto shared = make_instance(p, test_limits());
  // Fewer steps after more (the reference restarts from a kept state), more
  // again, the fewest last.
  const std::vector<std::pair<std::string, int>> runs{
      {"host_basic", 3}, {"host_tiled", 2}, {"target_basic", 3}, {"target_shaped", 1}, {"host_basic", 2}};
  for (const auto& [variant, reps] : runs) {
    const RunResult got = run_one(*shared, "lbm", variant, "tiny", reps, 0);
    EXPECT_TRUE(got.check.valid) << variant << ": " << got.check.detail;
    auto fresh = make_instance(p, test_limits());
    const RunResult alone = run_one(*fresh, "lbm", variant, "tiny", reps, 0);
    EXPECT_EQ(fresh->reference_steps_computed(), reps * p.steps) << variant;
    EXPECT_EQ(got.check.max_rel_error, alone.check.max_rel_error) << variant << " after " << reps << " repetitions";
    EXPECT_EQ(got.observables, alone.observables) << variant;
  }
  EXPECT_EQ(shared->reference_steps_computed(), 3 * p.steps) << "the longest run's steps, each once";
}

// OMPREF_CACHE set for one test, unset after it.
struct CacheFolder {
  ScratchDir dir;
  CacheFolder() { setenv("OMPREF_CACHE", dir.path.c_str(), 1); }
  ~CacheFolder() { unsetenv("OMPREF_CACHE"); }
};

std::vector<std::filesystem::path> entries(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) out.push_back(e.path());
  return out;
}

TEST(LbmReference, ACacheServesTheSameParametersOnlyAndOnlyWhole) {
  Params p;
  size_defaults("tiny", p);
  auto alone = make_instance(p, test_limits());
  const RunResult want = run_one(*alone, "lbm", "host_tiled", "tiny", 2, 0);
  CacheFolder cache;
  auto first = make_instance(p, test_limits());
  EXPECT_TRUE(run_one(*first, "lbm", "host_basic", "tiny", 2, 0).check.valid);
  EXPECT_EQ(first->reference_steps_computed(), 2 * p.steps);
  ASSERT_EQ(entries(cache.dir.path).size(), 1u);

  auto second = make_instance(p, test_limits());
  const RunResult got = run_one(*second, "lbm", "host_tiled", "tiny", 2, 0);
  EXPECT_EQ(second->reference_steps_computed(), 0) << "read from the cache";
  EXPECT_TRUE(got.check.valid) << got.check.detail;
  EXPECT_EQ(got.check.max_rel_error, want.check.max_rel_error);

  Params other = p;
  other.tau = 0.9;
  auto third = make_instance(other, test_limits());
  EXPECT_TRUE(run_one(*third, "lbm", "host_basic", "tiny", 2, 0).check.valid);
  EXPECT_EQ(third->reference_steps_computed(), 2 * p.steps) << "other parameters, another entry";

  // One byte of each state changed: the entry fails its checksum and the reference runs.
  for (const auto& e : entries(cache.dir.path)) {
    std::string bytes;
    {
      std::ifstream in(e, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    ASSERT_GT(bytes.size(), 1000u);
    bytes[bytes.size() / 2] = char(bytes[bytes.size() / 2] ^ 0x10);
    std::ofstream out(e, std::ios::binary | std::ios::trunc);
    out << bytes;
  }
  auto fourth = make_instance(p, test_limits());
  const RunResult again = run_one(*fourth, "lbm", "host_tiled", "tiny", 2, 0);
  EXPECT_EQ(fourth->reference_steps_computed(), 2 * p.steps) << "a damaged entry is not trusted";
  EXPECT_EQ(again.check.max_rel_error, want.check.max_rel_error);
}

TEST(LbmReference, MassIsTheSameSumOnAnyNumberOfThreads) {
  Params p;
  size_defaults("tiny", p);
  auto s = make_instance(p, test_limits());
  s->reset();
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const long double one = s->mass_of(s->current());
  omp_set_num_threads(3);
  const long double three = s->mass_of(s->current());
  omp_set_num_threads(threads);
  EXPECT_EQ(one, three);
  EXPECT_GT(double(one), 0.0);
}

// The reference run goes by slabs of planes per thread and blocks of rows
// (about 512 KB of populations: 3 rows of a lattice 1000 cells wide), psi set
// one plane ahead of the collision, the open rows' populations stored from a
// row buffer. host_basic has the same arithmetic in the same order on two
// lattices in turn: its state must be the reference's bit for bit, whatever
// the threads, with blocks that do not divide the rows, a last block of one
// row (ny 7), two blocks of which the first reaches row ny - 2 (ny 4), slabs
// of one, two and several planes, rows of 1001 cells (runs of the pushed
// populations that start and end inside a 64-byte line), a lattice 3 cells
// wide (no inner cells), and without walls (droplet: every face periodic, so that the first rows'
// neighbours across the faces are fluid).
TEST(LbmReference, IsHostBasicBitForBitOverBlocksSlabsAndThreads) {
  struct Setup { int nx, ny, nz, threads; Case kind; };
  const int threads = omp_get_max_threads();
  for (const Setup& c : {Setup{1000, 14, 12, 1, Case::drops}, Setup{1000, 14, 12, 2, Case::droplet},
                         Setup{1000, 7, 9, 3, Case::droplet}, Setup{1000, 14, 4, 3, Case::drops},
                         Setup{1000, 4, 6, 2, Case::droplet},
                         Setup{1001, 9, 6, 2, Case::drops}, Setup{3, 12, 7, 2, Case::drops},
                         Setup{40, 20, 10, 3, Case::droplet}}) {
    Params p;
    size_defaults("tiny", p);
    p.nx = c.nx, p.ny = c.ny, p.nz = c.nz, p.steps = 3;
    if (c.kind == Case::droplet) {
      p.kind = Case::droplet;
      p.walls_y = false;
      p.gravity = 0;
    }
    omp_set_num_threads(c.threads);
    auto s = make_instance(p, test_limits());
    const RunResult r = run_one(*s, "lbm", "host_basic", "tiny", 2, 0);
    const double* want = s->reference_state(2 * p.steps);
    long differing = 0, fluid = 0;
    for (long k = 0; k < s->grid.n; ++k) {
      if (s->solid[k]) continue;
      ++fluid;
      for (int i = 0; i < Q; ++i) differing += s->current()[i * s->grid.stride + k] != want[i * s->grid.stride + k];
    }
    const std::string what = std::string(case_name(c.kind)) + " " + std::to_string(c.nx) + "x" +
                             std::to_string(c.ny) + "x" + std::to_string(c.nz) + " on " + std::to_string(c.threads) +
                             " threads";
    EXPECT_TRUE(r.check.valid) << what << ": " << r.check.detail;
    EXPECT_GT(fluid, 0) << what;
    EXPECT_EQ(differing, 0) << what;
  }
  omp_set_num_threads(threads);
}

}  // namespace
}  // namespace ompref::lbm
