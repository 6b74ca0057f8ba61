// mesh: the kernels as the instance sees them, one section per kernel tag
// (the tag a variant registers with .for_kernel, printed as the observables'
// "kernel"), then two tables:
//  - the array table: every array of an instance that is not a kernel's
//    output, its size from the mesh's counts and where the instance keeps it;
//  - the kernel table, one row per tag: the arrays it reads, its outputs
//    (name and size: the instance allocates them, reset() poisons them), the
//    device-only scratch of its variants, the bytes and flops of its model,
//    the reference of its outputs, its check and the totals it reports.
// A kernel's device data (kernel_data, what the runner maps for its variants)
// and the memory checked before anything is allocated (device_bytes_for,
// host_bytes_for) are both read from these two tables, so they cannot differ.
// The variants of one kernel (one or two reduction levels) share its row: that
// is what makes them comparable.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/mesh/mesh.hpp"
#include "common/mesh/mesh_data.hpp"
#include "common/mesh/mesh_reference.hpp"
#include "common/validation.hpp"

namespace ompref::mesh {
namespace {

// ---------------------------------------------------------------- checks' helpers

// u = 2^-53, the unit roundoff of double.
constexpr double unit_roundoff = 0x1p-53;
// The least absolute error bound: an exact result (a tet at the origin, a
// vertex that does not move) is held to the smallest normal double, not 0.
constexpr double min_bound = std::numeric_limits<double>::min();

// "name[i] = got (expected want)": where an array's worst element is.
auto where_in(const char* name, const Array<double>& got, const Array<double>& want) {
  return [name, &got, &want](std::int64_t i) {
    return fmt::format("{}[{}] = {} (expected {})", name, i, got[i], want[i]);
  };
}

// An output array against its reference, relative to |want| (at least `floor`).
void relative_array(Validation& v, const char* name, const Array<double>& got, const Array<double>& want,
                    double tolerance, double floor) {
  v.compare_all(
      std::int64_t(got.size()), [&](std::int64_t i) { return got[i]; }, [&](std::int64_t i) { return want[i]; },
      tolerance, where_in(name, got, want), floor);
}

// Coordinates against their reference, both errors and tolerances relative
// to the mesh's extent; bound(i) is coordinate i's absolute error bound,
// which the coordinates' own magnitudes set (a mesh far from the origin
// rounds in units of its coordinates, not of its extent).
template <class Bound>
void coordinate_array(Validation& v, const char* name, const Array<double>& got, const Array<double>& want,
                      double extent, Bound&& bound) {
  v.compare_each(
      std::int64_t(got.size()),
      [&](std::int64_t i) {
        return std::pair{Validation::scaled_error(got[i], want[i], extent), std::max(bound(i), min_bound) / extent};
      },
      where_in(name, got, want));
}

// Sums of many terms in long double, for the references and the checks'
// totals. Added in turn, n terms err by up to (n - 1) u_L of the sum of their
// magnitudes (u_L = 2^-64 for x87's 80-bit long double; Higham, Accuracy and
// Stability of Numerical Algorithms, 2nd ed., 4.2), and equal terms do err
// that way: the 12,582,912 equal volumes of the cube of 128 summed in turn
// give 1 - 9.1e-14, 820 double rounding units off. So: blocks of
// `sum_block` terms, each added in turn, the block sums then added
// pairwise (4.3), in an order that no thread count changes; every term
// passes through at most sum_roundings(n) additions, and the sum errs by at
// most that many u_L of the magnitudes' sum.
using LDLimits = std::numeric_limits<LD>;
constexpr LD ld_unit_roundoff = LDLimits::epsilon() / 2;
constexpr std::int64_t sum_block = 1024;

int sum_roundings(std::int64_t n) {
  const std::int64_t blocks = (n + sum_block - 1) / sum_block;
  int levels = 0;
  while ((std::int64_t(1) << levels) < blocks) ++levels;
  return int(std::max<std::int64_t>(std::min(n, sum_block) - 1, 0)) + levels;
}

template <class Term>
LD ld_sum(std::int64_t n, Term&& term) {
  const std::int64_t blocks = (n + sum_block - 1) / sum_block;
  std::vector<LD> partial(std::size_t(std::max<std::int64_t>(blocks, 1)), 0);
#pragma omp parallel for schedule(static)
  for (std::int64_t b = 0; b < blocks; ++b) {
    LD s = 0;
    for (std::int64_t i = b * sum_block; i < std::min(n, (b + 1) * sum_block); ++i) s += term(i);
    partial[b] = s;
  }
  for (std::int64_t width = 1; width < blocks; width *= 2)
    for (std::int64_t b = 0; b + width < blocks; b += 2 * width) partial[b] += partial[b + width];
  return partial[0];
}

// A double against a long-double reference, relative to `scale` (|want|
// where none is given); +inf when either is not finite.
double rel(double got, LD want, LD scale = 0) {
  if (!(scale > 0)) scale = std::fabs(want) > 0 ? std::fabs(want) : 1.0L;
  const double e = double(std::fabs(LD(got) - want) / scale);
  return std::isfinite(got) && std::isfinite(double(want)) && std::isfinite(e) ? e
                                                                               : std::numeric_limits<double>::infinity();
}

// The product of the three longest edges of tet t: what bounds the rounding
// error of its volume computed in double (check_lumped).
double edge_product(const MeshInstance& m, std::int64_t t) {
  static const int edges[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  double length[6];
  for (int e = 0; e < 6; ++e) {
    const double* p = &m.crd[3 * std::int64_t(m.tet[4 * t + edges[e][0]])];
    const double* q = &m.crd[3 * std::int64_t(m.tet[4 * t + edges[e][1]])];
    length[e] = std::sqrt((q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]) + (q[2] - p[2]) * (q[2] - p[2]));
  }
  std::sort(length, length + 6);
  return length[3] * length[4] * length[5];
}

nlohmann::json number(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

// ---------------------------------------------------------------- direct: x += v dt per vertex

void check_direct(const MeshInstance& m, int repetitions, Validation& v) {
  // Replays x += v dt `repetitions` times on the host, in double.
  // Each coordinate on its own, in parallel: the same additions in the same order.
  Array<double> want(std::size_t(3 * m.nv));
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < 3 * m.nv; ++i) {
    double x = m.crd[i];
    for (int r = 0; r < repetitions; ++r) x = x + m.vel[i] * direct_dt;
    want[i] = x;
  }
  // Each update rounds its product and its sum (u each, of |v dt| and of |x|
  // at most X = |x0| + r |v dt|), or rounds once where a compiler contracts
  // them into an FMA: two such replays differ by at most 2 u (X + |v dt|) per
  // update, and an update passes an earlier error on unchanged; r updates.
  const double reps = repetitions;
  coordinate_array(v, "pos", m.output("pos"), want, m.extent, [&](std::int64_t i) {
    const double step = std::fabs(m.vel[i] * direct_dt);
    return reps * 2 * unit_roundoff * (std::fabs(m.crd[i]) + (reps + 1) * step);
  });
}

// ---------------------------------------------------------------- downward: volume and barycentre per tet

// Its reference is the inputs `volume` and `centre` (mesh_reference.cpp).
void check_downward(const MeshInstance& m, int, Validation& v) {
  // A volume in double errs by at most 8 u P (P: the product of the tet's
  // three longest edges; check_lumped says why), and the long-double
  // reference rounded to double by u |V|: relative to |V|, a bound that a
  // sliver (P >> |V|) needs and a well-shaped tet keeps at a few u.
  const Array<double>& volume = m.output("out_volume");
  v.compare_each(
      m.nt, [&](std::int64_t t) {
        const double want = m.volume[t], bound = 8 * unit_roundoff * edge_product(m, t) + unit_roundoff * std::fabs(want);
        const double scale = std::fabs(want) > 0 ? std::fabs(want) : std::max(bound, min_bound);
        return std::pair{relative_error(volume[t], want, scale), std::max(bound, min_bound) / scale};
      },
      where_in("volume", volume, m.volume));
  // A centre 0.25 (a + b + c + d) in double: three additions, partial sums
  // of at most 2, 3 and 4 X (X: the largest |coordinate| of the tet's
  // vertices, in that direction), err by at most 9 u X, a quarter of it
  // after the exact scaling; the reference's rounding adds u X: 4 u X.
  coordinate_array(v, "centre", m.output("out_centre"), m.centre, m.extent, [&](std::int64_t i) {
    const std::int64_t t = i / 3;
    const int k = int(i % 3);
    double x = 0;
    for (int q = 0; q < 4; ++q) x = std::max(x, std::fabs(m.crd[3 * std::int64_t(m.tet[4 * t + q]) + k]));
    return 4 * unit_roundoff * x;
  });
}

nlohmann::json downward_totals(const MeshInstance& m) {
  const Array<double>& volume = m.output("out_volume");
  return {{"total_volume", number(double(ld_sum(m.nt, [&](std::int64_t t) { return LD(volume[t]); })))}};
}

// ---------------------------------------------------------------- transverse: the largest distance to a neighbour's centre

void reference_spread(MeshInstance& m) {
  Array<double>& spread = m.expected("spread");
  spread.resize(m.nt);
#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < m.nt; ++t) {
    LD best = 0;
    for (int k = 0; k < 4; ++k) {
      const std::int32_t u = m.tet_nbr[4 * t + k];
      if (u >= 0) best = std::max(best, ld_distance(&m.centre[3 * t], &m.centre[3 * std::int64_t(u)]));
    }
    spread[t] = double(best);
  }
}

void check_transverse(const MeshInstance& m, int, Validation& v) {
  relative_array(v, "spread", m.output("spread"), m.expected("spread"), 1e-12, 1e-300 + 1e-15 * m.extent);
}

// ---------------------------------------------------------------- upward: each vertex moved halfway to its ball's mean centre

// The degree (tets in the ball) of vertex i: the terms its per-vertex sums add.
std::int32_t degree(const MeshInstance& m, std::int64_t i) { return m.ball_offset[i + 1] - m.ball_offset[i]; }

// The smoothed positions, and each vertex's tolerance (check_upward says
// why): both depend on the mesh alone, so they are computed once, here, and
// every upward variant is checked against them.
void reference_smooth(MeshInstance& m) {
  Array<double>& smooth = m.expected("smooth");
  Array<double>& tolerance = m.expected("smooth.tolerance");
  smooth.resize(3 * m.nv);
  tolerance.resize(m.nv);
#pragma omp parallel for schedule(static)
  for (std::int64_t v = 0; v < m.nv; ++v) {
    LD mean[3] = {0, 0, 0};
    const std::int32_t deg = m.ball_offset[v + 1] - m.ball_offset[v];
    double x_max = 0;
    for (int k = 0; k < 3; ++k) x_max = std::max(x_max, std::fabs(m.crd[3 * v + k]));
    for (std::int32_t i = m.ball_offset[v]; i < m.ball_offset[v + 1]; ++i) {
      const std::int64_t t = m.ball_corner[i] >> 2;
      for (int k = 0; k < 3; ++k) {
        mean[k] += m.centre[3 * t + k];
        x_max = std::max(x_max, std::fabs(m.centre[3 * t + k]));
      }
    }
    for (int k = 0; k < 3; ++k) {
      const LD x = m.crd[3 * v + k];
      smooth[3 * v + k] = deg > 0 ? double(x + LD(smoothing_omega) * (mean[k] / deg - x)) : double(x);
    }
    tolerance[v] = 1e-13 + (deg + 4) * unit_roundoff * x_max / m.extent;
  }
}

void check_upward(const MeshInstance& m, int, Validation& v) {
  // smooth = x + w (sum of the d centres / d - x), the d centres summed in
  // double in the variant's order: each partial sum rounds by at most
  // u |partial| <= u d X (X: the largest |coordinate| of the vertex and its
  // ball's centres), so the mean is off by at most (d - 1) u X, plus a few
  // rounding units of X for the rest. Against the extent: 1e-13 (what a cube
  // of modest degree needs) plus (d + 4) u X / extent, per vertex
  // (reference_smooth).
  const Array<double>& smooth = m.output("smooth");
  const Array<double>& ref_smooth = m.expected("smooth");
  const Array<double>& tolerance = m.expected("smooth.tolerance");
  v.compare_each(
      3 * m.nv, [&](std::int64_t j) {
        const double got = smooth[j];
        const double e = std::isfinite(got) ? std::fabs(got - ref_smooth[j]) / m.extent
                                            : std::numeric_limits<double>::infinity();
        return std::pair{e, tolerance[j / 3]};
      },
      where_in("smooth", smooth, ref_smooth));
}

// ---------------------------------------------------------------- lumped: each tet adds V/4 to its 4 vertices

// The moment sum lumped(v) |x_v|^2 of lumped volumes (ld_sum).
LD lumped_moment(const MeshInstance& m, const Array<double>& lumped) {
  return ld_sum(m.nv, [&](std::int64_t v) {
    LD r2 = 0;
    for (int k = 0; k < 3; ++k) r2 += LD(m.crd[3 * v + k]) * m.crd[3 * v + k];
    return LD(lumped[v]) * r2;
  });
}

// The lumped volumes, and their moment sum lumped(v) |x_v|^2 (a checksum that
// no renumbering changes, printed by every kernel's observables); and what
// check_lumped's tolerances are made of, which depend on the mesh alone:
// per vertex the magnitude A of its terms and the bound on their volumes'
// rounding, and the sums of both over the vertices (in vertex order).
void reference_lumped(MeshInstance& m) {
  Array<double>& lumped = m.expected("lumped");
  Array<double>& magnitude = m.expected("lumped.magnitude");
  Array<double>& volume_error = m.expected("lumped.volume_error");
  lumped.resize(m.nv);
  magnitude.resize(m.nv);
  volume_error.resize(m.nv);
#pragma omp parallel for schedule(static)
  for (std::int64_t v = 0; v < m.nv; ++v) {
    LD lump = 0;
    double mag = 0, err = 0;
    for (std::int32_t i = m.ball_offset[v]; i < m.ball_offset[v + 1]; ++i) {
      const std::int64_t t = m.ball_corner[i] >> 2;
      const double* p[4];
      for (int q = 0; q < 4; ++q) p[q] = &m.crd[3 * std::int64_t(m.tet[4 * t + q])];
      lump += ld_volume(p[0], p[1], p[2], p[3]) / 4;
      mag += std::fabs(m.volume[t]) / 4;
      err += 8 * unit_roundoff * edge_product(m, t) / 4;
    }
    lumped[v] = double(lump);
    magnitude[v] = mag;
    volume_error[v] = err;
  }
  double sum_abs = 0, sum_volume_error = 0;
  m.ref_lumped_moment = lumped_moment(m, lumped);
  for (std::int64_t v = 0; v < m.nv; ++v) {
    sum_abs += magnitude[v];
    sum_volume_error += volume_error[v];
  }
  m.expected("lumped.sums") = {sum_abs, sum_volume_error};
}

void check_lumped(const MeshInstance& m, int, Validation& v) {
  const Array<double>& lumped = m.output("lumped");
  const Array<double>& ref_lumped = m.expected("lumped");
  const Array<double>& magnitude = m.expected("lumped.magnitude");
  const Array<double>& volume_error = m.expected("lumped.volume_error");
  // lumped(i) = the sum of V_t / 4 over the d tets of i's ball, each V_t
  // computed in double from the coordinates, the d terms added in the
  // variant's order. Two error sources, per vertex:
  // - each volume: det(b - a, c - a, d - a) / 6 in double. The differences
  //   round by u relative, the six triple products of the determinant (the sum
  //   of their magnitudes at most 3 sqrt(3) P, P = the product of the three
  //   edges, at most that of the three longest) round by 2 u and are added by
  //   at most 5 more roundings: |error| <= 8 u 3 sqrt(3) P / 6 < 7 u P, taken
  //   as E_t = 8 u P (thin tets, P >> |V|, are where this matters);
  // - the sum: d terms off by at most (d - 1) u of the sum of their
  //   magnitudes A = sum |V_t| / 4 (Higham, Accuracy and Stability, 4.2), and
  //   the long-double reference's rounding to double, u more.
  // So |got - want| <= sum E_t / 4 + (d + 1) u A; written relative to A
  // (A = |lumped| unless the ball holds inverted tets). A and sum E_t / 4
  // per vertex are reference_lumped's.
  v.compare_each(
      m.nv, [&](std::int64_t i) {
        const double got = lumped[i];
        const double scale = magnitude[i] > 0 ? magnitude[i] : 1e-300;
        const double e = std::isfinite(got) ? std::fabs(got - ref_lumped[i]) / scale
                                            : std::numeric_limits<double>::infinity();
        return std::pair{e, (degree(m, i) + 1) * unit_roundoff + volume_error[i] / scale};
      },
      where_in("lumped", lumped, ref_lumped));
  // Their sum against the total volume, relative to the sum of all
  // magnitudes A (the total |volume|). Its terms: the kernel's additions,
  // (d - 1) u A_i per vertex, so (d_max - 1) u A in all, and its volumes'
  // errors, sum E_t / 4; the reference total adds the volumes each rounded to double
  // (u A); this sum is rounded to double (u), with one u more for the second-
  // order terms: (d_max + 2) u + sum E_t / 4 / A. And both totals are long-
  // double sums (ld_sum) of nt volumes and of nv lumped volumes, each off by
  // at most sum_roundings(n) u_L A: 5.6e-17 at 10^8 terms, where the total
  // volume summed in turn was off by 9.1e-14 at the cube of 128 (12.6 M tets).
  const double sum_abs = m.expected("lumped.sums")[0], sum_volume_error = m.expected("lumped.sums")[1];
  std::int32_t d_max = 0;
#pragma omp parallel for schedule(static) reduction(max : d_max)
  for (std::int64_t i = 0; i < m.nv; ++i) d_max = std::max(d_max, degree(m, i));
  const LD sum = ld_sum(m.nv, [&](std::int64_t i) { return LD(lumped[i]); });
  const double total_scale = sum_abs > 0 ? sum_abs : 1e-300;
  const double sum_error = std::isfinite(double(sum))
                               ? double(std::fabs(LD(double(sum)) - m.ref_volume_sum) / total_scale)
                               : std::numeric_limits<double>::infinity();
  const double long_double_sums = double((sum_roundings(m.nt) + sum_roundings(m.nv)) * ld_unit_roundoff);
  v.note(sum_error, (d_max + 2) * unit_roundoff + sum_volume_error / total_scale + long_double_sums, [&] {
    return fmt::format("sum of lumped volumes {} (total volume {})", double(sum), double(m.ref_volume_sum));
  });
}

nlohmann::json lumped_totals(const MeshInstance& m) {
  const Array<double>& lumped = m.output("lumped");
  const LD sum = ld_sum(m.nv, [&](std::int64_t v) { return LD(lumped[v]); });
  return {{"lumped_sum", number(double(sum))}, {"lumped_moment", number(double(lumped_moment(m, lumped)))}};
}

// ---------------------------------------------------------------- reduce: sums, min, max and (min quality, its tet)

// Over the double inputs the kernels read.
void reference_reductions(MeshInstance& m) {
  // The sums in blocks, then pairwise (ld_sum): added in turn, their own
  // rounding reached 9.1e-14 of the total volume at 12.6 M tets.
  m.ref_volume_sum = ld_sum(m.nt, [&](std::int64_t t) { return LD(m.volume[t]); });
  m.ref_quality_sum = ld_sum(m.nt, [&](std::int64_t t) { return LD(m.quality[t]); });
  // Min, max and the first tet of the least quality per thread, then
  // combined: exact, whatever the order.
  m.ref_volume_min = m.ref_volume_max = m.volume[0];
  m.ref_quality_max = m.quality[0];
  m.ref_quality_min = MinLoc{m.quality[0], 0};
#pragma omp parallel
  {
    double volume_min = m.volume[0], volume_max = m.volume[0], quality_max = m.quality[0];
    MinLoc quality_min{m.quality[0], 0};
#pragma omp for schedule(static) nowait
    for (std::int64_t t = 0; t < m.nt; ++t) {
      volume_min = std::min(volume_min, m.volume[t]);
      volume_max = std::max(volume_max, m.volume[t]);
      quality_max = std::max(quality_max, m.quality[t]);
      if (m.quality[t] < quality_min.value) quality_min = MinLoc{m.quality[t], t};
    }
#pragma omp critical
    {
      m.ref_volume_min = std::min(m.ref_volume_min, volume_min);
      m.ref_volume_max = std::max(m.ref_volume_max, volume_max);
      m.ref_quality_max = std::max(m.ref_quality_max, quality_max);
      m.ref_quality_min = minloc_better(m.ref_quality_min, quality_min);
    }
  }
}

void check_reduce(const MeshInstance& m, int, Validation& v) {
  const Reductions& red = m.red;
  // Sums in double, in an order each variant chooses: n terms, each passing
  // through at most n - 1 additions, err by at most (n - 1) u of the sum of
  // their magnitudes (Higham, 4.2), whatever the order; relative to that
  // sum (not to the sum itself, which inverted tets can bring near 0).
  const double sum_tol = double(m.nt + 1) * unit_roundoff;
  const LD volume_abs = ld_sum(m.nt, [&](std::int64_t t) { return std::fabs(LD(m.volume[t])); });
  const LD quality_abs = ld_sum(m.nt, [&](std::int64_t t) { return std::fabs(LD(m.quality[t])); });
  v.note(rel(red.volume_sum, m.ref_volume_sum, volume_abs), sum_tol,
         [&] { return fmt::format("volume sum {} (expected {})", red.volume_sum, double(m.ref_volume_sum)); });
  v.note(rel(red.quality_sum, m.ref_quality_sum, quality_abs), sum_tol,
         [&] { return fmt::format("quality sum {} (expected {})", red.quality_sum, double(m.ref_quality_sum)); });
  // min and max select an input value: exact.
  const double tiny = std::numeric_limits<double>::min();
  auto exact = [&](const char* what, double got, double want) {
    v.note(got == want && std::isfinite(got) ? 0 : 1, tiny,
           [&] { return fmt::format("{} {} (expected {})", what, got, want); });
  };
  exact("volume min", red.volume_min, m.ref_volume_min);
  exact("volume max", red.volume_max, m.ref_volume_max);
  exact("quality max", red.quality_max, m.ref_quality_max);
  const MinLoc got = red.quality_min, want = m.ref_quality_min;
  v.note(got.value == want.value && got.index == want.index ? 0 : 1, tiny, [&] {
    return fmt::format("quality min {} at tet {} (expected {} at tet {}, the first with that value)", got.value,
                       got.index, want.value, want.index);
  });
}

nlohmann::json reduce_totals(const MeshInstance& m) {
  const Reductions& red = m.red;
  return {{"total_volume", number(red.volume_sum)},     {"volume_min", number(red.volume_min)},
          {"volume_max", number(red.volume_max)},       {"quality_min", number(red.quality_min.value)},
          {"quality_argmin", red.quality_min.index},    {"quality_max", number(red.quality_max)},
          {"quality_sum", number(red.quality_sum)}};
}

// ---------------------------------------------------------------- the array table

// An array's size as a linear form of the mesh's counts: elements(c) =
// vertex nv + tet nt + triangle ntri + binned c.binned + bin c.bins + fixed.
struct Size {
  std::int64_t vertex = 0, tet = 0, triangle = 0, binned = 0, bin = 0, fixed = 0;
  std::int64_t elements(const MeshCounts& c) const {
    return vertex * c.nv + tet * c.nt + triangle * c.ntri + binned * c.binned + bin * c.bins + fixed;
  }
  Size operator+(const Size& o) const {
    return {vertex + o.vertex, tet + o.tet, triangle + o.triangle, binned + o.binned, bin + o.bin, fixed + o.fixed};
  }
};
Size per_vertex(std::int64_t k) { return {k, 0, 0, 0, 0, 0}; }
Size per_tet(std::int64_t k) { return {0, k, 0, 0, 0, 0}; }
Size per_triangle(std::int64_t k) { return {0, 0, k, 0, 0, 0}; }
Size per_binned(std::int64_t k) { return {0, 0, 0, k, 0, 0}; }
Size per_bin(std::int64_t k) { return {0, 0, 0, 0, k, 0}; }
Size fixed(std::int64_t k) { return {0, 0, 0, 0, 0, k}; }

// Where the instance keeps an array: its start and its bytes, as allocated.
struct Block {
  char* data;
  std::int64_t bytes;
};
template <class T>
Block block(Array<T>& v) {
  return {reinterpret_cast<char*>(v.data()), std::int64_t(v.size() * sizeof(T))};
}

struct ArraySpec {
  const char* name;
  Size size;
  std::int64_t element_bytes;
  Block (*of)(MeshInstance&);
};

constexpr std::int64_t i32 = 4, i64 = 8, f64 = 8;

// Every array of an instance but the kernels' outputs (those are the rows').
const ArraySpec array_table[] = {
    // the mesh
    {"crd", per_vertex(3), f64, [](MeshInstance& m) { return block(m.crd); }},
    {"tet", per_tet(4), i32, [](MeshInstance& m) { return block(m.tet); }},
    {"tri", per_triangle(3), i32, [](MeshInstance& m) { return block(m.tri); }},
    {"vertex_origin", per_vertex(1), i32, [](MeshInstance& m) { return block(m.vertex_origin); }},
    {"tet_origin", per_tet(1), i32, [](MeshInstance& m) { return block(m.tet_origin); }},
    // its topology
    {"tet_nbr", per_tet(4), i32, [](MeshInstance& m) { return block(m.tet_nbr); }},
    {"ball_offset", per_vertex(1) + fixed(1), i32, [](MeshInstance& m) { return block(m.ball_offset); }},
    {"ball_corner", per_tet(4), i32, [](MeshInstance& m) { return block(m.ball_corner); }},
    {"bins.first", per_bin(1), i32, [](MeshInstance& m) { return block(m.bins.first); }},
    {"bins.count", per_bin(1), i32, [](MeshInstance& m) { return block(m.bins.count); }},
    {"bins.width", per_bin(1), i32, [](MeshInstance& m) { return block(m.bins.width); }},
    {"bins.offset", per_bin(1), i64, [](MeshInstance& m) { return block(m.bins.offset); }},
    {"bins.vertex", per_vertex(1), i32, [](MeshInstance& m) { return block(m.bins.vertex); }},
    {"bins.degree", per_vertex(1), i32, [](MeshInstance& m) { return block(m.bins.degree); }},
    {"bins.corner", per_binned(1), i32, [](MeshInstance& m) { return block(m.bins.corner); }},
    // fields from the reference
    {"vel", per_vertex(3), f64, [](MeshInstance& m) { return block(m.vel); }},
    {"centre", per_tet(3), f64, [](MeshInstance& m) { return block(m.centre); }},
    {"volume", per_tet(1), f64, [](MeshInstance& m) { return block(m.volume); }},
    {"quality", per_tet(1), f64, [](MeshInstance& m) { return block(m.quality); }},
    // scratch of one variant
    {"corner_tmp", per_tet(4), f64, [](MeshInstance& m) { return block(m.corner_tmp); }},
    {"block_partial", fixed(6 * reduce_blocks), f64, [](MeshInstance& m) { return block(m.block_partial); }},
    {"block_argmin", fixed(reduce_blocks), i64, [](MeshInstance& m) { return block(m.block_argmin); }},
};

const ArraySpec& array_named(const std::string& name) {
  for (const ArraySpec& a : array_table)
    if (name == a.name) return a;
  throw std::logic_error(fmt::format("mesh: '{}' is not in the array table", name));
}

// ---------------------------------------------------------------- the kernel table

// An output: doubles, NaN-poisoned by reset() unless it starts as an input
// array of the same size (`starts_as`: direct's positions start as crd).
struct Output {
  const char* name;
  Size size;
  const char* starts_as = nullptr;
};

constexpr const char* long_double_reference = "host long-double reference";

struct KernelSpec {
  const char* tag;
  std::vector<const char*> reads;    // from the array table: mapped to the device, released after
  std::vector<Output> writes;        // its outputs: mapped poisoned, brought back after
  std::vector<const char*> scratch;  // from the array table: device-only working arrays of its variants
  // Unique bytes the kernel must move, per vertex and per tet: each input
  // array read once, each output written once (int32 indices, double fields).
  // Layout overheads (the binned padding and row lists, the scatter's
  // temporaries, atomics' read-modify-write) are not counted: they are what
  // the variants compare.
  double bytes_per_vertex, bytes_per_tet;
  double flops_per_vertex, flops_per_tet;
  void (*reference)(MeshInstance&);  // its outputs' expected values (nullptr: its check computes them)
  const char* reference_name;
  void (*check)(const MeshInstance&, int repetitions, Validation&);
  nlohmann::json (*totals)(const MeshInstance&);  // nullptr: none
};

const std::vector<KernelSpec>& kernel_table() {
  static const std::vector<KernelSpec> table{
      {"direct", {"vel"}, {{"pos", per_vertex(3), "crd"}}, {},
       72, 0, 6, 0, nullptr, "host replay of the update", check_direct, nullptr},
      {"downward", {"tet", "crd"}, {{"out_volume", per_tet(1)}, {"out_centre", per_tet(3)}}, {},
       24, 48, 0, 45, nullptr, long_double_reference, check_downward, downward_totals},
      {"transverse", {"tet_nbr", "centre"}, {{"spread", per_tet(1)}}, {},
       0, 48, 0, 36, reference_spread, long_double_reference, check_transverse, nullptr},
      // model: the ball at its CSR size, centre, crd in; smooth out
      {"upward_csr", {"ball_offset", "ball_corner", "centre", "crd"}, {{"smooth", per_vertex(3)}}, {},
       52, 40, 9, 12, reference_smooth, long_double_reference, check_upward, nullptr},
      {"upward_binned",
       {"bins.first", "bins.count", "bins.offset", "bins.vertex", "bins.degree", "bins.corner", "centre", "crd"},
       {{"smooth", per_vertex(3)}}, {},
       52, 40, 9, 12, reference_smooth, long_double_reference, check_upward, nullptr},
      {"lumped_atomic", {"tet", "crd"}, {{"lumped", per_vertex(1)}}, {},
       32, 16, 0, 34, reference_lumped, long_double_reference, check_lumped, lumped_totals},
      {"lumped_scatter_gather", {"tet", "crd", "ball_offset", "ball_corner"}, {{"lumped", per_vertex(1)}},
       {"corner_tmp"},
       32, 16, 0, 34, reference_lumped, long_double_reference, check_lumped, lumped_totals},
      // The results are scalars (MeshInstance::red), mapped by the kernels
      // themselves; the scratch is the two-level form's block partials.
      {"reduce", {"volume", "quality"}, {}, {"block_partial", "block_argmin"},
       0, 16, 0, 6, reference_reductions, long_double_reference, check_reduce, reduce_totals},
  };
  return table;
}

const KernelSpec* find_kernel(const std::string& tag) {
  for (const KernelSpec& k : kernel_table())
    if (tag == k.tag) return &k;
  return nullptr;
}

double kernel_bytes(const KernelSpec& k, const MeshCounts& c) {
  double bytes = 0;
  for (const char* name : k.reads) bytes += double(array_named(name).size.elements(c) * array_named(name).element_bytes);
  for (const Output& o : k.writes) bytes += double(o.size.elements(c) * f64);
  for (const char* name : k.scratch) bytes += double(array_named(name).size.elements(c) * array_named(name).element_bytes);
  return bytes;
}

// Each output once (rows may share one: the two ball layouts, the two lumped forms).
std::vector<const Output*> distinct_outputs() {
  std::vector<const Output*> out;
  for (const KernelSpec& k : kernel_table())
    for (const Output& o : k.writes)
      if (std::none_of(out.begin(), out.end(), [&](const Output* p) { return std::string(p->name) == o.name; }))
        out.push_back(&o);
  return out;
}

}  // namespace

// ---------------------------------------------------------------- sizes and memory

MeshCounts counts_before_topology(double nv, double nt, double ntri) {
  MeshCounts c;
  c.nv = std::int64_t(nv);
  c.nt = std::int64_t(nt);
  c.ntri = ntri >= 0 ? std::int64_t(ntri) : 4 * c.nt;
  // A vertex of degree d takes a row of the smallest power of two >= max(d, 1):
  // below 2d, or 1 for an isolated vertex; the degrees sum to 4 nt.
  c.binned = 8 * c.nt + c.nv;
  c.bins = 32;
  return c;
}

MeshCounts MeshInstance::counts() const {
  MeshCounts c;
  c.nv = nv;
  c.nt = nt;
  c.ntri = ntri;
  c.binned = std::int64_t(bins.corner.size());
  c.bins = bins.bin_count();
  return c;
}

double kernel_device_bytes(const std::string& tag, const MeshCounts& counts) {
  const KernelSpec* k = find_kernel(tag);
  return k ? kernel_bytes(*k, counts) : 0;
}

std::vector<std::string> kernel_tags() {
  std::vector<std::string> tags;
  for (const KernelSpec& k : kernel_table()) tags.push_back(k.tag);
  return tags;
}

// One kernel's device data is mapped at a time: the largest row.
double device_bytes_for(const MeshCounts& counts) {
  double most = 0;
  for (const KernelSpec& k : kernel_table()) most = std::max(most, kernel_bytes(k, counts));
  return most;
}

// Every array of the table, every output and its expected values, the
// checks' per-vertex tolerances made with the reference (3 doubles per
// vertex: reference_smooth, reference_lumped), and the largest temporary of
// making and checking an instance: the renumbering's keys and order (12
// bytes per vertex or tet), or the direct check's replay (3 doubles per
// vertex).
double host_bytes_for(const MeshCounts& counts) {
  double bytes = 3.0 * f64 * double(counts.nv);
  for (const ArraySpec& a : array_table) bytes += double(a.size.elements(counts) * a.element_bytes);
  for (const Output* o : distinct_outputs()) bytes += 2.0 * double(o->size.elements(counts) * f64);
  const double temporary = std::max(12.0 * double(std::max(counts.nv, counts.nt)), 24.0 * double(counts.nv));
  return bytes + temporary;
}

// ---------------------------------------------------------------- device data

DeviceData kernel_data(MeshInstance& m, const std::string& tag) {
  const KernelSpec* k = find_kernel(tag);
  if (!k) throw std::logic_error(fmt::format("mesh: '{}' is not a kernel of the kernel table", tag));
  DeviceData d;
  for (const char* name : k->reads) {
    const Block b = array_named(name).of(m);
    d.in(static_cast<const char*>(b.data), b.bytes);
  }
  for (const Output& o : k->writes) d.out(m.output(o.name));
  // Scratch goes to the device with the inputs and is released, never brought back.
  for (const char* name : k->scratch) {
    const Block b = array_named(name).of(m);
    d.in(static_cast<const char*>(b.data), b.bytes);
  }
  return d;
}

// ---------------------------------------------------------------- the instance's outputs

const Array<double>& MeshInstance::output(const std::string& name) const {
  const auto it = outputs_.find(name);
  if (it == outputs_.end()) throw std::logic_error(fmt::format("mesh: no kernel writes an output '{}'", name));
  return it->second;
}

Array<double>& MeshInstance::output(const std::string& name) {
  const Array<double>& out = std::as_const(*this).output(name);
  poisoned_[name] = false;
  return const_cast<Array<double>&>(out);
}

std::vector<std::string> MeshInstance::output_names() const {
  std::vector<std::string> names;
  for (const auto& entry : outputs_) names.push_back(entry.first);
  return names;
}

const Array<double>& MeshInstance::expected(const std::string& name) const {
  const auto it = expected_.find(name);
  if (it == expected_.end()) throw std::logic_error(fmt::format("mesh: no reference computes '{}'", name));
  return it->second;
}

Array<double>& MeshInstance::expected(const std::string& name) { return expected_[name]; }

void MeshInstance::compute_kernels() {
  const MeshCounts c = counts();
  // corner_tmp is poisoned by reset(); the partials start as zeros.
  corner_tmp.resize(array_named("corner_tmp").size.elements(c));
  fill_array(block_partial, array_named("block_partial").size.elements(c), 0.0);
  fill_array<std::int64_t>(block_argmin, array_named("block_argmin").size.elements(c), 0);
  const std::vector<const Output*> outputs = distinct_outputs();
  for (const KernelSpec& k : kernel_table())
    for (const Output& o : k.writes) {
      const Output* first = *std::find_if(outputs.begin(), outputs.end(),
                                          [&](const Output* p) { return std::string(p->name) == o.name; });
      const std::int64_t n = o.size.elements(c);
      const bool same_start = (o.starts_as == nullptr) == (first->starts_as == nullptr);
      if (first->size.elements(c) != n || !same_start ||
          (o.starts_as && array_named(o.starts_as).size.elements(c) * array_named(o.starts_as).element_bytes != n * f64))
        throw std::logic_error(fmt::format("mesh: output '{}' of {} is declared unlike its other rows or start", o.name,
                                           k.tag));
      outputs_.try_emplace(o.name, array_in<double>(mapped)).first->second.resize(std::size_t(n));
    }
  std::vector<void (*)(MeshInstance&)> done;
  for (const KernelSpec& k : kernel_table()) {
    if (!k.reference || std::find(done.begin(), done.end(), k.reference) != done.end()) continue;
    k.reference(*this);
    done.push_back(k.reference);
  }
}

namespace {
void fill(Array<double>& a, const double* from, double value) {
  const std::int64_t n = std::int64_t(a.size());
  double* to = a.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) to[i] = from ? from[i] : value;
}
}  // namespace

// Only the outputs handed out writable since the last reset are poisoned
// again: at the cube of 256 the outputs are 5.0 GB, of which a kernel writes
// at most 3.2 GB, and every variant's run starts with a reset. The scratch
// (a public array, written by the scatter's host variants) is poisoned every
// time.
void MeshInstance::reset() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const Output* o : distinct_outputs()) {
    bool& poisoned = poisoned_[o->name];
    if (poisoned) continue;
    const double* from = o->starts_as ? reinterpret_cast<const double*>(array_named(o->starts_as).of(*this).data) : nullptr;
    fill(outputs_.at(o->name), from, nan);
    poisoned = true;
  }
  fill(corner_tmp, nullptr, nan);
  red = Reductions{nan, nan, nan, nan, nan, MinLoc{nan, -1}};
}

// ---------------------------------------------------------------- model, validation, observables

Model MeshInstance::model(const std::string& kernel) const {
  const KernelSpec* k = find_kernel(kernel);
  const double v = double(nv), t = double(nt);
  const double bytes = k ? k->bytes_per_vertex * v + k->bytes_per_tet * t : 0;
  const double flops = k ? k->flops_per_vertex * v + k->flops_per_tet * t : 0;
  return Model{bytes, flops, "GB/s", bytes / 1e9};
}

Check MeshInstance::validate(int repetitions, const std::string& kernel) const {
  const KernelSpec* k = find_kernel(kernel);
  if (!k) {
    Check c;
    c.reference = long_double_reference;
    c.detail = fmt::format("'{}' is not a mesh kernel", kernel);
    return c;
  }
  Validation v(k->reference_name);
  k->check(*this, repetitions, v);
  Check c = v.result();
  if (!c.valid) c.detail = fmt::format("{}: {}", kernel, c.detail);
  return c;
}

nlohmann::json MeshInstance::observables(const std::string& kernel) const {
  const KernelSpec* k = find_kernel(kernel);
  const nlohmann::json reference = {
      {"total_volume", double(ref_volume_sum)},
      {"quality_min", ref_quality_min.value},
      {"quality_argmin_original", tet_origin[ref_quality_min.index]},
      {"quality_max", ref_quality_max},
      {"quality_sum", double(ref_quality_sum)},
      {"lumped_moment", double(ref_lumped_moment)},
  };
  const nlohmann::json computed = k && k->totals ? k->totals(*this) : nlohmann::json::object();
  return {{"kernel", kernel},   {"vertices", nv},         {"tetrahedra", nt},
          {"triangles", ntri},  {"reference", reference}, {"computed", computed}};
}

}  // namespace ompref::mesh
