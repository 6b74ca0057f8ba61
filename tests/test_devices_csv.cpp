// `ompref devices --require N` (exit 2 and one line when fewer than N offload
// devices run target regions), and the CSV's per-phase columns (DESIGN.md):
// one `<phase>_GBps` column per phase of the suite's workloads, the JSON's
// phases[].GBps, the same columns whatever ran.
#include <algorithm>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <omp.h>

#include "common/device.hpp"
#include "common/registry.hpp"
#include "common/results.hpp"
#include "test_support.hpp"

namespace ompref {
namespace {

using ompref::testing::count_lines;
using ompref::testing::run_ompref;

int usable_devices() {
  int n = 0;
  for (const DeviceInfo& d : offload_devices()) n += target_runs_on_device(d.id);
  return n;
}

TEST(DevicesRequire, FewerThanRequiredIsOneLineAndExitTwo) {
  const int usable = usable_devices();
  auto r = run_ompref("devices --require " + std::to_string(usable + 1));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(count_lines(r.stderr_text), 1) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find(std::to_string(usable) + " usable offload device"), std::string::npos)
      << r.stderr_text;
  EXPECT_EQ(r.output, r.stderr_text) << "nothing on standard output";
}

TEST(DevicesRequire, EnoughDevicesListsThem) {
  const int usable = usable_devices();
  if (usable == 0) GTEST_SKIP() << "no usable offload device here";
  auto r = run_ompref("devices --require " + std::to_string(usable));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("device 0:"), std::string::npos) << r.output;
}

TEST(DevicesRequire, BadCountIsRefused) {
  for (const char* bad : {"0", "-1", "two"}) {
    auto r = run_ompref(std::string("devices --require ") + bad);
    EXPECT_EQ(r.status, 2) << bad << ": " << r.output;
    EXPECT_EQ(count_lines(r.stderr_text), 1) << r.stderr_text;
  }
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream cells(line);
  for (std::string cell; std::getline(cells, cell, ',');) out.push_back(cell);
  return out;
}

TEST(CsvPhases, OneColumnPerPhaseWithTheJsonRates) {
  ompref::testing::ScratchDir dir;
  const std::string json = (dir.path / "r.json").string(), csv = (dir.path / "r.csv").string();
  auto r = run_ompref("run stream --size tiny --reps 2 --no-ceiling --save none --variant host_simd,target_simd "
                      "--json " + json + " --csv " + csv);
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream in(csv);
  std::string header_line;
  std::getline(in, header_line);
  const std::vector<std::string> header = split(header_line);
  const nlohmann::json doc = nlohmann::json::parse(std::ifstream(json));
  for (const nlohmann::json& run : doc["runs"]) {
    std::string line;
    ASSERT_TRUE(std::getline(in, line));
    const std::vector<std::string> row = split(line);  // the leading columns hold no comma
    ASSERT_EQ(run["phases"].size(), 5u);
    for (const nlohmann::json& phase : run["phases"]) {
      const std::string name = phase["name"].get<std::string>() + "_GBps";
      const auto at = std::find(header.begin(), header.end(), name);
      ASSERT_NE(at, header.end()) << name << " not in " << header_line;
      const std::size_t column = std::size_t(at - header.begin());
      EXPECT_LT(column, std::size_t(std::find(header.begin(), header.end(), "git_describe") - header.begin()))
          << "before the provenance";
      ASSERT_LT(column, row.size());
      EXPECT_NEAR(std::stod(row[column]), phase["GBps"].get<double>(), 1e-6 * phase["GBps"].get<double>()) << name;
    }
  }
}

// The CSV has the same columns whatever ran: every phase column of
// csv_phase_columns(), an empty cell where a run lacks a phase, and a phase
// outside the list in other_phases_GBps.
TEST(CsvPhases, SameColumnsWhateverRanAndEmptyCellsWhereARunLacksOne) {
  auto run_with = [](const std::string& workload, const std::vector<std::pair<std::string, double>>& phases) {
    RunResult r;
    r.workload = workload;
    r.variant = "host_x";
    r.ran_on = "host";
    r.size = "tiny";
    r.check.valid = true;
    for (const auto& [name, gbps] : phases) {
      PhaseResult p;
      p.name = name;
      p.gbps = gbps;
      r.phases.push_back(p);
    }
    return r;
  };
  const std::vector<RunResult> runs = {
      run_with("stream", {{"copy", 1.5}, {"mul", 2.5}}),
      run_with("lbm", {{"calculate_phi", 3.5}, {"calculate_fn", 4.5}, {"update_boundary", 5.5}}),
      run_with("lbm", {{"calculate_phi", 6.5}, {"new_pass", 7.5}}),
      run_with("gpp", {})};
  std::istringstream lines(runs_to_csv(runs));
  std::string line;
  std::getline(lines, line);
  const std::vector<std::string> header = split(line);
  const auto first = std::find(header.begin(), header.end(), "fp64_fraction") + 1;
  ASSERT_LE(first + 12, header.end());
  EXPECT_EQ(std::vector<std::string>(first, first + 12),
            (std::vector<std::string>{"copy_GBps", "mul_GBps", "add_GBps", "triad_GBps", "dot_GBps",
                                      "calculate_phi_GBps", "calculate_fn_GBps", "update_boundary_GBps",
                                      "to_standard_GBps", "halo_psi_GBps", "halo_populations_GBps",
                                      "other_phases_GBps"}));
  EXPECT_NE(line.find(",ranks,decomposition,rank_median_min_s,rank_median_max_s,"), std::string::npos)
      << "the MPI columns in every file";
  // The header of a file of one stream run and of a file of gpp alone: the same.
  std::istringstream alone(runs_to_csv({runs[3]}));
  std::string gpp_header;
  std::getline(alone, gpp_header);
  EXPECT_EQ(gpp_header, line);
  const std::size_t at = std::size_t(first - header.begin());
  const std::vector<std::vector<std::string>> want = {{"1.5", "2.5", "", "", "", "", "", "", "", "", "", ""},
                                                      {"", "", "", "", "", "3.5", "4.5", "5.5", "", "", "", ""},
                                                      {"", "", "", "", "", "6.5", "", "", "", "", "", "new_pass=7.5"},
                                                      {"", "", "", "", "", "", "", "", "", "", "", ""}};
  for (const auto& cells : want) {
    ASSERT_TRUE(std::getline(lines, line));
    const std::vector<std::string> row = split(line);
    ASSERT_GE(row.size(), at + 13) << line;
    EXPECT_EQ(std::vector<std::string>(row.begin() + std::ptrdiff_t(at), row.begin() + std::ptrdiff_t(at + 12)), cells)
        << line;
    EXPECT_EQ(row[at + 12], "1") << "one rank: " << line;
  }
}

// Every phase a workload of this build times has its own column: none falls
// into other_phases_GBps (each workload's instance at its smallest size).
TEST(CsvPhases, EveryWorkloadsPhasesHaveAColumn) {
  MemoryLimits limits;
  limits.host_bytes = 1e12;
  const std::vector<std::string>& columns = csv_phase_columns();
  int timed = 0;
  for (Workload* w : registry().workloads()) {
    const std::unique_ptr<Instance> instance = w->make(w->sizes().front(), limits);
    for (const PhaseModel& p : instance->phases()) {
      ++timed;
      EXPECT_NE(std::find(columns.begin(), columns.end(), p.name), columns.end())
          << w->name() << "'s phase " << p.name << " has no CSV column (csv_phase_columns)";
    }
  }
  EXPECT_GE(timed, 11) << "stream's five phases, lbm's four passes and two halo exchanges";
}

}  // namespace
}  // namespace ompref
