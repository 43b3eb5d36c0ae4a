"""A real matchmaking stack for Python tests: a table service (table_fixture) and the
matchmaking-service binary on the same fresh database, both on kernel-chosen
loopback ports, with the calls a game's backend and an operator make: queueing a
person's ticket and registering bot accounts, with the service token."""

import os
import time
import uuid

import grpc

from table_fixture import SERVICE_TOKEN, ServiceProcess, TableService
from trix.v1 import matchmaking_pb2, matchmaking_pb2_grpc, table_pb2

BEARER = (("authorization", "Bearer " + SERVICE_TOKEN),)


class Stack:
    def __init__(self, bot_fill_wait="1s"):
        self.tables = TableService()
        self.matchmaking = ServiceProcess(
            "matchmaking-service", os.environ["MATCHMAKING_SERVICE_BINARY"],
            ["--database_url=" + self.tables.url, "--service_token=" + SERVICE_TOKEN,
             "--migrations_dir=" + os.environ["MIGRATIONS_DIR"], "--metrics_port=-1",
             "--bot_fill_wait=" + bot_fill_wait, "--lease_retry=200ms",
             "--poll_every=50ms", "--keep_alive_every=300ms", "--log_level=info"],
            self.tables.dir)

    def start(self):
        self.tables.start()
        self.matchmaking.start()
        self.address = self.matchmaking.address
        return self

    def stop(self):
        self.matchmaking.stop()
        self.tables.stop()

    def stub(self):
        return matchmaking_pb2_grpc.MatchmakingServiceStub(grpc.insecure_channel(self.address))

    def register_bot(self, name):
        return self.stub().RegisterBot(matchmaking_pb2.RegisterBotRequest(name=name),
                                       metadata=BEARER, timeout=10)

    def revoke_bot(self, bot_id):
        self.stub().RevokeBot(matchmaking_pb2.RevokeBotRequest(bot_id=bot_id),
                              metadata=BEARER, timeout=10)

    def log_count(self, text):
        return self.matchmaking.log().count(text)

    def wait_log(self, text, count, timeout=20):
        deadline = time.monotonic() + timeout
        while self.log_count(text) < count:
            if time.monotonic() > deadline:
                raise AssertionError("%d x %r not in matchmaking's log:\n%s"
                                     % (count, text, self.matchmaking.log()))
            time.sleep(0.02)

    def find_table(self, player_id, mode):
        """Queues the person's ticket as their backend would; returns the assignment."""
        updates = self.stub().FindTable(
            matchmaking_pb2.FindTableRequest(request_id=uuid.uuid4().hex,
                                             player_id=player_id, display_name=player_id,
                                             mode=mode),
            metadata=BEARER, timeout=30)
        for update in updates:
            if update.HasField("assignment"):
                return update.assignment
        raise AssertionError("FindTable ended without an assignment")

    def table(self, assignment):
        return self.tables.stub().GetTable(
            table_pb2.GetTableRequest(table_id=assignment.table_id), metadata=BEARER,
            timeout=10)

    def record(self, table_id):
        return self.tables.stub().GetGameRecord(
            table_pb2.GetGameRecordRequest(game_id=table_id), metadata=BEARER, timeout=10)
