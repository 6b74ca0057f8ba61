#pragma once
// One item of each mesh kernel's loop (a vertex, a tet, a bin row, a tet of
// the reduction), written once and called by the host variants
// (src/omp_host/mesh.cpp), their target port (src/omp_target/mesh.cpp) and
// the steps of the tuned form that keep the item as it is
// (src/omp_target/mesh_1_shaped.cpp, mesh_2_narrow.cpp, mesh_tuned.cpp). What
// a variant teaches is around the item: its directives, its launch shape, the
// width of its indices (I: the loop variable's type, std::int64_t or
// std::int32_t; a vertex or tet number read from a table is widened to I
// before it is scaled), its pointers. Declare target: compiled for the device
// too.
#include <cmath>
#include <cstdint>

#include "common/mesh/mesh.hpp"
#include "common/mesh/mesh_element.hpp"

namespace ompref::mesh {

#pragma omp declare target

// Downward: tet t's volume and barycentre from its 4 vertices, read through tet[].
template <class I>
inline void downward_item(const std::int32_t* tet, const double* crd, double* volume, double* centre, I t) {
  const double* a = crd + 3 * I(tet[4 * t + 0]);
  const double* b = crd + 3 * I(tet[4 * t + 1]);
  const double* c = crd + 3 * I(tet[4 * t + 2]);
  const double* d = crd + 3 * I(tet[4 * t + 3]);
  volume[t] = tet_volume(a, b, c, d);
  tet_barycentre(a, b, c, d, centre + 3 * t);
}

// Transverse: the largest distance from tet t's barycentre to its face
// neighbours' (a missing neighbour, -1, is passed over).
template <class I>
inline double transverse_item(const std::int32_t* nbr, const double* centre, I t) {
  double best = 0;
  for (int k = 0; k < 4; ++k) {
    const std::int32_t u = nbr[4 * t + k];
    if (u >= 0) best = std::fmax(best, distance(centre + 3 * t, centre + 3 * I(u)));
  }
  return best;
}

// Upward, CSR: vertex v relaxed towards the mean barycentre of its ball, the
// corners between offset[v] and offset[v + 1].
template <class I>
inline void ball_csr_item(const std::int32_t* offset, const std::int32_t* corner, const double* centre,
                          const double* crd, double* smooth, double omega, I v) {
  double s[3] = {0, 0, 0};
  for (std::int32_t i = offset[v]; i < offset[v + 1]; ++i) {
    const I t = corner[i] >> 2;
    for (int k = 0; k < 3; ++k) s[k] += centre[3 * t + k];
  }
  const int degree = offset[v + 1] - offset[v];
  for (int k = 0; k < 3; ++k) smooth[3 * v + k] = relax(crd[3 * v + k], s[k], degree, omega);
}

// Upward, degree-binned (GMlib): row r finds its bin among the nb, then reads
// column j of the bin's matrix at j * rows + row, and relaxes its vertex.
template <class I>
inline void ball_binned_item(int nb, const std::int32_t* first, const std::int32_t* count,
                             const std::int64_t* offset, const std::int32_t* vertex, const std::int32_t* degree,
                             const std::int32_t* corner, const double* centre, const double* crd, double* smooth,
                             double omega, I r) {
  int b = 0;
  while (b + 1 < nb && r >= first[b + 1]) ++b;
  const std::int64_t stride = count[b];
  const std::int32_t* column = corner + offset[b] + (r - first[b]);
  const std::int32_t deg = degree[r];
  double s[3] = {0, 0, 0};
  for (std::int32_t j = 0; j < deg; ++j) {
    const I t = column[j * stride] >> 2;
    for (int k = 0; k < 3; ++k) s[k] += centre[3 * t + k];
  }
  const I v = vertex[r];
  for (int k = 0; k < 3; ++k) smooth[3 * v + k] = relax(crd[3 * v + k], s[k], deg, omega);
}

// Indirect writes: a quarter of the volume of the tet whose 4 vertex numbers are e.
template <class I>
inline double quarter_volume_of(const double* crd, const std::int32_t* e) {
  return 0.25 * tet_volume(crd + 3 * I(e[0]), crd + 3 * I(e[1]), crd + 3 * I(e[2]), crd + 3 * I(e[3]));
}

// Scatter/gather: tet t's quarter volume written to its own 4 corner temporaries.
template <class I>
inline void scatter_item(const std::int32_t* tet, const double* crd, double* tmp, I t) {
  const double quarter = quarter_volume_of<I>(crd, tet + 4 * t);
  for (int k = 0; k < 4; ++k) tmp[4 * t + k] = quarter;
}

// Scatter/gather: the sum of vertex v's corner temporaries.
template <class I>
inline double gather_item(const std::int32_t* offset, const std::int32_t* corner, const double* tmp, I v) {
  double s = 0;
  for (std::int32_t i = offset[v]; i < offset[v + 1]; ++i) s += tmp[corner[i]];
  return s;
}

// Reductions: tet t's volume v and quality q folded into the running values.
template <class I>
inline void reduce_item(double v, double q, I t, double& vsum, double& vmin, double& vmax, double& qsum,
                        double& qmax, MinLoc& qmin) {
  vsum += v;
  vmin = std::fmin(vmin, v);
  vmax = std::fmax(vmax, v);
  qsum += q;
  qmax = std::fmax(qmax, q);
  qmin = minloc_better(qmin, MinLoc{q, t});
}

// The two-level reduction: block b's partial stored as combine_blocks reads it.
inline void store_partial(double* part, std::int64_t* part_index, int b, const Reductions& r) {
  part[6 * b + 0] = r.volume_sum;
  part[6 * b + 1] = r.volume_min;
  part[6 * b + 2] = r.volume_max;
  part[6 * b + 3] = r.quality_sum;
  part[6 * b + 4] = r.quality_max;
  part[6 * b + 5] = r.quality_min.value;
  part_index[b] = r.quality_min.index;
}

#pragma omp end declare target

}  // namespace ompref::mesh
