// Every value parsed is one that works: a budget that is a number, a comma
// list without an empty item, standard output and error open before the run.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "test_support.hpp"

using ompref::testing::count_lines;
using ompref::testing::run_ompref;
using ompref::testing::ScratchDir;

namespace {

const std::string stream = "run stream --size tiny --no-ceiling --quiet ";

void expect_refused(const std::string& args, const std::string& why) {
  const auto r = ompref::testing::expect_one_line_refusal(args, why);
  EXPECT_EQ(r.output.find("PASS"), std::string::npos) << args << ": refused after the work\n" << r.output;
}

}  // namespace

// CLI11's Range let NaN through (every comparison with NaN is false): exit 0
// with a budget of NaN.
TEST(HostileValues, BudgetMustBeANumberOfSeconds) {
  for (const char* budget : {"nan", "-nan", "NaN", "inf", "-1", "1e400"})
    expect_refused(stream + "--variant host_simd --budget " + budget, "--budget");
  const auto ok = run_ompref(stream + "--variant host_simd --budget 0.01");
  EXPECT_EQ(ok.status, 0) << ok.output;
}

// `--variant host_simd,` ran host_simd alone (CLI11's split drops an empty last item).
TEST(HostileValues, NoEmptyItemInTheVariantList) {
  for (const char* list : {"host_simd,", ",host_simd", "host_simd,,target_simd", ","})
    expect_refused(stream + "--variant " + list, "empty item");
  const auto ok = run_ompref(stream + "--variant host_simd,target_simd --reps 1");
  EXPECT_EQ(ok.status, 0) << ok.output;
}

// A closed standard output was found after the work (exit 2 once every run had
// run; a file opened meanwhile could take its descriptor): now before it.
TEST(HostileValues, ClosedStandardStreamsAreFoundBeforeTheRun) {
  ScratchDir dir;
  const std::string json = (dir.path / "r.json").string();
  const auto closed = run_ompref(stream + "--variant host_simd --reps 1 --json " + json + " >&-");
  EXPECT_EQ(closed.status, 2) << closed.output;
  EXPECT_NE(closed.stderr_text.find("standard output is closed"), std::string::npos) << closed.stderr_text;
  EXPECT_FALSE(std::filesystem::exists(json)) << "refused after the work";
}
