// mesh: the instance (a mesh renumbered, its topology, its reference and the
// kernels' arrays) and the workload (sizes, options, memory checks).
#include "common/mesh/mesh.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "common/usage_error.hpp"
#include "common/workload_facts.hpp"

namespace ompref::mesh {

Reductions combine_blocks(const double* part, const std::int64_t* argmin, int blocks) {
  const double inf = std::numeric_limits<double>::infinity();
  Reductions r{0, inf, -inf, 0, -inf, MinLoc{inf, std::numeric_limits<std::int64_t>::max()}};
  for (int b = 0; b < blocks; ++b) {
    r.volume_sum += part[6 * b + 0];
    r.volume_min = std::min(r.volume_min, part[6 * b + 1]);
    r.volume_max = std::max(r.volume_max, part[6 * b + 2]);
    r.quality_sum += part[6 * b + 3];
    r.quality_max = std::max(r.quality_max, part[6 * b + 4]);
    r.quality_min = minloc_better(r.quality_min, MinLoc{part[6 * b + 5], argmin[b]});
  }
  return r;
}

// ---------------------------------------------------------------- the instance

MeshInstance::MeshInstance(RawMesh raw, Renumber renumber, Memory mapped)
    : mapped(mapped), source_(raw.source), renumber_(renumber) {
  nv = std::int64_t(raw.crd.size() / 3);
  nt = std::int64_t(raw.tet.size() / 4);
  renumber_mesh(raw, renumber);
  take_array(crd, raw.crd);
  take_array(tet, raw.tet);
  tri = std::move(raw.tri);
  build_topology();
  build_bins();
  compute_inputs();
  compute_kernels();
  reset();
}

nlohmann::json MeshInstance::params() const {
  nlohmann::json bin_list = nlohmann::json::array();
  for (int b = 0; b < bins.bin_count(); ++b) bin_list.push_back({{"width", bins.width[b]}, {"rows", bins.count[b]}});
  const auto order = std::find_if(renumber_names.begin(), renumber_names.end(),
                                  [&](const auto& entry) { return entry.second == renumber_; });
  return {{"source", source_},
          {"renumber", order->first},
          {"vertices", nv},
          {"tetrahedra", nt},
          {"triangles", ntri},
          {"ball_entries", ball_corner.size()},
          {"binned_entries", bins.corner.size()},
          {"bins", bin_list}};
}

// ---------------------------------------------------------------- making an instance

namespace {

// --size: cells per edge of the generated cube (tiny finishes every variant in
// well under 2 s on 2 cores; large is 12.6 M tets, 2.1 M vertices; huge is
// 100.7 M tets, 17.0 M vertices: 28.4 GB on the host, 7.05 GB on a device, where
// each kernel moves 8x large's bytes and the fixed cost of a launch fades).
struct CubeSize {
  const char* name;
  int cells;
};
constexpr std::array<CubeSize, 5> cube_sizes{
    {{"tiny", 8}, {"small", 32}, {"medium", 96}, {"large", 128}, {"huge", 256}}};

std::vector<std::string> size_names() { return size_names_of(cube_sizes, &CubeSize::name); }

int cube_for_size(const std::string& size) { return size_row("mesh", cube_sizes, &CubeSize::name, size).cells; }

// ntri: the mesh's triangles, or -1 where they are not known yet (they become
// the boundary faces).
void check_sizes(double nv, double nt, double ntri, const std::string& what, const MemoryLimits& limits) {
  // Corners (4 t + k), vertex numbers and coordinate offsets (3 v + k) are
  // int32: the kernels index with 32-bit arithmetic (the tuned offload step,
  // the CUDA twins).
  if (4 * nt >= 2147483647.0 || 3 * nv >= 2147483647.0)
    throw UsageError(fmt::format("{}: {:.0f} tetrahedra and {:.0f} vertices exceed the 32-bit indices of this workload",
                                 what, nt, nv));
  const MeshCounts counts = counts_before_topology(nv, nt, ntri);
  limits.check_host(host_bytes_for(counts), what);
  limits.check_device(device_bytes_for(counts), what);
}

}  // namespace

void check_instance(const MeshOptions& options, const std::string& size, const MemoryLimits& limits) {
  if (!options.file.empty()) {
    if (options.cube > 0) throw UsageError("--mesh and --cube: give one of them");
    if (options.jitter != 0) throw UsageError("--jitter applies to --cube, not to --mesh");
    meshb::check_file(options.file, limits.host_bytes);
    return;
  }
  const int n = options.cube > 0 ? options.cube : cube_for_size(size);
  if (!(options.jitter >= 0 && options.jitter <= 0.15))
    throw UsageError(fmt::format("--jitter: {} is outside [0, 0.15]", options.jitter));
  const double m = double(n) + 1;
  // The cube's boundary: 2 triangles on each of the 6 n^2 cell faces.
  check_sizes(m * m * m, 6.0 * n * n * n, 12.0 * n * n, fmt::format("mesh cube {} ({:.0f} tetrahedra)", n, 6.0 * n * n * n), limits);
}

RawMesh load_file(const std::string& file, const MemoryLimits& limits) {
  meshb::check_file(file, limits.host_bytes);
  RawMesh raw;
  {
    const meshb::MeshData data = meshb::read_file(file, limits.host_bytes);
    raw = from_meshb(data, file);
  }
  check_sizes(double(raw.crd.size() / 3), double(raw.tet.size() / 4), raw.tri.empty() ? -1.0 : double(raw.tri.size() / 3),
              fmt::format("mesh {}", file), limits);
  return raw;
}


std::unique_ptr<MeshInstance> make_instance(const MeshOptions& options, const std::string& size,
                                            const MemoryLimits& limits) {
  check_instance(options, size, limits);
  if (!options.file.empty())
    return std::make_unique<MeshInstance>(load_file(options.file, limits), options.renumber, mapped_memory(limits));
  return std::make_unique<MeshInstance>(make_cube(options.cube > 0 ? options.cube : cube_for_size(size), options.jitter),
                                        options.renumber, mapped_memory(limits));
}

namespace {

// GB/s, the model's bytes / time, bytes from the counts of vertices and
// tetrahedra: comparable for the generated cube at another edge count; a
// mesh file is another problem. renumber reorders the same mesh.
Comparability mesh_comparability() {
  Comparability c{"GB/s", compared_params({"vertices", "tetrahedra", "triangles", "ball_entries", "binned_entries",
                                           "bins"},
                                          {"renumber"})};
  c.params.insert(c.params.begin(), {"source", ParamEffect::work, "cube "});
  return c;
}

class MeshWorkload final : public FactsWorkload {
 public:
  MeshWorkload() : FactsWorkload({"mesh", 3, "small", "large", mesh_comparability()}) {}
  std::vector<std::string> sizes() const override { return size_names(); }
  void add_options(CLI::App& group) override {
    group.add_option("--cube", options_.cube, "mesh: unit cube of N^3 hexahedra x 6 tetrahedra (overrides --size)")
        ->check(CLI::Range(1, 2048));
    group.add_option("--jitter", options_.jitter,
                     "mesh: move interior cube vertices by up to this fraction of a cell (0 to 0.15)")
        ->check(CLI::Range(0.0, 0.15));
    group.add_option("--mesh", options_.file, "mesh: a libMeshb .mesh or .meshb file with tetrahedra");
    std::vector<std::string> orders;
    for (const auto& [order, value] : renumber_names) orders.push_back(order);
    group.add_option("--renumber", options_.renumber, "mesh: vertex and element order")
        ->transform(CLI::CheckedTransformer(renumber_names).description(fmt::format("{{{}}}", fmt::join(orders, ","))));
  }
  // A --mesh file is read whole here, before any workload runs, so that
  // every error in it comes first; it is kept for make() unless it would
  // hold more than a quarter of the host memory while other workloads run.
  void check(const std::string& size, const MemoryLimits& limits) const override {
    check_instance(options_, size, limits);
    if (options_.file.empty()) return;
    RawMesh raw = load_file(options_.file, limits);
    const double bytes = double(raw.crd.size() * sizeof(double) + (raw.tet.size() + raw.tri.size()) * sizeof(std::int32_t));
    if (bytes < 0.25 * limits.host_bytes) loaded_ = std::move(raw);
  }
  std::unique_ptr<Instance> make(const std::string& size, const MemoryLimits& limits) override {
    if (loaded_) {
      auto instance = std::make_unique<MeshInstance>(std::move(*loaded_), options_.renumber, mapped_memory(limits));
      loaded_.reset();
      return instance;
    }
    return make_instance(options_, size, limits);
  }

 private:
  MeshOptions options_;
  mutable std::optional<RawMesh> loaded_;  // the --mesh file, read by check()
};

const Registration registration{std::make_unique<MeshWorkload>()};

}  // namespace
}  // namespace ompref::mesh
