"""serve: runs a bot account's process: takes seat assignments from matchmaking and
plays each assigned seat in its own thread, up to `capacity` tables at once.

The ServeBot stream (authenticated with the bot account's key) delivers
assignments and keep-alives; when it breaks, serve() reconnects with backoff, and
matchmaking delivers the account's live assignments again, which are not played
twice (one thread per table and seat, and a seat whose game ended is not replayed).
A seat whose bot raises is reported (logged, and to on_result) without stopping
the others. When serve() stops, or matchmaking refuses the key (UNAUTHENTICATED
after RevokeBot), the games in progress are played to the end first.
"""

import collections
import logging
import threading
import time

import grpc

from trix.v1 import matchmaking_pb2, matchmaking_pb2_grpc
from mamlaka_bot.backoff import Backoff
from mamlaka_bot.seat import Seat, SeatError, TRANSIENT

log = logging.getLogger("mamlaka_bot")

_REMEMBERED = 1000  # finished seats kept so that a late redelivery is not replayed


def serve(matchmaking_address, bot_key, make_bot, capacity=4, modes=(), stop=None,
          on_result=None, on_assignment=None, silent_after=45.0, credentials=None):
    """Serves until `stop` (a threading.Event) is set, then waits for the games in
    progress. make_bot() gives a fresh Bot for each seat; on_assignment(assignment,
    fresh) is called for every assignment delivered (fresh is False for one already
    being played, as after a reconnect); on_result(assignment, outcome) as each seat
    ends, with the trix.v1.GameResult or the exception that ended it. A stream that
    brings nothing, not even a keep-alive, for `silent_after` seconds is given up
    and reopened. Raises SeatError when matchmaking refuses the stream for good (a
    bad or revoked key). `credentials` (grpc.ChannelCredentials, e.g. from
    mamlaka_bot.channel_credentials) dial matchmaking and the tables over TLS;
    None: plaintext."""
    stop = stop or threading.Event()
    seats = _Seats(make_bot, on_result, credentials)
    watch = _Watch(stop, silent_after)
    request = matchmaking_pb2.ServeBotRequest(capacity=capacity, modes=list(modes))
    metadata = (("authorization", "Bearer " + bot_key),)
    backoff = Backoff(0.2, 5.0)
    try:
        while not stop.is_set():
            try:
                with _channel(matchmaking_address, credentials) as channel:
                    updates = matchmaking_pb2_grpc.MatchmakingServiceStub(channel).ServeBot(
                        request, metadata=metadata)
                    watch.open(updates)
                    for update in updates:
                        watch.heard()
                        backoff.reset()
                        if update.HasField("assignment"):
                            fresh = seats.start(update.assignment)
                            if on_assignment:
                                on_assignment(update.assignment, fresh)
            except grpc.RpcError as e:
                if stop.is_set():
                    break
                if e.code() not in TRANSIENT:
                    raise SeatError("%s: %s" % (e.code().name, e.details())) from None
                if watch.silent:
                    log.warning("bot stream silent for %g s: reconnecting", silent_after)
                else:
                    log.warning("bot stream ended (%s): reconnecting", e.code().name)
            finally:
                watch.close()
            stop.wait(backoff.failed())
    finally:
        watch.end()
        seats.join()


def _channel(address, credentials):
    if credentials:
        return grpc.secure_channel(address, credentials)
    return grpc.insecure_channel(address)


class _Watch:
    """The open ServeBot call, cancelled by a watcher thread when `stop` is set or
    when nothing arrived on it for `silent_after` seconds (a connection that died
    without a word: matchmaking sends keep-alives)."""

    def __init__(self, stop, silent_after):
        self.stop, self.silent_after = stop, silent_after
        self.lock = threading.Lock()
        self.call, self.last, self.silent = None, 0.0, False
        self.ended = threading.Event()
        threading.Thread(target=self._run, name="mamlaka-bot-watch", daemon=True).start()

    def open(self, call):
        with self.lock:
            self.call, self.last, self.silent = call, time.monotonic(), False
            if self.stop.is_set():
                call.cancel()

    def heard(self):
        with self.lock:
            self.last = time.monotonic()

    def close(self):
        with self.lock:
            self.call = None

    def end(self):
        self.ended.set()

    def _run(self):
        while not self.ended.is_set():
            stopped = self.stop.wait(min(0.2, self.silent_after / 4))
            with self.lock:
                if self.call is not None and (
                        stopped or time.monotonic() - self.last > self.silent_after):
                    self.silent = not stopped
                    self.call.cancel()
            if stopped:
                return


class _Seats:
    """The seats this process plays: one thread each, keyed by table and seat."""

    def __init__(self, make_bot, on_result, credentials):
        self.make_bot, self.on_result, self.credentials = make_bot, on_result, credentials
        self.playing = {}  # (table_id, seat) -> thread
        self.finished = collections.OrderedDict()  # (table_id, seat) -> None
        self.lock = threading.Lock()

    def start(self, assignment):
        """Starts playing the seat; False when it is being played or has ended."""
        key = (assignment.table_id, assignment.seat)
        with self.lock:
            if key in self.playing or key in self.finished:
                return False
            thread = threading.Thread(target=self._play, args=(key, assignment),
                                      name="mamlaka-bot-%s-%d" % key, daemon=True)
            self.playing[key] = thread
        thread.start()
        return True

    def _play(self, key, assignment):
        try:
            seat = Seat(assignment.address, assignment.table_id, assignment.seat_token,
                        self.make_bot(), credentials=self.credentials)
            outcome = seat.play()
        except SeatError as e:
            log.error("table %s seat %d: %s", assignment.table_id, assignment.seat, e)
            outcome = e
        except Exception as e:  # the bot's own bug: this seat ends, the others go on
            log.exception("table %s seat %d: the bot failed", assignment.table_id,
                          assignment.seat)
            outcome = e
        try:
            if self.on_result:
                self.on_result(assignment, outcome)
        finally:
            with self.lock:
                del self.playing[key]
                self.finished[key] = None
                while len(self.finished) > _REMEMBERED:
                    self.finished.popitem(last=False)

    def join(self):
        while True:
            with self.lock:
                threads = list(self.playing.values())
            if not threads:
                return
            for thread in threads:
                thread.join()
