// lbm as plain CUDA: the native twin of target_fused (src/omp_target/lbm_fused.cpp,
// docs/native.md), on the same lattices, entered by the runner from the same
// DeviceData declaration (device_data, src/omp_target/lbm.cpp), validated
// against the same host reference, held against target_fused by
// native_fraction (both carry the kernel tag "fused").
//
// The same two passes per time step, each a kernel of one thread per cell,
// calling the same cell arithmetic (src/common/lbm/lbm_cell.hpp): psi alone
// (psi_cell), then force, collision, push and bounce-back (fn_push_bounce)
// for every fluid cell. A block is target_fused's tile (--fused-shape, default
// 128x1x1: x fastest, so a warp reads and writes 32 consecutive doubles of
// each direction array), the grid the tiles along x, y and z, so a thread
// finds its cell from the block and thread indices alone (no division of a
// flattened index, as the OpenMP loop over (tile, cell) needs). The collision
// kernel is register-bound (172 registers unconstrained: 8 warps per
// multiprocessor with 128-thread blocks); __launch_bounds__ holds it to 128,
// 16 warps per multiprocessor whatever the block, a few values spilled to L1.
// native_streamed is the twin of target_streamed (kernel tag "streamed"): the
// same psi pass, then fn_push_bounce_streamed, whose thread keeps only sums.
// native_inplace is the twin of target_inplace (kernel tag "inplace"): one
// lattice updated in place in the AA pattern, the two passes of each parity
// calling psi_cell_in_place and fn_push_bounce_in_place, to_standard after an
// odd number of steps; its collision kernel bound to 128 registers like
// native_fused's, whose loads and collision it shares.
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "common/lbm/lbm.hpp"
#include "common/lbm/lbm_data.hpp"
#include "common/registry.hpp"
#include "native_cuda/cuda_support.hpp"

namespace ompref::lbm {

namespace {

using native::check_launch;

constexpr int max_grid_yz = 65535;  // CUDA's limit on gridDim.y and gridDim.z

// The cell of this thread; false outside the lattice (tiles that stick out).
__device__ bool this_cell(const Grid& g, int& x, int& y, int& z, long& k) {
  x = blockIdx.x * blockDim.x + threadIdx.x;
  y = blockIdx.y * blockDim.y + threadIdx.y;
  z = blockIdx.z * blockDim.z + threadIdx.z;
  k = x + long(g.nx) * (y + long(g.ny) * z);
  return x < g.nx && y < g.ny && z < g.nz;
}

// psi of every cell (solid cells: the walls' fixed density).
template <int MaxThreads, int MinBlocks>
__global__ void __launch_bounds__(MaxThreads, MinBlocks)
    psi_pass(Coeffs c, Grid g, const double* __restrict__ f, const std::uint8_t* __restrict__ solid,
             double* __restrict__ psi) {
  int x, y, z;
  long k;
  if (this_cell(g, x, y, z, k)) psi[k] = psi_cell(c, f, g.stride, solid, k);
}

// Force, collision, push and bounce-back of every fluid cell into the next lattice.
template <int MaxThreads, int MinBlocks>
__global__ void __launch_bounds__(MaxThreads, MinBlocks)
    fn_pass(Coeffs c, Grid g, const double* __restrict__ f, double* __restrict__ out,
            const std::uint8_t* __restrict__ solid, const double* __restrict__ psi) {
  int x, y, z;
  long k;
  if (!this_cell(g, x, y, z, k) || solid[k]) return;
  int nb[Q];
  neighbour_indices(g, x, y, z, nb);
  fn_push_bounce(c, f, out, g.stride, solid, psi, k, nb);
}

// The collision pass of target_streamed's twin: fn_push_bounce_streamed, f
// and out without __restrict__ (the populations are read again for the
// collision, not kept in registers), no register bound: the thread holds sums only.
__global__ void fn_streamed_pass(Coeffs c, Grid g, const double* f, double* out, const std::uint8_t* __restrict__ solid,
                     const double* __restrict__ psi) {
  int x, y, z;
  long k;
  if (!this_cell(g, x, y, z, k) || solid[k]) return;
  fn_push_bounce_streamed(c, g, f, out, solid, psi, x, y, z, int(k));
}

// target_inplace's passes (lbm_cell.hpp's AA pattern): psi, then force,
// collision, push and bounce-back of every fluid cell into the slots it read,
// the lattice in its form after an even (Odd false) or odd number of steps.
template <bool Odd>
__global__ void __launch_bounds__(1024, 1) psi_in_place_pass(Coeffs c, Grid g, const double* __restrict__ f,
                                  const std::uint8_t* __restrict__ solid, double* __restrict__ psi) {
  int x, y, z;
  long k;
  if (!this_cell(g, x, y, z, k)) return;
  int nb[Q];
  neighbour_indices(g, x, y, z, nb);
  psi[k] = psi_cell_in_place<Odd>(c, f, g.stride, solid, int(k), nb);
}

template <bool Odd, int MaxThreads, int MinBlocks>
__global__ void __launch_bounds__(MaxThreads, MinBlocks)
    fn_in_place_pass(Coeffs c, Grid g, double* f, const std::uint8_t* __restrict__ solid,
                     const double* __restrict__ psi) {
  int x, y, z;
  long k;
  if (!this_cell(g, x, y, z, k) || solid[k]) return;
  int nb[Q];
  neighbour_indices(g, x, y, z, nb);
  fn_push_bounce_in_place<Odd>(c, f, g.stride, solid, psi, int(k), nb);
}

// After an odd number of steps: the standard layout again.
__global__ void __launch_bounds__(1024, 1) to_standard_pass(Grid g, double* f) {
  int x, y, z;
  long k;
  if (!this_cell(g, x, y, z, k)) return;
  int nb[Q];
  neighbour_indices(g, x, y, z, nb);
  aa_to_standard(f, g.stride, int(k), nb);
}

// One step's two kernels for blocks of up to MaxThreads threads, MinBlocks of
// them per multiprocessor: 128 registers a thread, 16 warps per multiprocessor.
template <int MaxThreads, int MinBlocks>
void step(LbmInstance& s, RunContext& ctx, dim3 grid, dim3 block, const std::uint8_t* solid, double* psi) {
  const double* f = native::present(s.current(), ctx.device);
  double* out = native::present(s.next(), ctx.device);
  psi_pass<MaxThreads, MinBlocks><<<grid, block>>>(s.coeffs, s.grid, f, solid, psi);
  check_launch("psi_pass");
  ctx.clock.lap("calculate_phi");
  fn_pass<MaxThreads, MinBlocks><<<grid, block>>>(s.coeffs, s.grid, f, out, solid, psi);
  check_launch("fn_pass");
  ctx.clock.lap("calculate_fn");
}

// CUDA's grid of --fused-shape tiles over the lattice.
struct Launch {
  dim3 grid, block;
  int threads;
};
Launch launch_of(const LbmInstance& s, const char* name) {
  const Grid& g = s.grid;
  const Shape& t = s.p.fused_shape;  // at most 1024 cells: make_instance checks it
  const dim3 block{unsigned(t[0]), unsigned(t[1]), unsigned(t[2])};
  const dim3 grid(unsigned((g.nx + t[0] - 1) / t[0]), unsigned((g.ny + t[1] - 1) / t[1]),
                  unsigned((g.nz + t[2] - 1) / t[2]));
  if (grid.y > max_grid_yz || grid.z > max_grid_yz)
    throw std::runtime_error(fmt::format("{}: {} x {} tiles along y and z; CUDA's grid takes at most {} each", name,
                                         grid.y, grid.z, max_grid_yz));
  return {grid, block, t[0] * t[1] * t[2]};
}

void native_fused(LbmInstance& s, RunContext& ctx) {
  native::select(ctx.device);
  const Launch l = launch_of(s, "native_fused");
  const dim3 grid = l.grid, block = l.block;
  const std::uint8_t* solid = native::present(s.solid.data(), ctx.device);
  double* psi = native::present(s.psi.data(), ctx.device);
  const int threads = l.threads;
  for (int n = 0; n < s.p.steps; ++n) {
    if (threads <= 128) step<128, 4>(s, ctx, grid, block, solid, psi);
    else if (threads <= 256) step<256, 2>(s, ctx, grid, block, solid, psi);
    else if (threads <= 512) step<512, 1>(s, ctx, grid, block, solid, psi);
    else step<1024, 1>(s, ctx, grid, block, solid, psi);
    s.swap();
  }
}

void native_streamed(LbmInstance& s, RunContext& ctx) {
  native::select(ctx.device);
  const Launch l = launch_of(s, "native_streamed");
  const std::uint8_t* solid = native::present(s.solid.data(), ctx.device);
  double* psi = native::present(s.psi.data(), ctx.device);
  for (int n = 0; n < s.p.steps; ++n) {
    const double* f = native::present(s.current(), ctx.device);
    double* out = native::present(s.next(), ctx.device);
    psi_pass<1024, 1><<<l.grid, l.block>>>(s.coeffs, s.grid, f, solid, psi);
    check_launch("psi_pass");
    ctx.clock.lap("calculate_phi");
    fn_streamed_pass<<<l.grid, l.block>>>(s.coeffs, s.grid, f, out, solid, psi);
    check_launch("fn_streamed_pass");
    ctx.clock.lap("calculate_fn");
    s.swap();
  }
}

// One in-place step of parity Odd, its collision kernel bound as step()'s.
template <bool Odd, int MaxThreads, int MinBlocks>
void step_in_place(LbmInstance& s, RunContext& ctx, dim3 grid, dim3 block, double* f, const std::uint8_t* solid,
                   double* psi) {
  psi_in_place_pass<Odd><<<grid, block>>>(s.coeffs, s.grid, f, solid, psi);
  check_launch("psi_in_place_pass");
  ctx.clock.lap("calculate_phi");
  fn_in_place_pass<Odd, MaxThreads, MinBlocks><<<grid, block>>>(s.coeffs, s.grid, f, solid, psi);
  check_launch("fn_in_place_pass");
  ctx.clock.lap("calculate_fn");
}

template <bool Odd>
void step_in_place(LbmInstance& s, RunContext& ctx, const Launch& l, double* f, const std::uint8_t* solid,
                   double* psi) {
  if (l.threads <= 128) step_in_place<Odd, 128, 4>(s, ctx, l.grid, l.block, f, solid, psi);
  else if (l.threads <= 256) step_in_place<Odd, 256, 2>(s, ctx, l.grid, l.block, f, solid, psi);
  else if (l.threads <= 512) step_in_place<Odd, 512, 1>(s, ctx, l.grid, l.block, f, solid, psi);
  else step_in_place<Odd, 1024, 1>(s, ctx, l.grid, l.block, f, solid, psi);
}

void native_inplace(LbmInstance& s, RunContext& ctx) {
  native::select(ctx.device);
  const Launch l = launch_of(s, "native_inplace");
  double* f = native::present(s.current(), ctx.device);
  const std::uint8_t* solid = native::present(s.solid.data(), ctx.device);
  double* psi = native::present(s.psi.data(), ctx.device);
  for (int n = 0; n < s.p.steps; ++n) {
    if (n % 2 == 0) step_in_place<false>(s, ctx, l, f, solid, psi);
    else step_in_place<true>(s, ctx, l, f, solid, psi);
  }
  if (s.p.steps % 2 != 0) {
    to_standard_pass<<<l.grid, l.block>>>(s.grid, f);
    check_launch("to_standard_pass");
    ctx.clock.lap("to_standard");
  }
}

const Registration native_fused_registration{
    native_variant("lbm", "native_fused",
                   "target_fused's two passes as plain CUDA: one thread per cell, a block per --fused-shape tile "
                   "(x fastest), 128 registers a thread, the same cell functions",
                   native_fused, device_data)
        .for_kernel("fused").reading({"--fused-shape"})};

const Registration native_streamed_registration{
    native_variant("lbm", "native_streamed",
                   "target_streamed's collision pass as plain CUDA: populations read twice, only sums live, "
                   "the same cell functions, a block per --fused-shape tile",
                   native_streamed, device_data)
        .for_kernel("streamed")};

const Registration native_inplace_registration{
    native_variant("lbm", "native_inplace",
                   "target_inplace's passes as plain CUDA: one lattice updated in place (the AA pattern), a block "
                   "per --fused-shape tile, the collision kernel held to 128 registers, the same cell functions",
                   native_inplace, device_data_in_place)
        .for_kernel("inplace").reading({"--fused-shape"})};

}  // namespace
}  // namespace ompref::lbm
