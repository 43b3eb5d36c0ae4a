"""SeatView: what one seat knows of its table, kept from its stream.

A snapshot replaces the whole view; each event then updates it. The fields are the
ones a bot decides from: its hand, the current trick or the Trix layout, the
contract, who took which cards, revealed doubles, scores.
"""

from trix.v1 import common_pb2


class SeatView:
    def __init__(self):
        self.seat = -1
        self.mode = None
        self.phase = common_pb2.PHASE_UNSPECIFIED
        self.deal = -1
        self.owner = -1
        self.contract = common_pb2.CONTRACT_UNSPECIFIED
        self.hand = set()
        self.trick = {}          # seat -> card, in the current trick
        self.leader = -1
        self.layout = set()      # Trix: the cards laid out
        self.taken = {s: [] for s in range(4)}
        self.doubled = {s: set() for s in range(4)}
        self.deal_scores = [0, 0, 0, 0]
        self.totals = [0, 0, 0, 0]
        self.result = None       # trix.v1.GameResult once the game is over

    def apply_snapshot(self, v):
        self.__init__()
        self.seat, self.mode, self.phase = v.viewer, v.mode, v.phase
        self.deal, self.owner, self.contract = v.deal, v.owner, v.contract
        self.hand = set(v.hand)
        self.leader = v.leader
        self.trick = {s: c for s, c in enumerate(v.trick) if c}
        self.layout = set(v.layout)
        for s in v.seats:
            self.taken[s.seat] = list(s.taken)
            self.doubled[s.seat] = set(s.doubled)
            self.deal_scores[s.seat] = s.deal_score
            self.totals[s.seat] = s.total
        if v.HasField("result"):
            self.result = v.result

    def apply_event(self, e):
        kind = e.WhichOneof("kind")
        handler = getattr(self, "_on_" + kind, None)
        if handler:
            handler(getattr(e, kind))

    def _on_deal_started(self, x):
        self.deal += 1
        self.owner = x.owner
        self.contract = common_pb2.CONTRACT_UNSPECIFIED
        self.phase = common_pb2.PHASE_CHOOSING_CONTRACT
        self.trick, self.layout = {}, set()
        self.taken = {s: [] for s in range(4)}
        self.doubled = {s: set() for s in range(4)}
        self.deal_scores = [0, 0, 0, 0]

    def _on_hand_shown(self, x):
        self.hand = set(x.cards)

    def _on_contract_chosen(self, x):
        self.contract = x.contract
        self.phase = common_pb2.PHASE_DOUBLING

    def _on_doubles_revealed(self, x):
        self.doubled[x.seat] |= set(x.cards)

    def _on_play_started(self, x):
        self.phase = common_pb2.PHASE_PLAYING
        self.leader = x.seat

    def _on_card_played(self, x):
        self.hand.discard(x.card)
        if self.contract == common_pb2.CONTRACT_TRIX:
            self.layout.add(x.card)
        else:
            if not self.trick:
                self.leader = x.seat
            self.trick[x.seat] = x.card

    def _on_trick_taken(self, x):
        self.taken[x.seat].extend(x.cards)
        self.trick = {}
        self.leader = x.seat

    def _on_deal_ended(self, x):
        self.deal_scores = list(x.scores)
        self.totals = [t + s for t, s in zip(self.totals, x.scores)]

    def _on_game_ended(self, x):
        self.phase = common_pb2.PHASE_GAME_OVER
        self.result = x.result
