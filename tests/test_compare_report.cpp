// `ompref report`: refusals (a file not from `ompref run`, no python3, no
// matplotlib) are one line and exit 2, naming the Debian package; a report of
// two committed result files has its page, its charts and its comparison.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace ompref {
namespace {

using ompref::testing::count_lines;
using ompref::testing::run_ompref;

// Fixtures: two gpp paper runs of one H200 and other files of tests/data/ (tests/data/README.md).
const std::string data = std::string(OMPREF_SOURCE_DIR) + "/tests/data/";
const std::string gpp_1 = data + "gpp-paper-h200-1.json";
const std::string gpp_2 = data + "gpp-paper-h200-2.json";

std::string temp_dir(const char* name) {
  std::string tmpl = ::testing::TempDir() + name + "_XXXXXX";
  return mkdtemp(tmpl.data());
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
  std::FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string text;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe)) text += buf;
  pclose(pipe);
  EXPECT_NE(text.find("python3-matplotlib"), std::string::npos) << text;
  EXPECT_NE(text.find("exit 2"), std::string::npos) << text;
}

TEST(Report, TwoFilesGivePageChartsAndComparison) {
  const std::string out = temp_dir("ompref_report_two");
  const auto r = run_ompref("report " + gpp_1 + " " + gpp_2 + " --out " + out);
  if (r.status == 2 && r.stderr_text.find("python3-matplotlib") != std::string::npos)
    GTEST_SKIP() << "matplotlib is not installed: " << r.stderr_text;
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
}

}  // namespace
}  // namespace ompref
