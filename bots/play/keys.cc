#include "bots/play/keys.h"

#include <cctype>

namespace trix::bots {

const char kKeysHelp[] =
    "Keys:\n"
    "  Left/Right or h/l  move over the highlighted options ([..]; > < is the cursor)\n"
    "  1-9                contract: choose that contract; card: move to that option\n"
    "  Enter              play the card / choose the contract under the cursor;\n"
    "                     doubling: commit the selection (ready)\n"
    "  Space              doubling: add or remove the card under the cursor\n"
    "  q                  leave the table (asks y/n; the server's autopilot then\n"
    "                     plays the seat to the end)\n";

std::vector<KeyPress> KeyDecoder::Feed(absl::string_view bytes) {
  pending_.append(bytes.data(), bytes.size());
  std::vector<KeyPress> keys;
  size_t i = 0;
  while (i < pending_.size()) {
    const char c = pending_[i];
    if (c == '\x1b') {
      // ESC [ X or ESC O X: cursor keys (normal and application mode).
      if (i + 1 >= pending_.size()) break;  // wait for the rest
      const char second = pending_[i + 1];
      if (second == '[' || second == 'O') {
        if (i + 2 >= pending_.size()) break;
        // Skip parameters ("ESC [ 1 ; 5 C") up to the final byte.
        size_t end = i + 2;
        while (end < pending_.size() &&
               (std::isdigit(static_cast<unsigned char>(pending_[end])) ||
                pending_[end] == ';')) {
          ++end;
        }
        if (end >= pending_.size()) break;
        switch (pending_[end]) {
          case 'A': keys.push_back({Key::kUp}); break;
          case 'B': keys.push_back({Key::kDown}); break;
          case 'C': keys.push_back({Key::kRight}); break;
          case 'D': keys.push_back({Key::kLeft}); break;
          default: break;  // other keys (Home, F1, ...) do nothing
        }
        i = end + 1;
        continue;
      }
      keys.push_back({Key::kChar, 0, '\x1b'});
      ++i;
      continue;
    }
    ++i;
    if (c == '\r' || c == '\n') {
      keys.push_back({Key::kEnter});
    } else if (c == ' ') {
      keys.push_back({Key::kSpace});
    } else if (c >= '0' && c <= '9') {
      keys.push_back({Key::kDigit, c - '0'});
    } else if (c == 'h') {
      keys.push_back({Key::kLeft});
    } else if (c == 'l') {
      keys.push_back({Key::kRight});
    } else {
      keys.push_back(
          {Key::kChar, 0, static_cast<char>(std::tolower(static_cast<unsigned char>(c)))});
    }
  }
  pending_.erase(0, i);
  return keys;
}

void Chooser::Begin(const SeatState& state) {
  const SeatOptions& o = state.options;
  open_ = o.pending;
  phase_ = o.phase;
  contracts_.clear();
  cards_.clear();
  cursor_ = 0;
  selection_ = 0;
  if (!open_) return;
  if (phase_ == engine::Phase::kChoosingContract) {
    for (engine::Contract c : engine::ContractsOf(state.rules.variant.format)) {
      if (o.contracts & (1u << static_cast<int>(c))) contracts_.push_back(c);
    }
  } else {
    engine::CardSet set = phase_ == engine::Phase::kDoubling ? o.doublable : o.legal;
    while (set) cards_.push_back(engine::PopLowest(set));
    selection_ = o.my_doubles;
  }
}

void Chooser::End() {
  open_ = false;
  contracts_.clear();
  cards_.clear();
  cursor_ = 0;
  selection_ = 0;
}

int Chooser::size() const {
  return static_cast<int>(phase_ == engine::Phase::kChoosingContract ? contracts_.size()
                                                                     : cards_.size());
}

engine::Card Chooser::cursor_card() const {
  if (!open_ || phase_ == engine::Phase::kChoosingContract) return engine::kNoCard;
  return cursor_ < static_cast<int>(cards_.size()) ? cards_[cursor_] : engine::kNoCard;
}

Chooser::Outcome Chooser::Commit() {
  Outcome out;
  switch (phase_) {
    case engine::Phase::kChoosingContract:
      if (cursor_ < static_cast<int>(contracts_.size()))
        out.decision = Decision::ChooseContract(contracts_[cursor_]);
      break;
    case engine::Phase::kDoubling:
      out.decision = Decision::SelectDoubles(selection_, /*ready=*/true);
      break;
    case engine::Phase::kPlaying:
      if (cursor_ < static_cast<int>(cards_.size()))
        out.decision = Decision::PlayCard(cards_[cursor_]);
      break;
    default:
      break;
  }
  if (out.decision) {
    End();
    out.changed = true;
  }
  return out;
}

Chooser::Outcome Chooser::Handle(const KeyPress& key) {
  Outcome out;
  if (confirming_leave_) {
    confirming_leave_ = false;
    out.changed = true;
    out.leave = key.key == Key::kChar && key.ch == 'y';
    return out;
  }
  if (key.key == Key::kChar && key.ch == 'q') {
    confirming_leave_ = true;
    out.changed = true;
    return out;
  }
  if (!open_) return out;
  if (key.key == Key::kEnter) return Commit();  // doubling nothing is an answer too
  if (size() == 0) return out;
  switch (key.key) {
    case Key::kLeft:
    case Key::kUp:
      cursor_ = (cursor_ + size() - 1) % size();
      out.changed = true;
      break;
    case Key::kRight:
    case Key::kDown:
      cursor_ = (cursor_ + 1) % size();
      out.changed = true;
      break;
    case Key::kDigit:
      if (key.digit < 1 || key.digit > size()) break;
      cursor_ = key.digit - 1;
      out.changed = true;
      // A contract is chosen by its number at once; a card only moves the cursor.
      if (phase_ == engine::Phase::kChoosingContract) return Commit();
      break;
    case Key::kSpace:
      if (phase_ == engine::Phase::kDoubling) {
        selection_ ^= engine::Bit(cards_[cursor_]);
        out.changed = true;
      }
      break;
    default:
      break;
  }
  return out;
}

}  // namespace trix::bots
