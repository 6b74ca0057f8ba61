// `ompref compare`: two small result files written here (DESIGN.md's schema)
// with known times, so that speedups, geometric means, runs in one file only,
// validation differences and --threshold's exit status are exact.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "app/compare.hpp"
#include "common/usage_error.hpp"
#include "test_support.hpp"

namespace ompref {
namespace {

using nlohmann::json;
using ompref::testing::count_lines;
using ompref::testing::run_ompref;

// The unit of each workload's figure of merit, as the runner writes it.
std::string fom_of(const std::string& workload) {
  if (workload == "lbm") return "MLUPS";
  if (workload == "gpp") return "GFLOP/s";
  return "GB/s";
}

// A run of `work` units of work (its figure of merit: work / median) whose
// repetitions took from min_s to max_s (by default 0.9 and 1.1 x the median).
json run(const std::string& workload, const std::string& variant, double median, bool valid = true,
         json params = json::object(), const std::string& size = "tiny", double work = 1.0, double min_s = -1,
         double max_s = -1, const std::string& ran_on = "") {
  const bool target = variant.rfind("target_", 0) == 0;
  return {{"workload", workload}, {"variant", variant}, {"kind", target ? "target" : "host"},
          {"ran_on", !ran_on.empty() ? ran_on : target ? "Test GPU (device 0)" : "host"},
          {"device", target ? json(0) : json(nullptr)},
          {"size", size}, {"params", params}, {"reps", 5},
          {"time_s", {{"min", min_s >= 0 ? min_s : median * 0.9}, {"median", median}, {"max", max_s >= 0 ? max_s : median * 1.1}}},
          {"fom", {{"name", fom_of(workload)}, {"value", work / median}}}, {"ceiling_fraction", nullptr}, {"valid", valid}};
}

// The runs as a vector: a braced list of one json converted to `json` is an
// array under g++ but the element itself under clang (nlohmann's
// initializer-list rule), so the list is built from a vector.
json document(const std::string& compiler, const std::vector<json>& run_list) {
  const json runs(run_list);
  return {{"suite", "ompref"}, {"version", "0.1.0"}, {"compiler", compiler}, {"offload", "none"},
          {"host", {{"cpu", "Test CPU"}, {"threads", 2}, {"cores", 2}, {"memory_bytes", 1e9}}},
          {"devices", json::array({{{"id", 0}, {"name", "Test GPU"}, {"memory_bytes", 1e9}}})},
          {"provenance", {{"date", "2026-01-02T03:04:05Z"}, {"hostname", "test"}}},
          {"ceilings", json::array()}, {"runs", runs}};
}

class Compare : public ::testing::Test {
 protected:
  static std::string dir() {
    static const std::string d = [] {
      std::string tmpl = ::testing::TempDir() + "ompref_compare_XXXXXX";
      return std::string(mkdtemp(tmpl.data())) + "/";
    }();
    return d;
  }
  static std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir() + name) << text;
    return dir() + name;
  }
  // [1]: gpp 2.0/1.0/0.5 s, lbm 4.0 s, mesh target_reduce only here.
  // [2]: gpp 1.0 (2x), 2.0 (0.5x), 0.5 but FAIL; lbm 2.0 s for half the steps (the same rate: 1x by rate);
  //      mesh host_direct only here.
  void SetUp() override {
    a = write("a.json", document("g++ 12.2.0", {run("gpp", "host_tiled", 2.0), run("gpp", "target_basic", 1.0),
                                                run("gpp", "target_udr", 0.5), run("lbm", "host_naive", 4.0, true, {{"steps", 20}}, "tiny", 20),
                                                run("mesh", "target_reduce", 1.0)})
                             .dump());
    b = write("b.json", document("clang 19.1.7", {run("gpp", "host_tiled", 1.0), run("gpp", "target_basic", 2.0),
                                                  run("gpp", "target_udr", 0.5, false),
                                                  run("lbm", "host_naive", 2.0, true, {{"steps", 10}}, "tiny", 10),
                                                  run("mesh", "host_direct", 1.0)})
                               .dump());
  }
  std::string a, b;
};

TEST_F(Compare, LoadKeepsWhatComparingNeeds) {
  ResultFile f = load_result_file(a);
  ASSERT_EQ(f.runs.size(), 5u);
  EXPECT_EQ(f.runs[0].place, "host");
  EXPECT_EQ(f.runs[1].place, "device 0");
  EXPECT_EQ(f.runs[1].ran_on, "Test GPU (device 0)");
  EXPECT_DOUBLE_EQ(f.runs[0].median_s, 2.0);
  EXPECT_EQ(f.header, "g++ 12.2.0 | none | host Test CPU, 2 threads | Test GPU | 2026-01-02T03:04:05Z");
}

TEST_F(Compare, SpeedupIsTimeOfTheFirstOverTimeOfTheOther) {
  std::vector<ResultFile> files = {load_result_file(a), load_result_file(b)};
  std::vector<Row> rows = match_runs(files);
  ASSERT_EQ(rows.size(), 6u);  // 4 in both, one in each file only
  EXPECT_EQ(rows[0].variant, "host_tiled");
  EXPECT_DOUBLE_EQ(*speedup(rows[0], 1), 2.0);
  EXPECT_DOUBLE_EQ(*speedup(rows[1], 1), 0.5);
  EXPECT_DOUBLE_EQ(*speedup(rows[2], 1), 1.0);
  // Grouped by workload in order of appearance: gpp, lbm, mesh.
  EXPECT_EQ(rows[3].workload, "lbm");
  EXPECT_EQ(rows[4].workload, "mesh");
  EXPECT_EQ(rows[5].workload, "mesh");
}

TEST_F(Compare, ASecondRunOfTheSameVariantInAFileIsARowOfItsOwn) {
  const std::string twice = write("twice.json", document("g++", {run("gpp", "host_tiled", 1.0), run("gpp", "host_tiled", 4.0)}).dump());
  std::vector<ResultFile> files = {load_result_file(a), load_result_file(twice)};
  std::vector<Row> rows = match_runs(files);
  ASSERT_EQ(rows[0].place, "host");
  EXPECT_DOUBLE_EQ(*speedup(rows[0], 1), 2.0);
  const auto second = std::find_if(rows.begin(), rows.end(), [](const Row& r) { return r.place == "host #2"; });
  ASSERT_NE(second, rows.end());
  EXPECT_EQ(second->in_file[0], nullptr);
  EXPECT_DOUBLE_EQ(second->in_file[1]->median_s, 4.0);
}

TEST_F(Compare, GeometricMeanPerWorkloadOverRunsValidInBoth) {
  EXPECT_DOUBLE_EQ(*geometric_mean({2.0, 8.0}), 4.0);
  EXPECT_FALSE(geometric_mean({}).has_value());
  EXPECT_FALSE(geometric_mean({1.0, 0.0}).has_value());
  std::vector<ResultFile> files = {load_result_file(a), load_result_file(b)};
  std::vector<Row> rows = match_runs(files);
  std::vector<Geomean> gpp = workload_geomeans(rows, "gpp", 2);
  ASSERT_EQ(gpp.size(), 1u);
  EXPECT_EQ(gpp[0].runs, 2) << "target_udr failed in [2]: left out";
  EXPECT_NEAR(*gpp[0].value, 1.0, 1e-12);  // sqrt(2 * 0.5)
  // lbm's [2] did half the steps in half the time: the same rate, not a 2x speedup.
  const Geomean lbm = workload_geomeans(rows, "lbm", 2)[0];
  EXPECT_NEAR(*lbm.value, 1.0, 1e-12);
  EXPECT_EQ(lbm.by_rate, 1);
  EXPECT_FALSE(workload_geomeans(rows, "mesh", 2)[0].value.has_value()) << "no mesh run in both files";
}

TEST_F(Compare, PrintsHeadersMissingRunsValidationAndParams) {
  auto r = run_ompref("compare " + a + " " + b);
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string& out = r.output;
  EXPECT_NE(out.find("[1] " + a + ": g++ 12.2.0 | none | host Test CPU, 2 threads | Test GPU | 2026-01-02T03:04:05Z"),
            std::string::npos) << out;
  EXPECT_NE(out.find("[2] " + b + ": clang 19.1.7"), std::string::npos) << out;
  EXPECT_NE(out.find("1.00x (2 runs)"), std::string::npos) << "gpp geomean\n" << out;
  EXPECT_NE(out.find("1.00x (1 run, 1 by rate)"), std::string::npos) << "lbm geomean\n" << out;
  EXPECT_NE(out.find("mesh target_reduce tiny device 0: only in [1]"), std::string::npos) << out;
  EXPECT_NE(out.find("mesh host_direct tiny host: only in [2]"), std::string::npos) << out;
  EXPECT_NE(out.find("gpp target_udr tiny device 0: PASS in [1], FAIL in [2]"), std::string::npos) << out;
  EXPECT_NE(out.find("params that differ: steps: [1] 20, [2] 10"), std::string::npos) << out;
  EXPECT_EQ(out.find("threshold"), std::string::npos) << "no --threshold, no gating\n" << out;
  // The note column of the table says the same per row.
  for (const auto& [starts, note] : {std::pair<const char*, const char*>{"target_udr ", "FAIL in [2]"},
                                     {"target_reduce ", "not in [2]"}, {"host_direct ", "not in [1]"}}) {
    const std::size_t at = out.find(std::string("\n") + starts);
    ASSERT_NE(at, std::string::npos) << starts << "\n" << out;
    EXPECT_NE(out.substr(at, out.find('\n', at + 1) - at).find(note), std::string::npos) << starts << "\n" << out;
  }
}

TEST_F(Compare, ColumnsAlignForLongNames) {
  const std::string name(57, 'x');
  const std::string c = write("c.json", document("g++", {run("gpp", "host_" + name, 3.0), run("gpp", "host_tiled", 2.0)}).dump());
  const std::string d = write("d.json", document("g++", {run("gpp", "host_" + name, 1.0), run("gpp", "host_tiled", 4.0)}).dump());
  auto r = run_ompref("compare " + c + " " + d);
  ASSERT_EQ(r.status, 0) << r.output;
  std::istringstream lines(r.output);
  std::size_t header_end = std::string::npos;
  int rows = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("variant ", 0) == 0) header_end = line.find("[2] speedup") + std::string("[2] speedup").size();
    for (const char* speed : {"3.00x", "0.50x"})
      if (line.find(speed) != std::string::npos) {
        EXPECT_EQ(line.find(speed) + 5, header_end) << "right-aligned under its header\n" << r.output;
        ++rows;
      }
  }
  EXPECT_EQ(rows, 2) << r.output;
}

TEST_F(Compare, ThresholdGatesOnRunsSlowerThanTheFirst) {
  auto slower = run_ompref("compare " + a + " " + b + " --threshold 10");
  EXPECT_EQ(slower.status, 1) << slower.output;
  EXPECT_NE(slower.output.find("[2] gpp target_basic tiny device 0: 2.000 s against 1.000 s in [1] (100.0% slower; "
                               "threshold 10%, spread 11.1%)"),
            std::string::npos) << slower.output;
  EXPECT_EQ(slower.output.find("host_tiled tiny host: 1.000 s"), std::string::npos) << "faster: not listed";
  auto loose = run_ompref("compare " + a + " " + b + " --threshold 150");
  EXPECT_EQ(loose.status, 0) << loose.output;
  EXPECT_NE(loose.output.find("threshold 150%: no run is slower"), std::string::npos) << loose.output;
  auto same = run_ompref("compare " + a + " " + a + " --threshold 0");
  EXPECT_EQ(same.status, 0) << same.output;
}

TEST_F(Compare, ReadsWhatRunWrites) {
  const std::string path = dir() + "stream.json";
  auto run_result = run_ompref("run stream --size tiny --reps 2 --no-ceiling --json " + path);
  ASSERT_EQ(run_result.status, 0) << run_result.output;
  auto r = run_ompref("compare " + path + " " + path + " --threshold 0");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("host_simd"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1.00x (4 runs)"), std::string::npos) << r.output;  // stream: host_simd and three target forms
}

// The line of `out` that starts with `starts` (after a newline), or "".
std::string line_of(const std::string& out, const std::string& starts) {
  const std::size_t at = out.find("\n" + starts);
  if (at == std::string::npos) return "";
  return out.substr(at + 1, out.find('\n', at + 1) - at - 1);
}

int lines_with(const std::string& out, const std::string& part) {
  int n = 0;
  for (std::size_t at = 0; (at = out.find(part, at)) != std::string::npos; at += part.size()) ++n;
  return n;
}

// Two files of lbm whose runs did 20 and 10 steps a repetition: [2] took 0.51 s
// for half the work that [1] did in 1.0 s. By time that reads 1.96x; by MLUPS
// [2] is 2% slower.
TEST_F(Compare, DifferentStepsAreComparedByRateNeverByTime) {
  const json lbm20 = {{"nx", 64}, {"ny", 64}, {"nz", 64}, {"steps", 20}, {"case", "drops"}};
  json lbm10 = lbm20;
  lbm10["steps"] = 10;
  const std::string c = write("steps20.json", document("g++", {run("lbm", "host_basic", 1.0, true, lbm20, "small", 20)}).dump());
  const std::string d = write("steps10.json", document("g++", {run("lbm", "host_basic", 0.51, true, lbm10, "small", 10)}).dump());
  std::vector<ResultFile> files = {load_result_file(c), load_result_file(d)};
  std::vector<Row> rows = match_runs(files);
  ASSERT_EQ(rows.size(), 1u);
  const Comparison cmp = compare_in_row(rows[0], 1);
  EXPECT_EQ(cmp.basis, Basis::rate);
  EXPECT_NEAR(*cmp.speedup, (10 / 0.51) / 20.0, 1e-12);
  EXPECT_EQ(cmp.why, "by rate (MLUPS): steps differs");
  auto r = run_ompref("compare " + c + " " + d);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(line_of(r.output, "host_basic ").find("0.98x by rate"), std::string::npos) << r.output;
  EXPECT_NE(line_of(r.output, "host_basic ").find("[2] by rate (MLUPS): steps differs"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("1.96x"), std::string::npos) << "the time ratio of different work\n" << r.output;
  // A gate on the same pair sees 2% slower, not 96% faster.
  auto gated = run_ompref("compare " + c + " " + d + " --threshold 1");
  EXPECT_EQ(gated.status, 0) << gated.output;  // 2.0% slower, within the 11.1% spread
  EXPECT_NE(gated.output.find("[2] lbm host_basic small host: 19.61 MLUPS against 20 MLUPS in [1], by rate (2.0% "
                              "slower; threshold 1%, spread 11.1%)"),
            std::string::npos) << gated.output;
}

// A launch shape changes how the work is done, not how much: still by time.
TEST_F(Compare, ALaunchShapeThatDiffersIsStillComparedByTime) {
  const std::string c = write("tile1.json", document("g++", {run("lbm", "host_tiled", 2.0, true, {{"tile", "512x2x1"}})}).dump());
  const std::string d = write("tile2.json", document("g++", {run("lbm", "host_tiled", 1.0, true, {{"tile", "64x4x4"}})}).dump());
  std::vector<ResultFile> files = {load_result_file(c), load_result_file(d)};
  const Comparison cmp = compare_in_row(match_runs(files)[0], 1);
  EXPECT_EQ(cmp.basis, Basis::time);
  EXPECT_DOUBLE_EQ(*cmp.speedup, 2.0);
}

// --size auto on a GPU machine and on a 2-core host: stream large on the
// device, medium on the host. The runs still match (by rate), and one line says
// why the sizes differ and what to pass.
TEST_F(Compare, DifferentSizesMatchAcrossMachinesByRate) {
  const double large = 3.0 * 8 * (1 << 28), medium = 3.0 * 8 * (1 << 25);  // bytes a repetition
  const std::string gpu = write(
      "gpu.json", document("clang", {run("stream", "host_simd", 0.3, true, {{"n", 1 << 28}}, "large", large),
                                     run("stream", "target_simd", 0.007, true, {{"n", 1 << 28}}, "large", large)})
                      .dump());
  const std::string host = write(
      "host.json",
      document("g++", {run("stream", "host_simd", 0.06, true, {{"n", 1 << 25}}, "medium", medium),
                       run("stream", "target_simd", 0.06, true, {{"n", 1 << 25}}, "medium", medium, -1, -1,
                           "host (fallback)")})
          .dump());
  std::vector<ResultFile> files = {load_result_file(gpu), load_result_file(host)};
  std::vector<Row> rows = match_runs(files);
  ASSERT_EQ(rows.size(), 2u) << "each variant matched across the two sizes";
  EXPECT_EQ(rows[0].size, "large/medium");
  EXPECT_EQ(compare_in_row(rows[0], 1).basis, Basis::rate);
  EXPECT_NEAR(*speedup(rows[0], 1), (medium / 0.06) / (large / 0.3), 1e-12);
  EXPECT_EQ(compare_in_row(rows[0], 1).why, "by rate (GB/s): size differs");
  auto r = run_ompref("compare " + gpu + " " + host);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(lines_with(r.output, "sizes differ: "), 1) << r.output;
  EXPECT_NE(r.output.find("sizes differ: [1] ran stream large (its target variants ran on a device), [2] ran stream "
                          "medium (its target variants ran on the host); runs of another size are compared by rate "
                          "where the figure of merit normalises the size; --size auto picks device sizes where "
                          "target variants run on a device, host sizes elsewhere: pass the same --size to both runs "
                          "(e.g. ompref run all --size small)\n"),
            std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(2 runs, 2 by rate)"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("not in [1]"), std::string::npos) << r.output;
}

// gpp: another deck shape (number_bands, nodes_per_group), FLOP model or data
// set is not comparable; another ncouls (the deck's scale) is, by rate.
TEST_F(Compare, DifferentDecksAreComparableOnlyAtTheSameShape) {
  auto deck = [](int nb, int nc, int npg) {
    return json{{"number_bands", nb}, {"nvband", 2}, {"ncouls", nc}, {"nodes_per_group", npg}, {"ngpown", nc / npg},
                {"data", "uniform"}, {"flops_per_term", 21.0}, {"terms", 3.0 * nb * nc * (nc / npg)}};
  };
  json varied = deck(512, 512, 20);
  varied["data"] = "varied";
  json model = deck(512, 512, 20);
  model["flops_per_term"] = 16.0;
  const std::string c = write("deck1.json", document("g++", {run("gpp", "host_tiled", 1.0, true, deck(512, 512, 20), "small", 100),
                                                            run("gpp", "host_naive", 1.0, true, deck(512, 512, 20), "small", 100),
                                                            run("gpp", "target_basic", 1.0, true, deck(512, 512, 20), "small", 100),
                                                            run("gpp", "target_udr", 1.0, true, deck(512, 512, 20), "small", 100)})
                                                .dump());
  const std::string d = write("deck2.json", document("g++", {run("gpp", "host_tiled", 1.0, true, deck(32, 512, 16), "tiny", 50),
                                                            run("gpp", "host_naive", 8.0, true, deck(512, 8192, 20), "medium", 1600),
                                                            run("gpp", "target_basic", 1.0, true, varied, "small", 100),
                                                            run("gpp", "target_udr", 1.0, true, model, "small", 80)})
                                                .dump());
  std::vector<ResultFile> files = {load_result_file(c), load_result_file(d)};
  std::vector<Row> rows = match_runs(files);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(compare_in_row(rows[0], 1).why, "not comparable: nodes_per_group, number_bands differ");
  EXPECT_FALSE(speedup(rows[0], 1).has_value());
  EXPECT_EQ(compare_in_row(rows[1], 1).basis, Basis::rate);
  EXPECT_DOUBLE_EQ(*speedup(rows[1], 1), 2.0);  // 16x the terms in 8x the time
  EXPECT_EQ(compare_in_row(rows[2], 1).why, "not comparable: data differs");
  EXPECT_EQ(compare_in_row(rows[3], 1).why, "not comparable: flops_per_term differs");
  const Geomean g = workload_geomeans(rows, "gpp", 2)[0];
  EXPECT_EQ(g.runs, 1) << "the runs not comparable take no part";
  EXPECT_DOUBLE_EQ(*g.value, 2.0);
  auto r = run_ompref("compare " + c + " " + d + " --threshold 0");
  EXPECT_EQ(r.status, 0) << "runs not comparable are not gated\n" << r.output;
  EXPECT_NE(line_of(r.output, "host_tiled ").find("[2] not comparable: nodes_per_group, number_bands differ"),
            std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[2] gpp target_basic small device 0: not comparable: data differs"), std::string::npos)
      << r.output;
}

// mesh: the generated cube at another edge count is normalised by its GB/s; a
// mesh file against the cube is another problem.
TEST_F(Compare, MeshFilesAreNotTheCubeAtAnotherSize) {
  auto mesh = [](const std::string& source, int tets) { return json{{"source", source}, {"tetrahedra", tets}, {"renumber", "none"}}; };
  const std::string c = write("cube32.json", document("g++", {run("mesh", "host_direct", 1.0, true, mesh("cube 32", 1000), "small", 1),
                                                             run("mesh", "host_reduce", 1.0, true, mesh("cube 32", 1000), "small", 1),
                                                             run("mesh", "host_downward", 1.0, true, mesh("cube 32", 1000), "small", 1)})
                                                 .dump());
  const std::string d = write("cube128.json", document("g++", {run("mesh", "host_direct", 8.0, true, mesh("cube 128", 64000), "large", 64),
                                                              run("mesh", "host_reduce", 1.0, true, mesh("box.meshb", 1000), "small", 1),
                                                              run("mesh", "host_downward", 1.0, true, mesh("cube 32 jitter 0.1", 1000), "small", 1)})
                                                  .dump());
  std::vector<ResultFile> files = {load_result_file(c), load_result_file(d)};
  std::vector<Row> rows = match_runs(files);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(compare_in_row(rows[0], 1).basis, Basis::rate);
  EXPECT_DOUBLE_EQ(*speedup(rows[0], 1), 8.0);
  EXPECT_EQ(compare_in_row(rows[1], 1).why, "not comparable: source differs");
  EXPECT_EQ(compare_in_row(rows[2], 1).why, "not comparable: source differs");
}

// Nothing in common: one line says why and what to pass.
TEST_F(Compare, NothingInCommonSaysWhyInOneLine) {
  const json tiny = {{"number_bands", 32}, {"nodes_per_group", 16}, {"ncouls", 512}};
  const json small = {{"number_bands", 512}, {"nodes_per_group", 20}, {"ncouls", 512}};
  const std::string c = write("none1.json", document("g++", {run("gpp", "host_tiled", 1.0, true, tiny, "tiny"),
                                                            run("gpp", "target_basic", 1.0, true, tiny, "tiny", 1, -1, -1, "host (fallback)")})
                                                .dump());
  const std::string d = write("none2.json", document("g++", {run("gpp", "host_tiled", 1.0, true, small, "small"),
                                                            run("gpp", "target_basic", 1.0, true, small, "small")})
                                                .dump());
  auto r = run_ompref("compare " + c + " " + d + " --threshold 5");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(lines_with(r.output, "no run in common"), 1) << r.output;
  const std::string line = line_of(r.output, "no run in common");
  EXPECT_NE(line.find("no run in common between [1] and [2]: [1] ran gpp tiny (its target variants ran on the "
                      "host), [2] ran gpp small (its target variants ran on a device), and not comparable: "
                      "nodes_per_group, number_bands differ; --size auto picks device sizes where target variants "
                      "run on a device, host sizes elsewhere: pass the same --size to both runs"),
            std::string::npos) << r.output;
  // Two files of different workloads.
  const std::string e = write("none3.json", document("g++", {run("lbm", "host_basic", 1.0)}).dump());
  auto w = run_ompref("compare " + c + " " + e);
  EXPECT_EQ(w.status, 0) << w.output;
  EXPECT_NE(w.output.find("no run in common between [1] and [2]: [1] ran gpp, [2] ran lbm; run the same workloads\n"),
            std::string::npos) << w.output;
  // Files with a run in common say nothing of the kind.
  EXPECT_EQ(run_ompref("compare " + a + " " + b).output.find("no run in common"), std::string::npos);
}

// The gate and noise: a run 94% slower in one file, whose median sits far
// above its fastest repetition (a shared machine), is not a regression; a
// run 30% slower whose repetitions agree is.
TEST_F(Compare, NoiseWithinTheSpreadPassesARealRegressionFails) {
  const std::string c = write("quiet.json", document("g++", {run("stream", "host_simd", 1.00, true, {}, "tiny", 1, 0.98, 1.02),
                                                            run("stream", "target_simd", 1.00, true, {}, "tiny", 1, 0.99, 1.01)})
                                                .dump());
  const std::string noisy = write("noisy.json", document("g++", {run("stream", "host_simd", 1.94, true, {}, "tiny", 1, 0.99, 2.5),
                                                                run("stream", "target_simd", 1.00, true, {}, "tiny", 1, 0.99, 1.01)})
                                                    .dump());
  const std::string slow = write("slow.json", document("g++", {run("stream", "host_simd", 1.30, true, {}, "tiny", 1, 1.28, 1.33),
                                                              run("stream", "target_simd", 1.00, true, {}, "tiny", 1, 0.99, 1.01)})
                                                  .dump());
  std::vector<ResultFile> files = {load_result_file(c), load_result_file(noisy)};
  std::vector<Row> rows = match_runs(files);
  EXPECT_NEAR(spread_percent(files[1].runs[0]), (1.94 - 0.99) / 0.99 * 100, 1e-9);
  std::vector<Slower> s = slower_than_first(rows, 2, parse_thresholds("5"));
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NEAR(s[0].percent, 94.0, 1e-9);
  EXPECT_FALSE(s[0].beyond_noise);
  auto pass = run_ompref("compare " + c + " " + noisy + " --threshold 5");
  EXPECT_EQ(pass.status, 0) << pass.output;
  EXPECT_NE(pass.output.find("threshold 5%: no run is slower than in [1] beyond its threshold and its noise"),
            std::string::npos) << pass.output;
  EXPECT_NE(pass.output.find("within the noise of the two runs' repetitions (not counted):\n  [2] stream host_simd "
                             "tiny host: 1.940 s against 1.000 s in [1] (94.0% slower; threshold 5%, spread 96.0%)"),
            std::string::npos) << pass.output;
  auto fail = run_ompref("compare " + c + " " + slow + " --threshold 5");
  EXPECT_EQ(fail.status, 1) << fail.output;
  EXPECT_NE(fail.output.find("1 run(s) slower than in [1] beyond their threshold and their noise:\n  [2] stream "
                             "host_simd tiny host: 1.300 s against 1.000 s in [1] (30.0% slower; threshold 5%, "
                             "spread 2.0%)"),
            std::string::npos) << fail.output;
  // The threshold still counts: 30% slower passes a 40% threshold.
  EXPECT_EQ(run_ompref("compare " + c + " " + slow + " --threshold 40").status, 0);
}

// Per-place thresholds: the host run is 30% slower, the device run 10%; a
// target run that fell back to the host is a host run.
TEST_F(Compare, PerPlaceThresholds) {
  const std::string c = write("place1.json", document("g++", {run("stream", "host_simd", 1.00, true, {}, "tiny", 1, 1.0, 1.0),
                                                             run("stream", "target_simd", 1.00, true, {}, "tiny", 1, 1.0, 1.0),
                                                             run("stream", "target_basic", 1.00, true, {}, "tiny", 1, 1.0, 1.0)})
                                                 .dump());
  const std::string d = write("place2.json", document("g++", {run("stream", "host_simd", 1.30, true, {}, "tiny", 1, 1.3, 1.3),
                                                             run("stream", "target_simd", 1.10, true, {}, "tiny", 1, 1.1, 1.1),
                                                             run("stream", "target_basic", 1.30, true, {}, "tiny", 1, 1.3, 1.3,
                                                                 "host (fallback)")})
                                                 .dump());
  const Thresholds t = parse_thresholds("device=5,host=40");
  EXPECT_EQ(*t.device, 5);
  EXPECT_EQ(*t.host, 40);
  auto device_fails = run_ompref("compare " + c + " " + d + " --threshold device=5,host=40");
  EXPECT_EQ(device_fails.status, 1) << device_fails.output;
  EXPECT_NE(device_fails.output.find("threshold device 5%, host 40%: 1 run(s) slower"), std::string::npos)
      << device_fails.output;
  EXPECT_NE(device_fails.output.find("[2] stream target_simd tiny device 0: 1.100 s"), std::string::npos)
      << device_fails.output;
  EXPECT_EQ(device_fails.output.find("target_basic tiny device 0: 1.300 s"), std::string::npos)
      << "fell back to the host: the host's 40%\n" << device_fails.output;
  EXPECT_EQ(run_ompref("compare " + c + " " + d + " --threshold device=15,host=40").status, 0);
  auto host_fails = run_ompref("compare " + c + " " + d + " --threshold device=15,host=25");
  EXPECT_EQ(host_fails.status, 1) << host_fails.output;
  EXPECT_EQ(lines_with(host_fails.output, "(30.0% slower"), 2) << host_fails.output;
  // A plain P is every place; a place named beside it takes its own.
  const Thresholds mixed = parse_thresholds("25, device=15");
  EXPECT_EQ(*mixed.host, 25);
  EXPECT_EQ(*mixed.device, 15);
  EXPECT_EQ(run_ompref("compare " + c + " " + d + " --threshold 25,device=15").status, 1);
  EXPECT_EQ(run_ompref("compare " + c + " " + d + " --threshold 5").status, 1);
  // A place without a threshold is not gated, and the output says so.
  auto device_only = run_ompref("compare " + c + " " + d + " --threshold device=15");
  EXPECT_EQ(device_only.status, 0) << device_only.output;
  EXPECT_NE(device_only.output.find("host runs: not gated (no host threshold)"), std::string::npos) << device_only.output;
}

struct BadCompare {
  const char* name;
  std::string args;
  const char* must_mention;
};

void PrintTo(const BadCompare& c, std::ostream* os) { *os << c.name; }

// A refused --threshold value, given after two good files.
BadCompare bad_threshold(const char* name, const std::string& value, const char* must_mention) {
  return {name, "@A @B --threshold " + value, must_mention};
}

class CompareBadInput : public Compare, public ::testing::WithParamInterface<BadCompare> {};

TEST_P(CompareBadInput, ExitsTwoWithOneLine) {
  const std::string not_json = write("not.json", "{ this is not JSON");
  const std::string other = write("other.json", R"({"device": 0, "microseconds": {"empty_target": 5.1}})");
  const std::string partial = write("partial.json", R"({"suite": "ompref", "runs": [{"workload": "gpp"}]})");
  std::string args = GetParam().args;
  for (auto [from, to] : {std::pair<std::string, std::string>{"A", a}, {"B", b}, {"NOTJSON", not_json},
                          {"OTHER", other}, {"PARTIAL", partial}, {"SRC", OMPREF_SOURCE_DIR}})
    for (std::size_t at; (at = args.find("@" + from)) != std::string::npos;) args.replace(at, from.size() + 1, to);
  const auto r = ompref::testing::expect_one_line_refusal("compare " + args, GetParam().must_mention);
  EXPECT_TRUE(r.output.find("speedup") == std::string::npos) << "nothing printed before the refusal\n" << r.output;
}

INSTANTIATE_TEST_SUITE_P(
    Contract, CompareBadInput,
    ::testing::Values(BadCompare{"no_files", "", "at least two"}, BadCompare{"one_file", "@A", "at least two"},
                      BadCompare{"missing_file", "@A /nonexistent/x.json", "/nonexistent/x.json: no such file"},
                      BadCompare{"a_directory", "@A /tmp", "/tmp: not a file"},
                      BadCompare{"not_json", "@A @NOTJSON", "not JSON"},
                      BadCompare{"other_json", "@OTHER @A", "not a result file of `ompref run --json`"},
                      BadCompare{"committed_launch_cost",
                                 "@A @SRC/tests/data/launch-cost-openmp.json", "microseconds"},
                      BadCompare{"run_lacks_fields", "@A @PARTIAL", "run 1 lacks \"variant\""},
                      bad_threshold("negative_threshold", "-5", "--threshold"),
                      bad_threshold("threshold_not_a_number", "abc", "--threshold"),
                      bad_threshold("threshold_nan", "nan", "--threshold"),
                      bad_threshold("threshold_inf", "inf", "--threshold"),
                      bad_threshold("threshold_empty", "''", "--threshold"),
                      bad_threshold("threshold_empty_item", "host=5,,device=3", "empty item"),
                      bad_threshold("threshold_trailing_comma", "5,", "empty item"),
                      bad_threshold("threshold_unknown_place", "gpu=5", "unknown place 'gpu'"),
                      bad_threshold("threshold_negative_place", "device=-1", "--threshold"),
                      bad_threshold("threshold_place_twice", "host=5,host=6", "host given twice"),
                      bad_threshold("threshold_no_value", "device=", "--threshold"),
                      BadCompare{"threshold_before_files", "--threshold -1 /nonexistent/x.json @A", "--threshold"}),
    [](const ::testing::TestParamInfo<BadCompare>& info) { return std::string(info.param.name); });

TEST(CompareLoad, RefusalIsAUsageError) {
  EXPECT_THROW(load_result_file("/nonexistent/x.json"), UsageError);
}

}  // namespace
}  // namespace ompref

namespace ompref::testing {

// Each workload declares how two of its runs compare: a figure of merit, and
// only parameters its runs record (a declared name that no run carries would
// leave the parameter it meant not comparable, unnoticed); compare's sources
// name no workload.
TEST(CompareRules, EveryWorkloadDeclaresParametersItsRunsRecord) {
  for (Workload* w : registry().workloads()) {
    const Comparability c = w->comparability();
    EXPECT_FALSE(c.fom.empty()) << w->name();
    EXPECT_FALSE(c.params.empty()) << w->name();
    const std::vector<std::string> sizes = w->sizes();
    ASSERT_FALSE(sizes.empty()) << w->name();
    const nlohmann::json params = w->make(sizes.front(), test_limits())->params();
    for (const ComparedParam& p : c.params) EXPECT_TRUE(params.contains(p.param)) << w->name() << " " << p.param;
  }
}

TEST(CompareRules, ComparesSourcesNameNoWorkload) {
  for (const char* file : {"compare.cpp", "compare_rules.cpp", "compare_matching.cpp", "compare.hpp"}) {
    std::ifstream in(std::string(OMPREF_SOURCE_DIR) + "/src/app/" + file);
    ASSERT_TRUE(in) << file;
    std::stringstream text;
    text << in.rdbuf();
    for (Workload* w : registry().workloads()) {
      const std::string name = w->name();
      const std::string s = text.str();
      for (std::size_t at = s.find(name); at != std::string::npos; at = s.find(name, at + 1)) {
        const auto word = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
        const bool alone = (at == 0 || !word(s[at - 1])) && (at + name.size() >= s.size() || !word(s[at + name.size()]));
        EXPECT_FALSE(alone) << file << " names the workload " << name << " at offset " << at;
      }
    }
  }
}

}  // namespace ompref::testing
