// mesh through the `ompref` command: the tiny size runs every variant and
// passes; bad input (files, options) exits 2 with one line naming the problem.
#include <cstdio>
#include <string>
#include <utility>

#include <gtest/gtest.h>
#include <unistd.h>

#include "test_mesh_support.hpp"

namespace ompref::mesh {
namespace {

using ompref::testing::count_lines;
using ompref::testing::run_ompref;
using testing::i32s;

TEST(MeshCli, TinyRunsEveryVariantAndPasses) {
  auto r = run_ompref("run mesh --size tiny --no-ceiling --reps 2");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("FAIL"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("target_lumped_scatter_gather"), std::string::npos);
}

TEST(MeshCli, BadInputExitsTwoWithOneLine) {
  const std::string path = std::string("/tmp/ompref_test_bad_") + std::to_string(::getpid()) + ".meshb";
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    const std::string bytes = i32s({1, 2, 3, 9999, 3});
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  }
  const std::pair<std::string, std::string> cases[] = {
      {"run mesh --mesh /nonexistent/m.meshb --no-ceiling", "/nonexistent/m.meshb"},
      {"run mesh --mesh " + path + " --no-ceiling", "beyond"},
      {"run mesh --cube 0 --no-ceiling", "--cube"},
      {"run mesh --renumber zigzag --no-ceiling", "--renumber"},
      {"run mesh --jitter 0.5 --no-ceiling", "--jitter"},
      {"run mesh --cube 2 --mesh " + path + " --no-ceiling", "--cube"},
      {"run mesh --cube 2000 --no-ceiling", "32-bit"},
      {"run mesh --cube 400 --no-ceiling", "GiB"},
      {"run stream --cube 3 --no-ceiling", "--cube"},
  };
  for (const auto& [args, mention] : cases) {
    ompref::testing::expect_one_line_refusal(args, mention);
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace ompref::mesh
