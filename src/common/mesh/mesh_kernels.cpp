// mesh: the kernels as the instance sees them, from two tables:
//  - the array table: every array of an instance that is not a kernel's
//    output, its size from the mesh's counts and where the instance keeps it;
//  - the kernel table, one row per tag (the tag a variant registers with
//    .for_kernel, printed as the observables' "kernel"): the arrays it reads,
//    its outputs (name and size: the instance allocates them, reset() poisons
//    them), the device-only scratch of its variants, the bytes and flops of
//    its model, the reference of its outputs, its check and the totals it
//    reports (those three per kernel in mesh_checks.cpp).
// A kernel's device data (kernel_data, what the runner maps for its variants)
// and the memory checked before anything is allocated (device_bytes_for,
// host_bytes_for) are both read from these two tables, so they cannot differ.
// The variants of one kernel (one or two reduction levels) share its row: that
// is what makes them comparable.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/mesh/mesh.hpp"
#include "common/mesh/mesh_data.hpp"
#include "common/mesh/mesh_checks.hpp"
#include "common/validation.hpp"

namespace ompref::mesh {
namespace {

using namespace checks;

// ---------------------------------------------------------------- the array table

// An array's size as a linear form of the mesh's counts: elements(c) =
// vertex nv + tet nt + triangle ntri + binned c.binned + bin c.bins + fixed.
struct Size {
  std::int64_t vertex = 0, tet = 0, triangle = 0, binned = 0, bin = 0, fixed = 0;
  std::int64_t elements(const MeshCounts& c) const {
    return vertex * c.nv + tet * c.nt + triangle * c.ntri + binned * c.binned + bin * c.bins + fixed;
  }
  Size operator+(const Size& o) const {
    return {vertex + o.vertex, tet + o.tet, triangle + o.triangle, binned + o.binned, bin + o.bin, fixed + o.fixed};
  }
};
Size per_vertex(std::int64_t k) { return {k, 0, 0, 0, 0, 0}; }
Size per_tet(std::int64_t k) { return {0, k, 0, 0, 0, 0}; }
Size per_triangle(std::int64_t k) { return {0, 0, k, 0, 0, 0}; }
Size per_binned(std::int64_t k) { return {0, 0, 0, k, 0, 0}; }
Size per_bin(std::int64_t k) { return {0, 0, 0, 0, k, 0}; }
Size fixed(std::int64_t k) { return {0, 0, 0, 0, 0, k}; }

// Where the instance keeps an array: its start and its bytes, as allocated.
struct Block {
  char* data;
  std::int64_t bytes;
};
template <class T>
Block block(Array<T>& v) {
  return {reinterpret_cast<char*>(v.data()), std::int64_t(v.size() * sizeof(T))};
}

struct ArraySpec {
  const char* name;
  Size size;
  std::int64_t element_bytes;
  Block (*of)(MeshInstance&);
};

constexpr std::int64_t i32 = 4, i64 = 8, f64 = 8;

// Every array of an instance but the kernels' outputs (those are the rows').
const ArraySpec array_table[] = {
    // the mesh
    {"crd", per_vertex(3), f64, [](MeshInstance& m) { return block(m.crd); }},
    {"tet", per_tet(4), i32, [](MeshInstance& m) { return block(m.tet); }},
    {"tri", per_triangle(3), i32, [](MeshInstance& m) { return block(m.tri); }},
    {"vertex_origin", per_vertex(1), i32, [](MeshInstance& m) { return block(m.vertex_origin); }},
    {"tet_origin", per_tet(1), i32, [](MeshInstance& m) { return block(m.tet_origin); }},
    // its topology
    {"tet_nbr", per_tet(4), i32, [](MeshInstance& m) { return block(m.tet_nbr); }},
    {"ball_offset", per_vertex(1) + fixed(1), i32, [](MeshInstance& m) { return block(m.ball_offset); }},
    {"ball_corner", per_tet(4), i32, [](MeshInstance& m) { return block(m.ball_corner); }},
    {"bins.first", per_bin(1), i32, [](MeshInstance& m) { return block(m.bins.first); }},
    {"bins.count", per_bin(1), i32, [](MeshInstance& m) { return block(m.bins.count); }},
    {"bins.width", per_bin(1), i32, [](MeshInstance& m) { return block(m.bins.width); }},
    {"bins.offset", per_bin(1), i64, [](MeshInstance& m) { return block(m.bins.offset); }},
    {"bins.vertex", per_vertex(1), i32, [](MeshInstance& m) { return block(m.bins.vertex); }},
    {"bins.degree", per_vertex(1), i32, [](MeshInstance& m) { return block(m.bins.degree); }},
    {"bins.corner", per_binned(1), i32, [](MeshInstance& m) { return block(m.bins.corner); }},
    // fields from the reference
    {"vel", per_vertex(3), f64, [](MeshInstance& m) { return block(m.vel); }},
    {"centre", per_tet(3), f64, [](MeshInstance& m) { return block(m.centre); }},
    {"volume", per_tet(1), f64, [](MeshInstance& m) { return block(m.volume); }},
    {"quality", per_tet(1), f64, [](MeshInstance& m) { return block(m.quality); }},
    // scratch of one variant
    {"corner_tmp", per_tet(4), f64, [](MeshInstance& m) { return block(m.corner_tmp); }},
    {"block_partial", fixed(6 * reduce_blocks), f64, [](MeshInstance& m) { return block(m.block_partial); }},
    {"block_argmin", fixed(reduce_blocks), i64, [](MeshInstance& m) { return block(m.block_argmin); }},
};

const ArraySpec& array_named(const std::string& name) {
  for (const ArraySpec& a : array_table)
    if (name == a.name) return a;
  throw std::logic_error(fmt::format("mesh: '{}' is not in the array table", name));
}

// ---------------------------------------------------------------- the kernel table

// An output: doubles, NaN-poisoned by reset() unless it starts as an input
// array of the same size (`starts_as`: direct's positions start as crd).
struct Output {
  const char* name;
  Size size;
  const char* starts_as = nullptr;
};

constexpr const char* long_double_reference = "host long-double reference";

struct KernelSpec {
  const char* tag;
  std::vector<const char*> reads;    // from the array table: mapped to the device, released after
  std::vector<Output> writes;        // its outputs: mapped poisoned, brought back after
  std::vector<const char*> scratch;  // from the array table: device-only working arrays of its variants
  // Unique bytes the kernel must move, per vertex and per tet: each input
  // array read once, each output written once (int32 indices, double fields).
  // Layout overheads (the binned padding and row lists, the scatter's
  // temporaries, atomics' read-modify-write) are not counted: they are what
  // the variants compare.
  double bytes_per_vertex, bytes_per_tet;
  double flops_per_vertex, flops_per_tet;
  void (*reference)(MeshInstance&);  // its outputs' expected values (nullptr: its check computes them)
  const char* reference_name;
  void (*check)(const MeshInstance&, int repetitions, Validation&);
  nlohmann::json (*totals)(const MeshInstance&);  // nullptr: none
};

const std::vector<KernelSpec>& kernel_table() {
  static const std::vector<KernelSpec> table{
      {"direct", {"vel"}, {{"pos", per_vertex(3), "crd"}}, {},
       72, 0, 6, 0, nullptr, "host replay of the update", check_direct, nullptr},
      {"downward", {"tet", "crd"}, {{"out_volume", per_tet(1)}, {"out_centre", per_tet(3)}}, {},
       24, 48, 0, 45, nullptr, long_double_reference, check_downward, downward_totals},
      {"transverse", {"tet_nbr", "centre"}, {{"spread", per_tet(1)}}, {},
       0, 48, 0, 36, reference_spread, long_double_reference, check_transverse, nullptr},
      // model: the ball at its CSR size, centre, crd in; smooth out
      {"upward_csr", {"ball_offset", "ball_corner", "centre", "crd"}, {{"smooth", per_vertex(3)}}, {},
       52, 40, 9, 12, reference_smooth, long_double_reference, check_upward, nullptr},
      {"upward_binned",
       {"bins.first", "bins.count", "bins.offset", "bins.vertex", "bins.degree", "bins.corner", "centre", "crd"},
       {{"smooth", per_vertex(3)}}, {},
       52, 40, 9, 12, reference_smooth, long_double_reference, check_upward, nullptr},
      {"lumped_atomic", {"tet", "crd"}, {{"lumped", per_vertex(1)}}, {},
       32, 16, 0, 34, reference_lumped, long_double_reference, check_lumped, lumped_totals},
      {"lumped_scatter_gather", {"tet", "crd", "ball_offset", "ball_corner"}, {{"lumped", per_vertex(1)}},
       {"corner_tmp"},
       32, 16, 0, 34, reference_lumped, long_double_reference, check_lumped, lumped_totals},
      // The results are scalars (MeshInstance::red), mapped by the kernels
      // themselves; the scratch is the two-level form's block partials.
      {"reduce", {"volume", "quality"}, {}, {"block_partial", "block_argmin"},
       0, 16, 0, 6, reference_reductions, long_double_reference, check_reduce, reduce_totals},
  };
  return table;
}

const KernelSpec* find_kernel(const std::string& tag) {
  for (const KernelSpec& k : kernel_table())
    if (tag == k.tag) return &k;
  return nullptr;
}

double kernel_bytes(const KernelSpec& k, const MeshCounts& c) {
  double bytes = 0;
  for (const char* name : k.reads) bytes += double(array_named(name).size.elements(c) * array_named(name).element_bytes);
  for (const Output& o : k.writes) bytes += double(o.size.elements(c) * f64);
  for (const char* name : k.scratch) bytes += double(array_named(name).size.elements(c) * array_named(name).element_bytes);
  return bytes;
}

// Each output once (rows may share one: the two ball layouts, the two lumped forms).
std::vector<const Output*> distinct_outputs() {
  std::vector<const Output*> out;
  for (const KernelSpec& k : kernel_table())
    for (const Output& o : k.writes)
      if (std::none_of(out.begin(), out.end(), [&](const Output* p) { return std::string(p->name) == o.name; }))
        out.push_back(&o);
  return out;
}

}  // namespace

// ---------------------------------------------------------------- sizes and memory

MeshCounts counts_before_topology(double nv, double nt, double ntri) {
  MeshCounts c;
  c.nv = std::int64_t(nv);
  c.nt = std::int64_t(nt);
  c.ntri = ntri >= 0 ? std::int64_t(ntri) : 4 * c.nt;
  // A vertex of degree d takes a row of the smallest power of two >= max(d, 1):
  // below 2d, or 1 for an isolated vertex; the degrees sum to 4 nt.
  c.binned = 8 * c.nt + c.nv;
  c.bins = 32;
  return c;
}

MeshCounts MeshInstance::counts() const {
  MeshCounts c;
  c.nv = nv;
  c.nt = nt;
  c.ntri = ntri;
  c.binned = std::int64_t(bins.corner.size());
  c.bins = bins.bin_count();
  return c;
}

double kernel_device_bytes(const std::string& tag, const MeshCounts& counts) {
  const KernelSpec* k = find_kernel(tag);
  return k ? kernel_bytes(*k, counts) : 0;
}

std::vector<std::string> kernel_tags() {
  std::vector<std::string> tags;
  for (const KernelSpec& k : kernel_table()) tags.push_back(k.tag);
  return tags;
}

// One kernel's device data is mapped at a time: the largest row.
double device_bytes_for(const MeshCounts& counts) {
  double most = 0;
  for (const KernelSpec& k : kernel_table()) most = std::max(most, kernel_bytes(k, counts));
  return most;
}

// Every array of the table, every output and its expected values, the
// checks' per-vertex tolerances made with the reference (3 doubles per
// vertex: reference_smooth, reference_lumped), and the largest temporary of
// making and checking an instance: the renumbering's keys and order (12
// bytes per vertex or tet), or the direct check's replay (3 doubles per
// vertex).
double host_bytes_for(const MeshCounts& counts) {
  double bytes = 3.0 * f64 * double(counts.nv);
  for (const ArraySpec& a : array_table) bytes += double(a.size.elements(counts) * a.element_bytes);
  for (const Output* o : distinct_outputs()) bytes += 2.0 * double(o->size.elements(counts) * f64);
  const double temporary = std::max(12.0 * double(std::max(counts.nv, counts.nt)), 24.0 * double(counts.nv));
  return bytes + temporary;
}

// ---------------------------------------------------------------- device data

DeviceData kernel_data(MeshInstance& m, const std::string& tag) {
  const KernelSpec* k = find_kernel(tag);
  if (!k) throw std::logic_error(fmt::format("mesh: '{}' is not a kernel of the kernel table", tag));
  DeviceData d;
  for (const char* name : k->reads) {
    const Block b = array_named(name).of(m);
    d.in(static_cast<const char*>(b.data), b.bytes);
  }
  for (const Output& o : k->writes) d.out(m.output(o.name));
  // Scratch goes to the device with the inputs and is released, never brought back.
  for (const char* name : k->scratch) {
    const Block b = array_named(name).of(m);
    d.in(static_cast<const char*>(b.data), b.bytes);
  }
  return d;
}

// ---------------------------------------------------------------- the instance's outputs

const Array<double>& MeshInstance::output(const std::string& name) const {
  const auto it = outputs_.find(name);
  if (it == outputs_.end()) throw std::logic_error(fmt::format("mesh: no kernel writes an output '{}'", name));
  return it->second;
}

Array<double>& MeshInstance::output(const std::string& name) {
  const Array<double>& out = std::as_const(*this).output(name);
  poisoned_[name] = false;
  return const_cast<Array<double>&>(out);
}

std::vector<std::string> MeshInstance::output_names() const {
  std::vector<std::string> names;
  for (const auto& entry : outputs_) names.push_back(entry.first);
  return names;
}

const Array<double>& MeshInstance::expected(const std::string& name) const {
  const auto it = expected_.find(name);
  if (it == expected_.end()) throw std::logic_error(fmt::format("mesh: no reference computes '{}'", name));
  return it->second;
}

Array<double>& MeshInstance::expected(const std::string& name) { return expected_[name]; }

void MeshInstance::compute_kernels() {
  const MeshCounts c = counts();
  // corner_tmp is poisoned by reset(); the partials start as zeros.
  corner_tmp.resize(array_named("corner_tmp").size.elements(c));
  fill_array(block_partial, array_named("block_partial").size.elements(c), 0.0);
  fill_array<std::int64_t>(block_argmin, array_named("block_argmin").size.elements(c), 0);
  const std::vector<const Output*> outputs = distinct_outputs();
  for (const KernelSpec& k : kernel_table())
    for (const Output& o : k.writes) {
      const Output* first = *std::find_if(outputs.begin(), outputs.end(),
                                          [&](const Output* p) { return std::string(p->name) == o.name; });
      const std::int64_t n = o.size.elements(c);
      const bool same_start = (o.starts_as == nullptr) == (first->starts_as == nullptr);
      if (first->size.elements(c) != n || !same_start ||
          (o.starts_as && array_named(o.starts_as).size.elements(c) * array_named(o.starts_as).element_bytes != n * f64))
        throw std::logic_error(fmt::format("mesh: output '{}' of {} is declared unlike its other rows or start", o.name,
                                           k.tag));
      outputs_.try_emplace(o.name, array_in<double>(mapped)).first->second.resize(std::size_t(n));
    }
  std::vector<void (*)(MeshInstance&)> done;
  for (const KernelSpec& k : kernel_table()) {
    if (!k.reference || std::find(done.begin(), done.end(), k.reference) != done.end()) continue;
    k.reference(*this);
    done.push_back(k.reference);
  }
}

namespace {
void fill(Array<double>& a, const double* from, double value) {
  const std::int64_t n = std::int64_t(a.size());
  double* to = a.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) to[i] = from ? from[i] : value;
}
}  // namespace

// Only the outputs handed out writable since the last reset are poisoned
// again: at the cube of 256 the outputs are 5.0 GB, of which a kernel writes
// at most 3.2 GB, and every variant's run starts with a reset. The scratch
// (a public array, written by the scatter's host variants) is poisoned every
// time.
void MeshInstance::reset() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const Output* o : distinct_outputs()) {
    bool& poisoned = poisoned_[o->name];
    if (poisoned) continue;
    const double* from = o->starts_as ? reinterpret_cast<const double*>(array_named(o->starts_as).of(*this).data) : nullptr;
    fill(outputs_.at(o->name), from, nan);
    poisoned = true;
  }
  fill(corner_tmp, nullptr, nan);
  red = Reductions{nan, nan, nan, nan, nan, MinLoc{nan, -1}};
}

// ---------------------------------------------------------------- model, validation, observables

Model MeshInstance::model(const std::string& kernel) const {
  const KernelSpec* k = find_kernel(kernel);
  const double v = double(nv), t = double(nt);
  const double bytes = k ? k->bytes_per_vertex * v + k->bytes_per_tet * t : 0;
  const double flops = k ? k->flops_per_vertex * v + k->flops_per_tet * t : 0;
  return Model{bytes, flops, "GB/s", bytes / 1e9};
}

Check MeshInstance::validate(int repetitions, const std::string& kernel) const {
  const KernelSpec* k = find_kernel(kernel);
  if (!k) {
    Check c;
    c.reference = long_double_reference;
    c.detail = fmt::format("'{}' is not a mesh kernel", kernel);
    return c;
  }
  Validation v(k->reference_name);
  k->check(*this, repetitions, v);
  Check c = v.result();
  if (!c.valid) c.detail = fmt::format("{}: {}", kernel, c.detail);
  return c;
}

nlohmann::json MeshInstance::observables(const std::string& kernel) const {
  const KernelSpec* k = find_kernel(kernel);
  const nlohmann::json reference = {
      {"total_volume", double(ref_volume_sum)},
      {"quality_min", ref_quality_min.value},
      {"quality_argmin_original", tet_origin[ref_quality_min.index]},
      {"quality_max", ref_quality_max},
      {"quality_sum", double(ref_quality_sum)},
      {"lumped_moment", double(ref_lumped_moment)},
  };
  const nlohmann::json computed = k && k->totals ? k->totals(*this) : nlohmann::json::object();
  return {{"kernel", kernel},   {"vertices", nv},         {"tetrahedra", nt},
          {"triangles", ntri},  {"reference", reference}, {"computed", computed}};
}

}  // namespace ompref::mesh
