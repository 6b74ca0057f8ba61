// mesh: the host reference. An implementation of the arithmetic independent
// of common/mesh/mesh_element.hpp (long double, rounded once), for validation: the
// kernels' inputs (volume, quality, centre per tet, the direct kernel's
// velocities) and what each kernel must produce.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "common/mesh/mesh.hpp"

namespace ompref::mesh {
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

// Volume, quality and centre per tet (the kernels' inputs); the volumes in
// long double for the lumped reference.
std::vector<LD> reference_tets(MeshInstance& m) {
  const std::int64_t nt = m.nt;
  m.volume.resize(nt);
  m.quality.resize(nt);
  m.centre.resize(3 * nt);
  std::vector<LD> vol_ld(nt);
#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < nt; ++t) {
    const double* p[4];
    for (int q = 0; q < 4; ++q) p[q] = &m.crd[3 * std::int64_t(m.tet[4 * t + q])];
    const LD v = ld_volume(p[0], p[1], p[2], p[3]);
    vol_ld[t] = v;
    m.volume[t] = double(v);
    for (int k = 0; k < 3; ++k) m.centre[3 * t + k] = double((LD(p[0][k]) + p[1][k] + p[2][k] + p[3][k]) / 4);
    LD areas = 0, longest = 0;
    for (int k = 0; k < 4; ++k) areas += ld_area(p[(k + 1) % 4], p[(k + 2) % 4], p[(k + 3) % 4]);
    for (int i = 0; i < 4; ++i)
      for (int j = i + 1; j < 4; ++j) longest = std::max(longest, ld_distance(p[i], p[j]));
    m.quality[t] = areas > 0 && longest > 0 ? double(6 * std::sqrt(LD(6)) * v / (areas * longest)) : 0.0;
  }
  return vol_ld;
}

// Transverse: the largest distance from a tet's centre to its neighbours'.
void reference_spread(MeshInstance& m) {
  const std::int64_t nt = m.nt;
  m.ref_spread.resize(nt);
#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < nt; ++t) {
    LD best = 0;
    for (int k = 0; k < 4; ++k) {
      const std::int32_t u = m.tet_nbr[4 * t + k];
      if (u >= 0) best = std::max(best, ld_distance(&m.centre[3 * t], &m.centre[3 * std::int64_t(u)]));
    }
    m.ref_spread[t] = double(best);
  }
}

// Upward: each vertex moved towards the mean centre of its ball; lumped volume.
void reference_balls(MeshInstance& m, const std::vector<LD>& vol_ld) {
  const std::int64_t nv = m.nv;
  m.ref_smooth.resize(3 * nv);
  m.ref_lumped.resize(nv);
#pragma omp parallel for schedule(static)
  for (std::int64_t v = 0; v < nv; ++v) {
    LD mean[3] = {0, 0, 0}, lump = 0;
    const std::int32_t deg = m.ball_offset[v + 1] - m.ball_offset[v];
    for (std::int32_t i = m.ball_offset[v]; i < m.ball_offset[v + 1]; ++i) {
      const std::int64_t t = m.ball_corner[i] >> 2;
      for (int k = 0; k < 3; ++k) mean[k] += m.centre[3 * t + k];
      lump += vol_ld[t] / 4;
    }
    for (int k = 0; k < 3; ++k) {
      const LD x = m.crd[3 * v + k];
      m.ref_smooth[3 * v + k] = deg > 0 ? double(x + LD(smoothing_omega) * (mean[k] / deg - x)) : double(x);
    }
    m.ref_lumped[v] = double(lump);
  }
}

// Reductions over the double inputs the kernels read, and the lumped volumes' moment.
void reference_reductions(MeshInstance& m) {
  m.ref_volume_sum = 0;
  m.ref_quality_sum = 0;
  m.ref_volume_min = m.ref_volume_max = m.volume[0];
  m.ref_quality_max = m.quality[0];
  m.ref_quality_min = MinLoc{m.quality[0], 0};
  for (std::int64_t t = 0; t < m.nt; ++t) {
    m.ref_volume_sum += m.volume[t];
    m.ref_quality_sum += m.quality[t];
    m.ref_volume_min = std::min(m.ref_volume_min, m.volume[t]);
    m.ref_volume_max = std::max(m.ref_volume_max, m.volume[t]);
    m.ref_quality_max = std::max(m.ref_quality_max, m.quality[t]);
    if (m.quality[t] < m.ref_quality_min.value) m.ref_quality_min = MinLoc{m.quality[t], t};
  }
  m.ref_lumped_moment = 0;
  for (std::int64_t v = 0; v < m.nv; ++v) {
    LD r2 = 0;
    for (int k = 0; k < 3; ++k) r2 += LD(m.crd[3 * v + k]) * m.crd[3 * v + k];
    m.ref_lumped_moment += LD(m.ref_lumped[v]) * r2;
  }
}

}  // namespace

void MeshInstance::compute_reference() {
  const std::vector<LD> vol_ld = reference_tets(*this);
  reference_spread(*this);
  reference_balls(*this, vol_ld);
  reference_reductions(*this);
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
