#pragma once
// gpp: the arithmetic of one (band n1, G'-vector k, G-vector ig) term of the
// BerkeleyGW GPP mini-app's `noflagOCC_solver`, for its three frequencies iw:
//
//   achtemp[iw] += delw(n1, k, ig, iw) * I_eps_array[ig][k] * factor(k, n1)
//   factor(k, n1) = conj(aqsmtemp[igp][n1]) * aqsntemp[igp][n1] * 0.5 * vcoul[igp] * wtilde_array[igp][k]
//   wdiff = wx(n1, iw) - wtilde_array[ig][k],  delw = conj(wdiff) / |wdiff|^2
//
// Written once, here, as inline functions declared for the device: every host
// and target variant (src/omp_host/gpp*.cpp, src/omp_target/gpp*.cpp) calls
// them, none copies them into its loop; so does the CUDA twin
// (src/native_cuda/gpp.cu), for which OMPREF_HOST_DEVICE marks them.
#include "common/gpp/complex.hpp"
#include "common/host_device.hpp"

namespace ompref::gpp {

// The mini-app's constants: e_lk = 10, dw = 1, wx clamped below at 1e-6
// (declared for the device too: the kernels read them).
#pragma omp declare target
constexpr double e_lk = 10.0;
constexpr double dw = 1.0;
constexpr double wx_floor = 1e-6;
constexpr int nfreq = 3;

// wx(n1, iw) = e_lk - e_n1kq(n1) + dw (iw - 1), clamped below at 1e-6.
OMPREF_HOST_DEVICE inline double wx_of(double e_n1kq, int iw) {
  const double w = e_lk - e_n1kq + dw * double(iw - 1);
  return w < wx_floor ? wx_floor : w;
}

// factor(k, n1) from aqsmtemp[igp][n1], aqsntemp[igp][n1], vcoul[igp], wtilde_array[igp][k].
OMPREF_HOST_DEVICE inline Complex factor_of(Complex aqsm, Complex aqsn, double vcoul, Complex wtilde_igp) {
  return scale(conj(aqsm) * aqsn, 0.5 * vcoul) * wtilde_igp;
}

// One (n1, k, ig) element for the three frequencies, as the mini-app writes it:
// acc[iw] += conj(wdiff) / |wdiff|^2 * I_eps * factor.
OMPREF_HOST_DEVICE inline void add_term(const double (&wx)[nfreq], Complex wtilde, Complex ieps, Complex factor,
                                        Complex3& acc) {
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
OMPREF_HOST_DEVICE inline void add_term_factored(const double (&wx)[nfreq], Complex wtilde, Complex ieps,
                                                 Complex (&s)[nfreq]) {
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

}  // namespace ompref::gpp
