// gpp on the device, step 5: every device. Built on target_udr's loop, not
// target_tuned's (`diff src/omp_target/gpp_2_udr.cpp src/omp_target/gpp_5_multi.cpp`):
// device i of n gets the rows [nc i / n, nc (i+1) / n) of I_eps_array (and
// every other array whole: wtilde is also read at igp) and runs target_udr's
// arithmetic on its rows with `nowait`; the host adds the partial sums after a
// taskwait. With one device it computes what target_udr computes, in the same
// (k, n1) threads. One difference of shape: a `reduction` clause on a
// `target ... nowait` construct hangs clang-19's runtime when the region falls
// back to the host, so the reduction is over n1 inside each team (`parallel
// for reduction`), and each team writes its k's partial sum to an array the
// host adds up.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/complex.hpp"
#include "common/gpp.hpp"
#include "common/registry.hpp"

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

void target_multi(GppInstance& s, RunContext& ctx) {
  const int nb = s.nb, nc = s.nc, ngpown = s.ngpown;
  const Complex* aqsm = s.aqsmtemp.data();
  const Complex* aqsn = s.aqsntemp.data();
  const Complex* ieps = s.I_eps_array.data();
  const Complex* wtilde = s.wtilde_array.data();
  const double* vcoul = s.vcoul.data();
  const double* e_n1kq = s.e_n1kq.data();
  const int* inv_igp_index = s.inv_igp_index.data();
  const int* indinv = s.indinv.data();
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
#pragma omp target teams distribute device(dev) nowait depend(out : part[0])                               \
    map(alloc : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[lo:len], wtilde[0:nc * ngpown], vcoul[0:nc],       \
                e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1]) map(from : part[0:ngpown])
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
  v.kind = Kind::target;
  v.sentence = "target_udr split over every device by rows of ig: `device(d) nowait depend`, partial sums added on the host";
  v.run = typed(target_multi);
  v.enter_data = [](Instance& instance, RunContext& ctx) { each_share(instance, ctx, &DeviceData::enter); };
  v.exit_data = [](Instance& instance, RunContext& ctx) { each_share(instance, ctx, &DeviceData::exit); };
  return v;
}

const Registration target_multi_registration{multi_variant()};

}  // namespace
}  // namespace ompref::gpp
