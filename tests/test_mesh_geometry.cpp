// mesh, the numbers of the generated cube: its volume is 1 (also jittered,
// with every tet positive), and the shape quality is 1 for the regular
// tetrahedron and 2 - sqrt(2) for Kuhn's.
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "common/io/meshb.hpp"
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


// The tolerances follow the geometry: slivers (thin tets, whose volumes in
// double err by far more than 1e-10 of themselves) and a small mesh far from
// the origin (whose centres round in units of the coordinates, not of the
// extent), both inside the range a mesh file may have, validate in every
// variant; a real error in either still fails.
std::unique_ptr<MeshInstance> accepted(RawMesh raw) {
  // Through the file reader's checks: what a mesh file could hold.
  RawMesh read = from_meshb(to_meshb(raw), "test");
  return std::make_unique<MeshInstance>(std::move(read), Renumber::none);
}

// Tets of height h over a unit square's diagonals, each with its own four
// vertices and turned in a direction of its own (so that the volume is a
// difference of terms near 1, as in a sliver of a real mesh), the
// coordinates' low bits varied so that the arithmetic rounds.
RawMesh slivers(int count, double h) {
  RawMesh raw;
  raw.source = "slivers";
  unsigned state = 12345;
  auto jiggle = [&] {
    state = state * 1103515245u + 12345u;
    return double(state >> 8) / double(1u << 24) * 0.01;
  };
  for (int i = 0; i < count; ++i) {
    const double flat[4][3] = {{0, 0, 0}, {1 + jiggle(), 1, jiggle() * h}, {1, jiggle(), h * (1 + jiggle())},
                               {jiggle(), 1, h}};
    // A rotation about z by a, then about x by b.
    const double a = 100 * jiggle(), b = 100 * jiggle();
    double p[4][3];
    for (int q = 0; q < 4; ++q) {
      const double x = std::cos(a) * flat[q][0] - std::sin(a) * flat[q][1];
      const double y = std::sin(a) * flat[q][0] + std::cos(a) * flat[q][1];
      const double z = flat[q][2];
      p[q][0] = 3.0 * i + x;
      p[q][1] = std::cos(b) * y - std::sin(b) * z;
      p[q][2] = std::sin(b) * y + std::cos(b) * z;
    }
    const int order[2][4] = {{0, 1, 2, 3}, {0, 2, 1, 3}};
    const int* o = order[tet_volume(p[0], p[1], p[2], p[3]) > 0 ? 0 : 1];
    for (int q = 0; q < 4; ++q) {
      for (int k = 0; k < 3; ++k) raw.crd.push_back(p[o[q]][k]);
      raw.tet.push_back(std::int32_t(4 * i + q));
    }
  }
  return raw;
}

void every_variant_validates(MeshInstance& m, const char* what) {
  for (const Variant* v : ompref::testing::runnable_variants("mesh")) {
    RunResult r = run_one(m, "mesh", v->name, "custom", 2, 0);
    EXPECT_TRUE(r.check.valid) << what << ", " << v->name << ": " << r.check.detail;
  }
}

TEST(Mesh, SliversValidateAndAWrongVolumeStillFails) {
  auto m = accepted(slivers(200, 1e-7));
  // The data tests what it should: some volume in double is off by more than
  // 1e-10 of itself.
  double worst = 0;
  for (std::int64_t t = 0; t < m->nt; ++t) {
    const double* p[4];
    for (int q = 0; q < 4; ++q) p[q] = &m->crd[3 * std::int64_t(m->tet[4 * t + q])];
    worst = std::max(worst, std::fabs(tet_volume(p[0], p[1], p[2], p[3]) - m->volume[t]) / std::fabs(m->volume[t]));
  }
  EXPECT_GT(worst, 1e-10);
  every_variant_validates(*m, "slivers");
  ASSERT_TRUE(run_one(*m, "mesh", "host_downward", "custom", 1, 0).check.valid);
  m->output("out_volume")[7] *= 1 + 1e-4;  // beyond any rounding of a sliver
  EXPECT_FALSE(m->validate(1, "downward").valid);
}

TEST(Mesh, AMeshFarFromTheOriginValidatesAndAWrongCentreStillFails) {
  RawMesh raw = make_cube(6, 0.15);
  for (double& x : raw.crd) x += 5000;
  auto m = accepted(std::move(raw));
  double worst = 0;  // some centre in double is off by more than 1e-13 of the extent
  for (std::int64_t t = 0; t < m->nt; ++t) {
    const double* p[4];
    for (int q = 0; q < 4; ++q) p[q] = &m->crd[3 * std::int64_t(m->tet[4 * t + q])];
    double g[3];
    tet_barycentre(p[0], p[1], p[2], p[3], g);
    for (int k = 0; k < 3; ++k) worst = std::max(worst, std::fabs(g[k] - m->centre[3 * t + k]) / m->extent);
  }
  EXPECT_GT(worst, 1e-13);
  every_variant_validates(*m, "translated cube");
  ASSERT_TRUE(run_one(*m, "mesh", "host_downward", "custom", 1, 0).check.valid);
  m->output("out_centre")[5] += 1e-9;  // a thousand rounding units of 5000
  EXPECT_FALSE(m->validate(1, "downward").valid);
}


// One tet at the edges of the accepted scales: a tolerance relative to an
// extent of 1e40 underflows, and an exact result still passes.
TEST(Mesh, OneTetAtTheEdgesOfTheAcceptedScalesValidates) {
  for (const double scale : {1e-40, 1e40}) {
    RawMesh raw;
    raw.source = "one tet";
    const double p[4][3] = {{0, 0, 0}, {1, 0.1, 0}, {0.2, 1, 0.1}, {0.1, 0.3, 1}};
    for (const auto& q : p)
      for (double x : q) raw.crd.push_back(x * scale);
    raw.tet.assign({0, 1, 2, 3});
    auto m = accepted(std::move(raw));
    every_variant_validates(*m, scale > 1 ? "a tet of 1e40" : "a tet of 1e-40");
  }
}

}  // namespace
}  // namespace ompref::mesh
