// gpp: every variant against the closed form (tiny, small) and against the
// long-double reference (tiny, varied data); the three-complex reduction; the
// validation catching wrong answers; bad decks refused with exit 2.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include <omp.h>

#include "common/gpp/complex.hpp"
#include "common/gpp/gpp.hpp"
#include "common/usage_error.hpp"
#include "test_support.hpp"

namespace ompref::gpp {
namespace {

using ompref::testing::count_lines;
using ompref::testing::run_ompref;
using ompref::testing::test_limits;

std::unique_ptr<GppInstance> make(const std::string& size, Data data = Data::uniform) {
  return make_instance(deck_for_size(size), data, test_limits());
}

// Runs a variant once (one timed repetition, no warm-up) and checks it.
void expect_valid(GppInstance& s, const Variant& v, const std::string& size, const std::vector<int>& devices = {0}) {
  RunResult r = run_variant(v, s, size, RunSettings{1, 0, 0, {}}, devices.front(), devices);
  EXPECT_TRUE(r.check.valid) << v.name << " at " << size << ": " << r.check.detail;
  EXPECT_LE(r.check.max_rel_error, r.check.tolerance) << v.name;
  EXPECT_GT(r.fom, 0) << v.name;
  // The observables are the validated numbers.
  for (int iw = 0; iw < nfreq; ++iw) {
    EXPECT_DOUBLE_EQ(r.observables["achtemp"][iw][0].get<double>(), s.achtemp.v[iw].re);
    EXPECT_DOUBLE_EQ(r.observables["achtemp"][iw][1].get<double>(), s.achtemp.v[iw].im);
  }
}

TEST(Gpp, HasTheSteps) {
  for (const char* name : {"host_naive", "host_tiled", "target_naive", "target_basic", "target_udr", "target_hoisted",
                           "target_tuned", "target_multi"})
    EXPECT_NE(registry().variant("gpp", name), nullptr) << name;
}

class GppEveryVariant : public ::testing::TestWithParam<std::string> {};

TEST_P(GppEveryVariant, MatchesTheClosedForm) {
  auto s = make(GetParam());
  EXPECT_EQ(s->reference_name(), "closed form");
  for (const Variant* v : registry().variants("gpp")) expect_valid(*s, *v, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Sizes, GppEveryVariant, ::testing::Values("tiny", "small"));

TEST(Gpp, EveryVariantMatchesTheLongDoubleReferenceOnVariedData) {
  auto s = make("tiny", Data::varied);
  EXPECT_NE(s->reference_name().find("long-double"), std::string::npos);
  for (const Variant* v : registry().variants("gpp")) expect_valid(*s, *v, "tiny");
}

TEST(Gpp, VariedReferenceIsWellConditioned) {
  // The tolerance grows with sum|t| / |achtemp part|: the varied data must not
  // make it meaningless.
  auto s = make("tiny", Data::varied);
  for (int iw = 0; iw < nfreq; ++iw)
    for (int p = 0; p < 2; ++p) EXPECT_LT(s->tolerance(iw, p), 1e-9) << iw << " " << p;
}

TEST(Gpp, ClosedFormMatchesTheMiniAppsBenchmarkNumbers) {
  // A cross-check of the formula: the numbers quoted for the mini-app's benchmark deck.
  const Complex3 c = closed_form(deck_for_size("paper"));
  const double want[3][2] = {{-264241152.0, 1321205760.0},
                             {-137405399.04, 961837793.28},
                             {-83783779.902439, 754054019.121951}};
  for (int iw = 0; iw < 3; ++iw) {
    EXPECT_NEAR(c.v[iw].re, want[iw][0], std::fabs(want[iw][0]) * 1e-12) << iw;
    EXPECT_NEAR(c.v[iw].im, want[iw][1], std::fabs(want[iw][1]) * 1e-12) << iw;
  }
}

TEST(Gpp, ClosedFormIsTheSumOfTheTerms) {
  // Independent of the closed form: the tiny deck summed term by term in long double.
  auto s = make("tiny");
  const Complex3 c = closed_form(s->deck);
  for (int iw = 0; iw < nfreq; ++iw) {
    long double re = 0, im = 0;
    const long double wx = wx_of(s->e_n1kq[0], iw);
    for (int n1 = 0; n1 < s->nb; ++n1)
      for (int k = 0; k < s->ngpown; ++k) {
        const int igp = s->indinv[s->inv_igp_index[k]];
        const Complex f = factor_of(s->aqsmtemp[igp * s->nb + n1], s->aqsntemp[igp * s->nb + n1], s->vcoul[igp],
                                    s->wtilde_array[igp * s->ngpown + k]);
        for (int ig = 0; ig < s->nc; ++ig) {
          const Complex w = s->wtilde_array[ig * s->ngpown + k], e = s->I_eps_array[ig * s->ngpown + k];
          const long double dr = wx - w.re, di = -w.im, d = dr * dr + di * di;
          const long double delr = dr / d, deli = -di / d;
          const long double tr = delr * e.re - deli * e.im, ti = delr * e.im + deli * e.re;
          re += tr * f.re - ti * f.im;
          im += tr * f.im + ti * f.re;
        }
      }
    EXPECT_NEAR(c.v[iw].re, double(re), std::fabs(double(re)) * 1e-13) << iw;
    EXPECT_NEAR(c.v[iw].im, double(im), std::fabs(double(im)) * 1e-13) << iw;
  }
}

TEST(Gpp, TargetMultiSplitsOverTwoDevices) {
  // Two shares on device 0 (or the host): the split and the sum on the host.
  auto s = make("tiny", Data::varied);
  expect_valid(*s, *registry().variant("gpp", "target_multi"), "tiny", {0, 0});
}

TEST(Gpp, TheReductionsInitializerAndCombiner) {
  Complex3 a;
  for (auto& z : a.v) z = Complex{std::numeric_limits<double>::quiet_NaN(), 1.0};
  complex3_init(a);
  for (const auto& z : a.v) {
    EXPECT_EQ(z.re, 0.0);
    EXPECT_EQ(z.im, 0.0);
  }
  Complex3 b{{{1, 2}, {3, 4}, {5, 6}}};
  complex3_combine(a, b);
  complex3_combine(a, b);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(a.v[i].re, 2.0 * (2 * i + 1));
    EXPECT_EQ(a.v[i].im, 2.0 * (2 * i + 2));
  }
  // The declared reduction in a parallel loop: exact for small integers.
  Complex3 sum = complex3_zero();
#pragma omp parallel for reduction(c3sum : sum)
  for (int i = 1; i <= 1000; ++i)
    for (int w = 0; w < 3; ++w) sum.v[w] += Complex{double(i), double(w * i)};
  for (int w = 0; w < 3; ++w) {
    EXPECT_EQ(sum.v[w].re, 500500.0);
    EXPECT_EQ(sum.v[w].im, 500500.0 * w);
  }
}

class GppValidation : public ::testing::Test {
 protected:
  void SetUp() override {
    s = make("tiny", Data::varied);
    v = registry().variant("gpp", "host_naive");
    ASSERT_NE(v, nullptr);
    RunContext ctx;
    v->run(*s, ctx);
    ASSERT_TRUE(s->validate(1, "").valid);
  }
  std::unique_ptr<GppInstance> s;
  const Variant* v = nullptr;
};

TEST_F(GppValidation, APartOffByOnePartInAMillionFails) {
  s->achtemp.v[2].im *= 1 + 1e-6;
  Check c = s->validate(1, "");
  EXPECT_FALSE(c.valid);
  EXPECT_NE(c.detail.find("achtemp[2].im"), std::string::npos) << c.detail;
}

TEST_F(GppValidation, NaNAndUnwrittenFail) {
  s->achtemp.v[0].re = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(s->validate(1, "").valid);
  s->reset();
  EXPECT_FALSE(s->validate(1, "").valid) << "reset() poisons achtemp";
}

TEST_F(GppValidation, AKernelIgnoringTheBandEnergyFails) {
  // wx taken from band 0 for every band: the varied data must catch it.
  s->reset();
  for (int n1 = 0; n1 < s->nb; ++n1) s->e_n1kq[n1] = s->e_n1kq[0];
  RunContext ctx;
  v->run(*s, ctx);
  EXPECT_FALSE(s->validate(1, "").valid);
}

TEST_F(GppValidation, ATransposedArrayFails) {
  // I_eps read as [k][ig] instead of [ig][k].
  s->reset();
  AlignedArray<Complex> t(s->I_eps_array.size());
  for (int ig = 0; ig < s->nc; ++ig)
    for (int k = 0; k < s->ngpown; ++k) t[std::size_t(k) * s->nc + ig] = s->I_eps_array[std::size_t(ig) * s->ngpown + k];
  for (std::size_t i = 0; i < t.size(); ++i) s->I_eps_array[i] = t[i];
  RunContext ctx;
  v->run(*s, ctx);
  EXPECT_FALSE(s->validate(1, "").valid);
}

TEST(Gpp, ToleranceIsWithin1e7OnPaper) {
  // Stated per deck in gpp.cpp: at most 1e-7 on the paper deck.
  const Deck d = deck_for_size("paper");
  const double chain = double(d.ncouls) * d.ngpown() + double(d.number_bands) * d.ncouls;
  EXPECT_LE(2 * std::ldexp(1.0, -53) * chain, 1e-7);
  auto s = make("tiny");
  EXPECT_LE(s->tolerance(0, 0), 1e-11);
}

TEST(Gpp, ModelCountsTheStatedFlopsPerTerm) {
  auto s = make("tiny");
  const double terms = 32.0 * 32 * 512 * 3;  // bands x ngpown x ncouls x frequencies
  EXPECT_DOUBLE_EQ(s->model("").flops, flops_per_term * terms);
  EXPECT_EQ(s->model("").fom_name, "GFLOP/s");
  EXPECT_GE(s->model("").bytes, 2.0 * 16 * 512 * 32);  // I_eps and wtilde, read once
}

TEST(Gpp, DecksAreParsedStrictly) {
  const Deck d = parse_deck(" 32 2 512  16 ");
  EXPECT_EQ(d.number_bands, 32);
  EXPECT_EQ(d.ngpown(), 32);
  for (const char* bad : {"", "32 2 512", "32 2 512 16 1", "32 2 512 16x", "32 2 512 1.5", "a b c d", "0 2 512 16",
                          "32 -2 512 16", "32 2 512 513", "32 2 99999999999 16"})
    EXPECT_THROW(parse_deck(bad), UsageError) << bad;
}

TEST(Gpp, MemoryIsCheckedBeforeAllocating) {
  MemoryLimits host;
  host.host_bytes = 1e6;
  EXPECT_THROW(make_instance(deck_for_size("paper"), Data::uniform, host), UsageError);
  MemoryLimits device;
  device.host_bytes = 1e15;
  device.device_bytes = 1e6;
  EXPECT_THROW(make_instance(deck_for_size("small"), Data::uniform, device), UsageError);
}

using BadDeck = ompref::testing::BadArgs;
using ompref::testing::RefusedCommand;

INSTANTIATE_TEST_SUITE_P(
    Decks, RefusedCommand,
    ::testing::Values(BadDeck{"run gpp --no-ceiling --deck '0 2 512 16'", "number_bands"},
                      BadDeck{"run gpp --no-ceiling --deck '32 2 -512 16'", "ncouls"},
                      BadDeck{"run gpp --no-ceiling --deck '32 2 512 0'", "nodes_per_group"},
                      BadDeck{"run gpp --no-ceiling --deck '32 2 512 600'", "nodes_per_group = 600 > ncouls = 512"},
                      BadDeck{"run gpp --no-ceiling --deck '32 2 abc 16'", "not four integers"},
                      BadDeck{"run gpp --no-ceiling --deck '32 2 512'", "not four integers"},
                      BadDeck{"run gpp --no-ceiling --deck '32 2 512 16 7'", "unexpected '7'"},
                      BadDeck{"run gpp --no-ceiling --deck '60000 2 35000 1'", "GiB"},
                      BadDeck{"run gpp --no-ceiling --deck '100000 2 100000 1'", "32-bit"},
                      BadDeck{"run gpp --no-ceiling --size paper --data varied", "--data varied"},
                      BadDeck{"run gpp --no-ceiling --data random", "--data"},
                      BadDeck{"run gpp --no-ceiling --size large", "paper"},
                      BadDeck{"run stream --no-ceiling --deck '32 2 512 16'", "gpp option"}));

TEST(Gpp, TinyRunsFromTheCommand) {
  auto r = run_ompref("run gpp --size tiny --no-ceiling --reps 1 --warmup 0 --data varied");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.stderr_text, "");
}

}  // namespace
}  // namespace ompref::gpp
