// mesh: the host reference of the kernels' inputs. An implementation of the
// arithmetic independent of common/mesh/mesh_element.hpp (long double, rounded
// once), for validation: the volume, quality and centre per tet that some
// kernels read (and downward must produce), the direct kernel's velocities and
// the mesh's extent. Each kernel's expected outputs are its row's reference
// function, in mesh_checks.cpp.
#include "common/mesh/mesh_reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "common/mesh/mesh.hpp"

namespace ompref::mesh {

LD ld_volume(const double* a, const double* b, const double* c, const double* d) {
  LD u[3], v[3], w[3];
  for (int k = 0; k < 3; ++k) {
    u[k] = LD(b[k]) - a[k];
    v[k] = LD(c[k]) - a[k];
    w[k] = LD(d[k]) - a[k];
  }
  // Triple product u . (v x w).
  return (u[0] * (v[1] * w[2] - v[2] * w[1]) + u[1] * (v[2] * w[0] - v[0] * w[2]) +
          u[2] * (v[0] * w[1] - v[1] * w[0])) /
         6;
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

namespace {

// Volume, quality and centre per tet (the kernels' inputs).
void reference_tets(MeshInstance& m) {
  const std::int64_t nt = m.nt;
  m.volume.resize(nt);
  m.quality.resize(nt);
  m.centre.resize(3 * nt);
#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < nt; ++t) {
    const double* p[4];
    for (int q = 0; q < 4; ++q) p[q] = &m.crd[3 * std::int64_t(m.tet[4 * t + q])];
    const LD v = ld_volume(p[0], p[1], p[2], p[3]);
    m.volume[t] = double(v);
    for (int k = 0; k < 3; ++k) m.centre[3 * t + k] = double((LD(p[0][k]) + p[1][k] + p[2][k] + p[3][k]) / 4);
    LD areas = 0, longest = 0;
    for (int k = 0; k < 4; ++k) areas += ld_area(p[(k + 1) % 4], p[(k + 2) % 4], p[(k + 3) % 4]);
    for (int i = 0; i < 4; ++i)
      for (int j = i + 1; j < 4; ++j) longest = std::max(longest, ld_distance(p[i], p[j]));
    m.quality[t] = areas > 0 && longest > 0 ? double(6 * std::sqrt(LD(6)) * v / (areas * longest)) : 0.0;
  }
}

}  // namespace

void MeshInstance::compute_inputs() {
  reference_tets(*this);
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

}  // namespace ompref::mesh
