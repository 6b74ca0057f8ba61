// gpp on the device, step 2: one user-defined reduction. What it changes from
// target_basic (`diff src/omp_target/gpp_1_basic.cpp src/omp_target/gpp_2_udr.cpp`):
// the six real scalars become one Complex3 with `reduction(c3sum : acc)`, the
// `declare reduction` over the three-complex struct of src/common/gpp/complex.hpp.
// The same loop; what the reduction over a 48-byte struct costs is measured
// in docs/gpp.md.
#include "common/gpp/complex.hpp"
#include "common/gpp/gpp_basic.hpp"
#include "common/gpp/gpp.hpp"
#include "common/gpp/gpp_data.hpp"
#include "common/registry.hpp"

namespace ompref::gpp {

namespace {

void target_udr(GppInstance& s, RunContext& ctx) {
  const int nb = s.nb, nc = s.nc, ngpown = s.ngpown;
  const Complex* aqsm = s.aqsmtemp.data();
  const Complex* aqsn = s.aqsntemp.data();
  const Complex* ieps = s.I_eps_array.data();
  const Complex* wtilde = s.wtilde_array.data();
  const double* vcoul = s.vcoul.data();
  const double* e_n1kq = s.e_n1kq.data();
  const int* inv_igp_index = s.inv_igp_index.data();
  const int* indinv = s.indinv.data();
  const int dev = ctx.device;
  // The data lesson: the inputs go to the device once, the kernel finds them
  // there. In this suite the runner has already entered them (device_data()
  // of gpp.cpp, before the clock starts), so this `enter data` finds them present,
  // counts one more reference and moves nothing; a program without the
  // runner would put it before its repetitions.
#pragma omp target enter data device(dev)                                                     \
    map(to : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[0:nc * ngpown], wtilde[0:nc * ngpown], vcoul[0:nc], \
             e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1])

  // map(alloc:): the arrays are expected present, so nothing is copied
  // (OpenMP 5.1's `present` modifier would make an absent one an error, but
  // g++-12 rejects it). The six sums come back through the reduction.
  Complex3 acc = complex3_zero();
#pragma omp target teams distribute parallel for collapse(2) device(dev)                                   \
    map(alloc : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[0:nc * ngpown], wtilde[0:nc * ngpown], vcoul[0:nc], \
                e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1])                                   \
    reduction(c3sum : acc)
  for (int k = 0; k < ngpown; ++k) {
    for (int n1 = 0; n1 < nb; ++n1) {
      const Complex3 loc =
          basic_element(k, n1, nb, nc, ngpown, aqsm, aqsn, ieps, wtilde, vcoul, e_n1kq, inv_igp_index, indinv);
      complex3_combine(acc, loc);
    }
  }
  s.achtemp = acc;
  // Inputs only: their reference is given back, nothing is copied home.
#pragma omp target exit data device(dev)                                                           \
    map(release : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[0:nc * ngpown], wtilde[0:nc * ngpown], vcoul[0:nc], \
                  e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1])
}

const Registration target_udr_registration{target_variant(
    "gpp", "target_udr",
    "the same with one `declare reduction` over a trivially-copyable struct of three complex numbers",
    target_udr, device_data).follows("target_basic")
        .uses({"target teams distribute parallel for", "collapse", "declare target", "declare reduction", "reduction",
               "struct reduction", "target enter/exit data", "map(alloc)"})};

}  // namespace
}  // namespace ompref::gpp
