// gpp on the host, step 1: the tiled SIMD baseline the papers compare against.
// What it changes from host_naive (src/omp_host/gpp.cpp), seen with
// `diff src/omp_host/gpp.cpp src/omp_host/gpp_tiled.cpp`:
// - factor(k, n1) is computed once per run into a table [n1][k]: the strided
//   reads of aqsmtemp, aqsntemp and wtilde at igp happen once per (n1, k),
//   not once per term;
// - the ig rows are cut into blocks of about a core's L2, shared among the
//   threads, and every band sweeps a block while it is in cache;
// - the inner loop runs along k, contiguous in I_eps_array, wtilde_array and
//   the factor table, vectorised by `omp simd` with the three-complex
//   `declare reduction` of src/common/gpp/complex.hpp instead of six scalars.
#include <algorithm>

#include <omp.h>

#include "common/gpp/complex.hpp"
#include "common/gpp/gpp.hpp"
#include "common/registry.hpp"

namespace ompref::gpp {
namespace {

// Rows of I_eps_array and wtilde_array per block: about 512 KiB of them (a
// core's L2), and at least 4 blocks per thread so every thread has work.
int ig_block(const GppInstance& s) {
  const double row_bytes = 2.0 * sizeof(Complex) * s.ngpown;
  int rows = std::max(1, int(512.0 * 1024 / row_bytes));
  const int per_thread = (s.nc + 4 * omp_get_max_threads() - 1) / (4 * omp_get_max_threads());
  return std::max(1, std::min(rows, per_thread));
}

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

const Registration host_tiled_registration{host_variant(
    "gpp", "host_tiled",
    "the papers' host baseline: factor table, blocks of ig rows in cache, `omp simd` along contiguous k with a three-complex `declare reduction`",
    host_tiled).follows("host_naive")
        .uses({"parallel for", "simd", "declare reduction", "reduction", "struct reduction", "schedule"})};

}  // namespace
}  // namespace ompref::gpp
