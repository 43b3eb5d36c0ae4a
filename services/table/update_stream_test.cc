// StreamSink without a network: a fake writer stands in for the reactor, and the
// test completes its writes. Covers the queue (one write in flight, the live
// limit) and the staging of a Play stream's action results.
#include "services/table/update_stream.h"

#include <vector>

#include "gtest/gtest.h"

namespace trix::table {
namespace {

class FakeWriter : public StreamWriter {
 public:
  void Write(const v1::TableUpdate* update) override { writes.push_back(*update); }
  void End(const grpc::Status& status) override { ended.push_back(status); }

  std::vector<v1::TableUpdate> writes;  // started, in order
  std::vector<grpc::Status> ended;
};

v1::TableUpdate WithEvent(uint64_t seq) {
  v1::TableUpdate update;
  update.add_events()->set_seq(seq);
  return update;
}

v1::ActResult Result(const std::string& request_id, uint64_t seq) {
  v1::ActResult result;
  result.set_request_id(request_id);
  result.set_seq(seq);
  return result;
}

TEST(StreamSinkTest, AStagedResultRidesInTheNextUpdate) {
  FakeWriter writer;
  StreamSink sink(&writer, 8);
  sink.Stage(Result("a", 1));
  ASSERT_TRUE(sink.Send(WithEvent(1), false));
  ASSERT_EQ(writer.writes.size(), 1u);
  EXPECT_EQ(writer.writes[0].events_size(), 1);
  ASSERT_EQ(writer.writes[0].results_size(), 1);
  EXPECT_EQ(writer.writes[0].results(0).request_id(), "a");
  sink.Flush();  // nothing left staged
  EXPECT_EQ(writer.writes.size(), 1u);
  EXPECT_TRUE(sink.WriteDone(true));  // it answered an action: read the next

  ASSERT_TRUE(sink.Send(WithEvent(2), false));
  EXPECT_EQ(writer.writes[1].results_size(), 0);
  EXPECT_FALSE(sink.WriteDone(true));
}

TEST(StreamSinkTest, FlushSendsStagedResultsInAnUpdateOfTheirOwn) {
  FakeWriter writer;
  StreamSink sink(&writer, 8);
  sink.Flush();
  EXPECT_TRUE(writer.writes.empty());
  v1::ActResult refused;
  refused.set_request_id("b");
  refused.set_code(9);
  refused.set_message("not your turn");
  sink.Stage(refused);
  sink.Flush();
  ASSERT_EQ(writer.writes.size(), 1u);
  EXPECT_EQ(writer.writes[0].events_size(), 0);
  ASSERT_EQ(writer.writes[0].results_size(), 1);
  EXPECT_EQ(writer.writes[0].results(0).code(), 9);
  EXPECT_TRUE(sink.WriteDone(true));
}

TEST(StreamSinkTest, ResultsStagedDuringAWriteGoWithTheUpdateQueuedBehindIt) {
  FakeWriter writer;
  StreamSink sink(&writer, 8);
  ASSERT_TRUE(sink.Send(WithEvent(1), false));  // in flight
  sink.Stage(Result("c", 2));
  ASSERT_TRUE(sink.Send(WithEvent(2), false));  // queued, with the result
  EXPECT_EQ(writer.writes.size(), 1u);
  EXPECT_FALSE(sink.WriteDone(true));
  ASSERT_EQ(writer.writes.size(), 2u);
  EXPECT_EQ(writer.writes[1].events(0).seq(), 2u);
  EXPECT_EQ(writer.writes[1].results(0).request_id(), "c");
  EXPECT_TRUE(sink.WriteDone(true));
  EXPECT_TRUE(writer.ended.empty());
}

TEST(StreamSinkTest, AClosingStreamTakesNoResultsAndNoMoreActions) {
  FakeWriter writer;
  StreamSink sink(&writer, 8);
  sink.Stage(Result("d", 1));
  ASSERT_TRUE(sink.Send(WithEvent(1), false));  // in flight, carrying the result
  sink.Close(absl::OkStatus());                 // the game ended
  EXPECT_FALSE(sink.WriteDone(true));           // no next action to read
  ASSERT_EQ(writer.ended.size(), 1u);
  EXPECT_TRUE(writer.ended[0].ok());
  sink.Stage(Result("e", 2));
  sink.Flush();
  EXPECT_EQ(writer.writes.size(), 1u);
  EXPECT_FALSE(sink.Send(WithEvent(2), false));
}

TEST(StreamSinkTest, AClientThatDoesNotReadIsCutOff) {
  FakeWriter writer;
  StreamSink sink(&writer, 2);
  ASSERT_TRUE(sink.Send(WithEvent(1), false));  // in flight
  ASSERT_TRUE(sink.Send(WithEvent(2), false));
  EXPECT_FALSE(sink.Send(WithEvent(3), false));  // over the limit
  EXPECT_TRUE(writer.ended.empty());             // the write in flight first
  sink.WriteDone(true);
  ASSERT_EQ(writer.ended.size(), 1u);
  EXPECT_EQ(writer.ended[0].error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(writer.writes.size(), 1u);  // the queued update was dropped
}

}  // namespace
}  // namespace trix::table
