#pragma once
// lbm over MPI ranks: the part of lbm's instance one rank holds for the slab
// variants (lbm_slabs.hpp). Rank r of n holds the planes
// [nz r / n, nz (r + 1) / n) of the lattice between two ghost planes (local
// z = 0 and nzl + 1: its neighbours' edge planes, z periodic), on the host
// as on the device: its two lattices and its mask, made and initialised
// here, never the whole lattice. It is validated where it lies: each rank
// steps its slab's reference on the host (common/lbm/lbm_cell.hpp's cell
// arithmetic, plane by plane, with the halo exchanged by MPI messages between
// host arrays: psi's edge planes after the psi pass, the crossing
// populations after the push) and holds its owned planes against it; the
// worst error, the mass and the observables are combined with MPI
// reductions, the planes' digests in rank order. Nothing is gathered.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/aligned_array.hpp"
#include "common/lbm/lbm.hpp"

namespace ompref::lbm::slabs {

class SlabInstance final : public Instance {
 public:
  // This rank's slab of `whole`'s lattice, allocated (the lattices
  // page-locked where the whole's would be) but not initialised (reset).
  explicit SlabInstance(const LbmInstance& whole);
  // Throws UsageError when the ranks outnumber the planes or this rank's
  // slab does not fit the memory of `whole`'s limits (the host's shared by
  // the ranks of this node).
  static void check(const LbmInstance& whole);

  nlohmann::json params() const override { return whole_.params(); }
  Model model(const std::string& kernel) const override { return whole_.model(kernel); }
  std::vector<PhaseModel> phases() const override { return whole_.phases(); }
  // The slab's initial state (ghost planes included) in lattice 0, lattice 1
  // poisoned; the mass of the initial state summed over the ranks once.
  void reset() override;
  Check validate(int repetitions, const std::string& kernel) const override;
  nlohmann::json observables(const std::string& kernel) const override;

  double* current() { return lat[cur].data(); }
  const double* current() const { return lat[cur].data(); }
  // The owned planes [1, nzl] of the slab's layout.
  StateView view() const { return StateView{g, coeffs, solid.data(), 1, nzl + 1}; }

  Params p;
  Coeffs coeffs;
  int rank = 0, ranks = 1, below = 0, above = 0;
  int z0 = 0, nzl = 0;  // first owned plane of the lattice; planes owned
  long plane = 0;       // cells of one plane
  Grid g;               // nx x ny x (nzl + 2)
  FieldArray lat[2];
  AlignedArray<std::uint8_t> solid;
  int cur = 0;
  long double initial_mass = 0;  // the whole lattice's, summed over the ranks at the first reset

 private:
  // The slab's reference state after `total_steps` steps (advanced from the
  // last one computed, or restarted).
  const double* reference_state(long total_steps) const;
  nlohmann::json observe(const double* pop, long double& mass, const BlockVisit& visit) const;

  const LbmInstance& whole_;
  struct Reference {
    AlignedArray<double> lat[2], psi;
    int cur = 0;
    long steps = -1;
  };
  mutable Reference ref_;
  mutable AlignedArray<double> observed_rho_, observed_psi_;
  mutable nlohmann::json validated_;
};

// What a slab variant's part_of returns: the rank's SlabInstance of
// `instance` (an LbmInstance), checked against the memory and made at the
// first call, the whole lattice's arrays freed first; kept as its rank_part.
Instance& slab_part(Instance& instance);

}  // namespace ompref::lbm::slabs
