// mesh, validation fails when it must: one changed or NaN output element of
// any kernel (the probes it wrote), outputs left poisoned by a reset, a wrong
// argmin, a wrong repetition count, a tag that names no kernel.
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "common/mesh/mesh.hpp"
#include "test_mesh_support.hpp"

namespace ompref::mesh {
namespace {

using ompref::testing::run_one;
using testing::cube;
using testing::output_probes;
using testing::pair_names;
using testing::same;
using testing::tag_of;

class MeshCorruption : public ::testing::TestWithParam<std::string> {};

TEST_P(MeshCorruption, ChangedNaNOrUnwrittenOutputsFail) {
  auto m = cube(3, "none", 0.1);
  const std::string name = "host_" + GetParam();
  const std::string tag = tag_of(name);
  const std::vector<double*> probes = output_probes(*m);
  m->reset();
  std::vector<double> unwritten;
  for (double* p : probes) unwritten.push_back(*p);
  RunResult r = run_one(*m, "mesh", name, "custom", 2, 0);
  ASSERT_TRUE(r.check.valid) << r.check.detail;
  // The probes this kernel wrote.
  std::vector<double*> targets;
  for (std::size_t i = 0; i < probes.size(); ++i)
    if (!same(*probes[i], unwritten[i])) targets.push_back(probes[i]);
  ASSERT_FALSE(targets.empty()) << tag << ": no probe among its outputs (tests/test_mesh_support.hpp)";
  for (double* p : targets) {
    const double saved = *p;
    *p = saved * (1 + 1e-9) + 1e-9;
    EXPECT_FALSE(m->validate(2, tag).valid) << name;
    *p = std::numeric_limits<double>::quiet_NaN();
    EXPECT_FALSE(m->validate(2, tag).valid) << name;
    *p = saved;
    EXPECT_TRUE(m->validate(2, tag).valid) << name;
  }
  m->reset();
  EXPECT_FALSE(m->validate(2, tag).valid) << name << ": nothing ran since reset";
  EXPECT_FALSE(m->validate(0, "").valid) << "no kernel is named ''";
}

INSTANTIATE_TEST_SUITE_P(Kernels, MeshCorruption, ::testing::ValuesIn(pair_names()));

TEST(Mesh, ValidationChecksTheArgminAndTheRepetitions) {
  auto m = cube(3, "none", 0.1);
  run_one(*m, "mesh", "host_reduce", "custom", 1, 0);
  m->red.quality_min.index += 1;
  EXPECT_FALSE(m->validate(1, "reduce").valid);
  run_one(*m, "mesh", "host_direct", "custom", 3, 0);
  EXPECT_TRUE(m->validate(3, "direct").valid);
  EXPECT_FALSE(m->validate(2, "direct").valid) << "direct accumulates: the repetition count matters";
  // Poisoned outputs: a kernel run then reset leaves NaN everywhere.
  run_one(*m, "mesh", "host_downward", "custom", 1, 0);
  m->reset();
  EXPECT_FALSE(m->validate(1, "downward").valid);
}

// reset() poisons again only the outputs handed out writable since it last
// ran: every output a run wrote, whichever runs came between.
TEST(Mesh, ResetPoisonsEveryOutputWrittenSinceItLastRan) {
  auto m = cube(3, "none", 0.1);
  run_one(*m, "mesh", "host_downward", "custom", 1, 0);
  run_one(*m, "mesh", "host_transverse", "custom", 1, 0);
  run_one(*m, "mesh", "host_direct", "custom", 1, 0);
  m->reset();
  for (const std::string& name : m->output_names()) {
    const auto& out = std::as_const(*m).output(name);
    for (std::size_t i = 0; i < out.size(); ++i)
      if (name == "pos") ASSERT_EQ(out[i], m->crd[i]) << "pos starts as crd";
      else ASSERT_TRUE(std::isnan(out[i])) << name << "[" << i << "]";
  }
  EXPECT_FALSE(m->validate(1, "downward").valid);
  EXPECT_FALSE(m->validate(1, "transverse").valid);
  EXPECT_FALSE(m->validate(1, "direct").valid);
}

}  // namespace
}  // namespace ompref::mesh
