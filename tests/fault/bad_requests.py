#!/usr/bin/python3
"""Malformed and oversized requests at every RPC of the three services, for
tests/fault (MatchmakingFaultTest.BadRequests, matchmaking_fault_test.cc).

Every call is a well-formed gRPC call (or, for the `undecodable` cases, a gRPC
call whose body is not the request message at all) with something wrong in it: a
missing or malformed field, an id that is not of the right form or too long, no
credentials or the wrong ones, a message larger than the service accepts. Each case
names the status the service must answer with, and the answer must say why (a
message that is not empty). The cases are sent over and over from a few threads
for --seconds while the services keep serving games beside them.

Nothing may change: the calls use player ids starting with "flood-" (the test then
checks the database for anything of theirs), and the tool checks through the API
that the one account it credited (flood-rich, 500) and the one table it created
(seats flood-0..3) are as they were: the balance, the statement, the table's
sequence number and phase. At the end its table's four seats leave, so that the
autopilot finishes the game (a game like any other for the end checks).

Prints one JSON line per case that went wrong, then a summary line; exit status 0
when every answer was the expected one.

  PYTHONPATH=build/python bad_requests.py --table=H:P --matchmaking=H:P \
      --ratings=H:P --token=SERVICE_TOKEN [--seconds=15]
"""

import argparse
import collections
import json
import os
import random
import sys
import threading
import time
import uuid

import grpc

from trix.v1 import (common_pb2, matchmaking_pb2, ratings_pb2, table_pb2)

C = grpc.StatusCode
NO_AUTH = ()
UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"
BIG = "x" * (1 << 20)  # over every service's message limit (64-256 KiB)
PARTNER = common_pb2.Mode(team=common_pb2.TEAM_PARTNER, format=common_pb2.FORMAT_COMPLEX)
BAD_MODE = common_pb2.Mode(team=7, format=common_pb2.FORMAT_COMPLEX)


class Case:
    def __init__(self, service, method, kind, name, request, expected, auth, stream=False,
                 messages=None):
        self.service, self.method, self.kind, self.name = service, method, kind, name
        self.request, self.expected, self.auth = request, expected, auth
        self.stream = stream        # the answer is a stream (read it to its end)
        self.messages = messages    # a Play stream: the messages to send

    def label(self):
        return "%s.%s %s" % (self.service.split(".")[-1], self.method, self.name)


def path(service, method):
    return "/trix.v1.%s/%s" % (service, method)


def raw(b):
    return b


class Flood:
    def __init__(self, args):
        self.args = args
        self.service = (("authorization", "Bearer " + args.token),)
        self.wrong = (("authorization", "Bearer not-the-service-token"),)
        self.channels = {
            "TableService": grpc.insecure_channel(args.table),
            "MatchmakingService": grpc.insecure_channel(args.matchmaking),
            "RatingsService": grpc.insecure_channel(args.ratings),
        }
        self.lock = threading.Lock()
        self.calls = collections.Counter()
        self.wrong_answers = {}

    # ----- Calls --------------------------------------------------------------

    def call(self, case):
        channel = self.channels[case.service]
        body = case.request
        if body is not None and not isinstance(body, bytes):
            body = body.SerializeToString()
        timeout = 10
        try:
            if case.messages is not None:
                call = channel.stream_stream(path(case.service, case.method), raw, raw)
                for _ in call(iter([m.SerializeToString() for m in case.messages]),
                              metadata=case.auth, timeout=timeout):
                    pass
            elif case.stream:
                call = channel.unary_stream(path(case.service, case.method), raw, raw)
                for _ in call(body, metadata=case.auth, timeout=timeout):
                    pass
            else:
                channel.unary_unary(path(case.service, case.method), raw, raw)(
                    body, metadata=case.auth, timeout=timeout)
            return C.OK, ""
        except grpc.RpcError as e:
            return e.code(), e.details() or ""

    def judge(self, case):
        code, message = self.call(case)
        expected = case.expected if isinstance(case.expected, tuple) else (case.expected,)
        with self.lock:
            self.calls[case.kind] += 1
            silent = not message.strip() and case.kind != "undecodable"
            if code not in expected or silent:
                self.wrong_answers.setdefault(case.label(), {
                    "rpc": "%s.%s" % (case.service, case.method), "case": case.name,
                    "expected": [c.name for c in expected], "got": code.name,
                    "message": message[:300]})

    # ----- The table and account the cases aim at ----------------------------------

    def setup(self):
        from trix.v1 import ratings_pb2_grpc, table_pb2_grpc
        self.tables = table_pb2_grpc.TableServiceStub(self.channels["TableService"])
        self.ratings = ratings_pb2_grpc.RatingsServiceStub(self.channels["RatingsService"])
        created = self.tables.CreateTable(table_pb2.CreateTableRequest(
            request_id="flood-" + uuid.uuid4().hex, mode=PARTNER,
            rules=common_pb2.HouseRules(kingdoms=1),
            # Clocks longer than the flood: only the flood could move this table.
            clocks=common_pb2.Clocks(contract_ms=600000, doubling_ms=600000, card_ms=600000),
            seats=[table_pb2.SeatAssignment(player_id="flood-%d" % s, display_name="flood")
                   for s in range(4)]), metadata=self.service, timeout=10)
        self.table_id, self.seat_tokens = created.table_id, list(created.seat_tokens)
        self.ratings.Credit(ratings_pb2.TransferRequest(
            request_id="flood-credit", player_id="flood-rich", amount=500, reason="flood"),
            metadata=self.service, timeout=10)
        self.before = self.state()

    def state(self):
        view = self.tables.GetTable(table_pb2.GetTableRequest(table_id=self.table_id),
                                    metadata=self.service, timeout=10)
        balance = self.ratings.GetBalance(ratings_pb2.GetBalanceRequest(player_id="flood-rich"),
                                          metadata=self.service, timeout=10)
        statement = self.ratings.GetStatement(
            ratings_pb2.GetStatementRequest(player_id="flood-rich"), metadata=self.service,
            timeout=10)
        return {"table_seq": view.seq, "phase": view.phase, "balance": balance.balance,
                "held": balance.held, "statement_lines": len(statement.lines)}

    def finish(self):
        for s, token in enumerate(self.seat_tokens):
            self.tables.Act(table_pb2.ActRequest(table_id=self.table_id, seat_token=token,
                                                 request_id="flood-leave-%d" % s,
                                                 leave=table_pb2.Leave()), timeout=10)

    # ----- The cases ------------------------------------------------------------

    def cases(self):
        T, M, R = "TableService", "MatchmakingService", "RatingsService"
        S, W = self.service, self.wrong
        t, tok = self.table_id, self.seat_tokens[0]
        out = []

        def add(service, method, kind, name, request, expected, auth=S, **kw):
            out.append(Case(service, method, kind, name, request, expected, auth, **kw))

        seat = lambda **kw: table_pb2.SeatAssignment(**dict({"player_id": "flood-a"}, **kw))
        four = lambda **kw: [seat(player_id="flood-%d" % i, **kw) for i in range(4)]
        create = lambda **kw: table_pb2.CreateTableRequest(
            **dict({"request_id": "flood-" + uuid.uuid4().hex[:8], "mode": PARTNER,
                    "seats": four()}, **kw))
        IA, UN, PD, NF, RE = (C.INVALID_ARGUMENT, C.UNAUTHENTICATED, C.PERMISSION_DENIED,
                              C.NOT_FOUND, C.RESOURCE_EXHAUSTED)

        # --- TableService ---
        add(T, "CreateTable", "auth", "no credentials", create(), UN, NO_AUTH)
        add(T, "CreateTable", "auth", "a wrong service token", create(), UN, W)
        add(T, "CreateTable", "malformed", "no request_id", create(request_id=""), IA)
        add(T, "CreateTable", "malformed", "request_id of 200 bytes", create(request_id="r" * 200), IA)
        add(T, "CreateTable", "malformed", "no mode", create(mode=common_pb2.Mode()), IA)
        add(T, "CreateTable", "malformed", "an unknown mode", create(mode=BAD_MODE), IA)
        add(T, "CreateTable", "malformed", "three seats", create(seats=four()[:3]), IA)
        add(T, "CreateTable", "malformed", "five seats", create(seats=four() + [seat()]), IA)
        add(T, "CreateTable", "malformed", "a seat without player_id",
            create(seats=four()[:3] + [seat(player_id="")]), IA)
        add(T, "CreateTable", "malformed", "a negative stake", create(seats=four(stake=-5)), IA)
        add(T, "CreateTable", "malformed", "a staked bot",
            create(seats=four()[:3] + [seat(bot=True, stake=10)]), IA)
        add(T, "CreateTable", "malformed", "every seat autopilot",
            create(seats=four(bot=True, autopilot=True)), IA)
        add(T, "CreateTable", "malformed", "a short seat token",
            create(seats=four()[:3] + [seat(seat_token="short")]), IA)
        add(T, "CreateTable", "malformed", "a seat token with a space",
            create(seats=four()[:3] + [seat(seat_token="a b" * 20)]), IA)
        add(T, "CreateTable", "malformed", "kingdoms 9",
            create(rules=common_pb2.HouseRules(kingdoms=9)), IA)
        add(T, "CreateTable", "malformed", "a negative clock",
            create(clocks=common_pb2.Clocks(card_ms=-1)), IA)
        add(T, "CreateTable", "oversized", "a 1 MiB display name",
            create(seats=four()[:3] + [seat(display_name=BIG)]), RE)
        add(T, "GetTable", "malformed", "no table_id", table_pb2.GetTableRequest(), IA)
        add(T, "GetTable", "malformed", "a table_id that is not a UUID",
            table_pb2.GetTableRequest(table_id="../../etc/passwd"), IA)
        add(T, "GetTable", "malformed", "an upper-case UUID",
            table_pb2.GetTableRequest(table_id=t.upper()), IA)
        add(T, "GetTable", "malformed", "an unknown table", table_pb2.GetTableRequest(table_id=UNKNOWN_ID), NF)
        add(T, "GetTable", "auth", "a private table without credentials",
            table_pb2.GetTableRequest(table_id=t), (PD, UN), NO_AUTH)
        add(T, "GetTable", "oversized", "a 1 MiB table_id", table_pb2.GetTableRequest(table_id=BIG), RE)
        add(T, "ListPlayerTables", "malformed", "no player_id", table_pb2.ListPlayerTablesRequest(), IA)
        add(T, "ListPlayerTables", "malformed", "a player_id of 200 bytes",
            table_pb2.ListPlayerTablesRequest(player_id="p" * 200), IA)
        add(T, "ListPlayerTables", "auth", "no credentials",
            table_pb2.ListPlayerTablesRequest(player_id="flood-0"), UN, NO_AUTH)
        add(T, "ListPlayerTables", "oversized", "a 1 MiB player_id",
            table_pb2.ListPlayerTablesRequest(player_id=BIG), RE)
        sub = table_pb2.SubscribeRequest
        add(T, "Subscribe", "auth", "no seat token", sub(table_id=t), UN, NO_AUTH, stream=True)
        add(T, "Subscribe", "auth", "another table's token", sub(table_id=t, seat_token="A" * 43),
            PD, NO_AUTH, stream=True)
        add(T, "Subscribe", "malformed", "a table_id that is not a UUID",
            sub(table_id="nope", seat_token=tok), IA, NO_AUTH, stream=True)
        add(T, "Subscribe", "malformed", "an unknown table", sub(table_id=UNKNOWN_ID, seat_token=tok),
            NF, NO_AUTH, stream=True)
        add(T, "Subscribe", "malformed", "after_seq beyond the seat's last event",
            sub(table_id=t, seat_token=tok, after_seq=1 << 40), C.OUT_OF_RANGE, NO_AUTH, stream=True)
        add(T, "Subscribe", "oversized", "a 1 MiB seat token", sub(table_id=t, seat_token=BIG),
            RE, NO_AUTH, stream=True)
        add(T, "Watch", "malformed", "no table_id", table_pb2.WatchRequest(), IA, stream=True)
        add(T, "Watch", "malformed", "an unknown table", table_pb2.WatchRequest(table_id=UNKNOWN_ID),
            NF, stream=True)
        add(T, "Watch", "malformed", "after_seq beyond the last event",
            table_pb2.WatchRequest(table_id=t, after_seq=1 << 40), C.OUT_OF_RANGE, stream=True)
        add(T, "Watch", "auth", "a private table without credentials",
            table_pb2.WatchRequest(table_id=t), (PD, UN), NO_AUTH, stream=True)
        add(T, "Watch", "oversized", "a 1 MiB table_id", table_pb2.WatchRequest(table_id=BIG), RE,
            stream=True)
        act = lambda **kw: table_pb2.ActRequest(
            **dict({"table_id": t, "seat_token": tok, "request_id": "flood-" + uuid.uuid4().hex[:8]},
                   **kw))
        card = lambda c: table_pb2.PlayCard(card=c)
        add(T, "Act", "auth", "no seat token", act(seat_token="", play_card=card("2C")), UN, NO_AUTH)
        add(T, "Act", "auth", "a wrong seat token", act(seat_token="B" * 43, play_card=card("2C")),
            PD, NO_AUTH)
        add(T, "Act", "malformed", "no request_id", act(request_id="", play_card=card("2C")), IA, NO_AUTH)
        add(T, "Act", "malformed", "request_id of 200 bytes",
            act(request_id="r" * 200, play_card=card("2C")), IA, NO_AUTH)
        add(T, "Act", "malformed", "no action", act(), IA, NO_AUTH)
        add(T, "Act", "malformed", "an unknown card", act(play_card=card("ZZ")), IA, NO_AUTH)
        add(T, "Act", "malformed", "an empty card", act(play_card=card("")), IA, NO_AUTH)
        add(T, "Act", "malformed", "an unknown contract",
            act(choose_contract=table_pb2.ChooseContract(contract=99)), IA, NO_AUTH)
        add(T, "Act", "malformed", "doubling an unknown card",
            act(select_doubles=table_pb2.SelectDoubles(cards=["1X"])), IA, NO_AUTH)
        add(T, "Act", "malformed", "a table_id that is not a UUID",
            act(table_id="x", play_card=card("2C")), IA, NO_AUTH)
        add(T, "Act", "oversized", "1 MiB of doubles",
            act(select_doubles=table_pb2.SelectDoubles(cards=["QS"] * 300000)), RE, NO_AUTH)
        play_sub = table_pb2.PlayRequest(subscribe=sub(table_id=t, seat_token=tok, after_seq=1))
        add(T, "Play", "malformed", "an act first", None, IA, NO_AUTH,
            messages=[table_pb2.PlayRequest(act=act(play_card=card("2C")))])
        # The flood opens streams for this seat from several threads at once, and a
        # newer stream for a seat replaces an older one (ABORTED) — also a clean answer.
        add(T, "Play", "malformed", "a second subscribe", None,
            (IA, C.ABORTED), NO_AUTH, messages=[play_sub, play_sub])
        add(T, "Play", "malformed", "an empty message", None, IA, NO_AUTH,
            messages=[table_pb2.PlayRequest()])
        add(T, "Play", "auth", "no seat token", None, UN, NO_AUTH,
            messages=[table_pb2.PlayRequest(subscribe=sub(table_id=t))])
        add(T, "Play", "oversized", "a 1 MiB subscribe", None, RE, NO_AUTH,
            messages=[table_pb2.PlayRequest(subscribe=sub(table_id=t, seat_token=BIG))])
        rec = table_pb2.GetGameRecordRequest
        add(T, "GetGameRecord", "malformed", "no game_id", rec(), IA)
        add(T, "GetGameRecord", "malformed", "a game_id that is not a UUID", rec(game_id="g"), IA)
        add(T, "GetGameRecord", "malformed", "an unknown game", rec(game_id=UNKNOWN_ID), NF)
        add(T, "GetGameRecord", "auth", "another table's seat token",
            rec(game_id=t, seat_token="C" * 43), PD, NO_AUTH)
        add(T, "GetGameRecord", "oversized", "a 1 MiB seat token", rec(game_id=t, seat_token=BIG), RE)
        games = table_pb2.ListPlayerGamesRequest
        add(T, "ListPlayerGames", "malformed", "no player_id", games(), IA)
        add(T, "ListPlayerGames", "malformed", "a negative page_size",
            games(player_id="flood-0", page_size=-1), IA)
        add(T, "ListPlayerGames", "malformed", "a bad page_token",
            games(player_id="flood-0", page_token="not a token"), IA)
        add(T, "ListPlayerGames", "auth", "no credentials", games(player_id="flood-0"), UN, NO_AUTH)
        add(T, "ListPlayerGames", "oversized", "a 1 MiB page_token",
            games(player_id="flood-0", page_token=BIG), RE)
        add(T, "LocateTable", "malformed", "no table_id", table_pb2.LocateTableRequest(), IA)
        add(T, "LocateTable", "malformed", "a table_id that is not a UUID",
            table_pb2.LocateTableRequest(table_id="x" * 36), IA)
        add(T, "LocateTable", "malformed", "an unknown table",
            table_pb2.LocateTableRequest(table_id=UNKNOWN_ID), NF)
        add(T, "LocateTable", "oversized", "a 1 MiB table_id",
            table_pb2.LocateTableRequest(table_id=BIG), RE)

        # --- MatchmakingService ---
        # A player per case: one that was wrongly queued would be seated, and its
        # later requests answered with that seat.
        players = iter("flood-m%d" % i for i in range(1000))
        find = lambda **kw: matchmaking_pb2.FindTableRequest(
            **dict({"request_id": "flood-" + uuid.uuid4().hex[:8], "player_id": next(players)},
                   **kw))
        add(M, "FindTable", "auth", "no credentials", find(), UN, NO_AUTH, stream=True)
        add(M, "FindTable", "auth", "a wrong token", find(), (UN, PD), W, stream=True)
        add(M, "FindTable", "malformed", "no request_id", find(request_id=""), IA, stream=True)
        add(M, "FindTable", "malformed", "request_id of 200 bytes", find(request_id="r" * 200), IA,
            stream=True)
        add(M, "FindTable", "malformed", "no player_id with the service token", find(player_id=""),
            IA, stream=True)
        add(M, "FindTable", "malformed", "a player_id of 200 bytes", find(player_id="p" * 200), IA,
            stream=True)
        add(M, "FindTable", "malformed", "a display name of 1,000 bytes",
            find(display_name="n" * 1000), IA, stream=True)
        add(M, "FindTable", "malformed", "an unknown mode", find(mode=BAD_MODE), IA, stream=True)
        add(M, "FindTable", "malformed", "a negative stake", find(stake=-100), IA, stream=True)
        add(M, "FindTable", "malformed", "a stake that is not a level", find(stake=7), IA, stream=True)
        add(M, "FindTable", "malformed", "a party_id that is not a UUID", find(party_id="party!"),
            (IA, NF), stream=True)
        add(M, "FindTable", "malformed", "an unknown party", find(party_id=UNKNOWN_ID), NF,
            stream=True)
        add(M, "FindTable", "oversized", "a 1 MiB display name", find(display_name=BIG), RE,
            stream=True)
        # The calls whose one field is the player.
        for method, of_player in (("GetAssignment", matchmaking_pb2.GetAssignmentRequest),
                                  ("CreateParty", matchmaking_pb2.CreatePartyRequest)):
            add(M, method, "auth", "no credentials", of_player(player_id="flood-m"), UN, NO_AUTH)
            add(M, method, "malformed", "no player_id with the service token", of_player(), IA)
            add(M, method, "malformed", "a player_id of 200 bytes", of_player(player_id="p" * 200),
                IA)
            add(M, method, "oversized", "a 1 MiB player_id", of_player(player_id=BIG), RE)
        add(M, "GetAssignment", "malformed", "a player with no seat",
            matchmaking_pb2.GetAssignmentRequest(player_id="flood-m"), NF)
        join = matchmaking_pb2.JoinPartyRequest
        add(M, "JoinParty", "auth", "no credentials", join(player_id="flood-m", code="ABCDEFGH"), UN,
            NO_AUTH)
        add(M, "JoinParty", "malformed", "no code", join(player_id="flood-m"), IA)
        add(M, "JoinParty", "malformed", "a code of 40 characters", join(player_id="flood-m", code="C" * 40), IA)
        add(M, "JoinParty", "malformed", "an unknown code", join(player_id="flood-m", code="ZZZZZZZZ"), NF)
        add(M, "JoinParty", "oversized", "a 1 MiB code", join(player_id="flood-m", code=BIG), RE)
        leave = matchmaking_pb2.LeavePartyRequest
        add(M, "LeaveParty", "auth", "no credentials", leave(player_id="flood-m", party_id=UNKNOWN_ID),
            UN, NO_AUTH)
        add(M, "LeaveParty", "malformed", "no party_id", leave(player_id="flood-m"), IA)
        add(M, "LeaveParty", "malformed", "a party_id that is not a UUID",
            leave(player_id="flood-m", party_id="nope"), (IA, NF))
        add(M, "LeaveParty", "malformed", "an unknown party", leave(player_id="flood-m", party_id=UNKNOWN_ID), NF)
        add(M, "LeaveParty", "oversized", "a 1 MiB party_id", leave(player_id="flood-m", party_id=BIG), RE)
        reg = matchmaking_pb2.RegisterBotRequest
        add(M, "RegisterBot", "auth", "no credentials", reg(name="flood-bot"), UN, NO_AUTH)
        add(M, "RegisterBot", "auth", "a wrong token", reg(name="flood-bot"), UN, W)
        add(M, "RegisterBot", "malformed", "no name", reg(), IA)
        add(M, "RegisterBot", "malformed", "a name of 100 characters", reg(name="flood-" + "b" * 94), IA)
        add(M, "RegisterBot", "malformed", "an unknown mode", reg(name="flood-bot", modes=[BAD_MODE]), IA)
        add(M, "RegisterBot", "malformed", "an owner of 1,000 bytes", reg(name="flood-bot", owner="o" * 1000), IA)
        add(M, "RegisterBot", "oversized", "a 1 MiB name", reg(name=BIG), RE)
        add(M, "RotateBotKey", "auth", "no credentials", matchmaking_pb2.RotateBotKeyRequest(bot_id="bot-x"),
            UN, NO_AUTH)
        add(M, "RotateBotKey", "malformed", "no bot_id", matchmaking_pb2.RotateBotKeyRequest(), IA)
        add(M, "RotateBotKey", "malformed", "an unknown bot",
            matchmaking_pb2.RotateBotKeyRequest(bot_id="bot-" + UNKNOWN_ID), NF)
        add(M, "RotateBotKey", "oversized", "a 1 MiB bot_id", matchmaking_pb2.RotateBotKeyRequest(bot_id=BIG), RE)
        add(M, "RevokeBot", "auth", "no credentials", matchmaking_pb2.RevokeBotRequest(bot_id="bot-x"),
            UN, NO_AUTH)
        add(M, "RevokeBot", "malformed", "no bot_id", matchmaking_pb2.RevokeBotRequest(), IA)
        add(M, "RevokeBot", "malformed", "an unknown bot",
            matchmaking_pb2.RevokeBotRequest(bot_id="bot-" + UNKNOWN_ID), NF)
        add(M, "RevokeBot", "oversized", "a 1 MiB bot_id", matchmaking_pb2.RevokeBotRequest(bot_id=BIG), RE)
        serve = matchmaking_pb2.ServeBotRequest
        add(M, "ServeBot", "auth", "no key", serve(capacity=1), UN, NO_AUTH, stream=True)
        add(M, "ServeBot", "auth", "an unknown key", serve(capacity=1),
            UN, (("authorization", "Bearer no-such-bot-key"),), stream=True)
        add(M, "ServeBot", "malformed", "capacity 0", serve(capacity=0), IA,
            (("authorization", "Bearer no-such-bot-key"),), stream=True)
        add(M, "ServeBot", "oversized", "1 MiB of modes", serve(capacity=1, modes=[PARTNER] * 200000),
            RE, (("authorization", "Bearer no-such-bot-key"),), stream=True)

        # --- RatingsService ---
        add(R, "GetPlayerRatings", "auth", "no credentials",
            ratings_pb2.GetPlayerRatingsRequest(player_id="flood-rich"), UN, NO_AUTH)
        add(R, "GetPlayerRatings", "malformed", "no player_id", ratings_pb2.GetPlayerRatingsRequest(), IA)
        add(R, "GetPlayerRatings", "oversized", "a 1 MiB player_id",
            ratings_pb2.GetPlayerRatingsRequest(player_id=BIG), RE)
        gr = ratings_pb2.GetRatingsRequest
        add(R, "GetRatings", "auth", "no credentials", gr(mode=PARTNER, player_ids=["flood-rich"]), UN, NO_AUTH)
        add(R, "GetRatings", "malformed", "no mode", gr(player_ids=["flood-rich"]), IA)
        add(R, "GetRatings", "malformed", "an unknown mode", gr(mode=BAD_MODE, player_ids=["a"]), IA)
        add(R, "GetRatings", "malformed", "1,001 players", gr(mode=PARTNER, player_ids=["p%d" % i for i in range(1001)]), IA)
        add(R, "GetRatings", "malformed", "an empty player id", gr(mode=PARTNER, player_ids=[""]), IA)
        add(R, "GetRatings", "oversized", "a 1 MiB player id", gr(mode=PARTNER, player_ids=[BIG]), RE)
        lb = ratings_pb2.GetLeaderboardRequest
        add(R, "GetLeaderboard", "auth", "no credentials", lb(mode=PARTNER), UN, NO_AUTH)
        add(R, "GetLeaderboard", "malformed", "no mode", lb(), IA)
        add(R, "GetLeaderboard", "malformed", "page_size 501", lb(mode=PARTNER, page_size=501), IA)
        add(R, "GetLeaderboard", "malformed", "a negative page_size", lb(mode=PARTNER, page_size=-1), IA)
        add(R, "GetLeaderboard", "malformed", "a bad page_token", lb(mode=PARTNER, page_token="%%%"), IA)
        add(R, "GetLeaderboard", "oversized", "a 1 MiB page_token", lb(mode=PARTNER, page_token=BIG), RE)
        hist = ratings_pb2.GetRatingHistoryRequest
        add(R, "GetRatingHistory", "auth", "no credentials", hist(player_id="flood-rich", mode=PARTNER), UN, NO_AUTH)
        add(R, "GetRatingHistory", "malformed", "no player_id", hist(mode=PARTNER), IA)
        add(R, "GetRatingHistory", "malformed", "no mode", hist(player_id="flood-rich"), IA)
        add(R, "GetRatingHistory", "malformed", "a bad page_token",
            hist(player_id="flood-rich", mode=PARTNER, page_token="%%%"), IA)
        add(R, "GetRatingHistory", "malformed", "a negative page_size",
            hist(player_id="flood-rich", mode=PARTNER, page_size=-3), IA)
        add(R, "GetRatingHistory", "oversized", "a 1 MiB player_id", hist(player_id=BIG, mode=PARTNER), RE)
        xfer = lambda **kw: ratings_pb2.TransferRequest(
            **dict({"request_id": "flood-" + uuid.uuid4().hex[:8], "player_id": "flood-rich",
                    "amount": 10}, **kw))
        for method in ("Credit", "Debit"):
            add(R, method, "auth", "no credentials", xfer(), UN, NO_AUTH)
            add(R, method, "auth", "a wrong token", xfer(), UN, W)
            add(R, method, "malformed", "no request_id", xfer(request_id=""), IA)
            add(R, method, "malformed", "no player_id", xfer(player_id=""), IA)
            add(R, method, "malformed", "a zero amount", xfer(amount=0), IA)
            add(R, method, "malformed", "a negative amount", xfer(amount=-10), IA)
            add(R, method, "malformed", "a request_id of 200 bytes", xfer(request_id="r" * 200), IA)
            add(R, method, "malformed", "a player_id of 200 bytes", xfer(player_id="p" * 200), IA)
            add(R, method, "malformed", "a reason of 10,000 bytes", xfer(reason="y" * 10000), IA)
            add(R, method, "oversized", "a 1 MiB reason", xfer(reason=BIG), RE)
        add(R, "Credit", "malformed", "an amount that would overflow the balance",
            xfer(amount=(1 << 63) - 1), (IA, C.FAILED_PRECONDITION))
        add(R, "Debit", "malformed", "more than the balance", xfer(amount=501), C.FAILED_PRECONDITION)
        add(R, "Credit", "malformed", "the credit's request_id with another amount",
            xfer(request_id="flood-credit", amount=7), C.ALREADY_EXISTS)
        bal = ratings_pb2.GetBalanceRequest
        add(R, "GetBalance", "auth", "no credentials", bal(player_id="flood-rich"), UN, NO_AUTH)
        add(R, "GetBalance", "malformed", "no player_id", bal(), IA)
        add(R, "GetBalance", "malformed", "an unknown player", bal(player_id="flood-nobody"), NF)
        add(R, "GetBalance", "oversized", "a 1 MiB player_id", bal(player_id=BIG), RE)
        st = ratings_pb2.GetStatementRequest
        add(R, "GetStatement", "auth", "no credentials", st(player_id="flood-rich"), UN, NO_AUTH)
        add(R, "GetStatement", "malformed", "no player_id", st(), IA)
        add(R, "GetStatement", "malformed", "page_size 501", st(player_id="flood-rich", page_size=501), IA)
        add(R, "GetStatement", "malformed", "a bad page_token", st(player_id="flood-rich", page_token="!"), IA)
        add(R, "GetStatement", "oversized", "a 1 MiB page_token", st(player_id="flood-rich", page_token=BIG), RE)
        hold = lambda **kw: ratings_pb2.HoldStakeRequest(
            **dict({"request_id": "flood-" + uuid.uuid4().hex[:8], "player_id": "flood-rich",
                    "amount": 10}, **kw))
        add(R, "HoldStake", "auth", "no credentials", hold(), UN, NO_AUTH)
        add(R, "HoldStake", "auth", "a wrong token", hold(), UN, W)
        add(R, "HoldStake", "malformed", "no request_id", hold(request_id=""), IA)
        add(R, "HoldStake", "malformed", "no player_id", hold(player_id=""), IA)
        add(R, "HoldStake", "malformed", "a zero amount", hold(amount=0), IA)
        add(R, "HoldStake", "malformed", "a request_id of 200 bytes", hold(request_id="r" * 200), IA)
        add(R, "HoldStake", "malformed", "more than the balance", hold(amount=501), C.FAILED_PRECONDITION)
        add(R, "HoldStake", "malformed", "an unknown player", hold(player_id="flood-nobody"),
            (NF, C.FAILED_PRECONDITION))
        add(R, "HoldStake", "oversized", "a 1 MiB request_id", hold(request_id=BIG), RE)
        rel = ratings_pb2.ReleaseHoldRequest
        add(R, "ReleaseHold", "auth", "no credentials", rel(hold_id=UNKNOWN_ID), UN, NO_AUTH)
        add(R, "ReleaseHold", "malformed", "no hold_id", rel(), IA)
        add(R, "ReleaseHold", "malformed", "a hold_id that is not a UUID", rel(hold_id="h"), (IA, NF))
        add(R, "ReleaseHold", "malformed", "an unknown hold", rel(hold_id=UNKNOWN_ID), NF)
        add(R, "ReleaseHold", "oversized", "a 1 MiB hold_id", rel(hold_id=BIG), RE)
        att = lambda **kw: ratings_pb2.AttachHoldRequest(
            **dict({"hold_id": UNKNOWN_ID, "table_id": t, "seat": 0}, **kw))
        add(R, "AttachHold", "auth", "no credentials", att(), UN, NO_AUTH)
        add(R, "AttachHold", "malformed", "no hold_id", att(hold_id=""), IA)
        add(R, "AttachHold", "malformed", "no table_id", att(table_id=""), IA)
        add(R, "AttachHold", "malformed", "seat 4", att(seat=4), IA)
        add(R, "AttachHold", "malformed", "seat -1", att(seat=-1), IA)
        add(R, "AttachHold", "malformed", "a hold_id that is not a UUID", att(hold_id="h"), (IA, NF))
        add(R, "AttachHold", "malformed", "an unknown hold", att(), NF)
        add(R, "AttachHold", "oversized", "a 1 MiB table_id", att(table_id=BIG), RE)

        # Undecodable bodies: bytes that are not the request message, at every RPC.
        # gRPC answers them before any of our code runs: INTERNAL with the
        # synchronous API (ratings), UNIMPLEMENTED with the callback API (table,
        # matchmaking; grpc/grpc#30454), without a message; the service must only
        # shrug them off.
        rng = random.Random(12)
        seen = set()
        for c in list(out):
            if (c.service, c.method) in seen:
                continue
            seen.add((c.service, c.method))
            # A field 1 of wire type 7 (invalid), then noise.
            body = b"\x0f" + bytes(rng.getrandbits(8) for _ in range(64))
            if c.messages is not None:
                continue  # a Play stream's messages are framed by the call below
            add(c.service, c.method, "undecodable", "bytes that are not the message", body,
                (IA, C.INTERNAL, C.UNIMPLEMENTED), c.auth, stream=c.stream)
        return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--table", required=True)
    p.add_argument("--matchmaking", required=True)
    p.add_argument("--ratings", required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--seconds", type=float, default=15)
    p.add_argument("--threads", type=int, default=3)
    args = p.parse_args()
    flood = Flood(args)
    flood.setup()
    cases = flood.cases()
    for c in cases:  # once each in order, then at random from several threads
        flood.judge(c)
    until = time.monotonic() + args.seconds

    def hammer(seed):
        rng = random.Random(seed)
        while time.monotonic() < until:
            flood.judge(rng.choice(cases))

    threads = [threading.Thread(target=hammer, args=(i,)) for i in range(args.threads)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    after = flood.state()
    changed = {k: (flood.before[k], after[k]) for k in after if flood.before[k] != after[k]}
    flood.finish()
    for wrong in flood.wrong_answers.values():
        print(json.dumps(wrong), flush=True)
    rpcs = sorted({"%s.%s" % (c.service, c.method) for c in cases})
    print(json.dumps({"cases": len(cases), "rpcs": len(rpcs), "calls": dict(flood.calls),
                      "wrong": len(flood.wrong_answers), "changed": changed}), flush=True)
    return 0 if not flood.wrong_answers and not changed else 1


if __name__ == "__main__":
    sys.exit(main())
