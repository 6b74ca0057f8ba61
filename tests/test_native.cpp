// Native (plain CUDA) variants, as far as a machine without a GPU can check
// them: builds without CUDA list none and refuse one by name; a build with
// CUDA but no usable device leaves them out with one line, or refuses them
// by name; native_fraction reaches the table, the JSON and the CSV; a lap
// waits for the device before the clock is read. The CUDA sources themselves
// are compiled by the native_cuda_compiles test where nvcc exists.
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/results.hpp"
#include "common/usage_error.hpp"
#include "test_support.hpp"

namespace ompref {
namespace {

using ompref::testing::count_lines;
using ompref::testing::run_ompref;

bool native_device_here() { return native_unusable({0}).empty(); }

TEST(NativeCli, ListHasNativeVariantsOnlyInNativeBuilds) {
  auto r = run_ompref("list");
  ASSERT_EQ(r.status, 0) << r.output;
  std::istringstream lines(r.output);
  int native = 0;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string workload, variant, kind;
    fields >> workload >> variant >> kind;
    native += kind == "native";
  }
  if (OMPREF_NATIVE_BUILD) {
    EXPECT_NE(r.output.find("stream native_stream native "), std::string::npos) << r.output;
  } else {
    EXPECT_EQ(native, 0) << r.output;
  }
}

TEST(NativeCli, NamedNativeVariantIsRefusedWithoutCuda) {
  if (native_device_here()) GTEST_SKIP() << "this machine has a usable CUDA device";
  auto r = run_ompref("run stream --size tiny --no-ceiling --variant native_stream");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(count_lines(r.stderr_text), 1) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("native_stream"), std::string::npos) << r.stderr_text;
  // With a target variant beside it: still refused, nothing run.
  auto mixed = run_ompref("run stream --size tiny --no-ceiling --variant target_simd,native_stream");
  EXPECT_EQ(mixed.status, 2) << mixed.output;
  EXPECT_EQ(count_lines(mixed.stderr_text), 1) << mixed.stderr_text;
}

TEST(NativeCli, AllVariantsRunWithoutCuda) {
  if (native_device_here()) GTEST_SKIP() << "this machine has a usable CUDA device";
  auto r = run_ompref("run stream --size tiny --reps 1 --no-ceiling");
  ASSERT_EQ(r.status, 0) << r.output;
  const bool skipped = r.output.find("native variants skipped (native_stream): ") != std::string::npos;
  EXPECT_EQ(skipped, bool(OMPREF_NATIVE_BUILD)) << r.output;
  EXPECT_EQ(r.output.find("native_stream "), std::string::npos) << "no native run: " << r.output;
}

TEST(NativeRunnable, UnusableNativeVariantsLeaveThePlanOrAreRefused) {
  if (native_device_here()) GTEST_SKIP() << "this machine has a usable CUDA device";
  Variant native;
  native.workload = "stream";
  native.name = "native_example";
  native.kind = Kind::native;
  const Variant* host = registry().variant("stream", "host_simd");
  ASSERT_NE(host, nullptr);
  std::vector<std::pair<Workload*, std::vector<const Variant*>>> plan{{registry().workload("stream"), {host, &native}}};
  auto named = plan;
  EXPECT_THROW(keep_runnable(named, {0}, true), UsageError);
  keep_runnable(plan, {0}, false);
  ASSERT_EQ(plan[0].second.size(), 1u);
  EXPECT_EQ(plan[0].second[0], host);
}

RunResult fake_run(Kind kind, const std::string& variant, double median, const std::string& kernel = "", int device = 0) {
  RunResult r;
  r.workload = "stream";
  r.variant = variant;
  r.kind = kind;
  r.kernel = kernel;
  r.device = kind == Kind::host ? -1 : device;
  r.ran_on = kind == Kind::host ? "host" : "NVIDIA H200 (device 0)";
  r.size = "tiny";
  r.params = {{"n", 65536}};
  r.time_s = Stats{median, median, median};
  r.model = Model{12.0 * 8 * 65536, 6.0 * 65536, "GB/s", 12.0 * 8 * 65536 / 1e9};
  r.fom = r.model.fom_amount / median;
  r.check.valid = true;
  return r;
}

TEST(NativeFraction, TargetRunsGetTheirTwinsTimeRatio) {
  std::vector<RunResult> runs = {fake_run(Kind::host, "host_simd", 4.0), fake_run(Kind::target, "target_simd", 2.0),
                                 fake_run(Kind::target, "target_other_kernel", 2.0, "direct"),
                                 fake_run(Kind::target, "target_device_1", 2.0, "", 1),
                                 fake_run(Kind::native, "native_stream", 1.0)};
  set_native_fractions(runs);
  EXPECT_FALSE(runs[0].native_fraction) << "host runs have none";
  ASSERT_TRUE(runs[1].native_fraction);
  EXPECT_DOUBLE_EQ(*runs[1].native_fraction, 0.5);
  EXPECT_FALSE(runs[2].native_fraction) << "no twin of kernel 'direct'";
  EXPECT_FALSE(runs[3].native_fraction) << "no twin on device 1";
  EXPECT_FALSE(runs[4].native_fraction) << "native runs have none";

  std::vector<RunResult> invalid_twin = {fake_run(Kind::target, "target_simd", 2.0), fake_run(Kind::native, "native_stream", 1.0)};
  invalid_twin[1].check.valid = false;
  set_native_fractions(invalid_twin);
  EXPECT_FALSE(invalid_twin[0].native_fraction) << "a twin that failed validation is no reference";
}

// native_fraction pairs a twin with the target runs of its kernel tag: the
// twins of gpp and lbm are held against target_tuned, target_fused,
// target_streamed and target_inplace alone.
TEST(NativeFraction, TwinsShareTheirTargetVariantsKernelTag) {
  const std::pair<const char*, const char*> twins[] = {{"gpp", "tuned"}, {"lbm", "fused"}, {"lbm", "streamed"}, {"lbm", "inplace"}};
  for (const auto& [workload, tag] : twins) {
    const Variant* target = registry().variant(workload, std::string("target_") + tag);
    ASSERT_NE(target, nullptr) << workload;
    EXPECT_EQ(target->kernel, tag);
    for (const Variant* v : registry().variants(workload)) {
      if (v->kind == Kind::target && v != target) {
        EXPECT_NE(v->kernel, tag) << v->name;
      }
    }
    const Variant* twin = registry().variant(workload, std::string("native_") + tag);
    if (OMPREF_NATIVE_BUILD) {
      ASSERT_NE(twin, nullptr) << workload;
      EXPECT_EQ(twin->kernel, tag);
      EXPECT_EQ(twin->kind, Kind::native);
    } else {
      EXPECT_EQ(twin, nullptr) << workload;
    }
  }
}

std::string table_of(const std::vector<RunResult>& runs) {
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  print_run_table(runs, out);
  std::fclose(out);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

TEST(NativeFraction, TableColumnJsonAndCsvOnlyWhereItExists) {
  std::vector<RunResult> runs = {fake_run(Kind::target, "target_simd", 2.0)};
  const std::string plain = table_of(runs);
  EXPECT_EQ(plain.find("native"), std::string::npos) << plain;
  EXPECT_FALSE(run_to_json(runs[0]).contains("native_fraction"));

  runs.push_back(fake_run(Kind::native, "native_stream", 1.0));
  set_native_fractions(runs);
  const std::string table = table_of(runs);
  std::istringstream lines(table);
  std::string header, target_line, native_line;
  std::getline(lines, header);
  std::getline(lines, target_line);
  std::getline(lines, native_line);
  EXPECT_NE(header.find("native"), std::string::npos) << table;
  EXPECT_NE(target_line.find("0.500"), std::string::npos) << table;
  EXPECT_NE(native_line.find(" - "), std::string::npos) << table;
  EXPECT_DOUBLE_EQ(run_to_json(runs[0])["native_fraction"].get<double>(), 0.5);
  EXPECT_FALSE(run_to_json(runs[1]).contains("native_fraction"));

  // The CSV column after tolerance (the provenance columns come last).
  std::istringstream csv_lines(runs_to_csv(runs));
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(csv_lines, line);) {
    std::vector<std::string> fields;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) fields.push_back(cell);
    rows.push_back(fields);
  }
  ASSERT_EQ(rows.size(), 3u);
  const auto column = std::find(rows[0].begin(), rows[0].end(), "native_fraction") - rows[0].begin();
  ASSERT_LT(column, std::ptrdiff_t(rows[0].size()));
  EXPECT_EQ(rows[0][std::size_t(column) - 1], "tolerance");
  EXPECT_EQ(rows[1][std::size_t(column)], "0.5");
  EXPECT_EQ(rows[2][std::size_t(column)], "") << "empty where there is none";
}

TEST(NativeClock, ALapWaitsForTheDeviceBeforeReadingTheTime) {
  PhaseClock clock;
  int waits = 0;
  clock.wait_with([&waits] { ++waits; });
  clock.start();
  clock.lap("copy");
  clock.lap("mul");
  EXPECT_EQ(waits, 2);
  clock.wait();
  EXPECT_EQ(waits, 3);
  PhaseClock plain;  // host and target variants: no wait
  plain.start();
  plain.lap("copy");
  plain.wait();
  EXPECT_EQ(plain.laps().size(), 1u);
}

}  // namespace
}  // namespace ompref
