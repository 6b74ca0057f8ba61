// lbm's host passes over a whole state are written for speed (vector loops,
// streaming stores, a quick test before each block's search); each is held
// here against a plain form of the same rule, cell by cell, on states with
// walls, NaNs, infinities and zeros where the quick forms take shortcuts.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "common/lbm/lbm.hpp"
#include "common/validation.hpp"
#include "test_support.hpp"

namespace ompref::lbm {
namespace {

using ompref::testing::test_limits;

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// A tiny lattice with walls, a few steps along (so that densities and
// velocities differ from cell to cell), its psi set as the ranges pass reads it.
struct Stepped {
  std::unique_ptr<LbmInstance> s;
  std::vector<double> state, psi;
  explicit Stepped(int nx = 19) {
    Params p;
    size_defaults("tiny", p);
    p.nx = nx;
    p.G_ads = 0.3;  // the walls' adsorption: the neighbours' solid flags count
    s = make_instance(p, test_limits());
    s->reset();
    const double* ref = s->reference_state(3);
    state.assign(ref, ref + s->grid.stride * Q);
    psi.assign(std::size_t(s->grid.stride), 0);
  }
  // psi of every cell, as scan_fields sets it.
  void set_psi() {
    std::vector<double> rho(psi.size());
    scan_fields(s->view(), state.data(), false, rho.data(), psi.data(), nullptr);
  }
};

// The ranges by their rule, a cell at a time: every fluid cell's density and
// |U| with U = u + F / (2 rho), NaN densities left out, a NaN |U| infinite.
Observables plain_ranges(const LbmInstance& s, const double* pop, const double* psi) {
  const Grid& g = s.grid;
  Observables o;
  o.rho_min = inf;
  o.rho_max = -inf;
  for (int z = 0; z < g.nz; ++z)
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) {
        const long k = x + long(g.nx) * (y + long(g.ny) * z);
        if (s.solid[k]) continue;
        double f[Q];
        load_cell(pop, g.stride, k, f);
        double r = 0, jx = 0, jy = 0, jz = 0;
        for (int i = 0; i < Q; ++i) add_moment(i, f[i], r, jx, jy, jz);
        int nb[Q];
        neighbour_indices(g, x, y, z, nb);
        double Fx, Fy, Fz;
        neighbour_force(s.coeffs, s.solid.data(), psi, k, nb, r, Fx, Fy, Fz);
        const double inv = 1.0 / r;
        const double Ux = jx * inv + Fx / (2 * r), Uy = jy * inv + Fy / (2 * r), Uz = jz * inv + Fz / (2 * r);
        const double U = std::sqrt(Ux * Ux + Uy * Uy + Uz * Uz);
        o.rho_min = std::min(o.rho_min, r);
        o.rho_max = std::max(o.rho_max, r);
        o.max_U = std::isnan(U) ? inf : std::max(o.max_U, U);
      }
  return o;
}

void expect_ranges_as_plain(Stepped& t, const char* what) {
  t.set_psi();
  Observables fast;
  state_ranges(t.s->view(), t.state.data(), t.psi.data(), fast);
  const Observables plain = plain_ranges(*t.s, t.state.data(), t.psi.data());
  // Bit for bit: the same arithmetic in the same order.
  EXPECT_EQ(fast.rho_min, plain.rho_min) << what;
  EXPECT_EQ(fast.rho_max, plain.rho_max) << what;
  EXPECT_EQ(fast.max_U, plain.max_U) << what;
}

TEST(LbmPasses, RangesAreThoseOfThePlainRuleCellByCell) {
  for (int nx : {1, 2, 3, 19, block_cells + 7}) {
    Stepped t(nx);
    expect_ranges_as_plain(t, "stepped state");
    // The fastest cell beside a wall (its force counts the wall's
    // adsorption), inside a row and on its x faces.
    for (int x : {nx / 2, 0, nx - 1}) {
      Stepped u(nx);
      u.state[std::size_t(u.s->grid.stride + x + long(nx) * (1 + long(u.s->grid.ny) * 2))] += 0.5;
      expect_ranges_as_plain(u, "a fast cell beside a wall");
    }
  }
}

TEST(LbmPasses, RangesSeeANaNInAnyCellAndSkipSolidCells) {
  Stepped t;
  const Grid& g = t.s->grid;
  // A NaN population in an inner cell, in a cell on an x face, beside a wall.
  for (long k : {long(g.nx) * (g.ny / 2) + g.nx / 2, long(g.nx) * 3, long(g.nx) * 2 - 1, long(g.nx) + 5}) {
    Stepped u;
    u.state[std::size_t(4 * g.stride + k)] = nan;
    expect_ranges_as_plain(u, "a NaN population");
    Observables o;
    state_ranges(u.s->view(), u.state.data(), u.psi.data(), o);
    EXPECT_EQ(o.max_U, inf) << "cell " << k;
  }
  // Garbage in the solid cells (the wall rows) changes nothing.
  Stepped w;
  Observables before;
  w.set_psi();
  state_ranges(w.s->view(), w.state.data(), w.psi.data(), before);
  for (long k = 0; k < g.n; ++k)
    if (w.s->solid[std::size_t(k)])
      for (int i = 0; i < Q; ++i) w.state[std::size_t(i * g.stride + k)] = i % 2 ? nan : -1e300;
  Observables after;
  state_ranges(w.s->view(), w.state.data(), w.psi.data(), after);
  EXPECT_EQ(after.rho_min, before.rho_min);
  EXPECT_EQ(after.rho_max, before.rho_max);
  EXPECT_EQ(after.max_U, before.max_U);
}

// The worst population by the search alone, a cell at a time over the whole
// state, in compare_block's order (cells, then directions, the first of equal
// errors kept).
WorstPopulation plain_worst(const LbmInstance& s, const double* got, const double* want) {
  WorstPopulation worst;
  for (long k = 0; k < s.grid.n; ++k) {
    if (s.solid[std::size_t(k)]) continue;
    for (int i = 0; i < Q; ++i) {
      const double err = relative_error(got[i * s.grid.stride + k], want[i * s.grid.stride + k]);
      if (!(err <= worst.error)) worst = {err, k, i};
    }
  }
  return worst;
}

TEST(LbmPasses, TheComparisonFindsTheWorstPopulationOfThePlainSearch) {
  Stepped t(block_cells + 7);
  const Grid& g = t.s->grid;
  const long plane = long(g.nx) * g.ny;
  const long inner = long(g.nx) * (g.ny / 2) + 9;
  struct Case {
    const char* what;
    bool planted;
    double got, want;
  };
  // Where the quick test's |g - w| / |w| is NaN or infinite, or equals the
  // error exactly: each planted in one population of two cells.
  const Case cases[] = {{"nothing planted", false, 0, 0}, {"got NaN", true, nan, 1},     {"want NaN", true, 1, nan},
                        {"got inf", true, inf, 1},        {"want inf", true, 1, inf},    {"both inf", true, inf, inf},
                        {"want zero", true, 1e-3, 0},     {"both zero", true, 0, 0},     {"want tiny", true, 1e-310, 2e-310},
                        {"a small error", true, 1.0 + 1e-9, 1.0}};
  for (const Case& c : cases) {
    std::vector<double> got = t.state, want = t.state;
    for (long k : {inner, inner + plane * 2 + 1})
      if (c.planted) {
        got[std::size_t(7 * g.stride + k)] = c.got;
        want[std::size_t(7 * g.stride + k)] = c.want;
      }
    // Rounding differences in other blocks: in a plane of its own, and
    // before the planted cell of plane 2, so that the quick test meets the
    // planted values both with no error seen yet and after one.
    got[std::size_t(3 * g.stride + plane + inner)] *= 1 + 1e-15;
    got[std::size_t(3 * g.stride + 2 * plane + 3)] *= 1 + 1e-15;
    std::vector<WorstPopulation> planes(std::size_t(g.nz));
    for (int z = 0; z < g.nz; ++z)
      for (long c0 = 0; c0 < plane; c0 += block_cells)
        compare_block(got.data(), want.data(), g.stride, t.s->solid.data(), z * plane + c0,
                      int(std::min<long>(block_cells, plane - c0)), planes[std::size_t(z)]);
    const WorstPopulation fast = worst_of(planes), plain = plain_worst(*t.s, got.data(), want.data());
    EXPECT_EQ(fast.error, plain.error) << c.what;
    EXPECT_EQ(fast.k, plain.k) << c.what;
    EXPECT_EQ(fast.i, plain.i) << c.what;
  }
}

TEST(LbmPasses, TheInitialStateSkipsOnlyTanhsThatRoundToOne) {
  // profile() takes tanh(a) as +-1 from |a| = 22 on: this libm must agree.
  for (double a = 22.0; a < 1e4; a = a * 1.01 + 1e-3) {
    EXPECT_EQ(std::tanh(a), 1.0) << a;
    EXPECT_EQ(std::tanh(-a), -1.0) << a;
  }
  EXPECT_EQ(std::tanh(inf), 1.0);
  EXPECT_EQ(std::tanh(1e300), 1.0);
}

TEST(LbmPasses, StreamedRunsWriteEveryValueAndNothingBeside) {
  std::vector<double> buf(400), src(200);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = double(i) + 0.5;
  for (int start = 0; start < 9; ++start)
    for (int len : {0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 150}) {
      std::fill(buf.begin(), buf.end(), -1.0);
      store_run(buf.data() + start, src.data(), len);
      fill_run(buf.data() + start + len + 1, 2.5, len);
      store_fence();
      for (int x = 0; x < int(buf.size()); ++x) {
        const double want = x < start                       ? -1.0
                            : x < start + len                ? src[std::size_t(x - start)]
                            : x == start + len               ? -1.0
                            : x < start + 2 * len + 1        ? 2.5
                                                             : -1.0;
        ASSERT_EQ(buf[std::size_t(x)], want) << "start " << start << " len " << len << " at " << x;
      }
    }
}

}  // namespace
}  // namespace ompref::lbm
