// mesh: renumbering. Vertices by the Hilbert key of their coordinates,
// elements by the key of their barycentre (Skilling's transform), optionally
// binned by degree first (GMlib's GPU mode), or shuffled: what order buys.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>

#include "common/mesh/mesh.hpp"

namespace ompref::mesh {

// Skilling's transform ("Programming the Hilbert curve", 2004): axes to the
// transposed Hilbert index, then the bits interleaved into one key.
std::uint64_t hilbert_key(std::uint32_t x, std::uint32_t y, std::uint32_t z, int bits) {
  std::uint32_t X[3] = {x, y, z};
  const std::uint32_t top = 1u << (bits - 1);
  for (std::uint32_t q = top; q > 1; q >>= 1) {
    const std::uint32_t p = q - 1;
    for (int i = 0; i < 3; ++i) {
      if (X[i] & q) {
        X[0] ^= p;
      } else {
        const std::uint32_t t = (X[0] ^ X[i]) & p;
        X[0] ^= t;
        X[i] ^= t;
      }
    }
  }
  for (int i = 1; i < 3; ++i) X[i] ^= X[i - 1];
  std::uint32_t t = 0;
  for (std::uint32_t q = top; q > 1; q >>= 1)
    if (X[2] & q) t ^= q - 1;
  for (int i = 0; i < 3; ++i) X[i] ^= t;
  std::uint64_t key = 0;
  for (int b = bits - 1; b >= 0; --b)
    for (int i = 0; i < 3; ++i) key = (key << 1) | ((X[i] >> b) & 1u);
  return key;
}

// Each thread's box of its points, then the boxes combined: min and max are
// exact, so no order changes the result.
Box bounding_box(const Array<double>& crd) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::int64_t n = std::int64_t(crd.size() / 3);
  const Box empty{{inf, inf, inf}, {-inf, -inf, -inf}};
  Box b = empty;
#pragma omp parallel
  {
    // From `empty`, not `b`: a thread past its share (nowait) may be
    // combining into `b` already.
    Box mine = empty;
#pragma omp for schedule(static) nowait
    for (std::int64_t v = 0; v < n; ++v)
      for (int d = 0; d < 3; ++d) {
        mine.lo[d] = std::min(mine.lo[d], crd[3 * v + d]);
        mine.hi[d] = std::max(mine.hi[d], crd[3 * v + d]);
      }
#pragma omp critical
    for (int d = 0; d < 3; ++d) {
      b.lo[d] = std::min(b.lo[d], mine.lo[d]);
      b.hi[d] = std::max(b.hi[d], mine.hi[d]);
    }
  }
  return b;
}

namespace {

// a = 0, 1, ..., n - 1, set in parallel.
void identity(Array<std::int32_t>& a, std::int64_t n) {
  a.resize(std::size_t(n));
  std::int32_t* to = a.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) to[i] = std::int32_t(i);
}

std::uint64_t point_key(const Box& box, const double* p) {
  constexpr int bits = 21;
  std::uint32_t q[3];
  for (int d = 0; d < 3; ++d) {
    const double span = box.hi[d] - box.lo[d];
    double s = span > 0 ? (p[d] - box.lo[d]) / span : 0.0;
    s = std::min(std::max(s, 0.0), 1.0);
    q[d] = std::uint32_t(s * double((1u << bits) - 1));
  }
  return hilbert_key(q[0], q[1], q[2], bits);
}

// Order of `n` items by key (ties by index): order[new] = old.
Array<std::int32_t> order_by(const Array<std::uint64_t>& key) {
  Array<std::int32_t> order;
  identity(order, std::int64_t(key.size()));
  std::sort(order.begin(), order.end(),
            [&](std::int32_t a, std::int32_t b) { return key[a] < key[b] || (key[a] == key[b] && a < b); });
  return order;
}

// The vertices' Hilbert keys; with `by_degree` (GMlib's GPU mode) low-degree
// vertices first, so that each degree bin is one contiguous range of
// vertices, Hilbert order inside a bin.
Array<std::uint64_t> vertex_keys(const RawMesh& raw, std::int64_t nv, const Box& box, bool by_degree) {
  Array<std::uint64_t> key(nv);
#pragma omp parallel for schedule(static)
  for (std::int64_t v = 0; v < nv; ++v) key[v] = point_key(box, &raw.crd[3 * v]);
  if (by_degree) {
    std::vector<std::uint32_t> degree(nv, 0);
    for (std::int32_t v : raw.tet) ++degree[v];
    for (std::int64_t v = 0; v < nv; ++v) {
      std::uint64_t bin = 0;
      while ((1u << bin) < degree[v]) ++bin;
      key[v] = (bin << 58) | (key[v] >> 6);  // 6 bits of bin above 57 bits of Hilbert key
    }
  }
  return key;
}

// The Hilbert keys of the barycentres of `count` elements of `nodes` vertices each.
Array<std::uint64_t> centre_keys(const RawMesh& raw, const Box& box, const Array<std::int32_t>& elems, int nodes,
                                 std::int64_t count) {
  Array<std::uint64_t> k(count);
#pragma omp parallel for schedule(static)
  for (std::int64_t e = 0; e < count; ++e) {
    double g[3] = {0, 0, 0};
    for (int q = 0; q < nodes; ++q)
      for (int d = 0; d < 3; ++d) g[d] += raw.crd[3 * std::int64_t(elems[nodes * e + q]) + d] / nodes;
    k[e] = point_key(box, g);
  }
  return k;
}

// The mesh rewritten in the new orders (order[new] = old): coordinates,
// then tets and triangles in new element order naming new vertex numbers.
void apply_orders(RawMesh& raw, std::int64_t nv, std::int64_t nt, std::int64_t ntri,
                  const Array<std::int32_t>& vertex_origin, const Array<std::int32_t>& tet_origin,
                  const Array<std::int32_t>& tri_order) {
  Array<std::int32_t> new_of_old(nv);
#pragma omp parallel for schedule(static)
  for (std::int64_t v = 0; v < nv; ++v) new_of_old[vertex_origin[v]] = std::int32_t(v);
  Array<double> crd(3 * nv);
#pragma omp parallel for schedule(static)
  for (std::int64_t v = 0; v < nv; ++v)
    for (int d = 0; d < 3; ++d) crd[3 * v + d] = raw.crd[3 * std::int64_t(vertex_origin[v]) + d];
  raw.crd = std::move(crd);
  Array<std::int32_t> t(4 * nt);
#pragma omp parallel for schedule(static)
  for (std::int64_t e = 0; e < nt; ++e)
    for (int q = 0; q < 4; ++q) t[4 * e + q] = new_of_old[raw.tet[4 * std::int64_t(tet_origin[e]) + q]];
  raw.tet = std::move(t);
  Array<std::int32_t> s(3 * ntri);
#pragma omp parallel for schedule(static)
  for (std::int64_t e = 0; e < ntri; ++e)
    for (int q = 0; q < 3; ++q) s[3 * e + q] = new_of_old[raw.tri[3 * std::int64_t(tri_order[e]) + q]];
  raw.tri = std::move(s);
}

}  // namespace

void MeshInstance::renumber_mesh(RawMesh& raw, Renumber renumber) {
  identity(vertex_origin, nv);
  identity(tet_origin, nt);
  if (renumber == Renumber::none) return;
  const std::int64_t ntri = std::int64_t(raw.tri.size() / 3);
  Array<std::int32_t> tri_order;
  identity(tri_order, ntri);
  if (renumber == Renumber::random) {
    std::mt19937_64 rng(20261122);
    std::shuffle(vertex_origin.begin(), vertex_origin.end(), rng);
    std::shuffle(tet_origin.begin(), tet_origin.end(), rng);
    std::shuffle(tri_order.begin(), tri_order.end(), rng);
  } else {
    const Box box = bounding_box(raw.crd);
    vertex_origin = order_by(vertex_keys(raw, nv, box, renumber == Renumber::hilbert_degree));
    tet_origin = order_by(centre_keys(raw, box, raw.tet, 4, nt));
    if (ntri > 0) tri_order = order_by(centre_keys(raw, box, raw.tri, 3, ntri));
  }
  apply_orders(raw, nv, nt, ntri, vertex_origin, tet_origin, tri_order);
}

}  // namespace ompref::mesh
