// mesh: where a mesh comes from. The generated unit cube (Kuhn's split of each
// hexahedron into 6 tetrahedra) and the libMeshb data read by common/io/meshb.hpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

#include <fmt/format.h>

#include "common/mesh/mesh.hpp"
#include "common/mesh/mesh_element.hpp"
#include "common/usage_error.hpp"

namespace ompref::mesh {
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

// f(i, j, k) for every point of the count x count x count grid, in parallel.
template <class F>
void for_each_grid_point(std::int64_t count, F f) {
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < count; ++k)
    for (std::int64_t j = 0; j < count; ++j)
      for (std::int64_t i = 0; i < count; ++i) f(i, j, k);
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
  for_each_grid_point(m, [&](std::int64_t i, std::int64_t j, std::int64_t k) {
    const std::int64_t v = i + m * (j + m * k);
    double p[3] = {double(i) * h, double(j) * h, double(k) * h};
    if (i == n) p[0] = 1;
    if (j == n) p[1] = 1;
    if (k == n) p[2] = 1;
    const bool interior = i > 0 && j > 0 && k > 0 && i < n && j < n && k < n;
    if (jitter > 0 && interior)
      for (int d = 0; d < 3; ++d) p[d] += jitter * h * unit_noise(std::uint64_t(v), std::uint64_t(d));
    for (int d = 0; d < 3; ++d) raw.crd[3 * v + d] = p[d];
  });
  // Kuhn's split: tet p follows the path (0,0,0) -> +e_p0 -> +e_p1 -> (1,1,1).
  // det(e_p0, e_p1, e_p2) = sign(p): odd permutations swap their middle vertices.
  static const int perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
  const std::int64_t nt = 6 * std::int64_t(n) * n * n;
  raw.tet.resize(4 * nt);
  for_each_grid_point(n, [&](std::int64_t i, std::int64_t j, std::int64_t k) {
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
  });
  return raw;
}

namespace {

// The scale of a file's coordinates, checked before any kernel runs:
// triangle areas square a cross product (edge length to the 4th power), so
// edges must lie within [1e-50, 1e50] for every intermediate to stay a
// normal double; and a coordinate difference loses log10(|x|max / edge)
// digits, so the largest coordinate may be at most 1e5 times the shortest
// edge (its differences keep 11 of 16 digits). Inverted tetrahedra (negative
// volume) are kept, with one warning: the kernels use signed volumes. So are
// flat ones (|volume| at most 1e-12 of the cube of their longest edge, or all
// four vertices at one point), with one warning: their quality is 0, which
// the quality minimum and its element then report.
void check_coordinates(const RawMesh& raw, const std::string& name) {
  double coord_max = 0;
  for (double x : raw.crd) coord_max = std::max(coord_max, std::fabs(x));
  double edge_min = std::numeric_limits<double>::infinity(), edge_max = 0;
  std::int64_t inverted = 0, flat = 0;
  const std::int64_t nt = std::int64_t(raw.tet.size() / 4);
  static const int edges[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  for (std::int64_t t = 0; t < nt; ++t) {
    const double* p[4];
    for (int k = 0; k < 4; ++k) p[k] = &raw.crd[3 * std::size_t(raw.tet[4 * t + k])];
    double longest = 0;
    for (const auto& e : edges) {
      double l = 0;
      for (int d = 0; d < 3; ++d) l = std::max(l, std::fabs(p[e[1]][d] - p[e[0]][d]));
      if (l > 0) edge_min = std::min(edge_min, l);
      longest = std::max(longest, l);
    }
    edge_max = std::max(edge_max, longest);
    const double volume = tet_volume(p[0], p[1], p[2], p[3]);
    const bool is_flat = !(std::fabs(volume) > 1e-12 * longest * longest * longest);
    flat += is_flat;
    inverted += !is_flat && volume < 0;
  }
  if (!(edge_max <= 1e50) || !(edge_min >= 1e-50))
    throw UsageError(fmt::format("mesh file {}: edges from {:.3g} to {:.3g} (accepted: within [1e-50, 1e50], where the "
                                 "kernels' areas and volumes stay normal doubles; rescale the coordinates)",
                                 name, edge_min, edge_max));
  if (coord_max > 1e5 * edge_min)
    throw UsageError(fmt::format("mesh file {}: coordinates up to {:.3g} with edges down to {:.3g} (accepted: at most "
                                 "1e5 times the shortest edge, so that coordinate differences keep 11 of their 16 digits; translate "
                                 "the mesh towards the origin)",
                                 name, coord_max, edge_min));
  if (inverted > 0)
    fmt::print(stderr, "ompref: warning: mesh file {}: {} of {} tetrahedra are inverted (negative volume); they are "
               "kept and their volumes count negative\n", name, inverted, nt);
  if (flat > 0)
    fmt::print(stderr, "ompref: warning: mesh file {}: {} of {} tetrahedra are flat (zero volume); they are kept "
               "with quality 0\n", name, flat, nt);
}

}  // namespace

RawMesh from_meshb(const meshb::MeshData& data, const std::string& name) {
  const meshb::ElementBlock& tets = data.block(meshb::kTetrahedra);
  if (data.dimension != 3)
    throw UsageError(fmt::format("mesh file {}: Dimension: {} (the mesh workload needs 3)", name, data.dimension));
  if (tets.count() == 0)
    throw UsageError(fmt::format("mesh file {}: Tetrahedra: none (the mesh workload needs tetrahedra)", name));
  RawMesh raw;
  raw.source = name;
  raw.crd.assign(data.xyz.begin(), data.xyz.end());
  raw.tet.assign(tets.nodes.begin(), tets.nodes.end());
  const std::vector<std::int32_t>& tri = data.block(meshb::kTriangles).nodes;
  raw.tri.assign(tri.begin(), tri.end());
  check_coordinates(raw, name);
  return raw;
}

meshb::MeshData to_meshb(const RawMesh& raw) {
  meshb::MeshData d;
  d.dimension = 3;
  d.xyz.assign(raw.crd.begin(), raw.crd.end());
  d.vrefs.assign(raw.crd.size() / 3, 0);
  d.block(meshb::kTetrahedra).nodes.assign(raw.tet.begin(), raw.tet.end());
  d.block(meshb::kTetrahedra).refs.assign(raw.tet.size() / 4, 0);
  d.block(meshb::kTriangles).nodes.assign(raw.tri.begin(), raw.tri.end());
  d.block(meshb::kTriangles).refs.assign(raw.tri.size() / 3, 0);
  return d;
}

}  // namespace ompref::mesh
