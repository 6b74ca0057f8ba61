#pragma once
// mesh: GMlib's unstructured-mesh access patterns on a tetrahedral mesh.
//
// Data layout, shared by host and target variants (all arrays contiguous):
//   crd[3 nv]            vertex coordinates, x y z per vertex
//   tet[4 nt]            tet -> vertices (0-based), positively oriented
//   tet_nbr[4 nt]        tet -> neighbour through the face opposite vertex k, -1 on the boundary
//   tri[3 ntri]          boundary/surface triangles (the boundary faces when the input has none)
//   ball_offset[nv + 1], ball_corner[4 nt]   vertex -> tets (CSR); a corner c = 4 t + k is
//                        "vertex k of tet t": c >> 2 is the tet, c & 3 its local vertex
//   bins                 the same balls degree-binned (GMlib): vertices grouped by the power of
//                        two above their degree, each bin a dense column-major matrix padded
//                        with the sentinel -1, the true degree kept per row
// Every kernel is one tag (Variant::kernel, registered with .for_kernel) that
// several variants share: model(), validate() and observables() are the
// tagged kernel's, from the kernel table in mesh_kernels.cpp.
//
// The sources: mesh.cpp (the instance and the workload), mesh_input.cpp (the
// generated cube, libMeshb data), mesh_renumber.cpp (Hilbert orders),
// mesh_topology.cpp (neighbours, balls, bins), mesh_reference.cpp (the long-
// double arithmetic of the reference, the kernels' input fields),
// mesh_kernels.cpp (the array and kernel tables; from them per kernel:
// outputs, device data, model, observables; the sizes of every array and the
// memory estimates), mesh_checks.cpp (per kernel: reference, check, totals).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/mesh/mesh_array.hpp"
#include "common/mesh/mesh_element.hpp"
#include "common/io/meshb.hpp"
#include "common/registry.hpp"

namespace ompref::mesh {

enum class Renumber { none, hilbert, hilbert_degree, random };
// The names of the orderings (--renumber, the "renumber" parameter): the one table.
inline const std::vector<std::pair<std::string, Renumber>> renumber_names{
    {"none", Renumber::none}, {"hilbert", Renumber::hilbert}, {"hilbert-degree", Renumber::hilbert_degree},
    {"random", Renumber::random}};

// Scalar of the direct kernel (x += v * dt) and relaxation of the smoothing.
constexpr double direct_dt = 1e-3;
constexpr double smoothing_omega = 0.5;
constexpr std::int32_t ball_sentinel = -1;
// Blocks of the two-level reduction (reduce_blocks): one partial result per block.
constexpr int reduce_blocks = 1024;

struct Bins {
  explicit Bins(Memory memory = Memory::pageable)
      : first(array_in<std::int32_t>(memory)), count(array_in<std::int32_t>(memory)),
        width(array_in<std::int32_t>(memory)), offset(array_in<std::int64_t>(memory)),
        vertex(array_in<std::int32_t>(memory)), degree(array_in<std::int32_t>(memory)),
        corner(array_in<std::int32_t>(memory)) {}
  // Per bin (ascending width): first row, rows, width (a power of two), offset of its matrix.
  Array<std::int32_t> first, count, width;
  Array<std::int64_t> offset;
  // Per row, in bin order: its vertex and its true degree.
  Array<std::int32_t> vertex, degree;
  // The matrices: entry j of row r of bin b at offset[b] + j * count[b] + (r - first[b]).
  Array<std::int32_t> corner;
  std::int32_t rows() const { return first.empty() ? 0 : first.back() + count.back(); }
  int bin_count() const { return int(first.size()); }
};

struct Reductions {
  double volume_sum, volume_min, volume_max;
  double quality_sum, quality_max;
  MinLoc quality_min;
};

// The block partials of the two-level reduction (6 per block: volume sum, min,
// max, quality sum, max, min; and the argmin), combined in block order.
Reductions combine_blocks(const double* partial, const std::int64_t* argmin, int blocks);

// A tetrahedral mesh as read or generated, before topology.
struct RawMesh {
  Array<double> crd;
  Array<std::int32_t> tet, tri;
  std::string source;  // "cube 8", "file.meshb"
};

// The unit cube cut into n^3 hexahedra of 6 tetrahedra each (Kuhn's split along
// the main diagonal: shared vertices, every tet positively oriented, volume h^3/6).
// `jitter` in [0, 0.15] moves interior vertices by up to jitter * h per coordinate
// (deterministic, from the vertex's lexicographic index): the volume stays 1.
RawMesh make_cube(int n, double jitter);
// Tetrahedra and triangles (and vertices) of a libMeshb mesh.
RawMesh from_meshb(const meshb::MeshData& data, const std::string& name);
meshb::MeshData to_meshb(const RawMesh& raw);

// The 63-bit Hilbert key of a point of [0, 2^bits)^3 (bits <= 21).
std::uint64_t hilbert_key(std::uint32_t x, std::uint32_t y, std::uint32_t z, int bits);

// The bounding box of points stored x y z per point.
struct Box {
  double lo[3], hi[3];
};
Box bounding_box(const Array<double>& crd);

// The sizes every array of an instance follows from: the counts of a mesh.
// Before anything is allocated (Workload::check) they are known or bounded
// (counts_before_topology); an instance gives its own (MeshInstance::counts).
struct MeshCounts {
  std::int64_t nv = 0, nt = 0;
  std::int64_t ntri = 0;      // boundary triangles
  std::int64_t binned = 0;    // entries of the degree-binned matrices (padding included)
  std::int64_t bins = 0;      // degree bins
};
// nv vertices, nt tets and ntri triangles (-1: not known, the boundary faces
// of the tets are taken) before topology: the bins bounded (a row's width is
// below twice its degree, at most 32 bins).
MeshCounts counts_before_topology(double nv, double nt, double ntri);

// Memory the instance takes on the host, and at most on a device while one
// kernel's device data is mapped: from the array table of mesh_kernels.cpp,
// whose sizes the instance allocates and the kernels' device data map.
double host_bytes_for(const MeshCounts& counts);
double device_bytes_for(const MeshCounts& counts);
// The bytes kernel `tag`'s device data maps at these counts (0: no such kernel).
double kernel_device_bytes(const std::string& tag, const MeshCounts& counts);
// Every kernel tag of the kernel table, in its order.
std::vector<std::string> kernel_tags();

class MeshInstance final : public Instance {
 public:
  // `mapped`: where the arrays a kernel maps to a device live (page-locked
  // where target variants will run on a device: common/host_memory.hpp).
  MeshInstance(RawMesh raw, Renumber renumber, Memory mapped = Memory::pageable);
  nlohmann::json params() const override;
  Model model(const std::string& kernel) const override;
  void reset() override;
  Check validate(int repetitions, const std::string& kernel) const override;
  nlohmann::json observables(const std::string& kernel) const override;
  MeshCounts counts() const;

  // Where the arrays that kernels map live (the others are pageable).
  const Memory mapped;

  // ---- Inputs: the mesh (read by the kernels, written by none).
  std::int64_t nv = 0, nt = 0, ntri = 0;
  Array<double> crd = array_in<double>(mapped);               // 3 nv
  Array<std::int32_t> tet = array_in<std::int32_t>(mapped);   // 4 nt
  Array<std::int32_t> tri;                                    // 3 ntri
  Array<std::int32_t> vertex_origin, tet_origin;              // new index -> index before renumbering

  // ---- Inputs: its topology (mesh_topology.cpp).
  Array<std::int32_t> tet_nbr = array_in<std::int32_t>(mapped);      // 4 nt
  Array<std::int32_t> ball_offset = array_in<std::int32_t>(mapped);  // nv + 1
  Array<std::int32_t> ball_corner = array_in<std::int32_t>(mapped);  // 4 nt
  Bins bins{mapped};

  // ---- Inputs: fields per vertex or tet, set once from the host reference
  // (mesh_reference.cpp).
  Array<double> vel = array_in<double>(mapped);      // 3 nv: direct
  Array<double> centre = array_in<double>(mapped);   // 3 nt: transverse, upward
  Array<double> volume = array_in<double>(mapped);   // nt: reduce
  Array<double> quality = array_in<double>(mapped);  // nt: reduce
  double extent = 1;            // bounding-box diagonal: the scale of coordinate errors

  // ---- Outputs: each kernel's arrays, declared by its row of the kernel
  // table (mesh_kernels.cpp: name and size), allocated by the constructor and
  // NaN-poisoned by reset(). A kernel takes its own by name:
  // `double* spread = m.output("spread").data();`. An unknown name throws.
  // The writable form is the only way to an output's elements: reset()
  // poisons again only the outputs handed out writable since it last ran.
  Array<double>& output(const std::string& name);
  const Array<double>& output(const std::string& name) const;
  std::vector<std::string> output_names() const;
  // ... and the reduction's scalars.
  Reductions red{};

  // ---- Working arrays of one variant, device-only (mapped to the device,
  // never brought back; declared in the kernel table's rows as scratch).
  Array<double> corner_tmp = array_in<double>(mapped);                // 4 nt: the scatter's per-corner temporaries (lumped_scatter_gather)
  Array<double> block_partial = array_in<double>(mapped);             // 6 per block: the two-level reduction's partials (reduce)
  Array<std::int64_t> block_argmin = array_in<std::int64_t>(mapped);  // 1 per block

  // ---- The host reference (long double arithmetic, rounded once): each
  // kernel's expected outputs under the outputs' names, computed by its row's
  // reference function; the totals every kernel's observables print.
  const Array<double>& expected(const std::string& name) const;
  Array<double>& expected(const std::string& name);  // made on first use, by a reference function
  long double ref_volume_sum = 0, ref_quality_sum = 0;
  double ref_volume_min = 0, ref_volume_max = 0, ref_quality_max = 0;
  MinLoc ref_quality_min{0, -1};
  long double ref_lumped_moment = 0;  // sum of lumped(v) |x_v|^2: a renumbering-invariant checksum

 private:
  void renumber_mesh(RawMesh& raw, Renumber renumber);
  void build_topology();
  void build_bins();
  void compute_inputs();
  void compute_kernels();  // outputs allocated, references computed: the kernel table's rows

  std::string source_;
  std::map<std::string, Array<double>> outputs_, expected_;
  std::map<std::string, bool> poisoned_;  // per output: untouched since reset() poisoned it
  Renumber renumber_;
};

struct MeshOptions {
  int cube = 0;          // 0: from --size
  double jitter = 0;
  std::string file;      // --mesh
  Renumber renumber = Renumber::none;
};

// The checks of make_instance (options, the file's type, size and header, the
// cube's indices and memory), allocating nothing.
void check_instance(const MeshOptions& options, const std::string& size, const MemoryLimits& limits);
std::unique_ptr<MeshInstance> make_instance(const MeshOptions& options, const std::string& size,
                                            const MemoryLimits& limits);
// A --mesh file read whole and checked (format, element and vertex numbers,
// coordinates, indices and memory): every error of the file, as make_instance
// would meet it.
RawMesh load_file(const std::string& file, const MemoryLimits& limits);

}  // namespace ompref::mesh
