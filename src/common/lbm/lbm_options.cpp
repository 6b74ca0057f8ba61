// lbm's sizes, cases and launch shapes, each one table that the options, their
// help, their error texts and the JSON parameters are generated from; the
// checks of make_instance; the workload.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <map>
#include <optional>
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "common/io/output_file.hpp"
#include "common/lbm/lbm.hpp"
#include "common/ranks.hpp"
#include "common/lbm/lbm_reference_cache.hpp"
#include "common/usage_error.hpp"
#include "common/workload_facts.hpp"

namespace ompref::lbm {

namespace {

struct SizeRow {
  const char* name;
  int nx, ny, nz, steps;
};
// tiny 32^3/10, small 64^3/100, medium 256x256x128/10, paper 512x512x256/10
// (the size of the SYCL port's measurements).
constexpr SizeRow size_table[] = {
    {"tiny", 32, 32, 32, 10}, {"small", 64, 64, 64, 100}, {"medium", 256, 256, 128, 10}, {"paper", 512, 512, 256, 10}};

std::vector<std::string> size_texts() {
  std::vector<std::string> out;
  for (const SizeRow& r : size_table) out.push_back(fmt::format("{} {}x{}x{}/{}", r.name, r.nx, r.ny, r.nz, r.steps));
  return out;
}

struct CaseRow {
  const char* name;
  Case kind;
  const char* what;
};
constexpr CaseRow case_table[] = {
    {"drops", Case::drops, "two droplets falling between walls"},
    {"droplet", Case::droplet, "one droplet, periodic, no gravity: Laplace's law"},
    {"flat", Case::flat, "a liquid slab across y, periodic, no gravity: the coexistence densities"},
    {"paper", Case::paper, "drops at the paper size"},
};

// The launch shapes (AxBxC): the option, the member of Params it sets, the
// most cells it may hold (0: no limit beyond 4096 per axis), its help, and
// what it does to the work of a step (a shape changes how the cells are
// walked, not how many: runs that differ in it are compared by time).
struct ShapeRow {
  const char* option;
  Shape Params::*member;
  std::int64_t max_cells;
  const char* help;
  ParamEffect effect;
};
constexpr std::int64_t team_threads = 1024;  // a team's threads (CUDA's block limit)
constexpr int max_extent = 4096;
const ShapeRow shape_table[] = {
    {"--tile", &Params::tile, 0, "host_tiled: tile TXxTYxTZ", ParamEffect::same_work},
    {"--shape", &Params::shape, team_threads, "target_shaped: a team's tile TXxTYxTZ", ParamEffect::same_work},
    {"--block", &Params::block, 0, "target_many: cells per thread BXxBYxBZ", ParamEffect::same_work},
    {"--fused-shape", &Params::fused_shape, team_threads, "target_fused: a team's tile TXxTYxTZ", ParamEffect::same_work},
};

// The JSON key of a shape option: "--fused-shape" -> "fused_shape".
std::string key_of(const ShapeRow& row) {
  std::string key = row.option + 2;
  std::replace(key.begin(), key.end(), '-', '_');
  return key;
}

// The cells of a shape, in 64 bits (4096^3 does not fit an int), against the row's limit.
void check_cells(const Shape& shape, const ShapeRow& row) {
  const std::int64_t cells = std::int64_t(shape[0]) * shape[1] * shape[2];
  if (row.max_cells > 0 && cells > row.max_cells)
    throw UsageError(fmt::format("{}: {} has {} cells; a team has at most {} threads", row.option,
                                 fmt::join(shape, "x"), cells, row.max_cells));
}

// The one parser of AxBxC: CLI11's split and checked conversion, three
// decimal integers 1..4096, then the row's cell limit.
Shape parse_shape(const std::string& text, const ShapeRow& row) {
  const std::vector<std::string> parts = CLI::detail::split(text, 'x');
  Shape shape{};
  bool ok = parts.size() == 3 && !text.empty() && text.back() != 'x';
  for (std::size_t a = 0; ok && a < 3; ++a)
    ok = !parts[a].empty() && parts[a][0] != '0' && parts[a].find_first_not_of("0123456789") == std::string::npos &&
         CLI::detail::lexical_cast(parts[a], shape[a]) && shape[a] <= max_extent;
  if (!ok)
    throw UsageError(fmt::format("{}: '{}' is not a shape (accepted: AxBxC, three integers 1..{}, e.g. 32x2x4)",
                                 row.option, text, max_extent));
  check_cells(shape, row);
  return shape;
}

// The stable ranges of the physics parameters, from the model (docs/lbm.md):
// each option's help and its error text come from this table.
struct PhysicsRow {
  const char* option;
  double Params::*member;
  double lo, hi;
  const char* why;
};
const PhysicsRow physics_table[] = {
    {"--tau", &Params::tau, 0.9, 1.5,
     "BGK needs a positive viscosity (tau - 1/2)/3; the cases' liquid/gas density ratio of 36 needs more: at "
     "G = -6 the reference goes NaN within 300 steps at tau 0.8 and at tau 3, stays finite from 0.9 to 1.5"},
    {"--G", &Params::G, -6.0, -5.0,
     "Shan-Chen cohesion with psi = 1 - exp(-rho): two phases need G below the critical -4, and the initial "
     "densities are openLBMflow's coexistence densities at G = -6; from -6 to -5 they stay near coexistence; at "
     "-6.5 with tau 0.9 or 1.0, G-ads <= 0 and gravity at its bound the drops case at 32^3 went NaN within 4000 "
     "steps, while every corner of this box stayed finite over 10000"},
    {"--G-ads", &Params::G_ads, -1.0, 1.0,
     "adsorption against walls: the wall force on a cell beside a wall, G_ads psi / 6, stays below the cohesion "
     "force across an interface (|G| (psi_l - psi_g) / 6 ~ 5 / 6) up to |G_ads| = 1"},
};
const char* const gravity_why =
    "the lattice Boltzmann method is weakly compressible: the hydrostatic density change g ny / c_s^2 across the box "
    "must stay below 0.1 (c_s^2 = 1/3)";
double gravity_limit(int ny) { return 0.1 / (3.0 * ny); }

std::string physics_help(const PhysicsRow& row, const char* what) {
  return fmt::format("lbm: {} (stable range [{}, {}]: {})", what, row.lo, row.hi, row.why);
}

}  // namespace

const char* case_name(Case kind) {
  for (const CaseRow& r : case_table)
    if (r.kind == kind) return r.name;
  return "unknown";
}

// CLI11 prints the accepted cases by name through this (found by argument-
// dependent lookup, so in this namespace, not the unnamed one).
static std::ostream& operator<<(std::ostream& out, Case kind) { return out << case_name(kind); }

void size_defaults(const std::string& size, Params& p) {
  for (const SizeRow& r : size_table)
    if (size == r.name) {
      p.nx = r.nx;
      p.ny = r.ny;
      p.nz = r.nz;
      p.steps = r.steps;
      return;
    }
  throw UsageError(fmt::format("lbm: unknown size '{}' (accepted: {})", size, fmt::join(size_texts(), ", ")));
}

nlohmann::json LbmInstance::params() const {
  nlohmann::json j = {{"case", case_name(p.kind)}, {"nx", p.nx},       {"ny", p.ny},
                      {"nz", p.nz},                {"steps", p.steps}, {"tau", p.tau},
                      {"G", p.G},                  {"G_ads", p.G_ads}, {"gravity", p.gravity},
                      {"radius", drop_radius(p)},  {"walls_y", p.walls_y}, {"rho_solid", p.rho_solid}};
  for (const ShapeRow& row : shape_table) j[key_of(row)] = fmt::format("{}", fmt::join(p.*row.member, "x"));
  j["bytes_per_cell_step"] = bytes_per_cell_step;
  return j;
}

void check_params(const Params& p, const MemoryLimits& limits) {
  const int min_y = p.walls_y ? 3 : 1;
  if (p.nx < 1 || p.ny < min_y || p.nz < 1)
    throw UsageError(fmt::format("lbm: the lattice {}x{}x{} is too small (at least 1x{}x1 cells)", p.nx, p.ny, p.nz,
                                 min_y));
  const double cells = double(p.nx) * p.ny * p.nz;
  if (cells > double((1L << 31) - 1) / 2)
    throw UsageError(fmt::format("lbm: {}x{}x{} = {:.3g} cells is more than this build indexes (1.07e9)", p.nx, p.ny,
                                 p.nz, cells));
  for (const PhysicsRow& row : physics_table)
    if (!(p.*row.member >= row.lo && p.*row.member <= row.hi))
      throw UsageError(fmt::format("{}: {} is outside the stable range [{}, {}] ({})", row.option, p.*row.member, row.lo,
                                   row.hi, row.why));
  const double g_max = gravity_limit(p.ny);
  if (!(std::fabs(p.gravity) <= g_max))
    throw UsageError(fmt::format("--gravity: |{}| > {:.3g} for ny = {} ({})", p.gravity, g_max, p.ny, gravity_why));
  const double r_max = std::min({p.nx, p.ny, p.nz}) / 2.0;
  if (p.radius != 0 && !(p.radius >= p.width && p.radius <= r_max))
    throw UsageError(fmt::format("--radius: {} does not fit the {}x{}x{} box (accepted: {} <= R <= {}: at least the "
                                 "interface width, at most half the box)",
                                 p.radius, p.nx, p.ny, p.nz, p.width, r_max));
  for (const ShapeRow& row : shape_table) check_cells(p.*row.member, row);
  if (p.vtk_every > 0 && p.out_dir.empty()) throw UsageError("--vtk-every needs --out DIR");
  if (p.vtk_every == 0 && !p.out_dir.empty())
    throw UsageError(fmt::format("--out {}: nothing is written there without --vtk-every N", p.out_dir));
  std::error_code ec;
  if (p.vtk_every > 0 && std::filesystem::exists(p.out_dir, ec) && !std::filesystem::is_directory(p.out_dir, ec))
    throw UsageError(fmt::format("--out: '{}' exists and is not a directory", p.out_dir));
  // The folder can be made and written, the longest frame's temporary name included.
  if (p.vtk_every > 0)
    check_output_folder(p.out_dir, "--out", {temporary_name(fmt::format("lbm_{}_{:06d}.vti", case_name(p.kind), INT32_MAX))});
  const std::string what = fmt::format("lbm {} {}x{}x{}", case_name(p.kind), p.nx, p.ny, p.nz);
  const RankPlace& ranks = rank_place();
  if (ranks.count > 1) {  // at least a rank's slab (lbm.hpp)
    const std::string slab = fmt::format("{} over {} ranks (a rank's slab of {} planes", what, ranks.count,
                                         slab_planes(p.nz, 0, ranks.count) + (p.nz % ranks.count != 0));
    limits.check_host(host_bytes_needed(p), fmt::format("{}, its reference run; {} ranks on this node)", slab,
                                                        ranks.local_count));
    limits.check_device(device_bytes_needed(p), slab + ": two lattices, psi and the halo buffers)");
    return;
  }
  limits.check_host(host_bytes_needed(p), what + " (lattices, fields and the host reference run)");
  limits.check_device(device_bytes_needed(p), what + " (two lattices and the fields)");
}

std::unique_ptr<LbmInstance> make_instance(const Params& p, const MemoryLimits& limits) {
  check_params(p, limits);
  if (p.vtk_every > 0) {
    std::error_code ec;
    std::filesystem::create_directories(p.out_dir, ec);
    if (ec || !std::filesystem::is_directory(p.out_dir))
      throw UsageError(fmt::format("--out: cannot create the directory '{}'", p.out_dir));
  }
  // A device memory to check means target or native variants on a device.
  return std::make_unique<LbmInstance>(p, limits.device_bytes > 0, limits);
}

namespace {

// MLUPS, cells x steps / time: every cell does the same work at every step,
// whatever the phase there, so the drops' radius (which follows the box)
// does not change it; the case and the physical constants do. The launch
// shapes: as their table says.
Comparability lbm_comparability() {
  Comparability c{"MLUPS", compared_params({"nx", "ny", "nz", "steps", "radius"})};
  for (const ShapeRow& row : shape_table) c.params.push_back({key_of(row), row.effect, ""});
  return c;
}

class LbmWorkload final : public FactsWorkload {
 public:
  LbmWorkload() : FactsWorkload({"lbm", 2, "small", "medium", lbm_comparability()}) {}
  std::vector<std::string> sizes() const override { return size_names_of(size_table, &SizeRow::name); }
  void add_options(CLI::App& group) override {
    std::map<std::string, Case> cases;
    std::vector<std::string> names, case_help;
    for (const CaseRow& r : case_table) {
      cases.emplace(r.name, r.kind);
      names.push_back(r.name);
      case_help.push_back(fmt::format("{}: {}", r.name, r.what));
    }
    group.add_option("--case", case_, fmt::format("lbm: {}", fmt::join(case_help, "; ")))
        ->transform(CLI::CheckedTransformer(cases).description(fmt::format("{{{}}}", fmt::join(names, ","))))
        ->type_name("CASE");
    const std::string by_size = fmt::format("by --size: {}", fmt::join(size_texts(), ", "));
    group.add_option("--nx", nx_, "lbm: cells along x (" + by_size + ")")->check(CLI::Range(1, 1 << 16));
    group.add_option("--ny", ny_, "lbm: cells along y")->check(CLI::Range(1, 1 << 16));
    group.add_option("--nz", nz_, "lbm: cells along z")->check(CLI::Range(1, 1 << 16));
    group.add_option("--steps", steps_, "lbm: time steps per repetition")->check(CLI::Range(1, 1 << 24));
    std::optional<double>* physics_members[] = {&tau_, &G_, &G_ads_};
    const char* physics_what[] = {"BGK relaxation time", "Shan-Chen cohesion strength",
                                  "adsorption strength against walls"};
    for (std::size_t i = 0; i < std::size(physics_table); ++i)
      group.add_option(physics_table[i].option, *physics_members[i],
                       physics_help(physics_table[i], physics_what[i]));
    group.add_option("--gravity", gravity_,
                     fmt::format("lbm: acceleration along -y (stable: |g| <= 0.1 / (3 ny): {})", gravity_why));
    group.add_option("--radius", radius_, "lbm: droplet radius (from the interface width 3 to half the box)");
    for (std::size_t i = 0; i < std::size(shape_table); ++i) {
      const ShapeRow& row = shape_table[i];
      group.add_option_function<std::string>(
          row.option, [this, i](const std::string& text) { shapes_[i] = parse_shape(text, shape_table[i]); },
          std::string("lbm ") + row.help)
          ->type_name("AxBxC");
    }
    group.add_option("--vtk-every", vtk_every_, "lbm: write VTK every N steps (of the reference run)")
        ->check(CLI::Range(1, 1 << 24));
    group.add_option("--out", out_, "lbm: directory for VTK output (with --vtk-every)");
    // --case paper sets the lattice: a --size beside it is refused, not overridden unseen.
    size_option_ = group.get_parent() != nullptr ? group.get_parent()->get_option_no_throw("--size") : nullptr;
  }
  void check(const std::string& size, const MemoryLimits& limits) const override {
    const Params p = params_for(size);
    check_params(p, limits);
    check_reference_cache();
    // Given, but nothing in this case reads them.
    if (radius_ && p.kind == Case::flat)
      fmt::print(stderr, "ompref: note: --radius changes nothing in --case flat, which has no droplet\n");
    if (G_ads_ && !p.walls_y)
      fmt::print(stderr, "ompref: note: --G-ads changes nothing in --case {}, which has no walls\n", case_name(p.kind));
  }
  std::unique_ptr<Instance> make(const std::string& size, const MemoryLimits& limits) override {
    return make_instance(params_for(size), limits);
  }

 private:
  Case case_ = Case::drops;
  std::optional<int> nx_, ny_, nz_, steps_, vtk_every_;
  std::optional<double> tau_, G_, G_ads_, gravity_, radius_;
  std::optional<Shape> shapes_[std::size(shape_table)];
  std::optional<std::string> out_;
  const CLI::Option* size_option_ = nullptr;  // the run command's --size

  // The size's defaults, then the case's, then the options given.
  Params params_for(const std::string& size) const;
};

Params LbmWorkload::params_for(const std::string& size) const {
  Params p;
  p.kind = case_;
  if (p.kind == Case::paper && size_option_ != nullptr && size_option_->count() > 0 && size != "paper")
    throw UsageError(fmt::format("--case paper runs at the paper size (512x512x256/10); --size {} conflicts with it "
                                 "(accepted: --case paper alone, or --case drops --size {})",
                                 size, size));
  size_defaults(p.kind == Case::paper ? "paper" : size, p);
  if (p.kind == Case::droplet || p.kind == Case::flat) {
    p.walls_y = false;
    p.gravity = 0;
  }
  if (nx_) p.nx = *nx_;
  if (ny_) p.ny = *ny_;
  if (nz_) p.nz = *nz_;
  if (steps_) p.steps = *steps_;
  if (tau_) p.tau = *tau_;
  if (G_) p.G = *G_;
  if (G_ads_) p.G_ads = *G_ads_;
  if (gravity_) p.gravity = *gravity_;
  if (radius_) {
    if (!(*radius_ > 0)) throw UsageError(fmt::format("--radius: {} is not positive", *radius_));
    p.radius = *radius_;
  }
  for (std::size_t i = 0; i < std::size(shape_table); ++i)
    if (shapes_[i]) p.*shape_table[i].member = *shapes_[i];
  if (vtk_every_) p.vtk_every = *vtk_every_;
  if (out_) p.out_dir = *out_;
  return p;
}

const Registration registration{std::make_unique<LbmWorkload>()};

}  // namespace
}  // namespace ompref::lbm
