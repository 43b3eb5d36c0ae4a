"""The Python bot library over TLS: four Python seats play a game on a real
table-service process that serves mutual TLS (certificates from
scripts/make-certs.sh), with the credentials the library makes from PEM files or
from trix-bot's environment variables; without them a seat gets nowhere."""

import os
import shutil
import subprocess
import tempfile
import threading
import unittest

from example_bot import Ducker
from mamlaka_bot import Seat, SeatError, channel_credentials, credentials_from_env
from table_fixture import TableService
from trix.v1 import common_pb2


class PythonTlsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="trix-py-tls-")
        for name in ("table", "bot"):
            subprocess.run([os.environ["MAKE_CERTS"], self.dir, name, "localhost",
                            "127.0.0.1"], check=True)
        self.files = {name: os.path.join(self.dir, name)
                      for name in ("ca.crt", "table.crt", "table.key", "bot.crt", "bot.key")}
        self.credentials = channel_credentials(self.files["ca.crt"], self.files["bot.crt"],
                                               self.files["bot.key"])
        self.service = TableService(
            flags=["--tls_cert=" + self.files["table.crt"],
                   "--tls_key=" + self.files["table.key"],
                   "--tls_client_ca=" + self.files["ca.crt"]],
            credentials=self.credentials).start()

    def tearDown(self):
        self.service.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_four_seats_play_a_game_over_mutual_tls(self):
        table = self.service.create_table(team=common_pb2.TEAM_SOLO)
        from_env = credentials_from_env(environ={
            "TRIX_BOT_TLS_CA": self.files["ca.crt"],
            "TRIX_BOT_TLS_CLIENT_CERT": self.files["bot.crt"],
            "TRIX_BOT_TLS_CLIENT_KEY": self.files["bot.key"]})
        self.assertIsNotNone(from_env)
        seats = [Seat(self.service.address, table.table_id, table.seat_tokens[s], Ducker(),
                      give_up_after=60, credentials=self.credentials if s % 2 else from_env)
                 for s in range(4)]
        results, errors = [None] * 4, []

        def run(s):
            try:
                results[s] = seats[s].play()
            except Exception as e:  # reported below
                errors.append((s, e))

        threads = [threading.Thread(target=run, args=(s,)) for s in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=90)
        self.assertEqual(errors, [])
        for s in range(4):
            self.assertEqual(len(results[s].totals), 4)
            self.assertEqual(sum(results[s].totals), 0)

    def test_a_seat_without_credentials_gets_nowhere(self):
        table = self.service.create_table()
        seat = Seat(self.service.address, table.table_id, table.seat_tokens[0], Ducker(),
                    give_up_after=2)
        with self.assertRaises(SeatError):
            seat.play()

    def test_settings(self):
        self.assertIsNone(credentials_from_env(environ={}))
        self.assertIsNotNone(credentials_from_env(environ={"TRIX_BOT_TLS": "true"}))
        with self.assertRaises(ValueError):
            channel_credentials(client_cert_file=self.files["bot.crt"])


if __name__ == "__main__":
    unittest.main()
