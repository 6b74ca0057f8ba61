// `ompref compare` on a busy or changed machine: the rank test on the
// repetitions, the machine figures compared between files (ceilings, the
// host's FP64 probe, the load), the settings that differ, and the gate that
// counts a slower code but not a busier machine. Result files written here
// with known figures; one pair of real runs, one of them beside busy processes.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "app/compare.hpp"
#include "app/compare_noise.hpp"
#include "test_support.hpp"

namespace ompref {
namespace {

using nlohmann::json;
using ompref::testing::CommandResult;
using ompref::testing::lacks_matplotlib;
using ompref::testing::run_ompref;
using ompref::testing::ScratchDir;

// The exact p-values below come from enumerating every arrangement of the
// pooled values (C(10, 5) = 252 and C(11, 5) = 462 of them), independently of
// the recursion the test checks; the tied case from the normal approximation
// with tie and continuity corrections written out by hand.
TEST(RankTest, ExactWithoutTies) {
  EXPECT_NEAR(mann_whitney_p({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}), 2.0 / 252, 1e-12);
  EXPECT_NEAR(mann_whitney_p({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}), 2.0 / 252, 1e-12);
  EXPECT_NEAR(mann_whitney_p({1, 3, 5, 7, 9}, {2, 4, 6, 8, 10}), 0.6904761904761905, 1e-12);
  EXPECT_NEAR(mann_whitney_p({1.0, 1.1, 1.2, 1.3, 1.4}, {1.05, 1.15, 1.5, 1.6, 1.7, 1.8}), 0.1774891774891775, 1e-12);
  // Three against three, fully apart: 2 / C(6, 3), never below 0.05.
  EXPECT_NEAR(mann_whitney_p({1, 2, 3}, {4, 5, 6}), 0.1, 1e-12);
}

TEST(RankTest, NormalApproximationWithTies) {
  EXPECT_NEAR(mann_whitney_p({1, 2, 2, 3, 3, 3}, {2, 3, 4, 4, 5, 5, 6}), 0.028410955971066822, 1e-12);
  EXPECT_DOUBLE_EQ(mann_whitney_p({1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}), 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_p({}, {1, 2}), 1.0);
}

// A result document of one host run of stream tiny: its repetitions
// `samples` (seconds), the host's ceilings, the load, the threads.
struct Machine {
  double triad = 20, fp64 = 35.1;  // GB/s, GFLOP/s
  double wait = 0.02;              // run-queue wait fraction
  int threads = 2;
  std::string flags = "-O3";
};

json result(const std::vector<double>& samples, const Machine& m) {
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  json run = {{"workload", "stream"}, {"variant", "host_simd"}, {"kind", "host"}, {"ran_on", "host"},
              {"device", nullptr}, {"size", "tiny"}, {"params", {{"n", 65536}}}, {"reps", samples.size()},
              {"time_s", {{"min", sorted.front()}, {"median", median}, {"max", sorted.back()}, {"samples", samples}}},
              {"fom", {{"name", "GB/s"}, {"value", 1.5e-3 / median}}}, {"valid", true}};
  const std::string fp64_measured = fmt::format("FP64 x = a x + b, {} threads x 32 chains", m.threads);
  json ceiling = {{"place", "host"}, {"n", 1048576}, {"triad_GBps", m.triad}, {"triad_spread_percent", 1.0},
                  {"variant", "host_simd"}, {"measured", "stream host_simd triad"}, {"valid", true},
                  {"fp64_GFLOPs", m.fp64}, {"fp64_measured", fp64_measured}, {"fp64_spread_percent", 1.0}};
  return {{"suite", "ompref"}, {"compiler", "g++ 12.2.0"}, {"offload", "none"},
          {"host", {{"cpu", "Test CPU"}, {"threads", m.threads}, {"cores", 2}}},
          {"devices", json::array()},
          {"provenance", {{"date", "2026-01-02T03:04:05Z"}, {"compile_flags", m.flags}, {"git_commit", "abc"},
                          {"environment", {{"OMP_NUM_THREADS", std::to_string(m.threads)}}}}},
          {"ceilings", json::array({ceiling})},
          {"load", {{"cpus", 2}, {"run_queue_wait_fraction", m.wait}, {"other_busy_cpus", m.wait * 2},
                    {"cpu_steal_percent", 0.0}}},
          {"runs", json::array({run})}};
}

std::vector<double> times(double scale) {
  std::vector<double> t;
  for (double x : {1.00, 1.01, 0.99, 1.02, 1.005}) t.push_back(x * 111e-6 * scale);
  return t;
}

class CompareNoise : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const json& doc) {
    const std::string path = (dir.path / name).string();
    std::ofstream(path) << doc.dump();
    return path;
  }
  // `ompref compare a b --threshold 5`: exits `status`, prints each of `texts`.
  CommandResult compare_says(const std::string& a, const std::string& b, int status,
                             std::initializer_list<const char*> texts) {
    CommandResult r = run_ompref("compare " + a + " " + b + " --threshold 5");
    EXPECT_EQ(r.status, status) << r.output;
    for (const char* text : texts) EXPECT_NE(r.output.find(text), std::string::npos) << text << "\n" << r.output;
    return r;
  }
  ScratchDir dir;
};

// The busy machine of a shared 2-core host: every repetition far slower, the
// FP64 probe halved. Not a regression: the machine changed, with the figure.
TEST_F(CompareNoise, ABusierMachineIsNotARegression) {
  Machine quiet, busy;
  busy.fp64 = 16.8;
  busy.triad = 9;
  busy.wait = 0.7;
  const std::string a = write("quiet.json", result(times(1), quiet));
  const std::string b = write("busy.json", result(times(360), busy));
  compare_says(a, b, 0,
               {"0.0028x", "[2] against [1], host: host FP64 probe 35.1 -> 16.8 GFLOP/s (-52%; noise 10%)",
                "waited for a CPU 2% -> 70% of their runnable time",
                "slower than the threshold on a machine that changed (not counted):\n  [2] stream host_simd tiny host",
                "not comparable: machine changed: host triad ceiling 20 -> 9 GB/s"});
  // Only the load differs: still the machine.
  Machine loaded;
  loaded.wait = 0.6;
  compare_says(a, write("loaded.json", result(times(1.5), loaded)), 0,
               {"not comparable: machine changed: this process's threads waited for a CPU 2% -> 60%"});
}

// The same machine figures, every repetition 30% slower: a regression, found
// by the rank test on the repetitions.
TEST_F(CompareNoise, ASlowerCodeOnTheSameMachineFails) {
  Machine same;
  const std::string a = write("a.json", result(times(1), same));
  const std::string b = write("slow.json", result(times(1.3), same));
  compare_says(a, b, 1,
               {"machine: no change beyond noise against [1]",
                "(30.0% slower; threshold 5%, rank test p = 0.0079 over 5 and 5 repetitions)"});
  // Ceilings and load within noise (5% and 10 points): still the same machine.
  Machine near;
  near.fp64 = 35.1 * 0.95;
  near.wait = 0.12;
  compare_says(a, write("near.json", result(times(1.3), near)), 1, {});
}

// Fewer threads: the FP64 probe is measured another way (its thread count),
// so it is not a machine change; the slower runs fail, and the header says
// what differs.
TEST_F(CompareNoise, FewerThreadsIsASettingNotTheMachine) {
  Machine two, one;
  one.threads = 1;
  one.fp64 = 17.5;
  one.triad = 12;
  one.flags = "-O2";
  const std::string a = write("two.json", result(times(1), two));
  const std::string b = write("one.json", result(times(1.8), one));
  const CommandResult r = compare_says(a, b, 1,
                                       {"settings that differ between the files:\n",
                                        "  compile flags: [1] -O3, [2] -O2\n", "  OpenMP threads: [1] 2, [2] 1\n",
                                        "  environment OMP_NUM_THREADS: [1] 2, [2] 1\n"});
  EXPECT_EQ(r.output.find("machine changed"), std::string::npos) << r.output;
}

// Repetitions that overlap (the medians 5.8% apart, each run's spread 4%,
// two slow repetitions in [1]): the rank test finds no difference (U = 10 of
// 25, p = 0.69 by enumeration), where the spread rule alone would have failed it.
TEST_F(CompareNoise, OverlappingRepetitionsPass) {
  Machine same;
  const std::string a = write("a.json", result({1.00e-3, 1.20e-3, 1.02e-3, 1.25e-3, 1.04e-3}, same));
  const std::string b = write("b.json", result({1.10e-3, 1.06e-3, 1.13e-3, 1.19e-3, 1.08e-3}, same));
  std::vector<ResultFile> files = {load_result_file(a), load_result_file(b)};
  std::vector<Row> rows = match_runs(files);
  std::vector<Slower> s = slower_than_first(rows, files, parse_thresholds("5"));
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NEAR(s[0].percent, (1.10 / 1.04 - 1) * 100, 1e-9);
  EXPECT_GT(s[0].percent, s[0].noise_percent);  // beyond the spread rule (4%)
  ASSERT_TRUE(s[0].p_value.has_value());
  EXPECT_NEAR(*s[0].p_value, 0.6904761904761905, 1e-12);
  EXPECT_FALSE(s[0].beyond_noise);
  compare_says(a, b, 0, {});
}

// The result file keeps every repetition, their dispersion, the load while
// it ran and how its ceiling was sized.
TEST_F(CompareNoise, ARunRecordsItsRepetitionsLoadAndCeilingSizing) {
  const std::string path = (dir.path / "run.json").string();
  auto r = run_ompref("run stream --size tiny --variant host_simd --reps 5 --json " + path, "OMP_NUM_THREADS=1");
  ASSERT_EQ(r.status, 0) << r.output;
  json doc = json::parse(std::ifstream(path));
  const json& time = doc["runs"][0]["time_s"];
  ASSERT_EQ(time["samples"].size(), 5u);
  EXPECT_GE(time["stdev"].get<double>(), 0.0);
  double lowest = 1e300;
  for (const json& t : time["samples"]) lowest = std::min(lowest, t.get<double>());
  EXPECT_DOUBLE_EQ(lowest, time["min"].get<double>());
  const json& load = doc["load"];
  EXPECT_GT(load["cpus"].get<int>(), 0);
  EXPECT_GT(load["window_s"].get<double>(), 0.0);
  if (load["run_queue_wait_fraction"].is_number()) {
    EXPECT_GE(load["run_queue_wait_fraction"].get<double>(), 0.0);
    EXPECT_LE(load["run_queue_wait_fraction"].get<double>(), 1.0);
  }
  // A tiny run's host ceiling: below the default 3 x 256 MiB, sized from the run.
  const json& ceiling = doc["ceilings"][0];
  EXPECT_LT(ceiling["array_bytes"].get<double>(), 256.0 * 1024 * 1024) << ceiling.dump();
  EXPECT_NE(ceiling["sized"].get<std::string>().find("4 x the run's largest working set of 1.5 MiB"), std::string::npos)
      << ceiling.dump();
  EXPECT_EQ(ceiling["reps"].get<int>(), 5);
  EXPECT_GT(ceiling["measure_s"].get<double>(), 0.0);
}

// The machine record: in the result file, with the user's note, and shown by `devices`.
TEST_F(CompareNoise, MachineRecordInTheResultAndShownByDevices) {
  const std::string path = (dir.path / "noted.json").string();
  auto r = run_ompref("run stream --size tiny --variant host_simd --reps 1 --no-ceiling --note 'rack 7, BIOS 2.1' "
                      "--json " + path);
  ASSERT_EQ(r.status, 0) << r.output;
  const json machine = json::parse(std::ifstream(path))["machine"];
  EXPECT_EQ(machine["note"], "rack 7, BIOS 2.1") << machine.dump();
  EXPECT_EQ(machine["kernel"].get<std::string>().rfind("Linux ", 0), 0u) << machine.dump();
  for (const char* key : {"os", "numa_nodes", "cpu_governor"}) EXPECT_TRUE(machine.contains(key)) << key;
  auto d = run_ompref("devices");
  ASSERT_EQ(d.status, 0) << d.output;
  EXPECT_NE(d.output.find("machine:\n  os: "), std::string::npos) << d.output;
  EXPECT_NE(d.output.find("\n  kernel: Linux "), std::string::npos) << d.output;
  // Two files whose notes differ: compare's header says so.
  Machine m;
  json a = result(times(1), m), b = result(times(1), m);
  a["machine"] = {{"note", "before the BIOS update"}};
  b["machine"] = {{"note", "after"}};
  auto c = run_ompref("compare " + write("a.json", a) + " " + write("b.json", b));
  EXPECT_NE(c.output.find("  machine note: [1] before the BIOS update, [2] after\n"), std::string::npos) << c.output;
}

// A device's ceiling keeps its default size (3 x 2 GiB) for every workload's
// default device size: their working sets are not small (runner.cpp sizes a
// device's ceiling down only where 4 x the working set is below 768 MiB).
TEST(CeilingSize, EveryDefaultDeviceSizeKeepsTheDeviceCeiling) {
  for (Workload* w : registry().workloads()) {
    const double bytes = planned_host_bytes(*w, w->device_size());
    EXPECT_GE(4 * bytes, 768.0 * 1024 * 1024) << w->name() << " " << w->device_size() << ": " << bytes << " bytes";
  }
  // A tiny run's is small: stream tiny, three arrays of 2^16 doubles.
  EXPECT_DOUBLE_EQ(planned_host_bytes(*registry().workload("stream"), "tiny"), 3.0 * 8 * 65536);
}

// report's comparison prints a speedup far below 1 with its digits, as compare does.
TEST_F(CompareNoise, ReportPrintsSmallSpeedupsWithTheirDigits) {
  const std::string a = write("quiet.json", result(times(1), Machine{}));
  const std::string b = write("slow.json", result(times(360), Machine{}));
  const std::string out = (dir.path / "report").string();
  auto r = run_ompref("report " + a + " " + b + " --out " + out);
  if (lacks_matplotlib(r)) GTEST_SKIP() << "matplotlib is not installed: " << r.stderr_text;
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream in(out + "/index.md");
  const std::string md((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(md.find("| 0.0028x |"), std::string::npos) << md;
  EXPECT_EQ(md.find("0.00x"), std::string::npos) << md;
}

// Busy processes, one per CPU and one more, spinning until killed.
struct BusyProcesses {
  std::vector<pid_t> pids;
  BusyProcesses() {
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    for (long i = 0; i <= cpus; ++i) {
      const pid_t pid = fork();
      if (pid == 0) {
        volatile unsigned long spin = 0;
        for (;;) spin = spin + 1;
      }
      if (pid > 0) pids.push_back(pid);
    }
  }
  ~BusyProcesses() {
    for (pid_t pid : pids) kill(pid, SIGKILL);
    for (pid_t pid : pids) waitpid(pid, nullptr, 0);
  }
};

// Two real runs, unchanged, one of them beside busy processes on every core:
// the second is not gated as a code regression.
TEST_F(CompareNoise, ARunBesideBusyProcessesIsNotGatedAsARegression) {
  const std::string quiet = (dir.path / "quiet.json").string(), busy = (dir.path / "busy.json").string();
  const std::string run = "run stream --size tiny --variant host_simd --reps 5 --json ";
  auto q = run_ompref(run + quiet, "OMP_NUM_THREADS=1");
  ASSERT_EQ(q.status, 0) << q.output;
  {
    BusyProcesses others;
    auto b = run_ompref(run + busy, "OMP_NUM_THREADS=1");
    ASSERT_EQ(b.status, 0) << b.output;
  }
  compare_says(quiet, busy, 0, {});
}

}  // namespace
}  // namespace ompref
