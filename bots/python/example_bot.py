#!/usr/bin/python3
"""A whole Trix bot in thirty lines: it ducks, sheds its highest cards, and never
doubles. Plays one seat: example_bot.py ADDRESS TABLE_ID SEAT_TOKEN, or serves a bot
account through matchmaking: example_bot.py --serve MATCHMAKING_ADDRESS BOT_KEY
(SIGTERM: no more seats; the games in progress are played out, then it exits).
TLS as trix-bot reads it from the environment: TRIX_BOT_TLS=true, TRIX_BOT_TLS_CA,
TRIX_BOT_TLS_CLIENT_CERT, TRIX_BOT_TLS_CLIENT_KEY."""
import signal
import sys
import threading

from mamlaka_bot import Bot, credentials_from_env, play_seat, rank_of, serve, suit_of


class Ducker(Bot):
    def choose_contract(self, view, options):
        return options[-1]  # the last one the server lists

    def play_card(self, view, legal):
        trick = list(view.trick.values())
        if not trick:  # leading: the lowest card
            return min(legal, key=rank_of)
        led = suit_of(trick[0])
        best = max((rank_of(c) for c in trick if suit_of(c) == led), default=-1)
        under = [c for c in legal if suit_of(c) == led and rank_of(c) < best]
        if under:  # the highest card that still loses the trick
            return max(under, key=rank_of)
        return max(legal, key=rank_of)  # void, or must win: shed the highest


if __name__ == "__main__":
    if sys.argv[1] == "--serve":
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        serve(sys.argv[2], sys.argv[3], Ducker, stop=stop, credentials=credentials_from_env())
    else:
        print(play_seat(sys.argv[1], sys.argv[2], sys.argv[3], Ducker(),
                        credentials=credentials_from_env()))
