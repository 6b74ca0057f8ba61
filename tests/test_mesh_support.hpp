#pragma once
// Helpers of the mesh suites (test_mesh_*.cpp): instances of the generated
// cube, the kernels as the registry lists them, their outputs, and bytes for
// the libMeshb reader. Nothing here names a kernel: a kernel added to the
// pair is tested by every suite without a list to edit.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/mesh/mesh.hpp"
#include "common/io/meshb.hpp"
#include "test_support.hpp"

namespace ompref::mesh::testing {

using ompref::testing::test_limits;

// A cube of n^3 cells; `renumber` by its --renumber name.
inline std::unique_ptr<MeshInstance> cube(int n, const std::string& renumber = "none", double jitter = 0) {
  MeshOptions o;
  o.cube = n;
  o.jitter = jitter;
  const auto entry = std::find_if(renumber_names.begin(), renumber_names.end(),
                                  [&](const auto& e) { return e.first == renumber; });
  EXPECT_NE(entry, renumber_names.end()) << renumber;
  if (entry != renumber_names.end()) o.renumber = entry->second;
  return make_instance(o, "custom", test_limits());
}

// The pairs' names without host_/target_ (direct, downward, ..., reduce_blocks),
// as registered.
inline std::vector<std::string> pair_names() {
  std::vector<std::string> names;
  for (const Variant* v : registry().variants("mesh"))
    if (v->kind == Kind::host) names.push_back(v->name.substr(std::string("host_").size()));
  return names;
}

// The kernel tag of a variant (its outputs, model and validation).
inline std::string tag_of(const std::string& variant) {
  const Variant* v = registry().variant("mesh", variant);
  EXPECT_NE(v, nullptr) << variant;
  return v ? v->kernel : "";
}

// Every output of every kernel (the arrays the kernel table declares, then the
// reductions), copied: a kernel's are those that differ from what reset()
// leaves (NaN, or crd for pos).
inline std::vector<double> all_outputs(const MeshInstance& m) {
  std::vector<double> out;
  for (const std::string& name : m.output_names()) {
    const auto& a = m.output(name);
    out.insert(out.end(), a.begin(), a.end());
  }
  const Reductions& r = m.red;
  out.insert(out.end(), {r.volume_sum, r.volume_min, r.volume_max, r.quality_sum, r.quality_max, r.quality_min.value,
                         double(r.quality_min.index)});
  return out;
}

// A few elements of every kernel's outputs, to corrupt: of each declared
// output array its element 5 (or its first) and its last, and the reductions.
inline std::vector<double*> output_probes(MeshInstance& m) {
  std::vector<double*> probes;
  for (const std::string& name : m.output_names()) {
    auto& a = m.output(name);
    if (a.empty()) continue;
    probes.push_back(&a[std::min<std::size_t>(5, a.size() - 1)]);
    probes.push_back(&a.back());
  }
  for (double* p : {&m.red.volume_sum, &m.red.volume_min, &m.red.quality_max, &m.red.quality_min.value})
    probes.push_back(p);
  return probes;
}

// The same value, NaN included.
inline bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// The boundary triangles' neighbours through their edges (-1: an open edge):
// the other triangle in the triangle ball of the edge's smaller vertex that
// holds the larger one.
inline std::vector<std::int32_t> triangle_neighbours(const MeshInstance& m) {
  std::vector<std::int32_t> offset(m.nv + 1, 0), ball(m.tri.size());
  for (std::int32_t v : m.tri) ++offset[v + 1];
  for (std::int64_t v = 0; v < m.nv; ++v) offset[v + 1] += offset[v];
  std::vector<std::int32_t> fill(offset.begin(), offset.end() - 1);
  for (std::size_t c = 0; c < m.tri.size(); ++c) ball[fill[m.tri[c]]++] = std::int32_t(c);
  std::vector<std::int32_t> nbr(3 * m.ntri, -1);
  for (std::int64_t t = 0; t < m.ntri; ++t)
    for (int k = 0; k < 3; ++k) {
      const std::int32_t a = m.tri[3 * t + (k + 1) % 3], b = m.tri[3 * t + (k + 2) % 3];
      const std::int32_t lo = std::min(a, b), hi = std::max(a, b);
      for (std::int32_t i = offset[lo]; i < offset[lo + 1]; ++i) {
        const std::int64_t u = ball[i] / 3;
        if (u == t) continue;
        if (m.tri[3 * u] == hi || m.tri[3 * u + 1] == hi || m.tri[3 * u + 2] == hi) {
          nbr[3 * t + k] = std::int32_t(u);
          break;
        }
      }
    }
  return nbr;
}

// ---------------------------------------------------------------- libMeshb bytes

// A small mesh with every kind of block the reader knows.
inline meshb::MeshData sample_mesh() {
  auto m = cube(2, "hilbert", 0.1);
  meshb::MeshData d;
  d.dimension = 3;
  d.xyz.assign(m->crd.begin(), m->crd.end());
  d.vrefs.resize(m->nv);
  for (std::int64_t v = 0; v < m->nv; ++v) d.vrefs[v] = int(v % 5) - 2;
  d.block(meshb::kTetrahedra).nodes.assign(m->tet.begin(), m->tet.end());
  d.block(meshb::kTetrahedra).refs.assign(m->nt, 7);
  d.block(meshb::kTriangles).nodes.assign(m->tri.begin(), m->tri.end());
  d.block(meshb::kTriangles).refs.assign(m->ntri, 3);
  d.block(meshb::kEdges).nodes = {0, 1, 2, 3};
  d.block(meshb::kEdges).refs = {1, 2};
  d.block(meshb::kHexahedra).nodes = {0, 1, 2, 3, 4, 5, 6, 7};
  d.block(meshb::kHexahedra).refs = {9};
  return d;
}

inline meshb::MeshData parse(const std::string& bytes, double max_bytes = 0) {
  return meshb::parse(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), "test.meshb", max_bytes);
}

inline std::string i32s(std::initializer_list<std::int32_t> values) {
  std::string s;
  for (std::int32_t v : values) s.append(reinterpret_cast<const char*>(&v), 4);
  return s;
}

}  // namespace ompref::mesh::testing
