// gpp as plain CUDA: the native twin of target_tuned (src/omp_target/gpp_4_tuned.cpp,
// docs/native.md), on the same instance arrays, entered by the runner from the
// same DeviceData declaration (device_data, src/omp_target/gpp.cpp), validated
// by the same check, held against target_tuned by native_fraction (both carry
// the kernel tag "tuned").
//
// A thread computes what a thread of target_tuned computes, by the same
// function (tuned_element, src/common/gpp/gpp_tuned.hpp, over gpp_term.hpp's
// add_term_factored and factor_of): the sum of conj(wdiff) / |wdiff|^2 * I_eps
// over a chunk of ig rows for `bands_per_thread` bands at one G'-vector k,
// each band's sum multiplied by factor(k, n1) once. What CUDA lets the twin
// choose that the OpenMP form leaves to the runtime:
// - the block is 32 k (a warp: I_eps[ig][k] and wtilde[ig][k] read as 512
//   consecutive bytes) by 8 band groups: the 8 warps of a block read the same
//   rows, so each row comes from L2 once per block and 7 times from L1;
// - blockIdx.x runs over the band blocks: the blocks scheduled together share
//   their ig rows in L2, so I_eps and wtilde leave memory about once per chunk;
// - __launch_bounds__ holds the registers to two 256-thread blocks per
//   multiprocessor (the 3 x 4 complex sums and 12 wx stay in registers);
// - the three complex sums are reduced in the block by warp shuffles, one
//   partial per block; a one-block kernel adds the partials in a fixed order
//   (deterministic, no atomics) and the 48-byte result comes back by an
//   asynchronous copy into pinned memory with a polled wait, as stream's dot.
// Its times against the mini-app's own CUDA version and target_tuned:
// docs/log/gpp.md ("Measurements behind the sources").
#include <algorithm>
#include <map>
#include <memory>

#include "common/gpp/complex.hpp"
#include "common/gpp/gpp.hpp"
#include "common/gpp/gpp_data.hpp"
#include "common/gpp/gpp_tuned.hpp"
#include "common/registry.hpp"
#include "native_cuda/cuda_support.hpp"

namespace ompref::gpp {

namespace {

using native::check;
using native::check_launch;

constexpr int bands_per_thread = 4;  // target_tuned's default (--tuned-shape's first field)
constexpr int k_per_block = 32;      // threadIdx.x: one warp over consecutive k
constexpr int band_groups = 8;       // threadIdx.y: warps sharing the block's ig rows
constexpr int block_threads = k_per_block * band_groups;
constexpr int bands_per_block = bands_per_thread * band_groups;
constexpr int max_ig_chunk = 2048;   // rows of ig per block, fewer where the deck is small
constexpr int blocks_per_sm_wanted = 32;  // enough blocks that the last wave is a small share
constexpr int max_grid_z = 65535;

// The device copies of the instance's inputs and the deck's sizes.
struct Arrays {
  const Complex *aqsm, *aqsn, *ieps, *wtilde;
  const double *vcoul, *e_n1kq;
  const int *inv_igp_index, *indinv;
  int nb, nc, ngpown;
};

__device__ double warp_sum(double x) {
  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_down_sync(0xffffffffu, x, offset);
  return x;
}
__device__ Complex3 warp_sum(Complex3 x) {
  for (Complex& z : x.v) z = Complex{warp_sum(z.re), warp_sum(z.im)};
  return x;
}

// The sum of one block's threads, valid in thread (0, 0); every thread of the block calls it.
__device__ Complex3 block_sum(Complex3 x) {
  __shared__ Complex3 per_warp[block_threads / 32];
  const int thread = threadIdx.x + blockDim.x * threadIdx.y;
  const int lane = thread % 32, warp = thread / 32, warps = (blockDim.x * blockDim.y) / 32;
  x = warp_sum(x);
  if (lane == 0) per_warp[warp] = x;
  __syncthreads();
  if (warp == 0) x = warp_sum(lane < warps ? per_warp[lane] : complex3_zero());
  return x;
}

// Block (bx, ky, chunk): band groups of bands_per_block bands (bx), 32 k (ky),
// ig rows [chunk * ig_chunk, ...). One partial sum per block.
__global__ void __launch_bounds__(block_threads, 2)
    tuned_blocks(Arrays a, int ig_chunk, Complex3* partials) {
  const int n0 = (blockIdx.x * band_groups + threadIdx.y) * bands_per_thread;
  const int k = blockIdx.y * k_per_block + threadIdx.x;
  const int ig0 = blockIdx.z * ig_chunk, ig1 = ig0 + min(ig_chunk, a.nc - ig0);
  Complex3 loc = complex3_zero();
  if (k < a.ngpown && n0 < a.nb)
    loc = tuned_element<bands_per_thread>(n0, k, ig0, ig1, a.nb, a.ngpown, a.aqsm, a.aqsn, a.ieps, a.wtilde, a.vcoul,
                                          a.e_n1kq, a.inv_igp_index, a.indinv);
  loc = block_sum(loc);  // every thread takes part, those past the deck with zeros
  if (threadIdx.x == 0 && threadIdx.y == 0)
    partials[blockIdx.x + gridDim.x * (blockIdx.y + std::size_t(gridDim.y) * blockIdx.z)] = loc;
}

// The partial sums added by one block in a fixed order: thread t sums
// partials t, t + 256, ..., then the block's sum. The same bits every run.
constexpr int sum_threads = 256;
static_assert(sum_threads <= block_threads, "block_sum holds one partial per warp of a tuned block");
__device__ Complex3 total;

__global__ void __launch_bounds__(sum_threads) sum_partials(const Complex3* partials, std::size_t count) {
  Complex3 x = complex3_zero();
  for (std::size_t i = threadIdx.x; i < count; i += sum_threads) complex3_combine(x, partials[i]);
  x = block_sum(x);
  if (threadIdx.x == 0) total = x;
}

// The launch for a deck: the grid, and the ig rows of a block. Chunks of at
// most max_ig_chunk rows, shorter where the deck would give fewer than
// blocks_per_sm_wanted blocks per multiprocessor.
struct Launch {
  dim3 grid;
  int ig_chunk;
  std::size_t blocks() const { return std::size_t(grid.x) * grid.y * grid.z; }
};
Launch launch_for(const GppInstance& s, int multiprocessors) {
  const long band_blocks = (s.nb + bands_per_block - 1) / bands_per_block;
  const long k_blocks = (s.ngpown + k_per_block - 1) / k_per_block;
  const long wanted = long(blocks_per_sm_wanted) * multiprocessors;
  const long per_chunk = band_blocks * k_blocks;
  long chunks = std::max<long>((s.nc + max_ig_chunk - 1) / max_ig_chunk, (wanted + per_chunk - 1) / per_chunk);
  chunks = std::min<long>({chunks, s.nc, max_grid_z});
  const int ig_chunk = int((s.nc + chunks - 1) / chunks);
  return Launch{dim3(unsigned(band_blocks), unsigned(k_blocks), unsigned((s.nc - 1) / ig_chunk + 1)), ig_chunk};
}

// Scratch kept per device between calls, allocated at the first (a warm-up):
// the block partials (grown when a larger deck needs more) and a pinned host
// copy of the total.
Complex3* partials_on(int device, std::size_t count) {
  static std::map<int, std::unique_ptr<native::DeviceArray<Complex3>>> kept;
  auto& array = kept[device];
  if (!array || array->size() < count) {
    array.reset();
    array = std::make_unique<native::DeviceArray<Complex3>>(count);
  }
  return array->data();
}
Complex3* pinned_total() {
  static Complex3* const host = native::pinned_host<Complex3>(1);
  return host;
}

void native_tuned(GppInstance& s, RunContext& ctx) {
  native::select(ctx.device);
  const Arrays a{native::present(s.aqsmtemp.data(), ctx.device), native::present(s.aqsntemp.data(), ctx.device),
                 native::present(s.I_eps_array.data(), ctx.device), native::present(s.wtilde_array.data(), ctx.device),
                 native::present(s.vcoul.data(), ctx.device),       native::present(s.e_n1kq.data(), ctx.device),
                 native::present(s.inv_igp_index.data(), ctx.device), native::present(s.indinv.data(), ctx.device),
                 s.nb, s.nc, s.ngpown};
  const Launch launch = launch_for(s, native::multiprocessors(ctx.device));
  Complex3* partials = partials_on(ctx.device, launch.blocks());
  Complex3* result = pinned_total();
  tuned_blocks<<<launch.grid, dim3(k_per_block, band_groups)>>>(a, launch.ig_chunk, partials);
  check_launch("tuned_blocks");
  sum_partials<<<1, sum_threads>>>(partials, launch.blocks());
  check_launch("sum_partials");
  check(cudaMemcpyFromSymbolAsync(result, total, sizeof(Complex3), 0, cudaMemcpyDeviceToHost, 0),
        "cudaMemcpyFromSymbolAsync (the three sums)");
  native::wait_for_device();
  s.achtemp = *result;
}

const Registration native_tuned_registration{
    native_variant("gpp", "native_tuned",
                   "target_tuned's arithmetic as plain CUDA: 32 k x 8 band groups of 4 bands per block sharing their "
                   "ig rows through L1, block reduction by shuffles, partials added in a fixed order",
                   native_tuned, device_data)
        .for_kernel("tuned").reading({"--tuned-shape"})};

}  // namespace
}  // namespace ompref::gpp
