// lbm's instance: the data layout, the initial state of each case, the
// bytes model and the mass. Options and checks are lbm_options.cpp, the
// reference run and validation lbm_reference.cpp, the observables
// lbm_observables.cpp.
#include "common/lbm/lbm.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ompref::lbm {

long lattice_stride(long cells) { return (cells + 7) / 8 * 8; }

namespace {

double cells_of(const Params& p) { return double(p.nx) * p.ny * p.nz; }

double profile(double d, double radius, double width) { return 0.5 * (1.0 - std::tanh(2.0 * (d - radius) / width)); }

struct Drop {
  double x, y, z, r;
};

std::vector<Drop> drops_of(const Params& p) {
  const double r = drop_radius(p);
  if (p.kind == Case::drops || p.kind == Case::paper)
    return {{0.28 * p.nx, 0.35 * p.ny, 0.5 * p.nz, r}, {0.72 * p.nx, 0.65 * p.ny, 0.5 * p.nz, r}};
  if (p.kind == Case::droplet) return {{double(p.nx / 2), double(p.ny / 2), double(p.nz / 2), r}};
  return {};
}

// Shortest distance on a periodic axis of length n.
double periodic_delta(double a, double b, int n) {
  double d = std::fabs(a - b);
  return std::min(d, n - d);
}

}  // namespace

double drop_radius(const Params& p) {
  if (p.kind == Case::flat) return 0;
  if (p.radius > 0) return p.radius;
  // openLBMflow's default is two droplets of radius 15 in a 70x60x60 box;
  // here their radius scales with the box and they sit apart, off-centre.
  if (p.kind == Case::drops || p.kind == Case::paper) return 15.0 * std::min(p.ny, p.nz) / 60.0;
  return std::min({p.nx, p.ny, p.nz}) / 4.0;  // droplet
}

double device_bytes_needed(const Params& p) {
  const double s = double(lattice_stride(long(p.nx) * p.ny * p.nz));
  return s * (2 * Q * 8 + 5 * 8 + 1);
}

double host_bytes_needed(const Params& p) {
  const double s = double(lattice_stride(long(p.nx) * p.ny * p.nz));
  // The instance (as on the device), the reference run (two lattices, psi)
  // and the observables' scratch (rho, psi).
  return device_bytes_needed(p) + s * (2 * Q * 8 + 8) + s * 16;
}

LbmInstance::LbmInstance(const Params& params) : p(params) {
  grid.nx = p.nx;
  grid.ny = p.ny;
  grid.nz = p.nz;
  grid.n = long(p.nx) * p.ny * p.nz;
  grid.stride = lattice_stride(grid.n);
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

Model LbmInstance::model(const std::string&) const {
  const double updates = cells_of(p) * p.steps;
  return Model{bytes_per_cell_step * updates, flops_per_cell_step * updates, "MLUPS", updates / 1e6};
}

std::vector<PhaseModel> LbmInstance::phases() const {
  // One sample per pass per step: the bytes of one pass over the lattice.
  const double n = cells_of(p);
  // The slab variants over MPI ranks (src/mpi/lbm_slabs.hpp) also time their
  // halo exchanges: the bytes one rank sends, psi's two edge planes and the
  // five crossing directions of its two ghost planes. A variant that does not
  // lap a phase has none.
  const double plane_bytes = 8.0 * p.nx * p.ny;
  return {{"calculate_phi", phi_bytes_per_cell * n},
          {"calculate_fn", fn_bytes_per_cell * n},
          {"update_boundary", boundary_bytes_per_cell * n},
          {"halo_psi", 2 * plane_bytes},
          {"halo_populations", 10 * plane_bytes}};
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
    for (int i = 0; i < Q; ++i) pop[i * stride + k] = wt(i) * r;  // equilibrium at rest
  }
}

void LbmInstance::reset() {
  const long stride = grid.stride;
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
    pr[k] = px[k] = py[k] = pz[k] = pp[k] = nan;
    for (int i = 0; i < Q; ++i) fb[i * stride + k] = nan;
  }
  cur = 0;
  initial_state(lat[0].data());
  initial_mass = mass_of(lat[0].data());
}

long double LbmInstance::mass_of(const double* pop) const {
  const long stride = grid.stride, plane = long(p.nx) * p.ny;
  const std::uint8_t* sol = solid.data();
  // One partial sum per z plane, in parallel, then the planes in z order: the
  // same sum whatever the number of threads. (A long-double reduction clause
  // would need 16-byte atomics, libatomic, with clang.)
  std::vector<long double> planes(std::size_t(p.nz), 0.0L);
#pragma omp parallel for schedule(static)
  for (int z = 0; z < p.nz; ++z) {
    long double mine = 0;
    for (long k = z * plane; k < (z + 1) * plane; ++k) {
      if (sol[k]) continue;
      long double r = 0;
      for (int i = 0; i < Q; ++i) r += pop[i * stride + k];
      mine += r;
    }
    planes[std::size_t(z)] = mine;
  }
  long double total = 0;
  for (long double m : planes) total += m;
  return total;
}

}  // namespace ompref::lbm
