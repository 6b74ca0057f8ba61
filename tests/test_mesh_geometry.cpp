// mesh, the numbers of the generated cube: its volume is 1 (also jittered,
// with every tet positive), and the shape quality is 1 for the regular
// tetrahedron and 2 - sqrt(2) for Kuhn's.
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "common/mesh/mesh.hpp"
#include "common/mesh/mesh_element.hpp"
#include "test_mesh_support.hpp"

namespace ompref::mesh {
namespace {

using ompref::testing::run_one;
using testing::cube;

TEST(Mesh, UnitCubeHasVolumeOne) {
  for (int n : {1, 3, 8}) {
    auto m = cube(n);
    EXPECT_NEAR(double(m->ref_volume_sum), 1.0, 1e-12) << n;
    EXPECT_EQ(m->nt, 6 * n * n * n);
    EXPECT_EQ(m->nv, (n + 1) * (n + 1) * (n + 1));
    for (std::int64_t t = 0; t < m->nt; ++t) ASSERT_NEAR(m->volume[t], 1.0 / (6.0 * n * n * n), 1e-15) << "tet " << t;
    run_one(*m, "mesh", "host_reduce", "custom", 1, 0);
    EXPECT_NEAR(m->red.volume_sum, 1.0, 1e-12);
  }
}

TEST(Mesh, JitteredCubeKeepsVolumeOneAndPositiveTets) {
  auto plain = cube(6);
  auto m = cube(6, "none", 0.15);
  EXPECT_NEAR(double(m->ref_volume_sum), 1.0, 1e-12);
  EXPECT_GT(m->ref_volume_min, 0.0);
  double moved = 0;
  for (std::size_t i = 0; i < m->crd.size(); ++i) moved = std::max(moved, std::fabs(m->crd[i] - plain->crd[i]));
  EXPECT_GT(moved, 0.01 / 6) << "jitter must move the interior";
  EXPECT_LE(moved, 0.15 / 6 + 1e-15);
  EXPECT_LT(m->ref_quality_min.value, plain->ref_quality_min.value);
  for (const Variant* v : ompref::testing::runnable_variants("mesh")) {
    RunResult r = run_one(*m, "mesh", v->name, "custom", 1, 0);
    EXPECT_TRUE(r.check.valid) << v->name << ": " << r.check.detail;
  }
}

TEST(Mesh, QualityIsOneForTheRegularTetAndTwoMinusSqrt2ForKuhns) {
  const double a[3] = {1, 1, 1}, b[3] = {1, -1, -1}, c[3] = {-1, -1, 1}, d[3] = {-1, 1, -1};  // positive
  EXPECT_NEAR(tet_quality(a, b, c, d), 1.0, 1e-14);
  EXPECT_NEAR(tet_volume(a, b, c, d), 8.0 / 3.0, 1e-14);
  EXPECT_NEAR(tet_quality(a, b, d, c), -1.0, 1e-14) << "inverted: negative";
  auto m = cube(2);
  EXPECT_NEAR(m->ref_quality_min.value, 2 - std::sqrt(2.0), 1e-14);
  EXPECT_NEAR(m->ref_quality_max, 2 - std::sqrt(2.0), 1e-14);
}

}  // namespace
}  // namespace ompref::mesh
