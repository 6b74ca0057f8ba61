// mesh: the kernels as the instance sees them. One row per kernel tag (the tag
// a variant registers with .for_kernel, printed as the observables' "kernel"):
// the bytes and flops of its model, its check against the host reference and
// the totals it reports. The variants of one kernel (CSR or binned balls,
// atomics or scatter/gather, one or two reduction levels) share its row: that
// is what makes them comparable.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/mesh/mesh.hpp"
#include "common/validation.hpp"

namespace ompref::mesh {
namespace {

using LD = long double;

// ---------------------------------------------------------------- checks

// "name[i] = got (expected want)": where an array's worst element is.
auto where_in(const char* name, const std::vector<double>& got, const std::vector<double>& want) {
  return [name, &got, &want](std::int64_t i) {
    return fmt::format("{}[{}] = {} (expected {})", name, i, got[i], want[i]);
  };
}

// An output array against its reference, relative to |want| (at least `floor`).
void relative_array(Validation& v, const char* name, const std::vector<double>& got, const std::vector<double>& want,
                    double tolerance, double floor) {
  v.compare_all(
      std::int64_t(got.size()), [&](std::int64_t i) { return got[i]; }, [&](std::int64_t i) { return want[i]; },
      tolerance, where_in(name, got, want), floor);
}

// Coordinates against their reference, relative to the mesh's extent.
void coordinate_array(Validation& v, const char* name, const std::vector<double>& got, const std::vector<double>& want,
                      double extent, double tolerance) {
  v.compare_all_to_scale(
      std::int64_t(got.size()), [&](std::int64_t i) { return got[i]; }, [&](std::int64_t i) { return want[i]; },
      extent, tolerance, where_in(name, got, want));
}

// A double against a long-double reference, relative.
double rel(double got, LD want) {
  const LD scale = std::fabs(want) > 0 ? std::fabs(want) : 1.0L;
  return double(std::fabs(LD(got) - want) / scale);
}

void check_direct(const MeshInstance& m, int repetitions, Validation& v) {
  // Replays x += v dt `repetitions` times on the host, in double.
  std::vector<double> want(m.crd);
  for (int r = 0; r < repetitions; ++r)
    for (std::int64_t i = 0; i < 3 * m.nv; ++i) want[i] = want[i] + m.vel[i] * direct_dt;
  coordinate_array(v, "pos", m.pos, want, m.extent, 1e-13);
}

void check_downward(const MeshInstance& m, int, Validation& v) {
  relative_array(v, "volume", m.out_volume, m.volume, 1e-10, 1e-300);
  coordinate_array(v, "centre", m.out_centre, m.centre, m.extent, 1e-13);
}

void check_transverse(const MeshInstance& m, int, Validation& v) {
  relative_array(v, "spread", m.spread, m.ref_spread, 1e-12, 1e-300 + 1e-15 * m.extent);
}

// u = 2^-53, the unit roundoff of double.
constexpr double unit_roundoff = 0x1p-53;

// The degree (tets in the ball) of vertex i: the terms its per-vertex sums add.
std::int32_t degree(const MeshInstance& m, std::int64_t i) { return m.ball_offset[i + 1] - m.ball_offset[i]; }

void check_upward(const MeshInstance& m, int, Validation& v) {
  // smooth = x + w (sum of the d centres / d - x), the d centres summed in
  // double in the variant's order: each partial sum rounds by at most
  // u |partial| <= u d X (X: the largest |coordinate| of the ball's centres),
  // so the mean is off by at most (d - 1) u X, plus a few rounding units of X
  // for the rest. Against the extent: 1e-13 (what a cube of modest degree
  // needs) plus (d + 4) u X / extent, per vertex.
  const double* crd = m.crd.data();
  double worst = -1, worst_tolerance = 1;
  std::int64_t at = 0;
  for (std::int64_t i = 0; i < m.nv; ++i) {
    double x_max = 0;
    for (int k = 0; k < 3; ++k) x_max = std::max(x_max, std::fabs(crd[3 * i + k]));
    for (std::int32_t c = m.ball_offset[i]; c < m.ball_offset[i + 1]; ++c)
      for (int k = 0; k < 3; ++k) x_max = std::max(x_max, std::fabs(m.centre[3 * std::int64_t(m.ball_corner[c] >> 2) + k]));
    const double tolerance = 1e-13 + (degree(m, i) + 4) * unit_roundoff * x_max / m.extent;
    for (int k = 0; k < 3; ++k) {
      const double got = m.smooth[3 * i + k];
      const double e = std::isfinite(got) ? std::fabs(got - m.ref_smooth[3 * i + k]) / m.extent
                                          : std::numeric_limits<double>::infinity();
      if (!(e / tolerance <= worst / worst_tolerance)) {
        worst = e;
        worst_tolerance = tolerance;
        at = 3 * i + k;
      }
    }
  }
  if (m.nv > 0) v.note(worst, worst_tolerance, [&] { return where_in("smooth", m.smooth, m.ref_smooth)(at); });
}

// The product of the three longest edges of tet t: what bounds the rounding
// error of its volume computed in double (below).
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

void check_lumped(const MeshInstance& m, int, Validation& v) {
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
  // (A = |lumped| unless the ball holds inverted tets).
  double worst = -1, worst_tolerance = 1, sum_abs = 0, sum_volume_error = 0;
  std::int64_t at = 0;
  for (std::int64_t i = 0; i < m.nv; ++i) {
    double magnitude = 0, volume_error = 0;
    for (std::int32_t c = m.ball_offset[i]; c < m.ball_offset[i + 1]; ++c) {
      const std::int64_t t = m.ball_corner[c] >> 2;
      magnitude += std::fabs(m.volume[t]) / 4;
      volume_error += 8 * unit_roundoff * edge_product(m, t) / 4;
    }
    sum_abs += magnitude;
    sum_volume_error += volume_error;
    const double got = m.lumped[i];
    const double scale = magnitude > 0 ? magnitude : 1e-300;
    const double e = std::isfinite(got) ? std::fabs(got - m.ref_lumped[i]) / scale
                                        : std::numeric_limits<double>::infinity();
    const double tolerance = (degree(m, i) + 1) * unit_roundoff + volume_error / scale;
    if (!(e / tolerance <= worst / worst_tolerance)) {
      worst = e;
      worst_tolerance = tolerance;
      at = i;
    }
  }
  if (m.nv > 0) v.note(worst, worst_tolerance, [&] { return where_in("lumped", m.lumped, m.ref_lumped)(at); });
  // Their sum (in long double, rounded once) against the total volume: each
  // term within its bound above, so the sum within the sum of the bounds,
  // relative to the sum of all magnitudes (the total |volume|): at most
  // (d_max + 2) u + sum E_t / 4 / total.
  std::int32_t d_max = 0;
  for (std::int64_t i = 0; i < m.nv; ++i) d_max = std::max(d_max, degree(m, i));
  LD sum = 0;
  for (std::int64_t i = 0; i < m.nv; ++i) sum += m.lumped[i];
  const double total_scale = sum_abs > 0 ? sum_abs : 1e-300;
  const double sum_error = std::isfinite(double(sum))
                               ? double(std::fabs(LD(double(sum)) - m.ref_volume_sum) / total_scale)
                               : std::numeric_limits<double>::infinity();
  v.note(sum_error, (d_max + 2) * unit_roundoff + sum_volume_error / total_scale, [&] {
    return fmt::format("sum of lumped volumes {} (total volume {})", double(sum), double(m.ref_volume_sum));
  });
}

void check_reduce(const MeshInstance& m, int, Validation& v) {
  const Reductions& red = m.red;
  // Sums in double, in an order each variant chooses: the a-priori bound for
  // n positive terms is n u (u = 2^-53), 1.4e-9 at 12.6 M tets; at least 1e-12.
  // (16 host threads summing 786 k equal qualities each reach 1.3e-11.)
  const double sum_tol = std::max(1e-12, double(m.nt) * 0x1p-53);
  v.note(rel(red.volume_sum, m.ref_volume_sum), sum_tol,
         [&] { return fmt::format("volume sum {} (expected {})", red.volume_sum, double(m.ref_volume_sum)); });
  v.note(rel(red.quality_sum, m.ref_quality_sum), sum_tol,
         [&] { return fmt::format("quality sum {} (expected {})", red.quality_sum, double(m.ref_quality_sum)); });
  // min and max select an input value: exact.
  const double tiny = std::numeric_limits<double>::min();
  auto exact = [&](const char* what, double got, double want) {
    v.note(got == want ? 0 : 1, tiny, [&] { return fmt::format("{} {} (expected {})", what, got, want); });
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

// ---------------------------------------------------------------- totals reported

nlohmann::json number(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

nlohmann::json downward_totals(const MeshInstance& m) {
  LD sum = 0;
  for (std::int64_t t = 0; t < m.nt; ++t) sum += m.out_volume[t];
  return {{"total_volume", number(double(sum))}};
}

nlohmann::json lumped_totals(const MeshInstance& m) {
  LD sum = 0, moment = 0;
  for (std::int64_t v = 0; v < m.nv; ++v) {
    LD r2 = 0;
    for (int k = 0; k < 3; ++k) r2 += LD(m.crd[3 * v + k]) * m.crd[3 * v + k];
    sum += m.lumped[v];
    moment += LD(m.lumped[v]) * r2;
  }
  return {{"lumped_sum", number(double(sum))}, {"lumped_moment", number(double(moment))}};
}

nlohmann::json reduce_totals(const MeshInstance& m) {
  const Reductions& red = m.red;
  return {{"total_volume", number(red.volume_sum)},     {"volume_min", number(red.volume_min)},
          {"volume_max", number(red.volume_max)},       {"quality_min", number(red.quality_min.value)},
          {"quality_argmin", red.quality_min.index},    {"quality_max", number(red.quality_max)},
          {"quality_sum", number(red.quality_sum)}};
}

// ---------------------------------------------------------------- the table

struct KernelSpec {
  const char* tag;
  // Unique bytes the kernel must move, per vertex and per tet: each input
  // array read once, each output written once (int32 indices, double fields).
  // Layout overheads (the binned padding and row lists, the scatter's
  // temporaries, atomics' read-modify-write) are not counted: they are what
  // the variants compare.
  double bytes_per_vertex, bytes_per_tet;
  double flops_per_vertex, flops_per_tet;
  const char* reference;
  void (*check)(const MeshInstance&, int repetitions, Validation&);
  nlohmann::json (*totals)(const MeshInstance&);  // nullptr: none
};

constexpr const char* long_double_reference = "host long-double reference";

const KernelSpec kernel_table[] = {
    // pos, vel in; pos out
    {"direct", 72, 0, 6, 0, "host replay of the update", check_direct, nullptr},
    // tet, crd in; volume, centre out
    {"downward", 24, 48, 0, 45, long_double_reference, check_downward, downward_totals},
    // nbr, centre in; spread out
    {"transverse", 0, 48, 0, 36, long_double_reference, check_transverse, nullptr},
    // ball (CSR size), centre, crd in; smooth out
    {"upward_csr", 52, 40, 9, 12, long_double_reference, check_upward, nullptr},
    {"upward_binned", 52, 40, 9, 12, long_double_reference, check_upward, nullptr},
    // tet, crd in; lumped out
    {"lumped_atomic", 32, 16, 0, 34, long_double_reference, check_lumped, lumped_totals},
    {"lumped_scatter_gather", 32, 16, 0, 34, long_double_reference, check_lumped, lumped_totals},
    // volume, quality in
    {"reduce", 0, 16, 0, 6, long_double_reference, check_reduce, reduce_totals},
};

const KernelSpec* find_kernel(const std::string& tag) {
  for (const KernelSpec& k : kernel_table)
    if (tag == k.tag) return &k;
  return nullptr;
}

}  // namespace

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
  Validation v(k->reference);
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
