// mesh: per kernel tag, its outputs' reference (computed once per instance,
// from the mesh alone), its check (a variant's outputs against the reference,
// with tolerances from the arithmetic's rounding bounds) and the totals its
// observables report. The kernel table (mesh_kernels.cpp) names them per row.
#include "common/mesh/mesh_checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/mesh/mesh.hpp"
#include "common/mesh/mesh_reference.hpp"

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

}  // namespace

namespace checks {

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
namespace {
std::int32_t degree(const MeshInstance& m, std::int64_t i) { return m.ball_offset[i + 1] - m.ball_offset[i]; }
}  // namespace

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
namespace {
LD lumped_moment(const MeshInstance& m, const Array<double>& lumped) {
  return ld_sum(m.nv, [&](std::int64_t v) {
    LD r2 = 0;
    for (int k = 0; k < 3; ++k) r2 += LD(m.crd[3 * v + k]) * m.crd[3 * v + k];
    return LD(lumped[v]) * r2;
  });
}
}  // namespace

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

}  // namespace checks
}  // namespace ompref::mesh
