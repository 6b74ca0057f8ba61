// What a run is asked to cover: `ompref list <workload>` and `ompref check
// --workload W --variant V --exclude V` (names V or <workload>.<variant>, as
// the JUnit test cases are named; comma lists or the option repeated); a name
// that selects nothing is bad input (exit 2, one line, nothing run).
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace {

using ompref::testing::count_lines;
using ompref::testing::run_ompref;

std::set<std::string> listed_workloads(const std::string& output) {
  std::set<std::string> out;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) out.insert(line.substr(0, line.find(' ')));
  return out;
}

TEST(Selection, ListOfOneWorkloadListsItsVariantsAlone) {
  auto all = run_ompref("list");
  auto stream = run_ompref("list stream");
  ASSERT_EQ(stream.status, 0) << stream.output;
  EXPECT_EQ(listed_workloads(stream.output), std::set<std::string>{"stream"}) << stream.output;
  int in_all = 0;
  std::istringstream lines(all.output);
  for (std::string line; std::getline(lines, line);) in_all += line.rfind("stream ", 0) == 0;
  EXPECT_EQ(count_lines(stream.output), in_all) << "every stream variant of `list`";
  auto json = run_ompref("list gpp --json");
  ASSERT_EQ(json.status, 0) << json.output;
  for (const auto& v : nlohmann::json::parse(json.output)) EXPECT_EQ(v["workload"], "gpp");
  auto unknown = run_ompref("list nosuch");
  EXPECT_EQ(unknown.status, 2) << unknown.output;
  EXPECT_EQ(count_lines(unknown.stderr_text), 1) << unknown.stderr_text;
  EXPECT_NE(unknown.stderr_text.find("accepted: stream"), std::string::npos) << unknown.stderr_text;
}

// The runs of a `check --json -` as "<workload>.<variant>".
std::set<std::string> checked(const std::string& args) {
  const std::string path = ::testing::TempDir() + "ompref_selection.json";
  auto r = run_ompref("check --quiet --save none --isolate off --json " + path + " " + args);
  EXPECT_EQ(r.status, 0) << args << "\n" << r.output;
  std::set<std::string> out;
  if (r.status != 0) return out;
  std::ifstream in(path);
  const nlohmann::json doc = nlohmann::json::parse(in);
  for (const auto& run : doc["runs"])
    out.insert(run["workload"].get<std::string>() + "." + run["variant"].get<std::string>());
  return out;
}

TEST(Selection, CheckRunsTheWorkloadsAndVariantsAskedForAndLeavesOutTheExcluded) {
  EXPECT_EQ(checked("--workload stream --variant host_simd,target_simd"),
            (std::set<std::string>{"stream.host_simd", "stream.target_simd"}));
  // A bare name in every chosen workload that has it; repeated options add up.
  EXPECT_EQ(checked("--workload stream,gpp --variant target_basic"),
            (std::set<std::string>{"stream.target_basic", "gpp.target_basic"}));
  EXPECT_EQ(checked("--variant stream.host_simd --variant gpp.host_naive"),
            (std::set<std::string>{"stream.host_simd", "gpp.host_naive"}));
  const std::set<std::string> stream = checked("--workload stream");
  const std::set<std::string> without = checked("--workload stream --exclude host_simd,stream.target_simd");
  EXPECT_EQ(without.size() + 2, stream.size());
  EXPECT_EQ(without.count("stream.host_simd") + without.count("stream.target_simd"), 0u);
}

TEST(Selection, CheckRefusesASelectionThatNamesNothing) {
  for (const char* args : {"--workload nosuch", "--workload stream --variant nosuch",
                           "--workload gpp --variant stream.host_simd", "--exclude nosuch",
                           "--workload stream --variant host_simd --exclude host_simd", "--variant host_simd,",
                           "--workload stream,"}) {
    auto r = run_ompref(std::string("check --save none --isolate off ") + args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_EQ(count_lines(r.stderr_text), 1) << args << "\n" << r.stderr_text;
    EXPECT_EQ(r.output.find("PASS"), std::string::npos) << args << ": nothing runs\n" << r.output;
  }
}

}  // namespace
