// PersonBot: a Bot (bots/sdk/bot.h) whose decisions are a person's keys. The Seat
// calls it on its own thread; a key thread feeds it keys (Key). Both redraw the
// screen (screen.h) under one lock: on every event, on every key and once a second
// (Tick) so that the clocks count down.
//
//   PersonBot person(out, info);
//   std::thread keys([&] { while (...) person.Keys(ReadStdin()); });
//   Seat seat(channel, config, &person);   // Decide() waits for the person's Enter
#ifndef TRIX_BOTS_PLAY_PERSON_BOT_H_
#define TRIX_BOTS_PLAY_PERSON_BOT_H_

#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "bots/common/table_printer.h"
#include "bots/play/keys.h"
#include "bots/play/screen.h"
#include "bots/sdk/bot.h"

namespace trix::bots {

class PersonBot : public Bot {
 public:
  // Frames are written to `out`. `on_leave` runs (on the key thread, without the
  // lock) once the person confirmed leaving.
  PersonBot(std::FILE* out, ScreenInfo info, std::function<void()> on_leave);

  void Restart(const SeatState& state) override;
  void Observe(const v1::Event& event, const SeatState& state) override;
  Decision Decide(const SeatState& state) override;

  // Bytes typed; from the key thread.
  void Keys(absl::string_view bytes);
  // Redraws (clocks); from any thread.
  void Tick();
  // Decide() returns at once from now on (the seat is being stopped).
  void Abandon();
  // The game ended (`state` has the result) or the seat stopped: draws it and
  // makes WaitAnyKey() return on the next key.
  void Finish(const SeatState& state, const std::string& status);
  // True once a key was pressed after Finish().
  bool WaitAnyKey(absl::Duration timeout);
  void SetStatus(const std::string& status);
  // Whether a decision waits for the person's keys (keys typed before one opens
  // do nothing); blocks until it does or `timeout` passed.
  bool AwaitDeciding(absl::Duration timeout);

 private:
  void DrawLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void AddLogLocked(const v1::TableUpdate& update) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  std::FILE* const out_;
  const std::function<void()> on_leave_;
  absl::Mutex mu_;
  SeatState state_ ABSL_GUARDED_BY(mu_);
  bool have_state_ ABSL_GUARDED_BY(mu_) = false;
  Chooser chooser_ ABSL_GUARDED_BY(mu_);
  KeyDecoder decoder_ ABSL_GUARDED_BY(mu_);
  ScreenInfo info_ ABSL_GUARDED_BY(mu_);
  TablePrinter printer_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> log_ ABSL_GUARDED_BY(mu_);
  std::optional<Decision> decision_ ABSL_GUARDED_BY(mu_);
  bool abandoned_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  bool key_after_finish_ ABSL_GUARDED_BY(mu_) = false;
};

// The public part of `state` as a snapshot, so that a TablePrinter names seats and
// knows the contract from the start.
v1::TableView PublicView(const SeatState& state);

}  // namespace trix::bots

#endif  // TRIX_BOTS_PLAY_PERSON_BOT_H_
