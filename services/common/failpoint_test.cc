// Failpoints are read from MAMLAKA_FAILPOINTS once per process, at their first
// use: the test sets it before that, and CTest runs each test in its own process.
#include "services/common/failpoint.h"

#include <cstdlib>

#include "gtest/gtest.h"

namespace trix::service {
namespace {

TEST(FailpointTest, ACountedFailpointFiresItsFirstTimesOnly) {
  ASSERT_EQ(setenv("MAMLAKA_FAILPOINTS", "test.twice=2,test.always", 1), 0);
  EXPECT_TRUE(FailpointArmed("test.twice"));
  EXPECT_TRUE(FailpointFires("test.twice"));
  EXPECT_TRUE(FailpointFires("test.twice"));
  EXPECT_FALSE(FailpointFires("test.twice"));
  EXPECT_FALSE(FailpointFires("test.twice"));
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(FailpointFires("test.always"));
  EXPECT_FALSE(FailpointArmed("test.never"));
  EXPECT_FALSE(FailpointFires("test.never"));
  Failpoint("test.never");  // not armed: it does not die
}

}  // namespace
}  // namespace trix::service
