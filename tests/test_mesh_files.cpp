// mesh from files: the workload reads a libMeshb file (boundary triangles made
// when it has none), and the gmsh meshes of inputs/mesh run every variant.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "common/mesh/mesh.hpp"
#include "common/io/meshb.hpp"
#include "test_mesh_support.hpp"

namespace ompref::mesh {
namespace {

using ompref::testing::run_one;
using testing::cube;
using testing::test_limits;
using testing::triangle_neighbours;

TEST(Meshb, MeshWorkloadReadsAFile) {
  auto m = cube(3, "none", 0.1);
  const std::string path = std::string("/tmp/ompref_test_cube_") + std::to_string(::getpid()) + ".meshb";
  meshb::write_file(to_meshb(RawMesh{m->crd, m->tet, {}, "x"}), path, 2, false);
  MeshOptions o;
  o.file = path;
  o.renumber = Renumber::hilbert;
  auto f = make_instance(o, "tiny", test_limits());
  std::remove(path.c_str());
  EXPECT_EQ(f->nt, m->nt);
  EXPECT_NEAR(double(f->ref_volume_sum), 1.0, 1e-12);
  EXPECT_EQ(f->ntri, m->ntri) << "boundary triangles are made when the file has none";
  RunResult r = run_one(*f, "mesh", "target_transverse", "file", 1, 0);
  EXPECT_TRUE(r.check.valid) << r.check.detail;
}

TEST(Meshb, GmshMeshesRunEveryVariant) {
  // inputs/mesh: made by gmsh 4.8.4 (make_meshes.sh), .meshb by ompref-meshb-convert.
  const std::string dir = std::string(OMPREF_SOURCE_DIR) + "/inputs/mesh/";
  for (const char* name : {"sphere", "cylinder"}) {
    const meshb::MeshData ascii = meshb::read_file(dir + name + ".mesh");
    const meshb::MeshData binary = meshb::read_file(dir + name + ".meshb");
    EXPECT_TRUE(ascii == binary) << name;
    MeshOptions o;
    o.file = dir + name + ".meshb";
    o.renumber = Renumber::hilbert;
    auto m = make_instance(o, "file", test_limits());
    EXPECT_GT(m->nt, 10000) << name;
    EXPECT_GT(m->ref_volume_min, 0.0) << name << ": positively oriented";
    EXPECT_GT(m->ref_quality_min.value, 0.05) << name;
    std::int64_t open_edges = 0;
    for (std::int32_t u : triangle_neighbours(*m)) open_edges += u < 0;
    EXPECT_EQ(open_edges, 0) << name << ": the boundary surface is closed";
    for (const Variant* v : ompref::testing::runnable_variants("mesh")) {
      RunResult r = run_one(*m, "mesh", v->name, "file", 1, 0);
      EXPECT_TRUE(r.check.valid) << name << " " << v->name << ": " << r.check.detail;
    }
  }
  MeshOptions o;
  o.file = dir + "sphere.mesh";
  auto sphere = make_instance(o, "file", test_limits());
  const double ball = 4.0 / 3.0 * 3.14159265358979323846;
  EXPECT_NEAR(double(sphere->ref_volume_sum), ball, 0.02 * ball) << "inscribed polyhedron of the unit ball";
  EXPECT_LT(double(sphere->ref_volume_sum), ball);
}

}  // namespace
}  // namespace ompref::mesh
