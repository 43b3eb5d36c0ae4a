"""example_room.py, a private room driven by a game's backend, run as its own
process against real table-service and matchmaking-service processes on
PostgreSQL: two players in one room, the autopilot in the empty seats, a game and
its rematch; the printed series is the two tables' recorded results."""

import os
import re
import subprocess
import unittest

from stack_fixture import Stack
from table_fixture import SERVICE_TOKEN

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "bots", "python",
                       "example_room.py")


class PythonRoomTest(unittest.TestCase):
    def setUp(self):
        self.stack = Stack().start()
        self.addCleanup(self.stack.stop)

    def test_a_room_plays_a_game_and_a_rematch_and_prints_the_series(self):
        env = dict(os.environ, MAMLAKA_SERVICE_TOKEN=SERVICE_TOKEN)
        run = subprocess.run(
            ["/usr/bin/python3", EXAMPLE, self.stack.address, "--games=2",
             "--players=ann,bob", "--empty-seats=autopilot"],
            env=env, capture_output=True, text=True, timeout=180)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        out = run.stdout
        self.assertIn("game 2: Rematch", out)
        self.assertIn("series of 2 games", out)
        games = re.findall(r"game (\d) +table (\S+) +totals ([-+\d ]+?)  .*players (\S+)", out)
        self.assertEqual([g[0] for g in games], ["1", "2"], out)
        self.assertNotEqual(games[0][1], games[1][1])
        for _, table_id, totals, players in games:
            record = self.stack.record(table_id)
            self.assertEqual(totals.split(), ["%+d" % t for t in record.result.totals])
            seats = players.split(",")
            self.assertEqual((seats[0], seats[2]), ("ann", "bob"))
            self.assertEqual(len(seats), 4, players)
            self.assertNotIn(seats[1], ("ann", "bob"))
        # Each player's app played its seat of both games.
        for line in ("ann's app played seat 0 of game 1", "bob's app played seat 2 of game 2"):
            self.assertIn(line, out)


if __name__ == "__main__":
    unittest.main()
