// mesh's checks search their arrays in parallel: the element they name is
// still the first of the worst (here: the first of two NaNs), as a serial
// search names it, and a valid run stays valid.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test_mesh_support.hpp"

namespace ompref::mesh {
namespace {

using ompref::mesh::testing::cube;
using ompref::testing::run_one;

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
    std::vector<double>& out = m->output(c.output);
    ASSERT_GT(out.size(), 40u);
    out[37] = nan;
    out[11] = nan;
    const Check check = m->validate(1, r.kernel);
    EXPECT_FALSE(check.valid) << c.variant;
    EXPECT_NE(check.detail.find("[11] = nan"), std::string::npos) << c.variant << ": " << check.detail;
  }
}

}  // namespace
}  // namespace ompref::mesh
