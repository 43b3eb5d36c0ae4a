"""Mamlaka's bot library for Python: play Trix seats over the table service's gRPC API.

A bot implements three decisions (see Bot) and never touches gRPC: the library keeps
the seat's view of the table, numbers and resumes the stream, sends one action at a
time, follows a table that moved to another instance, and resends an unanswered
action under the same request id after reconnecting.

    from mamlaka_bot import Bot, play_seat

    class Lowest(Bot):
        def play_card(self, view, legal):
            return min(legal, key=rank_order)

    play_seat("127.0.0.1:7000", table_id, seat_token, Lowest())

The generated protobuf modules (trix.v1.*_pb2) must be importable: the build writes
them to build/python: PYTHONPATH=build/python:bots/python.
"""

from mamlaka_bot.bot import Bot, RANKS, SUITS, rank_of, suit_of
from mamlaka_bot.seat import Seat, SeatError, play_seat
from mamlaka_bot.serve import serve
from mamlaka_bot.tls import channel_credentials, credentials_from_env
from mamlaka_bot.view import SeatView

__all__ = ["Bot", "Seat", "SeatError", "SeatView", "play_seat", "serve",
           "channel_credentials", "credentials_from_env",
           "RANKS", "SUITS", "rank_of", "suit_of"]
