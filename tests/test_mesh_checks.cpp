// mesh's checks search their arrays in parallel: the element they name is
// still the first of the worst (here: the first of two NaNs), as a serial
// search names it, and a valid run stays valid. The lumped checks' totals are
// summed accurately enough for cubes of millions of tets, and still fail a
// vertex off by a few times its tolerance or missing a term.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test_mesh_support.hpp"

namespace ompref::mesh {
namespace {

using ompref::mesh::testing::cube;
using ompref::testing::run_one;
using ompref::testing::runnable_variants;

struct Case {
  const char* variant;
  const char* output;
};

TEST(MeshChecks, TheFirstOfEqualWorstElementsIsNamed) {
  auto m = cube(4);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const Case& c : {Case{"host_lumped_atomic", "lumped"}, Case{"host_transverse", "spread"},
                        Case{"host_ball_csr", "smooth"}, Case{"host_downward", "out_volume"},
                        Case{"host_direct", "pos"}}) {
    const RunResult r = run_one(*m, "mesh", c.variant, "custom", 1, 0);
    ASSERT_TRUE(r.check.valid) << c.variant << ": " << r.check.detail;
    auto& out = m->output(c.output);
    ASSERT_GT(out.size(), 40u);
    out[37] = nan;
    out[11] = nan;
    const Check check = m->validate(1, r.kernel);
    EXPECT_FALSE(check.valid) << c.variant;
    EXPECT_NE(check.detail.find("[11] = nan"), std::string::npos) << c.variant << ": " << check.detail;
  }
}

// The cube of 78 (2.8 M tets) is the smallest cube found whose lumped checks
// failed while the totals were long-double sums in turn: the reference total
// volume 1 - 2.7e-14, against a tolerance of 2.1e-14 (the cube of 128: 1 -
// 9.1e-14). Every lumped variant passes it; the same outputs then fail with
// one vertex off by 1e-13 of itself (about 5 times its tolerance) or missing
// one tet's quarter.
TEST(MeshChecks, LumpedTotalsOfMillionsOfTetsPassAndACorruptedVertexFails) {
  auto m = cube(78);
  std::string tag;
  double tolerance = 0;
  for (const Variant* v : runnable_variants("mesh")) {
    if (v->kernel.rfind("lumped", 0) != 0) continue;
    const RunResult r = run_one(*m, "mesh", v->name, "custom", 1, 0);
    EXPECT_TRUE(r.check.valid) << v->name << ": " << r.check.detail << " (error " << r.check.max_rel_error
                               << ", tolerance " << r.check.tolerance << ")";
    tag = v->kernel;
    tolerance = r.check.tolerance;
  }
  ASSERT_FALSE(tag.empty()) << "no lumped variant registered";
  ASSERT_TRUE(m->validate(1, tag).valid);
  const double off = 1e-13;
  ASSERT_GT(off, 2 * tolerance) << "the corruption must be above the tolerance";
  auto& lumped = m->output("lumped");
  const std::int64_t vertex = m->nv / 2;  // an interior vertex: degree 24
  const double saved = lumped[vertex];
  lumped[vertex] = saved * (1 + off);
  EXPECT_FALSE(m->validate(1, tag).valid) << "one vertex off by " << off;
  lumped[vertex] = saved * (1 - off);
  EXPECT_FALSE(m->validate(1, tag).valid) << "one vertex off by -" << off;
  const std::int64_t t = m->ball_corner[m->ball_offset[vertex]] >> 2;
  lumped[vertex] = saved - m->volume[t] / 4;
  EXPECT_FALSE(m->validate(1, tag).valid) << "tet " << t << " missing from vertex " << vertex;
  lumped[vertex] = saved;
  EXPECT_TRUE(m->validate(1, tag).valid);
}

}  // namespace
}  // namespace ompref::mesh
