// Output files: written whole or not at all, special files refused before
// any run, symbolic links written through, `-` for standard output, and the
// provenance every result carries.
#include <sys/stat.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "app/result_files.hpp"
#include "common/io/output_file.hpp"
#include "common/usage_error.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace ompref;
using namespace ompref::testing;

namespace {

}  // namespace

TEST(OutputFile, ReplacesTheFileWholeAndLeavesNoTemporary) {
  ScratchDir dir;
  const fs::path file = dir.path / "out.json";
  write_output(file.string(), "old\n", "--json");
  write_output(file.string(), "new\n", "--json");
  EXPECT_EQ(slurp(file), "new\n");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path)) ++entries;
  EXPECT_EQ(entries, 1) << "the temporary file was left behind";
}

TEST(OutputFile, AReaderHoldingTheOldFileStillReadsItWhole) {
  // The old file is replaced by a rename, not truncated: a descriptor opened
  // on it before the write still reads the complete old contents.
  ScratchDir dir;
  const fs::path file = dir.path / "out.json";
  write_output(file.string(), "{\"old\": true}\n", "--json");
  std::ifstream held(file);
  write_output(file.string(), "{\"new\": true}\n", "--json");
  std::stringstream s;
  s << held.rdbuf();
  EXPECT_EQ(s.str(), "{\"old\": true}\n");
  EXPECT_EQ(slurp(file), "{\"new\": true}\n");
}

TEST(OutputFile, WritesThroughASymlinkAndKeepsTheLink) {
  ScratchDir dir;
  const fs::path target = dir.path / "real.csv";
  const fs::path link = dir.path / "link.csv";
  fs::create_symlink("real.csv", link);  // dangling until written
  write_output(link.string(), "a,b\n", "--csv");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(slurp(target), "a,b\n");
}

TEST(OutputFile, SpecialFilesAndMissingDirectoriesAreRefusedUpFront) {
  ScratchDir dir;
  const fs::path fifo = dir.path / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THROW(check_output_path(fifo.string(), "--json"), IoError);
  EXPECT_THROW(check_output_path(dir.path.string(), "--json"), IoError);
  EXPECT_THROW(check_output_path("/dev/full", "--csv"), IoError);
  EXPECT_THROW(check_output_path((dir.path / "no" / "x.json").string(), "--json"), IoError);
  EXPECT_THROW(check_output_path("", "--json"), IoError);
  EXPECT_NO_THROW(check_output_path((dir.path / "new.json").string(), "--json"));
  EXPECT_NO_THROW(check_output_path("-", "--json"));
}

// The I/O library throws its own error, not the framework's; a command maps
// it to bad input (io_errors_as_usage: the same message, exit status 2).
TEST(OutputFile, ARefusedPathIsTheLibrarysErrorAndBadInputToACommand) {
  bool library_error = false;
  try {
    check_output_path("", "--json");
  } catch (const UsageError&) {
  } catch (const IoError& e) {
    library_error = std::string(e.what()).find("--json") != std::string::npos;
  }
  EXPECT_TRUE(library_error) << "an IoError naming the option, not a UsageError";
  try {
    io_errors_as_usage([] { check_output_path("", "--json"); });
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--json"), std::string::npos) << e.what();
  }
  EXPECT_EQ(io_errors_as_usage([] { return 7; }), 7);
}

TEST(OutputFile, SameFileIsJudgedByIdentity) {
  ScratchDir dir;
  const fs::path file = dir.path / "x.json";
  write_output(file.string(), "{}\n", "--json");
  fs::create_symlink(file, dir.path / "alias.json");
  EXPECT_TRUE(same_output(file.string(), (dir.path / "." / "x.json").string()));
  EXPECT_TRUE(same_output(file.string(), (dir.path / "alias.json").string()));
  EXPECT_FALSE(same_output(file.string(), (dir.path / "y.json").string()));
}

// A command that has decided to end with an error (its line printed or left
// to rank 0) keeps its status when a launcher's SIGTERM arrives meanwhile: no
// "interrupted" line, no 130.
TEST(OutputFile, ATerminationWhileEndingWithAnErrorKeepsTheStatus) {
  for (const bool ending : {false, true}) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const int null = open("/dev/null", O_WRONLY);
      dup2(null, STDERR_FILENO);
      ompref::exit_130_on_interrupt();
      if (ending) ompref::ending_with_error();
      raise(SIGTERM);
      _exit(2);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), ending ? 2 : 130) << (ending ? "ending" : "running");
  }
}

TEST(OutputCli, JsonAndCsvAliasesAreRefusedBeforeAnyRun) {
  ScratchDir dir;
  const std::string json = (dir.path / "x.json").string();
  const std::string alias = (dir.path / "." / "x.json").string();
  auto r = run_ompref("run stream --size tiny --no-ceiling --json " + json + " --csv " + alias);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(count_lines(r.stderr_text), 1) << r.stderr_text;
  EXPECT_FALSE(fs::exists(json)) << "nothing may be written when the command is refused";
  // Relative spellings of a file that does not exist yet, from its directory.
  const std::string here = "cd '" + dir.path.string() + "' && ";
  for (const char* pair : {"--json x.json --csv ./x.json", "--csv q.csv --junit ./sub/../q.csv",
                           "--json b.json --benchmark-json ./b.json", "--junit - --benchmark-json -"}) {
    fs::create_directory(dir.path / "sub");
    r = run_ompref("run stream --size tiny --no-ceiling --save none " + std::string(pair), here);
    EXPECT_EQ(r.status, 2) << pair << "\n" << r.output;
    EXPECT_EQ(count_lines(r.stderr_text), 1) << r.stderr_text;
  }
  EXPECT_FALSE(fs::exists(dir.path / "x.json"));
  EXPECT_FALSE(fs::exists(dir.path / "q.csv"));
  EXPECT_FALSE(fs::exists(dir.path / "b.json"));
}

TEST(OutputCli, ATableThatCannotBeWrittenIsAnError) {
  // Standard output on a full device: exit 2 with one line, not 0 with nothing.
  auto r = run_ompref("run stream --size tiny --reps 1 --no-ceiling --quiet --save none --variant host_simd >/dev/full");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(count_lines(r.stderr_text), 1) << r.stderr_text;
}

TEST(OutputCli, AReplacedFileKeepsItsPermissionsAndALinkLoopIsRefused) {
  ScratchDir dir;
  const fs::path json = dir.path / "private.json";
  std::ofstream(json.string()) << "{}";
  fs::permissions(json, fs::perms::owner_read | fs::perms::owner_write);
  auto r = run_ompref("run stream --size tiny --reps 1 --no-ceiling --save none --variant host_simd --json " +
                      json.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(fs::status(json).permissions(), fs::perms::owner_read | fs::perms::owner_write);
  fs::create_symlink(dir.path / "b", dir.path / "a");
  fs::create_symlink(dir.path / "a", dir.path / "b");
  r = run_ompref("run stream --size tiny --no-ceiling --save none --json " + (dir.path / "a").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(fs::is_symlink(dir.path / "a")) << "the link stays a link";
}

TEST(OutputCli, AFifoOutputIsRefusedNotWaitedOn) {
  ScratchDir dir;
  const fs::path fifo = dir.path / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto r = run_ompref("run stream --size tiny --no-ceiling --json " + fifo.string(), "timeout 20");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.stderr_text.find("not a regular file"), std::string::npos) << r.stderr_text;
}

TEST(OutputCli, JsonToStandardOutputIsTheDocumentAlone) {
  auto r = run_ompref("run stream --size tiny --reps 1 --no-ceiling --variant host_simd --json -");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string out = r.output.substr(0, r.output.size() - r.stderr_text.size());
  const nlohmann::json j = nlohmann::json::parse(out);  // throws (fails) if the table got mixed in
  EXPECT_EQ(j["runs"].size(), 1u);
  EXPECT_NE(r.stderr_text.find("host_simd"), std::string::npos) << "the table goes to standard error";
}

TEST(OutputCli, ResultsCarryTheirProvenance) {
  ScratchDir dir;
  const fs::path json = dir.path / "r.json", csv = dir.path / "r.csv";
  auto r = run_ompref("run stream --size tiny --reps 1 --no-ceiling --variant host_simd --json " + json.string() +
                      " --csv " + csv.string());
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json p = nlohmann::json::parse(slurp(json))["provenance"];
  for (const char* key : {"git_commit", "git_describe", "build_type", "compile_flags", "link_flags", "command_line",
                          "compiler", "openmp_runtime", "offload", "environment", "date", "hostname", "device_wait"})
    EXPECT_TRUE(p.contains(key)) << key;
  EXPECT_NE(p["command_line"].get<std::string>().find("--variant host_simd"), std::string::npos);
  std::istringstream lines(slurp(csv));
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  EXPECT_NE(header.find(",git_commit,"), std::string::npos) << header;
  EXPECT_NE(row.find(p["git_commit"].get<std::string>()), std::string::npos) << row;
}

TEST(OutputCli, VersionIsOneLineWithCommitAndCompiler) {
  auto r = run_ompref("--version");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(count_lines(r.output), 1) << r.output;
  EXPECT_NE(r.output.find("commit"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(compiler_description()), std::string::npos) << r.output;
}

TEST(OutputCli, ResultsFolderIsKeptAndAnInterruptKeepsFinishedRuns) {
  ScratchDir dir;
  // Interrupted once the first run is saved: exit 130, the folder holds valid
  // JSON with every run that finished, and no temporary file.
  const std::string script = fmt::format(
      "OMP_NUM_THREADS=2 {} run all --size tiny --reps 3 --no-ceiling --quiet --save {} >/dev/null 2>&1 & pid=$!; "
      "for i in $(seq 1 600); do ls {}/*/results.json >/dev/null 2>&1 && break; sleep 0.05; done; "
      "kill -INT $pid; wait $pid; echo $?",
      OMPREF_BIN, dir.path.string(), dir.path.string());
  const std::string status = shell_text(script);
  ASSERT_FALSE(status.empty());
  EXPECT_EQ(std::atoi(status.c_str()), 130);
  int folders = 0;
  for (const auto& folder : fs::directory_iterator(dir.path)) {
    ++folders;
    const nlohmann::json j = nlohmann::json::parse(slurp(folder.path() / "results.json"));
    EXPECT_GE(j["runs"].size(), 1u);
    ASSERT_TRUE(fs::exists(folder.path() / "results.csv"));
    EXPECT_TRUE(fs::exists(folder.path() / "table.txt"));
    // The three files are one set: the CSV holds the same runs (plus its header).
    EXPECT_EQ(count_lines(slurp(folder.path() / "results.csv")), int(j["runs"].size()) + 1);
    for (const auto& f : fs::directory_iterator(folder.path()))
      EXPECT_EQ(f.path().filename().string().find(".tmp."), std::string::npos) << f.path();
  }
  EXPECT_EQ(folders, 1);
}

TEST(OutputCli, CheckRunsEveryVariantOnceAndWritesJUnit) {
  ScratchDir dir;
  const fs::path xml = dir.path / "check.xml";
  auto r = run_ompref("check --quiet --junit " + xml.string());
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string text = slurp(xml);
  int cases = 0;
  for (std::size_t at = text.find("<testcase "); at != std::string::npos; at = text.find("<testcase ", at + 1)) ++cases;
  // Native (CUDA) variants run only where a CUDA device is usable.
  const std::size_t runs = ompref::testing::runnable_variants("").size();
  EXPECT_EQ(std::size_t(cases), runs) << "one test case per variant";
  EXPECT_EQ(text.find("<failure"), std::string::npos);
}

TEST(OutputCli, JUnitFailureCarriesTheWorstError) {
  RunResult r;
  r.workload = "stream";
  r.variant = "host_simd";
  r.check.valid = false;
  r.check.max_rel_error = 0.5;
  r.check.tolerance = 1e-8;
  r.check.detail = "a[3] = 0.5 (expected <1>)";
  const std::string xml = junit_xml({r});
  EXPECT_NE(xml.find("failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("max relative error 0.5 exceeds tolerance 1e-08"), std::string::npos) << xml;
  EXPECT_NE(xml.find("a[3] = 0.5 (expected &lt;1&gt;)"), std::string::npos) << xml;
}

// JUnit for CI tools: a suite per workload with the build's properties, test
// names <workload>.<variant> whatever the size or place (those are the
// case's properties), and a target run on the host fallback skipped where a
// device was required, a pass otherwise.
TEST(OutputCli, JUnitSuitePerWorkloadStableNamesAndSkippedFallback) {
  auto run = [](const std::string& workload, const std::string& variant, Kind kind, const std::string& ran_on) {
    RunResult r;
    r.workload = workload;
    r.variant = variant;
    r.kind = kind;
    r.ran_on = ran_on;
    r.on_device = false;
    r.size = "tiny";
    r.check.valid = true;
    r.reps = 1;
    return r;
  };
  const std::vector<RunResult> runs = {run("stream", "host_simd", Kind::host, "host"),
                                       run("stream", "target_simd", Kind::target, "host (fallback)"),
                                       run("gpp", "host_simd", Kind::host, "host")};
  const std::string plain = junit_xml(runs);
  EXPECT_NE(plain.find("<testsuite name=\"stream\" tests=\"2\" failures=\"0\" errors=\"0\" skipped=\"0\""),
            std::string::npos)
      << plain;
  EXPECT_NE(plain.find("<testsuite name=\"gpp\" tests=\"1\""), std::string::npos) << plain;
  EXPECT_NE(plain.find("name=\"stream.target_simd\""), std::string::npos) << plain;
  EXPECT_NE(plain.find("<property name=\"ran_on\" value=\"host (fallback)\"/>"), std::string::npos) << plain;
  EXPECT_NE(plain.find("<property name=\"size\" value=\"tiny\"/>"), std::string::npos) << plain;
  EXPECT_NE(plain.find("<property name=\"compiler\" value=\"" + compiler_description() + "\"/>"), std::string::npos)
      << plain;
  EXPECT_NE(plain.find("<property name=\"device\" value=\""), std::string::npos) << plain;
  EXPECT_EQ(plain.find("<skipped"), std::string::npos) << "no device asked for: a fallback passes\n" << plain;
  EXPECT_EQ(plain.find("[tiny"), std::string::npos) << "no size or place in a test name\n" << plain;
  const std::string required = junit_xml(runs, {}, true);
  EXPECT_NE(required.find("<testsuites name=\"ompref\" tests=\"3\" failures=\"0\" skipped=\"1\""), std::string::npos)
      << required;
  const std::size_t fallback = required.find("name=\"stream.target_simd\"");
  ASSERT_NE(fallback, std::string::npos) << required;
  EXPECT_LT(required.find("<skipped message=\"ran on the host fallback", fallback),
            required.find("</testcase>", fallback))
      << required;
  EXPECT_EQ(required.find("<skipped", required.find("name=\"gpp.host_simd\"")), std::string::npos)
      << "a host variant is never skipped\n" << required;
}

// github-action-benchmark's customSmallerIsBetter: name, unit, value per valid run.
TEST(OutputCli, BenchmarkJsonListsEachValidRunsMedian) {
  RunResult good;
  good.workload = "stream";
  good.variant = "host_simd";
  good.ran_on = "host";
  good.size = "tiny";
  good.time_s = {1e-3, 2e-3, 3e-3};
  good.check.valid = true;
  RunResult bad = good;
  bad.variant = "target_simd";
  bad.check.valid = false;
  const nlohmann::json list = benchmark_json({good, bad});
  ASSERT_TRUE(list.is_array());
  ASSERT_EQ(list.size(), 1u) << list.dump() << ": a failed run has no time to track";
  EXPECT_EQ(list[0]["name"], "stream.host_simd");
  EXPECT_EQ(list[0]["unit"], "s");
  EXPECT_DOUBLE_EQ(list[0]["value"].get<double>(), 2e-3);
  EXPECT_NE(list[0]["extra"].get<std::string>().find("size tiny"), std::string::npos) << list.dump();
}

// A run whose process crashed or ran past the time limit (src/app/isolation.cpp).
RunResult ended_run(FailureKind kind) {
  RunResult r;
  r.workload = "gpp";
  r.variant = "target_tuned";
  r.kind = Kind::target;
  r.ran_on = "NVIDIA H200 (device 0)";
  r.size = "tiny";
  r.time_s = {0.5, 0.5, 0.5};
  r.check.valid = false;
  r.check.max_rel_error = INFINITY;
  r.failure_kind = kind;
  r.check.detail = kind == FailureKind::crash ? "killed by SIGABRT (Aborted) during the run"
                                              : "still running after 3 s (--time-limit) during the run, killed";
  if (kind == FailureKind::crash) r.failure_log = {"an illegal memory access was encountered", "omptarget fatal error 1: <x>"};
  return r;
}

TEST(OutputCli, JUnitFailureCarriesItsKind) {
  RunResult wrong;
  wrong.workload = "stream";
  wrong.variant = "host_simd";
  wrong.check.max_rel_error = 0.5;
  wrong.check.tolerance = 1e-8;
  const std::string xml = junit_xml({ended_run(FailureKind::crash), ended_run(FailureKind::timeout), wrong});
  EXPECT_NE(xml.find("failures=\"3\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure message=\"crash: killed by SIGABRT (Aborted) during the run"), std::string::npos) << xml;
  EXPECT_NE(xml.find("type=\"crash\">"), std::string::npos) << xml;
  EXPECT_NE(xml.find("omptarget fatal error 1: &lt;x&gt;</failure>"), std::string::npos) << "the last lines, escaped\n"
                                                                                      << xml;
  EXPECT_NE(xml.find("<failure message=\"timeout: still running after 3 s"), std::string::npos) << xml;
  EXPECT_NE(xml.find("type=\"timeout\">"), std::string::npos) << xml;
  EXPECT_NE(xml.find("type=\"validation\">"), std::string::npos) << xml;
}

TEST(OutputCli, JsonFailureCarriesItsKindAndReadsBack) {
  const RunResult crash = ended_run(FailureKind::crash);
  const nlohmann::json j = run_to_json(crash);
  EXPECT_EQ(j["valid"], false);
  EXPECT_EQ(j["failure"], crash.check.detail) << "the detail stays a string, as before";
  EXPECT_EQ(j["failure_kind"], "crash");
  EXPECT_EQ(j["failure_log"], nlohmann::json(crash.failure_log));
  EXPECT_EQ(run_to_json(ended_run(FailureKind::timeout))["failure_kind"], "timeout");
  RunResult valid = crash;
  valid.check.valid = true;
  for (const char* key : {"failure", "failure_kind", "failure_log"}) EXPECT_FALSE(run_to_json(valid).contains(key)) << key;
  // What an isolated run's process sends: read back whole (its JSON the same).
  RunResult back = run_from_json(j);
  EXPECT_EQ(run_to_json(back), j);
  EXPECT_EQ(back.failure_kind, FailureKind::crash);
  EXPECT_TRUE(std::isinf(back.check.max_rel_error)) << "written as null, read as the worst error";
  RunResult measured = valid;
  measured.phases.push_back({"triad", {1e-3, 2e-3, 3e-3}, 24.0, 12.0, 24.0});
  measured.native_fraction = 0.75;
  measured.notes["path"] = "host";
  measured.params = {{"n", 65536}};
  measured.kernel = "direct";
  measured.on_device = true;
  nlohmann::json wire = run_to_json(measured);
  wire["kernel"] = "direct";
  wire["on_device"] = true;
  back = run_from_json(wire);
  EXPECT_EQ(run_to_json(back), run_to_json(measured));
  EXPECT_EQ(back.kernel, "direct");
  EXPECT_TRUE(back.on_device);
}

TEST(OutputTable, AFailSaysItsKindInTheTableAndUnderIt) {
  RunResult wrong = ended_run(FailureKind::crash);
  wrong.failure_kind = FailureKind::validation;
  wrong.check.detail = "a[3] = 0.5 (expected 1)";
  const std::string text = table_text({ended_run(FailureKind::crash), ended_run(FailureKind::timeout), wrong});
  EXPECT_NE(text.find(" FAIL (crash)\n"), std::string::npos) << text;
  EXPECT_NE(text.find(" FAIL (timeout)\n"), std::string::npos) << text;
  EXPECT_NE(text.find(" FAIL\n"), std::string::npos) << "a wrong result's row as before\n" << text;
  EXPECT_NE(text.find("  FAIL gpp target_tuned (NVIDIA H200 (device 0)): crash: killed by SIGABRT"), std::string::npos)
      << text;
  EXPECT_NE(text.find(": failed validation: max relative error inf exceeds tolerance 0: a[3] = 0.5 (expected 1)"),
            std::string::npos)
      << text;
}

TEST(OutputCli, ProgressLinesGoToStandardErrorOnly) {
  auto r = run_ompref("run stream --size tiny --reps 2 --no-ceiling --variant host_simd,target_simd", "OMPREF_QUIET=0");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.stderr_text.find("[1/2] stream 1/1, host_simd 1/2"), std::string::npos) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("[2/2] stream 1/1, target_simd 2/2"), std::string::npos) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("elapsed"), std::string::npos) << r.stderr_text;
  const std::string out = r.output.substr(0, r.output.size() - r.stderr_text.size());
  EXPECT_EQ(out.find("elapsed"), std::string::npos) << "progress must not enter the table";
  auto quiet = run_ompref("run stream --size tiny --reps 1 --no-ceiling --variant host_simd --quiet", "OMPREF_QUIET=0");
  EXPECT_EQ(quiet.stderr_text, "");
}

TEST(OutputCli, BadOpenMPEnvironmentIsRefusedBeforeTheRuntimeSeesIt) {
  for (const char* env : {"OMP_NUM_THREADS=", "OMP_NUM_THREADS=abc", "OMP_NUM_THREADS=-2", "OMP_NUM_THREADS=0",
                          "OMP_THREAD_LIMIT=x", "OMP_DEFAULT_DEVICE=-1", "OMP_TARGET_OFFLOAD=sometimes",
                          "OMP_PROC_BIND=bogus", "OMP_PROC_BIND=spread,", "OMP_PLACES=junk", "OMP_PLACES='cores(0)'",
                          "OMP_PLACES='{0:2'", "OMP_STACKSIZE=x", "OMP_STACKSIZE=-4M", "OMP_DYNAMIC=maybe",
                          "OMP_WAIT_POLICY=lazy"}) {
    auto r = run_ompref("run stream --size tiny --reps 1 --no-ceiling", env);
    EXPECT_EQ(r.status, 2) << env << "\n" << r.output;
    EXPECT_EQ(count_lines(r.stderr_text), 1) << env << "\n" << r.stderr_text;
    const std::string name = std::string(env).substr(0, std::string(env).find('='));
    EXPECT_NE(r.stderr_text.find(name), std::string::npos) << r.stderr_text;
  }
  for (const char* env : {"OMP_NUM_THREADS=2,1", "OMP_PROC_BIND=spread,close", "OMP_PLACES=cores",
                          "OMP_PLACES='{0:1},{1:1}'", "OMP_STACKSIZE=64M", "OMP_DYNAMIC=TRUE", "OMP_WAIT_POLICY=active"}) {
    auto ok = run_ompref("run stream --size tiny --reps 1 --no-ceiling --save none --variant host_simd", env);
    EXPECT_EQ(ok.status, 0) << env << "\n" << ok.output;
  }
}

TEST(OutputTable, ColumnsStayAlignedAndTheCeilingColumnSaysWhatItIs) {
  auto make = [](std::string variant, double bytes, double flops, double fraction) {
    RunResult r;
    r.workload = "mesh";
    r.variant = std::move(variant);
    r.ran_on = "host";
    r.size = "tiny";
    r.model.bytes = bytes;
    r.model.flops = flops;
    r.model.fom_name = "GB/s";
    r.ceiling_fraction = fraction;
    r.check.valid = true;
    return r;
  };
  const std::vector<RunResult> runs = {make("target_lumped_scatter_gather", 100, 10, 0.5),
                                       make("host_direct", 100, 10, 1.7), make("compute_bound", 100, 1000, 0.01)};
  std::istringstream text(table_text(runs));
  std::vector<std::string> lines;
  for (std::string line; std::getline(text, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 5u);  // table_text: the legend, then the table
  EXPECT_NE(lines[0].find("fraction of the best stream triad"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("*: above the triad"), std::string::npos) << lines[0];
  const std::size_t check_column = lines[1].find("check");
  for (std::size_t i = 2; i < lines.size(); ++i) EXPECT_EQ(lines[i].find("PASS"), check_column) << lines[i];
  EXPECT_NE(lines[2].find("0.500 "), std::string::npos) << lines[2];
  EXPECT_NE(lines[3].find("1.700*"), std::string::npos) << lines[3];
  EXPECT_NE(lines[4].find("n/a"), std::string::npos) << lines[4];
  // A compute-bound run with the place's FP64 rate measured: its fraction of it, marked F.
  std::vector<RunResult> with_fp64 = runs;
  with_fp64[2].fp64_fraction = 0.285;
  const std::string fp64_text = table_text(with_fp64);
  EXPECT_NE(fp64_text.find("0.285F"), std::string::npos) << fp64_text;
  EXPECT_NE(fp64_text.find("F: a compute-bound run"), std::string::npos) << fp64_text;
}

// A full standard output: run and check write their named files whatever
// happens to it, then exit 2 with one line; every other command that prints
// (compare, devices, list, --version, --help) exits 2 with one line too.
TEST(OutputCli, AFullStandardOutputLosesNoNamedFileAndIsAnErrorEverywhere) {
  ScratchDir dir;
  const std::string json = (dir.path / "r.json").string(), junit = (dir.path / "r.xml").string();
  auto r = run_ompref(fmt::format("check --quiet --save none --json {} --junit {} >/dev/full", json, junit),
                      "OMP_NUM_THREADS=2");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(count_lines(r.stderr_text), 1) << r.stderr_text;
  EXPECT_NO_THROW(nlohmann::json::parse(slurp(json))) << "the named JSON was written";
  EXPECT_NE(slurp(junit).find("<testsuite"), std::string::npos) << "the named JUnit was written";
  const std::string data = std::string(OMPREF_SOURCE_DIR) + "/tests/data/";
  for (const std::string& command :
       {std::string("--version"), std::string("--help"), std::string("devices"), std::string("list"),
        std::string("run stream --help"),
        "compare " + data + "gpp-paper-h200-1.json " + data + "gpp-paper-h200-2.json"}) {
    r = run_ompref(command + " >/dev/full");
    EXPECT_EQ(r.status, 2) << command << "\n" << r.output;
    EXPECT_EQ(count_lines(r.stderr_text), 1) << command << "\n" << r.stderr_text;
    EXPECT_NE(r.stderr_text.find("standard output"), std::string::npos) << command << "\n" << r.stderr_text;
  }
}

// A file-size limit is a write error: exit 2 with one line, no signal, the
// file written before it intact, no temporary file left.
TEST(OutputCli, AFileSizeLimitIsAWriteError) {
  // An offload build's runtime may write its device image to a temporary
  // file as the program starts (the virtual device's plugin does): a 1 KiB
  // limit then ends the process before any of ompref's code runs.
  if (OMPREF_OFFLOAD_BUILD) GTEST_SKIP() << "the offload runtime writes files before main";
  ScratchDir dir;
  const fs::path json = dir.path / "r.json";
  std::ofstream(json) << "previous\n";
  const auto r = run_ompref(
      fmt::format("run stream --size tiny --reps 1 --no-ceiling --quiet --save none --variant host_simd --json {} "
                  ">/dev/null",
                  json.string()),
      "ulimit -f 1;");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(count_lines(r.stderr_text), 1) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("--json"), std::string::npos) << r.stderr_text;
  EXPECT_EQ(slurp(json), "previous\n");
  for (const auto& f : fs::directory_iterator(dir.path)) EXPECT_EQ(f.path(), json) << "a temporary file was left";
}
