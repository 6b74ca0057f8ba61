// gpp on the device: the seed's steps, one variant each. Compare with
// src/omp_host/gpp.cpp: the same arithmetic (src/common/gpp.hpp); here the
// data is mapped once and each variant changes a few lines of the previous one.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "common/complex.hpp"
#include "common/gpp.hpp"
#include "common/registry.hpp"

namespace ompref::gpp {
namespace {

// Every array goes to the device once, before timing; the kernels name them
// with map(alloc:), which finds them present and moves nothing.
void enter_data(GppInstance& s, RunContext& ctx) {
  const std::size_t nab = std::size_t(s.nc) * s.nb, nig = std::size_t(s.nc) * s.ngpown;
  const std::size_t nc = s.nc, nb = s.nb, ngpown = s.ngpown, nfac = s.factor_array.size();
  [[maybe_unused]] Complex* aqsm = s.aqsmtemp.data();  // unused where target pragmas compile away
  [[maybe_unused]] Complex* aqsn = s.aqsntemp.data();
  [[maybe_unused]] Complex* ieps = s.I_eps_array.data();
  [[maybe_unused]] Complex* wtilde = s.wtilde_array.data();
  [[maybe_unused]] double* vcoul = s.vcoul.data();
  [[maybe_unused]] double* e_n1kq = s.e_n1kq.data();
  [[maybe_unused]] int* inv_igp_index = s.inv_igp_index.data();
  [[maybe_unused]] int* indinv = s.indinv.data();
  [[maybe_unused]] Complex* fac = s.factor_array.data();
#pragma omp target enter data device(ctx.device)                                                        \
    map(to : aqsm[0:nab], aqsn[0:nab], ieps[0:nig], wtilde[0:nig], vcoul[0:nc], e_n1kq[0:nb],          \
            inv_igp_index[0:ngpown], indinv[0:nc + 1]) map(alloc : fac[0:nfac])
}

void exit_data(GppInstance& s, RunContext& ctx) {
  const std::size_t nab = std::size_t(s.nc) * s.nb, nig = std::size_t(s.nc) * s.ngpown;
  const std::size_t nc = s.nc, nb = s.nb, ngpown = s.ngpown, nfac = s.factor_array.size();
  [[maybe_unused]] Complex* aqsm = s.aqsmtemp.data();
  [[maybe_unused]] Complex* aqsn = s.aqsntemp.data();
  [[maybe_unused]] Complex* ieps = s.I_eps_array.data();
  [[maybe_unused]] Complex* wtilde = s.wtilde_array.data();
  [[maybe_unused]] double* vcoul = s.vcoul.data();
  [[maybe_unused]] double* e_n1kq = s.e_n1kq.data();
  [[maybe_unused]] int* inv_igp_index = s.inv_igp_index.data();
  [[maybe_unused]] int* indinv = s.indinv.data();
  [[maybe_unused]] Complex* fac = s.factor_array.data();
  // achtemp comes back through the reductions: the arrays are only released.
#pragma omp target exit data device(ctx.device)                                                          \
    map(release : aqsm[0:nab], aqsn[0:nab], ieps[0:nig], wtilde[0:nig], vcoul[0:nc], e_n1kq[0:nb],       \
                  inv_igp_index[0:ngpown], indinv[0:nc + 1], fac[0:nfac])
}

// The names every kernel below uses (the device pointers are found by map(alloc:)).
#define GPP_ARRAYS                                                                 \
  const int nb = s.nb, nc = s.nc, ngpown = s.ngpown;                               \
  const std::size_t nab = std::size_t(nc) * nb, nig = std::size_t(nc) * ngpown;    \
  [[maybe_unused]] const Complex* aqsm = s.aqsmtemp.data();                        \
  [[maybe_unused]] const Complex* aqsn = s.aqsntemp.data();                        \
  [[maybe_unused]] const Complex* ieps = s.I_eps_array.data();                     \
  [[maybe_unused]] const Complex* wtilde = s.wtilde_array.data();                  \
  [[maybe_unused]] const double* vcoul = s.vcoul.data();                           \
  [[maybe_unused]] const double* e_n1kq = s.e_n1kq.data();                         \
  [[maybe_unused]] const int* inv_igp_index = s.inv_igp_index.data();              \
  [[maybe_unused]] const int* indinv = s.indinv.data();                            \
  (void)nab, (void)nig
#define GPP_MAP                                                                                        \
  map(alloc : aqsm[0:nab], aqsn[0:nab], ieps[0:nig], wtilde[0:nig], vcoul[0:nc], e_n1kq[0:nb],        \
              inv_igp_index[0:ngpown], indinv[0:nc + 1])

// Step 1, the first port: the baseline's body with the loops turned around,
// (k, n1) collapsed over teams and threads, ig inside; one thread per (k, n1)
// sums over ig; six real scalar reductions combine the threads.
void target_basic(GppInstance& s, RunContext& ctx) {
  GPP_ARRAYS;
  const int dev = ctx.device;
  double re0 = 0, im0 = 0, re1 = 0, im1 = 0, re2 = 0, im2 = 0;
#pragma omp target teams distribute parallel for collapse(2) device(dev) GPP_MAP \
    reduction(+ : re0, im0, re1, im1, re2, im2)
  for (int k = 0; k < ngpown; ++k) {
    for (int n1 = 0; n1 < nb; ++n1) {
      const int igp = indinv[inv_igp_index[k]];
      double wx[nfreq];
      for (int iw = 0; iw < nfreq; ++iw) wx[iw] = wx_of(e_n1kq[n1], iw);
      Complex3 loc = complex3_zero();
      for (int ig = 0; ig < nc; ++ig) {
        const Complex factor = factor_of(aqsm[igp * nb + n1], aqsn[igp * nb + n1], vcoul[igp], wtilde[igp * ngpown + k]);
        add_term(wx, wtilde[ig * ngpown + k], ieps[ig * ngpown + k], factor, loc);
      }
      re0 += loc.v[0].re, im0 += loc.v[0].im;
      re1 += loc.v[1].re, im1 += loc.v[1].im;
      re2 += loc.v[2].re, im2 += loc.v[2].im;
    }
  }
  s.achtemp = Complex3{{{re0, im0}, {re1, im1}, {re2, im2}}};
}

// Step 2: the same loop, one `declare reduction` over the three-complex
// struct (src/common/complex.hpp) instead of six scalars.
void target_udr(GppInstance& s, RunContext& ctx) {
  GPP_ARRAYS;
  const int dev = ctx.device;
  Complex3 acc = complex3_zero();
#pragma omp target teams distribute parallel for collapse(2) device(dev) GPP_MAP reduction(c3sum : acc)
  for (int k = 0; k < ngpown; ++k) {
    for (int n1 = 0; n1 < nb; ++n1) {
      const int igp = indinv[inv_igp_index[k]];
      double wx[nfreq];
      for (int iw = 0; iw < nfreq; ++iw) wx[iw] = wx_of(e_n1kq[n1], iw);
      Complex3 loc = complex3_zero();
      for (int ig = 0; ig < nc; ++ig) {
        const Complex factor = factor_of(aqsm[igp * nb + n1], aqsn[igp * nb + n1], vcoul[igp], wtilde[igp * ngpown + k]);
        add_term(wx, wtilde[ig * ngpown + k], ieps[ig * ngpown + k], factor, loc);
      }
      complex3_combine(acc, loc);
    }
  }
  s.achtemp = acc;
}

// Step 3, the seed's factor extraction: factor(k, n1) depends on neither ig
// nor iw; a first kernel stores it in a device array [k][n1] (contiguous for
// neighbouring threads), the main kernel reads it once per thread.
void target_hoisted(GppInstance& s, RunContext& ctx) {
  GPP_ARRAYS;
  const int dev = ctx.device;
  const std::size_t nfac = s.factor_array.size();
  Complex* fac = s.factor_array.data();
#pragma omp target teams distribute parallel for collapse(2) device(dev) GPP_MAP map(alloc : fac[0:nfac])
  for (int k = 0; k < ngpown; ++k) {
    for (int n1 = 0; n1 < nb; ++n1) {
      const int igp = indinv[inv_igp_index[k]];
      fac[k * nb + n1] = factor_of(aqsm[igp * nb + n1], aqsn[igp * nb + n1], vcoul[igp], wtilde[igp * ngpown + k]);
    }
  }
  Complex3 acc = complex3_zero();
#pragma omp target teams distribute parallel for collapse(2) device(dev) GPP_MAP map(alloc : fac[0:nfac]) \
    reduction(c3sum : acc)
  for (int k = 0; k < ngpown; ++k) {
    for (int n1 = 0; n1 < nb; ++n1) {
      double wx[nfreq];
      for (int iw = 0; iw < nfreq; ++iw) wx[iw] = wx_of(e_n1kq[n1], iw);
      const Complex factor = fac[k * nb + n1];
      Complex3 loc = complex3_zero();
      for (int ig = 0; ig < nc; ++ig) add_term(wx, wtilde[ig * ngpown + k], ieps[ig * ngpown + k], factor, loc);
      complex3_combine(acc, loc);
    }
  }
  s.achtemp = acc;
}

// Step 4, tuned. What changes from target_hoisted:
// - k is the fastest index of the threads (loads of I_eps and wtilde at
//   [ig][k] are coalesced) and each thread takes `Bands` bands: one load of
//   I_eps[ig][k] and wtilde[ig][k] serves Bands x 3 terms from registers;
// - the ig range is cut into chunks, a third collapsed loop: millions of
//   short threads instead of n1 x k long ones, so the last wave is small;
// - factor(k, n1) leaves the ig loop altogether: sum_ig (delw I_eps) is
//   multiplied by it once (no factor array, no per-term complex product);
// - one divide for the three 1/|wdiff|^2 (add_term_factored).
// OMPREF_GPP_TUNED="bands,ig_chunk,thread_limit[,scalars]" overrides the
// defaults (a tuning knob: bands 1, 2, 4 or 8; scalars 1: six real reductions).
// The defaults are the fastest shape measured on the H200 (docs/gpp.md).
struct TunedShape {
  int bands = 4;
  int ig_chunk = 8192;
  int threads = 192;
  int scalars = 0;  // 1: six real reductions instead of the three-complex one
};

TunedShape tuned_shape() {
  TunedShape t;
  if (const char* env = std::getenv("OMPREF_GPP_TUNED")) {
    int b = 0, c = 0, th = 0, sc = 0;
    const int got = std::sscanf(env, "%d,%d,%d,%d", &b, &c, &th, &sc);
    if (got >= 3 && (b == 1 || b == 2 || b == 4 || b == 8) && c > 0 && th > 0 && th <= 1024)
      t = TunedShape{b, c, th, got == 4 ? sc : 0};
  }
  return t;
}

#pragma omp declare target
// One thread's work: bands [n0, n0 + Bands) at k, rows [ig0, ig1); returns its three sums.
template <int Bands>
inline Complex3 tuned_element(int n0, int k, int ig0, int ig1, int nb, int ngpown, const Complex* aqsm,
                              const Complex* aqsn, const Complex* ieps, const Complex* wtilde, const double* vcoul,
                              const double* e_n1kq, const int* inv_igp_index, const int* indinv) {
  double wx[Bands][nfreq];
  Complex sum[Bands][nfreq];
  for (int b = 0; b < Bands; ++b) {
    const int n1 = n0 + b < nb ? n0 + b : nb - 1;  // past the last band: computed, then dropped
    for (int iw = 0; iw < nfreq; ++iw) {
      wx[b][iw] = wx_of(e_n1kq[n1], iw);
      sum[b][iw] = Complex{0.0, 0.0};
    }
  }
  for (int ig = ig0; ig < ig1; ++ig) {
    const Complex w = wtilde[ig * ngpown + k];
    const Complex e = ieps[ig * ngpown + k];
    for (int b = 0; b < Bands; ++b) add_term_factored(wx[b], w, e, sum[b]);
  }
  const int igp = indinv[inv_igp_index[k]];
  const Complex wk = wtilde[igp * ngpown + k];
  Complex3 loc = complex3_zero();
  for (int b = 0; b < Bands; ++b) {
    if (n0 + b >= nb) break;
    const int n1 = n0 + b;
    const Complex factor = factor_of(aqsm[igp * nb + n1], aqsn[igp * nb + n1], vcoul[igp], wk);
    for (int iw = 0; iw < nfreq; ++iw) loc.v[iw] += sum[b][iw] * factor;
  }
  return loc;
}
#pragma omp end declare target

#define GPP_TUNED_ELEMENT                                                                                   \
  tuned_element<Bands>(bb * Bands, k, c * ig_chunk, std::min(nc, c * ig_chunk + ig_chunk), nb, ngpown, aqsm, \
                       aqsn, ieps, wtilde, vcoul, e_n1kq, inv_igp_index, indinv)

template <int Bands>
Complex3 tuned_kernel(GppInstance& s, int dev, int ig_chunk, int threads, bool scalars) {
  GPP_ARRAYS;
  const int nbb = (nb + Bands - 1) / Bands;
  const int nchunks = (nc + ig_chunk - 1) / ig_chunk;
  if (scalars) {
    double re0 = 0, im0 = 0, re1 = 0, im1 = 0, re2 = 0, im2 = 0;
#pragma omp target teams distribute parallel for collapse(3) device(dev) thread_limit(threads) GPP_MAP \
    reduction(+ : re0, im0, re1, im1, re2, im2)
    for (int c = 0; c < nchunks; ++c)
      for (int bb = 0; bb < nbb; ++bb)
        for (int k = 0; k < ngpown; ++k) {
          const Complex3 loc = GPP_TUNED_ELEMENT;
          re0 += loc.v[0].re, im0 += loc.v[0].im;
          re1 += loc.v[1].re, im1 += loc.v[1].im;
          re2 += loc.v[2].re, im2 += loc.v[2].im;
        }
    return Complex3{{{re0, im0}, {re1, im1}, {re2, im2}}};
  }
  Complex3 acc = complex3_zero();
#pragma omp target teams distribute parallel for collapse(3) device(dev) thread_limit(threads) GPP_MAP \
    reduction(c3sum : acc)
  for (int c = 0; c < nchunks; ++c)
    for (int bb = 0; bb < nbb; ++bb)
      for (int k = 0; k < ngpown; ++k) complex3_combine(acc, GPP_TUNED_ELEMENT);
  return acc;
}
#undef GPP_TUNED_ELEMENT

void target_tuned(GppInstance& s, RunContext& ctx) {
  static const TunedShape t = tuned_shape();
  const bool sc = t.scalars != 0;
  switch (t.bands) {
    case 1: s.achtemp = tuned_kernel<1>(s, ctx.device, t.ig_chunk, t.threads, sc); break;
    case 2: s.achtemp = tuned_kernel<2>(s, ctx.device, t.ig_chunk, t.threads, sc); break;
    case 8: s.achtemp = tuned_kernel<8>(s, ctx.device, t.ig_chunk, t.threads, sc); break;
    default: s.achtemp = tuned_kernel<4>(s, ctx.device, t.ig_chunk, t.threads, sc); break;
  }
}

// Step 5, every device: device i of n gets the rows [nc i / n, nc (i+1) / n)
// of I_eps_array (and every other array whole: wtilde is also read at igp)
// and runs target_udr's arithmetic on its rows with `nowait`; the host adds
// the partial sums after a taskwait. With one device it computes what
// target_udr computes, in the same (k, n1) threads. One difference of shape:
// a `reduction` clause on a `target ... nowait` construct hangs clang-19's
// runtime when the region falls back to the host (measured here), so the
// reduction is over n1 inside each team (`parallel for reduction`), and each
// team writes its k's partial sum to an array the host adds up.
struct Share {
  int lo, hi;
};
Share share(const GppInstance& s, std::size_t i, std::size_t n) {
  return Share{int(long(s.nc) * long(i) / long(n)), int(long(s.nc) * long(i + 1) / long(n))};
}
std::vector<int> multi_devices(const RunContext& ctx) {
  return ctx.devices.empty() ? std::vector<int>{ctx.device} : ctx.devices;
}

void multi_enter_data(GppInstance& s, RunContext& ctx) {
  GPP_ARRAYS;
  const std::vector<int> devices = multi_devices(ctx);
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const int dev = devices[i];
    const Share sh = share(s, i, devices.size());
    const std::size_t lo = std::size_t(sh.lo) * ngpown, len = std::size_t(sh.hi - sh.lo) * ngpown;
#pragma omp target enter data device(dev)                                                                   \
    map(to : aqsm[0:nab], aqsn[0:nab], ieps[lo:len], wtilde[0:nig], vcoul[0:nc], e_n1kq[0:nb],              \
            inv_igp_index[0:ngpown], indinv[0:nc + 1])
  }
}

void multi_exit_data(GppInstance& s, RunContext& ctx) {
  GPP_ARRAYS;
  const std::vector<int> devices = multi_devices(ctx);
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const int dev = devices[i];
    const Share sh = share(s, i, devices.size());
    const std::size_t lo = std::size_t(sh.lo) * ngpown, len = std::size_t(sh.hi - sh.lo) * ngpown;
#pragma omp target exit data device(dev)                                                                    \
    map(release : aqsm[0:nab], aqsn[0:nab], ieps[lo:len], wtilde[0:nig], vcoul[0:nc], e_n1kq[0:nb],         \
                  inv_igp_index[0:ngpown], indinv[0:nc + 1])
  }
}

void target_multi(GppInstance& s, RunContext& ctx) {
  GPP_ARRAYS;
  const std::vector<int> devices = multi_devices(ctx);
  // Per device, one partial sum per k, written by the team that owns k.
  std::vector<Complex3> partial(devices.size() * ngpown);
  // The target tasks are made inside a parallel region, one thread per device
  // (so a runtime without asynchronous targets still runs the devices at once).
  // Outside one, gcc-12's libgomp gives `nowait` an ad-hoc team that the next
  // parallel region of the process can deadlock on after a host fallback.
#pragma omp parallel num_threads(int(devices.size()))
#pragma omp single
  {
    for (std::size_t i = 0; i < devices.size(); ++i) {
      const int dev = devices[i];
      const Share sh = share(s, i, devices.size());
      const int ig_lo = sh.lo, ig_hi = sh.hi;
      const std::size_t lo = std::size_t(ig_lo) * ngpown, len = std::size_t(ig_hi - ig_lo) * ngpown;
      Complex3* part = partial.data() + i * ngpown;  // lives until the taskwait
#pragma omp target teams distribute device(dev) nowait depend(out : part[0])                             \
      map(alloc : aqsm[0:nab], aqsn[0:nab], ieps[lo:len], wtilde[0:nig], vcoul[0:nc], e_n1kq[0:nb],         \
                  inv_igp_index[0:ngpown], indinv[0:nc + 1]) map(from : part[0:ngpown])
      for (int k = 0; k < ngpown; ++k) {
        const int igp = indinv[inv_igp_index[k]];
        Complex3 acc = complex3_zero();
#pragma omp parallel for reduction(c3sum : acc)
        for (int n1 = 0; n1 < nb; ++n1) {
          double wx[nfreq];
          for (int iw = 0; iw < nfreq; ++iw) wx[iw] = wx_of(e_n1kq[n1], iw);
          Complex3 loc = complex3_zero();
          for (int ig = ig_lo; ig < ig_hi; ++ig) {
            const Complex factor = factor_of(aqsm[igp * nb + n1], aqsn[igp * nb + n1], vcoul[igp], wtilde[igp * ngpown + k]);
            add_term(wx, wtilde[ig * ngpown + k], ieps[ig * ngpown + k], factor, loc);
          }
          complex3_combine(acc, loc);
        }
        part[k] = acc;
      }
    }
#pragma omp taskwait
  }
  Complex3 total = complex3_zero();
  for (const Complex3& p : partial) complex3_combine(total, p);
  s.achtemp = total;
}

#undef GPP_ARRAYS
#undef GPP_MAP

const Registration target_basic_registration{target_variant(
    "gpp", "target_basic",
    "the first port: `target teams distribute parallel for` over (k, n1) collapsed, ig inside, six real scalar reductions",
    target_basic, enter_data, exit_data)};
const Registration target_udr_registration{target_variant(
    "gpp", "target_udr",
    "the same with one `declare reduction` over a trivially-copyable struct of three complex numbers",
    target_udr, enter_data, exit_data)};
const Registration target_hoisted_registration{target_variant(
    "gpp", "target_hoisted",
    "factor(k, n1) computed by a first kernel into a device array, then read by the main kernel",
    target_hoisted, enter_data, exit_data)};
const Registration target_tuned_registration{target_variant(
    "gpp", "target_tuned",
    "coalesced k, several bands per thread, ig chunks as a third collapsed loop, factor out of the ig sum, one divide for three",
    target_tuned, enter_data, exit_data)};
const Registration target_multi_registration{target_variant(
    "gpp", "target_multi",
    "target_udr split over every device by rows of ig: `device(d) nowait depend`, partial sums added on the host",
    target_multi, multi_enter_data, multi_exit_data)};

}  // namespace
}  // namespace ompref::gpp
