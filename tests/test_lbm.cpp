// lbm: every variant agrees with the host reference, the validation catches
// corruption, mass is conserved, and the physics is right: coexistence
// densities of a flat interface and Laplace's law for droplets. Plus VTK
// output read back, the memory check and the command line's bad input.
#include <array>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <omp.h>

#include "common/lbm/lbm.hpp"
#include "common/lbm/lbm_data.hpp"
#include "common/usage_error.hpp"
#include "common/io/vtk.hpp"
#include "test_support.hpp"

namespace ompref::lbm {
namespace {

using ompref::testing::run_ompref;
using ompref::testing::run_one;
using ompref::testing::test_limits;

Params tiny_drops() {
  Params p;
  size_defaults("tiny", p);
  return p;
}

// Steps `total` steps of `variant` on a fresh instance: reps of p.steps each.
RunResult run_steps(LbmInstance& s, const std::string& variant, int reps) {
  return run_one(s, "lbm", variant, "tiny", reps, 0);
}

// ---- agreement ------------------------------------------------------------

TEST(Lbm, EveryVariantMatchesHostBasicAfter20StepsOfDrops) {
  Params p = tiny_drops();
  p.steps = 10;
  auto ref = make_instance(p, test_limits());
  RunResult r0 = run_steps(*ref, "host_basic", 2);  // 20 steps
  ASSERT_TRUE(r0.check.valid) << r0.check.detail;
  std::vector<double> want(ref->current(), ref->current() + ref->grid.stride * Q);

  auto variants = registry().variants("lbm");
  ASSERT_GE(variants.size(), 6u);
  for (const Variant* v : variants) {
    auto s = make_instance(p, test_limits());
    RunResult r = run_steps(*s, v->name, 2);
    EXPECT_TRUE(r.check.valid) << v->name << ": " << r.check.detail;
    EXPECT_LE(r.check.max_rel_error, 1e-12) << v->name;
    // Every population of every fluid cell against host_basic's.
    double worst = 0;
    for (long k = 0; k < s->grid.n; ++k) {
      if (s->solid[k]) continue;
      for (int i = 0; i < Q; ++i) {
        const double a = s->current()[i * s->grid.stride + k], b = want[i * s->grid.stride + k];
        const double err = std::isfinite(a) ? std::fabs(a - b) / std::fabs(b) : 1e300;
        worst = std::max(worst, err);
      }
    }
    EXPECT_LE(worst, 1e-12) << v->name;
    EXPECT_GT(r.fom, 0) << v->name;
    EXPECT_FALSE(r.phases.empty()) << v->name;
  }
}

// target_inplace keeps one lattice in the AA pattern: after an odd step the
// populations sit in other slots, and the run puts them back (to_standard)
// before it returns. After odd and even step counts, with walls, periodic
// faces and lattices two and three cells wide (where x + 1 and x - 1 are one
// cell), its populations are host_basic's: bit for bit where the target
// regions ran on the host (the same arithmetic in the same order), within
// the validation's 1e-12 on a device.
TEST(Lbm, InPlaceMatchesHostBasicAfterOddAndEvenStepCounts) {
  struct Setup { int nx, ny, nz, steps, reps; Case kind; };
  for (const Setup& c : {Setup{16, 16, 16, 7, 3, Case::drops}, Setup{13, 11, 9, 2, 2, Case::drops},
                         Setup{2, 5, 3, 3, 1, Case::drops}, Setup{3, 12, 7, 1, 1, Case::drops},
                         Setup{12, 12, 12, 5, 1, Case::droplet}}) {
    Params p = tiny_drops();
    p.nx = c.nx, p.ny = c.ny, p.nz = c.nz, p.steps = c.steps;
    if (c.kind == Case::droplet) {
      p.kind = Case::droplet;
      p.walls_y = false;
      p.gravity = 0;
    }
    const std::string what = std::to_string(c.nx) + "x" + std::to_string(c.ny) + "x" + std::to_string(c.nz) + ", " +
                             std::to_string(c.reps) + " x " + std::to_string(c.steps) + " steps";
    auto basic = make_instance(p, test_limits());
    ASSERT_TRUE(run_steps(*basic, "host_basic", c.reps).check.valid) << what;
    auto in_place = make_instance(p, test_limits());
    RunResult r = run_steps(*in_place, "target_inplace", c.reps);
    ASSERT_TRUE(r.check.valid) << what << ": " << r.check.detail;
    long differing = 0;
    double worst = 0;
    for (long k = 0; k < basic->grid.n; ++k) {
      if (basic->solid[k]) continue;
      for (int i = 0; i < Q; ++i) {
        const double a = in_place->current()[i * in_place->grid.stride + k];
        const double b = basic->current()[i * basic->grid.stride + k];
        differing += a != b;
        worst = std::max(worst, std::isfinite(a) ? std::fabs(a - b) / std::fabs(b) : 1e300);
      }
    }
    if (!r.on_device) {
      EXPECT_EQ(differing, 0) << what;
    }
    EXPECT_LE(worst, 1e-12) << what;
  }
}

// fn_push_bounce_in_place_paired (only sums live, the populations read again
// pair by pair) leaves the lattice bit for bit as fn_push_bounce_in_place
// does, after an even and then an odd step, with walls, periodic faces and a
// lattice two cells wide (x + 1 and x - 1 the same cell).
TEST(Lbm, PairedInPlaceCollisionIsTheInPlaceOneBitForBit) {
  for (const auto& [nx, ny, nz] : {std::array{13, 11, 9}, std::array{2, 5, 3}}) {
    Params p = tiny_drops();
    p.nx = nx, p.ny = ny, p.nz = nz;
    auto s = make_instance(p, test_limits());
    const Grid g = s->grid;
    s->reset();
    const std::vector<double> start(s->current(), s->current() + Q * g.stride);
    std::vector<double> a = start, b = start, psi(std::size_t(g.stride));
    const auto step = [&](auto odd) {
      constexpr bool Odd = decltype(odd)::value;
      for (int z = 0; z < g.nz; ++z)
        for (int y = 0; y < g.ny; ++y)
          for (int x = 0; x < g.nx; ++x) {
            const int k = x + g.nx * (y + g.ny * z);
            int nb[Q];
            neighbour_indices(g, x, y, z, nb);
            psi[std::size_t(k)] = psi_cell_in_place<Odd>(s->coeffs, a.data(), g.stride, s->solid.data(), k, nb);
          }
      for (int z = 0; z < g.nz; ++z)
        for (int y = 0; y < g.ny; ++y)
          for (int x = 0; x < g.nx; ++x) {
            const int k = x + g.nx * (y + g.ny * z);
            if (s->solid[k]) continue;
            int nb[Q];
            neighbour_indices(g, x, y, z, nb);
            fn_push_bounce_in_place<Odd>(s->coeffs, a.data(), g.stride, s->solid.data(), psi.data(), k, nb);
            fn_push_bounce_in_place_paired<Odd>(s->coeffs, g, b.data(), s->solid.data(), psi.data(), x, y, z, k);
          }
    };
    step(std::false_type{});
    long moved = 0;
    for (long j = 0; j < Q * g.stride; ++j) moved += a[std::size_t(j)] != start[std::size_t(j)];
    EXPECT_GT(moved, 0) << nx;
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)), 0) << nx << ", even step";
    step(std::true_type{});
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)), 0) << nx << ", odd step";
  }
}

// One lattice: target_inplace never writes the second one (reset() poisons
// it with NaN, and it stays so), and its device data is under half of the
// two-lattice variants'.
TEST(Lbm, InPlaceUsesOneLatticeAndUnderHalfTheDeviceMemory) {
  auto s = make_instance(tiny_drops(), test_limits());
  RunResult r = run_steps(*s, "target_inplace", 2);
  ASSERT_TRUE(r.check.valid) << r.check.detail;
  const double* second = s->next();
  long written = 0;
  for (long j = 0; j < s->grid.stride * Q; ++j) written += !std::isnan(second[j]);
  EXPECT_EQ(written, 0);
  const double one = double(device_data_in_place(*s).bytes()), two = double(device_data(*s).bytes());
  const double stride = double(s->grid.stride);
  EXPECT_DOUBLE_EQ(one, stride * (Q * 8 + 8 + 1));  // the lattice, psi, the mask
  EXPECT_LT(one, 0.5 * two);
}

// host_tiled splits each row of a tile into x-face cells, rows holding solid
// cells (general path) and a vectorised interior: tiles that do not divide
// the lattice, one-cell tiles and a lattice 3 cells wide must still give
// host_basic's populations bit for bit (same arithmetic, same order).
TEST(Lbm, HostTiledEdgesMatchHostBasicBitForBit) {
  struct Case { int nx, ny, nz, tx, ty, tz; };
  for (const Case& c : {Case{13, 11, 9, 5, 3, 2}, Case{13, 11, 9, 1, 1, 1}, Case{3, 12, 7, 2, 5, 3},
                        Case{40, 20, 10, 64, 4, 4}}) {
    Params p = tiny_drops();
    p.nx = c.nx, p.ny = c.ny, p.nz = c.nz, p.steps = 6;
    auto basic = make_instance(p, test_limits());
    ASSERT_TRUE(run_steps(*basic, "host_basic", 1).check.valid);
    p.tile[0] = c.tx, p.tile[1] = c.ty, p.tile[2] = c.tz;
    auto tiled = make_instance(p, test_limits());
    ASSERT_TRUE(run_steps(*tiled, "host_tiled", 1).check.valid);
    long differing = 0;
    for (long k = 0; k < basic->grid.n; ++k) {
      if (basic->solid[k]) continue;
      for (int i = 0; i < Q; ++i)
        differing += basic->current()[i * basic->grid.stride + k] != tiled->current()[i * tiled->grid.stride + k];
    }
    EXPECT_EQ(differing, 0) << c.nx << "x" << c.ny << "x" << c.nz << " tile " << c.tx << "x" << c.ty << "x" << c.tz;
  }
}

TEST(Lbm, TheStateMovesAndTheDropletsFall) {
  // Guard against a validation that compares a state with itself: after 20
  // steps the populations differ from the initial ones and gravity pulls.
  Params p = tiny_drops();
  auto s = make_instance(p, test_limits());
  s->reset();
  std::vector<double> start(s->current(), s->current() + s->grid.stride * Q);
  RunResult r = run_steps(*s, "host_basic", 2);
  ASSERT_TRUE(r.check.valid);
  double changed = 0;
  for (long k = 0; k < s->grid.n; ++k)
    if (!s->solid[k]) changed = std::max(changed, std::fabs(s->current()[k] - start[k]));
  EXPECT_GT(changed, 1e-6);
  EXPECT_GT(r.observables["max_U"].get<double>(), 0.0);
}

// ---- validation catches errors ---------------------------------------------

class LbmCorruption : public ::testing::Test {
 protected:
  void SetUp() override {
    s = make_instance(tiny_drops(), test_limits());
    RunResult r = run_steps(*s, "host_tiled", 2);
    ASSERT_TRUE(r.check.valid) << r.check.detail;
  }
  long fluid_cell() const { return 5 + long(s->grid.nx) * (7 + long(s->grid.ny) * 9); }
  std::unique_ptr<LbmInstance> s;
};

TEST_F(LbmCorruption, OneChangedPopulationFails) {
  s->current()[4 * s->grid.stride + fluid_cell()] *= 1.0 + 1e-10;
  Check c = s->validate(2, "");
  EXPECT_FALSE(c.valid);
  EXPECT_NE(c.detail.find("population 4 of cell (5, 7, 9)"), std::string::npos) << c.detail;
}

TEST_F(LbmCorruption, AStateTheSameBitsAsOneValidatedTakesItsVerdictAndAnyOtherIsComparedInFull) {
  // SetUp's run was validated in full and kept: its bits again take its
  // verdict, also where a solid cell (which holds no state) differs.
  long wall = -1;
  for (long k = 0; k < s->grid.n && wall < 0; ++k)
    if (s->solid[k]) wall = k;
  ASSERT_GE(wall, 0);
  s->current()[3 * s->grid.stride + wall] = 12345.0;
  Check same = s->validate(2, "");
  EXPECT_TRUE(same.valid);
  EXPECT_NE(same.reference.find("the same bits as a state compared with it in full"), std::string::npos)
      << same.reference;
  // One unit in the last place of one fluid population: compared in full,
  // and still within the tolerance.
  double& f = s->current()[7 * s->grid.stride + fluid_cell()];
  f = std::nextafter(f, 2 * f);
  Check full = s->validate(2, "");
  EXPECT_TRUE(full.valid) << full.detail;
  EXPECT_EQ(full.reference.find("the same bits"), std::string::npos) << full.reference;
  EXPECT_GT(full.max_rel_error, 0.0);
}

TEST_F(LbmCorruption, NaNAndInfFail) {
  s->current()[fluid_cell()] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(s->validate(2, "").valid);
  s->current()[fluid_cell()] = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(s->validate(2, "").valid);
}

TEST_F(LbmCorruption, WrongStepCountFails) {
  EXPECT_TRUE(s->validate(2, "").valid);
  EXPECT_FALSE(s->validate(1, "").valid);
  EXPECT_FALSE(s->validate(3, "").valid);
}

TEST_F(LbmCorruption, UnwrittenLatticeFails) {
  // reset() poisons the second lattice: a variant that never wrote it fails.
  s->reset();
  s->swap();
  EXPECT_FALSE(s->validate(0, "").valid);
}

// ---- conservation ----------------------------------------------------------

TEST(Lbm, MassIsConservedOver1000StepsWithWallsAndPeriodicFaces) {
  Params p = tiny_drops();  // walls at y = 0, ny - 1; x, z periodic; gravity on
  p.steps = 1000;
  auto s = make_instance(p, test_limits());
  RunResult r = run_steps(*s, "host_tiled", 1);
  ASSERT_TRUE(r.check.valid) << r.check.detail;
  const long double m = s->mass_of(s->current());
  EXPECT_LE(double(std::fabs(m - s->initial_mass) / s->initial_mass), 1e-12);
  EXPECT_NEAR(r.observables["mass"].get<double>(), double(s->initial_mass), 1e-9 * double(s->initial_mass));
  EXPECT_LT(r.observables["max_U"].get<double>(), 0.1);
}

// ---- physics ---------------------------------------------------------------
// The model's physics, stepped by the host reference (the variants agree with
// it to 1e-12: the tests above), so that the long runs are paid once.

TEST(Lbm, FlatInterfaceSettlesToTheCoexistenceDensities) {
  // A quasi-1D slab started far from coexistence (2.2 / 0.25): the liquid
  // and gas densities it settles to are set by the force alone.
  Params p;
  size_defaults("tiny", p);
  p.kind = Case::flat;
  p.walls_y = false;
  p.gravity = 0;
  p.nx = 4;
  p.ny = 64;
  p.nz = 4;
  p.rho_liquid = 2.2;
  p.rho_gas = 0.25;
  p.steps = 8000;
  auto s = make_instance(p, test_limits());
  s->reset();
  const Observables o = s->measure(s->reference_state(p.steps));
  const double liquid = o.rho_max, gas = o.rho_min;
  EXPECT_NEAR(liquid, 2.649, 0.02 * 2.649) << "liquid";
  EXPECT_NEAR(gas, 0.0733, 0.02 * 0.0733) << "gas";
}

TEST(Lbm, DropletsFollowLaplacesLaw) {
  // dp = 2 sigma / R: dp * R is the same within 5% for droplets of radii 8
  // to 16 in a 64^3 box (1000 steps). A droplet evaporates until the gas
  // around it reaches its Kelvin density, the more the smaller it is, so the
  // start radii are chosen for equilibrium radii across 8..16: started at 9.5,
  // 12 and 16 they settle at 8.25, 11.4 and 15.7 (one started at 8 ends at
  // 5.5, below the range). LBM_RADII=R runs one start radius alone.
  std::vector<double> dpR, settled;
  const char* radii_env = std::getenv("LBM_RADII");
  std::vector<double> radii = {9.5, 12.0, 16.0};
  if (radii_env) radii = {std::atof(radii_env)};
  for (double R : radii) {
    Params p;
    size_defaults("small", p);
    p.kind = Case::droplet;
    p.walls_y = false;
    p.gravity = 0;
    p.radius = R;
    p.steps = std::getenv("LBM_STEPS") ? std::atoi(std::getenv("LBM_STEPS")) : 1000;
    auto s = make_instance(p, test_limits());
    s->reset();
    if (const char* env = std::getenv("LBM_TRACE"))
      for (long t = 250; t < p.steps; t += std::atol(env)) {
        const Observables o = s->measure(s->reference_state(t));
        std::printf("  R0=%g step %ld: radius %.3f dp*R %.5f p_out %.5f max|U| %.2e\n", R, t, o.radius,
                    (o.p_in - o.p_out) * o.radius, o.p_out, o.max_U);
        std::fflush(stdout);
      }
    const Observables o = s->measure(s->reference_state(p.steps));
    const double pin = o.p_in, pout = o.p_out, rad = o.radius;
    EXPECT_NEAR(rad, R, 1.5) << "R = " << R;
    EXPECT_GT(pin, pout) << "R = " << R;
    dpR.push_back((pin - pout) * rad);
    settled.push_back(rad);
    std::printf("droplet R0=%g: radius %.3f p_in %.6f p_out %.6f dp*R %.6f max|U| %.2e\n", R, rad, pin, pout,
                dpR.back(), o.max_U);
  }
  const double lo = *std::min_element(dpR.begin(), dpR.end()), hi = *std::max_element(dpR.begin(), dpR.end());
  EXPECT_LE((hi - lo) / (0.5 * (hi + lo)), 0.05);
  if (!radii_env) {  // the settled radii cover the range the law is claimed for
    EXPECT_GE(*std::min_element(settled.begin(), settled.end()), 8.0);
    EXPECT_GE(*std::max_element(settled.begin(), settled.end()), 15.0);
  }
}

// ---- model, memory, output -------------------------------------------------

TEST(Lbm, ModelIs472BytesPerCellPerStep) {
  auto s = make_instance(tiny_drops(), test_limits());
  const double updates = 32.0 * 32 * 32 * 10;
  EXPECT_DOUBLE_EQ(s->model("").bytes, 472 * updates);
  EXPECT_DOUBLE_EQ(s->model("").fom_amount, updates / 1e6);
  EXPECT_EQ(s->model("").fom_name, "MLUPS");
}

TEST(Lbm, PaperSizeIsRefusedWhereItDoesNotFit) {
  Params p;
  size_defaults("paper", p);
  MemoryLimits host;
  host.host_bytes = 16e9;
  try {
    make_instance(p, host);
    FAIL() << "paper size fitted in 16 GB";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("512x512x256"), std::string::npos) << e.what();
  }
  MemoryLimits device;
  device.host_bytes = 1e15;
  device.device_bytes = 16e9;
  EXPECT_THROW(make_instance(p, device), UsageError);
  EXPECT_GT(device_bytes_needed(p), 22e9);
  EXPECT_LT(device_bytes_needed(p), 25e9);
}

TEST(Lbm, VtkFramesReadBack) {
  const std::string dir = ::testing::TempDir() + "lbm_vtk_test";
  std::filesystem::remove_all(dir);
  Params p = tiny_drops();
  p.vtk_every = 5;
  p.out_dir = dir;
  auto s = make_instance(p, test_limits());
  RunResult r = run_steps(*s, "host_basic", 1);
  ASSERT_TRUE(r.check.valid);
  ASSERT_TRUE(std::filesystem::exists(dir + "/lbm_drops.pvd"));
  vtk::Image im = vtk::read_vti(dir + "/lbm_drops_000010.vti");
  EXPECT_EQ(im.nx, 32);
  ASSERT_EQ(im.fields.size(), 4u);
  EXPECT_EQ(im.fields[0].name, "density");
  EXPECT_EQ(im.fields[2].components, 3);
  // The frame is the state after 10 steps: its density is the state's.
  const long k = 5 + 32 * (7 + 32 * 9);
  double fl[Q], rho, ux, uy, uz;
  load_cell(s->current(), s->grid.stride, k, fl);
  moments(fl, rho, ux, uy, uz);
  EXPECT_NEAR(im.fields[0].data[k], rho, 1e-6 * rho);
  EXPECT_NEAR(im.fields[2].data[3 * k + 1], uy, 1e-6);
  std::filesystem::remove_all(dir);
}

TEST(Lbm, BadInputExitsTwoWithOneLine) {
  for (const char* args : {"run lbm --size tiny --case bubble", "run lbm --size tiny --tau 0.4",
                           "run lbm --size tiny --shape 32x64x1", "run lbm --size tiny --tile 4x4",
                           "run lbm --size tiny --radius 40 --case droplet", "run lbm --size huge",
                           "run lbm --size tiny --vtk-every 5",
                           // A team's cells counted in 64 bits: 4096 * 4096 * 255 does not wrap an int.
                           "run lbm --size tiny --shape 4096x4096x255", "run lbm --size tiny --fused-shape 64x32x1",
                           "run lbm --size tiny --block 4x4x4x", "run lbm --size tiny --tile 010x2x1",
                           "run lbm --size tiny --block 1x+2x1", "run lbm --size tiny --tile 4097x1x1",
                           "run lbm --size tiny --shape 0x1x1", "run lbm --size tiny --shape x1x1"}) {
    auto r = run_ompref(std::string(args) + " --no-ceiling");
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_EQ(ompref::testing::count_lines(r.stderr_text), 1) << args << "\n" << r.stderr_text;
  }
}

// One size table: the sizes, their lattices and the error text.
TEST(Lbm, SizesComeFromOneTable) {
  EXPECT_EQ(registry().workload("lbm")->sizes(), (std::vector<std::string>{"tiny", "small", "medium", "paper"}));
  Params p;
  size_defaults("medium", p);
  EXPECT_EQ(p.nx, 256);
  EXPECT_EQ(p.ny, 256);
  EXPECT_EQ(p.nz, 128);
  EXPECT_EQ(p.steps, 10);
  try {
    size_defaults("huge", p);
    FAIL() << "size huge accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("tiny 32x32x32/10, small 64x64x64/100"), std::string::npos) << e.what();
  }
}

// Every launch shape reaches the run's parameters as given.
TEST(Lbm, ShapesReachTheParameters) {
  const std::string json = ::testing::TempDir() + "lbm_shapes.json";
  auto r = run_ompref("run lbm --size tiny --no-ceiling --reps 1 --warmup 0 --variant target_shaped,host_tiled "
                      "--tile 4096x4096x255 --shape 16x2x2 --block 2x1x3 --fused-shape 32x4x1 --case flat --json " +
                      json);
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream in(json);
  const nlohmann::json doc = nlohmann::json::parse(in);
  const nlohmann::json& params = doc["runs"][0]["params"];
  EXPECT_EQ(params["tile"], "4096x4096x255");
  EXPECT_EQ(params["shape"], "16x2x2");
  EXPECT_EQ(params["block"], "2x1x3");
  EXPECT_EQ(params["fused_shape"], "32x4x1");
  EXPECT_EQ(params["case"], "flat");
  std::remove(json.c_str());
}

TEST(Lbm, TinyRunsEveryVariantValid) {
  auto r = run_ompref("run lbm --size tiny --no-ceiling --reps 2");
  EXPECT_EQ(r.status, 0) << r.output;
  for (const char* v : {"host_basic", "host_tiled", "target_basic", "target_shaped", "target_many", "target_fused"})
    EXPECT_NE(r.output.find(v), std::string::npos) << v;
}

}  // namespace
}  // namespace ompref::lbm
