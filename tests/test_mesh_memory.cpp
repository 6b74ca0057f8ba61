// mesh, memory: what is checked before an instance is allocated is what its
// kernels' device data map. Each kernel's declaration (kernel_data: the
// arrays of its row of the kernel table, as the instance allocated them) maps
// exactly the bytes the estimate computes from the mesh's counts; the device
// estimate is the largest of them; before topology (Workload::check) the
// estimate bounds them; every registered offload and native variant runs a
// kernel of the table.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/mesh/mesh.hpp"
#include "common/mesh/mesh_data.hpp"
#include "test_mesh_support.hpp"

namespace ompref::mesh {
namespace {

using testing::cube;
using testing::test_limits;

void expect_estimate_is_mapped(MeshInstance& m, const std::string& what) {
  const MeshCounts counts = m.counts();
  const std::vector<std::string> tags = kernel_tags();
  ASSERT_FALSE(tags.empty());
  double largest = 0;
  for (const std::string& tag : tags) {
    const double mapped = double(kernel_data(m, tag).bytes());
    EXPECT_GT(mapped, 0) << what << " " << tag;
    EXPECT_EQ(mapped, kernel_device_bytes(tag, counts)) << what << " " << tag << ": estimate and mapping differ";
    largest = std::max(largest, mapped);
  }
  EXPECT_EQ(device_bytes_for(counts), largest) << what;
  // Before topology only the counts of vertices, tets (and triangles) are
  // known: the bins are bounded, so the estimate is at least what is mapped.
  const MeshCounts before = counts_before_topology(double(m.nv), double(m.nt), double(m.ntri));
  EXPECT_GE(device_bytes_for(before), largest) << what;
  EXPECT_GE(host_bytes_for(before), host_bytes_for(counts)) << what;
  EXPECT_GT(host_bytes_for(counts), device_bytes_for(counts)) << what << ": the host holds every array";
}

TEST(MeshMemory, EveryKernelMapsTheBytesTheEstimateCounts) {
  auto plain = cube(4);
  expect_estimate_is_mapped(*plain, "cube 4");
  auto jittered = cube(5, "hilbert-degree", 0.1);
  expect_estimate_is_mapped(*jittered, "cube 5, hilbert-degree, jittered");
  MeshOptions o;
  o.file = std::string(OMPREF_SOURCE_DIR) + "/inputs/mesh/sphere.meshb";
  auto sphere = make_instance(o, "custom", test_limits());
  expect_estimate_is_mapped(*sphere, "sphere.meshb");
}

// Made for a device, the arrays the kernels map are page-locked where the
// runtime can lock them (and pageable here otherwise): either way every array
// holds the same bytes as the instance made for the host, the mesh copied
// into the instance's memory rather than taken from the generated one.
TEST(MeshMemory, AnInstanceMadeForADeviceHoldsTheSameArrays) {
  for (const Renumber order : {Renumber::none, Renumber::hilbert_degree}) {
    MeshInstance host(make_cube(5, 0.1), order);
    MeshInstance device(make_cube(5, 0.1), order, Memory::page_locked);
    EXPECT_EQ(host.mapped, Memory::pageable);
    EXPECT_EQ(device.mapped, Memory::page_locked);
    EXPECT_EQ(device.crd.get_allocator().memory(), Memory::page_locked);
    EXPECT_EQ(device.tri.get_allocator().memory(), Memory::pageable);
    for (const std::string& tag : kernel_tags()) {
      const DeviceData host_data = kernel_data(host, tag), device_data = kernel_data(device, tag);
      const auto& a = host_data.arrays();
      const auto& b = device_data.arrays();
      ASSERT_EQ(a.size(), b.size()) << tag;
      for (std::size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(a[i].bytes, b[i].bytes) << tag << " array " << i;
        EXPECT_EQ(std::memcmp(a[i].data, b[i].data, std::size_t(a[i].bytes)), 0) << tag << " array " << i;
        EXPECT_EQ(is_page_locked(b[i].data), is_page_locked(b[0].data)) << tag << " array " << i;
        EXPECT_FALSE(is_page_locked(a[i].data)) << tag << " array " << i;
      }
    }
    EXPECT_EQ(host.tri, device.tri);
    EXPECT_EQ(host.tet_origin, device.tet_origin);
    for (const char* name : {"spread", "smooth", "lumped", "lumped.magnitude"})
      EXPECT_EQ(host.expected(name), device.expected(name)) << name;
    EXPECT_EQ(host.ref_lumped_moment, device.ref_lumped_moment);
  }
}

TEST(MeshMemory, TheCubesEstimateBeforeAllocatingIsItsCounts) {
  // The cube's triangles are known before it is made (12 n^2): only the bins
  // are bounded, by 8 nt + nv entries against the 4 nt of the CSR balls.
  auto m = cube(6);
  const MeshCounts c = m->counts();
  EXPECT_EQ(c.ntri, 12 * 6 * 6);
  const MeshCounts before = counts_before_topology(double(c.nv), double(c.nt), 12.0 * 6 * 6);
  EXPECT_EQ(before.nv, c.nv);
  EXPECT_EQ(before.nt, c.nt);
  EXPECT_EQ(before.ntri, c.ntri);
  EXPECT_LE(c.binned, before.binned);
  EXPECT_GE(c.binned, 4 * c.nt) << "padding only adds";
  EXPECT_LE(c.bins, before.bins);
}

TEST(MeshMemory, EveryOffloadAndNativeVariantRunsAKernelOfTheTable) {
  const std::vector<std::string> tags = kernel_tags();
  std::size_t seen = 0;
  for (const Variant* v : registry().variants("mesh")) {
    if (v->kind == Kind::host) continue;
    EXPECT_NE(std::find(tags.begin(), tags.end(), v->kernel), tags.end()) << v->name << ": " << v->kernel;
    EXPECT_TRUE(v->enter_data && v->exit_data) << v->name;
    ++seen;
  }
  EXPECT_GT(seen, 0u);
}

TEST(MeshMemory, AnUnknownKernelOrOutputIsRefused) {
  auto m = cube(2);
  EXPECT_THROW(kernel_data(*m, "no_such_kernel"), std::logic_error);
  EXPECT_THROW(m->output("no_such_output"), std::logic_error);
  EXPECT_EQ(kernel_device_bytes("no_such_kernel", m->counts()), 0);
}

}  // namespace
}  // namespace ompref::mesh
