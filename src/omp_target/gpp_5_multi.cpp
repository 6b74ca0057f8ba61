// gpp on the device, step 5: every device, on target_tuned's kernel. What it
// changes from target_tuned (`diff src/omp_target/gpp_4_tuned.cpp src/omp_target/gpp_5_multi.cpp`):
// - device i of n gets the rows [nc i / n, nc (i+1) / n) of I_eps_array (and
//   every other array whole: wtilde is also read at igp) and runs target_tuned's
//   kernel (tuned_element, the same --tuned-shape) over the ig chunks of its
//   rows. The work of each device is a 1/n share of the same kernel, so n
//   devices take about 1/n of target_tuned's time, where a step built on a
//   slower kernel would only divide a slower time.
// - with two or more GPUs, a parallel region holds one host thread per
//   device; each thread waits on its own device's target construct, so the
//   devices run at once, and the host adds the devices' sums. With one device
//   it computes what target_tuned computes, in the same threads.
// Why threads and not `target ... nowait` tasks: LLVM 19's runtime hands a
// `nowait` target region to its hidden helper threads, and when a team of two
// or more threads creates such tasks it can abort (an assertion on the task
// team in kmp_tasking.cpp; seen on the host fallback); a reduction on a
// `nowait` target hangs that runtime's host fallback; and outside a parallel
// region gcc-12's libgomp gives `nowait` an ad-hoc team that the next parallel
// region can deadlock on. A plain target construct per thread needs no tasks.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/gpp/complex.hpp"
#include "common/gpp/gpp.hpp"
#include "common/gpp/gpp_tuned.hpp"
#include "common/registry.hpp"
#include "common/team_bounds.hpp"

namespace ompref::gpp {
namespace {

struct Share {
  int lo, hi;
};
Share share(const GppInstance& s, std::size_t i, std::size_t n) {
  return Share{int(long(s.nc) * long(i) / long(n)), int(long(s.nc) * long(i + 1) / long(n))};
}
std::vector<int> multi_devices(const RunContext& ctx) {
  return ctx.devices.empty() ? std::vector<int>{ctx.device} : ctx.devices;
}

// Device i of n: its rows of I_eps_array, every other input whole.
DeviceData share_data(GppInstance& s, std::size_t i, std::size_t n) {
  const Share sh = share(s, i, n);
  const std::size_t lo = std::size_t(sh.lo) * s.ngpown, len = std::size_t(sh.hi - sh.lo) * s.ngpown;
  return DeviceData()
      .in(s.aqsmtemp)
      .in(s.aqsntemp)
      .in(s.I_eps_array.data() + lo, std::int64_t(len))
      .in(s.wtilde_array)
      .in(s.vcoul)
      .in(s.e_n1kq)
      .in(s.inv_igp_index)
      .in(s.indinv);
}

// target_tuned's kernel over the rows [sh.lo, sh.hi) of I_eps_array.
// The data lesson, as target_tuned's: the runner has already entered the
// inputs (share_data() above, before the clock starts), so tuned_kernel's `enter data`
// finds them present, counts one more reference and moves nothing.
template <int Bands>
Complex3 tuned_kernel(GppInstance& s, int dev, const Share& sh, int ig_chunk, int threads, bool scalars) {
  const int nb = s.nb, nc = s.nc, ngpown = s.ngpown;
  const Complex* aqsm = s.aqsmtemp.data();
  const Complex* aqsn = s.aqsntemp.data();
  const Complex* ieps = s.I_eps_array.data();
  const Complex* wtilde = s.wtilde_array.data();
  const double* vcoul = s.vcoul.data();
  const double* e_n1kq = s.e_n1kq.data();
  const int* inv_igp_index = s.inv_igp_index.data();
  const int* indinv = s.indinv.data();
  const int nbb = (nb + Bands - 1) / Bands;
  const int ig_lo = sh.lo, ig_hi = sh.hi;
  const int nchunks = ig_hi > ig_lo ? (ig_hi - ig_lo - 1) / ig_chunk + 1 : 0;  // no overflow near INT_MAX
  const std::size_t lo = std::size_t(ig_lo) * ngpown, len = std::size_t(ig_hi - ig_lo) * ngpown;
#pragma omp target enter data device(dev)                                                     \
    map(to : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[lo:len], wtilde[0:nc * ngpown], vcoul[0:nc],      \
             e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1])

  // map(alloc:): the arrays are expected present, so nothing is copied
  // (OpenMP 5.1's `present` modifier would make an absent one an error, but
  // g++-12 rejects it). The six sums come back through the reduction.
  Complex3 acc = complex3_zero();
  if (scalars) {
    double re0 = 0, im0 = 0, re1 = 0, im1 = 0, re2 = 0, im2 = 0;
#pragma omp target teams distribute parallel for collapse(3) device(dev) thread_limit(threads) OMPREF_MAX_TEAM_THREADS(tuned_max_threads) \
    map(alloc : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[lo:len], wtilde[0:nc * ngpown], vcoul[0:nc],      \
                e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1])                                   \
    reduction(+ : re0, im0, re1, im1, re2, im2)
    for (int c = 0; c < nchunks; ++c)
      for (int bb = 0; bb < nbb; ++bb)
        for (int k = 0; k < ngpown; ++k) {
          const Complex3 loc = tuned_element<Bands>(bb * Bands, k, ig_lo + c * ig_chunk,
                                                    std::min(ig_hi, ig_lo + c * ig_chunk + ig_chunk), nb, ngpown,
                                                    aqsm, aqsn, ieps, wtilde, vcoul, e_n1kq, inv_igp_index, indinv);
          re0 += loc.v[0].re, im0 += loc.v[0].im;
          re1 += loc.v[1].re, im1 += loc.v[1].im;
          re2 += loc.v[2].re, im2 += loc.v[2].im;
        }
    acc = Complex3{{{re0, im0}, {re1, im1}, {re2, im2}}};
  } else {
#pragma omp target teams distribute parallel for collapse(3) device(dev) thread_limit(threads) OMPREF_MAX_TEAM_THREADS(tuned_max_threads) \
    map(alloc : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[lo:len], wtilde[0:nc * ngpown], vcoul[0:nc],      \
                e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1])                                   \
    reduction(c3sum : acc)
    for (int c = 0; c < nchunks; ++c)
      for (int bb = 0; bb < nbb; ++bb)
        for (int k = 0; k < ngpown; ++k)
          complex3_combine(acc, tuned_element<Bands>(bb * Bands, k, ig_lo + c * ig_chunk,
                                                     std::min(ig_hi, ig_lo + c * ig_chunk + ig_chunk), nb, ngpown,
                                                     aqsm, aqsn, ieps, wtilde, vcoul, e_n1kq, inv_igp_index, indinv));
  }
  // Inputs only: their reference is given back, nothing is copied home.
#pragma omp target exit data device(dev)                                                           \
    map(release : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[lo:len], wtilde[0:nc * ngpown], vcoul[0:nc],      \
                  e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1])
  return acc;
}

// One host thread per device, each on its share; the host adds the sums.
// With one device, or where the target regions fall back to the host, the
// shares run one after another on the calling thread: host shares would only
// compete for the same cores, and LLVM 19's runtime, after a host fallback's
// teams inside a parallel region of one thread, aborts in the next reduction.
template <int Bands>
Complex3 multi_kernel(GppInstance& s, const std::vector<int>& devices, bool on_device) {
  const TunedShape& t = s.tuned;
  const int n = int(devices.size());
  std::vector<Complex3> sums(devices.size(), complex3_zero());
  if (n == 1 || !on_device) {
    for (int i = 0; i < n; ++i)
      sums[i] = tuned_kernel<Bands>(s, devices[i], share(s, i, n), t.ig_chunk, t.threads, t.scalars);
  } else {
#pragma omp parallel for num_threads(n) schedule(static, 1)
    for (int i = 0; i < n; ++i)
      sums[i] = tuned_kernel<Bands>(s, devices[i], share(s, i, n), t.ig_chunk, t.threads, t.scalars);
  }
  Complex3 total = complex3_zero();
  for (const Complex3& p : sums) complex3_combine(total, p);
  return total;
}

void target_multi(GppInstance& s, RunContext& ctx) {
  const std::vector<int> devices = multi_devices(ctx);
  switch (s.tuned.bands) {
    case 1: s.achtemp = multi_kernel<1>(s, devices, ctx.on_device); break;
    case 2: s.achtemp = multi_kernel<2>(s, devices, ctx.on_device); break;
    case 8: s.achtemp = multi_kernel<8>(s, devices, ctx.on_device); break;
    default: s.achtemp = multi_kernel<4>(s, devices, ctx.on_device); break;
  }
}

// Each device of the run gets its share before timing and releases it after.
// A DeviceData registration enters one declaration on the run's one device;
// this variant walks the devices itself, with the declaration above.
void each_share(Instance& instance, RunContext& ctx, void (DeviceData::*step)(int) const) {
  GppInstance& s = static_cast<GppInstance&>(instance);
  const std::vector<int> devices = multi_devices(ctx);
  for (std::size_t i = 0; i < devices.size(); ++i) (share_data(s, i, devices.size()).*step)(devices[i]);
}

Variant multi_variant() {
  Variant v;
  v.workload = "gpp";
  v.name = "target_multi";
  v.file = source_path(__FILE__);
  v.kind = Kind::target;
  v.sentence =
      "target_tuned split over every device by rows of ig: one host thread per device runs target_tuned's kernel "
      "on its rows, the host adds the sums";
  v.run = typed(target_multi);
  v.enter_data = [](Instance& instance, RunContext& ctx) { each_share(instance, ctx, &DeviceData::enter); };
  v.exit_data = [](Instance& instance, RunContext& ctx) { each_share(instance, ctx, &DeviceData::exit); };
  return v;
}

const Registration target_multi_registration{multi_variant().follows("target_tuned").reading({"--tuned-shape"})
        .uses({"parallel for", "target teams distribute parallel for", "collapse", "declare target",
               "declare reduction", "reduction", "struct reduction", "target enter/exit data", "map(alloc)",
               "thread_limit", "num_threads", "schedule", "multiple devices"})};

}  // namespace
}  // namespace ompref::gpp
