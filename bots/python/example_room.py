#!/usr/bin/python3
"""A private room driven by a game's backend (proto/trix/v1/rooms.proto).

The backend holds a service credential with matchmaking:play and acts for its
players: it opens a room for the first player, joins the second by the room's
invite code, seats the two as partners (seats 0 and 2), says both are ready and
starts the game; bots (or the autopilot) take the empty seats. Each player's seat
is played by a Ducker (example_bot.py) standing in for that player's app, which
would be handed the seat from its own WatchRoom. The backend follows the room
through WatchRoom until the game is over, asks for a rematch, and at the end prints
the series.

    MAMLAKA_SERVICE_TOKEN=... example_room.py MATCHMAKING_ADDRESS \\
        [--games=2] [--players=alice,bob] [--empty-seats=bots|autopilot]

TLS as trix-bot reads it from the environment (TRIX_BOT_TLS=true, ...).
"""
import argparse
import os
import threading

import grpc

from example_bot import Ducker
from mamlaka_bot import credentials_from_env, play_seat
from trix.v1 import rooms_pb2, rooms_pb2_grpc

_printing = threading.Lock()


def say(text):
    """Prints a whole line at once (the players' apps print from their threads)."""
    with _printing:
        print(text, flush=True)


EMPTY_SEATS = {"bots": rooms_pb2.EMPTY_SEATS_BOTS,
               "autopilot": rooms_pb2.EMPTY_SEATS_AUTOPILOT}


class Room:
    """The room as the backend sees it: calls for any of its players, and each
    player's WatchRoom stream, whose seat (an assignment) that player's app plays."""

    def __init__(self, address, token, credentials=None):
        channel = (grpc.secure_channel(address, credentials) if credentials
                   else grpc.insecure_channel(address))
        self.stub = rooms_pb2_grpc.RoomsStub(channel)
        self.metadata = (("authorization", "Bearer " + token),)
        self.room_id = None
        self.state = None  # the newest RoomState seen
        self.names = {}  # player id -> display name, as the room showed them
        self.changed = threading.Condition()
        self.streams = []

    def call(self, method, request):
        state = getattr(self.stub, method)(request, metadata=self.metadata, timeout=10)
        self.keep(state)
        return state

    def keep(self, state):
        with self.changed:
            if self.state is None or state.version >= self.state.version:
                self.state = state
            for seat in list(state.seats) + list(state.game.seats):
                if seat.display_name:
                    self.names[seat.player_id] = seat.display_name
            self.changed.notify_all()

    def follow(self, player, on_seat):
        """Watches the room as `player`; on_seat(assignment) for each new game."""
        stream = self.stub.WatchRoom(
            rooms_pb2.WatchRoomRequest(player_id=player, room_id=self.room_id),
            metadata=self.metadata)
        self.streams.append(stream)

        def run():
            played = 0
            try:
                for state in stream:
                    self.keep(state)
                    seat = state.assignment
                    if state.HasField("assignment") and seat.game > played:
                        played = seat.game
                        on_seat(seat)
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.CANCELLED:
                    raise

        threading.Thread(target=run, daemon=True).start()

    def wait_over(self, game, timeout=300):
        """Blocks until the room's game `game` is over and in the series."""
        def over():
            s = self.state
            return (s.game.number == game and s.game.state == rooms_pb2.ROOM_GAME_OVER
                    and len(s.series.games) >= game)
        with self.changed:
            if not self.changed.wait_for(over, timeout):
                raise TimeoutError("game %d did not end in %ds" % (game, timeout))

    def close(self):
        for stream in self.streams:
            stream.cancel()


def app_of(player, table_credentials):
    """The player's app: plays each seat it is given in a thread of its own."""
    def on_seat(seat):
        def run():
            result = play_seat(seat.address, seat.table_id, seat.seat_token, Ducker(),
                               credentials=table_credentials)
            say("%s's app played seat %d of game %d: %+d" % (
                player, seat.seat, seat.game, result.totals[seat.seat]))
        threading.Thread(target=run, daemon=True).start()
    return on_seat


def series_lines(state, names):
    """The series as text: each game's table, totals and players (by `names`), the
    wins, the running totals."""
    series = state.series
    lines = ["room %s: series of %d games" % (state.code, series.games_played)]
    for game in series.games:
        if game.voided:
            lines.append("  game %d  table %s  voided" % (game.number, game.table_id))
            continue
        totals = " ".join("%+d" % t for t in game.result.totals)
        won = {0: "won by seats 0+2", 1: "won by seats 1+3"}.get(
            game.result.winner_team, "a draw") if game.result.HasField("winner_team") else ""
        lines.append("  game %d  table %s  totals %s  %s  players %s" % (
            game.number, game.table_id, totals, won,
            ",".join(names.get(p, p) for p in game.players)))
    lines.append("  seat wins %s" % " ".join(str(w) for w in series.seat_wins))
    if len(series.team_wins) == 2:
        lines.append("  team wins: seats 0+2 %d, seats 1+3 %d" % tuple(series.team_wins))
    lines.append("  running totals %s" % " ".join("%+d" % t for t in series.totals))
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("address", help="the matchmaking service, host:port")
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--players", default="alice,bob")
    parser.add_argument("--empty-seats", choices=sorted(EMPTY_SEATS), default="bots")
    args = parser.parse_args()
    first, second = args.players.split(",")
    credentials = credentials_from_env()
    room = Room(args.address, os.environ["MAMLAKA_SERVICE_TOKEN"], credentials)
    created = room.call("CreateRoom", rooms_pb2.CreateRoomRequest(
        player_id=first, display_name=first, empty_seats=EMPTY_SEATS[args.empty_seats]))
    room.room_id = created.room_id
    say("room %s opened for %s; invite code %s" % (created.room_id, first, created.code))
    room.call("JoinRoom", rooms_pb2.JoinRoomRequest(player_id=second, code=created.code,
                                                    display_name=second))
    room.call("TakeSeat", rooms_pb2.TakeSeatRequest(player_id=second,
                                                    room_id=room.room_id, seat=2))
    for player in (first, second):
        room.call("SetReady", rooms_pb2.SetReadyRequest(player_id=player,
                                                        room_id=room.room_id, ready=True))
        room.follow(player, app_of(player, credentials))
    for game in range(1, args.games + 1):
        method = "StartGame" if game == 1 else "Rematch"
        request = getattr(rooms_pb2, method + "Request")(player_id=first, room_id=room.room_id)
        started = room.call(method, request)
        say("game %d: %s; seats %s" % (game, method, ", ".join(
            s.display_name or s.player_id for s in started.game.seats) or "being made"))
        room.wait_over(game)
        say("game %d over" % game)
    for line in series_lines(room.state, room.names):
        say(line)
    room.close()
    for player in (first, second):
        room.stub.LeaveRoom(rooms_pb2.LeaveRoomRequest(player_id=player, room_id=room.room_id),
                            metadata=room.metadata, timeout=10)


if __name__ == "__main__":
    main()
