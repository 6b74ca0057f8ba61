// The filter that holds back clang's just-in-time vectoriser remarks: those
// lines go, every other line (from stdio or a raw write) comes out in order.
#include <unistd.h>

#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "common/stderr_filter.hpp"

namespace ompref {
namespace {

const char* const remark =
    "warning: <unknown>:0:0: loop not vectorized: the optimizer was unable to perform the requested "
    "transformation; the transformation might be disabled or specified as part of an unsupported transformation "
    "ordering\n";

TEST(StderrFilter, HoldsBackOnlyTheVectorizerRemarks) {
  ::testing::internal::CaptureStderr();
  StderrFilter filter;
  std::fputs(remark, stderr);
  std::fputs("first kept line\n", stderr);
  const std::string raw = std::string(remark) + "second kept line\n" + remark;
  ASSERT_EQ(write(STDERR_FILENO, raw.data(), raw.size()), ssize_t(raw.size()));
  std::fputs("an unfinished line", stderr);
  filter.end();
  std::fputs(" and after\n", stderr);
  const std::string out = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, "first kept line\nsecond kept line\nan unfinished line and after\n");
  EXPECT_EQ(filter.dropped(), 3);
}

TEST(StderrFilter, RecognisesTheRemarkAndNothingElse) {
  EXPECT_TRUE(is_jit_vectorizer_remark(remark));
  EXPECT_FALSE(is_jit_vectorizer_remark("omptarget fatal error 1: failure of target construct while offloading is "
                                        "mandatory\n"));
  EXPECT_FALSE(is_jit_vectorizer_remark("warning: loop not unrolled\n"));
}

TEST(StderrFilter, AnAbortShowsWhatWasHeldBack) {
  // A fatal runtime error while the filter lives: its message still reaches
  // standard error before the process ends.
  EXPECT_DEATH(
      {
        StderrFilter filter;
        std::fputs("omptarget fatal error 1: failure of target construct\n", stderr);
        std::fflush(stderr);
        std::abort();
      },
      "omptarget fatal error 1");
}

}  // namespace
}  // namespace ompref
