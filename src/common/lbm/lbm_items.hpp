#pragma once
// One cell of each lbm pass's loop (calculate_phi, calculate_fn,
// update_boundary, and the two-pass forms' psi and fused passes), written
// once and called by every loop that keeps the cell as it is: the host
// variants (src/omp_host/lbm.cpp, lbm_tiled.cpp), their target port
// (src/omp_target/lbm.cpp), the steps that change the launch around the cell
// (lbm_shaped.cpp, lbm_many.cpp, lbm_fused.cpp, lbm_lean.cpp,
// lbm_streamed.cpp) and the slabs over MPI ranks (src/mpi/lbm_slabs.cpp,
// lbm_slab_instance.cpp). What a variant teaches is around the item: its
// directives, its loop shape, the width of its cell index, its data mapping.
// The arithmetic is lbm_cell.hpp's, called in the same order as before the
// items were shared. Declare target: compiled for the device too.
#include <cstdint>

#include "common/lbm/lbm_cell.hpp"

namespace ompref::lbm {

#pragma omp declare target

// Cell (x, y, z)'s index, x fastest, in the loop's index width I: long for
// the three-pass forms, target_fused and the slabs; int for target_lean and
// the steps that follow it (make_instance refuses lattices of 2^30 cells or
// more).
template <class I>
[[gnu::always_inline]] inline I cell_at(const Grid& g, int x, int y, int z) {
  return x + I(g.nx) * (y + I(g.ny) * z);
}

// calculate_phi of cell (x, y, z): rho, u and psi (solid cells: the walls'
// fixed density).
[[gnu::always_inline]] inline void phi_item(const Coeffs& c, const Grid& g, const double* f,
                                            const std::uint8_t* solid, double* rho, double* ux, double* uy,
                                            double* uz, double* psi, int x, int y, int z) {
  phi_cell(c, f, g.stride, solid, cell_at<long>(g, x, y, z), rho, ux, uy, uz, psi);
}

// calculate_fn of cell (x, y, z) if it is fluid: force, collision and push
// into the next lattice `out`, with rho and u from calculate_phi.
[[gnu::always_inline]] inline void fn_item(const Coeffs& c, const Grid& g, const double* f, double* out,
                                           const std::uint8_t* solid, const double* rho, const double* ux,
                                           const double* uy, const double* uz, const double* psi, int x, int y,
                                           int z) {
  const long k = cell_at<long>(g, x, y, z);
  if (solid[k]) return;
  int nb[Q];
  neighbour_indices(g, x, y, z, nb);
  fn_push(c, f, out, g.stride, solid, psi, k, nb, rho[k], ux[k], uy[k], uz[k]);
}

// update_boundary of cell (x, y, z) if it is solid: half-way bounce-back.
[[gnu::always_inline]] inline void boundary_item(const Grid& g, const std::uint8_t* solid, double* out, int x, int y,
                                                 int z) {
  const long k = cell_at<long>(g, x, y, z);
  if (solid[k]) bounce_back(g, solid, out, x, y, z, k);
}

// The two-pass forms' first pass for cell (x, y, z): psi alone (solid
// cells: the walls' fixed density), the cell's index I wide.
template <class I>
[[gnu::always_inline]] inline void psi_item(const Coeffs& c, const Grid& g, const double* f,
                                            const std::uint8_t* solid, double* psi, int x, int y, int z) {
  const I k = cell_at<I>(g, x, y, z);
  psi[k] = psi_cell(c, f, g.stride, solid, k);
}

// target_fused's second pass for cell (x, y, z) if it is fluid: rho and u
// recomputed, force, collision, push and bounce-back (fn_push_bounce) into
// the next lattice `out`.
[[gnu::always_inline]] inline void fused_item(const Coeffs& c, const Grid& g, const double* f, double* out,
                                              const std::uint8_t* solid, const double* psi, int x, int y, int z) {
  const long k = cell_at<long>(g, x, y, z);
  if (solid[k]) return;
  int nb[Q];
  neighbour_indices(g, x, y, z, nb);
  fn_push_bounce(c, f, out, g.stride, solid, psi, k, nb);
}

#pragma omp end declare target

}  // namespace ompref::lbm
