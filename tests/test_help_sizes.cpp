// `--size auto` (the default) picks each workload's size for where it runs,
// and `ompref run W --help` shows W's options, sizes and variants alone.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/device.hpp"
#include "common/registry.hpp"
#include "test_support.hpp"

namespace ompref {
namespace {

using testing::run_ompref;

TEST(HelpAndSizes, WorkloadHelpListsItsOwnOptionsAndVariants) {
  auto r = run_ompref("run gpp --help");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* text : {"--deck", "--tuned-shape", "gpp variants:", "host_naive", "target_tuned", "auto: small"})
    EXPECT_NE(r.output.find(text), std::string::npos) << text << "\n" << r.output;
  for (const char* text : {"--tau", "--mesh", "--n ", "lbm variants:"})
    EXPECT_EQ(r.output.find(text), std::string::npos) << text << "\n" << r.output;
  auto all = run_ompref("run --help");
  ASSERT_EQ(all.status, 0) << all.output;
  for (const char* text : {"--deck", "--tau", "--mesh"}) EXPECT_NE(all.output.find(text), std::string::npos) << text;
}

TEST(HelpAndSizes, AutoSizeIsTheHostSizeOnTheHost) {
  if (target_runs_on_device(0)) GTEST_SKIP() << "target regions run on a device here";
  for (const char* size : {"", "--size auto"}) {
    auto r = run_ompref(std::string("run mesh --variant host_direct --reps 1 --warmup 0 --no-ceiling --json - ") + size);
    ASSERT_EQ(r.status, 0) << r.output;
    const std::string out = r.output.substr(0, r.output.size() - r.stderr_text.size());
    const nlohmann::json j = nlohmann::json::parse(out);
    EXPECT_EQ(j["runs"][0]["size"], registry().workload("mesh")->default_size()) << size;
  }
}

}  // namespace
}  // namespace ompref
