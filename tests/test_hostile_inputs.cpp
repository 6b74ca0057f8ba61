// Inputs that others send or generate: result files for compare and report,
// meshes of one very high vertex degree, and shapes whose arithmetic overflows.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "app/result_input.hpp"
#include "common/mesh/mesh.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using ompref::testing::count_lines;
using ompref::testing::run_ompref;
using ompref::testing::ScratchDir;

using ompref::testing::slurp;

namespace {

// A result file of one real run, to alter.
nlohmann::json real_result(const fs::path& dir) {
  const fs::path json = dir / "real.json";
  const auto r = run_ompref("run stream --size tiny --variant host_simd --reps 2 --no-ceiling --quiet --json " +
                            json.string());
  EXPECT_EQ(r.status, 0) << r.output;
  return nlohmann::json::parse(slurp(json));
}

// compare and report both refuse `bad` with exit 2 and one line holding `why`,
// no library exception text, within seconds.
void expect_both_refuse(const fs::path& good, const fs::path& bad, const std::string& why) {
  for (const std::string& args :
       {fmt::format("compare {} {}", good.string(), bad.string()),
        fmt::format("report {} {} --out {}", good.string(), bad.string(), (good.parent_path() / "report").string())}) {
    const auto start = std::chrono::steady_clock::now();
    const auto r = run_ompref(args, "timeout 20");
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_EQ(count_lines(r.stderr_text), 1) << args << "\n" << r.stderr_text;
    EXPECT_NE(r.stderr_text.find(why), std::string::npos) << args << "\n" << r.stderr_text;
    EXPECT_EQ(r.stderr_text.find("[json.exception"), std::string::npos) << r.stderr_text;
    EXPECT_EQ(r.stderr_text.find("Traceback"), std::string::npos) << r.stderr_text;
    EXPECT_LT(s, 15) << args;
  }
}

}  // namespace

// A 200 KB result file whose run params nest 100,000 arrays deep: compare died
// with SIGSEGV (the recursion of copying and comparing the document).
TEST(HostileResultFiles, DeepNestingIsRefusedNotACrash) {
  ScratchDir dir;
  nlohmann::json doc = real_result(dir.path);
  const fs::path good = dir.path / "good.json", bad = dir.path / "deep.json";
  std::ofstream(good) << doc.dump();
  std::string text = doc.dump();
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::size_t at = text.find("\"params\":");
  ASSERT_NE(at, std::string::npos);
  text.insert(at, "\"deep\":" + deep + ",");
  std::ofstream(bad) << text;
  ASSERT_GT(fs::file_size(bad), 200000u);
  expect_both_refuse(good, bad, "nested more than");
  // At the limit the document is read.
  std::string ok = doc.dump();
  ok.insert(ok.find("\"params\":"), "\"deep\":" + std::string(ompref::max_result_depth - 5, '[') +
                                         std::string(ompref::max_result_depth - 5, ']') + ",");
  std::ofstream(dir.path / "ok.json") << ok;
  const auto r = run_ompref(fmt::format("compare {} {}", good.string(), (dir.path / "ok.json").string()));
  EXPECT_EQ(r.status, 0) << r.output;
}

// Values that parse but are not what they claim: a negative or zero median, a
// NaN-like string where a number goes, min above the median, a negative rate.
TEST(HostileResultFiles, ValuesOutOfTheirRangesAreRefused) {
  ScratchDir dir;
  const nlohmann::json doc = real_result(dir.path);
  const fs::path good = dir.path / "good.json";
  std::ofstream(good) << doc.dump();
  struct Case {
    const char* name;
    void (*alter)(nlohmann::json&);
    const char* why;
  };
  const Case cases[] = {
      {"negative", [](nlohmann::json& d) { d["runs"][0]["time_s"]["median"] = -1.0; }, "not a time"},
      {"zero", [](nlohmann::json& d) { d["runs"][0]["time_s"]["median"] = 0; }, "not a time"},
      {"huge", [](nlohmann::json& d) { d["runs"][0]["time_s"]["max"] = std::numeric_limits<double>::infinity(); }, ""},
      {"order", [](nlohmann::json& d) { d["runs"][0]["time_s"]["min"] = 1e3; }, "does not hold"},
      {"rate", [](nlohmann::json& d) { d["runs"][0]["fom"]["value"] = -5; }, "not a rate"},
      {"control", [](nlohmann::json& d) { d["runs"][0]["variant"] = "host\x1b[2Jsimd"; }, "control character"},
      {"type", [](nlohmann::json& d) { d["runs"][0]["time_s"]["median"] = "fast"; }, "lacks"},
  };
  for (const Case& c : cases) {
    nlohmann::json bad = doc;
    c.alter(bad);
    const fs::path path = dir.path / (std::string(c.name) + ".json");
    std::string text = bad.dump();
    if (std::string(c.name) == "huge") {  // 1e400 is not a double: written as text
      const std::size_t at = text.find("\"max\":");
      text.replace(at, text.find_first_of(",}", at) - at, "\"max\":1e400");
    }
    std::ofstream(path) << text;
    SCOPED_TRACE(c.name);
    expect_both_refuse(good, path, c.why);
  }
}

// A FIFO would block a plain read forever; a device never ends; a file over the
// limit is refused by its size.
TEST(HostileResultFiles, FifosDevicesAndHugeFilesAreRefusedWithoutReading) {
  ScratchDir dir;
  const nlohmann::json doc = real_result(dir.path);
  const fs::path good = dir.path / "good.json";
  std::ofstream(good) << doc.dump();
  const fs::path fifo = dir.path / "fifo.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  expect_both_refuse(good, fifo, "not a file");
  expect_both_refuse(good, "/dev/zero", "not a file");
  const fs::path huge = dir.path / "huge.json";
  {
    std::ofstream out(huge);
    out.seekp(std::streamoff(ompref::max_result_file_bytes) + 10);
    out << ' ';
  }
  expect_both_refuse(good, huge, "MiB");
}

namespace {

// A fan of n tets around the axis from vertex 0 (0,0,-1) to vertex 1 (0,0,1):
// tet i is (0, 1, ring i, ring i+1), the ring closed: vertices 0 and 1 have degree n.
ompref::mesh::RawMesh fan(int n) {
  ompref::mesh::RawMesh raw;
  raw.source = fmt::format("fan {}", n);
  raw.crd = {0, 0, -1, 0, 0, 1};
  const double pi = std::acos(-1.0);
  for (int i = 0; i < n; ++i) {
    const double a = 2 * pi * i / n;
    raw.crd.insert(raw.crd.end(), {std::cos(a), std::sin(a), 0});
  }
  for (int i = 0; i < n; ++i) {
    const int p = 2 + i, q = 2 + (i + 1) % n;
    // Positively oriented: det(v1 - v0, p - v0, q - v0) = 2 sin(2 pi / n) > 0.
    raw.tet.insert(raw.tet.end(), {0, 1, p, q});
  }
  return raw;
}

}  // namespace

// The face-neighbour search scanned the ball of each face's smallest vertex:
// quadratic in the degree, 75-180 s for 100,000 tets of one fan on 2 cores.
TEST(HostileMeshes, PreparingAFanOfHighDegreeIsFast) {
  const int n = 200000;
  const auto start = std::chrono::steady_clock::now();
  ompref::mesh::MeshInstance m(fan(n), ompref::mesh::Renumber::none);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(s, 10.0) << "preparing " << n << " tets around one axis";
  // Every tet has its two ring neighbours through the faces holding the axis,
  // and none through its two outer faces.
  ASSERT_EQ(m.nt, n);
  for (std::int64_t t = 0; t < m.nt; ++t) {
    int inner = 0, outer = 0;
    for (int k = 0; k < 4; ++k) {
      const std::int32_t u = m.tet_nbr[4 * t + k];
      if (u < 0) {
        ++outer;
        continue;
      }
      ++inner;
      bool back = false;
      for (int j = 0; j < 4; ++j) back = back || m.tet_nbr[4 * std::int64_t(u) + j] == t;
      EXPECT_TRUE(back) << t << " -> " << u;
    }
    ASSERT_EQ(inner, 2) << "tet " << t;
    ASSERT_EQ(outer, 2) << "tet " << t;
  }
  EXPECT_EQ(m.ntri, 2 * n);
}

// Every lumped kernel failed at a vertex of degree 100,000 with a fixed relative
// tolerance of 1e-12 (a sum of 100,000 terms in another order is off by about
// that many rounding units): each kernel of the fan validates.
TEST(HostileMeshes, EveryKernelValidatesAtAVertexOfDegree100000) {
  ompref::mesh::MeshInstance m(fan(100000), ompref::mesh::Renumber::none);
  for (const ompref::Variant* v : ompref::testing::runnable_variants("mesh")) {
    const ompref::RunResult r = ompref::testing::run_one(m, "mesh", v->name, "custom", 1, 0);
    EXPECT_TRUE(r.check.valid) << v->name << ": " << r.check.detail << " (error " << r.check.max_rel_error
                               << ", tolerance " << r.check.tolerance << ")";
  }
  // A wrong sum still fails: one lumped volume off by 1e-9 of itself.
  const ompref::Variant* lumped = nullptr;
  for (const ompref::Variant* v : ompref::testing::runnable_variants("mesh"))
    if (v->kind == ompref::Kind::host && v->kernel.rfind("lumped", 0) == 0) lumped = v;
  ASSERT_NE(lumped, nullptr);
  ASSERT_TRUE(ompref::testing::run_one(m, "mesh", lumped->name, "custom", 1, 0).check.valid);
  m.output("lumped")[0] *= 1 + 1e-9;
  EXPECT_FALSE(m.validate(1, lumped->kernel).valid);
}

// --tuned-shape 4,2147483647,512 passed the parser and overflowed the chunk
// arithmetic inside target_tuned (achtemp 0, exit 1): refused up front now.
TEST(HostileShapes, TunedShapesThatOverflowTheChunkArithmeticAreRefused) {
  for (const std::string shape : {"4,2147483647,512", "1,2147483137,1", "8,2147483500,512,1"}) {
    const auto r = run_ompref("run gpp --size tiny --variant target_tuned --reps 1 --no-ceiling --tuned-shape " + shape);
    EXPECT_EQ(r.status, 2) << shape << "\n" << r.output;
    EXPECT_EQ(count_lines(r.stderr_text), 1) << r.stderr_text;
    EXPECT_NE(r.stderr_text.find("IG_CHUNK"), std::string::npos) << r.stderr_text;
  }
  // The largest chunk that fits is accepted and validates (one chunk).
  const auto ok = run_ompref("run gpp --size tiny --variant target_tuned,target_multi --reps 1 --no-ceiling "
                             "--tuned-shape 4,2147483136,64");
  EXPECT_EQ(ok.status, 0) << ok.output;
}
