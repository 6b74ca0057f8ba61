#include "common/lbm.hpp"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <omp.h>

#include "common/usage_error.hpp"
#include "common/vtk.hpp"

namespace ompref::lbm {

void size_defaults(const std::string& size, Params& p) {
  p.size_name = size;
  if (size == "tiny") { p.nx = p.ny = p.nz = 32; p.steps = 10; return; }
  if (size == "small") { p.nx = p.ny = p.nz = 64; p.steps = 100; return; }
  if (size == "medium") { p.nx = 256; p.ny = 256; p.nz = 128; p.steps = 20; return; }
  if (size == "paper") { p.nx = 512; p.ny = 512; p.nz = 256; p.steps = 10; return; }
  throw UsageError(fmt::format("lbm: unknown size '{}' (accepted: tiny, small, medium, paper)", size));
}

Case parse_case(const std::string& name) {
  if (name == "drops") return Case::drops;
  if (name == "droplet") return Case::droplet;
  if (name == "flat") return Case::flat;
  if (name == "paper") return Case::paper;
  throw UsageError(fmt::format("--case: unknown lbm case '{}' (accepted: drops, droplet, flat, paper)", name));
}

void parse_shape(const std::string& text, const std::string& option, int (&out)[3]) {
  int v[3] = {0, 0, 0};
  int used = 0;
  const bool ok = std::sscanf(text.c_str(), "%dx%dx%d%n", &v[0], &v[1], &v[2], &used) == 3 &&
                  used == int(text.size()) && text.find_first_of(" +-") == std::string::npos;
  if (!ok || v[0] < 1 || v[1] < 1 || v[2] < 1 || v[0] > 4096 || v[1] > 4096 || v[2] > 4096)
    throw UsageError(fmt::format("{}: '{}' is not a shape (accepted: AxBxC, three integers 1..4096, e.g. 32x2x4)",
                                 option, text));
  for (int k = 0; k < 3; ++k) out[k] = v[k];
}

static long padded(long n) { return (n + 7) / 8 * 8; }
static double cells_of(const Params& p) { return double(p.nx) * p.ny * p.nz; }

double device_bytes_needed(const Params& p) {
  const double s = double(padded(long(p.nx) * p.ny * p.nz));
  return s * (2 * Q * 8 + 5 * 8 + 1);
}

double host_bytes_needed(const Params& p) {
  const double s = double(padded(long(p.nx) * p.ny * p.nz));
  // The instance (as on the device), the reference run (two lattices, psi)
  // and the observables' scratch (rho, psi).
  return device_bytes_needed(p) + s * (2 * Q * 8 + 8) + s * 16;
}

// ---------------------------------------------------------------------------
// Initial state

namespace {

double profile(double d, double radius, double width) { return 0.5 * (1.0 - std::tanh(2.0 * (d - radius) / width)); }

struct Drop {
  double x, y, z, r;
};

std::vector<Drop> drops_of(const Params& p) {
  std::vector<Drop> out;
  if (p.kind == Case::drops || p.kind == Case::paper) {
    // openLBMflow's default is two droplets of radius 15 in a 70x60x60 box;
    // here their radius scales with the box and they sit apart, off-centre.
    const double r = p.radius > 0 ? p.radius : 15.0 * std::min(p.ny, p.nz) / 60.0;
    out.push_back({0.28 * p.nx, 0.35 * p.ny, 0.5 * p.nz, r});
    out.push_back({0.72 * p.nx, 0.65 * p.ny, 0.5 * p.nz, r});
  } else if (p.kind == Case::droplet) {
    const double r = p.radius > 0 ? p.radius : std::min({p.nx, p.ny, p.nz}) / 4.0;
    out.push_back({double(p.nx / 2), double(p.ny / 2), double(p.nz / 2), r});
  }
  return out;
}

// Shortest distance on a periodic axis of length n.
double periodic_delta(double a, double b, int n) {
  double d = std::fabs(a - b);
  return std::min(d, n - d);
}

}  // namespace

// ---------------------------------------------------------------------------
// The instance

LbmInstance::LbmInstance(const Params& params) : p(params) {
  grid.nx = p.nx;
  grid.ny = p.ny;
  grid.nz = p.nz;
  grid.n = long(p.nx) * p.ny * p.nz;
  grid.stride = padded(grid.n);
  coeffs.G = p.G;
  coeffs.G_ads = p.G_ads;
  coeffs.gx = 0;
  coeffs.gy = -p.gravity;
  coeffs.gz = 0;
  coeffs.tau = p.tau;
  coeffs.omega = 1.0 / p.tau;
  coeffs.rho_solid = p.rho_solid;
  const std::size_t s = std::size_t(grid.stride);
  lat[0] = AlignedArray<double>(s * Q);
  lat[1] = AlignedArray<double>(s * Q);
  rho = AlignedArray<double>(s);
  ux = AlignedArray<double>(s);
  uy = AlignedArray<double>(s);
  uz = AlignedArray<double>(s);
  psi = AlignedArray<double>(s);
  solid = AlignedArray<std::uint8_t>(s);
}

nlohmann::json LbmInstance::params() const {
  return {{"case", p.case_name},  {"nx", p.nx},       {"ny", p.ny},          {"nz", p.nz},
          {"steps", p.steps},     {"tau", p.tau},     {"G", p.G},            {"G_ads", p.G_ads},
          {"gravity", p.gravity}, {"radius", drops_of(p).empty() ? 0.0 : drops_of(p)[0].r},
          {"walls_y", p.walls_y}, {"rho_solid", p.rho_solid},
          {"tile", fmt::format("{}x{}x{}", p.tile[0], p.tile[1], p.tile[2])},
          {"shape", fmt::format("{}x{}x{}", p.shape[0], p.shape[1], p.shape[2])},
          {"block", fmt::format("{}x{}x{}", p.block[0], p.block[1], p.block[2])},
          {"fused_shape", fmt::format("{}x{}x{}", p.fshape[0], p.fshape[1], p.fshape[2])},
          {"bytes_per_cell_step", bytes_per_cell_step}};
}

Model LbmInstance::model(const std::string& /*kernel*/) const {
  const double updates = cells_of(p) * p.steps;
  return Model{bytes_per_cell_step * updates, flops_per_cell_step * updates, "MLUPS", updates / 1e6};
}

std::vector<PhaseModel> LbmInstance::phases() const {
  // One sample per pass per step: the bytes of one pass over the lattice.
  const double n = cells_of(p);
  return {{"calculate_phi", phi_bytes_per_cell * n},
          {"calculate_fn", fn_bytes_per_cell * n},
          {"update_boundary", boundary_bytes_per_cell * n}};
}

void LbmInstance::initial_state(double* pop) const {
  const std::vector<Drop> drops = drops_of(p);
  const long stride = grid.stride, plane = long(p.nx) * p.ny;
  const std::uint8_t* sol = solid.data();
#pragma omp parallel for schedule(static)
  for (long k = 0; k < stride; ++k) {
    if (k >= grid.n || sol[k]) {
      for (int i = 0; i < Q; ++i) pop[i * stride + k] = 0.0;
      continue;
    }
    const int x = int(k % p.nx), y = int(k / p.nx % p.ny), z = int(k / plane);
    double liquid = 0;
    if (p.kind == Case::flat) {
      const double y0 = p.ny / 4.0, y1 = 3.0 * p.ny / 4.0;
      liquid = 0.5 * (std::tanh(2.0 * (y - y0) / p.width) - std::tanh(2.0 * (y - y1) / p.width));
    } else {
      for (const Drop& d : drops) {
        const double dx = periodic_delta(x, d.x, p.nx), dy = periodic_delta(y, d.y, p.ny),
                     dz = periodic_delta(z, d.z, p.nz);
        liquid += profile(std::sqrt(dx * dx + dy * dy + dz * dz), d.r, p.width);
      }
    }
    const double r = p.rho_gas + (p.rho_liquid - p.rho_gas) * liquid;
    for (int i = 0; i < Q; ++i) pop[i * stride + k] = wt[i] * r;  // equilibrium at rest
  }
}

void LbmInstance::reset() {
  const long stride = grid.stride, plane = long(p.nx) * p.ny;
  std::uint8_t* sol = solid.data();
  double* fb = lat[1].data();
  double *pr = rho.data(), *px = ux.data(), *py = uy.data(), *pz = uz.data(), *pp = psi.data();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // First touch in parallel with the static schedule of the kernels; the
  // second lattice and the fields are poisoned so that an unwritten value fails.
#pragma omp parallel for schedule(static)
  for (long k = 0; k < stride; ++k) {
    const int y = int(k / p.nx % p.ny);
    sol[k] = k >= grid.n || (p.walls_y && (y == 0 || y == p.ny - 1)) ? 1 : 0;
    (void)plane;
    pr[k] = px[k] = py[k] = pz[k] = pp[k] = nan;
    for (int i = 0; i < Q; ++i) fb[i * stride + k] = nan;
  }
  cur = 0;
  initial_state(lat[0].data());
  initial_mass = mass_of(lat[0].data());
}

long double LbmInstance::mass_of(const double* pop) const {
  const long stride = grid.stride;
  const std::uint8_t* sol = solid.data();
  long double total = 0;
  // Partial sums per thread, added under a critical section: a long-double
  // reduction clause would need 16-byte atomics (libatomic) with clang.
#pragma omp parallel
  {
    long double mine = 0;
#pragma omp for schedule(static) nowait
    for (long k = 0; k < grid.n; ++k) {
      if (sol[k]) continue;
      long double r = 0;
      for (int i = 0; i < Q; ++i) r += pop[i * stride + k];
      mine += r;
    }
#pragma omp critical
    total += mine;
  }
  return total;
}

// ---------------------------------------------------------------------------
// The host reference: the same cell arithmetic in host_naive's order, in a
// two-pass form with bounce-back at the push (the values are those of the
// three-pass form: a population pushed into a wall lands, reversed, where
// update_boundary would put it). Independent of the variants' loops and
// data movement; shares their cell arithmetic (lbm_cell.hpp).

struct LbmInstance::Reference {
  AlignedArray<double> lat[2];
  AlignedArray<double> psi;
  int cur = 0;
  long steps = -1;  // -1: not initialised
  std::vector<std::pair<double, std::string>> frames;
};

namespace {

void reference_step(const Grid& g, const Coeffs& c, const std::uint8_t* solid, const double* f, double* out,
                    double* psi) {
  const long stride = g.stride;
#pragma omp parallel for schedule(static)
  for (long k = 0; k < g.n; ++k) psi[k] = psi_cell(c, f, stride, solid, k);
#pragma omp parallel for collapse(2) schedule(static)
  for (int z = 0; z < g.nz; ++z)
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) {
        const long k = x + long(g.nx) * (y + long(g.ny) * z);
        if (solid[k]) continue;
        double fl[Q];
        load_cell(f, stride, k, fl);
        double r, vx, vy, vz;
        moments(fl, r, vx, vy, vz);
        int nb[Q];
        neighbour_indices(g, x, y, z, nb);
        fn_cell(c, solid, psi, k, nb, r, vx, vy, vz, fl);
        for (int i = 0; i < Q; ++i) {
          if (solid[nb[i]])
            out[opp[i] * stride + k] = fl[i];
          else
            out[i * stride + nb[i]] = fl[i];
        }
      }
}

vtk::Image image_of(const LbmInstance& s, const double* pop) {
  const Grid& g = s.grid;
  vtk::Image im;
  im.nx = g.nx;
  im.ny = g.ny;
  im.nz = g.nz;
  im.fields = {{"density", 1, {}}, {"pressure", 1, {}}, {"velocity", 3, {}}, {"solid", 1, {}}};
  for (auto& f : im.fields) f.data.resize(std::size_t(g.n) * f.components);
  for (long k = 0; k < g.n; ++k) {
    double fl[Q];
    load_cell(pop, g.stride, k, fl);
    double r = s.coeffs.rho_solid, vx = 0, vy = 0, vz = 0;
    if (!s.solid[k]) moments(fl, r, vx, vy, vz);
    const double ps = pseudo_potential(r);
    im.fields[0].data[k] = float(r);
    im.fields[1].data[k] = float(r / 3.0 + s.coeffs.G * ps * ps / 6.0);
    im.fields[2].data[3 * k] = float(vx);
    im.fields[2].data[3 * k + 1] = float(vy);
    im.fields[2].data[3 * k + 2] = float(vz);
    im.fields[3].data[k] = s.solid[k] ? 1.0f : 0.0f;
  }
  return im;
}

}  // namespace

const double* LbmInstance::reference_state(long total_steps) const {
  if (!ref_) {
    ref_ = std::make_shared<Reference>();
    const std::size_t s = std::size_t(grid.stride);
    ref_->lat[0] = AlignedArray<double>(s * Q);
    ref_->lat[1] = AlignedArray<double>(s * Q);
    ref_->psi = AlignedArray<double>(s);
  }
  Reference& r = *ref_;
  const bool vtk = p.vtk_every > 0 && !p.out_dir.empty();
  auto write_frame = [&](long step) {
    const std::string name = fmt::format("lbm_{}_{:06d}.vti", p.case_name, step);
    vtk::write_vti((std::filesystem::path(p.out_dir) / name).string(), image_of(*this, r.lat[r.cur].data()));
    r.frames.emplace_back(double(step), name);
    vtk::write_pvd((std::filesystem::path(p.out_dir) / fmt::format("lbm_{}.pvd", p.case_name)).string(), r.frames);
  };
  if (r.steps < 0 || r.steps > total_steps) {
    initial_state(r.lat[0].data());
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::fill(r.lat[1].data(), r.lat[1].data() + grid.stride * Q, nan);
    r.cur = 0;
    r.steps = 0;
    r.frames.clear();
    if (vtk) write_frame(0);
  }
  // A progress line for long reference runs, only on a terminal.
  const bool tty = isatty(2) == 1;
  const double t0 = omp_get_wtime();
  const long first = r.steps;
  double last_print = t0;
  while (r.steps < total_steps) {
    reference_step(grid, coeffs, solid.data(), r.lat[r.cur].data(), r.lat[r.cur ^ 1].data(), r.psi.data());
    r.cur ^= 1;
    ++r.steps;
    if (vtk && r.steps % p.vtk_every == 0) write_frame(r.steps);
    const double now = omp_get_wtime();
    if (tty && now - t0 > 3.0 && now - last_print > 1.0) {
      const double rate = double(r.steps - first) * grid.n / (now - t0);
      fmt::print(stderr, "\rlbm reference: step {}/{}, {:.1f} MLUPS, {:.0f} s left   ", r.steps, total_steps,
                 rate / 1e6, double(total_steps - r.steps) * grid.n / rate);
      last_print = now;
    }
  }
  if (tty && last_print > t0) fmt::print(stderr, "\n");
  return r.lat[r.cur].data();
}

Check LbmInstance::validate(int repetitions, const std::string& /*kernel*/) const {
  const long total = long(repetitions) * p.steps;
  const double* want = reference_state(total);
  const double* got = f();
  const long stride = grid.stride;
  const std::uint8_t* sol = solid.data();
  // 1e-12 at the 20 steps; rounding differences between compilers
  // (FMA contraction, exp) grow about linearly with the steps.
  const double tol = 1e-12 * std::max(1.0, double(total) / 20.0);

  double worst = 0;
  long worst_k = -1;
  int worst_i = 0;
#pragma omp parallel
  {
    double my_worst = 0;
    long my_k = -1;
    int my_i = 0;
#pragma omp for schedule(static) nowait
    for (long k = 0; k < grid.n; ++k) {
      if (sol[k]) continue;
      for (int i = 0; i < Q; ++i) {
        const double a = got[i * stride + k], b = want[i * stride + k];
        double err = std::isfinite(a) ? std::fabs(a - b) / (std::fabs(b) > 0 ? std::fabs(b) : 1.0)
                                      : std::numeric_limits<double>::infinity();
        if (!(err <= my_worst)) {
          my_worst = err;
          my_k = k;
          my_i = i;
        }
      }
    }
#pragma omp critical
    if (!(my_worst <= worst) || (my_worst == worst && my_k >= 0 && (worst_k < 0 || my_k < worst_k))) {
      worst = my_worst;
      worst_k = my_k;
      worst_i = my_i;
    }
  }
  Check check;
  check.reference = fmt::format("host reference run ({} steps, host_naive's arithmetic order)", total);
  check.tolerance = tol;
  check.max_rel_error = worst;
  check.valid = worst <= tol;
  if (!check.valid) {
    const long k = worst_k;
    check.detail = fmt::format("population {} of cell ({}, {}, {}) = {} (reference {}), relative error {:.3g} > {:.3g}",
                               worst_i, k % p.nx, k / p.nx % p.ny, k / (long(p.nx) * p.ny), got[worst_i * stride + k],
                               want[worst_i * stride + k], worst, tol);
    return check;
  }
  // Mass: bounce-back, periodic faces and the velocity-shift forcing conserve it.
  const long double mass = mass_of(got);
  const double mass_err = double(std::fabs(mass - initial_mass) / initial_mass);
  const double mass_tol = 1e-12;
  if (!(mass_err <= mass_tol)) {
    check.valid = false;
    check.max_rel_error = mass_err;
    check.tolerance = mass_tol;
    check.detail = fmt::format("mass {} after {} steps, {} at the start: relative change {:.3g} > {:.0e}",
                               double(mass), total, double(initial_mass), mass_err, mass_tol);
  }
  return check;
}

Observables LbmInstance::measure(const double* pop) const {
  const Grid& g = grid;
  const long stride = g.stride;
  const std::uint8_t* sol = solid.data();
  std::vector<double> r(std::size_t(g.n)), ps(std::size_t(g.n));
#pragma omp parallel for schedule(static)
  for (long k = 0; k < g.n; ++k) {
    double fl[Q];
    load_cell(pop, stride, k, fl);
    double rr = coeffs.rho_solid, vx, vy, vz;
    if (!sol[k]) moments(fl, rr, vx, vy, vz);
    r[k] = rr;
    ps[k] = pseudo_potential(rr);
  }
  Observables o;
  double rmin = std::numeric_limits<double>::infinity(), rmax = -rmin, umax = 0;
#pragma omp parallel for collapse(2) schedule(static) reduction(min : rmin) reduction(max : rmax, umax)
  for (int z = 0; z < g.nz; ++z)
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) {
        const long k = x + long(g.nx) * (y + long(g.ny) * z);
        if (sol[k]) continue;
        double fl[Q];
        load_cell(pop, stride, k, fl);
        double rr, vx, vy, vz;
        moments(fl, rr, vx, vy, vz);
        int nb[Q];
        neighbour_indices(g, x, y, z, nb);
        double psin[Q];
        std::uint8_t sn[Q];
        for (int i = 0; i < Q; ++i) {
          psin[i] = ps[nb[i]];
          sn[i] = sol[nb[i]];
        }
        double Fx, Fy, Fz;
        total_force(coeffs, rr, ps[k], psin, sn, Fx, Fy, Fz);
        const double Ux = vx + Fx / (2 * rr), Uy = vy + Fy / (2 * rr), Uz = vz + Fz / (2 * rr);
        const double U = std::sqrt(Ux * Ux + Uy * Uy + Uz * Uz);
        rmin = std::min(rmin, rr);
        rmax = std::max(rmax, rr);
        // NaN propagates into the maximum so that it is seen.
        umax = std::isnan(U) ? std::numeric_limits<double>::infinity() : std::max(umax, U);
      }
  o.mass = double(mass_of(pop));
  o.rho_min = rmin;
  o.rho_max = rmax;
  o.max_U = umax;
  if (p.kind == Case::droplet) {
    o.droplet = true;
    auto at = [&](int x, int y, int z) {
      x = (x % g.nx + g.nx) % g.nx;
      y = (y % g.ny + g.ny) % g.ny;
      z = (z % g.nz + g.nz) % g.nz;
      return x + long(g.nx) * (y + long(g.ny) * z);
    };
    auto pressure = [&](long k) { return r[k] / 3.0 + coeffs.G * ps[k] * ps[k] / 6.0; };
    const int cx = g.nx / 2, cy = g.ny / 2, cz = g.nz / 2;
    double pin = 0, pout = 0;
    int count = 0;
    for (int dz = -2; dz <= 2; ++dz)
      for (int dy = -2; dy <= 2; ++dy)
        for (int dx = -2; dx <= 2; ++dx) {
          pin += pressure(at(cx + dx, cy + dy, cz + dz));
          pout += pressure(at(dx, dy, dz));  // the corner: the farthest point from the centre
          ++count;
        }
    o.p_in = pin / count;
    o.p_out = pout / count;
    // Radius: where rho crosses (rho_centre + rho_far) / 2 along the six axis
    // rays from the centre, interpolated linearly, averaged.
    const double mid = 0.5 * (r[at(cx, cy, cz)] + r[at(0, 0, 0)]);
    const int dirs[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    double sum = 0;
    int rays = 0;
    for (const auto& d : dirs) {
      const int reach = (d[0] ? g.nx : d[1] ? g.ny : g.nz) / 2;
      double prev = r[at(cx, cy, cz)];
      for (int s = 1; s <= reach; ++s) {
        const double now = r[at(cx + s * d[0], cy + s * d[1], cz + s * d[2])];
        if ((prev - mid) * (now - mid) <= 0 && prev != now) {
          sum += (s - 1) + (prev - mid) / (prev - now);
          ++rays;
          break;
        }
        prev = now;
      }
    }
    o.radius = rays > 0 ? sum / rays : 0;
  }
  return o;
}

nlohmann::json LbmInstance::observables(const std::string& /*kernel*/) const {
  const Observables o = measure(f());
  nlohmann::json j = {{"mass", o.mass}, {"rho_min", o.rho_min}, {"rho_max", o.rho_max}, {"max_U", o.max_U}};
  if (o.droplet) {
    j["p_in"] = o.p_in;
    j["p_out"] = o.p_out;
    j["radius"] = o.radius;
    j["dp_times_R"] = (o.p_in - o.p_out) * o.radius;
  }
  return j;
}

std::unique_ptr<LbmInstance> make_instance(const Params& p, const MemoryLimits& limits) {
  const int min_y = p.walls_y ? 3 : 1;
  if (p.nx < 1 || p.ny < min_y || p.nz < 1)
    throw UsageError(fmt::format("lbm: the lattice {}x{}x{} is too small (at least 1x{}x1 cells)", p.nx, p.ny, p.nz,
                                 min_y));
  const double cells = cells_of(p);
  if (cells > double((1L << 31) - 1) / 2)
    throw UsageError(fmt::format("lbm: {}x{}x{} = {:.3g} cells is more than this build indexes (1.07e9)", p.nx, p.ny,
                                 p.nz, cells));
  if (!(p.tau > 0.5 && p.tau <= 100))
    throw UsageError(fmt::format("--tau: {} is not a stable relaxation time (accepted: 0.5 < tau <= 100)", p.tau));
  if (!std::isfinite(p.G) || !std::isfinite(p.G_ads) || !std::isfinite(p.gravity) || std::fabs(p.gravity) > 0.1)
    throw UsageError("lbm: --G, --G-ads and --gravity must be finite (|gravity| <= 0.1)");
  if (p.radius < 0 || p.radius > std::min({p.nx, p.ny, p.nz}) / 2.0)
    throw UsageError(fmt::format("--radius: {} does not fit the {}x{}x{} box (accepted: 0 < R <= {})", p.radius, p.nx,
                                 p.ny, p.nz, std::min({p.nx, p.ny, p.nz}) / 2.0));
  for (const auto* sh : {&p.shape, &p.fshape})
    if ((*sh)[0] * (*sh)[1] * (*sh)[2] > 1024)
      throw UsageError(fmt::format("--shape/--fused-shape: {}x{}x{} has {} cells; a team has at most 1024 threads",
                                   (*sh)[0], (*sh)[1], (*sh)[2], (*sh)[0] * (*sh)[1] * (*sh)[2]));
  if (p.vtk_every > 0 && p.out_dir.empty()) throw UsageError("--vtk-every needs --out DIR");
  if (p.vtk_every > 0) {
    std::error_code ec;
    std::filesystem::create_directories(p.out_dir, ec);
    if (ec || !std::filesystem::is_directory(p.out_dir))
      throw UsageError(fmt::format("--out: cannot create the directory '{}'", p.out_dir));
  }
  const std::string what = fmt::format("lbm {} {}x{}x{}", p.case_name, p.nx, p.ny, p.nz);
  limits.check_host(host_bytes_needed(p), what + " (lattices, fields and the host reference run)");
  limits.check_device(device_bytes_needed(p), what + " (two lattices and the fields)");
  return std::make_unique<LbmInstance>(p);
}

// ---------------------------------------------------------------------------
// The workload and its options

namespace {

class LbmWorkload final : public Workload {
 public:
  std::string name() const override { return "lbm"; }
  int order() const override { return 2; }
  std::vector<std::string> sizes() const override { return {"tiny", "small", "medium", "paper"}; }
  std::string default_size() const override { return "medium"; }
  void add_options(CLI::App& group) override {
    group.add_option("--case", case_, "lbm: drops, droplet, flat or paper");
    group.add_option("--nx", nx_, "lbm: cells along x (overrides --size)")->check(CLI::Range(1, 1 << 16));
    group.add_option("--ny", ny_, "lbm: cells along y")->check(CLI::Range(1, 1 << 16));
    group.add_option("--nz", nz_, "lbm: cells along z")->check(CLI::Range(1, 1 << 16));
    group.add_option("--steps", steps_, "lbm: time steps per repetition")->check(CLI::Range(1, 1 << 24));
    group.add_option("--tau", tau_, "lbm: BGK relaxation time");
    group.add_option("--G", G_, "lbm: Shan-Chen cohesion strength");
    group.add_option("--G-ads", G_ads_, "lbm: adsorption strength against walls");
    group.add_option("--gravity", gravity_, "lbm: acceleration along -y");
    group.add_option("--radius", radius_, "lbm: droplet radius");
    group.add_option("--tile", tile_, "lbm host_tiled: tile TXxTYxTZ");
    group.add_option("--shape", shape_, "lbm target_shaped: a team's tile TXxTYxTZ");
    group.add_option("--fused-shape", fshape_, "lbm target_fused: a team's tile TXxTYxTZ");
    group.add_option("--block", block_, "lbm target_many: cells per thread BXxBYxBZ");
    group.add_option("--vtk-every", vtk_every_, "lbm: write VTK every N steps (of the reference run)")
        ->check(CLI::Range(1, 1 << 24))
        ;
    group.add_option("--out", out_, "lbm: directory for VTK output");
  }
  std::unique_ptr<Instance> make(const std::string& size, const MemoryLimits& limits) override {
    Params p;
    p.kind = parse_case(case_);
    p.case_name = case_;
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
    if (tile_) parse_shape(*tile_, "--tile", p.tile);
    if (shape_) parse_shape(*shape_, "--shape", p.shape);
    if (fshape_) parse_shape(*fshape_, "--fused-shape", p.fshape);
    if (block_) parse_shape(*block_, "--block", p.block);
    if (vtk_every_) p.vtk_every = *vtk_every_;
    if (out_) p.out_dir = *out_;
    return make_instance(p, limits);
  }

 private:
  std::string case_ = "drops";
  std::optional<int> nx_, ny_, nz_, steps_, vtk_every_;
  std::optional<double> tau_, G_, G_ads_, gravity_, radius_;
  std::optional<std::string> tile_, shape_, fshape_, block_, out_;
};

const Registration registration{std::make_unique<LbmWorkload>()};

}  // namespace
}  // namespace ompref::lbm
