// gpp on the device, step 5: every device, on target_tuned's kernel. What it
// changes from target_tuned (`diff src/omp_target/gpp_4_tuned.cpp src/omp_target/gpp_5_multi.cpp`):
// - device i of n gets the rows [nc i / n, nc (i+1) / n) of I_eps_array (and
//   every other array whole: wtilde is also read at igp) and runs target_tuned's
//   threads (tuned_element, the same --tuned-shape) over its rows with
//   `nowait`; the host adds the devices' partial sums after a taskwait. The
//   work of each device is a 1/n share of the same kernel, so n devices take
//   about 1/n of target_tuned's time, where a step built on a slower kernel
//   would only divide a slower time.
// - the reduction moves into the teams: a `reduction` clause on a `target ...
//   nowait` construct hangs clang-19's runtime when the region falls back to
//   the host, so each team takes `threads` consecutive (band block, k) pairs
//   of one ig chunk (target_tuned's collapsed order, k fastest), reduces them
//   with `parallel for reduction(c3sum)` and writes one partial sum, and the
//   host adds the partial sums. With one device it computes what target_tuned
//   computes, in the same threads.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/complex.hpp"
#include "common/gpp.hpp"
#include "common/gpp_tuned.hpp"
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

// A device's teams: (ig chunk of its rows, tile of `threads` consecutive (band block, k) pairs).
struct Teams {
  int chunks, tiles;
  int count() const { return chunks * tiles; }
};
Teams teams_of(const GppInstance& s, const Share& sh, int bands, const TunedShape& t) {
  const long pairs = long((s.nb + bands - 1) / bands) * s.ngpown;
  const long chunks = (long(sh.hi) - sh.lo + t.ig_chunk - 1) / t.ig_chunk;
  return Teams{int(std::max(1L, chunks)), int((pairs + t.threads - 1) / t.threads)};
}

template <int Bands>
Complex3 multi_kernel(GppInstance& s, const std::vector<int>& devices, bool on_device) {
  const int nb = s.nb, nc = s.nc, ngpown = s.ngpown;
  const Complex* aqsm = s.aqsmtemp.data();
  const Complex* aqsn = s.aqsntemp.data();
  const Complex* ieps = s.I_eps_array.data();
  const Complex* wtilde = s.wtilde_array.data();
  const double* vcoul = s.vcoul.data();
  const double* e_n1kq = s.e_n1kq.data();
  const int* inv_igp_index = s.inv_igp_index.data();
  const int* indinv = s.indinv.data();
  const int ig_chunk = s.tuned.ig_chunk, threads = s.tuned.threads;
  const long pairs = long((nb + Bands - 1) / Bands) * ngpown;
  // Per device, one partial sum per team, written by the team.
  std::vector<std::size_t> first(devices.size() + 1, 0);
  for (std::size_t i = 0; i < devices.size(); ++i)
    first[i + 1] = first[i] + std::size_t(teams_of(s, share(s, i, devices.size()), Bands, s.tuned).count());
  std::vector<Complex3> partial(first.back());
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
      const Teams t = teams_of(s, sh, Bands, s.tuned);
      const int ig_lo = sh.lo, ig_hi = sh.hi, tiles = t.tiles, nteams = t.count();
      // On the host fallback one team walks them all (league(), registry.hpp).
      const int teams = league(on_device, nteams), limit = on_device ? threads : 1;
      const std::size_t lo = std::size_t(ig_lo) * ngpown, len = std::size_t(ig_hi - ig_lo) * ngpown;
      Complex3* part = partial.data() + first[i];  // lives until the taskwait
#pragma omp target teams distribute device(dev) nowait depend(out : part[0]) num_teams(teams) thread_limit(limit) \
    OMPREF_MAX_TEAM_THREADS(tuned_max_threads)                                                                 \
    map(alloc : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[lo:len], wtilde[0:nc * ngpown], vcoul[0:nc],                 \
                e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1]) map(from : part[0:nteams])
      for (int team = 0; team < nteams; ++team) {
        const int c = team / tiles;
        const long p0 = long(team % tiles) * threads, p1 = std::min(pairs, p0 + threads);
        const int ig0 = ig_lo + c * ig_chunk, ig1 = ig0 + std::min(ig_chunk, ig_hi - ig0);
        Complex3 acc = complex3_zero();
#pragma omp parallel for reduction(c3sum : acc)
        for (long p = p0; p < p1; ++p) {
          const int bb = int(p / ngpown), k = int(p % ngpown);
          complex3_combine(acc, tuned_element<Bands>(bb * Bands, k, ig0, ig1, nb, ngpown, aqsm, aqsn, ieps, wtilde,
                                                     vcoul, e_n1kq, inv_igp_index, indinv));
        }
        part[team] = acc;
      }
    }
#pragma omp taskwait
  }
  Complex3 total = complex3_zero();
  for (const Complex3& p : partial) complex3_combine(total, p);
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
  v.kind = Kind::target;
  v.sentence =
      "target_tuned split over every device by rows of ig: `device(d) nowait depend`, a partial sum per team, "
      "added on the host";
  v.run = typed(target_multi);
  v.enter_data = [](Instance& instance, RunContext& ctx) { each_share(instance, ctx, &DeviceData::enter); };
  v.exit_data = [](Instance& instance, RunContext& ctx) { each_share(instance, ctx, &DeviceData::exit); };
  return v;
}

const Registration target_multi_registration{multi_variant()};

}  // namespace
}  // namespace ompref::gpp
