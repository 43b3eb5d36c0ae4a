// What one seat may know, and nothing more. This is the only place that decides
// who sees a card: services stream Game events through VisibleTo() and send
// snapshots made by Observe(); neither ever reads a hand directly.
//
// A seat sees its own hand once it is shown (the owner at the deal's start, the
// others when the contract is announced), its own secret doubling selection, and
// everything public: contracts, doubles once revealed, 2s shown in partner Trix,
// cards played, passes, tricks and scores. A spectator (kSpectator) sees only the
// public part. Cards still in hand when a deal ends early are never shown.
//
//   for (const Event& e : game.events()) if (VisibleTo(e, seat)) Send(e);
//   Observation view = Observe(game, seat);
#ifndef TRIX_ENGINE_OBSERVATION_H_
#define TRIX_ENGINE_OBSERVATION_H_

#include <array>

#include "engine/game.h"

namespace trix::engine {

inline constexpr int kSpectator = -1;

// Whether `viewer` (a seat or kSpectator) may see `event`.
bool VisibleTo(const Event& event, int viewer);

struct Observation {
  int viewer = kSpectator;
  Phase phase = Phase::kDealing;
  int deal = -1;  // 0-based index of the current deal
  int kingdom = 0;
  int owner = -1;
  Contract contract = kNoContract;
  uint32_t contracts_played = 0;  // in this kingdom, bits 1 << Contract
  int to_act = -1;                // single seat to act, -1 if none or all (doubling)

  CardSet hand = 0;  // the viewer's own hand, once shown to it
  std::array<int, kNumSeats> hand_sizes{};
  CardSet my_doubles = 0;  // the viewer's selection while doubling
  bool my_ready = false;
  std::array<CardSet, kNumSeats> doubled{};     // revealed, still in hand or played
  std::array<CardSet, kNumSeats> twos_shown{};  // partner Trix, still in hand

  // Trick contracts.
  int leader = -1;
  std::array<Card, kNumSeats> trick{kNoCard, kNoCard, kNoCard, kNoCard};
  std::array<int, kNumSeats> tricks_won{};
  std::array<CardSet, kNumSeats> taken{};
  // Trix.
  CardSet layout = 0;
  std::array<int8_t, kNumSeats> out_order{-1, -1, -1, -1};

  // What the viewer may do now.
  uint32_t available_contracts = 0;
  CardSet doublable = 0;
  CardSet legal = 0;

  Scores deal_scores{};
  Scores totals{};
};

Observation Observe(const Game& game, int viewer);

}  // namespace trix::engine

#endif  // TRIX_ENGINE_OBSERVATION_H_
