// Outputs against inputs and against the file system, text of any bytes in
// every output format, and every signal that ends a run: the hostile cases of
// the command's own files, each a command run here.
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "app/result_files.hpp"
#include "common/io/output_file.hpp"
#include "common/results.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using ompref::testing::count_lines;
using ompref::testing::run_ompref;
using ompref::testing::shell_text;
using ompref::testing::ScratchDir;

using ompref::testing::slurp;

namespace {

const std::string mesh_file = std::string(OMPREF_SOURCE_DIR) + "/inputs/mesh/cylinder.mesh";

// A copy of the cylinder mesh in `dir`.
fs::path copy_mesh(const fs::path& dir) {
  const fs::path in = dir / "in.mesh";
  fs::copy_file(mesh_file, in);
  return in;
}

// Refused up front: exit 2, one line, and the file unchanged.
void expect_refused_keeping(const std::string& args, const fs::path& kept, const std::string& why) {
  const std::string before = slurp(kept);
  ompref::testing::expect_one_line_refusal(args, why);
  EXPECT_EQ(slurp(kept), before) << args << ": " << kept << " was changed";
}

}  // namespace

// `--json in.mesh` replaced the mesh with the JSON and exited 0: every output
// against every input, by identity (same spelling, ./x, a hard link, a symbolic link).
TEST(HostilePaths, NoOutputNamesOrAliasesTheMeshItReads) {
  ScratchDir dir;
  const fs::path in = copy_mesh(dir.path);
  const std::string run = "run mesh --variant host_direct --reps 1 --no-ceiling --quiet --mesh " + in.string();
  fs::create_hard_link(in, dir.path / "hard.mesh");
  fs::create_symlink(in, dir.path / "soft.mesh");
  for (const char* option : {"--json", "--csv", "--junit", "--benchmark-json"}) {
    expect_refused_keeping(run + " " + option + " " + in.string(), in, "reads");
    expect_refused_keeping(run + " " + option + " " + (dir.path / "." / "in.mesh").string(), in, "reads");
    expect_refused_keeping(run + " " + option + " " + (dir.path / "hard.mesh").string(), in, "reads");
    expect_refused_keeping(run + " " + option + " " + (dir.path / "soft.mesh").string(), in, "reads");
  }
  // A folder output inside the mesh file, or naming it.
  expect_refused_keeping(run + " --save " + (in / "sub").string(), in, "");
  expect_refused_keeping(run + " --json " + (in / "x.json").string(), in, "");
}

// Names at the file system's length limit: the written file's temporary name
// is 12 characters longer, so a name that fits but whose temporary name does
// not was accepted, and the write failed after the work.
TEST(HostilePaths, NamesTooLongForTheTemporaryFileAreRefusedUpFront) {
  ScratchDir dir;
  const long name_max = pathconf(dir.path.c_str(), _PC_NAME_MAX);
  ASSERT_GT(name_max, 20);
  const fs::path at_limit = dir.path / std::string(std::size_t(name_max) - 5, 'j');
  for (const char* option : {"--json", "--csv", "--junit", "--benchmark-json"}) {
    const auto r = run_ompref(std::string("run stream --size tiny --variant host_simd --reps 1 --no-ceiling --quiet ") + option +
                              " " + at_limit.string());
    EXPECT_EQ(r.status, 2) << option << "\n" << r.output;
    EXPECT_NE(r.stderr_text.find("too long"), std::string::npos) << r.stderr_text;
    EXPECT_EQ(r.output.find("host_simd"), std::string::npos) << "refused after the work:\n" << r.output;
  }
  // A name that fits with its temporary file is written.
  const fs::path fits = dir.path / std::string(std::size_t(name_max) - 12, 'k');
  const auto ok = run_ompref("run stream --size tiny --variant host_simd --reps 1 --no-ceiling --quiet --json " +
                             fits.string());
  EXPECT_EQ(ok.status, 0) << ok.output;
  EXPECT_TRUE(fs::exists(fits));
  // --save: a folder name at the limit, and a path whose results folder cannot be named.
  const auto save = run_ompref("run stream --size tiny --variant host_simd --reps 1 --no-ceiling --quiet --save " +
                               (dir.path / std::string(std::size_t(name_max) + 1, 's')).string());
  EXPECT_EQ(save.status, 2) << save.output;
  EXPECT_EQ(save.output.find("host_simd"), std::string::npos) << save.output;
}

// Folders that cannot be created or hold no files: refused before any run,
// for --save, --json's folder, lbm's --out and report's --out.
TEST(HostilePaths, FoldersThatCannotHoldFilesAreRefusedUpFront) {
  ScratchDir dir;
  const fs::path file = dir.path / "plain";
  std::ofstream(file) << "x";
  const std::string stream = "run stream --size tiny --variant host_simd --reps 1 --no-ceiling --quiet ";
  const std::string lbm = "run lbm --size tiny --variant host_basic --reps 1 --no-ceiling --quiet --vtk-every 5 ";
  for (const std::string& args :
       {stream + "--save /proc/ompref-results", stream + "--save /sys/ompref-results", stream + "--json /proc/x.json",
        stream + "--csv /sys/x.csv", stream + "--save " + (file / "deeper").string(),
        lbm + "--out /proc/ompref-vtk", lbm + "--out " + (file / "vtk").string(),
        lbm + "--out " + (dir.path / std::string(300, 'v')).string()}) {
    const auto r = run_ompref(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_EQ(count_lines(r.stderr_text), 1) << args << "\n" << r.stderr_text;
    EXPECT_EQ(r.output.find("PASS"), std::string::npos) << args << ": refused after the work\n" << r.output;
  }
  EXPECT_EQ(slurp(file), "x");
}

// report --out: a folder on /proc, and an input the report would overwrite.
TEST(HostilePaths, ReportRefusesAnOutThatCannotHoldItOrOverwritesAnInput) {
  ScratchDir dir;
  const fs::path json = dir.path / "index.md";
  const auto made = run_ompref("run stream --size tiny --variant host_simd --reps 1 --no-ceiling --quiet --json " +
                               json.string());
  ASSERT_EQ(made.status, 0) << made.output;
  expect_refused_keeping("report " + json.string() + " --out " + dir.path.string(), json, "overwrite");
  const auto proc = run_ompref("report " + json.string() + " --out /proc/ompref-report");
  EXPECT_EQ(proc.status, 2) << proc.output;
  EXPECT_EQ(count_lines(proc.stderr_text), 1) << proc.stderr_text;
}

// Bytes that are not UTF-8 in the command line (a file name) and the
// environment: the run's results are written, valid JSON, CSV and XML, and a
// note says what was replaced. Before: nlohmann::json::dump threw after the
// work, exit 2, nothing written.
TEST(HostilePaths, InvalidUtf8InArgumentsAndEnvironmentIsReplacedNotFatal) {
  ScratchDir dir;
  const std::string name = (dir.path / "r\xff\xfe.json").string();
  const std::string csv = (dir.path / "r\xc3.csv").string();
  const std::string xml = (dir.path / "r\xe2\x82.xml").string();
  const auto r = run_ompref("run stream --size tiny --variant host_simd --reps 1 --no-ceiling --quiet --json '" + name +
                                "' --csv '" + csv + "' --junit '" + xml + "'",
                            "OMPREF_LABEL=$(printf 'label\\377')");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.stderr_text.find("U+FFFD"), std::string::npos) << r.stderr_text;
  const nlohmann::json doc = nlohmann::json::parse(slurp(name));  // throws on invalid UTF-8
  EXPECT_NE(doc["provenance"]["command_line"].get<std::string>().find("\xef\xbf\xbd"), std::string::npos);
  const std::string csv_text = slurp(csv);
  EXPECT_NO_THROW((void)nlohmann::json(csv_text).dump()) << "the CSV holds invalid UTF-8";
  EXPECT_NO_THROW((void)nlohmann::json(slurp(xml)).dump()) << "the XML holds invalid UTF-8";
  EXPECT_EQ(ompref::valid_utf8("plain"), "plain");
  EXPECT_EQ(ompref::valid_utf8("a\xff"), "a\xef\xbf\xbd");
}

// Every signal that ends a process by default, not only INT and TERM: the
// results folder holds the three files, agreeing, and no temporary file.
TEST(HostilePaths, EverySignalThatEndsARunLeavesTheResultsFolderConsistent) {
  for (int sig : {SIGHUP, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF}) {
    ScratchDir dir;
    const std::string script = fmt::format(
        "OMP_NUM_THREADS=2 {} run all --size tiny --reps 3 --no-ceiling --quiet --save {} >/dev/null 2>&1 & pid=$!; "
        "for i in $(seq 1 600); do ls {}/*/results.json >/dev/null 2>&1 && break; sleep 0.05; done; "
        "kill -{} $pid; wait $pid; echo $?",
        OMPREF_BIN, dir.path.string(), dir.path.string(), sig);
    const std::string status = shell_text(script);
    ASSERT_FALSE(status.empty());
    EXPECT_EQ(std::atoi(status.c_str()), 128 + sig) << strsignal(sig);
    int folders = 0;
    for (const auto& folder : fs::directory_iterator(dir.path)) {
      ++folders;
      const nlohmann::json j = nlohmann::json::parse(slurp(folder.path() / "results.json"));
      EXPECT_GE(j["runs"].size(), 1u);
      EXPECT_EQ(count_lines(slurp(folder.path() / "results.csv")), int(j["runs"].size()) + 1) << strsignal(sig);
      EXPECT_NE(slurp(folder.path() / "table.txt").find(j["runs"].back()["variant"].get<std::string>()),
                std::string::npos);
      for (const auto& f : fs::directory_iterator(folder.path()))
        EXPECT_EQ(f.path().filename().string().find(".tmp."), std::string::npos) << f.path() << " " << strsignal(sig);
    }
    EXPECT_EQ(folders, 1) << strsignal(sig);
  }
}
