// lbm's instance: the data layout, the initial state of each case, the
// bytes model and the mass. Options and checks are lbm_options.cpp, the
// reference run and validation lbm_reference.cpp, the observables
// lbm_observables.cpp.
#include "common/lbm/lbm.hpp"

#include "common/host_memory.hpp"
#include "common/ranks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>
#include <utility>

#include <fmt/format.h>
#include <omp.h>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace ompref::lbm {

long lattice_stride(long cells) { return (cells + 7) / 8 * 8; }

namespace {

double cells_of(const Params& p) { return double(p.nx) * p.ny * p.nz; }

// A drop's liquid fraction at distance d from its centre. Where |a| >= 22,
// tanh(a) is +-1 to double precision (1 - tanh 22 < 1e-18, below half an
// ulp of 1) and is not computed: most cells of a large lattice lie that far
// from every drop's surface, and the initial state is made at every reset.
double profile(double d, double radius, double width) {
  const double a = 2.0 * (d - radius) / width;
  const double t = a >= 22.0 ? 1.0 : a <= -22.0 ? -1.0 : std::tanh(a);
  return 0.5 * (1.0 - t);
}

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

double whole_device_bytes(const Params& p) {
  const double s = double(lattice_stride(long(p.nx) * p.ny * p.nz));
  return s * (2 * Q * 8 + 5 * 8 + 1);
}

double whole_host_bytes(const Params& p) {
  const double s = double(lattice_stride(long(p.nx) * p.ny * p.nz));
  // The instance (as on the device), the reference run (two lattices, psi)
  // and the observables' scratch (rho, psi).
  return whole_device_bytes(p) + s * (2 * Q * 8 + 8) + s * 16;
}

long slab_stride(const Params& p, int planes) { return lattice_stride(long(p.nx) * p.ny * (planes + 2)); }

double slab_device_bytes(const Params& p, int planes) {
  const double s = double(slab_stride(p, planes)), plane = double(p.nx) * p.ny;
  return s * (2 * Q * 8 + 8 + 1) + 4 * 5 * plane * 8;
}

double slab_host_bytes(const Params& p, int planes) {
  const double s = double(slab_stride(p, planes)), plane = double(p.nx) * p.ny;
  // The slab's lattices and mask; its reference (two lattices, psi); the
  // observables' density and psi; the run's psi, mask and staging buffers.
  return s * (2 * Q * 8 + 1) + s * (2 * Q * 8 + 8) + s * 16 + s * (8 + 1) + 4 * 5 * plane * 8;
}

namespace {

// The largest slab of the ranks, and how many ranks share this node's memory.
int largest_slab(const Params& p) { return slab_planes(p.nz, rank_place().count - 1, rank_place().count); }

}  // namespace

double device_bytes_needed(const Params& p) {
  return several_ranks() ? slab_device_bytes(p, largest_slab(p)) : whole_device_bytes(p);
}

double host_bytes_needed(const Params& p) {
  return several_ranks() ? slab_host_bytes(p, largest_slab(p)) * rank_place().local_count : whole_host_bytes(p);
}

// Where target variants run on a device, the runner copies the current
// lattice to it before each variant and back after (src/omp_target/lbm.cpp's
// device_data; the next lattice and the fields are poisoned there, not
// copied): at the paper size 10 GB each way per variant, at the link's rate
// from page-locked memory (common/host_memory.cpp; pageable where no device
// can lock pages). Locking the pages is paid once, when the instance is made,
// before any timing, for the lattice the copies use (reset() makes lat[0]
// current); the other arrays stay pageable.
FieldArray::FieldArray(std::size_t count, bool page_locked) : count_(count) {
  if (count == 0) return;
  const Memory memory = page_locked ? Memory::page_locked : Memory::pageable;
  data_ = static_cast<double*>(allocate_bytes(count * sizeof(double), memory));
  locked_ = is_page_locked(data_);
}

FieldArray::~FieldArray() { free_bytes(data_); }

void FieldArray::swap(FieldArray& other) noexcept {
  std::swap(data_, other.data_);
  std::swap(count_, other.count_);
  std::swap(locked_, other.locked_);
}

LbmInstance::LbmInstance(const Params& params, bool for_device, const MemoryLimits& limits)
    : p(params), for_device_(for_device), limits_(limits) {
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
  limits_.record_host = nullptr;
  if (!several_ranks()) allocate();
}

void LbmInstance::allocate() {
  const std::size_t s = std::size_t(grid.stride);
  lat[0] = FieldArray(s * Q, for_device_);
  lat[1] = FieldArray(s * Q, false);
  for (FieldArray* field : {&rho, &ux, &uy, &uz, &psi}) *field = FieldArray(s, false);
  solid = AlignedArray<std::uint8_t>(s);
}

void LbmInstance::release() {
  for (FieldArray* a : {&lat[0], &lat[1], &rho, &ux, &uy, &uz, &psi}) *a = FieldArray();
  solid = AlignedArray<std::uint8_t>();
  observed_rho = AlignedArray<double>();
  observed_psi = AlignedArray<double>();
  ref_.reset();
  seen_.reset();
  validated_ = nullptr;
  initial_mass = 0;
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
          {"to_standard", to_standard_bytes_per_cell * n},
          {"halo_psi", 2 * plane_bytes},
          {"halo_populations", 10 * plane_bytes}};
}

// Row by row (the rows of a thread are the cells the kernels' static
// schedule gives it, for the first touch): each cell's density, then each
// direction's row of populations as one stream.
void LbmInstance::initial_state(double* pop) const { initial_populations(p, grid, 0, solid.data(), pop); }

void store_run(double* dst, const double* src, int len) {
  int x = 0;
#if defined(__SSE2__)
  constexpr int line = 8;  // doubles in a 64-byte line
  const int head = int((line - (reinterpret_cast<std::uintptr_t>(dst) / sizeof(double)) % line) % line);
  if (len >= head + line) {
    for (; x < head; ++x) dst[x] = src[x];
    for (; x + line <= len; x += line) {
#if defined(__AVX__)
      _mm256_stream_pd(dst + x, _mm256_loadu_pd(src + x));
      _mm256_stream_pd(dst + x + 4, _mm256_loadu_pd(src + x + 4));
#else
      for (int h = 0; h < line; h += 2) _mm_stream_pd(dst + x + h, _mm_loadu_pd(src + x + h));
#endif
    }
  }
#endif
  for (; x < len; ++x) dst[x] = src[x];
}

void fill_run(double* dst, double value, long len) {
  constexpr int chunk = 512;
  double same[chunk];
  for (double& v : same) v = value;
  for (long x = 0; x < len; x += chunk) store_run(dst + x, same, int(std::min<long>(chunk, len - x)));
}

void store_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

void initial_populations(const Params& p, const Grid& g, int z_first, const std::uint8_t* sol, double* pop) {
  const std::vector<Drop> drops = drops_of(p);
  const long stride = g.stride;
#pragma omp parallel
  {
    std::vector<double> r(std::size_t(p.nx)), out(std::size_t(p.nx));
#pragma omp for collapse(2) schedule(static) nowait
    for (int lz = 0; lz < g.nz; ++lz)
      for (int y = 0; y < p.ny; ++y) {
        const int z = ((z_first + lz) % p.nz + p.nz) % p.nz;  // the lattice's plane (periodic)
        const long row = long(p.nx) * (y + long(p.ny) * lz);
        for (int x = 0; x < p.nx; ++x) {
          r[std::size_t(x)] = 0;  // solid cells hold no state
          if (sol[row + x]) continue;
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
          r[std::size_t(x)] = p.rho_gas + (p.rho_liquid - p.rho_gas) * liquid;
        }
        for (int i = 0; i < Q; ++i) {
          double* f = pop + i * stride + row;
          const double w = wt(i);
          // Equilibrium at rest; solid cells none.
#pragma omp simd
          for (int x = 0; x < p.nx; ++x) out[std::size_t(x)] = sol[row + x] ? 0.0 : w * r[std::size_t(x)];
          store_run(f, out.data(), p.nx);
        }
      }
    store_fence();
  }
  for (long k = g.n; k < stride; ++k)  // the padding
    for (int i = 0; i < Q; ++i) pop[i * stride + k] = 0.0;
}

void LbmInstance::reset() {
  // A variant that runs the whole lattice: a rank's slab, if one was made,
  // is freed first; the lattice made if it is not (several ranks).
  rank_part.reset();
  if (!allocated()) {
    const std::string what = fmt::format("lbm {} {}x{}x{}, the whole lattice on each of {} ranks", case_name(p.kind),
                                         p.nx, p.ny, p.nz, rank_place().count);
    limits_.check_host(whole_host_bytes(p) * rank_place().local_count,
                       fmt::format("{} ({} on this node)", what, rank_place().local_count));
    if (for_device_) limits_.check_device(whole_device_bytes(p), what);
    allocate();
  }
  const long stride = grid.stride;
  std::uint8_t* sol = solid.data();
  double* fb = lat[1].data();
  double *pr = rho.data(), *px = ux.data(), *py = uy.data(), *pz = uz.data(), *pp = psi.data();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // First touch in parallel, row by row as initial_state; the second
  // lattice and the fields are poisoned so that an unwritten value fails.
  // The NaNs with streaming stores (fill_run): nothing reads them here.
#pragma omp parallel
  {
#pragma omp for collapse(2) schedule(static) nowait
    for (int z = 0; z < p.nz; ++z)
      for (int y = 0; y < p.ny; ++y) {
        const long row = long(p.nx) * (y + long(p.ny) * z);
        const std::uint8_t wall = wall_row(p, y) ? 1 : 0;
        for (int x = 0; x < p.nx; ++x) sol[row + x] = wall;
        for (double* field : {pr, px, py, pz, pp}) fill_run(field + row, nan, p.nx);
        for (int i = 0; i < Q; ++i) fill_run(fb + i * stride + row, nan, p.nx);
      }
    store_fence();
  }
  for (long k = grid.n; k < stride; ++k) {  // the padding: solid
    sol[k] = 1;
    pr[k] = px[k] = py[k] = pz[k] = pp[k] = nan;
    for (int i = 0; i < Q; ++i) fb[i * stride + k] = nan;
  }
  cur = 0;
  validated_ = nullptr;
  initial_state(lat[0].data());
  // The parameters and walls are the instance's: every reset makes the same
  // state, whose mass (a pass over 10 GB at the paper size) is summed once.
  if (initial_mass == 0) initial_mass = mass_of(lat[0].data());
}

long double add_block_mass(long double sum, const double* pop, long stride, const std::uint8_t* solid, long k0,
                           int len) {
  // Four cells at a time: four independent chains of x87 additions, kept in
  // registers (one cell's 19 dependent additions waited on each other).
  int b = 0;
  for (; b + 4 <= len; b += 4) {
    long double c0 = 0, c1 = 0, c2 = 0, c3 = 0;
    for (int i = 0; i < Q; ++i) {
      const double* f = pop + i * stride + k0 + b;
      c0 += f[0];
      c1 += f[1];
      c2 += f[2];
      c3 += f[3];
    }
    const std::uint8_t* s = solid + k0 + b;
    if (!s[0]) sum += c0;
    if (!s[1]) sum += c1;
    if (!s[2]) sum += c2;
    if (!s[3]) sum += c3;
  }
  for (; b < len; ++b) {
    long double c = 0;
    for (int i = 0; i < Q; ++i) c += pop[i * stride + k0 + b];
    if (!solid[k0 + b]) sum += c;
  }
  return sum;
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
    for (long k0 = z * plane; k0 < (z + 1) * plane; k0 += block_cells)
      mine = add_block_mass(mine, pop, stride, sol, k0, int(std::min<long>(block_cells, (z + 1) * plane - k0)));
    planes[std::size_t(z)] = mine;
  }
  long double total = 0;
  for (long double m : planes) total += m;
  return total;
}

}  // namespace ompref::lbm
