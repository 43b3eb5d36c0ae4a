"""The interface a Python bot implements, and the card notation.

Cards are strings: rank "23456789TJQKA" then suit "CDHS" ("TD", "KH"). Every
decision is given the seat's view (SeatView) and the options the server's prompt
lists, so a bot never applies a rule itself: the server's engine is the rule book.
The defaults pick the first option, so a bot overrides only what it cares about.
"""

from trix.v1 import common_pb2

RANKS = "23456789TJQKA"
SUITS = "CDHS"


def rank_of(card):
    """0 for a two .. 12 for an ace."""
    return RANKS.index(card[0])


def suit_of(card):
    return card[1]


class Bot:
    """One seat's decisions. Each method returns one of the options it is given."""

    def choose_contract(self, view, options):
        """options: trix.v1.Contract values (ints) the owner may still choose."""
        return options[0]

    def choose_doubles(self, view, doublable):
        """doublable: the cards this seat may double now; return those to double."""
        return []

    def play_card(self, view, legal):
        """legal: the cards this seat may play now."""
        return legal[0]

    def on_event(self, view, event):
        """Called for every event the seat sees, after the view applied it."""


CONTRACT_NAMES = {v.number: v.name[len("CONTRACT_"):].lower()
                  for v in common_pb2.Contract.DESCRIPTOR.values}
