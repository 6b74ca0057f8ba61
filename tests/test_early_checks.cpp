// Every workload's options, input files and memory are checked before any
// ceiling is measured or any workload runs (Workload::check): a bad option of
// the last workload of `run all`, or a request that does not fit, is refused
// at once, having allocated nothing large.
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/mesh/mesh.hpp"
#include "common/io/meshb.hpp"
#include "common/io/io_error.hpp"
#include "test_support.hpp"

namespace ompref {
namespace {

using testing::count_lines;
using testing::run_measured;
using testing::run_ompref;
using testing::ScratchDir;

// Generous against a loaded machine; a run that measured the ceiling first
// takes seconds and holds the ceiling's 768 MiB.
constexpr double quick_seconds = 3.0;
constexpr double small_rss_bytes = 256.0 * (1 << 20);

// Standard error holds one line, and that line mentions `text`.
void expect_one_line_mentioning(const std::string& err, const std::string& text) {
  EXPECT_EQ(count_lines(err), 1) << err;
  EXPECT_NE(err.find(text), std::string::npos) << err;
}

struct EarlyCase {
  std::vector<std::string> args;
  const char* must_mention;
};

void PrintTo(const EarlyCase& c, std::ostream* os) {
  *os << "ompref";
  for (const std::string& a : c.args) *os << " " << a;
}

class RefusedUpFront : public ::testing::TestWithParam<EarlyCase> {};

TEST_P(RefusedUpFront, QuicklyAndSmall) {
  const EarlyCase& c = GetParam();
  const testing::MeasuredRun m = run_measured(c.args);
  EXPECT_EQ(m.status, 2);
  EXPECT_LT(m.seconds, quick_seconds);
  EXPECT_LT(m.max_rss_bytes, small_rss_bytes);
  std::string line;
  for (const std::string& a : c.args) line += " '" + a + "'";
  const auto r = run_ompref(line);
  expect_one_line_mentioning(r.stderr_text, c.must_mention);
}

INSTANTIATE_TEST_SUITE_P(
    LastWorkloadOrTooBig, RefusedUpFront,
    ::testing::Values(EarlyCase{{"run", "all", "--mesh", "/nonexistent.mesh"}, "/nonexistent.mesh"},
                      EarlyCase{{"run", "all", "--cube", "2048"}, "32-bit"},
                      EarlyCase{{"run", "all", "--tau", "0.4"}, "--tau"},
                      EarlyCase{{"run", "all", "--deck", "1 1 1 2"}, "--deck"},
                      EarlyCase{{"run", "stream", "--n", "17179869184"}, "GiB"},
                      EarlyCase{{"run", "gpp", "--data", "varied", "--size", "paper"}, "--data varied"},
                      EarlyCase{{"run", "lbm", "--nx", "4096", "--ny", "4096", "--nz", "4096"}, "cells"}));

// A text mesh is read whole before any workload runs: an error deep inside
// it (a vertex number out of range, a 2-D mesh, no tetrahedra) is refused as
// quickly as a missing file, not after stream, gpp and lbm have run.
TEST(MeshFileContent, ErrorsInsideTheFileComeBeforeAnyRun) {
  ScratchDir dir;
  const std::string vertices = "Vertices\n4\n0 0 0 1\n1 0 0 1\n0 1 0 1\n0 0 1 1\n";
  const std::pair<std::string, const char*> cases[] = {
      {"MeshVersionFormatted 2\nDimension 3\n" + vertices + "Tetrahedra\n1\n1 2 3 9 0\nEnd\n", "vertex 9"},
      {"MeshVersionFormatted 2\nDimension 2\nVertices\n3\n0 0 1\n1 0 1\n0 1 1\nEnd\n", "Dimension"},
      {"MeshVersionFormatted 2\nDimension 3\n" + vertices + "End\n", "tetrahedra"}};
  int n = 0;
  for (const auto& [text, mention] : cases) {
    const std::string path = (dir.path / ("bad" + std::to_string(n++) + ".mesh")).string();
    std::ofstream(path) << text;
    const testing::MeasuredRun m = run_measured({"run", "all", "--mesh", path});
    EXPECT_EQ(m.status, 2) << path;
    EXPECT_LT(m.seconds, quick_seconds) << path;
    EXPECT_LT(m.max_rss_bytes, small_rss_bytes) << path;
    const auto r = run_ompref("run all --save none --mesh " + path);
    expect_one_line_mentioning(r.stderr_text, mention);
    EXPECT_EQ(r.output.find("stream"), std::string::npos) << "no workload ran first";
  }
}

// A FIFO would block the reader until a writer comes; a directory or a
// device has no size: each is refused by its type, at once.
TEST(MeshFileType, SpecialFilesAreRefusedByType) {
  ScratchDir dir;
  const std::string fifo = (dir.path / "mesh.fifo").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::pair<std::string, const char*> cases[] = {
      {fifo, "FIFO"}, {dir.path.string(), "directory"}, {"/dev/null", "device"}};
  for (const auto& [path, type] : cases) {
    const auto r = run_ompref("run mesh --mesh " + path, "timeout 20");
    EXPECT_EQ(r.status, 2) << path << "\n" << r.output;
    expect_one_line_mentioning(r.stderr_text, type);
    EXPECT_EQ(r.stderr_text.find("9223372036854775807"), std::string::npos) << r.stderr_text;
  }
}

TEST(MeshFileType, CheckReadsOnlyTheHeader) {
  ScratchDir dir;
  const std::string bad = (dir.path / "bad.meshb").string();
  {
    std::ofstream out(bad, std::ios::binary);
    const std::int32_t header[2] = {7, 2};
    out.write(reinterpret_cast<const char*>(header), sizeof header);
  }
  EXPECT_THROW(meshb::check_file(bad), IoError);
  const std::string empty = (dir.path / "empty.mesh").string();
  std::ofstream{empty};
  EXPECT_THROW(meshb::check_file(empty), IoError);
  EXPECT_NO_THROW(meshb::check_file(std::string(OMPREF_SOURCE_DIR) + "/inputs/mesh/sphere.meshb"));
}

// A unit cube of 6 tetrahedra written as a .mesh file, its coordinates
// multiplied by `scale` (and its first tetrahedron inverted when asked).
enum class Defect { none, inverted, flat };

std::string cube_file(const ScratchDir& dir, const std::string& name, double scale, Defect defect = Defect::none) {
  meshb::MeshData data = mesh::to_meshb(mesh::make_cube(1, 0));
  for (double& x : data.xyz) x *= scale;
  std::vector<std::int32_t>& nodes = data.block(meshb::kTetrahedra).nodes;
  if (defect == Defect::inverted) std::swap(nodes[1], nodes[2]);
  if (defect == Defect::flat) nodes[1] = nodes[0];
  const std::string path = (dir.path / name).string();
  meshb::write_file(data, path);
  return path;
}

TEST(MeshCoordinates, ScalesOutsideTheDoubleRangeOfTheKernelsAreRefused) {
  ScratchDir dir;
  for (double scale : {1e154, 1e300, 1e-300}) {
    const auto r = run_ompref("run mesh --variant host_downward --reps 1 --mesh " +
                              cube_file(dir, "scaled.mesh", scale));
    EXPECT_EQ(r.status, 2) << scale << "\n" << r.output;
    expect_one_line_mentioning(r.stderr_text, "edges");
  }
  const auto unit = run_ompref("run mesh --variant host_downward --reps 1 --mesh " +
                              cube_file(dir, "unit.mesh", 1.0) + " --no-ceiling", "");
  EXPECT_EQ(unit.status, 0) << unit.output;
}

// `ompref run mesh <args> --reps 1 --no-ceiling` on the unit cube with
// `defect`: exit 0 and one line on stderr, mentioning `text`.
std::string warned_once(const std::string& args, Defect defect, const std::string& text) {
  ScratchDir dir;
  const auto r = run_ompref("run mesh " + args + " --reps 1 --no-ceiling --mesh " +
                            cube_file(dir, "defect.mesh", 1.0, defect));
  EXPECT_EQ(r.status, 0) << r.output;
  expect_one_line_mentioning(r.stderr_text, text);
  return r.stderr_text;
}

TEST(MeshCoordinates, InvertedTetrahedraWarnOnce) {
  warned_once("--variant host_downward", Defect::inverted, "1 of 6 tetrahedra are inverted");
}

// A tet with a repeated vertex: kept, one warning, and every kernel of every
// variant still validates against the reference (the reductions report its
// quality 0 as the minimum).
TEST(MeshCoordinates, FlatTetrahedraWarnOnce) {
  const std::string err = warned_once("", Defect::flat, "1 of 6 tetrahedra are flat");
  EXPECT_EQ(err.find("inverted"), std::string::npos) << err;
}

}  // namespace
}  // namespace ompref
