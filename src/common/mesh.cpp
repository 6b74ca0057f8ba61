#include "common/mesh.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/usage_error.hpp"

namespace ompref::mesh {

const char* kernel_name(Kernel kernel) {
  switch (kernel) {
    case Kernel::none: return "none";
    case Kernel::direct: return "direct";
    case Kernel::downward: return "downward";
    case Kernel::transverse: return "transverse";
    case Kernel::upward_csr: return "upward_csr";
    case Kernel::upward_binned: return "upward_binned";
    case Kernel::lumped_atomic: return "lumped_atomic";
    case Kernel::lumped_scatter_gather: return "lumped_scatter_gather";
    case Kernel::reduce: return "reduce";
  }
  return "?";
}

Renumber renumber_from_name(const std::string& name) {
  if (name == "none") return Renumber::none;
  if (name == "hilbert") return Renumber::hilbert;
  if (name == "hilbert-degree") return Renumber::hilbert_degree;
  if (name == "random") return Renumber::random;
  throw UsageError(fmt::format("--renumber: unknown ordering '{}' (accepted: none, hilbert, hilbert-degree, random)", name));
}

const char* renumber_name(Renumber renumber) {
  switch (renumber) {
    case Renumber::none: return "none";
    case Renumber::hilbert: return "hilbert";
    case Renumber::hilbert_degree: return "hilbert-degree";
    case Renumber::random: return "random";
  }
  return "?";
}

int cube_for_size(const std::string& size) {
  if (size == "tiny") return 8;
  if (size == "small") return 32;
  if (size == "medium") return 96;
  if (size == "large") return 128;
  throw UsageError(fmt::format("mesh: unknown size '{}' (accepted: tiny, small, medium, large)", size));
}

Reductions combine_blocks(const double* part, const std::int64_t* argmin, int blocks) {
  const double inf = std::numeric_limits<double>::infinity();
  Reductions r{0, inf, -inf, 0, -inf, MinLoc{inf, std::numeric_limits<std::int64_t>::max()}};
  for (int b = 0; b < blocks; ++b) {
    r.volume_sum += part[6 * b + 0];
    r.volume_min = std::min(r.volume_min, part[6 * b + 1]);
    r.volume_max = std::max(r.volume_max, part[6 * b + 2]);
    r.quality_sum += part[6 * b + 3];
    r.quality_max = std::max(r.quality_max, part[6 * b + 4]);
    r.quality_min = minloc_better(r.quality_min, MinLoc{part[6 * b + 5], argmin[b]});
  }
  return r;
}

// ---------------------------------------------------------------- generation and I/O

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
// A deterministic value in [-1, 1) from (index, stream).
double unit_noise(std::uint64_t index, std::uint64_t stream) {
  return double(splitmix64(index * 4 + stream) >> 11) * 0x1.0p-52 - 1.0;
}

}  // namespace

RawMesh make_cube(int n, double jitter) {
  if (n < 1) throw UsageError(fmt::format("--cube: {} is not a positive number of cells", n));
  if (!(jitter >= 0 && jitter <= 0.15)) throw UsageError(fmt::format("--jitter: {} is outside [0, 0.15]", jitter));
  RawMesh raw;
  raw.source = fmt::format("cube {}{}", n, jitter > 0 ? fmt::format(" jitter {}", jitter) : "");
  const std::int64_t m = n + 1;
  const std::int64_t nv = m * m * m;
  const double h = 1.0 / n;
  raw.crd.resize(3 * nv);
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < m; ++k)
    for (std::int64_t j = 0; j < m; ++j)
      for (std::int64_t i = 0; i < m; ++i) {
        const std::int64_t v = i + m * (j + m * k);
        double p[3] = {double(i) * h, double(j) * h, double(k) * h};
        if (i == n) p[0] = 1;
        if (j == n) p[1] = 1;
        if (k == n) p[2] = 1;
        const bool interior = i > 0 && j > 0 && k > 0 && i < n && j < n && k < n;
        if (jitter > 0 && interior)
          for (int d = 0; d < 3; ++d) p[d] += jitter * h * unit_noise(std::uint64_t(v), std::uint64_t(d));
        for (int d = 0; d < 3; ++d) raw.crd[3 * v + d] = p[d];
      }
  // Kuhn's split: tet p follows the path (0,0,0) -> +e_p0 -> +e_p1 -> (1,1,1).
  // det(e_p0, e_p1, e_p2) = sign(p): odd permutations swap their middle vertices.
  static const int perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
  const std::int64_t nt = 6 * std::int64_t(n) * n * n;
  raw.tet.resize(4 * nt);
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < n; ++k)
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t cell = i + n * (j + n * k);
        for (int p = 0; p < 6; ++p) {
          std::int64_t c[3] = {i, j, k};
          std::int32_t path[4];
          path[0] = std::int32_t(c[0] + m * (c[1] + m * c[2]));
          for (int s = 0; s < 3; ++s) {
            c[perms[p][s]] += 1;
            path[s + 1] = std::int32_t(c[0] + m * (c[1] + m * c[2]));
          }
          if (p >= 3) std::swap(path[1], path[2]);
          for (int q = 0; q < 4; ++q) raw.tet[4 * (6 * cell + p) + q] = path[q];
        }
      }
  return raw;
}

RawMesh from_meshb(const meshb::MeshData& data, const std::string& name) {
  const meshb::ElementBlock& tets = data.block(meshb::kTetrahedra);
  if (data.dimension != 3) throw UsageError(fmt::format("mesh file {}: Dimension: {} (the mesh workload needs 3)", name, data.dimension));
  if (tets.count() == 0) throw UsageError(fmt::format("mesh file {}: Tetrahedra: none (the mesh workload needs tetrahedra)", name));
  RawMesh raw;
  raw.source = name;
  raw.crd = data.xyz;
  raw.tet = tets.nodes;
  raw.tri = data.block(meshb::kTriangles).nodes;
  return raw;
}

meshb::MeshData to_meshb(const RawMesh& raw) {
  meshb::MeshData d;
  d.dimension = 3;
  d.xyz = raw.crd;
  d.vrefs.assign(raw.crd.size() / 3, 0);
  d.block(meshb::kTetrahedra).nodes = raw.tet;
  d.block(meshb::kTetrahedra).refs.assign(raw.tet.size() / 4, 0);
  d.block(meshb::kTriangles).nodes = raw.tri;
  d.block(meshb::kTriangles).refs.assign(raw.tri.size() / 3, 0);
  return d;
}

// ---------------------------------------------------------------- Hilbert keys

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

namespace {

struct Box {
  double lo[3], hi[3];
};
Box bounding_box(const std::vector<double>& crd) {
  Box b{{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()},
        {-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()}};
  for (std::size_t v = 0; v < crd.size() / 3; ++v)
    for (int d = 0; d < 3; ++d) {
      b.lo[d] = std::min(b.lo[d], crd[3 * v + d]);
      b.hi[d] = std::max(b.hi[d], crd[3 * v + d]);
    }
  return b;
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
std::vector<std::int32_t> order_by(const std::vector<std::uint64_t>& key) {
  std::vector<std::int32_t> order(key.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) { return key[a] < key[b] || (key[a] == key[b] && a < b); });
  return order;
}

}  // namespace

// ---------------------------------------------------------------- the instance

MeshInstance::MeshInstance(RawMesh raw, Renumber renumber, std::string size_name)
    : size_name_(std::move(size_name)), source_(raw.source), renumber_(renumber) {
  nv = std::int64_t(raw.crd.size() / 3);
  nt = std::int64_t(raw.tet.size() / 4);
  renumber_mesh(raw, renumber);
  crd = std::move(raw.crd);
  tet = std::move(raw.tet);
  tri = std::move(raw.tri);
  build_topology();
  build_bins();
  compute_reference();
  pos.resize(3 * nv);
  out_volume.resize(nt);
  out_centre.resize(3 * nt);
  spread.resize(nt);
  smooth.resize(3 * nv);
  lumped.resize(nv);
  corner_tmp.resize(4 * nt);
  block_partial.resize(6 * reduce_blocks);
  block_argmin.resize(reduce_blocks);
  reset();
}

void MeshInstance::renumber_mesh(RawMesh& raw, Renumber renumber) {
  vertex_origin.resize(nv);
  tet_origin.resize(nt);
  std::iota(vertex_origin.begin(), vertex_origin.end(), 0);
  std::iota(tet_origin.begin(), tet_origin.end(), 0);
  if (renumber == Renumber::none) return;
  const std::int64_t ntri = std::int64_t(raw.tri.size() / 3);
  std::vector<std::int32_t> tri_order(ntri);
  std::iota(tri_order.begin(), tri_order.end(), 0);
  if (renumber == Renumber::random) {
    std::mt19937_64 rng(20261122);
    std::shuffle(vertex_origin.begin(), vertex_origin.end(), rng);
    std::shuffle(tet_origin.begin(), tet_origin.end(), rng);
    std::shuffle(tri_order.begin(), tri_order.end(), rng);
  } else {
    const Box box = bounding_box(raw.crd);
    std::vector<std::uint64_t> key(nv);
#pragma omp parallel for schedule(static)
    for (std::int64_t v = 0; v < nv; ++v) key[v] = point_key(box, &raw.crd[3 * v]);
    if (renumber == Renumber::hilbert_degree) {
      // GMlib's GPU mode: low-degree vertices first, so that each degree bin is
      // one contiguous range of vertices; Hilbert order inside a bin.
      std::vector<std::uint32_t> degree(nv, 0);
      for (std::int32_t v : raw.tet) ++degree[v];
      for (std::int64_t v = 0; v < nv; ++v) {
        std::uint64_t bin = 0;
        while ((1u << bin) < degree[v]) ++bin;
        key[v] = (bin << 58) | (key[v] >> 6);  // 6 bits of bin above 57 bits of Hilbert key
      }
    }
    vertex_origin = order_by(key);
    auto centre_key = [&](const std::vector<std::int32_t>& elems, int nodes, std::int64_t count) {
      std::vector<std::uint64_t> k(count);
#pragma omp parallel for schedule(static)
      for (std::int64_t e = 0; e < count; ++e) {
        double g[3] = {0, 0, 0};
        for (int q = 0; q < nodes; ++q)
          for (int d = 0; d < 3; ++d) g[d] += raw.crd[3 * std::int64_t(elems[nodes * e + q]) + d] / nodes;
        k[e] = point_key(box, g);
      }
      return k;
    };
    tet_origin = order_by(centre_key(raw.tet, 4, nt));
    if (ntri > 0) tri_order = order_by(centre_key(raw.tri, 3, ntri));
  }
  std::vector<std::int32_t> new_of_old(nv);
  for (std::int64_t v = 0; v < nv; ++v) new_of_old[vertex_origin[v]] = std::int32_t(v);
  std::vector<double> crd(3 * nv);
  for (std::int64_t v = 0; v < nv; ++v)
    for (int d = 0; d < 3; ++d) crd[3 * v + d] = raw.crd[3 * std::int64_t(vertex_origin[v]) + d];
  raw.crd = std::move(crd);
  std::vector<std::int32_t> t(4 * nt);
#pragma omp parallel for schedule(static)
  for (std::int64_t e = 0; e < nt; ++e)
    for (int q = 0; q < 4; ++q) t[4 * e + q] = new_of_old[raw.tet[4 * std::int64_t(tet_origin[e]) + q]];
  raw.tet = std::move(t);
  std::vector<std::int32_t> s(3 * ntri);
  for (std::int64_t e = 0; e < ntri; ++e)
    for (int q = 0; q < 3; ++q) s[3 * e + q] = new_of_old[raw.tri[3 * std::int64_t(tri_order[e]) + q]];
  raw.tri = std::move(s);
}

namespace {

// vertex -> items CSR for `count` items of `nodes` vertices each; entries are
// corners (nodes * item + k) in ascending order.
void build_ball(const std::vector<std::int32_t>& elems, int nodes, std::int64_t nv, std::vector<std::int32_t>& offset,
                std::vector<std::int32_t>& entries) {
  offset.assign(nv + 1, 0);
  for (std::int32_t v : elems) ++offset[v + 1];
  for (std::int64_t v = 0; v < nv; ++v) offset[v + 1] += offset[v];
  entries.resize(elems.size());
  std::vector<std::int32_t> fill(offset.begin(), offset.end() - 1);
  for (std::size_t c = 0; c < elems.size(); ++c) entries[fill[elems[c]]++] = std::int32_t(c);
  (void)nodes;
}

}  // namespace

void MeshInstance::build_topology() {
  build_ball(tet, 4, nv, ball_offset, ball_corner);
  // Neighbour through the face opposite vertex k: the other tet in the ball of
  // the face's smallest vertex that holds all three face vertices.
  tet_nbr.assign(4 * nt, -1);
#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < nt; ++t)
    for (int k = 0; k < 4; ++k) {
      std::int32_t f[3];
      for (int q = 0, n = 0; q < 4; ++q)
        if (q != k) f[n++] = tet[4 * t + q];
      const std::int32_t a = std::min({f[0], f[1], f[2]});
      for (std::int32_t i = ball_offset[a]; i < ball_offset[a + 1]; ++i) {
        const std::int64_t u = ball_corner[i] >> 2;
        if (u == t) continue;
        int hits = 0;
        for (int s = 0; s < 3; ++s)
          for (int q = 0; q < 4; ++q) hits += tet[4 * u + q] == f[s];
        if (hits == 3) {
          tet_nbr[4 * t + k] = std::int32_t(u);
          break;
        }
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
  build_ball(tri, 3, nv, tri_ball_offset, tri_ball);
  tri_nbr.assign(3 * ntri, -1);
#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < ntri; ++t)
    for (int k = 0; k < 3; ++k) {
      const std::int32_t a = tri[3 * t + (k + 1) % 3], b = tri[3 * t + (k + 2) % 3];
      const std::int32_t lo = std::min(a, b), hi = std::max(a, b);
      for (std::int32_t i = tri_ball_offset[lo]; i < tri_ball_offset[lo + 1]; ++i) {
        const std::int64_t u = tri_ball[i] / 3;
        if (u == t) continue;
        if (tri[3 * u] == hi || tri[3 * u + 1] == hi || tri[3 * u + 2] == hi) {
          tri_nbr[3 * t + k] = std::int32_t(u);
          break;
        }
      }
    }
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
  for (int b = 0, slot = 0; b < 32; ++b) {
    if (by_width[b].empty()) continue;
    const std::int64_t count = bins.count[slot];
    const std::int64_t off = bins.offset[slot];
    for (std::int64_t r = 0; r < count; ++r) {
      const std::int32_t v = by_width[b][r];
      const std::int32_t deg = ball_offset[v + 1] - ball_offset[v];
      bins.vertex.push_back(v);
      bins.degree.push_back(deg);
      for (std::int32_t j = 0; j < deg; ++j) bins.corner[off + j * count + r] = ball_corner[ball_offset[v] + j];
    }
    ++slot;
  }
}

// ---------------------------------------------------------------- the reference

namespace {

using LD = long double;

LD ld_volume(const double* a, const double* b, const double* c, const double* d) {
  LD u[3], v[3], w[3];
  for (int k = 0; k < 3; ++k) {
    u[k] = LD(b[k]) - a[k];
    v[k] = LD(c[k]) - a[k];
    w[k] = LD(d[k]) - a[k];
  }
  // Triple product u . (v x w).
  return (u[0] * (v[1] * w[2] - v[2] * w[1]) + u[1] * (v[2] * w[0] - v[0] * w[2]) + u[2] * (v[0] * w[1] - v[1] * w[0])) / 6;
}

LD ld_area(const double* a, const double* b, const double* c) {
  LD u[3], v[3];
  for (int k = 0; k < 3; ++k) {
    u[k] = LD(b[k]) - a[k];
    v[k] = LD(c[k]) - a[k];
  }
  const LD x = u[1] * v[2] - u[2] * v[1], y = u[2] * v[0] - u[0] * v[2], z = u[0] * v[1] - u[1] * v[0];
  return std::sqrt(x * x + y * y + z * z) / 2;
}

LD ld_distance(const double* p, const double* q) {
  LD s = 0;
  for (int k = 0; k < 3; ++k) s += (LD(p[k]) - q[k]) * (LD(p[k]) - q[k]);
  return std::sqrt(s);
}

}  // namespace

void MeshInstance::compute_reference() {
  volume.resize(nt);
  quality.resize(nt);
  centre.resize(3 * nt);
  std::vector<LD> vol_ld(nt);
#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < nt; ++t) {
    const double* p[4];
    for (int q = 0; q < 4; ++q) p[q] = &crd[3 * std::int64_t(tet[4 * t + q])];
    const LD v = ld_volume(p[0], p[1], p[2], p[3]);
    vol_ld[t] = v;
    volume[t] = double(v);
    for (int k = 0; k < 3; ++k) centre[3 * t + k] = double((LD(p[0][k]) + p[1][k] + p[2][k] + p[3][k]) / 4);
    LD areas = 0, longest = 0;
    for (int k = 0; k < 4; ++k) areas += ld_area(p[(k + 1) % 4], p[(k + 2) % 4], p[(k + 3) % 4]);
    for (int i = 0; i < 4; ++i)
      for (int j = i + 1; j < 4; ++j) longest = std::max(longest, ld_distance(p[i], p[j]));
    quality[t] = areas > 0 && longest > 0 ? double(6 * std::sqrt(LD(6)) * v / (areas * longest)) : 0.0;
  }
  // Transverse: the largest distance from a tet's centre to its neighbours'.
  ref_spread.resize(nt);
#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < nt; ++t) {
    LD best = 0;
    for (int k = 0; k < 4; ++k) {
      const std::int32_t u = tet_nbr[4 * t + k];
      if (u >= 0) best = std::max(best, ld_distance(&centre[3 * t], &centre[3 * std::int64_t(u)]));
    }
    ref_spread[t] = double(best);
  }
  // Upward: each vertex moved towards the mean centre of its ball; lumped volume.
  ref_smooth.resize(3 * nv);
  ref_lumped.resize(nv);
#pragma omp parallel for schedule(static)
  for (std::int64_t v = 0; v < nv; ++v) {
    LD mean[3] = {0, 0, 0}, lump = 0;
    const std::int32_t deg = ball_offset[v + 1] - ball_offset[v];
    for (std::int32_t i = ball_offset[v]; i < ball_offset[v + 1]; ++i) {
      const std::int64_t t = ball_corner[i] >> 2;
      for (int k = 0; k < 3; ++k) mean[k] += centre[3 * t + k];
      lump += vol_ld[t] / 4;
    }
    for (int k = 0; k < 3; ++k) {
      const LD x = crd[3 * v + k];
      ref_smooth[3 * v + k] = deg > 0 ? double(x + LD(smoothing_omega) * (mean[k] / deg - x)) : double(x);
    }
    ref_lumped[v] = double(lump);
  }
  // Reductions over the double inputs the kernels read.
  ref_volume_sum = 0;
  ref_quality_sum = 0;
  ref_volume_min = ref_volume_max = volume[0];
  ref_quality_max = quality[0];
  ref_quality_min = MinLoc{quality[0], 0};
  for (std::int64_t t = 0; t < nt; ++t) {
    ref_volume_sum += volume[t];
    ref_quality_sum += quality[t];
    ref_volume_min = std::min(ref_volume_min, volume[t]);
    ref_volume_max = std::max(ref_volume_max, volume[t]);
    ref_quality_max = std::max(ref_quality_max, quality[t]);
    if (quality[t] < ref_quality_min.value) ref_quality_min = MinLoc{quality[t], t};
  }
  ref_lumped_moment = 0;
  for (std::int64_t v = 0; v < nv; ++v) {
    LD r2 = 0;
    for (int k = 0; k < 3; ++k) r2 += LD(crd[3 * v + k]) * crd[3 * v + k];
    ref_lumped_moment += LD(ref_lumped[v]) * r2;
  }
  const Box box = bounding_box(crd);
  LD diag = 0;
  for (int d = 0; d < 3; ++d) diag += LD(box.hi[d] - box.lo[d]) * (box.hi[d] - box.lo[d]);
  extent = diag > 0 ? double(std::sqrt(diag)) : 1.0;
  // Direct: a smooth velocity field, the same at a vertex whatever the numbering.
  vel.resize(3 * nv);
#pragma omp parallel for schedule(static)
  for (std::int64_t v = 0; v < nv; ++v)
    for (int k = 0; k < 3; ++k) vel[3 * v + k] = std::sin(3.0 * crd[3 * v + (k + 1) % 3] + k);
}

// ---------------------------------------------------------------- run bookkeeping

nlohmann::json MeshInstance::params() const {
  nlohmann::json bin_list = nlohmann::json::array();
  for (int b = 0; b < bins.bin_count(); ++b) bin_list.push_back({{"width", bins.width[b]}, {"rows", bins.count[b]}});
  return {{"source", source_},      {"renumber", renumber_name(renumber_)}, {"vertices", nv},
          {"tetrahedra", nt},      {"triangles", ntri},                     {"ball_entries", ball_corner.size()},
          {"binned_entries", bins.corner.size()}, {"bins", bin_list}};
}

Model MeshInstance::model_of(Kernel kernel) const {
  // Unique bytes the kernel must move: each input array read once, each output
  // written once (int32 indices, double fields). Layout overheads (the binned
  // padding and row lists, the scatter's temporaries, atomics' read-modify-write)
  // are not counted: they are what the variants compare.
  const double v = double(nv), t = double(nt);
  double bytes = 0, flops = 0;
  switch (kernel) {
    case Kernel::none: break;
    case Kernel::direct: bytes = 72 * v; flops = 6 * v; break;                       // pos, vel in; pos out
    case Kernel::downward: bytes = 16 * t + 24 * v + 32 * t; flops = 45 * t; break;  // tet, crd in; volume, centre out
    case Kernel::transverse: bytes = 16 * t + 24 * t + 8 * t; flops = 36 * t; break; // nbr, centre in; spread out
    case Kernel::upward_csr:
    case Kernel::upward_binned:  // ball (CSR size), centre, crd in; smooth out
      bytes = 4 * v + 16 * t + 24 * t + 24 * v + 24 * v; flops = 12 * t + 9 * v; break;
    case Kernel::lumped_atomic:
    case Kernel::lumped_scatter_gather:  // tet, crd in; lumped out
      bytes = 16 * t + 24 * v + 8 * v; flops = 34 * t; break;
    case Kernel::reduce: bytes = 16 * t; flops = 6 * t; break;  // volume, quality in
  }
  return Model{bytes, flops, "GB/s", bytes / 1e9};
}

Model MeshInstance::model(const std::string& /*kernel: mesh still reads `last`*/) const { return model_of(last); }

void MeshInstance::reset() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < 3 * nv; ++i) {
    pos[i] = crd[i];
    smooth[i] = nan;
  }
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < nv; ++i) lumped[i] = nan;
#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < nt; ++t) {
    out_volume[t] = nan;
    spread[t] = nan;
    for (int k = 0; k < 3; ++k) out_centre[3 * t + k] = nan;
    for (int k = 0; k < 4; ++k) corner_tmp[4 * t + k] = nan;
  }
  red = Reductions{nan, nan, nan, nan, nan, MinLoc{nan, -1}};
  last = Kernel::none;
}

namespace {

// The worst error of a run as a multiple of its tolerance; NaN and Inf fail.
struct Worst {
  Check check;
  double ratio = 0;
  void consider(double err, double tol, const std::string& where) {
    const double r = std::isfinite(err) ? err / tol : std::numeric_limits<double>::infinity();
    if (check.detail.empty() || r > ratio) {
      ratio = r;
      check.max_rel_error = err;
      check.tolerance = tol;
      check.detail = where;
    }
  }
  // Errors over an array: err(i) = |got - want| / scale(i).
  template <class Got, class Want, class Scale>
  void array(std::int64_t n, Got got, Want want, Scale scale, double tol, const char* name) {
    double worst = 0;
    std::int64_t at = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      double e = std::fabs(got(i) - want(i)) / scale(i);
      if (!(e <= worst)) {
        worst = std::isfinite(e) ? e : std::numeric_limits<double>::infinity();
        at = i;
        if (!std::isfinite(e)) break;
      }
    }
    if (n > 0) consider(worst, tol, fmt::format("{}[{}] = {} (expected {})", name, at, got(at), want(at)));
  }
  Check done() {
    check.valid = ratio <= 1.0;
    if (check.valid) check.detail.clear();
    return check;
  }
};

double rel(double got, long double want) {
  const long double scale = std::fabs(want) > 0 ? std::fabs(want) : 1.0L;
  return double(std::fabs(LD(got) - want) / scale);
}

}  // namespace

Check MeshInstance::validate(int repetitions, const std::string& /*kernel: mesh still reads `last`*/) const {
  Worst w;
  w.check.reference = "host long-double reference";
  const double L = extent;
  auto by_extent = [L](std::int64_t) { return L; };
  switch (last) {
    case Kernel::none:
      w.check.valid = false;
      w.check.detail = "no mesh kernel ran since reset";
      return w.check;
    case Kernel::direct: {
      // Replays x += v dt `repetitions` times on the host, in double.
      w.check.reference = "host replay of the update";
      std::vector<double> want(crd);
      for (int r = 0; r < repetitions; ++r)
        for (std::int64_t i = 0; i < 3 * nv; ++i) want[i] = want[i] + vel[i] * direct_dt;
      w.array(3 * nv, [&](std::int64_t i) { return pos[i]; }, [&](std::int64_t i) { return want[i]; }, by_extent, 1e-13,
              "pos");
      break;
    }
    case Kernel::downward:
      w.array(nt, [&](std::int64_t i) { return out_volume[i]; }, [&](std::int64_t i) { return volume[i]; },
              [&](std::int64_t i) { return std::max(std::fabs(volume[i]), 1e-300); }, 1e-10, "volume");
      w.array(3 * nt, [&](std::int64_t i) { return out_centre[i]; }, [&](std::int64_t i) { return centre[i]; }, by_extent,
              1e-13, "centre");
      break;
    case Kernel::transverse:
      w.array(nt, [&](std::int64_t i) { return spread[i]; }, [&](std::int64_t i) { return ref_spread[i]; },
              [&](std::int64_t i) { return std::max(ref_spread[i], 1e-300 + 1e-15 * L); }, 1e-12, "spread");
      break;
    case Kernel::upward_csr:
    case Kernel::upward_binned:
      w.array(3 * nv, [&](std::int64_t i) { return smooth[i]; }, [&](std::int64_t i) { return ref_smooth[i]; }, by_extent,
              1e-13, "smooth");
      break;
    case Kernel::lumped_atomic:
    case Kernel::lumped_scatter_gather: {
      w.array(nv, [&](std::int64_t i) { return lumped[i]; }, [&](std::int64_t i) { return ref_lumped[i]; },
              [&](std::int64_t i) { return std::max(std::fabs(ref_lumped[i]), 1e-300); }, 1e-12, "lumped");
      LD sum = 0;
      for (std::int64_t v = 0; v < nv; ++v) sum += lumped[v];
      w.consider(rel(double(sum), ref_volume_sum), 1e-12,
                 fmt::format("sum of lumped volumes {} (total volume {})", double(sum), double(ref_volume_sum)));
      break;
    }
    case Kernel::reduce: {
      // Sums in double, in an order each variant chooses: the a-priori bound for
      // n positive terms is n u (u = 2^-53), 1.4e-9 at 12.6 M tets; at least 1e-12.
      // (16 host threads summing 786 k equal qualities each reach 1.3e-11.)
      const double sum_tol = std::max(1e-12, double(nt) * 0x1p-53);
      w.consider(rel(red.volume_sum, ref_volume_sum), sum_tol, fmt::format("volume sum {} (expected {})", red.volume_sum, double(ref_volume_sum)));
      w.consider(rel(red.quality_sum, ref_quality_sum), sum_tol, fmt::format("quality sum {} (expected {})", red.quality_sum, double(ref_quality_sum)));
      // min and max select an input value: exact.
      const double tiny = std::numeric_limits<double>::min();
      w.consider(red.volume_min == ref_volume_min ? 0 : 1, tiny, fmt::format("volume min {} (expected {})", red.volume_min, ref_volume_min));
      w.consider(red.volume_max == ref_volume_max ? 0 : 1, tiny, fmt::format("volume max {} (expected {})", red.volume_max, ref_volume_max));
      w.consider(red.quality_max == ref_quality_max ? 0 : 1, tiny, fmt::format("quality max {} (expected {})", red.quality_max, ref_quality_max));
      w.consider(red.quality_min.value == ref_quality_min.value && red.quality_min.index == ref_quality_min.index ? 0 : 1, tiny,
                 fmt::format("quality min {} at tet {} (expected {} at tet {}, the first with that value)", red.quality_min.value,
                             red.quality_min.index, ref_quality_min.value, ref_quality_min.index));
      break;
    }
  }
  Check c = w.done();
  if (!c.valid) c.detail = fmt::format("{}: {}", kernel_name(last), c.detail);
  return c;
}

nlohmann::json MeshInstance::observables(const std::string& /*kernel: mesh still reads `last`*/) const {
  auto number = [](double x) -> nlohmann::json { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
  nlohmann::json reference = {
      {"total_volume", double(ref_volume_sum)},
      {"quality_min", ref_quality_min.value},
      {"quality_argmin_original", tet_origin[ref_quality_min.index]},
      {"quality_max", ref_quality_max},
      {"quality_sum", double(ref_quality_sum)},
      {"lumped_moment", double(ref_lumped_moment)},
  };
  nlohmann::json computed = nlohmann::json::object();
  switch (last) {
    case Kernel::reduce:
      computed = {{"total_volume", number(red.volume_sum)},
                  {"volume_min", number(red.volume_min)},
                  {"volume_max", number(red.volume_max)},
                  {"quality_min", number(red.quality_min.value)},
                  {"quality_argmin", red.quality_min.index},
                  {"quality_max", number(red.quality_max)},
                  {"quality_sum", number(red.quality_sum)}};
      break;
    case Kernel::lumped_atomic:
    case Kernel::lumped_scatter_gather: {
      LD sum = 0, moment = 0;
      for (std::int64_t v = 0; v < nv; ++v) {
        LD r2 = 0;
        for (int k = 0; k < 3; ++k) r2 += LD(crd[3 * v + k]) * crd[3 * v + k];
        sum += lumped[v];
        moment += LD(lumped[v]) * r2;
      }
      computed = {{"lumped_sum", number(double(sum))}, {"lumped_moment", number(double(moment))}};
      break;
    }
    case Kernel::downward: {
      LD sum = 0;
      for (std::int64_t t = 0; t < nt; ++t) sum += out_volume[t];
      computed = {{"total_volume", number(double(sum))}};
      break;
    }
    default: break;
  }
  return {{"kernel", kernel_name(last)}, {"vertices", nv},  {"tetrahedra", nt},
          {"triangles", ntri},          {"reference", reference}, {"computed", computed}};
}

// ---------------------------------------------------------------- making an instance

double host_bytes_for(double nv, double nt) { return 240 * nt + 200 * nv; }
double device_bytes_for(double nv, double nt) { return 72 * nt + 80 * nv; }

namespace {

void check_sizes(double nv, double nt, const std::string& what, const MemoryLimits& limits) {
  // Corners (4 t + k) and vertex numbers are int32.
  if (4 * nt >= 2147483647.0 || nv >= 2147483647.0)
    throw UsageError(fmt::format("{}: {:.0f} tetrahedra and {:.0f} vertices exceed the 32-bit indices of this workload", what, nt, nv));
  limits.check_host(host_bytes_for(nv, nt), what);
  limits.check_device(device_bytes_for(nv, nt), what);
}

}  // namespace

std::unique_ptr<MeshInstance> make_instance(const MeshOptions& options, const std::string& size, const MemoryLimits& limits) {
  const Renumber renumber = renumber_from_name(options.renumber);
  if (!options.file.empty()) {
    if (options.cube > 0) throw UsageError("--mesh and --cube: give one of them");
    if (options.jitter != 0) throw UsageError("--jitter applies to --cube, not to --mesh");
    meshb::MeshData data = meshb::read_file(options.file, limits.host_bytes);
    RawMesh raw = from_meshb(data, options.file);
    data = meshb::MeshData{};
    check_sizes(double(raw.crd.size() / 3), double(raw.tet.size() / 4), fmt::format("mesh {}", options.file), limits);
    return std::make_unique<MeshInstance>(std::move(raw), renumber, "file");
  }
  const int n = options.cube > 0 ? options.cube : cube_for_size(size);
  if (!(options.jitter >= 0 && options.jitter <= 0.15))
    throw UsageError(fmt::format("--jitter: {} is outside [0, 0.15]", options.jitter));
  const double m = double(n) + 1;
  check_sizes(m * m * m, 6.0 * n * n * n, fmt::format("mesh cube {} ({:.0f} tetrahedra)", n, 6.0 * n * n * n), limits);
  return std::make_unique<MeshInstance>(make_cube(n, options.jitter), renumber,
                                        options.cube > 0 ? "custom" : size);
}

namespace {

class MeshWorkload final : public Workload {
 public:
  std::string name() const override { return "mesh"; }
  int order() const override { return 3; }
  std::vector<std::string> sizes() const override { return {"tiny", "small", "medium", "large"}; }
  std::string default_size() const override { return "medium"; }
  void add_options(CLI::App& group) override {
    group.add_option("--cube", options_.cube, "mesh: unit cube of N^3 hexahedra x 6 tetrahedra (overrides --size)")
        ->check(CLI::Range(1, 2048));
    group.add_option("--jitter", options_.jitter, "mesh: move interior cube vertices by up to this fraction of a cell (0 to 0.15)")
        ->check(CLI::Range(0.0, 0.15));
    group.add_option("--mesh", options_.file, "mesh: a libMeshb .mesh or .meshb file with tetrahedra")->group("mesh options");
    group.add_option("--renumber", options_.renumber, "mesh: vertex and element order: none, hilbert, hilbert-degree, random")
        ->check(CLI::IsMember({"none", "hilbert", "hilbert-degree", "random"}));
  }
  std::unique_ptr<Instance> make(const std::string& size, const MemoryLimits& limits) override {
    return make_instance(options_, size, limits);
  }

 private:
  MeshOptions options_;
};

const Registration registration{std::make_unique<MeshWorkload>()};

}  // namespace
}  // namespace ompref::mesh
