// mesh, validation fails when it must: one changed or NaN output element of
// any kernel, outputs left poisoned by a reset, a wrong argmin, a wrong
// repetition count, a tag that names no kernel.
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/mesh.hpp"
#include "test_mesh_support.hpp"

namespace ompref::mesh {
namespace {

using ompref::testing::run_one;
using testing::cube;
using testing::pair_names;
using testing::tag_of;

// A few elements of each kernel's outputs, to corrupt.
std::vector<double*> targets_of(MeshInstance& m, const std::string& tag) {
  if (tag == "direct") return {&m.pos[7]};
  if (tag == "downward") return {&m.out_volume[5], &m.out_centre[11]};
  if (tag == "transverse") return {&m.spread[9]};
  if (tag == "upward_csr" || tag == "upward_binned") return {&m.smooth[m.smooth.size() - 1]};
  if (tag == "lumped_atomic" || tag == "lumped_scatter_gather") return {&m.lumped[13]};
  if (tag == "reduce") return {&m.red.volume_sum, &m.red.volume_min, &m.red.quality_max, &m.red.quality_min.value};
  return {};
}

class MeshCorruption : public ::testing::TestWithParam<std::string> {};

TEST_P(MeshCorruption, ChangedNaNOrUnwrittenOutputsFail) {
  auto m = cube(3, "none", 0.1);
  const std::string name = "host_" + GetParam();
  const std::string tag = tag_of(name);
  RunResult r = run_one(*m, "mesh", name, "custom", 2, 0);
  ASSERT_TRUE(r.check.valid) << r.check.detail;
  const std::vector<double*> targets = targets_of(*m, tag);
  ASSERT_FALSE(targets.empty()) << tag << ": no outputs to corrupt";
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

}  // namespace
}  // namespace ompref::mesh
