// lbm's observables: the physics a user checks after a run (mass, density
// range, the largest velocity; for a droplet the pressures inside and outside
// and its radius, whose product dp * R Laplace's law holds constant).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <omp.h>
#include <nlohmann/json.hpp>

#include "common/lbm/lbm.hpp"

namespace ompref::lbm {

namespace {

// FNV-1a (64 bits) over 64-bit words, in two levels: the bit patterns of
// each z plane's fluid cells' 19 populations, a word each, then the planes'
// digests in z order. Equal digests mean the same state bit for bit, the
// check that the slab variants over MPI ranks (docs/mpi.md) compute what one
// process computes, whatever the number of ranks. A word at a time, not a
// byte: one multiplication per population instead of eight, so that the
// digest of a paper-size state (1.3 G populations) costs about a pass over
// memory rather than seconds of dependent multiplications; equality, not
// dispersion, is what it is for.
constexpr std::uint64_t fnv_offset = 14695981039346656037ull, fnv_prime = 1099511628211ull;

std::uint64_t fnv_word(std::uint64_t h, std::uint64_t word) { return (h ^ word) * fnv_prime; }
// Cells of a plane whose words a digest lays out at a time (scan_planes).
constexpr int digest_cells = 32;

// The moments of cells [k0, k0 + len), len <= block_cells, a direction at a
// time: each direction's populations read as one stream, each cell's
// additions in add_moment's order (the same bits as moments()). Cell by cell,
// a pass read the 19 directions as 19 streams 0.5 GB apart at the paper size
// and waited on memory: the observables took four times a validation's pass.
struct BlockMoments {
  double r[block_cells], jx[block_cells], jy[block_cells], jz[block_cells];
};

void block_moments(const double* pop, long stride, long k0, int len, BlockMoments& m) {
  for (int b = 0; b < len; ++b) m.r[b] = m.jx[b] = m.jy[b] = m.jz[b] = 0;
  // Unrolled, so that each direction's signs are constants in its loop.
#pragma GCC unroll 19
  for (int i = 0; i < Q; ++i) {
    const double* f = pop + i * stride + k0;
#pragma omp simd
    for (int b = 0; b < len; ++b) add_moment(i, f[b], m.r[b], m.jx[b], m.jy[b], m.jz[b]);
  }
}

// A fluid cell's density `r` and momentum into the ranges: the density's
// minimum and maximum, the largest |U| (U = u + F / (2 rho), u's arithmetic
// that of moments()); a NaN |U| makes the largest infinite, so that it is seen.
[[gnu::always_inline]] inline void note_ranges(double r, double jx, double jy, double jz, double Fx, double Fy,
                                               double Fz, double& rmin, double& rmax, double& umax) {
  const double inv = 1.0 / r;
  const double Ux = jx * inv + Fx / (2 * r), Uy = jy * inv + Fy / (2 * r), Uz = jz * inv + Fz / (2 * r);
  const double U = std::sqrt(Ux * Ux + Uy * Uy + Uz * Uz);
  rmin = r < rmin ? r : rmin;
  rmax = rmax < r ? r : rmax;
  const double seen = U != U ? std::numeric_limits<double>::infinity() : U;
  umax = umax < seen ? seen : umax;
}

// The planes [z0, z0 + G) of a state, block by block (block_cells): each
// cell's density and psi, each plane's mass, and with `digest` each plane's
// FNV-1a (into digests[z - v.z_lo]). A plane's digest is one chain of
// dependent multiplications, 19 a cell; the G planes' chains advance
// together, so that a core runs G of them at once.
template <int G>
void scan_planes(const StateView& v, const double* pop, int z0, bool digest, double* rho, double* psi,
                 PlaneFields& out, long double* mass, const BlockVisit& visit) {
  const long stride = v.grid.stride, plane = long(v.grid.nx) * v.grid.ny;
  const std::uint8_t* sol = v.solid;
  std::uint64_t h[G];
  for (int g = 0; g < G; ++g) h[g] = fnv_offset;
  BlockMoments m;
  std::uint64_t words[G][digest_cells * Q];
  for (long c0 = 0; c0 < plane; c0 += block_cells) {
    const int len = int(std::min<long>(block_cells, plane - c0));
    for (int g = 0; g < G; ++g) {
      const long k0 = (z0 + g) * plane + c0;
      if (visit) visit(z0 + g, k0, len);
      block_moments(pop, stride, k0, len, m);
      for (int b = 0; b < len; ++b) {
        const double rr = sol[k0 + b] ? v.coeffs.rho_solid : m.r[b];
        rho[k0 + b] = rr;
        psi[k0 + b] = pseudo_potential(rr);
      }
      mass[g] = add_block_mass(mass[g], pop, stride, sol, k0, len);  // the block is in cache now
    }
    if (!digest) continue;
    // A solid cell's step is h = (h ^ 0) * 1: it leaves h as it is. The
    // block's words are first laid out cell by cell (digest_cells cells of
    // the G planes at a time, a direction's run read as one stream from the
    // cache), so that the chains read consecutive words, not 19 G words on
    // 19 G pages a cell: a paper-size digest took 0.16-0.41 s of a pass on
    // 16 threads instead of 0.42-0.72 s (results/h200/lbm/host-passes-f552365/),
    // the rest the chains' 19 dependent multiplications a cell.
    for (long s0 = c0; s0 < c0 + len; s0 += digest_cells) {
      const int cells = int(std::min<long>(digest_cells, c0 + len - s0));
      for (int g = 0; g < G; ++g) {
        const long k0 = (z0 + g) * plane + s0;
        for (int i = 0; i < Q; ++i) {
          const double* f = pop + i * stride + k0;
          for (int b = 0; b < cells; ++b) {
            std::uint64_t bits;
            std::memcpy(&bits, f + b, sizeof bits);
            words[g][b * Q + i] = sol[k0 + b] ? 0 : bits;
          }
        }
      }
      for (int b = 0; b < cells; ++b) {
        std::uint64_t prime[G];
        for (int g = 0; g < G; ++g) prime[g] = sol[(z0 + g) * plane + s0 + b] ? 1 : fnv_prime;
        for (int i = 0; i < Q; ++i)
          for (int g = 0; g < G; ++g) h[g] = (h[g] ^ words[g][b * Q + i]) * prime[g];
      }
    }
  }
  if (digest)
    for (int g = 0; g < G; ++g) out.digests[std::size_t(z0 + g - v.z_lo)] = h[g];
}

}  // namespace

PlaneFields scan_fields(const StateView& v, const double* pop, bool digest, double* rho, double* psi,
                        const BlockVisit& visit) {
  const int planes_n = v.z_hi - v.z_lo;
  PlaneFields out;
  out.digests.assign(digest ? std::size_t(planes_n) : 0, 0);
  std::vector<long double> planes(std::size_t(planes_n), 0.0L);
  // Groups of four planes where there are enough for every thread.
  constexpr int G = 4;
  const int groups = planes_n / G >= omp_get_max_threads() ? planes_n / G : 0;
#pragma omp parallel
  {
#pragma omp for schedule(static) nowait
    for (int q = 0; q < groups; ++q)
      scan_planes<G>(v, pop, v.z_lo + q * G, digest, rho, psi, out, &planes[std::size_t(q * G)], visit);
#pragma omp for schedule(static)
    for (int z = v.z_lo + groups * G; z < v.z_hi; ++z)
      scan_planes<1>(v, pop, z, digest, rho, psi, out, &planes[std::size_t(z - v.z_lo)], visit);
  }
  for (long double m : planes) out.mass += m;
  return out;
}

void state_ranges(const StateView& v, const double* pop, const double* ps, Observables& o) {
  const Grid& g = v.grid;
  const long stride = g.stride;
  const std::uint8_t* sol = v.solid;
  const Coeffs c = v.coeffs;
  constexpr double inf = std::numeric_limits<double>::infinity();
  double rmin = inf, rmax = -rmin, umax = 0;
#pragma omp parallel for collapse(2) schedule(static) reduction(min : rmin) reduction(max : rmax, umax)
  for (int z = v.z_lo; z < v.z_hi; ++z)
    for (int y = 0; y < g.ny; ++y) {
      int off[Q];
      row_offsets(g, y, z, off);
      for (int x0 = 0; x0 < g.nx; x0 += block_cells) {
        const long k0 = x0 + long(g.nx) * (y + long(g.ny) * z);
        const int len = std::min(block_cells, g.nx - x0);
        BlockMoments m;
        block_moments(pop, stride, k0, len, m);
        // The cells on the x faces: their neighbours wrap, found one by one.
        for (int b = 0; b < len; ++b) {
          const int x = x0 + b;
          const long k = k0 + b;
          if ((x != 0 && x != g.nx - 1) || sol[k]) continue;
          int nb[Q];
          neighbour_indices(g, x, y, z, nb);
          double psin[Q];
          std::uint8_t sn[Q];
          for (int i = 0; i < Q; ++i) {
            psin[i] = ps[nb[i]];
            sn[i] = sol[nb[i]];
          }
          double Fx, Fy, Fz;
          total_force(c, m.r[b], ps[k], psin, sn, Fx, Fy, Fz);
          note_ranges(m.r[b], m.jx[b], m.jy[b], m.jz[b], Fx, Fy, Fz, rmin, rmax, umax);
        }
        // The others: each neighbour at a fixed offset (row_offsets), so that
        // consecutive cells' loads are consecutive addresses and the loop is
        // one vector loop; total_force's sums in its order, solid cells left
        // out by selection.
        const int b0 = x0 == 0 ? 1 : 0, b1 = std::min(len, g.nx - 1 - x0);
#pragma omp simd reduction(min : rmin) reduction(max : rmax, umax)
        for (int b = b0; b < b1; ++b) {
          const long k = k0 + b;
          ForceSums t;
#pragma GCC unroll 19
          for (int i = 1; i < Q; ++i) add_force(i, ps[k + off[i]], sol[k + off[i]] != 0, t);
          double Fx, Fy, Fz;
          force_of(c, m.r[b], ps[k], t, Fx, Fy, Fz);
          double lo = inf, hi = -inf, u = 0;
          note_ranges(m.r[b], m.jx[b], m.jy[b], m.jz[b], Fx, Fy, Fz, lo, hi, u);
          const bool fluid = sol[k] == 0;
          rmin = fluid && lo < rmin ? lo : rmin;
          rmax = fluid && rmax < hi ? hi : rmax;
          umax = fluid && umax < u ? u : umax;
        }
      }
    }
  o.rho_min = rmin;
  o.rho_max = rmax;
  o.max_U = umax;
}

void droplet_observables(const Grid& g, double G, const std::function<CellFields(int, int, int)>& at, Observables& o) {
  const auto wrap = [&](int x, int y, int z) {
    return at((x % g.nx + g.nx) % g.nx, (y % g.ny + g.ny) % g.ny, (z % g.nz + g.nz) % g.nz);
  };
  auto pressure = [&](const CellFields& f) { return f.rho / 3.0 + G * f.psi * f.psi / 6.0; };
  const int cx = g.nx / 2, cy = g.ny / 2, cz = g.nz / 2;
  double pin = 0, pout = 0;
  int count = 0;
  for (int dz = -2; dz <= 2; ++dz)
    for (int dy = -2; dy <= 2; ++dy)
      for (int dx = -2; dx <= 2; ++dx) {
        pin += pressure(wrap(cx + dx, cy + dy, cz + dz));
        pout += pressure(wrap(dx, dy, dz));
        ++count;
      }
  o.droplet = true;
  o.p_in = pin / count;
  o.p_out = pout / count;
  const double mid = 0.5 * (wrap(cx, cy, cz).rho + wrap(0, 0, 0).rho);
  const int dirs[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  double sum = 0;
  int rays = 0;
  for (const auto& d : dirs) {
    const int reach = (d[0] ? g.nx : d[1] ? g.ny : g.nz) / 2;
    double prev = wrap(cx, cy, cz).rho;
    for (int step = 1; step <= reach; ++step) {
      const double now = wrap(cx + step * d[0], cy + step * d[1], cz + step * d[2]).rho;
      if ((prev - mid) * (now - mid) <= 0 && prev != now) {
        sum += (step - 1) + (prev - mid) / (prev - now);
        ++rays;
        break;
      }
      prev = now;
    }
  }
  o.radius = rays > 0 ? sum / rays : 0;
}

std::string combine_digests(const std::vector<std::uint64_t>& planes) {
  std::uint64_t h = fnv_offset;
  for (std::uint64_t d : planes) h = fnv_word(h, d);
  return fmt::format("{:016x}", h);
}

nlohmann::json observables_json(const Observables& o, const std::string& digest) {
  nlohmann::json j = {{"mass", o.mass}, {"rho_min", o.rho_min}, {"rho_max", o.rho_max}, {"max_U", o.max_U},
                      {"state_digest", digest}};
  if (o.droplet) {
    j["p_in"] = o.p_in;
    j["p_out"] = o.p_out;
    j["radius"] = o.radius;
    j["dp_times_R"] = (o.p_in - o.p_out) * o.radius;
  }
  return j;
}

namespace {

// The observables of a state, with the state's digest where asked: the
// digest rides the pass that gathers the fields, as does `visit`.
Observables measure_state(const LbmInstance& s, const double* pop, std::string* digest, long double* mass,
                          const BlockVisit& visit) {
  const std::size_t n = std::size_t(s.grid.stride);
  if (s.observed_rho.size() != n) {
    s.observed_rho = AlignedArray<double>(n);
    s.observed_psi = AlignedArray<double>(n);
  }
  const StateView v = s.view();
  double *rho = s.observed_rho.data(), *psi = s.observed_psi.data();
  const PlaneFields fields = scan_fields(v, pop, digest != nullptr, rho, psi, visit);
  Observables o;
  state_ranges(v, pop, psi, o);
  o.mass = double(fields.mass);
  if (mass != nullptr) *mass = fields.mass;
  if (s.p.kind == Case::droplet)
    droplet_observables(s.grid, s.coeffs.G, [&](int x, int y, int z) {
      const long k = x + long(s.grid.nx) * (y + long(s.grid.ny) * z);
      return CellFields{rho[k], psi[k]};
    }, o);
  if (digest != nullptr) *digest = combine_digests(fields.digests);
  return o;
}

}  // namespace

Observables LbmInstance::measure(const double* pop) const { return measure_state(*this, pop, nullptr, nullptr, {}); }

nlohmann::json LbmInstance::observe(const double* pop, long double& mass, const BlockVisit& visit) const {
  std::string digest;
  const Observables o = measure_state(*this, pop, &digest, &mass, visit);
  return observables_json(o, digest);
}

// The validated state's, from validate()'s pass; else a pass of their own.
nlohmann::json LbmInstance::observables(const std::string&) const {
  if (!validated_.is_null()) return validated_;
  long double mass = 0;
  return observe(current(), mass, {});
}

}  // namespace ompref::lbm
