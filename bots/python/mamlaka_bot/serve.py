"""serve: runs a bot account's process: takes seat assignments from matchmaking and
plays each assigned seat in its own thread, up to `capacity` tables at once.

The ServeBot stream (authenticated with the bot account's key) delivers
assignments and keep-alives; when it breaks, serve() reconnects with backoff, and
matchmaking delivers the account's live assignments again, which are not played
twice (one thread per table and seat).
"""

import logging
import random
import threading
import time

import grpc

from trix.v1 import matchmaking_pb2, matchmaking_pb2_grpc
from mamlaka_bot.seat import Seat, SeatError, TRANSIENT

log = logging.getLogger("mamlaka_bot")


def serve(matchmaking_address, bot_key, make_bot, capacity=4, modes=(), stop=None,
          on_result=None, on_assignment=None):
    """Serves until `stop` (a threading.Event) is set. make_bot() gives a fresh Bot
    for each seat; on_result(assignment, result_or_error) is called as games end."""
    stop = stop or threading.Event()
    playing = {}  # (table_id, seat) -> thread
    backoff = 0.2
    while not stop.is_set():
        try:
            with grpc.insecure_channel(matchmaking_address) as channel:
                stub = matchmaking_pb2_grpc.MatchmakingServiceStub(channel)
                updates = stub.ServeBot(
                    matchmaking_pb2.ServeBotRequest(capacity=capacity, modes=list(modes)),
                    metadata=(("authorization", "Bearer " + bot_key),))
                threading.Thread(target=lambda: (stop.wait(), updates.cancel()),
                                 daemon=True).start()
                for update in updates:
                    backoff = 0.2
                    if update.HasField("assignment"):
                        fresh = _start(update.assignment, make_bot, playing, on_result)
                        if on_assignment:
                            on_assignment(update.assignment, fresh)
        except grpc.RpcError as e:
            if stop.is_set():
                break
            if e.code() not in TRANSIENT:
                raise SeatError("%s: %s" % (e.code().name, e.details())) from None
            log.warning("bot stream ended (%s): reconnecting", e.code().name)
        time.sleep(backoff * (0.5 + random.random()))
        backoff = min(backoff * 2, 5.0)
    for thread in list(playing.values()):
        thread.join()


def _start(assignment, make_bot, playing, on_result):
    key = (assignment.table_id, assignment.seat)
    if key in playing and playing[key].is_alive():
        return False

    def run():
        seat = Seat(assignment.address, assignment.table_id, assignment.seat_token, make_bot())
        try:
            outcome = seat.play()
        except SeatError as e:
            log.error("table %s seat %d: %s", assignment.table_id, assignment.seat, e)
            outcome = e
        if on_result:
            on_result(assignment, outcome)

    playing[key] = threading.Thread(target=run, daemon=True)
    playing[key].start()
    return True
