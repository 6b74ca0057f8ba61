// gpp on the host: the competition baseline and the tiled SIMD baseline.
// Compare with src/omp_target/gpp.cpp: same arithmetic (src/common/gpp.hpp),
// same function order; the target file adds the data mapping and the steps
// of the offload.
#include <algorithm>

#include <omp.h>

#include "common/complex.hpp"
#include "common/gpp.hpp"
#include "common/registry.hpp"

namespace ompref::gpp {
namespace {

// Host data needs no mapping: reset() wrote the inputs.

// The baseline loop order: band outermost in parallel, then ig, then k
// innermost. I_eps and wtilde at [ig][k] are read in order, but factor(k, n1)
// is recomputed for every term from aqsmtemp[igp][n1], aqsntemp[igp][n1] and
// wtilde_array[igp][k]: igp jumps ncouls/ngpown rows per k (strided access).
// Six real reductions, as in the mini-app.
void host_naive(GppInstance& s, RunContext&) {
  const int nb = s.nb, nc = s.nc, ngpown = s.ngpown;
  const Complex* aqsm = s.aqsmtemp.data();
  const Complex* aqsn = s.aqsntemp.data();
  const Complex* ieps = s.I_eps_array.data();
  const Complex* wtilde = s.wtilde_array.data();
  const double* vcoul = s.vcoul.data();
  const double* e_n1kq = s.e_n1kq.data();
  const int* inv_igp_index = s.inv_igp_index.data();
  const int* indinv = s.indinv.data();

  double re0 = 0, im0 = 0, re1 = 0, im1 = 0, re2 = 0, im2 = 0;
#pragma omp parallel for schedule(static) reduction(+ : re0, im0, re1, im1, re2, im2)
  for (int n1 = 0; n1 < nb; ++n1) {
    double wx[nfreq];
    for (int iw = 0; iw < nfreq; ++iw) wx[iw] = wx_of(e_n1kq[n1], iw);
    Complex3 band = complex3_zero();  // this band's sum, then added to the totals
    for (int ig = 0; ig < nc; ++ig) {
      for (int k = 0; k < ngpown; ++k) {
        const int igp = indinv[inv_igp_index[k]];
        const Complex factor = factor_of(aqsm[igp * nb + n1], aqsn[igp * nb + n1], vcoul[igp], wtilde[igp * ngpown + k]);
        add_term(wx, wtilde[ig * ngpown + k], ieps[ig * ngpown + k], factor, band);
      }
    }
    re0 += band.v[0].re, im0 += band.v[0].im;
    re1 += band.v[1].re, im1 += band.v[1].im;
    re2 += band.v[2].re, im2 += band.v[2].im;
  }
  s.achtemp = Complex3{{{re0, im0}, {re1, im1}, {re2, im2}}};
}

// Rows of I_eps_array and wtilde_array per block: about 512 KiB of them (a
// core's L2), and at least 4 blocks per thread so every thread has work.
int ig_block(const GppInstance& s) {
  const double row_bytes = 2.0 * sizeof(Complex) * s.ngpown;
  int rows = std::max(1, int(512.0 * 1024 / row_bytes));
  const int per_thread = (s.nc + 4 * omp_get_max_threads() - 1) / (4 * omp_get_max_threads());
  return std::max(1, std::min(rows, per_thread));
}

// Contiguous access: factor(k, n1) computed once per run into a table
// [n1][k] (the strided reads happen once per (n1, k), not per term); the
// blocks of ig rows are shared among threads and every band sweeps a block
// while it is in cache; the inner loop runs along k, contiguous in
// I_eps_array, wtilde_array and the factor table, vectorised by `omp simd`
// with the declared three-complex reduction.
void host_tiled(GppInstance& s, RunContext&) {
  const int nb = s.nb, nc = s.nc, ngpown = s.ngpown;
  const Complex* aqsm = s.aqsmtemp.data();
  const Complex* aqsn = s.aqsntemp.data();
  const Complex* ieps = s.I_eps_array.data();
  const Complex* wtilde = s.wtilde_array.data();
  const double* vcoul = s.vcoul.data();
  const double* e_n1kq = s.e_n1kq.data();
  const int* inv_igp_index = s.inv_igp_index.data();
  const int* indinv = s.indinv.data();
  Complex* fac = s.factor_array.data();  // [n1][k] here
  const int block = ig_block(s);
  const int nblocks = (nc + block - 1) / block;

  Complex3 total = complex3_zero();
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int n1 = 0; n1 < nb; ++n1)
      for (int k = 0; k < ngpown; ++k) {
        const int igp = indinv[inv_igp_index[k]];
        fac[n1 * ngpown + k] = factor_of(aqsm[igp * nb + n1], aqsn[igp * nb + n1], vcoul[igp], wtilde[igp * ngpown + k]);
      }
    // (the implicit barrier: the table is complete)
#pragma omp for schedule(dynamic, 1) reduction(c3sum : total)
    for (int b = 0; b < nblocks; ++b) {
      const int ig0 = b * block, ig1 = std::min(nc, ig0 + block);
      for (int n1 = 0; n1 < nb; ++n1) {
        double wx[nfreq];
        for (int iw = 0; iw < nfreq; ++iw) wx[iw] = wx_of(e_n1kq[n1], iw);
        const Complex* f = fac + n1 * ngpown;
        Complex3 part = complex3_zero();  // this (block, band): then added to the thread's total
        for (int ig = ig0; ig < ig1; ++ig) {
          const Complex* w = wtilde + ig * ngpown;
          const Complex* e = ieps + ig * ngpown;
#pragma omp simd reduction(c3sum : part)
          for (int k = 0; k < ngpown; ++k) add_term(wx, w[k], e[k], f[k], part);
        }
        complex3_combine(total, part);
      }
    }
  }
  s.achtemp = total;
}

const Registration host_naive_registration{host_variant(
    "gpp", "host_naive",
    "the competition baseline: band loop outermost in parallel, k innermost, factor recomputed per term from strided rows",
    host_naive)};
const Registration host_tiled_registration{host_variant(
    "gpp", "host_tiled",
    "the papers' host baseline: factor table, blocks of ig rows in cache, `omp simd` along contiguous k with a three-complex `declare reduction`",
    host_tiled)};

}  // namespace
}  // namespace ompref::gpp
