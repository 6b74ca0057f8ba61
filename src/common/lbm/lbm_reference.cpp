// lbm's host reference run (the validation against it: lbm_validation.cpp).
// The reference is the cell arithmetic of common/lbm/lbm_cell.hpp in host_basic's
// order, in a two-pass form with bounce-back at the push (fn_push_bounce: the
// values are those of the three-pass form, a population pushed into a wall
// landing, reversed, where update_boundary would put it), row by row, the
// rows away from walls without the bounce-back tests. Its loops are its own,
// made for a many-core host's memory: the two passes of a step in one sweep
// of each thread's slab of planes by blocks of rows (psi a plane ahead of the
// collision, so that the populations come from memory once a step), psi a
// direction at a time; in the rows away from walls each cell's moments and
// force in one vector loop, then the collision a pair of opposite directions
// at a time in another, each direction's pushed populations written as whole
// 64-byte lines with streaming stores (reference_step, open_row).
// Independent of the variants' loops, launches and data movement.
#include <algorithm>
#include <cstdint>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <limits>
#include <map>
#include <vector>
#include <unistd.h>

#include <fmt/format.h>
#include <omp.h>

#include "common/device.hpp"
#include "common/lbm/lbm.hpp"
#include "common/lbm/lbm_reference_cache.hpp"
#include "common/validation.hpp"
#include "common/io/vtk.hpp"

namespace ompref::lbm {

// The reference run, made once per instance and shared by every variant
// validated on it. Variants stop after different numbers of repetitions (a
// budget cuts the last ones short), so the states at the repetition
// boundaries just below a requested step count are kept, as many as fit in a
// quarter of the memory available when the run starts: a later variant that
// stopped earlier restarts from one of them instead of from step 0.
struct LbmInstance::Reference {
  AlignedArray<double> lat[2];
  AlignedArray<double> psi;
  std::vector<std::uint8_t> open;  // open_rows()
  int cur = 0;
  long steps = -1;     // -1: not initialised
  long computed = 0;   // steps run since the instance was made
  std::size_t keep_limit = 0;
  std::map<long, AlignedArray<double>> kept;  // step count -> the state after it
  std::vector<std::pair<double, std::string>> frames;

  explicit Reference(const LbmInstance& s);
  long lattice() const { return long(lat[0].size()); }
  void write_frame(const LbmInstance& s, long step);  // the current state's, listed once in the .pvd
  void keep(long needed);  // the state after `steps`, the oldest kept one (unless `needed`) making room
  void restart(const LbmInstance& s, long from, bool vtk);  // from a kept state after `from` steps, or step 0
  // Up to `total_steps`, keeping states at repetition boundaries, writing
  // frames; a progress line for long runs on a terminal.
  void advance(const LbmInstance& s, long total_steps, bool vtk);
};

namespace {

// Rows (y, z) whose cells and whose eight neighbouring rows (y +- 1, z +- 1,
// periodic) hold no solid cell: along such a row every push lands in a fluid
// cell, so no population bounces back.
std::vector<std::uint8_t> open_rows(const Grid& g, const std::uint8_t* solid) {
  const long rows = long(g.ny) * g.nz;
  std::vector<std::uint8_t> any(std::size_t(rows), 0), open(std::size_t(rows), 0);
#pragma omp parallel for schedule(static)
  for (long r = 0; r < rows; ++r)
    for (int x = 0; x < g.nx; ++x) any[std::size_t(r)] |= solid[r * g.nx + x];
#pragma omp parallel for collapse(2) schedule(static)
  for (int z = 0; z < g.nz; ++z)
    for (int y = 0; y < g.ny; ++y) {
      bool clear = g.nx > 2;
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          clear = clear && !any[std::size_t((y + dy + g.ny) % g.ny + long(g.ny) * ((z + dz + g.nz) % g.nz))];
      open[std::size_t(y + long(g.ny) * z)] = clear;
    }
  return open;
}

// The cells of a chunk of an open row, and the stride of the thread's chunk
// buffer: a constant, so that the compiler sees the buffer's runs apart and
// its vector loops need no overlap checks (with a stride known only at run
// time it made none: the row was collided a cell at a time).
constexpr int chunk_cells = 512;
// The runs of the chunk buffer: the collided populations of one direction,
// then the chunk's densities and shifted velocities (open_row).
constexpr int chunk_runs = 7;

// The cells 1 .. nx - 2 of an open row: fn_push_bounce's arithmetic with
// every neighbour fluid, so each population goes to x + e_i. The neighbours
// are fixed offsets from the cell (row_offsets), so consecutive cells' loads
// are consecutive addresses. By chunks of chunk_cells, in vector loops where
// the compiler can make them: first each cell's moments, force and shifted
// velocity (fn_push_bounce's sums in its order, no wall among the
// neighbours), kept in the thread's chunk buffer `buf`; then direction by
// direction the collision of every cell of the chunk (`relaxed`, the
// population read again, from the cache), into the buffer's first run, and
// from there to the run of consecutive cells x + e_i in `out` (store_run). A
// cell's values are those of fn_push_bounce; split so, neither loop holds
// more values than the processor has registers.
void open_row(const Coeffs& coeffs, const Grid& g, const double* __restrict f, double* out,
              const double* __restrict psi, long row, const int (&offsets)[Q], double* __restrict buf) {
  // Copies of what the loops read besides the lattice: no store to `buf` can change them.
  const Coeffs c = coeffs;
  int off[Q];
  for (int i = 0; i < Q; ++i) off[i] = offsets[i];
  const long stride = g.stride;
  double* __restrict post = buf;
  double* __restrict rho = buf + chunk_cells;
  double* __restrict vx = buf + 2 * chunk_cells;
  double* __restrict vy = buf + 3 * chunk_cells;
  double* __restrict vz = buf + 4 * chunk_cells;
  double* __restrict usq = buf + 5 * chunk_cells;
  double* __restrict post_o = buf + 6 * chunk_cells;
  for (int x0 = 1; x0 < g.nx - 1; x0 += chunk_cells) {
    const int len = std::min(chunk_cells, g.nx - 1 - x0);
    const long k0 = row + x0;
#pragma omp simd
    for (int b = 0; b < len; ++b) {
      const long k = k0 + b;
      double r = 0, jx = 0, jy = 0, jz = 0;
#pragma GCC unroll 19
      for (int i = 0; i < Q; ++i) add_moment(i, f[i * stride + k], r, jx, jy, jz);
      const double inv = 1.0 / r;  // moments()'
      ForceSums t;
#pragma GCC unroll 19
      for (int i = 1; i < Q; ++i) add_force(i, psi[k + off[i]], false, t);
      double Fx, Fy, Fz;
      force_of(c, r, psi[k], t, Fx, Fy, Fz);
      const Shifted v = shifted_velocity(c, r, jx * inv, jy * inv, jz * inv, Fx, Fy, Fz);
      rho[b] = r;
      vx[b] = v.vx;
      vy[b] = v.vy;
      vz[b] = v.vz;
      usq[b] = v.usq;
    }
#pragma GCC unroll 19
    for (int i = 0; i < Q; ++i) {
      if (opp(i) < i) continue;
      const int o = opp(i);
      const double *fi = f + i * stride + k0, *fo = f + o * stride + k0;
#pragma omp simd
      for (int b = 0; b < len; ++b) {
        const Shifted v{vx[b], vy[b], vz[b], usq[b]};
        post[b] = relaxed(c, i, fi[b], rho[b], v);
        post_o[b] = relaxed(c, o, fo[b], rho[b], v);
      }
      store_run(out + i * stride + k0 + off[i], post, len);
      if (o != i) store_run(out + o * stride + k0 + off[o], post_o, len);
    }
  }
}

// psi of the cells of row (y, z): psi_cell's sum (the populations added in
// direction order to 0), made a direction at a time over the row, so that
// the row's 19 direction arrays are read one after the other, each as one
// run of consecutive addresses, and the additions are vector operations.
void psi_row(const Grid& g, const Coeffs& c, const double* f, const std::uint8_t* solid, double* psi, int y, int z) {
  const long row = long(g.nx) * (y + long(g.ny) * z);
  double* out = psi + row;
  for (int x = 0; x < g.nx; ++x) out[x] = 0;
  for (int i = 0; i < Q; ++i) {
    const double* fi = f + i * g.stride + row;
#pragma omp simd
    for (int x = 0; x < g.nx; ++x) out[x] += fi[x];
  }
  const double wall = pseudo_potential(c.rho_solid);
  for (int x = 0; x < g.nx; ++x) out[x] = solid[row + x] ? wall : pseudo_potential(out[x]);
}

// Force, collision and push (with bounce-back) of the fluid cells of row
// (y, z); an open row's inner cells take open_row, every other cell the
// general form.
void fn_row(const Grid& g, const Coeffs& c, const std::uint8_t* solid, const std::uint8_t* open, const double* f,
            double* out, const double* psi, int y, int z, double* buf) {
  const long stride = g.stride;
  const long row = long(g.nx) * (y + long(g.ny) * z);
  const auto general = [&](int x) {
    const long k = row + x;
    if (solid[k]) return;
    int nb[Q];
    neighbour_indices(g, x, y, z, nb);
    fn_push_bounce(c, f, out, stride, solid, psi, k, nb);
  };
  if (!open[std::size_t(y + long(g.ny) * z)]) {
    for (int x = 0; x < g.nx; ++x) general(x);
    return;
  }
  general(0);
  int off[Q];
  row_offsets(g, y, z, off);
  open_row(c, g, f, out, psi, row, off, buf);
  general(g.nx - 1);
}

// Rows of a y block: about 512 KB of populations, so that a block's
// populations read for psi are read again for the collision, one plane
// later, from the core's cache rather than from memory (two blocks' worth,
// the one read for psi and the one collided, stay within a core's L2).
int block_rows(const Grid& g) { return int(std::clamp((1L << 19) / (long(g.nx) * Q * 8), 1L, long(g.ny))); }

// One step: psi of every cell, then force, collision and push (with
// bounce-back) of every fluid cell, in one sweep that reads the lattice once
// from memory. Each thread owns a slab of z planes. It first sets psi of its
// slab's first and last planes (the planes its neighbours' collisions read);
// after a barrier it takes its slab by blocks of rows (block_rows), each
// block through every plane of the slab, setting psi of the block's rows
// (and of the rows beside it) one plane ahead of the collision that needs
// them. Every psi is set by the thread that owns its plane, before any
// thread reads it; the values are the two-pass form's, cell by cell.
void reference_step(const Grid& g, const Coeffs& c, const std::uint8_t* solid, const std::uint8_t* open,
                    const double* f, double* out, double* psi) {
  const int rows = block_rows(g);
  // Block 0 sets row ny - 1 (its lower neighbour row, across the periodic
  // face) first where that row is not one of its own or their upper neighbour.
  const bool wrap_first = rows < g.ny - 1;
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), threads = omp_get_num_threads();
    const int z0 = int(long(g.nz) * t / threads), z1 = int(long(g.nz) * (t + 1) / threads);
    for (int z = z0; z < z1; z += std::max(1, z1 - 1 - z0))
      for (int y = 0; y < g.ny; ++y) psi_row(g, c, f, solid, psi, y, z);
    AlignedArray<double> buf(std::size_t(chunk_runs * chunk_cells));
    // For each plane of the slab, the rows 0 .. next - 1 whose psi is set.
    std::vector<int> next(std::size_t(std::max(0, z1 - z0)), 0);
#pragma omp barrier
    for (int yb = 0; yb < g.ny; yb += rows) {
      const int ye = std::min(yb + rows, g.ny);
      for (int z = z0; z < z1; ++z) {
        const int pz = z + 1;  // the plane ahead: its rows yb - 1 .. ye (periodic)
        if (pz > z0 && pz < z1 - 1) {
          int& done = next[std::size_t(pz - z0)];
          if (yb == 0 && wrap_first) psi_row(g, c, f, solid, psi, g.ny - 1, pz);
          const int last = std::min(ye, wrap_first ? g.ny - 2 : g.ny - 1);
          for (; done <= last; ++done) psi_row(g, c, f, solid, psi, done, pz);
        }
        for (int y = yb; y < ye; ++y) fn_row(g, c, solid, open, f, out, psi, y, z, buf.data());
      }
    }
    store_fence();  // the streaming stores visible to every thread after the region's barrier
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

void copy_state(const double* from, double* to, long n) {
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) to[i] = from[i];
}

LbmInstance::Reference::Reference(const LbmInstance& s) {
  const long n = s.grid.stride * Q;
  lat[0] = AlignedArray<double>(std::size_t(n));
  lat[1] = AlignedArray<double>(std::size_t(n));
  psi = AlignedArray<double>(std::size_t(s.grid.stride));
  open = open_rows(s.grid, s.solid.data());
  const double state_bytes = double(n) * sizeof(double);
  keep_limit = std::size_t(std::clamp(0.25 * host_info().available_bytes / state_bytes, 0.0, 8.0));
}

void LbmInstance::Reference::write_frame(const LbmInstance& s, long step) {
  const std::string name = case_name(s.p.kind);
  const std::string file = fmt::format("lbm_{}_{:06d}.vti", name, step);
  vtk::write_vti((std::filesystem::path(s.p.out_dir) / file).string(), image_of(s, lat[cur].data()));
  // A step run again (from a kept state or the start) rewrites its frame, listed once.
  const auto at = std::lower_bound(frames.begin(), frames.end(), std::pair{double(step), std::string()});
  if (at == frames.end() || at->first != double(step)) frames.emplace(at, double(step), file);
  vtk::write_pvd((std::filesystem::path(s.p.out_dir) / fmt::format("lbm_{}.pvd", name)).string(), frames);
}

void LbmInstance::Reference::keep(long needed) {
  if (steps <= 0 || kept.count(steps) || keep_limit == 0) return;
  if (kept.size() >= keep_limit) {
    if (kept.begin()->first > steps || kept.begin()->first == needed) return;
    kept.erase(kept.begin());
  }
  AlignedArray<double> state{std::size_t(lattice())};
  copy_state(lat[cur].data(), state.data(), lattice());
  kept.emplace(steps, std::move(state));
}

void LbmInstance::Reference::restart(const LbmInstance& s, long from, bool vtk) {
  if (from > 0) {
    copy_state(kept.at(from).data(), lat[cur].data(), lattice());
    steps = from;
    return;
  }
  s.initial_state(lat[0].data());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  double* poisoned = lat[1].data();
  const long n = lattice();
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) poisoned[i] = nan;  // first touch in parallel, as copy_state
  cur = 0;
  steps = 0;
  if (vtk) write_frame(s, 0);
}

void LbmInstance::Reference::advance(const LbmInstance& s, long total_steps, bool vtk) {
  const bool tty = isatty(2) == 1;
  const double t0 = omp_get_wtime();
  const long first = steps;
  double last_print = t0;
  while (steps < total_steps) {
    // Repetition boundaries within reach of the kept states' number: where
    // a variant stopped short by its budget is validated.
    if (steps % s.p.steps == 0 && total_steps - steps <= long(keep_limit) * s.p.steps) keep(-1);
    reference_step(s.grid, s.coeffs, s.solid.data(), open.data(), lat[cur].data(), lat[cur ^ 1].data(), psi.data());
    cur ^= 1;
    ++steps;
    ++computed;
    if (vtk && steps % s.p.vtk_every == 0) write_frame(s, steps);
    const double now = omp_get_wtime();
    if (tty && now - t0 > 3.0 && now - last_print > 1.0) {
      const double rate = double(steps - first) * s.grid.n / (now - t0);
      fmt::print(stderr, "\rlbm reference: step {}/{}, {:.1f} MLUPS, {:.0f} s left   ", steps, total_steps,
                 rate / 1e6, double(total_steps - steps) * s.grid.n / rate);
      last_print = now;
    }
  }
  if (tty && last_print > t0) fmt::print(stderr, "\n");
}

const double* LbmInstance::reference_state(long total_steps) const {
  if (!ref_) ref_ = std::make_shared<Reference>(*this);
  Reference& r = *ref_;
  const bool vtk = p.vtk_every > 0 && !p.out_dir.empty();
  // The latest state kept at or before the steps asked for.
  const auto after = r.kept.upper_bound(total_steps);
  const long from = after == r.kept.begin() ? -1 : std::prev(after)->first;
  if (r.steps == total_steps) return r.lat[r.cur].data();
  const bool behind = r.steps < 0 || r.steps > total_steps || from > r.steps;
  if (behind) r.keep(from);  // the state left behind
  // A state kept across processes (OMPREF_CACHE), where the frames need no run.
  bool overwritten = false;
  if (!vtk && load_reference_state(*this, total_steps, r.lat[r.cur].data(), overwritten)) {
    r.steps = total_steps;
    return r.lat[r.cur].data();
  }
  if (overwritten) r.steps = -1;  // an entry cut short: the state it was read over is lost
  if (r.steps < 0 || r.steps > total_steps || from > r.steps) r.restart(*this, from, vtk);
  const long first = r.steps;
  r.advance(*this, total_steps, vtk);
  if (r.steps > first) store_reference_state(*this, total_steps, r.lat[r.cur].data());
  return r.lat[r.cur].data();
}

long LbmInstance::reference_steps_computed() const { return ref_ ? ref_->computed : 0; }

}  // namespace ompref::lbm
