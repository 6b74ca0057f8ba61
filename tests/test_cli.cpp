// The `ompref` command's contract (DESIGN.md): list format, the JSON schema,
// and exit status 2 with exactly one line on stderr for every kind of bad input.
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <omp.h>

#include "test_support.hpp"

namespace ompref {
namespace {

using ompref::testing::count_lines;
using ompref::testing::run_ompref;

using BadInput = ompref::testing::BadArgs;
using ompref::testing::RefusedCommand;

TEST_P(RefusedCommand, ExitsTwoWithOneLine) {
  ompref::testing::expect_one_line_refusal(GetParam().args, GetParam().must_mention);
}

INSTANTIATE_TEST_SUITE_P(
    Contract, RefusedCommand,
    ::testing::Values(BadInput{"", "subcommand"}, BadInput{"frobnicate", "frobnicate"},
                      BadInput{"run", "workload"}, BadInput{"run nosuch", "stream"},
                      BadInput{"run stream --variant nope", "host_simd"},
                      BadInput{"run stream --variant host_simd,nope", "nope"},
                      BadInput{"run stream --size huge", "tiny"},
                      BadInput{"run all --variant host_simd", "--variant"},
                      BadInput{"run stream --size tiny --reps -3", "--reps"},
                      BadInput{"run stream --size tiny --reps 0", "--reps"},
                      BadInput{"run stream --size tiny --reps 1000000000", "--reps"},
                      BadInput{"run stream --size tiny --reps abc", "--reps"},
                      BadInput{"run stream --size tiny --warmup -1", "--warmup"},
                      BadInput{"run stream --n -5", "--n"},
                      BadInput{"run stream --n 100000000000000", "--n"},
                      BadInput{"run stream --n 17179869184 --no-ceiling", "GiB"},
                      BadInput{"run stream --size tiny --json /nonexistent-dir/out.json", "/nonexistent-dir/out.json"},
                      BadInput{"run stream --size tiny --csv /proc/version", "--csv"},
                      BadInput{"run stream --size tiny --device 99", "--device 99"},
                      BadInput{"run stream --size tiny --device -1", "--device"},
                      BadInput{"run stream --size tiny --device x", "--device x"},
                      BadInput{"run stream --size tiny --unknown-flag", "--unknown-flag"},
                      BadInput{"run stream --size tiny --json ''", "--json"},
                      BadInput{"run stream --device ''", "--device"},
                      BadInput{"run stream --size tiny --unknown ''", "--unknown"},
                      BadInput{"run stream ''", "argument 3 is empty"},
                      BadInput{"run stream --size tiny --device-wait sleep", "--device-wait"}));

TEST(Cli, MandatoryOffloadWithoutDeviceExitsTwo) {
  if (omp_get_num_devices() > 0) GTEST_SKIP() << "this machine has an offload device";
  auto r = run_ompref("run stream --size tiny --no-ceiling", "OMP_TARGET_OFFLOAD=MANDATORY");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(count_lines(r.stderr_text), 1) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("MANDATORY"), std::string::npos) << r.stderr_text;
  // Host variants alone need no device, MANDATORY or not.
  auto host_only = run_ompref("run stream --size tiny --no-ceiling --variant host_simd", "OMP_TARGET_OFFLOAD=MANDATORY");
  EXPECT_EQ(host_only.status, 0) << host_only.output;
}

TEST(Cli, ListHasOneLinePerVariant) {
  auto r = run_ompref("list");
  ASSERT_EQ(r.status, 0);
  std::istringstream lines(r.output);
  int count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    std::istringstream fields(line);
    std::string workload, variant, kind, first_word;
    fields >> workload >> variant >> kind >> first_word;
    EXPECT_TRUE(kind == "host" || kind == "target" || (OMPREF_NATIVE_BUILD && kind == "native")) << line;
    EXPECT_FALSE(first_word.empty()) << "no sentence: " << line;
    EXPECT_EQ(variant.rfind(kind + "_", 0), 0u) << "variant named <kind>_<name>: " << line;
  }
  EXPECT_EQ(count, int(registry().variants().size()));
}

TEST(Cli, DevicesNamesTheHost) {
  auto r = run_ompref("devices");
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(r.output.rfind("host: ", 0), 0u) << r.output;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST(Cli, OptionsThatChangeNothingAreNotedInOneLine) {
  // A variant's own option given while that variant does not run, or a case
  // option in a case that has no use for it: one note each, the run goes on.
  const std::string common = " --size tiny --reps 1 --no-ceiling --save none --quiet";
  const std::pair<std::string, const char*> cases[] = {
      {"run lbm --variant host_basic --tile 8x2x1", "--tile changes only lbm host_tiled"},
      {"run gpp --variant host_naive --tuned-shape 4,8192,192", "--tuned-shape changes only gpp target_tuned"},
      {"run lbm --variant host_basic --case flat --radius 4", "--radius changes nothing in --case flat"},
      {"run lbm --variant host_basic --case droplet --G-ads 0.5", "--G-ads changes nothing in --case droplet"}};
  for (const auto& [command, note] : cases) {
    auto r = run_ompref(command + common);
    EXPECT_EQ(r.status, 0) << command << "\n" << r.output;
    EXPECT_EQ(count_lines(r.stderr_text), 1) << command << "\n" << r.stderr_text;
    EXPECT_NE(r.stderr_text.find(note), std::string::npos) << r.stderr_text;
  }
  auto used = run_ompref("run lbm --variant host_tiled --tile 8x2x1" + common);
  EXPECT_EQ(used.status, 0) << used.output;
  EXPECT_EQ(used.stderr_text, "") << "no note when the variant runs";
}

TEST(Cli, ABudgetEndsRepetitionsEarlyAndSaysSo) {
  // Without --reps a run starts no repetition past its budget (one timed
  // repetition at least) and validates what ran; with --reps, exactly N run.
  const std::string path = ::testing::TempDir() + "ompref_budget.json";
  const std::string common = "run lbm --size tiny --variant host_basic --no-ceiling --save none --json " + path;
  auto r = run_ompref(common + " --budget 0.000001");
  ASSERT_EQ(r.status, 0) << r.output;
  nlohmann::json run = read_json(path)["runs"][0];
  EXPECT_EQ(run["reps"], 1);
  EXPECT_EQ(run["reps_requested"], 5);
  EXPECT_EQ(run["warmup"], 0) << "a warm-up longer than a fifth of the budget is the timed repetition";
  EXPECT_TRUE(run["valid"].get<bool>());
  r = run_ompref(common + " --budget 1000");
  ASSERT_EQ(r.status, 0) << r.output;
  run = read_json(path)["runs"][0];
  EXPECT_EQ(run["reps"], 5);
  EXPECT_EQ(run["warmup"], 1);
  r = run_ompref(common + " --reps 3");
  ASSERT_EQ(r.status, 0) << r.output;
  run = read_json(path)["runs"][0];
  EXPECT_EQ(run["reps"], 3);
  EXPECT_EQ(run["reps_requested"], 3);
  r = run_ompref(common + " --reps 4 --budget 0.000001");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_json(path)["runs"][0]["reps"], 1) << "--budget given with --reps still applies";
  std::remove(path.c_str());
  r = run_ompref("run stream --size tiny --budget -1");
  EXPECT_EQ(r.status, 2) << r.output;
}

TEST(Cli, JsonHasEveryFieldOfTheSchema) {
  const std::string path = ::testing::TempDir() + "ompref_schema.json";
  const std::string csv = ::testing::TempDir() + "ompref_schema.csv";
  auto r = run_ompref("run stream --size tiny --reps 2 --warmup 1 --json " + path + " --csv " + csv);
  ASSERT_EQ(r.status, 0) << r.output;
  nlohmann::json j = read_json(path);
  for (const char* key : {"suite", "version", "compiler", "offload", "host", "devices", "runs", "ceilings"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["suite"], "ompref");
  EXPECT_TRUE(j["devices"].is_array());
  ASSERT_EQ(j["runs"].size(), ompref::testing::runnable_variants("stream").size() * std::max<std::size_t>(1, 1));
  for (const auto& run : j["runs"]) {
    for (const char* key : {"workload", "variant", "kind", "ran_on", "size", "params", "reps", "time_s", "transfer_s",
                            "setup_s", "validation_s", "observables_s", "wall_s", "bytes", "flops", "fom", "ceiling_fraction", "valid", "max_rel_error", "tolerance",
                            "reference", "observables"})
      EXPECT_TRUE(run.contains(key)) << key;
    EXPECT_EQ(run["workload"], "stream");
    EXPECT_EQ(run["size"], "tiny");
    EXPECT_EQ(run["reps"], 2);
    for (const char* stat : {"min", "median", "max"}) EXPECT_GT(run["time_s"][stat].get<double>(), 0) << stat;
    EXPECT_LE(run["time_s"]["min"].get<double>(), run["time_s"]["median"].get<double>());
    EXPECT_LE(run["time_s"]["median"].get<double>(), run["time_s"]["max"].get<double>());
    EXPECT_EQ(run["fom"]["name"], "GB/s");
    EXPECT_GT(run["fom"]["value"].get<double>(), 0);
    EXPECT_GT(run["ceiling_fraction"].get<double>(), 0) << "the ceiling was measured in this run";
    EXPECT_TRUE(run["valid"].get<bool>());
    EXPECT_TRUE(run["observables"].contains("dot"));
    EXPECT_EQ(run["phases"].size(), 5u);
    if (run["kind"] == "target" && omp_get_num_devices() == 0) {
      EXPECT_EQ(run["ran_on"], "host (fallback)");
    }
    if (run["kind"] == "host") {
      EXPECT_EQ(run["ran_on"], "host");
    }
  }
  // One ceiling per place the runs ran on (the host, and a device where one ran target variants).
  std::set<std::string> places;
  // A target run that fell back to the host is held against the host's ceiling.
  for (const auto& run : j["runs"])
    places.insert(run["ran_on"] == "host (fallback)" ? std::string("host") : run["ran_on"].get<std::string>());
  ASSERT_EQ(j["ceilings"].size(), places.size());
  for (const auto& c : j["ceilings"]) {
    EXPECT_EQ(places.count(c["place"].get<std::string>()), 1u) << c["place"];
    EXPECT_GT(c["triad_GBps"].get<double>(), 0);
  }

  std::ifstream in(csv);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("workload,variant,kind,ran_on", 0), 0u) << header;
  int rows = 0;
  for (std::string line; std::getline(in, line);) ++rows;
  EXPECT_EQ(rows, int(j["runs"].size()));
}

TEST(Cli, TableEndsWithOneLinePerRun) {
  auto r = run_ompref("run stream --size tiny --reps 1 --no-ceiling");
  ASSERT_EQ(r.status, 0) << r.output;
  auto variants = ompref::testing::runnable_variants("stream");
  std::istringstream lines(r.output);
  std::vector<std::string> all;
  for (std::string line; std::getline(lines, line);) all.push_back(line);
  ASSERT_GE(all.size(), variants.size());
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const std::string& line = all[all.size() - variants.size() + i];
    EXPECT_NE(line.find(variants[i]->name), std::string::npos) << line;
    EXPECT_NE(line.find("PASS"), std::string::npos) << line;
    EXPECT_NE(line.find("GB/s"), std::string::npos) << line;
  }
}

TEST(Cli, NoCeilingLeavesTheFractionNull) {
  const std::string path = ::testing::TempDir() + "ompref_noceiling.json";
  auto r = run_ompref("run stream --size tiny --reps 1 --no-ceiling --variant host_simd --json " + path);
  ASSERT_EQ(r.status, 0) << r.output;
  nlohmann::json j = read_json(path);
  ASSERT_EQ(j["runs"].size(), 1u);
  EXPECT_TRUE(j["runs"][0]["ceiling_fraction"].is_null());
}

}  // namespace
}  // namespace ompref
