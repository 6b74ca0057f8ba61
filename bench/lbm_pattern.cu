// The memory traffic of lbm's two passes without their arithmetic: how fast a
// pass of this data layout can go on a GPU, so that the CUDA twin's collision
// pass (src/native_cuda/lbm.cu) can be read against what its access pattern
// allows and not only against the triad (docs/lbm.md, "Bytes model").
//
// The lbm layout: D3Q19, structure of arrays, x fastest, two lattices of 19
// direction arrays of doubles, psi, a byte flag per cell; one thread per cell
// in blocks of 128 along x, as native_streamed launches with the default
// --fused-shape. Each kernel moves the bytes of the model and does next to no
// arithmetic:
//   phi       read the 19 populations of the cell, write psi          160 B a cell
//   copy      read 19, write 19 at the same cell                      304 B
//   push      read 19, write each at x + e_i (periodic)               304 B
//   pull      read each at x - e_i (periodic), write 19 at the cell   304 B
//   push_psi  push, plus the flag of the cell and psi of the cell and
//             its 18 neighbours (the collision pass's pattern)        312 B (+1 for the flag)
// `two passes` is phi then push_psi, as one lbm step: its MLUPS are the most a
// step of this layout can reach. The CUDA triad (one element a thread, 2^28
// doubles an array) runs in the same process. Every figure: cudaEvent time of
// one launch, best and median of `reps` after 3 warm-ups.
//   nvcc -O3 -arch=sm_90 bench/lbm_pattern.cu -o lbm_pattern && ./lbm_pattern [nx ny nz [reps]]
// (default 512 512 256, lbm's paper lattice, and 20 launches)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int Q = 19;
constexpr int block_x = 128;

// D3Q19: rest, the 6 faces, the 12 edges.
__constant__ int ex[Q] = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0};
__constant__ int ey[Q] = {0, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 0, 0, 1, -1, 1, -1};
__constant__ int ez[Q] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, -1, 1, 1, -1, -1, 1};

struct Lattice {
  int nx, ny, nz;
  long stride;  // doubles per direction array
};

__device__ inline int wrap(int v, int n) { return v < 0 ? v + n : (v >= n ? v - n : v); }

__device__ inline long cell(const Lattice& g, int x, int y, int z) { return x + long(g.nx) * (y + long(g.ny) * z); }

// The cell of this thread; false outside the lattice.
__device__ inline bool this_cell(const Lattice& g, int& x, int& y, int& z) {
  x = blockIdx.x * blockDim.x + threadIdx.x;
  y = blockIdx.y;
  z = blockIdx.z;
  return x < g.nx;
}

__device__ inline long neighbour(const Lattice& g, int x, int y, int z, int i, int sign) {
  return cell(g, wrap(x + sign * ex[i], g.nx), wrap(y + sign * ey[i], g.ny), wrap(z + sign * ez[i], g.nz));
}

__global__ void phi(Lattice g, const double* __restrict__ f, double* __restrict__ psi) {
  int x, y, z;
  if (!this_cell(g, x, y, z)) return;
  const long k = cell(g, x, y, z);
  double rho = 0;
#pragma unroll
  for (int i = 0; i < Q; ++i) rho += f[i * g.stride + k];
  psi[k] = 1.0 - rho;
}

__global__ void copy(Lattice g, const double* __restrict__ f, double* __restrict__ out) {
  int x, y, z;
  if (!this_cell(g, x, y, z)) return;
  const long k = cell(g, x, y, z);
#pragma unroll
  for (int i = 0; i < Q; ++i) out[i * g.stride + k] = f[i * g.stride + k];
}

__global__ void push(Lattice g, const double* __restrict__ f, double* __restrict__ out) {
  int x, y, z;
  if (!this_cell(g, x, y, z)) return;
  const long k = cell(g, x, y, z);
#pragma unroll
  for (int i = 0; i < Q; ++i) out[i * g.stride + neighbour(g, x, y, z, i, 1)] = f[i * g.stride + k];
}

__global__ void pull(Lattice g, const double* __restrict__ f, double* __restrict__ out) {
  int x, y, z;
  if (!this_cell(g, x, y, z)) return;
  const long k = cell(g, x, y, z);
#pragma unroll
  for (int i = 0; i < Q; ++i) out[i * g.stride + k] = f[i * g.stride + neighbour(g, x, y, z, i, -1)];
}

__global__ void push_psi(Lattice g, const double* __restrict__ f, double* __restrict__ out,
                         const unsigned char* __restrict__ flag, const double* __restrict__ psi) {
  int x, y, z;
  if (!this_cell(g, x, y, z)) return;
  const long k = cell(g, x, y, z);
  if (flag[k]) return;
  double s = 0;  // a cohesion-like sum, so the neighbours' psi are loaded
#pragma unroll
  for (int i = 1; i < Q; ++i) s += (ex[i] + ey[i] + ez[i]) * psi[neighbour(g, x, y, z, i, 1)];
  s *= psi[k];
#pragma unroll
  for (int i = 0; i < Q; ++i) out[i * g.stride + neighbour(g, x, y, z, i, 1)] = f[i * g.stride + k] + s;
}

__global__ void triad(double* a, const double* __restrict__ b, const double* __restrict__ c, long n) {
  const long i = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) a[i] = b[i] + 0.4 * c[i];
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "lbm_pattern: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

struct Timing {
  double best, median;  // seconds
};

template <class Launch>
Timing time_launches(int reps, Launch&& launch) {
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "event");
  check(cudaEventCreate(&b), "event");
  for (int w = 0; w < 3; ++w) launch();
  check(cudaDeviceSynchronize(), "warm-up");
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    check(cudaEventRecord(a), "record");
    launch();
    check(cudaEventRecord(b), "record");
    check(cudaEventSynchronize(b), "launch");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "elapsed");
    t.push_back(ms * 1e-3);
  }
  std::sort(t.begin(), t.end());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return {t.front(), t[t.size() / 2]};
}

int parse(const char* s, int lo, int hi, const char* what) {
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < lo || v > hi) {
    std::fprintf(stderr, "lbm_pattern: %s must be an integer from %d to %d, got '%s'\n", what, lo, hi, s);
    std::exit(2);
  }
  return int(v);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 1 && argc != 4 && argc != 5) {
    std::fprintf(stderr, "lbm_pattern: usage: lbm_pattern [nx ny nz [reps]] (default 512 512 256 20)\n");
    return 2;
  }
  Lattice g{512, 512, 256, 0};
  int reps = 20;
  if (argc >= 4) {
    g.nx = parse(argv[1], block_x, 4096, "nx");
    g.ny = parse(argv[2], 1, 65535, "ny");
    g.nz = parse(argv[3], 1, 65535, "nz");
  }
  if (argc == 5) reps = parse(argv[4], 1, 1000, "reps");
  const long cells = long(g.nx) * g.ny * g.nz;
  g.stride = (cells + 7) / 8 * 8;  // lattice_stride() of src/common/lbm/lbm.cpp (this file builds alone)
  const long n_triad = 1L << 28;
  const double lattice_bytes = 8.0 * Q * g.stride;
  const double need = 2 * lattice_bytes + 9.0 * g.stride + 3 * 8.0 * n_triad;
  size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  if (need > 0.95 * double(free_bytes)) {
    std::fprintf(stderr, "lbm_pattern: %dx%dx%d needs %.1f GB on the device, %.1f GB free\n", g.nx, g.ny, g.nz,
                 need / 1e9, double(free_bytes) / 1e9);
    return 2;
  }
  double *f, *out, *psi, *a, *b, *c;
  unsigned char* flag;
  check(cudaMalloc(&f, size_t(lattice_bytes)), "cudaMalloc");
  check(cudaMalloc(&out, size_t(lattice_bytes)), "cudaMalloc");
  check(cudaMalloc(&psi, 8 * size_t(g.stride)), "cudaMalloc");
  check(cudaMalloc(&flag, size_t(g.stride)), "cudaMalloc");
  check(cudaMalloc(&a, 8 * size_t(n_triad)), "cudaMalloc");
  check(cudaMalloc(&b, 8 * size_t(n_triad)), "cudaMalloc");
  check(cudaMalloc(&c, 8 * size_t(n_triad)), "cudaMalloc");
  check(cudaMemset(f, 0, size_t(lattice_bytes)), "cudaMemset");
  check(cudaMemset(psi, 0, 8 * size_t(g.stride)), "cudaMemset");
  check(cudaMemset(flag, 0, size_t(g.stride)), "cudaMemset");
  check(cudaMemset(b, 0, 8 * size_t(n_triad)), "cudaMemset");
  check(cudaMemset(c, 0, 8 * size_t(n_triad)), "cudaMemset");

  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("lbm_pattern on %s: %dx%dx%d cells, blocks of %d along x, best and median of %d launches\n", prop.name,
              g.nx, g.ny, g.nz, block_x, reps);
  const dim3 grid((g.nx + block_x - 1) / block_x, g.ny, g.nz), block(block_x);
  const Timing t_triad = time_launches(reps, [&] {
    triad<<<unsigned((n_triad + 127) / 128), 128>>>(a, b, c, n_triad);
  });
  const double triad_gbs = 24.0 * n_triad / t_triad.median / 1e9;
  std::printf("%-10s %10s %10s %10s %10s %9s\n", "kernel", "bytes/cell", "best ms", "median ms", "GB/s", "of triad");
  std::printf("%-10s %10d %10.3f %10.3f %10.1f %9.3f\n", "triad", 24, t_triad.best * 1e3, t_triad.median * 1e3,
              triad_gbs, 1.0);
  struct Row {
    const char* name;
    int bytes;
    Timing t;
  };
  std::vector<Row> rows;
  rows.push_back({"phi", 160, time_launches(reps, [&] { phi<<<grid, block>>>(g, f, psi); })});
  rows.push_back({"copy", 304, time_launches(reps, [&] { copy<<<grid, block>>>(g, f, out); })});
  rows.push_back({"push", 304, time_launches(reps, [&] { push<<<grid, block>>>(g, f, out); })});
  rows.push_back({"pull", 304, time_launches(reps, [&] { pull<<<grid, block>>>(g, f, out); })});
  rows.push_back({"push_psi", 312, time_launches(reps, [&] { push_psi<<<grid, block>>>(g, f, out, flag, psi); })});
  check(cudaGetLastError(), "kernels");
  for (const Row& r : rows) {
    const double gbs = double(r.bytes) * cells / r.t.median / 1e9;
    std::printf("%-10s %10d %10.3f %10.3f %10.1f %9.3f\n", r.name, r.bytes, r.t.best * 1e3, r.t.median * 1e3, gbs,
                gbs / triad_gbs);
  }
  const double step = rows[0].t.median + rows[4].t.median;
  std::printf("two passes (phi + push_psi): %.3f ms a step, %.0f MLUPS, %.1f GB/s of the 472-byte model (%.3f of "
              "triad)\n",
              step * 1e3, cells / step / 1e6, 472.0 * cells / step / 1e9, 472.0 * cells / step / 1e9 / triad_gbs);
  cudaFree(f);
  cudaFree(out);
  cudaFree(psi);
  cudaFree(flag);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return 0;
}
