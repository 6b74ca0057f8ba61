#pragma once
// Per-element arithmetic of the mesh workload, written once and called by the
// host variants, the target variants (compiled for the device: declare target)
// and the native CUDA twins (src/native_cuda/mesh.cu: OMPREF_HOST_DEVICE), and
// nothing else: the long-double host reference in mesh_reference.cpp is a
// separate, independent implementation.
//
// Points are 3 doubles (the vertex coordinates are stored x,y,z per vertex).
#include <cmath>
#include <cstdint>
#include <limits>

#include "common/host_device.hpp"

namespace ompref::mesh {

// (min quality, its element): the value of the user-defined reduction. Ties go
// to the smaller index, so the result does not depend on the reduction order.
struct MinLoc {
  double value;
  std::int64_t index;
};

#pragma omp declare target

// Signed volume, positive when (b - a, c - a, d - a) is right-handed.
OMPREF_HOST_DEVICE inline double tet_volume(const double* a, const double* b, const double* c, const double* d) {
  const double ux = b[0] - a[0], uy = b[1] - a[1], uz = b[2] - a[2];
  const double vx = c[0] - a[0], vy = c[1] - a[1], vz = c[2] - a[2];
  const double wx = d[0] - a[0], wy = d[1] - a[1], wz = d[2] - a[2];
  return (ux * (vy * wz - vz * wy) - uy * (vx * wz - vz * wx) + uz * (vx * wy - vy * wx)) / 6.0;
}

OMPREF_HOST_DEVICE inline void tet_barycentre(const double* a, const double* b, const double* c, const double* d,
                                               double* g) {
  for (int k = 0; k < 3; ++k) g[k] = 0.25 * (a[k] + b[k] + c[k] + d[k]);
}

OMPREF_HOST_DEVICE inline double distance(const double* p, const double* q) {
  const double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
  return std::sqrt(dx * dx + dy * dy + dz * dz);
}

OMPREF_HOST_DEVICE inline double triangle_area(const double* a, const double* b, const double* c) {
  const double ux = b[0] - a[0], uy = b[1] - a[1], uz = b[2] - a[2];
  const double vx = c[0] - a[0], vy = c[1] - a[1], vz = c[2] - a[2];
  const double nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
  return 0.5 * std::sqrt(nx * nx + ny * ny + nz * nz);
}

// Shape quality in (0, 1], 1 for the regular tetrahedron:
//   q = 6 sqrt(6) V / (sum of the 4 face areas x longest edge) = 2 sqrt(6) r_in / h_max
// (the inradius r_in = 3V / sum of areas). Negative for an inverted element.
OMPREF_HOST_DEVICE inline double tet_quality(const double* a, const double* b, const double* c, const double* d) {
  const double volume = tet_volume(a, b, c, d);
  const double areas = triangle_area(b, c, d) + triangle_area(a, d, c) + triangle_area(a, b, d) + triangle_area(a, c, b);
  double longest = distance(a, b);
  longest = std::fmax(longest, distance(a, c));
  longest = std::fmax(longest, distance(a, d));
  longest = std::fmax(longest, distance(b, c));
  longest = std::fmax(longest, distance(b, d));
  longest = std::fmax(longest, distance(c, d));
  const double six_sqrt6 = 14.696938456699067;  // 6 sqrt(6)
  return areas > 0 && longest > 0 ? six_sqrt6 * volume / (areas * longest) : 0.0;
}

// Upward smoothing: a vertex x moved towards the mean `sum / degree` of its
// ball's centres by the relaxation omega; a vertex with an empty ball stays.
OMPREF_HOST_DEVICE inline double relax(double x, double sum, int degree, double omega) {
  return degree > 0 ? x + omega * (sum / degree - x) : x;
}

OMPREF_HOST_DEVICE inline MinLoc minloc_better(MinLoc a, MinLoc b) {
  return (a.value < b.value || (a.value == b.value && a.index < b.index)) ? a : b;
}

#pragma omp end declare target

// (min, argmin) as an OpenMP user-defined reduction, for host and target loops.
#pragma omp declare reduction(minloc : MinLoc : omp_out = minloc_better(omp_out, omp_in)) \
    initializer(omp_priv = MinLoc{std::numeric_limits<double>::infinity(), std::numeric_limits<std::int64_t>::max()})

}  // namespace ompref::mesh
