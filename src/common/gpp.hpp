#pragma once
// gpp: the BerkeleyGW General Plasmon Pole self-energy kernel (the GPP
// mini-app's `noflagOCC_solver`): for 3 frequencies iw, the sum over bands n1,
// G'-vectors k (igp) and G-vectors ig of
//
//   achtemp[iw] += delw(n1, k, ig, iw) * I_eps_array[ig][k] * factor(k, n1)
//   factor(k, n1) = conj(aqsmtemp[igp][n1]) * aqsntemp[igp][n1] * 0.5 * vcoul[igp] * wtilde_array[igp][k]
//   wdiff = wx(n1, iw) - wtilde_array[ig][k],  delw = conj(wdiff) / |wdiff|^2
//   igp = indinv[inv_igp_index[k]]
//
// Data layout, shared by every host and target variant (the seed's layout):
//   aqsmtemp, aqsntemp   ncouls x number_bands, row-major [igp][n1]
//   I_eps_array, wtilde  ncouls x ngpown,       row-major [ig][k]
//   vcoul                ncouls;  e_n1kq  number_bands
// 32-bit indices: decks whose arrays have 2^31 elements or more are refused.
//
// The per-term arithmetic lives here once, as inline functions declared for
// the device, and both src/omp_host/gpp.cpp and src/omp_target/gpp.cpp call it.
#include <array>
#include <cstddef>
#include <memory>
#include <string>

#include "common/aligned_array.hpp"
#include "common/complex.hpp"
#include "common/registry.hpp"

namespace ompref::gpp {

// The mini-app's constants: e_lk = 10, dw = 1, wx clamped below at 1e-6
// (declared for the device too: the kernels read them).
#pragma omp declare target
constexpr double e_lk = 10.0;
constexpr double dw = 1.0;
constexpr double wx_floor = 1e-6;
constexpr int nfreq = 3;
#pragma omp end declare target

// Flops of one (n1, k, ig, iw) term as the formula is written (the model of
// every variant, whatever it executes): wdiff 1 (a real minus a complex: one
// subtraction, the imaginary part is a negation), |wdiff|^2 3, delw 3 (one
// reciprocal counted as 1 flop, then conj(wdiff) scaled by it: 2), delw *
// I_eps 6, * factor 6, achtemp += 2. factor(k, n1) itself (once per (k, n1)
// in the model) is not counted: it is 1/(ncouls) of the work.
constexpr double flops_per_term = 21.0;

struct Deck {
  long number_bands = 0;
  long nvband = 0;  // parsed and unused, as in the mini-app
  long ncouls = 0;
  long nodes_per_group = 0;
  long ngpown() const { return ncouls / nodes_per_group; }
};

enum class Data { uniform, varied };

// tiny, small, medium, paper: the decks.
Deck deck_for_size(const std::string& size);
// "NB NV NC NPG": four positive integers, nodes_per_group <= ncouls. Throws UsageError.
Deck parse_deck(const std::string& text);
// The checks of parse_deck on numbers (also applied to the named decks).
void check_deck(const Deck& deck);
// Bytes the instance allocates on the host and maps to a device.
double host_bytes(const Deck& deck);
double device_bytes(const Deck& deck);

#pragma omp declare target

// wx(n1, iw) = e_lk - e_n1kq(n1) + dw (iw - 1), clamped below at 1e-6.
inline double wx_of(double e_n1kq, int iw) {
  const double w = e_lk - e_n1kq + dw * double(iw - 1);
  return w < wx_floor ? wx_floor : w;
}

// factor(k, n1) from aqsmtemp[igp][n1], aqsntemp[igp][n1], vcoul[igp], wtilde_array[igp][k].
inline Complex factor_of(Complex aqsm, Complex aqsn, double vcoul, Complex wtilde_igp) {
  return scale(conj(aqsm) * aqsn, 0.5 * vcoul) * wtilde_igp;
}

// One (n1, k, ig) element for the three frequencies, as the mini-app writes it:
// acc[iw] += conj(wdiff) / |wdiff|^2 * I_eps * factor.
inline void add_term(const double (&wx)[nfreq], Complex wtilde, Complex ieps, Complex factor, Complex3& acc) {
  for (int iw = 0; iw < nfreq; ++iw) {
    const Complex wdiff = real_minus(wx[iw], wtilde);
    const Complex delw = scale(conj(wdiff), 1.0 / norm2(wdiff));
    acc.v[iw] += delw * ieps * factor;
  }
}

// The tuned form of the same element, factor left out (the caller multiplies
// the sum over ig by factor(k, n1) once): s[iw] += conj(wdiff) / |wdiff|^2 * I_eps.
// The three reciprocals 1/d0, 1/d1, 1/d2 come from one: r = 1/(d0 d1 d2), then
// 1/d2 = r d0 d1, 1/d0 = r d2 d1, 1/d1 = r d2 d0 (one divide and 6 multiplies
// instead of three divides). The product stays a normal double while every
// |wdiff|^2 lies within [1e-100, 1e100]: true of both data sets here (|wdiff|^2
// >= 0.09 and <= 200), not of data with wdiff = 0, where the mini-app divides
// by zero as well.
inline void add_term_factored(const double (&wx)[nfreq], Complex wtilde, Complex ieps, Complex (&s)[nfreq]) {
  const double wim = wtilde.im, im2 = wim * wim;
  // conj(wdiff) I_eps = (r + i wim)(e.re + i e.im) with r = wx - wtilde.re:
  // the products of wim do not depend on the frequency, so they are formed
  // once and each frequency costs two FMAs for the product and two for the sum.
  const double wim_eim = wim * ieps.im, wim_ere = wim * ieps.re;
  const double r0 = wx[0] - wtilde.re, r1 = wx[1] - wtilde.re, r2 = wx[2] - wtilde.re;
  const double d0 = r0 * r0 + im2, d1 = r1 * r1 + im2, d2 = r2 * r2 + im2;
  const double d01 = d0 * d1;
  const double inv = 1.0 / (d01 * d2);
  const double inv2 = inv * d01;
  const double inv01 = inv * d2;
  const double inv0 = inv01 * d1, inv1 = inv01 * d0;
  s[0].re += (r0 * ieps.re - wim_eim) * inv0;
  s[0].im += (r0 * ieps.im + wim_ere) * inv0;
  s[1].re += (r1 * ieps.re - wim_eim) * inv1;
  s[1].im += (r1 * ieps.im + wim_ere) * inv1;
  s[2].re += (r2 * ieps.re - wim_eim) * inv2;
  s[2].im += (r2 * ieps.im + wim_ere) * inv2;
}

#pragma omp end declare target

class GppInstance final : public Instance {
 public:
  GppInstance(const Deck& deck, Data data, std::string size_name);
  nlohmann::json params() const override;
  Model model(const std::string& kernel) const override;
  void reset() override;
  Check validate(int repetitions, const std::string& kernel) const override;
  nlohmann::json observables(const std::string& kernel) const override;

  // The reference (closed form for uniform data, long-double sums for varied)
  // and the tolerance of each of the 6 real parts.
  const Complex3& reference() const { return reference_; }
  double tolerance(int iw, int part) const { return tolerance_[iw][part]; }
  const std::string& reference_name() const { return reference_name_; }
  // Elements (n1, k, ig) of the sum: number_bands * ngpown * ncouls.
  double elements() const;

  Deck deck;
  Data data;
  int nb, nc, ngpown;  // number_bands, ncouls, ncouls / nodes_per_group
  AlignedArray<Complex> aqsmtemp, aqsntemp;  // [igp][n1]
  AlignedArray<Complex> I_eps_array, wtilde_array;  // [ig][k]
  AlignedArray<double> vcoul;   // [ig]
  AlignedArray<double> e_n1kq;  // [n1]
  AlignedArray<int> inv_igp_index;  // [k]
  AlignedArray<int> indinv;         // [ncouls + 1]
  AlignedArray<Complex> factor_array;  // [k][n1]: scratch of the variants that store factor(k, n1)
  Complex3 achtemp;  // the result of the last repetition

 // Fills reference() and the tolerances from the current inputs (make_instance calls it).
  void compute_reference();

 private:
  std::string size_name_;
  Complex3 reference_;
  double tolerance_[nfreq][2];
  std::string reference_name_;
};

// Checks the deck and memory, then allocates and computes the reference.
std::unique_ptr<GppInstance> make_instance(const Deck& deck, Data data, const std::string& size_name,
                                           const MemoryLimits& limits);

// The closed form for uniform data: every term is equal, achtemp[iw] = N * term(iw).
Complex3 closed_form(const Deck& deck);

// Decks up to this many (n1, k, ig) elements get the long-double reference for varied data.
constexpr double varied_reference_max_elements = double(1L << 26);

}  // namespace ompref::gpp
