// gpp: the pair (host_naive and its literal port target_naive), the steps in
// their order, and target_tuned's block shape (--tuned-shape): parsed
// strictly, recorded in the JSON, every shape validating.
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/gpp/gpp.hpp"
#include "common/usage_error.hpp"
#include "test_support.hpp"

namespace ompref::gpp {
namespace {

using ompref::testing::count_lines;
using ompref::testing::run_ompref;
using ompref::testing::test_limits;

Check run_checked(GppInstance& s, const std::string& name) {
  const Variant* v = registry().variant("gpp", name);
  EXPECT_NE(v, nullptr) << name;
  if (!v) return {};
  RunResult r = run_variant(*v, s, "tiny", RunSettings{1, 0, 0, {}}, 0, {0});
  return r.check;
}

TEST(GppSteps, TargetNaiveIsTheTargetPortAndValidates) {
  const Variant* v = registry().variant("gpp", "target_naive");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->kind, Kind::target);
  EXPECT_FALSE(v->sentence.empty());
  for (Data data : {Data::uniform, Data::varied}) {
    auto s = make_instance(deck_for_size("tiny"), data, test_limits());
    const Check c = run_checked(*s, "target_naive");
    EXPECT_TRUE(c.valid) << c.detail;
    EXPECT_LE(c.max_rel_error, c.tolerance);
  }
}

TEST(GppSteps, VariantsComeInStepOrder) {
  std::vector<std::string> names;
  for (const Variant* v : registry().variants("gpp")) names.push_back(v->name);
  const std::vector<std::string> want = {"host_naive",   "host_tiled",     "target_naive", "target_basic",
                                         "target_udr",   "target_hoisted", "target_tuned", "target_multi"};
  EXPECT_EQ(names, want);
}

TEST(GppSteps, EveryTunedShapeValidates) {
  // 30 bands: 4 and 8 bands per thread leave a short last block; chunks of
  // 64 rows leave a short last chunk of the 500 rows.
  auto s = make_instance(Deck{30, 2, 500, 10}, Data::varied, test_limits());
  for (int bands : {1, 2, 4, 8})
    for (bool scalars : {false, true}) {
      s->tuned = TunedShape{bands, 64, 64, scalars};
      const Check c = run_checked(*s, "target_tuned");
      EXPECT_TRUE(c.valid) << to_string(s->tuned) << ": " << c.detail;
    }
}

// target_multi runs target_tuned's threads over each device's rows: every
// shape validates with one share and with the rows split two and three ways
// (the shares on device 0 again: on the host the split is all there is).
TEST(GppSteps, TargetMultiValidatesOnEveryTunedShapeAndSplit) {
  auto s = make_instance(Deck{30, 2, 500, 10}, Data::varied, test_limits());
  const Variant* v = registry().variant("gpp", "target_multi");
  ASSERT_NE(v, nullptr);
  for (const std::vector<int>& devices : {std::vector<int>{0}, std::vector<int>{0, 0}, std::vector<int>{0, 0, 0}})
    for (int bands : {1, 2, 4, 8}) {
      s->tuned = TunedShape{bands, 64, 48, false};
      const Check c = run_variant(*v, *s, "tiny", RunSettings{1, 0, 0, {}}, 0, devices).check;
      EXPECT_TRUE(c.valid) << devices.size() << " shares, " << to_string(s->tuned) << ": " << c.detail;
    }
}

TEST(GppSteps, TunedShapesAreParsedStrictly) {
  const TunedShape d = parse_tuned_shape("2,64,32");
  EXPECT_EQ(d.bands, 2);
  EXPECT_EQ(d.ig_chunk, 64);
  EXPECT_EQ(d.threads, 32);
  EXPECT_FALSE(d.scalars);
  EXPECT_TRUE(parse_tuned_shape("8,1,512,1").scalars);
  EXPECT_EQ(to_string(TunedShape{}), "4,8192,512,0");
  EXPECT_EQ(to_string(parse_tuned_shape(to_string(TunedShape{}))), "4,8192,512,0");
  for (const char* bad : {"", "4", "4,8192", "4,8192,192,0,1", "3,8192,192", "4,0,192", "4,8192,0", "4,8192,513",
                          "4,8192,192,2", "4,8192,192,", "4,,192", "a,b,c", "4, 8192,192", "4,8192,192x", "-4,8192,192"})
    EXPECT_THROW(parse_tuned_shape(bad), UsageError) << bad;
}

TEST(GppSteps, TunedShapeFromTheCommandGoesToTheJson) {
  const std::string path = ::testing::TempDir() + "ompref_gpp_tuned_shape.json";
  auto r = run_ompref("run gpp --size tiny --variant target_tuned --tuned-shape 2,64,32 --reps 1 --warmup 0 "
                      "--no-ceiling --json " + path);
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream in(path);
  const nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_EQ(j["runs"].size(), 1u);
  EXPECT_EQ(j["runs"][0]["params"]["tuned_shape"], "2,64,32,0");
  EXPECT_TRUE(j["runs"][0]["valid"].get<bool>());
  std::remove(path.c_str());
}

TEST(GppSteps, TheDefaultTunedShapeIsRecorded) {
  auto s = make_instance(deck_for_size("tiny"), Data::uniform, test_limits());
  EXPECT_EQ(s->params()["tuned_shape"], "4,8192,512,0");
}

TEST(GppSteps, ABadTunedShapeExitsTwoWithOneLine) {
  for (const char* bad : {"3,8192,192", "4,8192", "4,8192,2000", "x"}) {
    auto r = run_ompref(std::string("run gpp --size tiny --no-ceiling --tuned-shape ") + bad);
    EXPECT_EQ(r.status, 2) << bad << "\n" << r.output;
    EXPECT_EQ(count_lines(r.stderr_text), 1) << bad << "\n" << r.stderr_text;
    EXPECT_NE(r.stderr_text.find("--tuned-shape"), std::string::npos) << r.stderr_text;
    EXPECT_NE(r.stderr_text.find("BANDS,IG_CHUNK,THREADS[,SCALARS]"), std::string::npos) << r.stderr_text;
  }
  auto other = run_ompref("run stream --size tiny --no-ceiling --tuned-shape 4,8192,192");
  EXPECT_EQ(other.status, 2) << other.output;
  EXPECT_NE(other.stderr_text.find("gpp option"), std::string::npos) << other.stderr_text;
}

TEST(GppSteps, SizesAndHelpComeFromTheDeckTable) {
  std::vector<std::string> sizes = size_names();
  EXPECT_EQ(sizes, (std::vector<std::string>{"tiny", "small", "medium", "paper"}));
  EXPECT_EQ(registry().workload("gpp")->sizes(), sizes);
  for (const std::string& size : sizes) EXPECT_NO_THROW(check_deck(deck_for_size(size))) << size;
  try {
    deck_for_size("huge");
    ADD_FAILURE() << "no UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("tiny, small, medium, paper"), std::string::npos) << e.what();
  }
  auto help = run_ompref("run --help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.output.find("paper \"512 2 32768 20\""), std::string::npos) << help.output;
}

}  // namespace
}  // namespace ompref::gpp
