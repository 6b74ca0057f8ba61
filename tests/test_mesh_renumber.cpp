// mesh, renumbering: the Hilbert key walks a grid one step at a time; every
// ordering leaves every result unchanged through its permutations; Hilbert
// order is more local than random; hilbert-degree makes each bin a range.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "common/mesh/mesh.hpp"
#include "test_mesh_support.hpp"

namespace ompref::mesh {
namespace {

using ompref::testing::run_one;
using testing::cube;

TEST(Mesh, HilbertKeyWalksTheGridOneStepAtATime) {
  const int bits = 3, side = 1 << bits;
  std::vector<std::pair<std::uint64_t, int>> cells;
  for (int z = 0; z < side; ++z)
    for (int y = 0; y < side; ++y)
      for (int x = 0; x < side; ++x) cells.push_back({hilbert_key(x, y, z, bits), x + side * (y + side * z)});
  std::sort(cells.begin(), cells.end());
  for (int i = 0; i < side * side * side; ++i) ASSERT_EQ(cells[i].first, std::uint64_t(i)) << "keys are a bijection";
  for (int i = 1; i < side * side * side; ++i) {
    int a = cells[i - 1].second, b = cells[i].second;
    int dist = std::abs(a % side - b % side) + std::abs(a / side % side - b / side % side) +
               std::abs(a / side / side - b / side / side);
    ASSERT_EQ(dist, 1) << "step " << i;
  }
}

TEST(Mesh, RenumberingLeavesEveryResultUnchanged) {
  auto base = cube(6, "none", 0.1);
  for (const char* order : {"hilbert", "hilbert-degree", "random"}) {
    auto m = cube(6, order, 0.1);
    ASSERT_EQ(m->nv, base->nv);
    EXPECT_NEAR(double(m->ref_volume_sum), double(base->ref_volume_sum), 1e-14) << order;
    EXPECT_NEAR(double(m->ref_quality_sum), double(base->ref_quality_sum), 1e-12 * double(base->ref_quality_sum))
        << order;
    EXPECT_EQ(m->ref_quality_min.value, base->ref_quality_min.value) << order;
    EXPECT_EQ(m->tet_origin[m->ref_quality_min.index], base->ref_quality_min.index) << order;
    EXPECT_EQ(m->ref_quality_max, base->ref_quality_max) << order;
    EXPECT_NEAR(double(m->ref_lumped_moment), double(base->ref_lumped_moment), 1e-14) << order;
    // Vertex by vertex, through the permutation, on the computed outputs.
    run_one(*m, "mesh", "target_lumped_scatter_gather", "custom", 1, 0);
    run_one(*base, "mesh", "host_lumped_atomic", "custom", 1, 0);
    for (std::int64_t v = 0; v < m->nv; ++v)
      ASSERT_NEAR(m->output("lumped")[v], base->output("lumped")[m->vertex_origin[v]],
                  1e-12 * base->output("lumped")[m->vertex_origin[v]]) << order;
    run_one(*m, "mesh", "host_ball_binned", "custom", 1, 0);
    run_one(*base, "mesh", "host_ball_csr", "custom", 1, 0);
    for (std::int64_t v = 0; v < m->nv; ++v)
      for (int k = 0; k < 3; ++k)
        ASSERT_NEAR(m->output("smooth")[3 * v + k], base->output("smooth")[3 * m->vertex_origin[v] + k], 1e-14) << order;
    run_one(*m, "mesh", "target_reduce", "custom", 1, 0);
    EXPECT_NEAR(m->red.volume_sum, 1.0, 1e-12) << order;
  }
}

// Mean |i - j| over the edges of the tets: what a renumbering is for.
double mean_index_gap(const MeshInstance& m) {
  double sum = 0;
  for (std::int64_t t = 0; t < m.nt; ++t)
    for (int i = 0; i < 4; ++i)
      for (int j = i + 1; j < 4; ++j) sum += std::abs(double(m.tet[4 * t + i]) - double(m.tet[4 * t + j]));
  return sum / (6.0 * double(m.nt));
}

TEST(Mesh, HilbertOrderIsMoreLocalThanRandom) {
  auto hilbert = cube(16, "hilbert");
  auto random = cube(16, "random");
  EXPECT_LT(mean_index_gap(*hilbert) * 4, mean_index_gap(*random));  // measured: 9x
}

TEST(Mesh, HilbertDegreePutsLowDegreeVerticesFirst) {
  auto m = cube(6, "hilbert-degree");
  for (std::int64_t v = 1; v < m->nv; ++v) {
    auto width = [&](std::int64_t u) {
      int d = m->ball_offset[u + 1] - m->ball_offset[u], w = 1;
      while (w < d) w *= 2;
      return w;
    };
    ASSERT_LE(width(v - 1), width(v)) << v;
  }
  for (std::int64_t r = 0; r < m->bins.rows(); ++r) ASSERT_EQ(m->bins.vertex[r], r) << "bins are contiguous ranges";
}

}  // namespace
}  // namespace ompref::mesh
