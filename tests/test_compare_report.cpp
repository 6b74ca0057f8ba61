// `ompref report`: refusals (a file not from `ompref run`, no python3, no
// matplotlib) are one line and exit 2, naming the Debian package; a report of
// two committed result files has its page, its charts and its comparison;
// `compare --json` writes compare's matching, and report draws its comparison
// from it (by time, by rate, not comparable) and its steps from the lesson
// graph of `ompref list --json`; fractions are of the FP64 rate for
// compute-bound runs.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <utility>
#include <vector>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/results.hpp"
#include "test_support.hpp"

namespace ompref {
using ompref::testing::slurp;

namespace {

using ompref::testing::count_lines;
using ompref::testing::lacks_matplotlib;
using ompref::testing::run_ompref;
using ompref::testing::shell_text;

// Fixtures: two gpp paper runs of one H200 and other files of tests/data/ (tests/data/README.md).
const std::string data = std::string(OMPREF_SOURCE_DIR) + "/tests/data/";
const std::string gpp_1 = data + "gpp-paper-h200-1.json";
const std::string gpp_2 = data + "gpp-paper-h200-2.json";

std::string temp_dir(const char* name) {
  std::string tmpl = ::testing::TempDir() + name + "_XXXXXX";
  return mkdtemp(tmpl.data());
}

// `ompref report FILES --out <a fresh folder>`: what the command did, the folder and the page it wrote there.
struct Report {
  ompref::testing::CommandResult r;
  std::string out, md;
};
Report report(const std::string& files, const char* folder) {
  Report rep;
  rep.out = temp_dir(folder);
  rep.r = run_ompref("report " + files + " --out " + rep.out);
  rep.md = slurp(rep.out + "/index.md");
  return rep;
}

void expect_one_line_exit_two(const ompref::testing::CommandResult& r, const std::string& must_mention) {
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(count_lines(r.stderr_text), 1) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find(must_mention), std::string::npos) << r.stderr_text;
}

TEST(Report, RefusesFilesNotFromRun) {
  const std::string out = temp_dir("ompref_report_refuse");
  expect_one_line_exit_two(run_ompref("report " + data + "launch-cost-cuda.json --out " + out),
                           "not a result file of `ompref run --json`");
  expect_one_line_exit_two(run_ompref("report " + data + "ceilings.txt --out " + out), "not JSON");
  expect_one_line_exit_two(run_ompref("report --out " + out), "at least one result file");
  expect_one_line_exit_two(run_ompref("report " + gpp_1), "--out");
  expect_one_line_exit_two(run_ompref("report " + gpp_1 + " --out " + gpp_2), "not a directory");
}

TEST(Report, NoPythonNamesThePackages) {
  const std::string out = temp_dir("ompref_report_nopython");
  expect_one_line_exit_two(run_ompref("report " + gpp_1 + " --out " + out, "OMPREF_PYTHON=/nonexistent/python3"),
                           "python3-matplotlib");
}

// A matplotlib that fails to import stands for one that is not installed.
TEST(Report, NoMatplotlibNamesThePackage) {
  const std::string fake = temp_dir("ompref_report_fake");
  std::filesystem::create_directory(fake + "/matplotlib");
  std::ofstream(fake + "/matplotlib/__init__.py") << "raise ImportError('not installed')\n";
  const std::string out = temp_dir("ompref_report_nompl");
  const auto r = run_ompref("report " + gpp_1 + " --out " + out, "PYTHONPATH=" + fake);
  expect_one_line_exit_two(r, "python3-matplotlib");
  // report.py on its own says the same.
  const std::string cmd = "PYTHONPATH=" + fake + " python3 " + OMPREF_SOURCE_DIR + "/scripts/report.py " + gpp_1 +
                          " --out " + out + " 2>&1; echo \"exit $?\"";
  const std::string text = shell_text(cmd);
  EXPECT_NE(text.find("python3-matplotlib"), std::string::npos) << text;
  EXPECT_NE(text.find("exit 2"), std::string::npos) << text;
}

TEST(Report, TwoFilesGivePageChartsAndComparison) {
  const std::string out = temp_dir("ompref_report_two");
  // The CUDA ceilings of [1]'s command: the FP64 rate gpp's fractions are of.
  const std::string cuda =
      std::string(OMPREF_SOURCE_DIR) + "/tests/data/cuda-ceilings-h200.txt";
  const auto r = run_ompref("report " + gpp_1 + " " + gpp_2 + " --out " + out + " --cuda " + cuda);
  if (lacks_matplotlib(r)) GTEST_SKIP() << "matplotlib is not installed: " << r.stderr_text;
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream in(out + "/index.md");
  std::stringstream page;
  page << in.rdbuf();
  const std::string md = page.str();
  for (const char* part : {"# ompref report", "| [1] | `gpp-paper-h200-1.json`", "| [2] | `gpp-paper-h200-2.json`",
                           "### gpp, size paper", "## Comparison", "| target_tuned | paper | device 0 |",
                           "## What the charts show", "Roofline"})
    EXPECT_NE(md.find(part), std::string::npos) << part << "\n" << md;
  int linked = 0;
  for (std::size_t at = 0; (at = md.find("](", at)) != std::string::npos; ++linked) {
    const std::size_t end = md.find(')', at);
    const std::string png = md.substr(at + 2, end - at - 2);
    EXPECT_TRUE(std::filesystem::is_regular_file(out + "/" + png)) << png;
    at = end;
  }
  EXPECT_GE(linked, 7) << "per file: fraction, steps, roofline; and the comparison\n" << md;
  EXPECT_TRUE(std::filesystem::is_regular_file(out + "/compare-gpp.png"));
  EXPECT_TRUE(std::filesystem::is_regular_file(out + "/1-gpp-paper-fp64.png")) << "gpp against the FP64 rate";
  EXPECT_FALSE(std::filesystem::exists(out + "/1-gpp-paper-triad.png")) << "never against the triad";

  // Without an FP64 rate, no fraction chart, and the page says why.
  const std::string bare = temp_dir("ompref_report_bare");
  ASSERT_EQ(run_ompref("report " + gpp_1 + " --out " + bare).status, 0);
  std::ifstream bare_in(bare + "/index.md");
  std::stringstream bare_page;
  bare_page << bare_in.rdbuf();
  EXPECT_NE(bare_page.str().find("No fraction chart: compute-bound runs, no FP64 rate measured"), std::string::npos)
      << bare_page.str();
}

using nlohmann::json;

// A run of DESIGN.md's schema: `work` units of work in `median` seconds.
json stream_run(const std::string& variant, double median, const json& params, const std::string& size,
                double work = 1.0) {
  const bool target = variant.rfind("target_", 0) == 0;
  return {{"workload", "stream"}, {"variant", variant}, {"kind", target ? "target" : "host"},
          {"ran_on", target ? "Test GPU (device 0)" : "host"}, {"device", target ? json(0) : json(nullptr)},
          {"size", size}, {"params", params}, {"reps", 5},
          {"time_s", {{"min", median * 0.95}, {"median", median}, {"max", median * 1.05}}},
          {"bytes", work * 1e9}, {"flops", work * 1e8},
          {"fom", {{"name", "GB/s"}, {"value", work / median}}}, {"ceiling_fraction", nullptr}, {"valid", true}};
}

std::string write_doc(const std::string& dir, const std::string& name, const json& runs) {
  const json doc = {{"suite", "ompref"}, {"compiler", "test"}, {"offload", "none"},
                    {"host", {{"cpu", "Test CPU"}, {"threads", 2}}}, {"devices", json::array()},
                    {"ceilings", json::array()}, {"runs", runs}};
  std::ofstream(dir + "/" + name) << doc.dump();
  return dir + "/" + name;
}

// [1] and [2]: host_simd at the same size (by time: 2x), target_simd at
// another n (by rate: 3x), target_basic in single precision in [2] (not
// comparable: precision differs).
struct ThreeBases {
  std::string dir = temp_dir("ompref_compare_json");
  std::string first = write_doc(dir, "first.json",
                                {stream_run("host_simd", 2.0, {{"n", 1024}, {"array_bytes", 8192}}, "tiny"),
                                 stream_run("target_simd", 1.0, {{"n", 1024}, {"array_bytes", 8192}}, "tiny"),
                                 stream_run("target_basic", 1.0, {{"n", 1024}, {"array_bytes", 8192}}, "tiny")});
  std::string second = write_doc(
      dir, "second.json",
      {stream_run("host_simd", 1.0, {{"n", 1024}, {"array_bytes", 8192}}, "tiny"),
       stream_run("target_simd", 2.0, {{"n", 4096}, {"array_bytes", 32768}}, "small", 6.0),
       stream_run("target_basic", 0.5, {{"n", 1024}, {"array_bytes", 4096}, {"precision", "single"}}, "tiny")});
};

TEST(CompareJson, WritesTheMatchingAndEachBasis) {
  ThreeBases f;
  const std::string out = f.dir + "/compare.json";
  const auto r = run_ompref("compare " + f.first + " " + f.second + " --json " + out);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("geometric mean"), std::string::npos) << "the text still goes to standard output";
  const json j = json::parse(slurp(out));
  ASSERT_EQ(j["files"].size(), 2u);
  std::map<std::string, json> by_variant;
  for (const json& row : j["rows"]) by_variant[row["variant"].get<std::string>()] = row;
  ASSERT_EQ(by_variant.size(), 3u) << j.dump(2);
  const json& host = by_variant["host_simd"]["against_first"][1];
  EXPECT_EQ(host["basis"], "time");
  EXPECT_DOUBLE_EQ(host["speedup"].get<double>(), 2.0);
  const json& rate = by_variant["target_simd"]["against_first"][1];
  EXPECT_EQ(rate["basis"], "rate");
  EXPECT_DOUBLE_EQ(rate["speedup"].get<double>(), 3.0) << "3 GB/s against 1 GB/s";
  const json& single = by_variant["target_basic"]["against_first"][1];
  EXPECT_EQ(single["basis"], "not_comparable");
  EXPECT_TRUE(single["speedup"].is_null());
  EXPECT_NE(single["why"].get<std::string>().find("precision"), std::string::npos) << single.dump();
  EXPECT_FALSE(single["in_geomean"].get<bool>());
  EXPECT_EQ(by_variant["target_basic"]["runs"][1]["index"], 2) << "the run's place in its file";
  const json& mean = j["geomeans"]["stream"][1];
  EXPECT_EQ(mean["runs"], 2);
  EXPECT_EQ(mean["by_rate"], 1);
  EXPECT_NEAR(mean["value"].get<double>(), std::sqrt(6.0), 1e-12);
}

TEST(CompareJson, DashWritesJsonAloneToStandardOutput) {
  ThreeBases f;
  const auto r = run_ompref("compare " + f.first + " " + f.second + " --json -");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string out = r.output.substr(0, r.output.size() - r.stderr_text.size());  // standard output
  EXPECT_NE(r.stderr_text.find("geometric mean"), std::string::npos) << "the text on standard error";
  const json j = json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  EXPECT_EQ(j["rows"].size(), 3u);
}

TEST(CompareJson, BadOutputPathIsRefusedBeforeReading) {
  ThreeBases f;
  expect_one_line_exit_two(run_ompref("compare " + f.first + " " + f.second + " --json " + f.dir), "--json");
}

// report's comparison is compare's: a by-rate row says so, a row of another
// precision has no speedup and says why, and the chart leaves it out.
TEST(Report, ComparisonFollowsComparesRules) {
  ThreeBases f;
  const auto [r, out, md] = report(f.first + " " + f.second, "ompref_report_rules");
  if (lacks_matplotlib(r)) GTEST_SKIP() << "matplotlib is not installed: " << r.stderr_text;
  ASSERT_EQ(r.status, 0) << r.output;
  auto line_of = [&page = md](const std::string& start) {
    const std::size_t at = page.find(start);
    return at == std::string::npos ? std::string() : page.substr(at, page.find('\n', at) - at);
  };
  EXPECT_NE(line_of("| host_simd | tiny | host |").find("| 2.00x |"), std::string::npos) << md;
  EXPECT_NE(line_of("| target_simd | tiny/small | device 0 |").find("3.00x by rate"), std::string::npos) << md;
  const std::string single = line_of("| target_basic | tiny | device 0 |");
  EXPECT_NE(single.find("| - |"), std::string::npos) << single;
  EXPECT_NE(single.find("not comparable: precision differs"), std::string::npos) << single;
  EXPECT_NE(line_of("| geometric mean |").find("2.45x (2 runs, 1 by rate)"), std::string::npos) << md;
  EXPECT_TRUE(std::filesystem::is_regular_file(out + "/compare-stream.png"));
}

// The step charts follow the registrations' lesson graph, one chain per place,
// the CUDA twin a reference; gpp's fractions are of the FP64 rate.
TEST(Report, StepsFollowTheLessonGraphAndTwinsAreReferences) {
  const std::string file =
      std::string(OMPREF_SOURCE_DIR) + "/tests/data/gpu-check-h200.json";
  const auto [r, out, md] = report(file, "ompref_report_steps");
  if (lacks_matplotlib(r)) GTEST_SKIP() << "matplotlib is not installed: " << r.stderr_text;
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* part :
       {"Steps on host: host_naive → host_tiled.",
        "Steps on NVIDIA H200 (device 0): target_naive → target_basic, target_basic → target_udr, target_udr → "
        "target_hoisted, target_hoisted → target_tuned, target_tuned → target_multi; CUDA twin as a reference: "
        "native_tuned (kernel of target_tuned).",
        // lbm: target_many follows target_basic, after the main chain; both twins reference their kernels.
        "target_basic → target_shaped, target_shaped → target_fused, target_fused → target_lean, target_lean → "
        "target_streamed, target_basic → target_many; CUDA twin as a reference: native_fused (kernel of "
        "target_fused), native_streamed (kernel of target_streamed).",
        // mesh: the twin native_upward_csr by its kernel tag beside ball_csr.
        "native_upward_csr (kernel of target_ball_csr)"})
    EXPECT_NE(md.find(part), std::string::npos) << part << "\n" << md;
  for (const char* wrong : {"host_tiled → target_naive", "target_multi → native_tuned", "target_lean → target_many"})
    EXPECT_EQ(md.find(wrong), std::string::npos) << wrong;
}

TEST(Report, ComputeBoundRunsAgainstTheFp64Rate) {
  const std::string file = std::string(OMPREF_SOURCE_DIR) + "/tests/data/gpp-paper-multi-h200.json";
  const auto [r, out, md] = report(file, "ompref_report_fp64");
  if (lacks_matplotlib(r)) GTEST_SKIP() << "matplotlib is not installed: " << r.stderr_text;
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(md.find("1-gpp-paper-fp64.png"), std::string::npos) << md;
  EXPECT_EQ(md.find("1-gpp-paper-triad.png"), std::string::npos) << "gpp is compute-bound: no triad chart\n" << md;
  const json doc = json::parse(slurp(file));
  for (const json& run : doc["runs"]) {
    const std::string cell = fmt::format("{:.3f} F", run["fp64_fraction"].get<double>());
    EXPECT_NE(md.find(cell), std::string::npos) << run["variant"] << ": " << cell << "\n" << md;
  }
}


// compare --json never names one of compare's inputs, by identity: a link to
// an input is that input.
TEST(CompareJson, AnOutputThatIsAnInputIsRefused) {
  ThreeBases f;
  const std::string before = slurp(f.first);
  const std::string link = f.dir + "/link.json";
  std::filesystem::create_symlink(f.first, link);
  for (const std::string& out : {f.first, link}) {
    expect_one_line_exit_two(run_ompref("compare " + f.first + " " + f.second + " --json " + out), "--json");
    EXPECT_EQ(slurp(f.first), before) << out;
  }
}

TEST(CompareJson, ThresholdWithoutAPlaceIsRefused) {
  ThreeBases f;
  for (const char* t : {"=5", " =5", "host=5,=5"})
    expect_one_line_exit_two(run_ompref("compare " + f.first + " " + f.second + " --threshold '" + t + "'"),
                             "--threshold");
}

// Times at the edges of what a result file may hold: a ratio beyond a
// double is not comparable and says so, never inf; report draws the page.
TEST(CompareJson, ExtremeTimesGiveNoInfiniteSpeedup) {
  const std::string dir = temp_dir("ompref_compare_extreme");
  const json params = {{"n", 1024}, {"array_bytes", 8192}};
  const std::string slow = write_doc(dir, "slow.json", {stream_run("host_simd", 1e308, params, "tiny"),
                                                        stream_run("target_simd", 1.0, params, "tiny")});
  const std::string fast = write_doc(dir, "fast.json", {stream_run("host_simd", 5e-324, params, "tiny"),
                                                        stream_run("target_simd", 1.0, params, "tiny")});
  for (const auto& [a, b] : {std::pair{slow, fast}, std::pair{fast, slow}}) {
    const auto r = run_ompref("compare " + a + " " + b + " --json " + dir + "/c.json");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(r.output.find("inf"), std::string::npos) << r.output;
    const json j = json::parse(slurp(dir + "/c.json"));
    for (const json& row : j["rows"]) {
      const json& against = row["against_first"][1];
      if (row["variant"] == "host_simd") {
        EXPECT_EQ(against["basis"], "not_comparable") << against.dump();
        EXPECT_NE(against["why"].get<std::string>().find("range"), std::string::npos) << against.dump();
      } else {
        EXPECT_DOUBLE_EQ(against["speedup"].get<double>(), 1.0);
      }
    }
    const std::string out = temp_dir("ompref_report_extreme");
    const auto rep = run_ompref("report " + a + " " + b + " --out " + out);
    if (lacks_matplotlib(rep)) GTEST_SKIP() << "matplotlib is not installed: " << rep.stderr_text;
    EXPECT_EQ(rep.status, 0) << rep.output;
    EXPECT_TRUE(std::filesystem::is_regular_file(out + "/index.md"));
  }
}

// report replaces index.md and the charts in --out: an input that is one of
// them (through a symbolic link, whatever its name) is refused, intact.
TEST(Report, AnInputLinkedIntoOutIsRefused) {
  const std::string out = temp_dir("ompref_report_linked");
  const std::string page = out + "/index.md", chart = out + "/1-gpp-paper-fp64.png";
  std::filesystem::copy_file(gpp_1, page);
  std::filesystem::copy_file(gpp_2, chart);
  const std::string dir = temp_dir("ompref_report_inputs");
  std::filesystem::create_symlink(page, dir + "/a.json");
  std::filesystem::create_symlink(chart, dir + "/b.json");
  for (const char* input : {"/a.json", "/b.json"}) {
    const auto r = run_ompref("report " + dir + input + " --out " + out);
    expect_one_line_exit_two(r, "would replace");
  }
  EXPECT_EQ(slurp(page), slurp(gpp_1));
  EXPECT_EQ(slurp(chart), slurp(gpp_2));
}

// An interpreter that exits 0 without writing the page, and a write that
// fails (a file-size limit): exit 2 with one line, never 0 or a traceback.
TEST(Report, NothingWrittenOrAFailedWriteIsAnError) {
  const std::string out = temp_dir("ompref_report_nothing");
  expect_one_line_exit_two(run_ompref("report " + gpp_1 + " --out " + out, "OMPREF_PYTHON=/bin/true"),
                           "without writing");
  const auto r = run_ompref("report " + gpp_1 + " --out " + out, "ulimit -f 16;");
  if (lacks_matplotlib(r)) GTEST_SKIP() << "matplotlib is not installed: " << r.stderr_text;
  expect_one_line_exit_two(r, "cannot write");
  for (const auto& e : std::filesystem::directory_iterator(out))
    EXPECT_EQ(e.path().filename().string().find(".report.tmp"), std::string::npos) << "staging left";
}

// Names from result files are text on the page (no HTML, no link), and
// charts of names that slug alike are different files.
TEST(Report, NamesAreEscapedAndChartsDoNotCollide) {
  const std::string dir = temp_dir("ompref_report_names");
  const json params = {{"n", 1024}, {"array_bytes", 8192}};
  json runs = {stream_run("host_simd", 1.0, params, "tiny"), stream_run("host_simd", 2.0, params, "TINY"),
               stream_run("<img src=x onerror=alert(1)>", 1.0, params, "tiny"),
               stream_run("a](http://x)|b", 1.0, params, "tiny")};
  for (json& r : runs) r["ceiling_fraction"] = 0.5;
  runs[1]["workload"] = "stream";
  const std::string file = write_doc(dir, "names.json", runs);
  const auto [r, out, md] = report(file, "ompref_report_names_out");
  if (lacks_matplotlib(r)) GTEST_SKIP() << "matplotlib is not installed: " << r.stderr_text;
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(md.find("<img"), std::string::npos) << md;
  EXPECT_NE(md.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos) << md;
  EXPECT_EQ(md.find("a](http"), std::string::npos) << md;
  std::vector<std::string> links;
  for (std::size_t at = 0; (at = md.find("](", at)) != std::string::npos; at += 2) {
    const std::size_t end = md.find(')', at);
    const std::string name = md.substr(at + 2, end - at - 2);
    if (name.size() > 4 && name.substr(name.size() - 4) == ".png") links.push_back(name);
  }
  const std::set<std::string> distinct(links.begin(), links.end());
  int pngs = 0;
  for (const auto& e : std::filesystem::directory_iterator(out)) pngs += e.path().extension() == ".png";
  EXPECT_GE(links.size(), 4u) << "two sizes, each with its charts\n" << md;
  EXPECT_EQ(distinct.size(), links.size()) << "two charts under one name\n" << md;
  EXPECT_EQ(int(distinct.size()), pngs) << md;
}


// A result file of a newer schema is refused in one line, before any output;
// one of this program's schema is read.
TEST(CompareJson, ANewerSchemaVersionIsRefused) {
  const std::string dir = temp_dir("schema");
  std::ifstream in(gpp_2);
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["schema_version"] = result_schema_version() + 1;
  std::ofstream(dir + "/newer.json") << doc.dump();
  expect_one_line_exit_two(run_ompref("compare " + gpp_1 + " " + dir + "/newer.json"), "newer than this ompref reads");
  expect_one_line_exit_two(run_ompref("report " + dir + "/newer.json --out " + dir + "/page"), "newer than this ompref reads");
  EXPECT_FALSE(std::filesystem::exists(dir + "/page"));
  doc["schema_version"] = "1";
  std::ofstream(dir + "/text.json") << doc.dump();
  expect_one_line_exit_two(run_ompref("compare " + gpp_1 + " " + dir + "/text.json"), "is not a version");
  doc["schema_version"] = result_schema_version();
  std::ofstream(dir + "/same.json") << doc.dump();
  EXPECT_EQ(run_ompref("compare " + gpp_1 + " " + dir + "/same.json >/dev/null").status, 0);
}

// A small stack (ulimit -s 64) is enough to read a result file: no buffer
// of its size on the stack. AddressSanitizer puts redzones around every
// frame's variables and needs about four times the stack for the same calls.
#if defined(__SANITIZE_ADDRESS__)
constexpr int small_stack_kib = 256;
#else
constexpr int small_stack_kib = 64;
#endif
TEST(CompareJson, ASmallStackReadsResultFiles) {
  const auto r = run_ompref("compare " + gpp_1 + " " + gpp_2 + " >/dev/null",
                            "ulimit -s " + std::to_string(small_stack_kib) + ";");
  EXPECT_EQ(r.status, 0) << r.output;
}

}  // namespace
}  // namespace ompref
