// mesh, topology: tet neighbours are symmetric and share a face, the boundary
// triangles close the surface, and the degree-binned balls hold the CSR balls.
#include <cstdint>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "common/mesh/mesh.hpp"
#include "test_mesh_support.hpp"

namespace ompref::mesh {
namespace {

using testing::cube;
using testing::triangle_neighbours;

TEST(Mesh, TetNeighboursAreSymmetricAndShareAFace) {
  for (const char* order : {"none", "hilbert"}) {
    auto m = cube(4, order, 0.1);
    std::int64_t boundary = 0;
    for (std::int64_t t = 0; t < m->nt; ++t)
      for (int k = 0; k < 4; ++k) {
        const std::int32_t u = m->tet_nbr[4 * t + k];
        if (u < 0) {
          ++boundary;
          continue;
        }
        int back = 0, shared = 0;
        for (int q = 0; q < 4; ++q) back += m->tet_nbr[4 * std::int64_t(u) + q] == t;
        for (int q = 0; q < 4; ++q)
          for (int s = 0; s < 4; ++s) shared += m->tet[4 * t + q] == m->tet[4 * std::int64_t(u) + s];
        ASSERT_EQ(back, 1) << t;
        ASSERT_EQ(shared, 3) << t;
        // The vertex opposite the face is not in the neighbour.
        for (int s = 0; s < 4; ++s) ASSERT_NE(m->tet[4 * t + k], m->tet[4 * std::int64_t(u) + s]);
      }
    EXPECT_EQ(boundary, 6 * 2 * 4 * 4) << "2 triangles per boundary square";
    // The boundary triangles close the surface: 3 neighbours each, symmetric.
    EXPECT_EQ(m->ntri, boundary);
    const std::vector<std::int32_t> tri_nbr = triangle_neighbours(*m);
    for (std::int64_t t = 0; t < m->ntri; ++t)
      for (int k = 0; k < 3; ++k) {
        const std::int32_t u = tri_nbr[3 * t + k];
        ASSERT_GE(u, 0) << t;
        int back = 0;
        for (int q = 0; q < 3; ++q) back += tri_nbr[3 * std::int64_t(u) + q] == t;
        ASSERT_EQ(back, 1);
      }
  }
}

TEST(Mesh, BinnedBallsHoldTheCsrBalls) {
  auto m = cube(5, "hilbert");
  const Bins& b = m->bins;
  ASSERT_EQ(b.rows(), m->nv);
  std::set<std::int32_t> seen;
  std::int64_t padded = 0;
  for (int i = 0; i < b.bin_count(); ++i) {
    EXPECT_EQ(b.width[i] & (b.width[i] - 1), 0) << "a power of two";
    if (i > 0) {
      EXPECT_GT(b.width[i], b.width[i - 1]);
    }
    for (std::int32_t r = b.first[i]; r < b.first[i] + b.count[i]; ++r) {
      const std::int32_t v = b.vertex[r];
      seen.insert(v);
      const std::int32_t deg = m->ball_offset[v + 1] - m->ball_offset[v];
      ASSERT_EQ(b.degree[r], deg);
      ASSERT_LE(deg, b.width[i]);
      ASSERT_TRUE(deg == 0 || deg > b.width[i] / 2 || b.width[i] == 1);
      for (std::int32_t j = 0; j < b.width[i]; ++j) {
        const std::int32_t c = b.corner[b.offset[i] + std::int64_t(j) * b.count[i] + (r - b.first[i])];
        if (j < deg) {
          ASSERT_EQ(c, m->ball_corner[m->ball_offset[v] + j]);
          ASSERT_EQ(m->tet[c], v) << "corner c is vertex c & 3 of tet c >> 2";
        } else {
          ASSERT_EQ(c, ball_sentinel);
          ++padded;
        }
      }
    }
  }
  EXPECT_EQ(std::int64_t(seen.size()), m->nv);
  EXPECT_EQ(std::int64_t(b.corner.size()), 4 * m->nt + padded);
}

}  // namespace
}  // namespace ompref::mesh
