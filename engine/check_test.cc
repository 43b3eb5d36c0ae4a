// TRIX_CHECK stays on in release builds and says what failed.
#include "engine/check.h"

#include "gtest/gtest.h"

namespace trix {
namespace {

int Calls(int& n) { return ++n; }

TEST(CheckTest, APassingCheckDoesNothingAndEvaluatesOnce) {
  int n = 0;
  TRIX_CHECK(Calls(n) == 1) << "never built";
  EXPECT_EQ(n, 1);
  TRIX_CHECK_OK(absl::OkStatus()) << "never built";
  int m = 0;
  TRIX_CHECK_OK((Calls(m), absl::OkStatus()));
  EXPECT_EQ(m, 1);
}

TEST(CheckDeathTest, AFailedCheckAbortsWithItsMessage) {
  const int seats = 5;
  EXPECT_DEATH(TRIX_CHECK(seats == 4) << "seats: " << seats,
               "FATAL .*check_test.cc:[0-9]+: check `seats == 4` failed: seats: 5");
  EXPECT_DEATH(TRIX_CHECK(false), "check `false` failed");
}

TEST(CheckDeathTest, AFailedStatusCheckShowsTheStatus) {
  EXPECT_DEATH(TRIX_CHECK_OK(absl::InternalError("lost")) << "table t1",
               "check `absl::InternalError\\(\"lost\"\\)` failed \\(INTERNAL: lost\\): table t1");
}

// NDEBUG (release) must not turn the check off, unlike assert.
TEST(CheckDeathTest, StaysOnWithNdebug) {
#ifndef NDEBUG
  GTEST_SKIP() << "this build is not a release build";
#endif
  EXPECT_DEATH(TRIX_CHECK(1 + 1 == 3), "failed");
}

}  // namespace
}  // namespace trix
