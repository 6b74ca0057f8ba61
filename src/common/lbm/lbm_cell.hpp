#pragma once
// The arithmetic of one lattice cell, shared by every lbm variant (host and
// target) and by the host reference, written once: D3Q19 in openLBMflow's
// order, moments, Shan-Chen + adsorption + gravity force, BGK collision with
// the velocity shift, streaming and bounce-back. Inline functions in a
// declare-target block, not macros: the device pass compiles them for the
// GPU, the host pass for the CPU, from one text.
//
// Loops over the 19 directions test the direction tables against constants
// (`if (ex[i] > 0) ... else if (ex[i] < 0) ...`): once the compiler unrolls
// them, the tests vanish and only the additions that are not zero remain, in
// the same order on every side. `#pragma GCC unroll 19` asks for the full
// unrolling in a spelling both gcc and clang read (no loop here is longer).
#include <cmath>
#include <cstdint>

#include "common/host_device.hpp"

namespace ompref::lbm {

// The cell functions are always inlined: a call left in a cell loop keeps the
// host's `omp simd` from vectorising it.
#pragma omp declare target

// The direction tables are read through functions, ex(i) ... wt(i): nvcc (the
// CUDA twin, src/native_cuda/lbm.cu) does not let device code index a
// namespace-scope constexpr array, only call a constexpr function. Once a
// loop over i is unrolled, every call is a constant, as the array reads were.
constexpr int Q = 19;
OMPREF_HOST_DEVICE constexpr int ex(int i) {
  constexpr int t[Q] = {0, 1, 1, 0, -1, -1, -1, 0, 1, 0, 0, 0, 0, 0, 0, 1, -1, -1, 1};
  return t[i];
}
OMPREF_HOST_DEVICE constexpr int ey(int i) {
  constexpr int t[Q] = {0, 0, 1, 1, 1, 0, -1, -1, -1, 1, 0, -1, -1, 0, 1, 0, 0, 0, 0};
  return t[i];
}
OMPREF_HOST_DEVICE constexpr int ez(int i) {
  constexpr int t[Q] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, -1, -1, -1, 1, 1, -1, -1};
  return t[i];
}
OMPREF_HOST_DEVICE constexpr int opp(int i) {
  constexpr int t[Q] = {0, 5, 6, 7, 8, 1, 2, 3, 4, 12, 13, 14, 9, 10, 11, 17, 18, 15, 16};
  return t[i];
}
constexpr double w0 = 1.0 / 3.0, w1 = 1.0 / 18.0, w2 = 1.0 / 36.0;
OMPREF_HOST_DEVICE constexpr double wt(int i) {
  constexpr double t[Q] = {w0, w1, w2, w1, w2, w1, w2, w1, w2, w2, w1, w2, w2, w1, w2, w2, w2, w2, w2};
  return t[i];
}

// Everything a cell update needs besides its neighbourhood (passed by value to kernels).
struct Coeffs {
  double G = -6.0;        // cohesion (Shan-Chen) strength
  double G_ads = 0.0;     // adsorption strength against solid neighbours
  double gx = 0, gy = 0, gz = 0;  // body acceleration
  double tau = 1.0;
  double omega = 1.0;     // 1 / tau
  double rho_solid = 1.0; // fixed density of solid cells: sets wetting through psi
};

// The lattice geometry: nx*ny*nz cells, x fastest; a direction's array is `stride` long.
struct Grid {
  int nx = 0, ny = 0, nz = 0;
  long n = 0;        // cells
  long stride = 0;   // n rounded up to 8 doubles (64 bytes): each direction's array starts aligned
};

// Direction i's share of the moments: f_i added to rho and, signed by e_i,
// to the momentum j.
[[gnu::always_inline]] OMPREF_HOST_DEVICE
inline void add_moment(int i, double fi, double& r, double& jx, double& jy, double& jz) {
  r += fi;
  if (ex(i) > 0) jx += fi; else if (ex(i) < 0) jx -= fi;
  if (ey(i) > 0) jy += fi; else if (ey(i) < 0) jy -= fi;
  if (ez(i) > 0) jz += fi; else if (ez(i) < 0) jz -= fi;
}

// Density and velocity moments of one cell (u = j / rho).
[[gnu::always_inline]] OMPREF_HOST_DEVICE
inline void moments(const double (&f)[Q], double& rho, double& ux, double& uy, double& uz) {
  double r = 0, jx = 0, jy = 0, jz = 0;
  #pragma GCC unroll 19
  for (int i = 0; i < Q; ++i) add_moment(i, f[i], r, jx, jy, jz);
  rho = r;
  const double inv = 1.0 / r;
  ux = jx * inv;
  uy = jy * inv;
  uz = jz * inv;
}

// The Shan-Chen pseudopotential psi = 1 - exp(-rho).
OMPREF_HOST_DEVICE inline double pseudo_potential(double rho) { return 1.0 - std::exp(-rho); }

// The force's sums over the neighbours: sum w psi_n e (s) and sum w s_n e (a).
struct ForceSums {
  double sx = 0, sy = 0, sz = 0, ax = 0, ay = 0, az = 0;
};

// Neighbour x + e_i's share of the force's sums (i > 0).
[[gnu::always_inline]] OMPREF_HOST_DEVICE inline void add_force(int i, double psi_n, bool solid_n, ForceSums& t) {
  const double p = wt(i) * psi_n;
  const double s = solid_n ? wt(i) : 0.0;
  if (ex(i) > 0) { t.sx += p; t.ax += s; } else if (ex(i) < 0) { t.sx -= p; t.ax -= s; }
  if (ey(i) > 0) { t.sy += p; t.ay += s; } else if (ey(i) < 0) { t.sy -= p; t.ay -= s; }
  if (ez(i) > 0) { t.sz += p; t.az += s; } else if (ez(i) < 0) { t.sz -= p; t.az -= s; }
}

// Total force on a fluid cell: cohesion -G psi sum w psi_n e, adsorption
// -G_ads psi sum w s_n e (s = 1 on solid neighbours), gravity rho g.
[[gnu::always_inline]] OMPREF_HOST_DEVICE
inline void force_of(const Coeffs& c, double rho, double psi, const ForceSums& t, double& Fx, double& Fy,
                     double& Fz) {
  const double cg = -c.G * psi, ca = -c.G_ads * psi;
  Fx = cg * t.sx + ca * t.ax + rho * c.gx;
  Fy = cg * t.sy + ca * t.ay + rho * c.gy;
  Fz = cg * t.sz + ca * t.az + rho * c.gz;
}

// The force from the neighbours' psi and flags: psin[i] and solid_n[i]
// belong to the neighbour at x + e_i (index 0 unused).
[[gnu::always_inline]] OMPREF_HOST_DEVICE
inline void total_force(const Coeffs& c, double rho, double psi, const double (&psin)[Q],
                        const std::uint8_t (&solid_n)[Q], double& Fx, double& Fy, double& Fz) {
  ForceSums t;
  #pragma GCC unroll 19
  for (int i = 1; i < Q; ++i) add_force(i, psin[i], solid_n[i] != 0, t);
  force_of(c, rho, psi, t, Fx, Fy, Fz);
}

// The BGK collision's equilibrium velocity u_eq = u + tau F / rho (Shan-Chen's
// velocity shift) and 1.5 |u_eq|^2.
struct Shifted {
  double vx, vy, vz, usq;
};
[[gnu::always_inline]] OMPREF_HOST_DEVICE
inline Shifted shifted_velocity(const Coeffs& c, double rho, double ux, double uy, double uz, double Fx, double Fy,
                                double Fz) {
  const double s = c.tau / rho;
  const double vx = ux + s * Fx, vy = uy + s * Fy, vz = uz + s * Fz;
  return {vx, vy, vz, 1.5 * (vx * vx + vy * vy + vz * vz)};
}

// Direction i's population after the collision towards f_eq(rho, u_eq).
[[gnu::always_inline]] OMPREF_HOST_DEVICE
inline double relaxed(const Coeffs& c, int i, double fi, double rho, const Shifted& v) {
  double eu = 0;
  if (ex(i) > 0) eu += v.vx; else if (ex(i) < 0) eu -= v.vx;
  if (ey(i) > 0) eu += v.vy; else if (ey(i) < 0) eu -= v.vy;
  if (ez(i) > 0) eu += v.vz; else if (ez(i) < 0) eu -= v.vz;
  const double feq = wt(i) * rho * (1.0 + 3.0 * eu + 4.5 * eu * eu - v.usq);
  return fi - c.omega * (fi - feq);
}

// BGK collision towards f_eq(rho, u_eq), in place.
[[gnu::always_inline]] OMPREF_HOST_DEVICE inline void collide(const Coeffs& c, double (&f)[Q], double rho, double ux,
                                                              double uy, double uz, double Fx, double Fy, double Fz) {
  const Shifted v = shifted_velocity(c, rho, ux, uy, uz, Fx, Fy, Fz);
  #pragma GCC unroll 19
  for (int i = 0; i < Q; ++i) f[i] = relaxed(c, i, f[i], rho, v);
}

// Indices of the 19 neighbours x + e_i of cell (x, y, z), every face periodic
// (walls are solid cells inside the lattice, so a wrap across a wall face
// only ever reaches a solid cell).
// Cell indices are ints: make_instance refuses lattices of 2^30 cells or more.
// Its three wraps per axis, from which neighbour i's index is a sum.
struct Neighbours {
  int X[3], Y[3], Z[3];
  [[gnu::always_inline]] OMPREF_HOST_DEVICE int operator()(int i) const {
    return X[ex(i) + 1] + Y[ey(i) + 1] + Z[ez(i) + 1];
  }
};
[[gnu::always_inline]] OMPREF_HOST_DEVICE inline Neighbours neighbours_of(const Grid& g, int x, int y, int z) {
  const int plane = g.nx * g.ny;
  return {{x == 0 ? g.nx - 1 : x - 1, x, x == g.nx - 1 ? 0 : x + 1},
          {(y == 0 ? g.ny - 1 : y - 1) * g.nx, y * g.nx, (y == g.ny - 1 ? 0 : y + 1) * g.nx},
          {(z == 0 ? g.nz - 1 : z - 1) * plane, z * plane, (z == g.nz - 1 ? 0 : z + 1) * plane}};
}
OMPREF_HOST_DEVICE inline void neighbour_indices(const Grid& g, int x, int y, int z, int (&nb)[Q]) {
  const Neighbours n = neighbours_of(g, x, y, z);
  #pragma GCC unroll 19
  for (int i = 0; i < Q; ++i) nb[i] = n(i);
}

// Offsets of the 19 neighbours of a cell of row (y, z) that is not on an x
// face (0 < x < nx - 1): the row fixes the y and z wraps, so x + e_i is cell
// k + off[i] all along the row's interior. Written this way, the neighbours of
// consecutive cells are consecutive addresses: the host's `omp simd` loads
// and stores them as vectors instead of gathering them one by one.
OMPREF_HOST_DEVICE inline void row_offsets(const Grid& g, int y, int z, int (&off)[Q]) {
  const int Y[3] = {(y == 0 ? g.ny - 1 : y - 1) - y, 0, (y == g.ny - 1 ? 0 : y + 1) - y};
  const int Z[3] = {(z == 0 ? g.nz - 1 : z - 1) - z, 0, (z == g.nz - 1 ? 0 : z + 1) - z};
  #pragma GCC unroll 19
  for (int i = 0; i < Q; ++i) off[i] = ex(i) + g.nx * (Y[ey(i) + 1] + g.ny * Z[ez(i) + 1]);
}

// Loads the 19 populations of cell k.
[[gnu::always_inline]] OMPREF_HOST_DEVICE inline void load_cell(const double* f, long stride, long k, double (&fl)[Q]) {
  #pragma GCC unroll 19
  for (int i = 0; i < Q; ++i) fl[i] = f[i * stride + k];
}

// calculate_phi's moments for one cell: rho and u from the populations
// (fluid) or the fixed solid density (solid). Branch-free (a solid cell's
// populations are loaded and dropped), so that a vectorised loop needs no
// masked loads. Returns the density it stored.
[[gnu::always_inline]] OMPREF_HOST_DEVICE inline double moments_cell(const Coeffs& c, const double* f, long stride,
                                                                     const std::uint8_t* solid, long k, double* rho,
                                                                     double* ux, double* uy, double* uz) {
  double fl[Q], r, vx, vy, vz;
  load_cell(f, stride, k, fl);
  moments(fl, r, vx, vy, vz);
  const bool s = solid[k] != 0;
  r = s ? c.rho_solid : r;
  rho[k] = r;
  ux[k] = s ? 0.0 : vx;
  uy[k] = s ? 0.0 : vy;
  uz[k] = s ? 0.0 : vz;
  return r;
}

// calculate_phi for one cell: the moments, and psi for every cell.
[[gnu::always_inline]] OMPREF_HOST_DEVICE inline void phi_cell(const Coeffs& c, const double* f, long stride,
                                                               const std::uint8_t* solid, long k, double* rho,
                                                               double* ux, double* uy, double* uz, double* psi) {
  psi[k] = pseudo_potential(moments_cell(c, f, stride, solid, k, rho, ux, uy, uz));
}

// psi alone (the fused form's first pass): the same sum, in the same order, as moments().
OMPREF_HOST_DEVICE
inline double psi_cell(const Coeffs& c, const double* f, long stride, const std::uint8_t* solid, long k) {
  if (solid[k]) return pseudo_potential(c.rho_solid);
  double r = 0;
  #pragma GCC unroll 19
  for (int i = 0; i < Q; ++i) r += f[i * stride + k];
  return pseudo_potential(r);
}

// The force on cell k of density rho: total_force over its neighbours nb[i]'s
// psi and solid flags, gathered first.
[[gnu::always_inline]] OMPREF_HOST_DEVICE inline void neighbour_force(const Coeffs& c, const std::uint8_t* solid,
                                                                      const double* psi, long k, const int (&nb)[Q],
                                                                      double rho, double& Fx, double& Fy, double& Fz) {
  double psin[Q];
  std::uint8_t sn[Q];
  #pragma GCC unroll 19
  for (int i = 0; i < Q; ++i) {
    psin[i] = psi[nb[i]];
    sn[i] = solid[nb[i]];
  }
  total_force(c, rho, psi[k], psin, sn, Fx, Fy, Fz);
}

// calculate_fn for one fluid cell with its populations in `fl` and (rho, u)
// given: force from the neighbours' psi and solid flags, then the collision;
// `fl` holds the post-collision populations (where they go is the caller's).
[[gnu::always_inline]] OMPREF_HOST_DEVICE inline void fn_cell(const Coeffs& c, const std::uint8_t* solid,
                                                              const double* psi, long k, const int (&nb)[Q], double rho,
                                                              double ux, double uy, double uz, double (&fl)[Q]) {
  double Fx, Fy, Fz;
  neighbour_force(c, solid, psi, k, nb, rho, Fx, Fy, Fz);
  collide(c, fl, rho, ux, uy, uz, Fx, Fy, Fz);
}

// calculate_fn for fluid cell k whose neighbours x + e_i are the cells nb[i],
// with rho and u from calculate_phi: load, force and collision, then push
// (stream to x + e_i) into the next lattice `out`. Every three-pass variant's
// kernel calls it.
[[gnu::always_inline]] OMPREF_HOST_DEVICE
inline void fn_push(const Coeffs& c, const double* f, double* out, long stride, const std::uint8_t* solid,
                    const double* psi, long k, const int (&nb)[Q], double rho, double ux, double uy, double uz) {
  double fl[Q];
  load_cell(f, stride, k, fl);
  fn_cell(c, solid, psi, k, nb, rho, ux, uy, uz, fl);
  #pragma GCC unroll 19
  for (int i = 0; i < Q; ++i) out[i * stride + nb[i]] = fl[i];
}

// update_boundary for solid cell k at (x, y, z): half-way bounce-back. What
// calculate_fn pushed into it from the fluid cell s - e_i goes back to that
// cell as the opposite direction.
OMPREF_HOST_DEVICE
inline void bounce_back(const Grid& g, const std::uint8_t* solid, double* out, int x, int y, int z, long k) {
  int nb[Q];
  neighbour_indices(g, x, y, z, nb);
  for (int i = 1; i < Q; ++i) {
    const int from = nb[opp(i)];  // s - e_i
    if (!solid[from]) out[opp(i) * g.stride + from] = out[i * g.stride + k];
  }
}

// Force and collision of fluid cell k with rho and u recomputed from its
// loaded populations (the fused forms): `fl` holds the post-collision
// populations, for fn_push_bounce or fn_push_bounce_each to push.
[[gnu::always_inline]] OMPREF_HOST_DEVICE
inline void collide_recomputed(const Coeffs& c, const double* f, long stride, const std::uint8_t* solid,
                               const double* psi, long k, const int (&nb)[Q], double (&fl)[Q]) {
  load_cell(f, stride, k, fl);
  double r, vx, vy, vz;
  moments(fl, r, vx, vy, vz);
  fn_cell(c, solid, psi, k, nb, r, vx, vy, vz, fl);
}

// calculate_fn and update_boundary in one, for fluid cell k (target_fused
// and the host reference): rho and u recomputed from the loaded populations,
// force and collision, then a push in which a population headed for a solid
// cell lands, reversed, back in cell k: where bounce_back would put it.
[[gnu::always_inline]] OMPREF_HOST_DEVICE inline void fn_push_bounce(const Coeffs& c, const double* f, double* out,
                                                                     long stride, const std::uint8_t* solid,
                                                                     const double* psi, long k, const int (&nb)[Q]) {
  double fl[Q];
  collide_recomputed(c, f, stride, solid, psi, k, nb, fl);
  long dst[Q];
  for (int i = 0; i < Q; ++i) dst[i] = solid[nb[i]] ? opp(i) * stride + k : i * stride + nb[i];
  for (int i = 0; i < Q; ++i) out[dst[i]] = fl[i];
}

// The same push (target_lean), each population stored as soon as its
// destination is known, the destination a direction array and a 32-bit cell
// index into it: no 19 64-bit destinations live at once.
[[gnu::always_inline]] OMPREF_HOST_DEVICE
inline void fn_push_bounce_each(const Coeffs& c, const double* f, double* out, long stride,
                                const std::uint8_t* solid, const double* psi, int k, const int (&nb)[Q]) {
  double fl[Q];
  collide_recomputed(c, f, stride, solid, psi, k, nb, fl);
  #pragma GCC unroll 19
  for (int i = 0; i < Q; ++i) {
    const bool wall = solid[nb[i]] != 0;
    (out + (wall ? opp(i) : i) * stride)[wall ? k : nb[i]] = fl[i];
  }
}

// fn_push_bounce with the fewest values live at once (target_streamed and
// its CUDA twin): the populations are read twice, for the moments and again
// for the collision, and each neighbour's index, psi and flag when its
// direction comes, so that only sums stay live from one direction to the
// next instead of 19 populations, 19 psi and 19 destinations. The same
// operations in the same order as fn_push_bounce: the same values.
[[gnu::always_inline]] OMPREF_HOST_DEVICE
inline void fn_push_bounce_streamed(const Coeffs& c, const Grid& g, const double* f, double* out,
                                    const std::uint8_t* solid, const double* psi, int x, int y, int z, int k) {
  const long stride = g.stride;
  double r = 0, jx = 0, jy = 0, jz = 0;
  #pragma GCC unroll 19
  for (int i = 0; i < Q; ++i) add_moment(i, f[i * stride + k], r, jx, jy, jz);
  const double inv = 1.0 / r;
  const Neighbours nb = neighbours_of(g, x, y, z);
  ForceSums t;
  #pragma GCC unroll 19
  for (int i = 1; i < Q; ++i) add_force(i, psi[nb(i)], solid[nb(i)] != 0, t);
  double Fx, Fy, Fz;
  force_of(c, r, psi[k], t, Fx, Fy, Fz);
  const Shifted v = shifted_velocity(c, r, jx * inv, jy * inv, jz * inv, Fx, Fy, Fz);
  #pragma GCC unroll 19
  for (int i = 0; i < Q; ++i) {
    const double post = relaxed(c, i, f[i * stride + k], r, v);
    const int n = nb(i);
    const bool wall = solid[n] != 0;
    (out + (wall ? opp(i) : i) * stride)[wall ? k : n] = post;
  }
}

// ---- In place: the AA pattern (target_inplace and its CUDA twin) ----------
// One lattice, updated in place, in two forms that alternate step by step.
// After an even number of steps population i of cell x lives where the
// two-lattice forms keep it, slot (i, x); after an odd number it lives in
// slot (opp(i), x - e_i): where the cell it came from keeps its own
// population opp(i). An even step reads a cell's 19 populations from its own
// slots and writes the post-collision ones back into them, direction i into
// slot opp(i); an odd step reads them from the slots (opp(i), x - e_i) and
// writes direction i into (i, x + e_i), the same 19 slots. Either way a
// cell's thread writes only the slots it read, which no other cell's thread
// reads or writes, so one lattice suffices, without a race. A population
// headed for a wall cell x + e_i is stored where the next step reads
// population opp(i) of cell x: slot (i, x + e_i) after an even step (a wall
// cell's slot, which only that population uses), (opp(i), x) after an odd one.

// The offset of population i of the cell k whose neighbours x + e_i are
// nb[i], after an even (Odd false) or odd number of steps.
template <bool Odd>
[[gnu::always_inline]] OMPREF_HOST_DEVICE inline long aa_slot(int i, long stride, int k, const int (&nb)[Q]) {
  return Odd ? opp(i) * stride + nb[opp(i)] : i * stride + k;
}

// psi of cell k in either form: psi_cell's sum, the populations in the same order.
template <bool Odd>
[[gnu::always_inline]] OMPREF_HOST_DEVICE inline double psi_cell_in_place(const Coeffs& c, const double* f,
                                                                          long stride, const std::uint8_t* solid,
                                                                          int k, const int (&nb)[Q]) {
  if (solid[k]) return pseudo_potential(c.rho_solid);
  double r = 0;
  #pragma GCC unroll 19
  for (int i = 0; i < Q; ++i) r += f[aa_slot<Odd>(i, stride, k, nb)];
  return pseudo_potential(r);
}

// fn_push_bounce in place for fluid cell k: the same loads, moments, force
// and collision (the same values), then each population stored in the slot
// the next step reads it from. Every load comes before the first store (a
// store may overwrite a slot not yet read); the walls' flags are read with
// the loads, since a store through `f` may alias a byte of `solid`.
template <bool Odd>
[[gnu::always_inline]] OMPREF_HOST_DEVICE inline void fn_push_bounce_in_place(const Coeffs& c, double* f,
                                                                              long stride, const std::uint8_t* solid,
                                                                              const double* psi, int k,
                                                                              const int (&nb)[Q]) {
  double fl[Q];
  unsigned walls = 0;
  #pragma GCC unroll 19
  for (int i = 0; i < Q; ++i) {
    fl[i] = f[aa_slot<Odd>(i, stride, k, nb)];
    walls |= unsigned(solid[nb[i]] != 0) << i;
  }
  double r, vx, vy, vz;
  moments(fl, r, vx, vy, vz);
  fn_cell(c, solid, psi, k, nb, r, vx, vy, vz, fl);
  #pragma GCC unroll 19
  for (int i = 0; i < Q; ++i) {
    // Slot (i, x + e_i): after an even step a population bounced off a
    // wall, after an odd step one streamed into a fluid cell.
    const bool far = ((walls >> i) & 1u) != unsigned(Odd);
    (f + (far ? i : opp(i)) * stride)[far ? nb[i] : k] = fl[i];
  }
}

// fn_push_bounce_in_place with the fewest values live at once (target_inplace
// and its CUDA twin), as fn_push_bounce_streamed is to fn_push_bounce: the
// populations are read twice, for the moments and again for the collision,
// each neighbour's index, psi and flag read when its direction comes, so that
// only sums, the walls' flags and the cell's three wraps per axis stay live
// instead of 19 populations and 19 neighbour indices. Each store overwrites
// the slot its direction's opposite was read from (or a wall's slot no cell
// reads), so the second reads go by opposite pairs: both of a pair read,
// collided and stored before the next pair's reads. The same operations in
// the same order as fn_push_bounce_in_place: the same values.
template <bool Odd>
[[gnu::always_inline]] OMPREF_HOST_DEVICE inline void fn_push_bounce_in_place_paired(
    const Coeffs& c, const Grid& g, double* f, const std::uint8_t* solid, const double* psi, int x, int y, int z,
    int k) {
  const long stride = g.stride;
  const Neighbours nb = neighbours_of(g, x, y, z);
  double r = 0, jx = 0, jy = 0, jz = 0;
  #pragma GCC unroll 19
  for (int i = 0; i < Q; ++i)
    add_moment(i, f[Odd ? opp(i) * stride + nb(opp(i)) : i * stride + k], r, jx, jy, jz);
  const double inv = 1.0 / r;
  ForceSums t;
  unsigned walls = 0;
  #pragma GCC unroll 19
  for (int i = 1; i < Q; ++i) {
    const int n = nb(i);
    const bool wall = solid[n] != 0;
    walls |= unsigned(wall) << i;
    add_force(i, psi[n], wall, t);
  }
  double Fx, Fy, Fz;
  force_of(c, r, psi[k], t, Fx, Fy, Fz);
  const Shifted v = shifted_velocity(c, r, jx * inv, jy * inv, jz * inv, Fx, Fy, Fz);
  #pragma GCC unroll 19
  for (int i = 0; i < Q; ++i) {
    if (i > opp(i)) continue;
    const int o = opp(i);
    const double a = relaxed(c, i, f[Odd ? o * stride + nb(o) : i * stride + k], r, v);
    const double b = relaxed(c, o, f[Odd ? i * stride + nb(i) : o * stride + k], r, v);
    const bool far_a = ((walls >> i) & 1u) != unsigned(Odd), far_b = ((walls >> o) & 1u) != unsigned(Odd);
    (f + (far_a ? i : o) * stride)[far_a ? nb(i) : k] = a;
    if (o != i) (f + (far_b ? o : i) * stride)[far_b ? nb(o) : k] = b;
  }
}

// After an odd number of steps, the standard layout again: population i of
// cell x, in slot (opp(i), x - e_i), and population opp(i) of cell x - e_i,
// in slot (i, x), exchange slots. Each such pair is exchanged once, by the
// cell x of its direction i < opp(i); every cell's thread, solid or not,
// exchanges its nine pairs.
[[gnu::always_inline]] OMPREF_HOST_DEVICE inline void aa_to_standard(double* f, long stride, int k,
                                                                     const int (&nb)[Q]) {
  #pragma GCC unroll 19
  for (int i = 1; i < Q; ++i) {
    if (i > opp(i)) continue;
    double* a = f + i * stride + k;
    double* b = f + opp(i) * stride + nb[opp(i)];
    const double t = *a;
    *a = *b;
    *b = t;
  }
}

#pragma omp end declare target

}  // namespace ompref::lbm
