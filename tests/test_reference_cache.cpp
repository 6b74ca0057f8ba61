// lbm's reference cache (OMPREF_CACHE) is read only from a folder and an
// entry that no one else can write, never blocks on a FIFO, and leaves no
// temporary file behind a file-size limit or a signal.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/io/output_file.hpp"
#include "common/lbm/lbm.hpp"
#include "common/lbm/lbm_reference_cache.hpp"
#include "common/usage_error.hpp"
#include "test_lbm_cache_support.hpp"
#include "test_support.hpp"

namespace ompref {
namespace {

namespace fs = std::filesystem;
using testing::count_lines;
using testing::run_ompref;
using testing::ScratchDir;

using testing::CacheFolder;

TEST(ReferenceCache, ACacheFolderOthersCanWriteIsRefusedBeforeAnyWork) {
  CacheFolder cache;
  EXPECT_NO_THROW(lbm::check_reference_cache());
  ASSERT_EQ(chmod(cache.dir.path.c_str(), 0777), 0);
  EXPECT_THROW(lbm::check_reference_cache(), UsageError);
  const auto r = run_ompref("run lbm --size tiny --reps 1 --no-ceiling --save none",
                            "OMPREF_CACHE=" + cache.dir.path.string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(count_lines(r.stderr_text), 1) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("writable by others"), std::string::npos) << r.stderr_text;
  EXPECT_EQ(r.output.find("lbm host_basic"), std::string::npos) << "no run before the refusal";
  // A folder group-writable, and one inside a folder others can write (not sticky).
  ASSERT_EQ(chmod(cache.dir.path.c_str(), 0770), 0);
  EXPECT_THROW(lbm::check_reference_cache(), UsageError);
  ASSERT_EQ(chmod(cache.dir.path.c_str(), 0777), 0);
  fs::create_directory(cache.dir.path / "inner");
  ASSERT_EQ(chmod((cache.dir.path / "inner").c_str(), 0700), 0);
  setenv("OMPREF_CACHE", (cache.dir.path / "inner").c_str(), 1);
  EXPECT_THROW(lbm::check_reference_cache(), UsageError);
  // A folder created by the cache is this user's alone.
  ASSERT_EQ(chmod(cache.dir.path.c_str(), 0700), 0);
  setenv("OMPREF_CACHE", (cache.dir.path / "made" / "here").c_str(), 1);
  EXPECT_NO_THROW(lbm::check_reference_cache()) << "not there yet";
  const lbm::Params p = testing::tiny_lbm();
  auto s = lbm::make_instance(p, testing::test_limits());
  EXPECT_TRUE(testing::run_one(*s, "lbm", "host_basic", "tiny", 1, 0).check.valid);
  struct stat st {};
  ASSERT_EQ(stat((cache.dir.path / "made" / "here").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 077, 0u);
  EXPECT_NO_THROW(lbm::check_reference_cache());
}

// An entry others could have written, or a link, is not read: the reference is computed.
TEST(ReferenceCache, AnEntryOthersCanWriteOrALinkIsNotRead) {
  CacheFolder cache;
  const lbm::Params p = testing::tiny_lbm();
  auto first = lbm::make_instance(p, testing::test_limits());
  ASSERT_TRUE(testing::run_one(*first, "lbm", "host_basic", "tiny", 1, 0).check.valid);
  ASSERT_EQ(cache.entries().size(), 1u);
  const fs::path entry = cache.entries()[0];
  auto second = lbm::make_instance(p, testing::test_limits());
  testing::run_one(*second, "lbm", "host_basic", "tiny", 1, 0);
  EXPECT_EQ(second->reference_steps_computed(), 0) << "a trusted entry is read";

  ASSERT_EQ(chmod(entry.c_str(), 0666), 0);
  auto third = lbm::make_instance(p, testing::test_limits());
  EXPECT_TRUE(testing::run_one(*third, "lbm", "host_basic", "tiny", 1, 0).check.valid);
  EXPECT_EQ(third->reference_steps_computed(), p.steps) << "an entry others can write is not read";

  const fs::path elsewhere = cache.dir.path / "elsewhere";
  fs::rename(entry, elsewhere);
  ASSERT_EQ(chmod(elsewhere.c_str(), 0600), 0);
  fs::create_symlink(elsewhere, entry);
  auto fourth = lbm::make_instance(p, testing::test_limits());
  EXPECT_TRUE(testing::run_one(*fourth, "lbm", "host_basic", "tiny", 1, 0).check.valid);
  EXPECT_EQ(fourth->reference_steps_computed(), p.steps) << "a link is not followed";
}

// A FIFO at an entry's name does not block the run: it is not read.
TEST(ReferenceCache, AFifoAtAnEntrysNameDoesNotBlock) {
  ScratchDir dir;
  const std::string env = "OMPREF_CACHE=" + dir.path.string() + " OMP_NUM_THREADS=2";
  const std::string args = "run lbm --size tiny --variant host_basic --reps 1 --no-ceiling --save none --quiet";
  ASSERT_EQ(run_ompref(args, env).status, 0);
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(dir.path)) entries.push_back(e.path());
  ASSERT_EQ(entries.size(), 1u);
  fs::remove(entries[0]);
  ASSERT_EQ(mkfifo(entries[0].c_str(), 0600), 0);
  const auto r = run_ompref(args, env + " timeout -s KILL 60");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.stderr_text.find("not a regular file"), std::string::npos) << r.stderr_text;
}

// A file-size limit while an entry is written: the entry is not kept, its
// temporary file is removed, the run goes on (its verdict is the same).
TEST(ReferenceCache, AFileSizeLimitLeavesNoTemporaryEntry) {
  ScratchDir dir;
  const auto r = run_ompref("run lbm --size tiny --variant host_basic --reps 1 --no-ceiling --save none --quiet",
                            "ulimit -f 64; OMPREF_CACHE=" + dir.path.string() + " OMP_NUM_THREADS=2");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.stderr_text.find("could not write"), std::string::npos) << r.stderr_text;
  EXPECT_TRUE(fs::is_empty(dir.path)) << "a temporary entry was left";
}

// A signal that ends a command removes its pending temporary files and ends
// it as the signal would; the SIGXFSZ of a file-size limit is passed over (a
// write fails instead).
TEST(ReferenceCache, ASignalRemovesPendingFiles) {
  ScratchDir dir;
  const std::string name = (dir.path / ".pending-XXXXXX").string();
  const pid_t pid = fork();
  if (pid == 0) {
    remove_pending_output_on_signals();
    std::string temp = name;
    int slot = -1;
    if (create_pending_file(temp, slot) < 0) _exit(3);
    if (!fs::exists(temp)) _exit(4);
    kill(getpid(), SIGXFSZ);  // as the kernel sends it for a file-size limit: passed over
    if (!fs::exists(temp)) _exit(5);
    raise(SIGTERM);
    _exit(6);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_TRUE(fs::is_empty(dir.path)) << "the pending file was left";
}

}  // namespace
}  // namespace ompref
