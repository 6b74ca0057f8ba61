// mesh: topology. The vertex balls (vertex -> tets, CSR), the tet neighbours
// through faces, the boundary triangles of a mesh read without them, and the
// balls again in GMlib's degree-binned layout.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <omp.h>

#include "common/mesh/mesh.hpp"

namespace ompref::mesh {
namespace {

// Items 0..n-1 filed into buckets (a CSR): bucket_of(i) is item i's bucket;
// each bucket's items in ascending order. Counted and filed in parallel
// (atomics, in any order), then each bucket sorted, so that the result is
// the serial one.
// `sorted` false: each bucket's items in any order (a caller that sorts them
// by a key of its own).
template <class BucketOf>
void bucket_items(std::int64_t n, std::int64_t buckets, BucketOf&& bucket_of, Array<std::int32_t>& offset,
                  Array<std::int32_t>& entries, bool sorted = true) {
  fill_array(offset, std::size_t(buckets + 1), 0);
  std::int32_t* count = offset.data() + 1;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t b = bucket_of(i);
#pragma omp atomic update
    ++count[b];
  }
  for (std::int64_t b = 0; b < buckets; ++b) offset[b + 1] += offset[b];
  entries.resize(n);
  Array<std::int32_t> fill(offset.begin(), offset.end() - 1);
  std::int32_t* next = fill.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t b = bucket_of(i);
    std::int32_t slot;
#pragma omp atomic capture
    slot = next[b]++;
    entries[slot] = std::int32_t(i);
  }
  if (!sorted) return;
#pragma omp parallel for schedule(dynamic, 4096)
  for (std::int64_t b = 0; b < buckets; ++b) std::sort(entries.begin() + offset[b], entries.begin() + offset[b + 1]);
}

// vertex -> tets CSR: entries are corners (4 t + k) in ascending order.
void build_ball(const Array<std::int32_t>& tet, std::int64_t nv, Array<std::int32_t>& offset,
                Array<std::int32_t>& entries) {
  bucket_items(std::int64_t(tet.size()), nv, [&](std::int64_t c) { return tet[c]; }, offset, entries);
}

// The faces without a neighbour, as triangles oriented outwards, in tet
// order, in parallel: each thread counts the boundary faces of its range of
// tets, then writes them after those of the ranges before its own.
Array<std::int32_t> boundary_faces(const Array<std::int32_t>& tet, const Array<std::int32_t>& tet_nbr) {
  static const int faces[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
  const std::int64_t nt = std::int64_t(tet.size() / 4);
  Array<std::int32_t> tri;
  std::vector<std::int64_t> start;
#pragma omp parallel
  {
    const int threads = omp_get_num_threads(), me = omp_get_thread_num();
#pragma omp single
    start.assign(threads + 1, 0);
    const std::int64_t chunk = (nt + threads - 1) / threads;
    const std::int64_t first = std::min(nt, me * chunk), last = std::min(nt, first + chunk);
    std::int64_t mine = 0;
    for (std::int64_t c = 4 * first; c < 4 * last; ++c) mine += tet_nbr[c] < 0;
    start[me + 1] = mine;
#pragma omp barrier
#pragma omp single
    {
      for (std::size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
      tri.resize(3 * start.back());
    }
    std::int32_t* out = tri.data() + 3 * start[me];
    for (std::int64_t t = first; t < last; ++t)
      for (int k = 0; k < 4; ++k)
        if (tet_nbr[4 * t + k] < 0)
          for (int q = 0; q < 3; ++q) *out++ = tet[4 * t + faces[k][q]];
  }
  return tri;
}

// The three vertices, ascending, of the face at a corner c = 4 t + k: the
// face of tet t opposite its vertex k.
void face_of(const Array<std::int32_t>& tet, std::int32_t corner, std::int32_t f[3]) {
  const std::int64_t t = corner >> 2;
  const int k = corner & 3;
  for (int q = 0, n = 0; q < 4; ++q)
    if (q != k) f[n++] = tet[4 * t + q];
  std::sort(f, f + 3);
}

// Each face's key (its two other vertices, then its corner: a total order,
// so the order the faces were filed in does not matter) made once per face
// rather than at every comparison of the sort.
struct FaceKey {
  std::uint64_t others;  // f[1] << 32 | f[2]
  std::int32_t corner;
  bool operator<(const FaceKey& o) const { return others < o.others || (others == o.others && corner < o.corner); }
};

// The neighbours through the faces filed under each vertex (face_offset,
// face_corner: a CSR by each face's smallest vertex): equal faces, sorted
// side by side, name each other's tets in tet_nbr.
void pair_faces(const Array<std::int32_t>& tet, std::int64_t nv, const Array<std::int32_t>& face_offset,
                const Array<std::int32_t>& face_corner, Array<std::int32_t>& tet_nbr) {
#pragma omp parallel
  {
    std::vector<FaceKey> keys;
#pragma omp for schedule(dynamic, 256)
    for (std::int64_t a = 0; a < nv; ++a) {
      keys.clear();
      for (std::int32_t i = face_offset[a]; i < face_offset[a + 1]; ++i) {
        std::int32_t f[3];
        face_of(tet, face_corner[i], f);
        keys.push_back({std::uint64_t(std::uint32_t(f[1])) << 32 | std::uint32_t(f[2]), face_corner[i]});
      }
      std::sort(keys.begin(), keys.end());
      for (auto run = keys.begin(); run != keys.end();) {
        auto end = run + 1;
        while (end != keys.end() && end->others == run->others) ++end;
        for (auto c = run; c != end; ++c) {
          auto other = run;  // the smallest other tet: a tet's own corners (a repeated vertex) are skipped
          while (other != end && (other->corner >> 2) == (c->corner >> 2)) ++other;
          if (other != end) tet_nbr[c->corner] = other->corner >> 2;
        }
        run = end;
      }
    }
  }
}

// A vertex's row in the binned layout is as wide as the power of two at or
// above its degree: the exponent.
int width_of(const Array<std::int32_t>& ball_offset, std::int64_t v) {
  const std::uint32_t deg = std::uint32_t(ball_offset[v + 1] - ball_offset[v]);
  int w = 0;
  while ((1u << w) < std::max(deg, 1u)) ++w;
  return w;
}

// The rows by width, vertices ascending within a width, filed in parallel:
// each thread counts its range of vertices per width, then writes them
// after the rows of narrower widths and of the ranges before its own.
// Returns the number of rows of each width.
std::vector<std::int64_t> file_rows(const Array<std::int32_t>& ball_offset, std::int64_t nv,
                                    Array<std::int32_t>& vertex) {
  std::vector<std::int64_t> rows(32, 0), slot;  // slot[thread * 32 + width]: the thread's next row
  vertex.resize(nv);
#pragma omp parallel
  {
    const int threads = omp_get_num_threads(), me = omp_get_thread_num();
#pragma omp single
    slot.assign(std::size_t(threads) * 32, 0);
    const std::int64_t chunk = (nv + threads - 1) / threads;
    const std::int64_t first = std::min(nv, me * chunk), last = std::min(nv, first + chunk);
    std::int64_t* mine = slot.data() + std::size_t(me) * 32;
    for (std::int64_t v = first; v < last; ++v) ++mine[width_of(ball_offset, v)];
#pragma omp barrier
#pragma omp single
    for (std::int64_t w = 0, at = 0; w < 32; ++w)
      for (int t = 0; t < threads; ++t) {
        const std::int64_t n = slot[std::size_t(t) * 32 + w];
        slot[std::size_t(t) * 32 + w] = at;
        at += n;
        rows[w] += n;
      }
    for (std::int64_t v = first; v < last; ++v) vertex[mine[width_of(ball_offset, v)]++] = std::int32_t(v);
  }
  return rows;
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
  Array<std::int32_t> face_offset, face_corner;
  bucket_items(
      4 * nt, nv,
      [&](std::int64_t c) {
        std::int32_t f[3];
        face_of(tet, std::int32_t(c), f);
        return f[0];
      },
      face_offset, face_corner, false);
  fill_array(tet_nbr, std::size_t(4 * nt), -1);
  pair_faces(tet, nv, face_offset, face_corner, tet_nbr);
  // Without triangles (the generated cube), the boundary faces become the
  // triangles, oriented outwards.
  if (tri.empty()) tri = boundary_faces(tet, tet_nbr);
  ntri = std::int64_t(tri.size() / 3);
}

void MeshInstance::build_bins() {
  bins = Bins(mapped);
  const std::vector<std::int64_t> rows = file_rows(ball_offset, nv, bins.vertex);
  std::int64_t offset = 0;
  std::int32_t row = 0;
  for (int w = 0; w < 32; ++w) {
    if (rows[w] == 0) continue;
    bins.first.push_back(row);
    bins.count.push_back(std::int32_t(rows[w]));
    bins.width.push_back(std::int32_t(1u << w));
    bins.offset.push_back(offset);
    row += std::int32_t(rows[w]);
    offset += rows[w] << w;
  }
  // Every entry of every matrix is written below: a ball entry or the sentinel.
  bins.corner.resize(std::size_t(offset));
  bins.degree.resize(nv);
  for (int slot_b = 0; slot_b < bins.bin_count(); ++slot_b) {
    const std::int64_t count = bins.count[slot_b];
    const std::int64_t off = bins.offset[slot_b];
    const std::int64_t row0 = bins.first[slot_b];
    const std::int32_t width = bins.width[slot_b];
#pragma omp parallel for schedule(static)
    for (std::int64_t r = 0; r < count; ++r) {
      const std::int32_t v = bins.vertex[row0 + r];
      const std::int32_t deg = ball_offset[v + 1] - ball_offset[v];
      bins.degree[row0 + r] = deg;
      for (std::int32_t j = 0; j < deg; ++j) bins.corner[off + j * count + r] = ball_corner[ball_offset[v] + j];
      for (std::int32_t j = deg; j < width; ++j) bins.corner[off + j * count + r] = ball_sentinel;
    }
  }
}

}  // namespace ompref::mesh
