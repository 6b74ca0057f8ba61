// VTK frames and their .pvd index are written whole or not at all
// (common/io/output_file.hpp): a reader holding the previous index still reads
// it whole, no temporary file is left, and an error is an IoError (to ompref, exit 2).
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "common/io/io_error.hpp"
#include "common/io/vtk.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace ompref {
namespace {

using testing::ScratchDir;

std::string slurp(std::istream& in) {
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

vtk::Image small_image() {
  vtk::Image im;
  im.nx = 2;
  im.ny = 3;
  im.nz = 1;
  im.fields.push_back({"rho", 1, {1, 2, 3, 4, 5, 6}});
  return im;
}

TEST(VtkOutput, FramesAndIndexAreReplacedWholeAndLeaveNoTemporary) {
  ScratchDir dir;
  const std::string pvd = (dir.path / "run.pvd").string();
  vtk::write_vti((dir.path / "f0.vti").string(), small_image());
  vtk::write_pvd(pvd, {{0, "f0.vti"}});
  std::ifstream held(pvd);  // a reader of the old index, opened before the rewrite
  vtk::write_vti((dir.path / "f1.vti").string(), small_image());
  vtk::write_pvd(pvd, {{0, "f0.vti"}, {1, "f1.vti"}});
  const std::string old_index = slurp(held);
  EXPECT_NE(old_index.find("f0.vti"), std::string::npos);
  EXPECT_EQ(old_index.find("f1.vti"), std::string::npos) << "the held file was rewritten in place";
  EXPECT_NE(old_index.find("</VTKFile>"), std::string::npos) << "the held file was truncated";
  std::ifstream now(pvd);
  EXPECT_NE(slurp(now).find("f1.vti"), std::string::npos);
  const vtk::Image back = vtk::read_vti((dir.path / "f1.vti").string());
  ASSERT_EQ(back.fields.size(), 1u);
  EXPECT_EQ(back.fields[0].data, small_image().fields[0].data);
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir.path)) entries += e.is_regular_file();
  EXPECT_EQ(entries, 3) << "a temporary file was left behind";
}

TEST(VtkOutput, AnUnwritableTargetIsAnIoError) {
  EXPECT_THROW(vtk::write_vti("/nonexistent-dir/f.vti", small_image()), IoError);
  EXPECT_THROW(vtk::write_pvd("/nonexistent-dir/run.pvd", {{0, "f.vti"}}), IoError);
}

TEST(VtkOutput, OutWithoutVtkEveryIsRefused) {
  ScratchDir dir;
  auto r = testing::run_ompref("run lbm --size tiny --no-ceiling --out " + dir.path.string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(testing::count_lines(r.stderr_text), 1) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("--vtk-every"), std::string::npos) << r.stderr_text;
}

TEST(VtkOutput, OutNamingAFileIsRefusedBeforeAnyRun) {
  ScratchDir dir;
  const std::string file = (dir.path / "plain").string();
  std::ofstream{file} << "x";
  auto r = testing::run_ompref("run lbm --size tiny --vtk-every 5 --out " + file);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(testing::count_lines(r.stderr_text), 1) << r.stderr_text;
  EXPECT_EQ(r.output.find("ceiling:"), std::string::npos) << "checked before the ceiling: " << r.output;
}

}  // namespace
}  // namespace ompref
