// mesh, the variants: every one validates and models its own kernel; host and
// target agree on every kernel; the two ball layouts and the two ways of an
// indirect write give the same results.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/mesh/mesh.hpp"
#include "test_mesh_support.hpp"

namespace ompref::mesh {
namespace {

using ompref::testing::run_one;
using testing::all_outputs;
using testing::cube;
using testing::pair_names;
using testing::same;
using testing::tag_of;
using testing::test_limits;

// The registrations declare each variant's kernel tag, the pair it mirrors
// and the step it follows: a target_<k> mirrors host_<k> and runs its kernel,
// a tuned step runs the kernel of the variant it follows.
const Variant* registered(const std::string& name) { return registry().variant("mesh", name); }

TEST(Mesh, EveryVariantPassesAtTiny) {
  // Every pair (host_<k>, target_<k>) and every tuned step (the native twins
  // run only on a CUDA device), as the registrations declare them.
  auto variants = ompref::testing::runnable_variants("mesh");
  std::size_t hosts = 0, mirrors = 0, steps = 0;
  for (const Variant* v : variants) {
    hosts += v->kind == Kind::host;
    if (v->kind != Kind::target) continue;
    ASSERT_NE(v->mirrors.empty(), v->step_of.empty()) << v->name << ": a target variant is a pair's or a step";
    const Variant* from = registered(v->mirrors.empty() ? v->step_of : v->mirrors);
    ASSERT_NE(from, nullptr) << v->name << ": declares " << v->mirrors << v->step_of << ", which is not registered";
    EXPECT_EQ(v->kernel, from->kernel) << v->name << " runs " << from->name << "'s kernel";
    (v->mirrors.empty() ? steps : mirrors) += 1;
  }
  EXPECT_EQ(mirrors, hosts) << "every host variant has its target mirror";
  EXPECT_GT(steps, 0u);
  MeshOptions o;
  auto m = make_instance(o, "tiny", test_limits());
  EXPECT_EQ(m->nt, 3072);
  for (const Variant* v : variants) {
    RunResult r = run_one(*m, "mesh", v->name, "tiny", 2, 1);
    EXPECT_TRUE(r.check.valid) << v->name << ": " << r.check.detail;
    EXPECT_FALSE(v->kernel.empty()) << v->name;
    EXPECT_GT(r.model.bytes, 0) << v->name;
    EXPECT_DOUBLE_EQ(r.model.bytes, m->model(v->kernel).bytes) << v->name << ": the model is the kernel's";
  }
}

TEST(Mesh, EachVariantRunsItsOwnKernel) {
  auto m = cube(3);
  for (const std::string& k : pair_names()) {
    for (const char* kind : {"host_", "target_"}) {
      const std::string name = std::string(kind) + k;
      const std::string want = registered("host_" + k)->kernel;
      EXPECT_EQ(tag_of(name), want) << name;
      RunResult r = run_one(*m, "mesh", name, "custom", 1, 0);
      EXPECT_EQ(r.observables["kernel"].get<std::string>(), want) << name;
      EXPECT_TRUE(r.check.valid) << name << ": " << r.check.detail;
    }
  }
}

TEST(Mesh, LumpedVolumesSumToTheTotalAndAgreeAcrossMethods) {
  auto m = cube(5, "none", 0.1);
  std::vector<Array<double>> got;
  for (const char* name : {"host_lumped_atomic", "host_lumped_scatter_gather", "target_lumped_atomic",
                           "target_lumped_scatter_gather"}) {
    RunResult r = run_one(*m, "mesh", name, "custom", 2, 0);
    ASSERT_TRUE(r.check.valid) << name << ": " << r.check.detail;
    long double sum = 0;
    for (double x : m->output("lumped")) sum += x;
    EXPECT_NEAR(double(sum), double(m->ref_volume_sum), 1e-12) << name;
    got.push_back(m->output("lumped"));
  }
  for (const auto& g : got)
    for (std::int64_t v = 0; v < m->nv; ++v)
      ASSERT_NEAR(g[v], m->expected("lumped")[v], 1e-12 * std::fabs(m->expected("lumped")[v])) << "vertex " << v;
}

TEST(Mesh, HostAndTargetAgreeOnEveryKernel) {
  auto m = cube(5, "hilbert", 0.1);
  m->reset();
  const std::vector<double> unwritten = all_outputs(*m);
  for (const std::string& k : pair_names()) {
    run_one(*m, "mesh", "host_" + k, "custom", 2, 0);
    const std::vector<double> host = all_outputs(*m);
    run_one(*m, "mesh", "target_" + k, "custom", 2, 0);
    const std::vector<double> target = all_outputs(*m);
    ASSERT_EQ(host.size(), target.size()) << k;
    std::size_t written = 0;
    for (std::size_t i = 0; i < host.size(); ++i) {
      written += !same(host[i], unwritten[i]);
      if (same(host[i], target[i])) continue;  // both unwritten (NaN), or equal
      ASSERT_NEAR(host[i], target[i], 1e-12 * std::max(1.0, std::fabs(host[i]))) << k << " output " << i;
    }
    ASSERT_GT(written, 0u) << k << ": no output written";
  }
  // The two ball layouts give the same smoothing.
  run_one(*m, "mesh", "host_ball_csr", "custom", 1, 0);
  const ompref::mesh::Array<double> csr = m->output("smooth");
  run_one(*m, "mesh", "host_ball_binned", "custom", 1, 0);
  for (std::int64_t i = 0; i < 3 * m->nv; ++i) ASSERT_DOUBLE_EQ(csr[i], m->output("smooth")[i]) << i;
}

}  // namespace
}  // namespace ompref::mesh
