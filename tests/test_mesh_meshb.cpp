// The libMeshb reader and writer: every version and byte order round-trips,
// files are read and written, unknown keywords are skipped, bad files are
// refused with one clear line (never read past the end, never allocated
// beyond the memory), random corruptions never crash, and the files of an
// independent writer read back.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io/meshb.hpp"
#include "common/io/io_error.hpp"
#include "test_mesh_support.hpp"

namespace ompref::mesh {
namespace {

using testing::i32s;
using testing::parse;
using testing::sample_mesh;

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
  EXPECT_THROW(meshb::read_file("/nonexistent/x.meshb"), IoError);
}

TEST(Meshb, WritesWholeOrNotAtAll) {
  // An existing file is replaced whole (no temporary left beside it); a
  // FIFO is refused rather than waited on, and a failed write keeps the old file.
  const std::string dir = std::string("/tmp/ompref_test_meshw_") + std::to_string(::getpid());
  std::filesystem::create_directory(dir);
  const std::string path = dir + "/m.meshb", fifo = dir + "/pipe.meshb";
  meshb::MeshData d = sample_mesh();
  meshb::write_file(d, path, 2, false);
  meshb::write_file(d, path, 3, true);
  EXPECT_EQ(meshb::read_file(path).version, 3);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THROW(meshb::write_file(d, fifo), IoError);
  EXPECT_THROW(meshb::write_file(d, dir), IoError);
  EXPECT_THROW(meshb::write_file(d, dir + "/missing/m.meshb"), IoError);
  int files = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    ++files;
    EXPECT_EQ(f.path().filename().string().find(".tmp."), std::string::npos) << f.path();
  }
  EXPECT_EQ(files, 2);
  EXPECT_EQ(meshb::read_file(path).version, 3);
  std::filesystem::remove_all(dir);
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
    } catch (const IoError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("test.meshb"), std::string::npos) << c.what << ": " << msg;
      EXPECT_NE(msg.find(c.must_mention), std::string::npos) << c.what << ": " << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << c.what << ": one line";
    }
  }
  // Every truncation of a good file is refused (never read past the end).
  for (std::size_t n = 0; n < good.size(); ++n) EXPECT_THROW(parse(good.substr(0, n)), IoError) << n;
  // A mesh too large for the memory: refused before allocating.
  EXPECT_THROW(parse(good, 100.0), IoError);
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
    } catch (const IoError&) {
      ++refused;
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_EQ(refused + accepted, 3000);
}

TEST(Meshb, ReadsTheFilesOfAnIndependentWriter) {
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
    EXPECT_THROW(meshb::read_file(dir + bad), IoError) << bad;
}

}  // namespace
}  // namespace ompref::mesh
