"""A real table service for Python tests: a fresh database on the test PostgreSQL
server (MAMLAKA_TEST_DATABASE_URL), the table-service binary on a kernel-chosen
loopback port, and tables opened with the service token as a backend would."""

import json
import os
import signal
import subprocess
import tempfile
import time
import urllib.parse
import uuid

import grpc

from trix.v1 import common_pb2, table_pb2, table_pb2_grpc

SERVICE_TOKEN = "python-test-service-token"


def _psql(url, sql):
    subprocess.run(["psql", url, "-qtAc", sql], check=True, capture_output=True)


class ServiceProcess:
    """One service binary on a loopback port (kernel-chosen at first, the same one
    after a restart), its output in DIR/NAME.log, its port read from the log."""

    def __init__(self, name, binary, flags, directory):
        self.name, self.binary, self.flags, self.dir = name, binary, flags, directory
        self.log_path = os.path.join(directory, name + ".log")
        self.port = 0
        self.process = None

    def start(self):
        with open(self.log_path, "ab") as log:
            self.log_offset = log.tell()
            self.process = subprocess.Popen(
                [self.binary, "--listen=127.0.0.1:%d" % self.port] + self.flags,
                stdout=log, stderr=log)
        self.port = self._serving_port()
        self.address = "127.0.0.1:%d" % self.port
        return self

    def _serving_port(self):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with open(self.log_path) as f:
                f.seek(self.log_offset)
                for line in f:
                    if '"serving"' in line:
                        return json.loads(line)["port"]
            if self.process.poll() is not None:
                raise RuntimeError("%s exited: %s" % (self.name, self.log()))
            time.sleep(0.05)
        raise RuntimeError("%s did not start: %s" % (self.name, self.log()))

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)


class TableService:
    def __init__(self, flags=(), credentials=None):
        """flags: more of the binary's flags (e.g. TLS); credentials: how stub()
        dials it (None: plaintext)."""
        self.credentials = credentials
        base = os.environ["MAMLAKA_TEST_DATABASE_URL"]
        self.db_name = "py_" + uuid.uuid4().hex[:12]
        _psql(base, "CREATE DATABASE " + self.db_name)
        self.base_url = base
        # The same server, another database: a TCP or a unix-socket URL alike.
        self.url = urllib.parse.urlsplit(base)._replace(path="/" + self.db_name).geturl()
        self.dir = tempfile.mkdtemp(prefix="trix-py-")
        self.process = ServiceProcess(
            "table-service", os.environ["TABLE_SERVICE_BINARY"],
            ["--database_url=" + self.url, "--service_token=" + SERVICE_TOKEN,
             "--migrations_dir=" + os.environ["MIGRATIONS_DIR"], "--metrics_port=-1",
             "--instance_id=py-1", "--lease_ttl=3s", "--log_level=info"] + list(flags),
            self.dir)

    def start(self):
        """Starts the binary (on the same port as before after a restart)."""
        self.process.start()
        self.address = self.process.address
        return self

    def log(self):
        return self.process.log()

    def kill(self):
        self.process.kill()

    def stop(self):
        self.process.stop()
        _psql(self.base_url, "DROP DATABASE IF EXISTS %s WITH (FORCE)" % self.db_name)

    def stub(self):
        if self.credentials:
            return table_pb2_grpc.TableServiceStub(
                grpc.secure_channel(self.address, self.credentials))
        return table_pb2_grpc.TableServiceStub(grpc.insecure_channel(self.address))

    def create_table(self, team=common_pb2.TEAM_SOLO, fmt=common_pb2.FORMAT_COMPLEX,
                     kingdoms=1, seed=7, seat_seeds=False):
        request = table_pb2.CreateTableRequest(
            request_id=uuid.uuid4().hex, mode=common_pb2.Mode(team=team, format=fmt),
            rules=common_pb2.HouseRules(kingdoms=kingdoms), seed=seed,
            seat_seeds=seat_seeds)
        for s in range(4):
            request.seats.add(player_id="py-%d" % s, display_name="Py %d" % s, bot=True)
        return self.stub().CreateTable(
            request, metadata=(("authorization", "Bearer " + SERVICE_TOKEN),), timeout=10)
