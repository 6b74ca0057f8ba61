// mesh as plain CUDA: the native twins of src/omp_target/mesh.cpp (docs/native.md,
// docs/mesh.md). GMlib's access patterns, kernel for kernel in the target
// file's order, on the same instance arrays, entered by the runner from the
// same DeviceData declarations (common/mesh/mesh_data.hpp) and checked by the
// same validation; held against the target variants by native_fraction.
//
// Written as CUDA codes for unstructured meshes write them: one thread per
// item (vertex coordinate, tet, vertex or bin row) in 256-thread blocks;
// 32-bit item indices (make_instance keeps 4 nt and 3 nv below 2^31);
// __restrict__ kernel arguments and read-only loads (__ldg) of every input;
// a tet's 4 vertex (or neighbour) numbers as one 16-byte load. The
// per-element arithmetic is common/mesh/mesh_element.hpp's, called, not copied.
// The reductions: per-block partials by warp shuffles, combined on the device
// by the last block to finish (the pattern of CUDA's threadFenceReduction
// sample): one launch, then one 56-byte copy into pinned host memory.
//
// One twin per kernel tag, named after it: native_upward_csr is the twin of
// target_ball_csr, native_reduce that of target_reduce and target_reduce_blocks.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "common/mesh/mesh.hpp"
#include "common/mesh/mesh_element.hpp"
#include "common/mesh/mesh_variant.hpp"
#include "common/registry.hpp"
#include "native_cuda/cuda_support.hpp"
#include "common/mesh/mesh_data.hpp"

namespace ompref::mesh {
namespace {

using native::check;
using native::check_launch;

constexpr int block_threads = 256;

// The item of the calling thread; false past the last of n items.
__device__ inline bool item(std::int32_t n, std::int32_t& i) {
  const unsigned k = blockIdx.x * unsigned(block_threads) + threadIdx.x;
  i = std::int32_t(k);
  return k < unsigned(n);
}

// A vertex's (or tet's) 3 coordinates through the read-only cache.
__device__ inline void load_point(const double* __restrict__ xyz, std::int32_t v, double p[3]) {
  const double* q = xyz + 3 * v;
  p[0] = __ldg(q);
  p[1] = __ldg(q + 1);
  p[2] = __ldg(q + 2);
}

// The 4 numbers of a tet (tet[] or tet_nbr[]: 16-byte aligned rows) in one load.
__device__ inline int4 load_quad(const std::int32_t* __restrict__ rows, std::int32_t t) {
  return __ldg(reinterpret_cast<const int4*>(rows) + t);
}

// One thread per item, `items` of them, in 256-thread blocks.
template <class... Params, class... Args>
void launch(const char* name, void (*kernel)(Params...), std::int64_t items, Args... args) {
  if (items <= 0) return;
  kernel<<<unsigned((items + block_threads - 1) / block_threads), unsigned(block_threads)>>>(args...);
  check_launch(name);
}

// ---------------------------------------------------------------- direct

__global__ void __launch_bounds__(block_threads)
    direct_kernel(double* __restrict__ pos, const double* __restrict__ vel, std::int32_t n) {
  std::int32_t i;
  if (item(n, i)) pos[i] = pos[i] + __ldg(vel + i) * direct_dt;
}

void native_direct(MeshInstance& m, RunContext& ctx) {
  native::select(ctx.device);
  launch("direct", direct_kernel, 3 * m.nv, native::present(m.output("pos").data(), ctx.device),
         native::present(m.vel.data(), ctx.device), std::int32_t(3 * m.nv));
}

// ---------------------------------------------------------------- downward

__global__ void __launch_bounds__(block_threads)
    downward_kernel(const std::int32_t* __restrict__ tet, const double* __restrict__ crd,
                    double* __restrict__ volume, double* __restrict__ centre, std::int32_t nt) {
  std::int32_t t;
  if (!item(nt, t)) return;
  const int4 e = load_quad(tet, t);
  double a[3], b[3], c[3], d[3];
  load_point(crd, e.x, a);
  load_point(crd, e.y, b);
  load_point(crd, e.z, c);
  load_point(crd, e.w, d);
  volume[t] = tet_volume(a, b, c, d);
  tet_barycentre(a, b, c, d, centre + 3 * t);
}

void native_downward(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  native::select(dev);
  launch("downward", downward_kernel, m.nt, native::present(m.tet.data(), dev), native::present(m.crd.data(), dev),
         native::present(m.output("out_volume").data(), dev), native::present(m.output("out_centre").data(), dev), std::int32_t(m.nt));
}

// ---------------------------------------------------------------- transverse

__global__ void __launch_bounds__(block_threads)
    transverse_kernel(const std::int32_t* __restrict__ nbr, const double* __restrict__ centre,
                      double* __restrict__ spread, std::int32_t nt) {
  std::int32_t t;
  if (!item(nt, t)) return;
  const int4 n = load_quad(nbr, t);
  const std::int32_t u[4] = {n.x, n.y, n.z, n.w};
  double g[3];
  load_point(centre, t, g);
  double best = 0;
  for (int k = 0; k < 4; ++k) {
    if (u[k] < 0) continue;
    double h[3];
    load_point(centre, u[k], h);
    best = fmax(best, distance(g, h));
  }
  spread[t] = best;
}

void native_transverse(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  native::select(dev);
  launch("transverse", transverse_kernel, m.nt, native::present(m.tet_nbr.data(), dev),
         native::present(m.centre.data(), dev), native::present(m.output("spread").data(), dev), std::int32_t(m.nt));
}

// ---------------------------------------------------------------- upward

// The smoothing of vertex v from the sum of its ball's centres.
__device__ inline void relax_vertex(const double* __restrict__ crd, double* __restrict__ smooth, std::int32_t v,
                                    const double s[3], std::int32_t degree) {
  for (int k = 0; k < 3; ++k) smooth[3 * v + k] = relax(__ldg(crd + 3 * v + k), s[k], degree, smoothing_omega);
}

__global__ void __launch_bounds__(block_threads)
    ball_csr_kernel(const std::int32_t* __restrict__ offset, const std::int32_t* __restrict__ corner,
                    const double* __restrict__ centre, const double* __restrict__ crd, double* __restrict__ smooth,
                    std::int32_t nv) {
  std::int32_t v;
  if (!item(nv, v)) return;
  const std::int32_t lo = __ldg(offset + v), hi = __ldg(offset + v + 1);
  double s[3] = {0, 0, 0};
  for (std::int32_t i = lo; i < hi; ++i) {
    const double* g = centre + 3 * (__ldg(corner + i) >> 2);
    for (int k = 0; k < 3; ++k) s[k] += __ldg(g + k);
  }
  relax_vertex(crd, smooth, v, s, hi - lo);
}

void native_upward_csr(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  native::select(dev);
  launch("upward_csr", ball_csr_kernel, m.nv, native::present(m.ball_offset.data(), dev),
         native::present(m.ball_corner.data(), dev), native::present(m.centre.data(), dev),
         native::present(m.crd.data(), dev), native::present(m.output("smooth").data(), dev), std::int32_t(m.nv));
}

// The bins' arrays on the device.
struct BinsOnDevice {
  const std::int32_t* __restrict__ first;
  const std::int32_t* __restrict__ count;
  const std::int64_t* __restrict__ offset;
  const std::int32_t* __restrict__ vertex;
  const std::int32_t* __restrict__ degree;
  const std::int32_t* __restrict__ corner;
  int bins;
};

// One thread per row of all bins, as the target loop: the row finds its bin
// (a handful of bins: the same few words for the whole warp), then reads
// column j of the bin's matrix at j * rows + row: a warp reads consecutive words.
__global__ void __launch_bounds__(block_threads)
    ball_binned_kernel(BinsOnDevice bins, const double* __restrict__ centre, const double* __restrict__ crd,
                       double* __restrict__ smooth, std::int32_t rows) {
  std::int32_t r;
  if (!item(rows, r)) return;
  int b = 0;
  while (b + 1 < bins.bins && r >= __ldg(bins.first + b + 1)) ++b;
  const std::int64_t stride = __ldg(bins.count + b);
  const std::int32_t* column = bins.corner + __ldg(bins.offset + b) + (r - __ldg(bins.first + b));
  const std::int32_t deg = __ldg(bins.degree + r);
  double s[3] = {0, 0, 0};
  for (std::int32_t j = 0; j < deg; ++j) {
    const double* g = centre + 3 * (__ldg(column + j * stride) >> 2);
    for (int k = 0; k < 3; ++k) s[k] += __ldg(g + k);
  }
  relax_vertex(crd, smooth, __ldg(bins.vertex + r), s, deg);
}

void native_upward_binned(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  native::select(dev);
  const Bins& b = m.bins;
  const BinsOnDevice bins{native::present(b.first.data(), dev),  native::present(b.count.data(), dev),
                          native::present(b.offset.data(), dev), native::present(b.vertex.data(), dev),
                          native::present(b.degree.data(), dev), native::present(b.corner.data(), dev),
                          b.bin_count()};
  launch("upward_binned", ball_binned_kernel, b.rows(), bins, native::present(m.centre.data(), dev),
         native::present(m.crd.data(), dev), native::present(m.output("smooth").data(), dev), b.rows());
}

// ---------------------------------------------------------------- indirect writes

// A quarter of tet t's volume, its 4 vertices in e.
__device__ inline double quarter_volume(const double* __restrict__ crd, int4 e) {
  double a[3], b[3], c[3], d[3];
  load_point(crd, e.x, a);
  load_point(crd, e.y, b);
  load_point(crd, e.z, c);
  load_point(crd, e.w, d);
  return 0.25 * tet_volume(a, b, c, d);
}

__global__ void __launch_bounds__(block_threads)
    lumped_atomic_kernel(const std::int32_t* __restrict__ tet, const double* __restrict__ crd,
                         double* __restrict__ lumped, std::int32_t nt) {
  std::int32_t t;
  if (!item(nt, t)) return;
  const int4 e = load_quad(tet, t);
  const double quarter = quarter_volume(crd, e);
  atomicAdd(lumped + e.x, quarter);  // the result unused: a fire-and-forget reduction in L2
  atomicAdd(lumped + e.y, quarter);
  atomicAdd(lumped + e.z, quarter);
  atomicAdd(lumped + e.w, quarter);
}

// The zeroing is a cudaMemsetAsync (0.0 is all zero bits), the CUDA way of
// the target variant's first loop.
void native_lumped_atomic(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  native::select(dev);
  double* lumped = native::present(m.output("lumped").data(), dev);
  check(cudaMemsetAsync(lumped, 0, std::size_t(m.nv) * sizeof(double), 0), "cudaMemsetAsync (lumped)");
  launch("lumped_atomic", lumped_atomic_kernel, m.nt, native::present(m.tet.data(), dev),
         native::present(m.crd.data(), dev), lumped, std::int32_t(m.nt));
}

// The scatter: tet t's quarter to its 4 corners 4t..4t+3, two 16-byte stores.
__global__ void __launch_bounds__(block_threads)
    scatter_kernel(const std::int32_t* __restrict__ tet, const double* __restrict__ crd, double* __restrict__ tmp,
                   std::int32_t nt) {
  std::int32_t t;
  if (!item(nt, t)) return;
  const double quarter = quarter_volume(crd, load_quad(tet, t));
  double2* out = reinterpret_cast<double2*>(tmp + 4 * t);
  out[0] = make_double2(quarter, quarter);
  out[1] = make_double2(quarter, quarter);
}

// The gather: each vertex sums its ball's corners (written by the scatter,
// an earlier launch: read-only here).
__global__ void __launch_bounds__(block_threads)
    gather_kernel(const std::int32_t* __restrict__ offset, const std::int32_t* __restrict__ corner,
                  const double* __restrict__ tmp, double* __restrict__ lumped, std::int32_t nv) {
  std::int32_t v;
  if (!item(nv, v)) return;
  double s = 0;
  for (std::int32_t i = __ldg(offset + v), hi = __ldg(offset + v + 1); i < hi; ++i) s += __ldg(tmp + __ldg(corner + i));
  lumped[v] = s;
}

void native_lumped_scatter_gather(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  native::select(dev);
  const std::int32_t* tet = native::present(m.tet.data(), dev);
  double* tmp = native::present(m.corner_tmp.data(), dev);
  launch("scatter", scatter_kernel, m.nt, tet, native::present(m.crd.data(), dev), tmp, std::int32_t(m.nt));
  launch("gather", gather_kernel, m.nv, native::present(m.ball_offset.data(), dev),
         native::present(m.ball_corner.data(), dev), tmp, native::present(m.output("lumped").data(), dev), std::int32_t(m.nv));
}

// ---------------------------------------------------------------- reductions

constexpr int reduce_threads = 256;
constexpr int reduce_blocks_per_sm = 5;
constexpr int reduce_in_flight = 4;
constexpr int max_reduce_blocks = 4096;

// The block partials (6 values and the argmin per block), the count of
// blocks done, and the result, in device memory of the twin's own.
__device__ double partial_values[6 * max_reduce_blocks];
__device__ long long partial_index[max_reduce_blocks];
__device__ unsigned blocks_done;
__device__ Reductions reduce_result;

// The identity of every reduction (namespace-scope constants: device code reads their values).
constexpr double infinity = std::numeric_limits<double>::infinity();
constexpr std::int64_t no_index = std::numeric_limits<std::int64_t>::max();
__device__ inline Reductions no_reductions() {
  return Reductions{0, infinity, -infinity, 0, -infinity, MinLoc{infinity, no_index}};
}

__device__ inline Reductions combine(const Reductions& a, const Reductions& b) {
  return Reductions{a.volume_sum + b.volume_sum,   fmin(a.volume_min, b.volume_min), fmax(a.volume_max, b.volume_max),
                    a.quality_sum + b.quality_sum, fmax(a.quality_max, b.quality_max),
                    minloc_better(a.quality_min, b.quality_min)};
}

__device__ inline Reductions warp_reduce(Reductions r) {
  for (int offset = 16; offset > 0; offset /= 2) {
    const unsigned all = 0xffffffffu;
    const Reductions other{__shfl_down_sync(all, r.volume_sum, offset),  __shfl_down_sync(all, r.volume_min, offset),
                           __shfl_down_sync(all, r.volume_max, offset),  __shfl_down_sync(all, r.quality_sum, offset),
                           __shfl_down_sync(all, r.quality_max, offset),
                           MinLoc{__shfl_down_sync(all, r.quality_min.value, offset),
                                  std::int64_t(__shfl_down_sync(all, (long long)r.quality_min.index, offset))}};
    r = combine(r, other);
  }
  return r;
}

// The block's result, in thread 0: each warp by shuffles, then the warps' results.
__device__ inline Reductions block_reduce(Reductions r) {
  __shared__ Reductions warps[reduce_threads / 32];
  r = warp_reduce(r);
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warps[warp] = r;
  __syncthreads();
  if (warp == 0) r = warp_reduce(lane < blockDim.x / 32 ? warps[lane] : no_reductions());
  return r;
}

__device__ inline void store_partial(unsigned b, const Reductions& r) {
  double* out = partial_values + 6 * b;
  out[0] = r.volume_sum;
  out[1] = r.volume_min;
  out[2] = r.volume_max;
  out[3] = r.quality_sum;
  out[4] = r.quality_max;
  out[5] = r.quality_min.value;
  partial_index[b] = r.quality_min.index;
}

// Another block's partial, from L2 (__ldcg: never a stale line of this SM's L1).
__device__ inline Reductions load_partial(unsigned b) {
  const double* in = partial_values + 6 * b;
  return Reductions{__ldcg(in),     __ldcg(in + 1), __ldcg(in + 2), __ldcg(in + 3),
                    __ldcg(in + 4), MinLoc{__ldcg(in + 5), std::int64_t(__ldcg(partial_index + b))}};
}

// Each block reduces a grid-stride share of the tets (each thread loads
// reduce_in_flight elements of each array before it folds any in) and
// stores its partial; the last block to finish (each counts itself after a
// fence that makes its partial visible) combines the partials and resets
// the count.
__global__ void __launch_bounds__(reduce_threads)
    reduce_kernel(const double* __restrict__ volume, const double* __restrict__ quality, std::int32_t nt) {
  Reductions r = no_reductions();
  const auto fold = [&r](double v, double q, std::int32_t t) {
    r.volume_sum += v;
    r.volume_min = fmin(r.volume_min, v);
    r.volume_max = fmax(r.volume_max, v);
    r.quality_sum += q;
    r.quality_max = fmax(r.quality_max, q);
    r.quality_min = minloc_better(r.quality_min, MinLoc{q, t});
  };
  const std::int32_t stride = std::int32_t(gridDim.x * blockDim.x);
  std::int32_t t = std::int32_t(blockIdx.x * blockDim.x + threadIdx.x);
  for (; t + (reduce_in_flight - 1) * stride < nt; t += reduce_in_flight * stride) {
    double v[reduce_in_flight], q[reduce_in_flight];
    for (int k = 0; k < reduce_in_flight; ++k) v[k] = __ldg(volume + t + k * stride);
    for (int k = 0; k < reduce_in_flight; ++k) q[k] = __ldg(quality + t + k * stride);
    for (int k = 0; k < reduce_in_flight; ++k) fold(v[k], q[k], t + k * stride);
  }
  for (; t < nt; t += stride) fold(__ldg(volume + t), __ldg(quality + t), t);
  r = block_reduce(r);
  __shared__ bool last;
  if (threadIdx.x == 0) {
    store_partial(blockIdx.x, r);
    __threadfence();
    last = atomicAdd(&blocks_done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  r = no_reductions();
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) r = combine(r, load_partial(b));
  r = block_reduce(r);
  if (threadIdx.x == 0) {
    reduce_result = r;
    blocks_done = 0;
  }
}

// The result comes back by an asynchronous copy into pinned host memory and
// a polled wait (as stream's dot: a synchronous copy would wait the blocking way).
Reductions* pinned_result() {
  static Reductions* const host = native::pinned_host<Reductions>(1);
  return host;
}

void native_reduce(MeshInstance& m, RunContext& ctx) {
  const int dev = ctx.device;
  native::select(dev);
  Reductions* result = pinned_result();
  const std::int64_t wanted = (m.nt + reduce_threads - 1) / reduce_threads;
  const int blocks = int(std::max<std::int64_t>(
      1, std::min<std::int64_t>({wanted, max_reduce_blocks, reduce_blocks_per_sm * native::multiprocessors(dev)})));
  reduce_kernel<<<unsigned(blocks), unsigned(reduce_threads)>>>(native::present(m.volume.data(), dev),
                                                                native::present(m.quality.data(), dev),
                                                                std::int32_t(m.nt));
  check_launch("reduce");
  check(cudaMemcpyFromSymbolAsync(result, reduce_result, sizeof(Reductions), 0, cudaMemcpyDeviceToHost, 0),
        "cudaMemcpyFromSymbolAsync (the reductions)");
  native::wait_for_device();
  m.red = *result;
}

// ---------------------------------------------------------------- registrations

const Registration registrations[] = {
    Registration{native_variant("mesh", "native_direct",
                                "direct as plain CUDA: one coordinate per thread, the twin of target_direct",
                                native_direct, "direct")},
    Registration{native_variant("mesh", "native_downward",
                                "downward as plain CUDA: one tet per thread, its 4 vertex numbers in one 16-byte "
                                "load, coordinates via __ldg",
                                native_downward, "downward")},
    Registration{native_variant("mesh", "native_transverse",
                                "transverse as plain CUDA: one tet per thread, its 4 neighbours in one 16-byte load",
                                native_transverse, "transverse")},
    Registration{native_variant("mesh", "native_upward_csr",
                                "upward over CSR balls as plain CUDA: one vertex per thread, the twin of "
                                "target_ball_csr",
                                native_upward_csr, "upward_csr")},
    Registration{native_variant("mesh", "native_upward_binned",
                                "upward over degree-binned balls as plain CUDA: one bin row per thread, the twin of "
                                "target_ball_binned",
                                native_upward_binned, "upward_binned")},
    Registration{native_variant("mesh", "native_lumped_atomic",
                                "lumped volumes as plain CUDA: cudaMemsetAsync, then one tet per thread, atomicAdd",
                                native_lumped_atomic, "lumped_atomic")},
    Registration{native_variant("mesh", "native_lumped_scatter_gather",
                                "lumped volumes as plain CUDA: a scatter launch (one tet per thread), then a gather "
                                "launch (one vertex per thread)",
                                native_lumped_scatter_gather, "lumped_scatter_gather")},
    Registration{native_variant("mesh", "native_reduce",
                                "reductions as plain CUDA: warp shuffles per block, the last block combines the "
                                "partials, one launch; the twin of target_reduce and target_reduce_blocks",
                                native_reduce, "reduce")},
};

}  // namespace
}  // namespace ompref::mesh
