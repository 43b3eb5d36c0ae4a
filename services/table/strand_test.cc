// Strand: commands one at a time and in order, the two-arrival suspension, the
// bound, the commands held for a table being read, and the load it asks for.
#include "services/table/strand.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace trix::table {
namespace {

// A table that is loaded, or is loaded when the strand asks (`load_started`).
class FakeTable : public Strand::Owner {
 public:
  bool Loaded() const override { return loaded; }
  absl::Status NotLoaded() const override { return absl::UnavailableError("not loaded"); }
  bool MayLoad() const override { return may_load; }
  void Load() override { ++load_started; }

  bool loaded = true;
  bool may_load = true;
  int load_started = 0;
};

const std::string kTable = "t1";

Strand::Command Record(std::vector<std::string>* seen, std::string name) {
  return [seen, name](const absl::Status& status) {
    seen->push_back(status.ok() ? name : name + ":" + std::string(status.message()));
  };
}

TEST(StrandTest, CommandsRunInOrderOnTheThreadThatStartedIt) {
  Strand strand(kTable);
  FakeTable table;
  std::vector<std::string> seen;
  Strand::Command a = Record(&seen, "a");
  ASSERT_EQ(strand.Post(a, 10, false), Strand::Placed::kStart);
  Strand::Command b = Record(&seen, "b");
  ASSERT_EQ(strand.Post(b, 10, false), Strand::Placed::kQueued);
  strand.Drain(table);
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b"}));
  Strand::Command c = Record(&seen, "c");
  EXPECT_EQ(strand.Post(c, 10, false), Strand::Placed::kStart);  // idle again
}

TEST(StrandTest, SuspendedWorkContinuesWhicheverArrivesSecond) {
  for (bool completion_first : {true, false}) {
    Strand strand(kTable);
    FakeTable table;
    std::vector<std::string> seen;
    bool resumed_by_completion = false;
    Strand::Command append = [&](const absl::Status&) {
      seen.push_back("append");
      strand.Suspend();
      // The completion may arrive while the suspending work still runs.
      if (completion_first) {
        EXPECT_FALSE(strand.Complete([&] { seen.push_back("durable"); }));
      }
    };
    ASSERT_EQ(strand.Post(append, 10, false), Strand::Placed::kStart);
    Strand::Command next = Record(&seen, "next");
    strand.Post(next, 10, false);
    strand.Drain(table);
    if (!completion_first) {
      // Nothing runs past the suspension until the completion arrives.
      EXPECT_EQ(seen, (std::vector<std::string>{"append"}));
      resumed_by_completion = strand.Complete([&] { seen.push_back("durable"); });
      ASSERT_TRUE(resumed_by_completion);
      strand.Drain(table);
    }
    EXPECT_EQ(seen, (std::vector<std::string>{"append", "durable", "next"}))
        << "completion first: " << completion_first;
  }
}

TEST(StrandTest, ACommandPastTheBoundIsNotQueued) {
  Strand strand(kTable);
  std::vector<std::string> seen;
  Strand::Command a = Record(&seen, "a");
  Strand::Command b = Record(&seen, "b");
  ASSERT_EQ(strand.Post(a, 1, false), Strand::Placed::kStart);
  EXPECT_EQ(strand.Post(b, 1, false), Strand::Placed::kFull);
  EXPECT_TRUE(b);  // still the caller's, to refuse
  Strand::Command unbounded = Record(&seen, "c");
  EXPECT_EQ(strand.Post(unbounded, SIZE_MAX, false), Strand::Placed::kQueued);
}

TEST(StrandTest, AnUnloadedTableIsLoadedFirstAndAFailedLoadAnswersTheWaiting) {
  Strand strand(kTable);
  FakeTable table;
  table.loaded = false;
  std::vector<std::string> seen;
  Strand::Command a = Record(&seen, "a");
  Strand::Command b = Record(&seen, "b");
  ASSERT_EQ(strand.Post(a, 10, false), Strand::Placed::kStart);
  strand.Post(b, 10, false);
  strand.Drain(table);
  EXPECT_EQ(table.load_started, 1);
  EXPECT_TRUE(seen.empty());
  // The load failed: both waiting commands get the error, then the next loads.
  ASSERT_TRUE(strand.Complete([&] { strand.FailQueued(); }));
  strand.Drain(table);
  EXPECT_EQ(seen, (std::vector<std::string>{"a:not loaded", "b:not loaded"}));
  Strand::Command c = Record(&seen, "c");
  ASSERT_EQ(strand.Post(c, 10, false), Strand::Placed::kStart);
  strand.Drain(table);
  EXPECT_EQ(table.load_started, 2);
  // Loaded now.
  ASSERT_TRUE(strand.Complete([&] { table.loaded = true; }));
  strand.Drain(table);
  EXPECT_EQ(seen.back(), "c");
}

TEST(StrandTest, ATableThatLeftIsNotLoadedAgain) {
  Strand strand(kTable);
  FakeTable table;
  table.loaded = false;
  table.may_load = false;
  std::vector<std::string> seen;
  Strand::Command a = Record(&seen, "a");
  ASSERT_EQ(strand.Post(a, 10, false), Strand::Placed::kStart);
  strand.Drain(table);
  EXPECT_EQ(table.load_started, 0);
  EXPECT_EQ(seen, (std::vector<std::string>{"a:not loaded"}));
}

TEST(StrandTest, HeldCommandsQueueInOrderWhenTheReadArrivesOrAreTaken) {
  Strand strand(kTable);
  FakeTable table;
  strand.HoldForLoad();
  std::vector<std::string> seen;
  Strand::Command a = Record(&seen, "a");
  Strand::Command b = Record(&seen, "b");
  Strand::Command c = Record(&seen, "c");
  EXPECT_EQ(strand.Post(a, 10, /*may_hold=*/false), Strand::Placed::kRefused);
  EXPECT_EQ(strand.Post(a, 10, true), Strand::Placed::kFirstHeld);
  EXPECT_EQ(strand.Post(b, 10, true), Strand::Placed::kHeld);
  EXPECT_EQ(strand.Post(c, 2, true), Strand::Placed::kFull);  // held ones count
  std::vector<Strand::Command> taken;
  EXPECT_TRUE(strand.TakeHeld(absl::InfinitePast(), &taken).has_value());
  EXPECT_TRUE(taken.empty());
  bool first = false;
  ASSERT_TRUE(strand.StopHolding([&] { first = true; }));
  EXPECT_TRUE(first);
  EXPECT_FALSE(strand.StopHolding([&] { ADD_FAILURE() << "holds nothing"; }));
  // The held commands wait for the next Post to start the strand.
  Strand::Command d = Record(&seen, "d");
  ASSERT_EQ(strand.Post(d, 10, true), Strand::Placed::kStart);
  strand.Drain(table);
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b", "d"}));

  Strand other(kTable);
  other.HoldForLoad();
  Strand::Command e = Record(&seen, "e");
  other.Post(e, 10, true);
  EXPECT_FALSE(other.TakeHeld(absl::InfiniteFuture(), &taken).has_value());
  ASSERT_EQ(taken.size(), 1u);
}

}  // namespace
}  // namespace trix::table
