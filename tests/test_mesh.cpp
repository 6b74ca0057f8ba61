// mesh: every variant validates; the cube's volume, the lumped volumes, host vs
// target, Hilbert renumbering, topology and the ball layouts are checked against
// what they must be; validation catches corrupted outputs; the libMeshb reader
// round-trips every version and byte order and refuses bad files with a UsageError.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <set>

#include <gtest/gtest.h>
#include <omp.h>
#include <unistd.h>

#include "common/mesh.hpp"
#include "common/mesh_element.hpp"
#include "common/meshb.hpp"
#include "common/usage_error.hpp"
#include "test_support.hpp"

namespace ompref::mesh {
namespace {

using ompref::testing::count_lines;
using ompref::testing::run_ompref;
using ompref::testing::run_one;
using ompref::testing::test_limits;

std::unique_ptr<MeshInstance> cube(int n, const std::string& renumber = "none", double jitter = 0) {
  MeshOptions o;
  o.cube = n;
  o.jitter = jitter;
  o.renumber = renumber;
  return make_instance(o, "custom", test_limits());
}

const char* const kernels[] = {"direct",        "downward",      "transverse",          "ball_csr",
                               "ball_binned",   "lumped_atomic", "lumped_scatter_gather", "reduce", "reduce_blocks"};

TEST(Mesh, EveryVariantPassesAtTiny) {
  auto variants = registry().variants("mesh");
  ASSERT_EQ(variants.size(), 18u);
  MeshOptions o;
  auto m = make_instance(o, "tiny", test_limits());
  EXPECT_EQ(m->nt, 3072);
  for (const Variant* v : variants) {
    RunResult r = run_one(*m, "mesh", v->name, "tiny", 2, 1);
    EXPECT_TRUE(r.check.valid) << v->name << ": " << r.check.detail;
    EXPECT_NE(m->last, Kernel::none) << v->name;
    EXPECT_GT(r.model.bytes, 0) << v->name;
    EXPECT_DOUBLE_EQ(r.model.bytes, m->model_of(m->last).bytes) << v->name << ": the model is the kernel's";
  }
}

TEST(Mesh, EachVariantRunsItsOwnKernel) {
  auto m = cube(3);
  for (const char* k : kernels) {
    for (const char* kind : {"host_", "target_"}) {
      const std::string name = std::string(kind) + k;
      run_one(*m, "mesh", name, "custom", 1, 0);
      std::string ran = kernel_name(m->last);
      std::string want = k;
      if (want == "ball_csr") want = "upward_csr";
      if (want == "ball_binned") want = "upward_binned";
      if (want == "reduce_blocks") want = "reduce";
      EXPECT_EQ(ran, want) << name;
    }
  }
}

// ---------------------------------------------------------------- the numbers

TEST(Mesh, UnitCubeHasVolumeOne) {
  for (int n : {1, 3, 8}) {
    auto m = cube(n);
    EXPECT_NEAR(double(m->ref_volume_sum), 1.0, 1e-12) << n;
    EXPECT_EQ(m->nt, 6 * n * n * n);
    EXPECT_EQ(m->nv, (n + 1) * (n + 1) * (n + 1));
    for (std::int64_t t = 0; t < m->nt; ++t) ASSERT_NEAR(m->volume[t], 1.0 / (6.0 * n * n * n), 1e-15) << "tet " << t;
    run_one(*m, "mesh", "host_reduce", "custom", 1, 0);
    EXPECT_NEAR(m->red.volume_sum, 1.0, 1e-12);
  }
}

TEST(Mesh, JitteredCubeKeepsVolumeOneAndPositiveTets) {
  auto plain = cube(6);
  auto m = cube(6, "none", 0.15);
  EXPECT_NEAR(double(m->ref_volume_sum), 1.0, 1e-12);
  EXPECT_GT(m->ref_volume_min, 0.0);
  double moved = 0;
  for (std::size_t i = 0; i < m->crd.size(); ++i) moved = std::max(moved, std::fabs(m->crd[i] - plain->crd[i]));
  EXPECT_GT(moved, 0.01 / 6) << "jitter must move the interior";
  EXPECT_LE(moved, 0.15 / 6 + 1e-15);
  EXPECT_LT(m->ref_quality_min.value, plain->ref_quality_min.value);
  for (const Variant* v : registry().variants("mesh")) {
    RunResult r = run_one(*m, "mesh", v->name, "custom", 1, 0);
    EXPECT_TRUE(r.check.valid) << v->name << ": " << r.check.detail;
  }
}

TEST(Mesh, QualityIsOneForTheRegularTetAndTwoMinusSqrt2ForKuhns) {
  const double a[3] = {1, 1, 1}, b[3] = {1, -1, -1}, c[3] = {-1, -1, 1}, d[3] = {-1, 1, -1};  // positive
  EXPECT_NEAR(tet_quality(a, b, c, d), 1.0, 1e-14);
  EXPECT_NEAR(tet_volume(a, b, c, d), 8.0 / 3.0, 1e-14);
  EXPECT_NEAR(tet_quality(a, b, d, c), -1.0, 1e-14) << "inverted: negative";
  auto m = cube(2);
  EXPECT_NEAR(m->ref_quality_min.value, 2 - std::sqrt(2.0), 1e-14);
  EXPECT_NEAR(m->ref_quality_max, 2 - std::sqrt(2.0), 1e-14);
}

TEST(Mesh, LumpedVolumesSumToTheTotalAndAgreeAcrossMethods) {
  auto m = cube(5, "none", 0.1);
  std::vector<std::vector<double>> got;
  for (const char* name : {"host_lumped_atomic", "host_lumped_scatter_gather", "target_lumped_atomic",
                           "target_lumped_scatter_gather"}) {
    RunResult r = run_one(*m, "mesh", name, "custom", 2, 0);
    ASSERT_TRUE(r.check.valid) << name << ": " << r.check.detail;
    long double sum = 0;
    for (double x : m->lumped) sum += x;
    EXPECT_NEAR(double(sum), double(m->ref_volume_sum), 1e-12) << name;
    got.push_back(m->lumped);
  }
  for (const auto& g : got)
    for (std::int64_t v = 0; v < m->nv; ++v)
      ASSERT_NEAR(g[v], m->ref_lumped[v], 1e-12 * std::fabs(m->ref_lumped[v])) << "vertex " << v;
}

// Every output array of a kernel, copied after a run.
std::vector<double> outputs_of(const MeshInstance& m) {
  std::vector<double> out;
  switch (m.last) {
    case Kernel::direct: out = m.pos; break;
    case Kernel::downward:
      out = m.out_volume;
      out.insert(out.end(), m.out_centre.begin(), m.out_centre.end());
      break;
    case Kernel::transverse: out = m.spread; break;
    case Kernel::upward_csr:
    case Kernel::upward_binned: out = m.smooth; break;
    case Kernel::lumped_atomic:
    case Kernel::lumped_scatter_gather: out = m.lumped; break;
    case Kernel::reduce:
      out = {m.red.volume_sum, m.red.volume_min, m.red.volume_max, m.red.quality_sum, m.red.quality_max,
             m.red.quality_min.value, double(m.red.quality_min.index)};
      break;
    case Kernel::none: break;
  }
  return out;
}

TEST(Mesh, HostAndTargetAgreeOnEveryKernel) {
  auto m = cube(5, "hilbert", 0.1);
  for (const char* k : kernels) {
    run_one(*m, "mesh", std::string("host_") + k, "custom", 2, 0);
    const std::vector<double> host = outputs_of(*m);
    run_one(*m, "mesh", std::string("target_") + k, "custom", 2, 0);
    const std::vector<double> target = outputs_of(*m);
    ASSERT_EQ(host.size(), target.size()) << k;
    ASSERT_FALSE(host.empty()) << k;
    for (std::size_t i = 0; i < host.size(); ++i)
      ASSERT_NEAR(host[i], target[i], 1e-12 * std::max(1.0, std::fabs(host[i]))) << k << " output " << i;
  }
  // The two ball layouts give the same smoothing.
  run_one(*m, "mesh", "host_ball_csr", "custom", 1, 0);
  const std::vector<double> csr = m->smooth;
  run_one(*m, "mesh", "host_ball_binned", "custom", 1, 0);
  for (std::int64_t i = 0; i < 3 * m->nv; ++i) ASSERT_DOUBLE_EQ(csr[i], m->smooth[i]) << i;
}

// ---------------------------------------------------------------- renumbering

TEST(Mesh, HilbertKeyWalksTheGridOneStepAtATime) {
  const int bits = 3, side = 1 << bits;
  std::vector<std::pair<std::uint64_t, int>> cells;
  for (int z = 0; z < side; ++z)
    for (int y = 0; y < side; ++y)
      for (int x = 0; x < side; ++x) cells.push_back({hilbert_key(x, y, z, bits), x + side * (y + side * z)});
  std::sort(cells.begin(), cells.end());
  for (int i = 0; i < side * side * side; ++i) ASSERT_EQ(cells[i].first, std::uint64_t(i)) << "keys are a bijection";
  for (int i = 1; i < side * side * side; ++i) {
    int a = cells[i - 1].second, b = cells[i].second;
    int dist = std::abs(a % side - b % side) + std::abs(a / side % side - b / side % side) + std::abs(a / side / side - b / side / side);
    ASSERT_EQ(dist, 1) << "step " << i;
  }
}

TEST(Mesh, RenumberingLeavesEveryResultUnchanged) {
  auto base = cube(6, "none", 0.1);
  for (const char* order : {"hilbert", "hilbert-degree", "random"}) {
    auto m = cube(6, order, 0.1);
    ASSERT_EQ(m->nv, base->nv);
    EXPECT_NEAR(double(m->ref_volume_sum), double(base->ref_volume_sum), 1e-14) << order;
    EXPECT_NEAR(double(m->ref_quality_sum), double(base->ref_quality_sum), 1e-12 * double(base->ref_quality_sum)) << order;
    EXPECT_EQ(m->ref_quality_min.value, base->ref_quality_min.value) << order;
    EXPECT_EQ(m->tet_origin[m->ref_quality_min.index], base->ref_quality_min.index) << order;
    EXPECT_EQ(m->ref_quality_max, base->ref_quality_max) << order;
    EXPECT_NEAR(double(m->ref_lumped_moment), double(base->ref_lumped_moment), 1e-14) << order;
    // Vertex by vertex, through the permutation, on the computed outputs.
    run_one(*m, "mesh", "target_lumped_scatter_gather", "custom", 1, 0);
    run_one(*base, "mesh", "host_lumped_atomic", "custom", 1, 0);
    for (std::int64_t v = 0; v < m->nv; ++v)
      ASSERT_NEAR(m->lumped[v], base->lumped[m->vertex_origin[v]], 1e-12 * base->lumped[m->vertex_origin[v]]) << order;
    run_one(*m, "mesh", "host_ball_binned", "custom", 1, 0);
    run_one(*base, "mesh", "host_ball_csr", "custom", 1, 0);
    for (std::int64_t v = 0; v < m->nv; ++v)
      for (int k = 0; k < 3; ++k)
        ASSERT_NEAR(m->smooth[3 * v + k], base->smooth[3 * m->vertex_origin[v] + k], 1e-14) << order;
    run_one(*m, "mesh", "target_reduce", "custom", 1, 0);
    EXPECT_NEAR(m->red.volume_sum, 1.0, 1e-12) << order;
  }
}

// Mean |i - j| over the edges of the tets: what a renumbering is for.
double mean_index_gap(const MeshInstance& m) {
  double sum = 0;
  for (std::int64_t t = 0; t < m.nt; ++t)
    for (int i = 0; i < 4; ++i)
      for (int j = i + 1; j < 4; ++j) sum += std::abs(double(m.tet[4 * t + i]) - double(m.tet[4 * t + j]));
  return sum / (6.0 * double(m.nt));
}

TEST(Mesh, HilbertOrderIsMoreLocalThanRandom) {
  auto hilbert = cube(16, "hilbert");
  auto random = cube(16, "random");
  EXPECT_LT(mean_index_gap(*hilbert) * 4, mean_index_gap(*random));  // measured: 9x
}

TEST(Mesh, HilbertDegreePutsLowDegreeVerticesFirst) {
  auto m = cube(6, "hilbert-degree");
  for (std::int64_t v = 1; v < m->nv; ++v) {
    auto width = [&](std::int64_t u) {
      int d = m->ball_offset[u + 1] - m->ball_offset[u], w = 1;
      while (w < d) w *= 2;
      return w;
    };
    ASSERT_LE(width(v - 1), width(v)) << v;
  }
  for (std::int64_t r = 0; r < m->bins.rows(); ++r) ASSERT_EQ(m->bins.vertex[r], r) << "bins are contiguous ranges";
}

// ---------------------------------------------------------------- topology

TEST(Mesh, TetNeighboursAreSymmetricAndShareAFace) {
  for (const char* order : {"none", "hilbert"}) {
    auto m = cube(4, order, 0.1);
    std::int64_t boundary = 0;
    for (std::int64_t t = 0; t < m->nt; ++t)
      for (int k = 0; k < 4; ++k) {
        const std::int32_t u = m->tet_nbr[4 * t + k];
        if (u < 0) {
          ++boundary;
          continue;
        }
        int back = 0, shared = 0;
        for (int q = 0; q < 4; ++q) back += m->tet_nbr[4 * std::int64_t(u) + q] == t;
        for (int q = 0; q < 4; ++q)
          for (int s = 0; s < 4; ++s) shared += m->tet[4 * t + q] == m->tet[4 * std::int64_t(u) + s];
        ASSERT_EQ(back, 1) << t;
        ASSERT_EQ(shared, 3) << t;
        // The vertex opposite the face is not in the neighbour.
        for (int s = 0; s < 4; ++s) ASSERT_NE(m->tet[4 * t + k], m->tet[4 * std::int64_t(u) + s]);
      }
    EXPECT_EQ(boundary, 6 * 2 * 4 * 4) << "2 triangles per boundary square";
    // The boundary triangles close the surface: 3 neighbours each, symmetric.
    EXPECT_EQ(m->ntri, boundary);
    for (std::int64_t t = 0; t < m->ntri; ++t)
      for (int k = 0; k < 3; ++k) {
        const std::int32_t u = m->tri_nbr[3 * t + k];
        ASSERT_GE(u, 0) << t;
        int back = 0;
        for (int q = 0; q < 3; ++q) back += m->tri_nbr[3 * std::int64_t(u) + q] == t;
        ASSERT_EQ(back, 1);
      }
  }
}

TEST(Mesh, BinnedBallsHoldTheCsrBalls) {
  auto m = cube(5, "hilbert");
  const Bins& b = m->bins;
  ASSERT_EQ(b.rows(), m->nv);
  std::set<std::int32_t> seen;
  std::int64_t padded = 0;
  for (int i = 0; i < b.bin_count(); ++i) {
    EXPECT_EQ(b.width[i] & (b.width[i] - 1), 0) << "a power of two";
    if (i > 0) {
      EXPECT_GT(b.width[i], b.width[i - 1]);
    }
    for (std::int32_t r = b.first[i]; r < b.first[i] + b.count[i]; ++r) {
      const std::int32_t v = b.vertex[r];
      seen.insert(v);
      const std::int32_t deg = m->ball_offset[v + 1] - m->ball_offset[v];
      ASSERT_EQ(b.degree[r], deg);
      ASSERT_LE(deg, b.width[i]);
      ASSERT_TRUE(deg == 0 || deg > b.width[i] / 2 || b.width[i] == 1);
      for (std::int32_t j = 0; j < b.width[i]; ++j) {
        const std::int32_t c = b.corner[b.offset[i] + std::int64_t(j) * b.count[i] + (r - b.first[i])];
        if (j < deg) {
          ASSERT_EQ(c, m->ball_corner[m->ball_offset[v] + j]);
          ASSERT_EQ(m->tet[c], v) << "corner c is vertex c & 3 of tet c >> 2";
        } else {
          ASSERT_EQ(c, ball_sentinel);
          ++padded;
        }
      }
    }
  }
  EXPECT_EQ(std::int64_t(seen.size()), m->nv);
  EXPECT_EQ(std::int64_t(b.corner.size()), 4 * m->nt + padded);
}

// ---------------------------------------------------------------- validation fails when it must

class MeshCorruption : public ::testing::TestWithParam<const char*> {};

TEST_P(MeshCorruption, ChangedNaNOrUnwrittenOutputsFail) {
  auto m = cube(3, "none", 0.1);
  const std::string name = std::string("host_") + GetParam();
  RunResult r = run_one(*m, "mesh", name, "custom", 2, 0);
  ASSERT_TRUE(r.check.valid) << r.check.detail;
  std::vector<double*> targets;
  switch (m->last) {
    case Kernel::direct: targets = {&m->pos[7]}; break;
    case Kernel::downward: targets = {&m->out_volume[5], &m->out_centre[11]}; break;
    case Kernel::transverse: targets = {&m->spread[9]}; break;
    case Kernel::upward_csr:
    case Kernel::upward_binned: targets = {&m->smooth[m->smooth.size() - 1]}; break;
    case Kernel::lumped_atomic:
    case Kernel::lumped_scatter_gather: targets = {&m->lumped[13]}; break;
    case Kernel::reduce: targets = {&m->red.volume_sum, &m->red.volume_min, &m->red.quality_max, &m->red.quality_min.value}; break;
    case Kernel::none: FAIL();
  }
  for (double* p : targets) {
    const double saved = *p;
    *p = saved * (1 + 1e-9) + 1e-9;
    EXPECT_FALSE(m->validate(2, "").valid) << name;
    *p = std::numeric_limits<double>::quiet_NaN();
    EXPECT_FALSE(m->validate(2, "").valid) << name;
    *p = saved;
    EXPECT_TRUE(m->validate(2, "").valid) << name;
  }
  m->reset();
  EXPECT_FALSE(m->validate(0, "").valid) << "nothing ran since reset";
}

INSTANTIATE_TEST_SUITE_P(Kernels, MeshCorruption, ::testing::ValuesIn(kernels));

TEST(Mesh, ValidationChecksTheArgminAndTheRepetitions) {
  auto m = cube(3, "none", 0.1);
  run_one(*m, "mesh", "host_reduce", "custom", 1, 0);
  m->red.quality_min.index += 1;
  EXPECT_FALSE(m->validate(1, "").valid);
  run_one(*m, "mesh", "host_direct", "custom", 3, 0);
  EXPECT_TRUE(m->validate(3, "").valid);
  EXPECT_FALSE(m->validate(2, "").valid) << "direct accumulates: the repetition count matters";
  // Poisoned outputs: a kernel run then reset leaves NaN everywhere.
  run_one(*m, "mesh", "host_downward", "custom", 1, 0);
  m->reset();
  m->last = Kernel::downward;
  EXPECT_FALSE(m->validate(1, "").valid);
}

// ---------------------------------------------------------------- libMeshb

meshb::MeshData sample_mesh() {
  auto m = cube(2, "hilbert", 0.1);
  meshb::MeshData d;
  d.dimension = 3;
  d.xyz = m->crd;
  d.vrefs.resize(m->nv);
  for (std::int64_t v = 0; v < m->nv; ++v) d.vrefs[v] = int(v % 5) - 2;
  d.block(meshb::kTetrahedra).nodes = m->tet;
  d.block(meshb::kTetrahedra).refs.assign(m->nt, 7);
  d.block(meshb::kTriangles).nodes = m->tri;
  d.block(meshb::kTriangles).refs.assign(m->ntri, 3);
  d.block(meshb::kEdges).nodes = {0, 1, 2, 3};
  d.block(meshb::kEdges).refs = {1, 2};
  d.block(meshb::kHexahedra).nodes = {0, 1, 2, 3, 4, 5, 6, 7};
  d.block(meshb::kHexahedra).refs = {9};
  return d;
}

meshb::MeshData parse(const std::string& bytes, double max_bytes = 0) {
  return meshb::parse(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), "test.meshb", max_bytes);
}

std::string i32s(std::initializer_list<std::int32_t> values) {
  std::string s;
  for (std::int32_t v : values) s.append(reinterpret_cast<const char*>(&v), 4);
  return s;
}

TEST(Meshb, RoundTripsEveryVersionAndByteOrder) {
  meshb::MeshData d = sample_mesh();
  for (int version = 1; version <= 4; ++version)
    for (bool swap : {false, true}) {
      meshb::MeshData want = d;
      if (version == 1)
        for (double& x : want.xyz) x = double(float(x));  // v1 reals are float32
      meshb::MeshData got = parse(meshb::to_binary(d, version, swap));
      EXPECT_TRUE(got == want) << "version " << version << " swap " << swap;
      EXPECT_EQ(got.version, version);
    }
  meshb::MeshData got = parse(meshb::to_ascii(d));
  EXPECT_TRUE(got == d) << "ASCII";
  // Byte order really differs, and the version field is where it should be.
  std::string le = meshb::to_binary(d, 2, false), be = meshb::to_binary(d, 2, true);
  EXPECT_NE(le, be);
  EXPECT_EQ(le.size(), be.size());
  EXPECT_EQ(std::string(be.data(), 4), std::string("\0\0\0\1", 4));
}

TEST(Meshb, ReadsAndWritesFiles) {
  meshb::MeshData d = sample_mesh();
  for (const char* ext : {".mesh", ".meshb"}) {
    const std::string path = std::string("/tmp/ompref_test_mesh_") + std::to_string(::getpid()) + ext;
    meshb::write_file(d, path, 3, false);
    meshb::MeshData got = meshb::read_file(path);
    std::remove(path.c_str());
    EXPECT_TRUE(got == d) << ext;
  }
  EXPECT_THROW(meshb::read_file("/nonexistent/x.meshb"), UsageError);
}

TEST(Meshb, SkipsUnknownKeywords) {
  std::string ascii = "MeshVersionFormatted 2\nDimension 3\nCorners\n2\n1 2\n# a comment\nVertices\n4\n"
                      "0 0 0 1\n1 0 0 1\n0 1 0 1\n0 0 1 1\nRequiredVertices 1 3\nTetrahedra\n1\n1 2 3 4 0\nEnd\n";
  meshb::MeshData d = parse(ascii);
  EXPECT_EQ(d.vertex_count(), 4u);
  EXPECT_EQ(d.block(meshb::kTetrahedra).count(), 1u);
  // Binary: a block of keyword 99 after Dimension is skipped by its position;
  // the later blocks are copied with their positions moved by its 20 bytes.
  meshb::MeshData small = d;
  const std::string bin = meshb::to_binary(small, 2, false);
  EXPECT_TRUE(parse(bin) == small);
  const std::size_t after_dimension = 8 + 12;  // header; Dimension keyword, position, value
  std::string with_unknown = bin.substr(0, after_dimension) + i32s({99, std::int32_t(after_dimension + 20), 1, 2, 3});
  for (std::size_t pos = after_dimension; pos < bin.size();) {
    std::int32_t kw, next;
    std::memcpy(&kw, bin.data() + pos, 4);
    std::memcpy(&next, bin.data() + pos + 4, 4);
    const std::size_t end = kw == meshb::kEnd ? bin.size() : std::size_t(next);
    std::string piece = bin.substr(pos, end - pos);
    const std::int32_t shifted = kw == meshb::kEnd ? 0 : next + 20;
    std::memcpy(piece.data() + 4, &shifted, 4);
    with_unknown += piece;
    pos = end;
  }
  EXPECT_TRUE(parse(with_unknown) == small);
}

struct BadFile {
  const char* what;
  std::string bytes;
  const char* must_mention;
};

TEST(Meshb, RefusesBadFilesWithOneClearMessage) {
  const std::string good = meshb::to_binary(sample_mesh(), 2, false);
  std::string bad_index = meshb::to_binary(sample_mesh(), 2, false);
  // The first tetrahedron index: find the Tetrahedra block and write a huge index.
  {
    std::size_t pos = 8;
    for (;;) {
      std::int32_t kw, next;
      std::memcpy(&kw, bad_index.data() + pos, 4);
      std::memcpy(&next, bad_index.data() + pos + 4, 4);
      if (kw == meshb::kTetrahedra) {
        std::int32_t huge = 1000000;
        std::memcpy(bad_index.data() + pos + 12, &huge, 4);
        break;
      }
      pos = std::size_t(next);
    }
  }
  const std::vector<BadFile> cases = {
      {"empty", "", "keyword"},
      {"bad code", i32s({7, 2}), "leading int32"},
      {"bad version", i32s({1, 9, 54, 0}), "version 9"},
      {"bad dimension", i32s({1, 2, 3, 20, 7, 54, 0}), "dimension 7"},
      {"position beyond the file", i32s({1, 2, 3, 9999, 3, 54, 0}), "beyond"},
      {"position backwards", i32s({1, 2, 3, 4, 3, 54, 0}), "forward"},
      {"count past the block", i32s({1, 2, 3, 20, 3, 4, 44, 1000, 0, 0, 0, 0, 0, 0, 54, 0}), "count 1000"},
      {"negative count", i32s({1, 2, 3, 20, 3, 4, 32, -5, 54, 0}), "negative"},
      {"no End", i32s({1, 2, 3, 20, 3}), "End"},
      {"vertices before dimension", i32s({1, 2, 4, 16, 0, 54, 0}), "Dimension"},
      {"vertex index out of range", bad_index, "vertex 1000000"},
      {"ascii garbage", "hello world", "End"},
      {"ascii number first", "12 Dimension 3", "keyword"},
      {"ascii bad dimension", "Dimension 4\nEnd", "dimension 4"},
      {"ascii truncated", "Dimension 3\nVertices\n3\n0 0 0 1\n", "count 3"},
      {"ascii not a number", "Dimension 3\nVertices\n1\n0 x 0 1\nEnd", "'x'"},
      {"ascii index out of range", "Dimension 3\nVertices\n1\n0 0 0 1\nEdges\n1\n1 2 0\nEnd", "vertex 2"},
      {"ascii index zero", "Dimension 3\nVertices\n1\n0 0 0 1\nEdges\n1\n0 1 0\nEnd", "index 0"},
      {"ascii twice", "Dimension 3\nDimension 3\nEnd", "twice"},
      {"ascii infinite", "Dimension 3\nVertices\n1\n0 inf 0 1\nEnd", "finite"},
  };
  for (const BadFile& c : cases) {
    try {
      parse(c.bytes);
      ADD_FAILURE() << c.what << ": accepted";
    } catch (const UsageError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("test.meshb"), std::string::npos) << c.what << ": " << msg;
      EXPECT_NE(msg.find(c.must_mention), std::string::npos) << c.what << ": " << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << c.what << ": one line";
    }
  }
  // Every truncation of a good file is refused (never read past the end).
  for (std::size_t n = 0; n < good.size(); ++n) EXPECT_THROW(parse(good.substr(0, n)), UsageError) << n;
  // A mesh too large for the memory: refused before allocating.
  EXPECT_THROW(parse(good, 100.0), UsageError);
  EXPECT_NO_THROW(parse(good, 1e9));
}

TEST(Meshb, RandomCorruptionsNeverCrash) {
  std::mt19937 rng(5);
  const std::string good[] = {meshb::to_binary(sample_mesh(), 2, false), meshb::to_binary(sample_mesh(), 4, true),
                              meshb::to_ascii(sample_mesh())};
  int refused = 0, accepted = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string s = good[i % 3];
    const int flips = 1 + int(rng() % 4);
    for (int f = 0; f < flips; ++f) s[rng() % s.size()] = char(rng());
    try {
      meshb::MeshData d = parse(s, 1e8);
      for (const auto& b : d.blocks)
        for (std::int32_t v : b.nodes) ASSERT_LT(std::size_t(v), d.vertex_count());
      ++accepted;
    } catch (const UsageError&) {
      ++refused;
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_EQ(refused + accepted, 3000);
}

TEST(Meshb, ReadsTheSeedsOfAnIndependentWriter) {
  // tests/fuzz_corpus/make_corpus.py writes these with Python's struct module.
  const std::string dir = std::string(OMPREF_SOURCE_DIR) + "/tests/fuzz_corpus/meshb/";
  std::vector<std::string> names = {"tets.mesh"};
  for (int v = 1; v <= 4; ++v)
    for (const char* e : {"le", "be"}) names.push_back("tets_v" + std::to_string(v) + "_" + e + ".meshb");
  for (const std::string& name : names) {
    meshb::MeshData d = meshb::read_file(dir + name);
    ASSERT_EQ(d.vertex_count(), 5u) << name;
    EXPECT_EQ(d.block(meshb::kTetrahedra).nodes, (std::vector<std::int32_t>{0, 1, 2, 3, 1, 2, 3, 4})) << name;
    EXPECT_EQ(d.block(meshb::kTetrahedra).refs, (std::vector<std::int32_t>{7, 8})) << name;
    EXPECT_EQ(d.block(meshb::kTriangles).count(), 2u) << name;
    EXPECT_EQ(d.xyz[3 * 4 + 2], 1.0) << name;
    EXPECT_EQ(d.vrefs[4], 3) << name;
  }
  for (const char* bad : {"truncated.meshb", "bad_position.meshb", "bad_index.mesh"})
    EXPECT_THROW(meshb::read_file(dir + bad), UsageError) << bad;
}

TEST(Meshb, MeshWorkloadReadsAFile) {
  auto m = cube(3, "none", 0.1);
  const std::string path = std::string("/tmp/ompref_test_cube_") + std::to_string(::getpid()) + ".meshb";
  meshb::write_file(to_meshb(RawMesh{m->crd, m->tet, {}, "x"}), path, 2, false);
  MeshOptions o;
  o.file = path;
  o.renumber = "hilbert";
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
    o.renumber = "hilbert";
    auto m = make_instance(o, "file", test_limits());
    EXPECT_GT(m->nt, 10000) << name;
    EXPECT_GT(m->ref_volume_min, 0.0) << name << ": positively oriented";
    EXPECT_GT(m->ref_quality_min.value, 0.05) << name;
    std::int64_t open_edges = 0;
    for (std::int32_t u : m->tri_nbr) open_edges += u < 0;
    EXPECT_EQ(open_edges, 0) << name << ": the boundary surface is closed";
    for (const Variant* v : registry().variants("mesh")) {
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

// ---------------------------------------------------------------- the command

TEST(MeshCli, TinyRunsEveryVariantAndPasses) {
  auto r = run_ompref("run mesh --size tiny --no-ceiling --reps 2");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("FAIL"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("target_lumped_scatter_gather"), std::string::npos);
}

TEST(MeshCli, BadInputExitsTwoWithOneLine) {
  const std::string path = std::string("/tmp/ompref_test_bad_") + std::to_string(::getpid()) + ".meshb";
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    const std::string bytes = i32s({1, 2, 3, 9999, 3});
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  }
  const std::pair<std::string, std::string> cases[] = {
      {"run mesh --mesh /nonexistent/m.meshb --no-ceiling", "/nonexistent/m.meshb"},
      {"run mesh --mesh " + path + " --no-ceiling", "beyond"},
      {"run mesh --cube 0 --no-ceiling", "--cube"},
      {"run mesh --renumber zigzag --no-ceiling", "--renumber"},
      {"run mesh --jitter 0.5 --no-ceiling", "--jitter"},
      {"run mesh --cube 2 --mesh " + path + " --no-ceiling", "--cube"},
      {"run mesh --cube 2000 --no-ceiling", "32-bit"},
      {"run mesh --cube 400 --no-ceiling", "GiB"},
      {"run stream --cube 3 --no-ceiling", "--cube"},
  };
  for (const auto& [args, mention] : cases) {
    auto r = run_ompref(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_EQ(count_lines(r.stderr_text), 1) << args << "\n" << r.stderr_text;
    EXPECT_NE(r.stderr_text.find(mention), std::string::npos) << args << "\n" << r.stderr_text;
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace ompref::mesh
