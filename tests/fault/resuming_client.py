#!/usr/bin/python3
"""A person's client whose connections drop, for MatchmakingFaultTest.ClientDrop.

It plays one seat found through matchmaking, as a game's backend does it (the
service token, acting for --player), and drops its own connections (closes its
channels: the server sees the stream end as it would for a lost connection):

- after its ticket is queued: it reopens FindTable on a new connection with the
  same request id (the ticket goes on, or is queued again);
- when matchmaking fails under it (UNAVAILABLE, e.g. the process died at the moment
  of matching): it retries FindTable with the same request id until it answers, and
  gets the assignment that was committed;
- at each of --drop_at (seat event numbers) mid-game: it closes the table stream,
  asks matchmaking again (FindTable with the same request id, then GetAssignment on
  later drops), which must answer with the very same assignment, and resumes its
  Play stream with after_seq: the first update must carry exactly the next events
  (no snapshot, no repeat, no gap).

When the game is over it prints one JSON line: player, table, seat, ticket, the
actions the server accepted (`actions`), the stream breaks (`resubscribes`), and
what went wrong (`problems`: empty when every resume was exact). Exit status 0 when
the game ended and nothing went wrong, 1 otherwise.

  PYTHONPATH=build/python:bots/python resuming_client.py --matchmaking=H:P \
      --ratings=H:P --player=ID --token=SERVICE_TOKEN [--stake=100 --credit=1000] \
      [--drop_at=25,60]
"""

import argparse
import json
import sys
import time
import uuid

import grpc

from example_bot import Ducker
from mamlaka_bot.seat import Seat, _Reconnect
from trix.v1 import matchmaking_pb2, matchmaking_pb2_grpc, ratings_pb2, ratings_pb2_grpc


def same_assignment(a, b):
    return (a.ticket_id, a.table_id, a.seat, a.seat_token, a.address) == \
        (b.ticket_id, b.table_id, b.seat, b.seat_token, b.address)


class Client:
    def __init__(self, args):
        self.args = args
        self.metadata = (("authorization", "Bearer " + args.token),)
        self.request_id = "resume-" + args.player + "-" + uuid.uuid4().hex[:8]
        self.problems = []
        self.drops = {"queued": 0, "matchmaking_unavailable": 0, "game": 0}
        self.assignment = None
        self.asks = 0  # how often matchmaking was asked again mid-game

    def say(self, what, **fields):
        fields.update(player=self.args.player, event=what, t=round(time.time(), 3))
        print(json.dumps(fields), file=sys.stderr, flush=True)

    def credit(self):
        with grpc.insecure_channel(self.args.ratings) as channel:
            ratings_pb2_grpc.RatingsServiceStub(channel).Credit(
                ratings_pb2.TransferRequest(request_id="credit-" + self.args.player,
                                            player_id=self.args.player,
                                            amount=self.args.credit, reason="fault test"),
                metadata=self.metadata, timeout=10)

    def find_table(self, drop_after_queued):
        """FindTable under one request id until an assignment comes."""
        request = matchmaking_pb2.FindTableRequest(
            request_id=self.request_id, player_id=self.args.player,
            display_name=self.args.player, stake=self.args.stake)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            channel = grpc.insecure_channel(self.args.matchmaking)
            try:
                stream = matchmaking_pb2_grpc.MatchmakingServiceStub(channel).FindTable(
                    request, metadata=self.metadata, timeout=120)
                for update in stream:
                    if update.HasField("assignment"):
                        return update.assignment
                    self.say("queued", ticket=update.queued.ticket_id)
                    if drop_after_queued:
                        drop_after_queued = False
                        self.drops["queued"] += 1
                        self.say("dropping the matchmaking connection")
                        break
                else:
                    self.problems.append("FindTable ended without an assignment")
                    return None
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.UNAVAILABLE:
                    self.problems.append("FindTable: %s %s" % (e.code().name, e.details()))
                    return None
                self.drops["matchmaking_unavailable"] += 1
                self.say("matchmaking unavailable; retrying", error=e.details())
                time.sleep(0.3)
            finally:
                channel.close()
        self.problems.append("no assignment within 120 s")
        return None

    def ask_again(self):
        """Mid-game, after a drop: matchmaking must give the same seat again."""
        self.asks += 1
        if self.asks % 2 == 1:
            again = self.find_table(drop_after_queued=False)
            how = "FindTable"
        else:
            with grpc.insecure_channel(self.args.matchmaking) as channel:
                try:
                    again = matchmaking_pb2_grpc.MatchmakingServiceStub(channel).GetAssignment(
                        matchmaking_pb2.GetAssignmentRequest(player_id=self.args.player),
                        metadata=self.metadata, timeout=10)
                except grpc.RpcError as e:
                    again = None
                    self.problems.append("GetAssignment: %s %s" % (e.code().name, e.details()))
            how = "GetAssignment"
        if again is not None and not same_assignment(again, self.assignment):
            self.problems.append("%s gave another assignment: %s" % (how, again))
        self.say("asked matchmaking again", how=how)

    def run(self):
        if self.args.credit:
            self.credit()
        self.assignment = self.find_table(drop_after_queued=True)
        if self.assignment is None:
            return None
        a = self.assignment
        self.say("seated", table=a.table_id, seat=a.seat, ticket=a.ticket_id)
        seat = DroppingSeat(self, a.address, a.table_id, a.seat_token, Ducker(),
                            [int(n) for n in self.args.drop_at.split(",") if n])
        result = seat.play()
        return seat, result


class DroppingSeat(Seat):
    """A Seat that drops its stream at chosen events and checks each resume."""

    def __init__(self, client, address, table_id, token, bot, drop_at):
        super().__init__(address, table_id, token, bot, give_up_after=60.0)
        self.client, self.drop_at = client, sorted(drop_at)
        self.accepted = set()
        self.resuming = None  # the after_seq of a resumed stream, until its first update

    def _channel(self, address=None):
        if self.resuming is not None:  # dropped on purpose: ask matchmaking first
            self.client.ask_again()
        return super()._channel(address)

    def _run_stream(self, channel):
        if self.last_seq > 0 and self.resuming is None:
            self.resuming = self.last_seq  # a break the seat did not choose
        return super()._run_stream(channel)

    def _apply(self, update):
        if self.resuming is not None:
            after, self.resuming = self.resuming, None
            if update.HasField("snapshot"):
                self.client.problems.append("resumed after %d with a snapshot" % after)
            elif update.events and update.events[0].seq != after + 1:
                self.client.problems.append("resumed after %d at event %d"
                                            % (after, update.events[0].seq))
        for event in update.events:
            if 0 < event.seq <= self.last_seq:
                self.client.problems.append("event %d came twice" % event.seq)
        super()._apply(update)
        for r in update.results:
            if r.code == 0:
                self.accepted.add(r.request_id)
        if self.drop_at and self.last_seq >= self.drop_at[0] and self.view.result is None:
            self.drop_at.pop(0)
            self.client.drops["game"] += 1
            self.resuming = self.last_seq
            self.client.say("dropping the table connection", after_seq=self.last_seq)
            raise _Reconnect()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--matchmaking", required=True)
    p.add_argument("--ratings", default="")
    p.add_argument("--player", required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--stake", type=int, default=0)
    p.add_argument("--credit", type=int, default=0)
    p.add_argument("--drop_at", default="25,60")
    args = p.parse_args()
    client = Client(args)
    outcome = client.run()
    line = {"player": args.player, "request_id": client.request_id,
            "drops": client.drops, "problems": client.problems}
    if outcome is not None:
        seat, result = outcome
        a = client.assignment
        line.update(table=a.table_id, seat=a.seat, ticket=a.ticket_id,
                    actions=len(seat.accepted), resubscribes=seat.reconnects,
                    illegal=seat.illegal, totals=list(result.totals) if result else None)
        if result is None:
            client.problems.append("the game did not end")
    print(json.dumps(line), flush=True)
    return 0 if outcome is not None and not client.problems else 1


if __name__ == "__main__":
    sys.exit(main())
