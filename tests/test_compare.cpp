// `ompref compare`: two small result files written here (DESIGN.md's schema)
// with known times, so that speedups, geometric means, runs in one file only,
// validation differences and --threshold's exit status are exact.
#include <algorithm>
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

json run(const std::string& workload, const std::string& variant, double median, bool valid = true,
         json params = json::object()) {
  const bool target = variant.rfind("target_", 0) == 0;
  return {{"workload", workload}, {"variant", variant}, {"kind", target ? "target" : "host"},
          {"ran_on", target ? "Test GPU (device 0)" : "host"}, {"device", target ? json(0) : json(nullptr)},
          {"size", "tiny"}, {"params", params}, {"reps", 3},
          {"time_s", {{"min", median * 0.9}, {"median", median}, {"max", median * 1.1}}},
          {"fom", {{"name", "GB/s"}, {"value", 1.0 / median}}}, {"ceiling_fraction", nullptr}, {"valid", valid}};
}

json document(const std::string& compiler, json runs) {
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
  // [2]: gpp 1.0 (2x), 2.0 (0.5x), 0.5 but FAIL; lbm 2.0 (2x) at another nx; mesh host_direct only here.
  void SetUp() override {
    a = write("a.json", document("g++ 12.2.0", {run("gpp", "host_tiled", 2.0), run("gpp", "target_basic", 1.0),
                                                run("gpp", "target_udr", 0.5), run("lbm", "host_naive", 4.0, true, {{"nx", 64}}),
                                                run("mesh", "target_reduce", 1.0)})
                             .dump());
    b = write("b.json", document("clang 19.1.7", {run("gpp", "host_tiled", 1.0), run("gpp", "target_basic", 2.0),
                                                  run("gpp", "target_udr", 0.5, false),
                                                  run("lbm", "host_naive", 2.0, true, {{"nx", 128}}),
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
  EXPECT_NEAR(*workload_geomeans(rows, "lbm", 2)[0].value, 2.0, 1e-12);
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
  EXPECT_NE(out.find("2.00x (1 run)"), std::string::npos) << "lbm geomean\n" << out;
  EXPECT_NE(out.find("mesh target_reduce tiny device 0: only in [1]"), std::string::npos) << out;
  EXPECT_NE(out.find("mesh host_direct tiny host: only in [2]"), std::string::npos) << out;
  EXPECT_NE(out.find("gpp target_udr tiny device 0: PASS in [1], FAIL in [2]"), std::string::npos) << out;
  EXPECT_NE(out.find("params that differ: nx: [1] 64, [2] 128"), std::string::npos) << out;
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
  EXPECT_NE(slower.output.find("[2] gpp target_basic tiny device 0: 2.000 s against 1.000 s in [1] (100.0% slower)"),
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

struct BadCompare {
  const char* name;
  std::string args;
  const char* must_mention;
};

void PrintTo(const BadCompare& c, std::ostream* os) { *os << c.name; }

class CompareBadInput : public Compare, public ::testing::WithParamInterface<BadCompare> {};

TEST_P(CompareBadInput, ExitsTwoWithOneLine) {
  const std::string not_json = write("not.json", "{ this is not JSON");
  const std::string other = write("other.json", R"({"device": 0, "microseconds": {"empty_target": 5.1}})");
  const std::string partial = write("partial.json", R"({"suite": "ompref", "runs": [{"workload": "gpp"}]})");
  std::string args = GetParam().args;
  for (auto [from, to] : {std::pair<std::string, std::string>{"A", a}, {"B", b}, {"NOTJSON", not_json},
                          {"OTHER", other}, {"PARTIAL", partial}, {"SRC", OMPREF_SOURCE_DIR}})
    for (std::size_t at; (at = args.find("@" + from)) != std::string::npos;) args.replace(at, from.size() + 1, to);
  auto r = run_ompref("compare " + args);
  EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
  EXPECT_EQ(count_lines(r.stderr_text), 1) << args << "\n" << r.stderr_text;
  EXPECT_NE(r.stderr_text.find(GetParam().must_mention), std::string::npos) << args << "\n" << r.stderr_text;
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
                      BadCompare{"negative_threshold", "@A @B --threshold -5", "--threshold"},
                      BadCompare{"threshold_not_a_number", "@A @B --threshold abc", "--threshold"}),
    [](const ::testing::TestParamInfo<BadCompare>& info) { return std::string(info.param.name); });

TEST(CompareLoad, RefusalIsAUsageError) {
  EXPECT_THROW(load_result_file("/nonexistent/x.json"), UsageError);
}

}  // namespace
}  // namespace ompref
