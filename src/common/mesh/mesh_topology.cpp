// mesh: topology. The vertex balls (vertex -> tets, CSR), the tet neighbours
// through faces, the boundary triangles of a mesh read without them, and the
// balls again in GMlib's degree-binned layout.
#include <algorithm>
#include <cstdint>
#include <tuple>
#include <vector>

#include "common/mesh/mesh.hpp"

namespace ompref::mesh {
namespace {

// Items 0..n-1 filed into buckets (a CSR): bucket_of(i) is item i's bucket;
// each bucket's items in ascending order. Counted and filed in parallel
// (atomics, in any order), then each bucket sorted, so that the result is
// the serial one.
template <class BucketOf>
void bucket_items(std::int64_t n, std::int64_t buckets, BucketOf&& bucket_of, std::vector<std::int32_t>& offset,
                  std::vector<std::int32_t>& entries) {
  offset.assign(buckets + 1, 0);
  std::int32_t* count = offset.data() + 1;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t b = bucket_of(i);
#pragma omp atomic update
    ++count[b];
  }
  for (std::int64_t b = 0; b < buckets; ++b) offset[b + 1] += offset[b];
  entries.resize(n);
  std::vector<std::int32_t> fill(offset.begin(), offset.end() - 1);
  std::int32_t* next = fill.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t b = bucket_of(i);
    std::int32_t slot;
#pragma omp atomic capture
    slot = next[b]++;
    entries[slot] = std::int32_t(i);
  }
#pragma omp parallel for schedule(dynamic, 4096)
  for (std::int64_t b = 0; b < buckets; ++b) std::sort(entries.begin() + offset[b], entries.begin() + offset[b + 1]);
}

// vertex -> tets CSR: entries are corners (4 t + k) in ascending order.
void build_ball(const std::vector<std::int32_t>& tet, std::int64_t nv, std::vector<std::int32_t>& offset,
                std::vector<std::int32_t>& entries) {
  bucket_items(std::int64_t(tet.size()), nv, [&](std::int64_t c) { return tet[c]; }, offset, entries);
}

}  // namespace

void MeshInstance::build_topology() {
  build_ball(tet, nv, ball_offset, ball_corner);
  // Neighbour through the face opposite vertex k: the other tet holding the
  // same three vertices. Each face (a corner 4 t + k) is filed under its
  // smallest vertex (a CSR, O(n)); each vertex's faces are sorted by their two
  // other vertices, then by tet, so that equal faces lie side by side:
  // O(n log n) whatever the vertex degrees (a scan of the smallest vertex's
  // ball for each face is quadratic in its degree). A face held by more than
  // two tets (not a valid mesh) pairs each tet with the smallest other one.
  const auto face_of = [this](std::int32_t corner, std::int32_t f[3]) {
    const std::int64_t t = corner >> 2;
    const int k = corner & 3;
    for (int q = 0, n = 0; q < 4; ++q)
      if (q != k) f[n++] = tet[4 * t + q];
    std::sort(f, f + 3);
  };
  std::vector<std::int32_t> face_offset, face_corner;
  bucket_items(
      4 * nt, nv,
      [&](std::int64_t c) {
        std::int32_t f[3];
        face_of(std::int32_t(c), f);
        return f[0];
      },
      face_offset, face_corner);
  tet_nbr.assign(4 * nt, -1);
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int64_t a = 0; a < nv; ++a) {
    std::int32_t* first = face_corner.data() + face_offset[a];
    std::int32_t* last = face_corner.data() + face_offset[a + 1];
    const auto key = [&](std::int32_t corner) {
      std::int32_t f[3];
      face_of(corner, f);
      return std::make_tuple(f[1], f[2], corner >> 2);
    };
    std::sort(first, last, [&](std::int32_t x, std::int32_t y) { return key(x) < key(y); });
    for (std::int32_t* run = first; run != last;) {
      const auto same_face = [&](std::int32_t c) {
        const auto kc = key(c), kr = key(*run);
        return std::get<0>(kc) == std::get<0>(kr) && std::get<1>(kc) == std::get<1>(kr);
      };
      std::int32_t* end = run + 1;
      while (end != last && same_face(*end)) ++end;
      for (std::int32_t* c = run; c != end; ++c) {
        std::int32_t* other = run;  // the smallest other tet: a tet's own corners (a repeated vertex) are skipped
        while (other != end && (*other >> 2) == (*c >> 2)) ++other;
        if (other != end) tet_nbr[*c] = *other >> 2;
      }
      run = end;
    }
  }
  // Without triangles (the generated cube), the boundary faces become the
  // triangles, oriented outwards.
  if (tri.empty()) {
    static const int faces[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
    for (std::int64_t t = 0; t < nt; ++t)
      for (int k = 0; k < 4; ++k)
        if (tet_nbr[4 * t + k] < 0)
          for (int q = 0; q < 3; ++q) tri.push_back(tet[4 * t + faces[k][q]]);
  }
  ntri = std::int64_t(tri.size() / 3);
}

void MeshInstance::build_bins() {
  std::vector<std::vector<std::int32_t>> by_width(32);
  for (std::int64_t v = 0; v < nv; ++v) {
    const std::uint32_t deg = std::uint32_t(ball_offset[v + 1] - ball_offset[v]);
    int w = 0;
    while ((1u << w) < std::max(deg, 1u)) ++w;
    by_width[w].push_back(std::int32_t(v));
  }
  bins = Bins{};
  std::int64_t offset = 0;
  std::int32_t first = 0;
  for (int w = 0; w < 32; ++w) {
    if (by_width[w].empty()) continue;
    bins.first.push_back(first);
    bins.count.push_back(std::int32_t(by_width[w].size()));
    bins.width.push_back(std::int32_t(1u << w));
    bins.offset.push_back(offset);
    first += std::int32_t(by_width[w].size());
    offset += std::int64_t(by_width[w].size()) << w;
  }
  bins.corner.assign(offset, ball_sentinel);
  bins.vertex.resize(nv);
  bins.degree.resize(nv);
  for (int b = 0, slot = 0; b < 32; ++b) {
    if (by_width[b].empty()) continue;
    const std::int64_t count = bins.count[slot];
    const std::int64_t off = bins.offset[slot];
    const std::int64_t row0 = bins.first[slot];
#pragma omp parallel for schedule(static)
    for (std::int64_t r = 0; r < count; ++r) {
      const std::int32_t v = by_width[b][r];
      const std::int32_t deg = ball_offset[v + 1] - ball_offset[v];
      bins.vertex[row0 + r] = v;
      bins.degree[row0 + r] = deg;
      for (std::int32_t j = 0; j < deg; ++j) bins.corner[off + j * count + r] = ball_corner[ball_offset[v] + j];
    }
    ++slot;
  }
}

}  // namespace ompref::mesh
