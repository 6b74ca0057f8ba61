#pragma once
// lbm: openLBMflow's D3Q19 Shan-Chen multiphase lattice Boltzmann, with the
// adsorption force of the SYCL port by Ding et al. 2023. The problem (cases,
// sizes, parameters), the data layout every variant shares and the instance.
// By subject: lbm_cell.hpp (the arithmetic of one cell, host and device),
// lbm_tiling.hpp (the launch of a team per tile), lbm.cpp (layout, initial state,
// bytes model), lbm_options.cpp (sizes, cases, shapes, the checks),
// lbm_reference.cpp (the host reference run), lbm_validation.cpp (every state against it),
// lbm_reference_cache.cpp (its states kept across processes, OMPREF_CACHE),
// lbm_observables.cpp (the physics a user checks).
//
// Layout (structure of arrays): two lattices, each 19 direction arrays of
// `grid.stride` doubles back to back (population i of cell k at
// [i * stride + k], cell k = x + nx * (y + ny * z), x fastest); rho, ux, uy,
// uz, psi arrays of `stride` doubles; a solid mask of `stride` bytes. Walls
// are solid cells inside the lattice; every face is periodic otherwise.
// `stride` is lattice_stride(cells): the cells rounded up to 8 doubles, so
// that each direction's array starts on 64 bytes; the cells past `n` are
// solid padding. (Arrays an odd number of 64-byte lines apart were tried and
// not adopted: results/h100/lbm/stride-trial-50327d0-fc04ff2/.)
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/aligned_array.hpp"
#include "common/lbm/lbm_cell.hpp"
#include "common/registry.hpp"

namespace ompref {
class Validation;  // common/validation.hpp
}  // namespace ompref

namespace ompref::lbm {

// The length of each direction's array for a lattice of `cells` cells (above).
long lattice_stride(long cells);

// Bytes per cell per step of the minimal three-pass form: calculate_phi reads
// 19 populations and writes psi (20 doubles); calculate_fn reads 19
// populations and psi and writes 19 populations (39 doubles, neighbours' psi
// from cache); update_boundary touches only the cells beside walls.
constexpr double bytes_per_cell_step = 59 * 8;   // 472
constexpr double phi_bytes_per_cell = 20 * 8;    // 160
constexpr double fn_bytes_per_cell = 39 * 8;     // 312
constexpr double boundary_bytes_per_cell = 1;    // the solid mask, read once
// The in-place form (target_inplace) moves the same 59 doubles in its two
// passes; after an odd number of steps its to_standard pass reads and writes
// 18 populations (the rest population stays).
constexpr double to_standard_bytes_per_cell = 36 * 8;  // 288
// Floating-point operations per fluid cell per step, counted from lbm_cell.hpp
// (moments 73 + force 85 + collision 172 + psi 2, exp counted as one).
constexpr double flops_per_cell_step = 332;

enum class Case { drops, droplet, flat, paper };
const char* case_name(Case kind);

// Cells of a tile, a team or a block along x, y and z (--tile, --shape, ...).
using Shape = std::array<int, 3>;

struct Params {
  Case kind = Case::drops;
  int nx = 32, ny = 32, nz = 32;
  int steps = 10;              // time steps in one repetition
  double tau = 1.0;
  double G = -6.0;
  double G_ads = 0.0;
  double gravity = 2e-5;       // acceleration along -y (drops, paper)
  double radius = 0;           // droplet radius (0: the case's default)
  double rho_liquid = 2.6429;  // initial liquid and gas densities (openLBMflow's)
  double rho_gas = 0.0734;
  double width = 3.0;          // tanh interface width
  double rho_solid = 1.0;      // the walls' fixed density (psi of walls sets wetting)
  bool walls_y = true;         // solid planes at y = 0 and y = ny - 1
  Shape tile = {512, 2, 1};         // host_tiled: TX x TY x TZ (clipped to the lattice); H200 host sweep best
  Shape shape = {128, 1, 1};        // target_shaped: cells of one team's tile (threads = product); H200 sweep best
  Shape block = {1, 2, 1};          // target_many: cells one thread updates; H200 sweep best
  Shape fused_shape = {128, 1, 1};  // target_fused: cells of one team's tile; H200 sweep best
  int vtk_every = 0;           // write VTK every N steps of the reference run (0: never)
  std::string out_dir;         // where VTK goes
};

// The lattice and steps of a named size (lbm_options.cpp's size table); throws UsageError.
void size_defaults(const std::string& size, Params& p);

// The radius of the case's droplets (0 for flat, which has none).
double drop_radius(const Params& p);

// Host memory an instance needs (lattices, fields, and the reference run's
// state) and the device memory the target variants map: with one rank, the
// whole lattice's (whole_*); with several MPI ranks, what a rank needs at
// least, its slab's (slab_*: lbm's instance then holds the whole lattice only
// for a variant that runs it whole, and checks its memory when it makes it),
// the host's for the ranks of this node together.
double host_bytes_needed(const Params& p);
double device_bytes_needed(const Params& p);
double whole_host_bytes(const Params& p);
double whole_device_bytes(const Params& p);
// A slab of `planes` planes between two ghost planes (src/mpi/lbm_slabs.hpp):
// its lattice stride, and what one rank holds for it on the device (two
// lattices, psi, the mask, four halo buffers of five planes) and on the host
// (two lattices and the mask, the slab reference's two lattices and psi, the
// observables' density and psi, the run's psi, mask and staging buffers).
long slab_stride(const Params& p, int planes);
double slab_device_bytes(const Params& p, int planes);
double slab_host_bytes(const Params& p, int planes);
// The planes of rank `rank`'s slab of `ranks`: [first, first + count).
inline int slab_first(int nz, int rank, int ranks) { return int(long(nz) * rank / ranks); }
inline int slab_planes(int nz, int rank, int ranks) {
  return slab_first(nz, rank + 1, ranks) - slab_first(nz, rank, ranks);
}

// Whether cell row y is a wall (the solid planes y = 0 and ny - 1).
inline bool wall_row(const Params& p, int y) { return p.walls_y && (y == 0 || y == p.ny - 1); }
// `len` values from `src` to `dst`, consecutive addresses: the run's whole
// 64-byte lines with streaming stores where the processor has them, so that
// a lattice written and not read again soon is not fetched into the caches
// first (with ordinary stores every line written is read from memory before
// it is overwritten); the partial lines at its ends, which a neighbouring
// run may share, with ordinary stores (a line written only in part by
// streaming stores leaves the processor as several slow partial writes). A
// thread that wrote with it issues a store fence (_mm_sfence) before another
// thread reads what it wrote: the end of a parallel region is not one.
void store_run(double* dst, const double* src, int len);
// `len` copies of `value` from `dst` on, as store_run writes them.
void fill_run(double* dst, double value, long len);
// The store fence store_run's writers issue (nothing where it has no streaming stores).
void store_fence();

// The initial populations (equilibrium at rest, none in solid cells) of the
// `g.nz` planes of a state laid out as `g` whose plane 0 is the lattice's
// plane z_first (periodic: a slab's ghost planes included), `solid` its mask;
// the padding past g.n zero.
void initial_populations(const Params& p, const Grid& g, int z_first, const std::uint8_t* solid, double* pop);

// The host's passes over a whole state (validation, mass, observables,
// initial state) go plane by plane and, in a plane, by blocks of this many
// cells, reading each of the 19 direction arrays of a block as one stream: a
// cell at a time they are 19 streams, 38 for two lattices, more than a
// core's prefetchers follow, and the loops over a block's cells vectorise.
constexpr int block_cells = 512;

// `sum` plus the mass of the fluid cells among [k0, k0 + len) of the state
// `pop`: each cell's 19 populations added in long double in direction order,
// then the cells in order (mass_of's sum, the same whatever the blocks).
long double add_block_mass(long double sum, const double* pop, long stride, const std::uint8_t* solid, long k0,
                           int len);

// A state's layout for the host passes over it (observables, mass,
// validation): the whole lattice, or a rank's slab between its ghost planes
// (src/mpi/), of which the planes [z_lo, z_hi) are measured.
struct StateView {
  Grid grid;
  Coeffs coeffs;
  const std::uint8_t* solid = nullptr;
  int z_lo = 0, z_hi = 0;
};
// Called on each block of cells of plane z, before the pass reads it, on
// the thread that reads it.
using BlockVisit = std::function<void(int z, long k0, int len)>;
// The worst population of a state against its reference, over the fluid
// cells (solid cells hold no state): the largest relative error, its cell
// and direction (k = -1: none yet).
struct WorstPopulation {
  double error = 0;
  long k = -1;
  int i = 0;
};
// The block [k0, k0 + len) of the state `got` against `want` into its
// plane's `worst`: searched cell by cell, in the order that decides which of
// equal errors is reported, only where one of its errors is not at most
// `worst` (NaN included); elsewhere the search is one vector loop per
// direction, which finds nothing to change.
void compare_block(const double* got, const double* want, long stride, const std::uint8_t* solid, long k0, int len,
                   WorstPopulation& worst);
// The planes' worst, planes in z order: the largest error, the lowest cell
// among equal ones, so that the report does not depend on the threads.
WorstPopulation worst_of(const std::vector<WorstPopulation>& planes);
// The worst population of `got` against `want` over a state's `nz` planes,
// compared block by block in the one pass `pass` makes over `got` with the
// visit it is given (an instance's observe(), which gathers the observables
// and the mass in the same pass).
WorstPopulation worst_in_pass(const double* got, const double* want, long stride, const std::uint8_t* solid, int nz,
                              const std::function<void(const BlockVisit&)>& pass);
// A lattice of `n` doubles copied in parallel (first touch by the threads
// that read it later).
void copy_state(const double* from, double* to, long n);
// Whether the fluid cells of two states laid out with `stride` hold the same
// population bits (solid cells hold no state); `n` cells.
bool same_fluid_bits(const double* a, const double* b, long stride, const std::uint8_t* solid, long n);
// The tolerance of a population against the reference after `steps` steps.
double population_tolerance(long steps);
// The mass check of a validation: `mass` after `steps` steps against the
// `initial` mass (the periodic faces, bounce-back and the velocity-shift
// forcing conserve it), its relative change within 1e-12.
void note_mass(Validation& v, long double mass, long double initial, long steps);
// Of the planes measured: their mass (mass_of's sum, planes in z order) and,
// where asked, each plane's digest (FNV-1a over its fluid cells' population
// bits), in z order.
struct PlaneFields {
  long double mass = 0;
  std::vector<std::uint64_t> digests;
};
// One pass over the planes measured: each cell's density and psi into `rho`
// and `psi` (the view's layout), the planes' masses and digests.
PlaneFields scan_fields(const StateView& v, const double* pop, bool digest, double* rho, double* psi,
                        const BlockVisit& visit);
// The planes' digests combined in z order: the state's digest.
std::string combine_digests(const std::vector<std::uint64_t>& planes);

struct Observables {
  double mass = 0;          // sum of rho over fluid cells
  double rho_min = 0, rho_max = 0;
  double max_U = 0;         // max |u + F / (2 rho)| over fluid cells
  bool droplet = false;
  double p_in = 0, p_out = 0, radius = 0;
};

// One of the instance's arrays of doubles: the lattices and the fields, the
// arrays the target variants map. 64-byte aligned and untouched when made
// (AlignedArray, first touch by the parallel reset), or, where asked and
// LLVM's runtime offers it, page-locked (lbm.cpp says why).
// Density range and max |U| (U = u + F / (2 rho), the velocity of the
// Shan-Chen model with its force) over the fluid cells of the planes
// measured; `psi` set on those planes and the planes beside them.
void state_ranges(const StateView& v, const double* pop, const double* psi, Observables& o);
// A droplet at the centre of a periodic box of `g`'s size: the mean pressure
// p = rho/3 + G psi^2/6 over 5^3 cells at the centre and at the corner (the
// farthest point), and the radius where rho crosses (rho_centre + rho_far) / 2
// along the six axis rays from the centre, interpolated linearly, averaged;
// `at(x, y, z)` gives a cell's density and psi.
struct CellFields {
  double rho = 0, psi = 0;
};
void droplet_observables(const Grid& g, double G, const std::function<CellFields(int, int, int)>& at, Observables& o);
// observables()' JSON.
nlohmann::json observables_json(const Observables& o, const std::string& digest);

class FieldArray {
 public:
  FieldArray() = default;
  FieldArray(std::size_t count, bool page_locked);
  FieldArray(FieldArray&& other) noexcept { swap(other); }
  FieldArray& operator=(FieldArray&& other) noexcept {
    swap(other);
    return *this;
  }
  FieldArray(const FieldArray&) = delete;
  FieldArray& operator=(const FieldArray&) = delete;
  ~FieldArray();

  double* data() { return data_; }
  const double* data() const { return data_; }
  std::size_t size() const { return count_; }
  double& operator[](std::size_t i) { return data_[i]; }
  const double& operator[](std::size_t i) const { return data_[i]; }
  bool page_locked() const { return locked_; }

 private:
  void swap(FieldArray& other) noexcept;
  double* data_ = nullptr;
  std::size_t count_ = 0;
  bool locked_ = false;
};

class LbmInstance final : public Instance {
 public:
  // `for_device`: target variants will run on a device; the mapped arrays
  // are then made page-locked where the runtime can.
  // With several MPI ranks nothing is allocated here: the lattice's arrays
  // are made at the first reset() (after the memory check against
  // `limits`), for a variant that runs the whole lattice; a variant that runs
  // a rank's slab runs on rank_part instead (Variant::part_of).
  explicit LbmInstance(const Params& params, bool for_device = false, const MemoryLimits& limits = {});
  nlohmann::json params() const override;
  Model model(const std::string& kernel) const override;
  std::vector<PhaseModel> phases() const override;
  void reset() override;
  Check validate(int repetitions, const std::string& kernel) const override;
  nlohmann::json observables(const std::string& kernel) const override;

  // The lattice holding the state after the steps run so far, and the one
  // the next step writes; swap() after each step.
  double* current() { return lat[cur].data(); }
  double* next() { return lat[cur ^ 1].data(); }
  const double* current() const { return lat[cur].data(); }
  void swap() { cur ^= 1; }

  // Observables of a state held in `pop` (a lattice laid out as above).
  Observables measure(const double* pop) const;
  // observables()' JSON for the state in `pop` and its exact mass, from one
  // parallel pass that calls `visit(z, k0, len)` on each block of cells of
  // plane z before it reads them, on the thread that reads them: validate()
  // compares the state with the reference in the same pass.
  using BlockVisit = lbm::BlockVisit;
  nlohmann::json observe(const double* pop, long double& mass, const BlockVisit& visit) const;
  // The reference state after `total_steps` steps (host, computed in the
  // arithmetic order of host_basic, once per instance: advanced
  // incrementally, restarted from a kept state for fewer steps).
  const double* reference_state(long total_steps) const;
  // Reference steps run since the instance was made (what tests count).
  long reference_steps_computed() const;
  // Total mass of a state with long-double accumulation.
  long double mass_of(const double* pop) const;

  // The whole lattice's layout for the host passes.
  StateView view() const { return StateView{grid, coeffs, solid.data(), 0, grid.nz}; }
  // Whether the whole lattice's arrays are made; release() frees them with
  // the reference run's state (reset() makes them again).
  bool allocated() const { return lat[0].size() > 0; }
  void release();
  // The part of the instance a variant split over MPI ranks runs on (the
  // rank's slab: src/mpi/lbm_slab_instance.hpp), made by the first such
  // variant; released when a variant resets the whole lattice.
  std::unique_ptr<Instance> rank_part;
  bool for_device() const { return for_device_; }
  const MemoryLimits& limits() const { return limits_; }

  Params p;
  Grid grid;
  Coeffs coeffs;
  FieldArray lat[2];
  FieldArray rho, ux, uy, uz, psi;
  AlignedArray<std::uint8_t> solid;
  int cur = 0;
  long double initial_mass = 0;  // of the initial state: the same at every reset, summed at the first
  // The observables' density and psi of every cell (lbm_observables.cpp),
  // made at the first measure and kept: made afresh, 1 GB at the paper size,
  // they cost every measure its page faults.
  mutable AlignedArray<double> observed_rho, observed_psi;

 private:
  void allocate();
  void initial_state(double* pop) const;
  bool for_device_ = false;
  MemoryLimits limits_;
  // observables() of the state validate() checked, from its pass; null after reset().
  mutable nlohmann::json validated_;
  struct Reference;
  mutable std::shared_ptr<Reference> ref_;
  // The last state validate() found valid, with its verdict (lbm_validation.cpp).
  struct Seen;
  mutable std::shared_ptr<Seen> seen_;
  Check compare_with_reference(long total_steps) const;
  void keep_seen(long total_steps, const Check& check) const;
};

// The checks of make_instance (parameters, shapes, --out, memory), allocating nothing.
void check_params(const Params& p, const MemoryLimits& limits);
// Checks the parameters and the memory (host and device), then allocates.
std::unique_ptr<LbmInstance> make_instance(const Params& p, const MemoryLimits& limits);

}  // namespace ompref::lbm
