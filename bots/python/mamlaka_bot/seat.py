"""Seat: plays one seat of a table for a Bot over the table service's Play stream.

The stream bookkeeping that every client of the table API needs, done once:
- the first message is `subscribe`; after a reconnect it carries after_seq, the
  last event seen, so that no event is missed or applied twice;
- events are numbered per seat without gaps: a repeated one is skipped, a gap
  reopens the stream from the last event seen;
- one action is in flight at a time: the next is sent once the stream answered the
  last (an ActResult, in the update with the action's own event when accepted);
- an action that got no answer, or a transient one (UNAVAILABLE, RESOURCE_EXHAUSTED,
  ABORTED, DEADLINE_EXCEEDED), is sent again under the same request id, which the
  server applies once;
- when the stream breaks, the table is located again (LocateTable on any
  instance, or the address the error names) and the seat reconnects there;
- a bot's answer that is not among the prompt's options is logged at error level,
  counted (Seat.illegal), and replaced by the first option;
- a table that deals from everyone's seeds gets the seat's seed from the
  library itself (os.urandom), before the first deal.
"""

import logging
import os
import queue
import time
import uuid

import grpc

from trix.v1 import common_pb2, table_pb2, table_pb2_grpc
from mamlaka_bot.backoff import Backoff
from mamlaka_bot.view import SeatView

log = logging.getLogger("mamlaka_bot")

TRANSIENT = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED,
             grpc.StatusCode.ABORTED, grpc.StatusCode.DEADLINE_EXCEEDED,
             grpc.StatusCode.CANCELLED, grpc.StatusCode.UNKNOWN,
             grpc.StatusCode.INTERNAL}
TRANSIENT_CODES = {c.value[0] for c in TRANSIENT}
ADDRESS_KEY = "mamlaka-table-address"


class SeatError(Exception):
    """The seat cannot go on: a refused token, an unknown table, or no progress."""


class _Reconnect(Exception):
    """The stream must be reopened from the last event seen."""


def _prompt_key(p):
    return (p.seq, p.phase, tuple(p.my_doubles))


class Seat:
    def __init__(self, address, table_id, seat_token, bot, give_up_after=120.0,
                 credentials=None, locate_via=None):
        """locate_via: an address that reaches some live instance (a load-balanced
        Service) to ask where the table went when its own instance is gone; by
        default the first address."""
        self.address, self.table_id, self.token, self.bot = address, table_id, seat_token, bot
        self.locate_via = locate_via or address
        self.last_progress = time.monotonic()
        self.give_up_after = give_up_after
        self.credentials = credentials
        self.view = SeatView()
        self.last_seq = 0
        self.prompt = None        # the decision the seat faces, if any
        self.answered = None      # the key of the prompt last acted on
        self.pending = None       # (request_id, ActRequest, prompt key) awaiting its result
        self.illegal = 0          # bot answers that were not an option
        self.reconnects = 0

    def play(self):
        """Plays until the game ends; returns its trix.v1.GameResult."""
        # Capped at a second, jittered below the wait rather than above it: a seat
        # is back within a second of its table.
        backoff = Backoff(0.1, 1.0, jitter=(0.5, 1.0))
        while True:
            channel = self._channel()
            try:
                if self._run_stream(channel):
                    return self.view.result
                backoff.reset()
            except grpc.RpcError as e:
                if e.code() == grpc.StatusCode.OUT_OF_RANGE and self.last_seq > 0:
                    # Resumed beyond the stream's end (a failover lost the log's
                    # tail): start over from a snapshot.
                    log.warning("resuming failed (%s): starting from a snapshot",
                                e.details())
                    self.last_seq = 0
                    continue
                if e.code() not in TRANSIENT:
                    raise SeatError("%s: %s" % (e.code().name, e.details())) from None
                self._follow(e)
            except _Reconnect:
                pass
            finally:
                channel.close()
            if time.monotonic() - self.last_progress > self.give_up_after:
                raise SeatError("no progress for %.0f s" % self.give_up_after)
            self.reconnects += 1
            time.sleep(backoff.failed())

    def _channel(self, address=None):
        address = address or self.address
        if self.credentials:  # grpc.ChannelCredentials: TLS (mamlaka_bot.tls)
            return grpc.secure_channel(address, self.credentials)
        return grpc.insecure_channel(address)

    def _run_stream(self, channel):
        """One Play stream; True once the game is over."""
        outbox = queue.Queue()
        outbox.put(table_pb2.PlayRequest(subscribe=table_pb2.SubscribeRequest(
            table_id=self.table_id, seat_token=self.token, after_seq=self.last_seq)))
        if self.pending:
            outbox.put(table_pb2.PlayRequest(act=self.pending[1]))
        responses = table_pb2_grpc.TableServiceStub(channel).Play(_drain(outbox))
        try:
            for update in responses:
                self.last_progress = time.monotonic()
                self._apply(update)
                if self.view.result is not None:
                    return True
                self._maybe_act(outbox)
            return self.view.result is not None
        finally:
            outbox.put(None)
            responses.cancel()

    def _apply(self, update):
        if update.HasField("snapshot"):
            self.view.apply_snapshot(update.snapshot)
            self.last_seq = update.snapshot.seq
            if self.answered and self.answered[0] > self.last_seq:
                self.answered = None  # the table was rebuilt from before our answer
        for event in update.events:
            if event.seq <= self.last_seq:
                continue
            if event.seq != self.last_seq + 1:
                log.warning("gap after event %d (got %d): resuming", self.last_seq, event.seq)
                raise _Reconnect()
            self.view.apply_event(event)
            self.last_seq = event.seq
            self.bot.on_event(self.view, event)
        if update.HasField("prompt"):
            self.prompt = update.prompt
        for result in update.results:
            self._on_result(result)

    def _on_result(self, result):
        if not self.pending or result.request_id != self.pending[0]:
            return
        _, request, key = self.pending
        self.pending = None
        if result.code == 0:
            return
        if result.code in TRANSIENT_CODES:
            self.pending = (result.request_id, request, key)  # resent on the next stream
            raise _Reconnect()
        log.warning("action refused (%d): %s", result.code, result.message)
        if self.prompt is not None and _prompt_key(self.prompt) == key:
            self.answered = None  # the decision is still open: answer it again

    def _maybe_act(self, outbox):
        p = self.prompt
        if self.pending or p is None or self.answered == _prompt_key(p):
            return
        if self.view.phase == common_pb2.PHASE_GAME_OVER:
            return
        request = table_pb2.ActRequest(request_id=uuid.uuid4().hex)
        if p.contribute_seed:
            # The seat's share of the deals' seed (a table with seat_seeds), from the
            # system's cryptographic generator: the library's answer, not the bot's.
            request.contribute_seed.seed = os.urandom(32)
        elif p.phase == common_pb2.PHASE_CHOOSING_CONTRACT:
            options = list(p.available_contracts)
            request.choose_contract.contract = self._checked(
                self.bot.choose_contract(self.view, options), options, "contract")
        elif p.phase == common_pb2.PHASE_DOUBLING:
            doublable = list(p.doublable)
            chosen = list(self.bot.choose_doubles(self.view, doublable) or [])
            if any(c not in doublable for c in chosen):
                self._illegal("doubles %s" % chosen, doublable)
                chosen = []
            request.select_doubles.cards.extend(chosen)
            request.select_doubles.ready = True
        elif p.phase == common_pb2.PHASE_PLAYING:
            legal = list(p.legal_cards)
            request.play_card.card = self._checked(
                self.bot.play_card(self.view, legal), legal, "card")
        else:
            return
        self.answered = _prompt_key(p)
        self.pending = (request.request_id, request, self.answered)
        outbox.put(table_pb2.PlayRequest(act=request))

    def _checked(self, answer, options, what):
        if answer in options:
            return answer
        self._illegal("%s %r" % (what, answer), options)
        return options[0]

    def _illegal(self, answer, options):
        self.illegal += 1
        log.error("bot answered %s, which is not an option %s: sent %s instead",
                  answer, list(options), list(options)[:1])

    def _follow(self, error):
        """After a broken stream: where does the table live now?"""
        for key, value in (error.trailing_metadata() or ()):
            if key == ADDRESS_KEY and value:
                self.address = value
                return
        for via in (self.address, self.locate_via):
            with self._channel(via) as ask:
                try:
                    where = table_pb2_grpc.TableServiceStub(ask).LocateTable(
                        table_pb2.LocateTableRequest(table_id=self.table_id), timeout=2)
                except grpc.RpcError:
                    continue  # that instance is down too
                self.address = where.address or via
                return


def _drain(outbox):
    while True:
        item = outbox.get()
        if item is None:
            return
        yield item


def play_seat(address, table_id, seat_token, bot, **kwargs):
    """Plays one seat to the end of its game and returns the game's result."""
    return Seat(address, table_id, seat_token, bot, **kwargs).play()
