// mesh, the steps beside the pair: every step of the tuned form
// (src/omp_target/mesh_1_shaped.cpp, mesh_2_narrow.cpp, mesh_tuned.cpp)
// validates and gives the pair's results on its kernels; the native CUDA twins (src/native_cuda/mesh.cu) are there, one
// per kernel tag, exactly in builds with CUDA; the huge size is checked
// against memory before anything is allocated.
#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/mesh/mesh.hpp"
#include "common/usage_error.hpp"
#include "test_mesh_support.hpp"

namespace ompref::mesh {
namespace {

using ompref::testing::run_one;
using testing::all_outputs;
using testing::cube;
using testing::same;
using testing::test_limits;

const std::string tuned_prefix = "target_tuned_";

std::vector<const Variant*> tuned_variants() {
  std::vector<const Variant*> out;
  for (const Variant* v : registry().variants("mesh"))
    if (v->name.rfind(tuned_prefix, 0) == 0) out.push_back(v);
  return out;
}

// target_tuned_<pair> -> target_<pair>
std::string plain_of(const Variant& tuned) { return "target_" + tuned.name.substr(tuned_prefix.size()); }

// Every step of the tuned form (a target variant that follows another), with
// the pair's variant its chain of steps starts from.
std::vector<std::pair<const Variant*, const Variant*>> steps_and_pairs() {
  std::vector<std::pair<const Variant*, const Variant*>> out;
  for (const Variant* v : registry().variants("mesh")) {
    if (v->kind != Kind::target || v->step_of.empty()) continue;
    const Variant* from = v;
    for (int hops = 0; from && from->mirrors.empty() && hops < 10; ++hops)
      from = registry().variant("mesh", from->step_of);
    EXPECT_TRUE(from && !from->mirrors.empty()) << v->name << ": its steps lead to no variant of the pair";
    if (from) out.emplace_back(v, from);
  }
  return out;
}

TEST(MeshTuned, EveryStepFollowsTheStepBeforeItOnTheSameKernel) {
  const auto steps = steps_and_pairs();
  EXPECT_GE(steps.size(), 3 * tuned_variants().size()) << "three steps per tuned kernel";
  for (const auto& [step, pair] : steps) {
    const Variant* before = registry().variant("mesh", step->step_of);
    ASSERT_NE(before, nullptr) << step->name;
    EXPECT_EQ(step->kernel, before->kernel) << step->name;
    EXPECT_EQ(step->kernel, pair->kernel) << step->name;
    EXPECT_NE(step->file, before->file) << step->name << ": a step is a diff against another file";
  }
}

TEST(MeshTuned, EveryTunedStepHasItsPairsKindAndTag) {
  const auto tuned = tuned_variants();
  ASSERT_GE(tuned.size(), 2u) << "at least direct and downward";
  for (const char* name : {"target_tuned_direct", "target_tuned_downward"})
    EXPECT_NE(registry().variant("mesh", name), nullptr) << name;
  for (const Variant* v : tuned) {
    const Variant* plain = registry().variant("mesh", plain_of(*v));
    ASSERT_NE(plain, nullptr) << v->name << ": no plain variant of the same kernel";
    EXPECT_EQ(v->kind, Kind::target) << v->name;
    EXPECT_EQ(v->kernel, plain->kernel) << v->name;
    EXPECT_TRUE(v->enter_data && v->exit_data) << v->name << ": declares its device data";
  }
}

TEST(MeshTuned, ValidatesAtTinyAndOnAJitteredHilbertCube) {
  MeshOptions o;
  auto tiny = make_instance(o, "tiny", test_limits());
  auto jittered = cube(5, "hilbert", 0.1);
  for (const Variant* v : tuned_variants()) {
    for (MeshInstance* m : {tiny.get(), jittered.get()}) {
      RunResult r = run_one(*m, "mesh", v->name, "custom", 3, 1);
      EXPECT_TRUE(r.check.valid) << v->name << " on " << m->nt << " tets: " << r.check.detail;
      EXPECT_DOUBLE_EQ(r.model.bytes, m->model(v->kernel).bytes) << v->name << ": the kernel's model";
      EXPECT_EQ(r.observables["kernel"].get<std::string>(), v->kernel) << v->name;
    }
  }
}

TEST(MeshTuned, EveryStepGivesThePairsResults) {
  auto m = cube(4, "hilbert-degree", 0.1);
  m->reset();
  const std::vector<double> unwritten = all_outputs(*m);
  for (const auto& [v, pair] : steps_and_pairs()) {
    RunResult r = run_one(*m, "mesh", v->name, "custom", 2, 0);
    EXPECT_TRUE(r.check.valid) << v->name << ": " << r.check.detail;
    run_one(*m, "mesh", pair->name, "custom", 2, 0);
    const std::vector<double> plain = all_outputs(*m);
    run_one(*m, "mesh", v->name, "custom", 2, 0);
    const std::vector<double> tuned = all_outputs(*m);
    ASSERT_EQ(plain.size(), tuned.size());
    std::size_t written = 0;
    for (std::size_t i = 0; i < plain.size(); ++i) {
      written += !same(tuned[i], unwritten[i]);
      if (same(plain[i], tuned[i])) continue;
      // Atomic additions land in any order: the lumped volumes agree to rounding.
      ASSERT_NEAR(plain[i], tuned[i], 1e-12 * std::max(1.0, std::fabs(plain[i]))) << v->name << " output " << i;
    }
    EXPECT_GT(written, 0u) << v->name << ": no output written";
  }
}

// Every kernel tag of the target variants has one twin, native_<tag>, in a
// build with the CUDA back end, and none elsewhere (listed or not, whatever
// the machine).
TEST(MeshNative, OneTwinPerKernelTagOnlyInNativeBuilds) {
  std::set<std::string> tags;
  std::vector<const Variant*> natives;
  for (const Variant* v : registry().variants("mesh")) {
    if (v->kind == Kind::target) tags.insert(v->kernel);
    if (v->kind == Kind::native) natives.push_back(v);
  }
  EXPECT_FALSE(tags.empty());
  if (!OMPREF_NATIVE_BUILD) {
    EXPECT_TRUE(natives.empty()) << natives.front()->name;
    return;
  }
  ASSERT_EQ(natives.size(), tags.size());
  for (const std::string& tag : tags) {
    const Variant* twin = registry().variant("mesh", "native_" + tag);
    ASSERT_NE(twin, nullptr) << tag;
    EXPECT_EQ(twin->kernel, tag);
    EXPECT_EQ(twin->kind, Kind::native);
  }
}

TEST(MeshSizes, HugeIsCube256AndCheckedAgainstMemoryFirst) {
  Workload* w = registry().workload("mesh");
  ASSERT_NE(w, nullptr);
  const auto sizes = w->sizes();
  EXPECT_EQ(sizes, (std::vector<std::string>{"tiny", "small", "medium", "large", "huge"}));
  EXPECT_EQ(w->default_size(), "small");  // host-sized: --size auto on the host
  EXPECT_EQ(w->device_size(), "large");
  MemoryLimits small;
  small.host_bytes = 1e9;
  try {
    make_instance(MeshOptions{}, "huge", small);
    FAIL() << "huge fits in 1 GB?";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("mesh cube 256 (100663296 tetrahedra)"), std::string::npos) << e.what();
  }
  MemoryLimits device = test_limits();
  device.host_bytes = std::max(device.host_bytes, host_bytes_for(counts_before_topology(257.0 * 257 * 257, 6.0 * 256 * 256 * 256, 12.0 * 256 * 256)));
  device.device_bytes = 4e9;  // an 80 GB device would take it: 7.05 GB
  EXPECT_THROW(make_instance(MeshOptions{}, "huge", device), UsageError);
}

}  // namespace
}  // namespace ompref::mesh
