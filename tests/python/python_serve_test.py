"""serve() as a bot account's process: real table-service and matchmaking-service
processes on PostgreSQL; bot fill gives a lone person's empty seats to three bot
accounts served by the library (in this process, and example_bot.py --serve as its
own), which play them to the end themselves (no move of theirs on the autopilot's
clock), also when matchmaking is killed or frozen mid-game and the bots reconnect
to get their live assignments again, and when an account is revoked meanwhile."""

import os
import signal
import subprocess
import threading
import time
import unittest

import example_bot
from example_bot import Ducker
from mamlaka_bot import Seat, SeatError, serve
from mamlaka_bot.serve import _Seats
from stack_fixture import Stack
from trix.v1 import common_pb2, matchmaking_pb2

PARTNER = common_pb2.Mode(team=common_pb2.TEAM_PARTNER, format=common_pb2.FORMAT_COMPLEX)


class Counting(Ducker):
    """Counts the cards it chose, per bot account."""

    def __init__(self, counts, name):
        self.counts, self.name = counts, name

    def play_card(self, view, legal):
        self.counts[self.name] = self.counts.get(self.name, 0) + 1
        return super().play_card(view, legal)


class Gated(Ducker):
    """The person: plays only while `gate` is set, so the game waits for the test."""

    def __init__(self, gate):
        self.gate = gate

    def play_card(self, view, legal):
        self.gate.wait(30)
        return super().play_card(view, legal)


class PythonServeTest(unittest.TestCase):
    def setUp(self):
        self.stack = Stack().start()
        self.addCleanup(self.stack.stop)  # also when tearDown fails
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.cards, self.results, self.assignments = {}, {}, {}
        self.bots, self.servers, self.refused, self.ids = {}, [], {}, {}
        self.processes = {}
        self.silent_after = 45.0
        self.gate = threading.Event()  # the person plays while it is set
        self.gate.set()

    def start_bots(self, threads=3, processes=0):
        """Bot accounts py-serve-N: `threads` served by serve() in this process,
        then `processes` by example_bot.py --serve processes."""
        for i in range(threads + processes):
            name = "py-serve-%d" % i
            bot = self.stack.register_bot(name)
            self.bots[bot.bot_id] = name
            self.ids[name] = bot.bot_id
            if i < threads:
                thread = threading.Thread(target=self.serve, args=(name, bot.key),
                                          daemon=True)
                thread.start()
                self.servers.append(thread)
            else:
                log = open(os.path.join(self.stack.tables.dir, name + ".log"), "wb")
                self.processes[name] = (subprocess.Popen(
                    ["/usr/bin/python3", example_bot.__file__, "--serve",
                     self.stack.address, bot.key], stdout=log, stderr=log), log)
        self.stack.wait_log('"bot connected"', threads + processes)

    def tearDown(self):
        self.gate.set()
        self.stop.set()
        for thread in self.servers:
            thread.join(timeout=30)
        if any(t.is_alive() for t in self.servers) or self._outcome_failed():
            print(self.stack.matchmaking.log())
        for process, log in self.processes.values():
            process.terminate()  # no game in progress: it exits at once, and cleanly
            self.assertEqual(process.wait(timeout=30), 0)
            log.close()

    def _outcome_failed(self):
        outcome = getattr(self, "_outcome", None)
        return outcome is not None and not getattr(outcome, "success", True)

    def serve(self, name, key):
        def on_result(assignment, outcome):
            with self.lock:
                self.results.setdefault(name, []).append((assignment, outcome))

        def on_assignment(assignment, fresh):
            with self.lock:
                self.assignments.setdefault(name, []).append(fresh)

        try:
            serve(self.stack.address, key, lambda: Counting(self.cards, name), capacity=2,
                  stop=self.stop, on_result=on_result, on_assignment=on_assignment,
                  silent_after=self.silent_after)
        except SeatError as e:
            with self.lock:
                self.refused[name] = (e, name in self.results)

    def delivered(self):
        with self.lock:
            return {name: list(fresh) for name, fresh in self.assignments.items()}

    def play_person(self, bot):
        assignment = self.stack.find_table("person-1", PARTNER)
        seat = Seat(assignment.address, assignment.table_id, assignment.seat_token, bot,
                    give_up_after=60)
        return assignment, seat

    def check_game(self, assignment, result):
        """The three other seats went to the three Python accounts, which played
        every card of theirs; the game the service recorded ended as they saw it."""
        record = self.stack.record(assignment.table_id)
        self.assertEqual(list(result.totals), list(record.result.totals))
        seats = {s.seat: s.player_id for s in self.stack.table(assignment).seats}
        self.assertEqual(seats[assignment.seat], "person-1")
        by_name = {self.bots[seats[s]]: s for s in seats if s != assignment.seat}
        self.assertEqual(sorted(by_name), sorted(self.bots.values()))
        played = {s: 0 for s in range(4)}
        for event in record.events:
            if event.HasField("card_played") and event.card_played.seat != assignment.seat:
                self.assertFalse(event.automatic, "an autopilot move: %s" % event)
                played[event.card_played.seat] += 1
        for name, (process, log) in self.processes.items():
            self.assertIsNone(process.poll(), name + " exited")
            with open(log.name) as f:
                self.assertEqual(f.read(), "", name + "'s output")
        with self.lock:
            for name, s in by_name.items():
                if name in self.processes:
                    continue  # it played every card of its seat: none was automatic
                self.assertEqual(self.cards.get(name), played[s], name)
                [(given, outcome)] = self.results[name]
                self.assertEqual((given.table_id, given.seat), (assignment.table_id, s))
                self.assertEqual(list(outcome.totals), list(record.result.totals))

    def test_bot_fill_seats_the_served_accounts_who_play_the_game_out(self):
        self.start_bots(threads=2, processes=1)
        assignment, seat = self.play_person(Gated(self.gate))
        result = seat.play()
        self.check_game(assignment, result)
        with self.lock:
            self.assertEqual(self.assignments, {"py-serve-0": [True], "py-serve-1": [True]})

    def start_game(self):
        """Queues the person, whose seat plays in a thread, until the bots played
        a few cards."""
        assignment, seat = self.play_person(Gated(self.gate))
        done = []
        person = threading.Thread(target=lambda: done.append(seat.play()), daemon=True)
        person.start()
        deadline = time.monotonic() + 30
        while sum(self.cards.values()) < 6 and time.monotonic() < deadline:
            person.join(timeout=0.01)
        return assignment, person, done

    def wait_delivered(self, expected):
        deadline = time.monotonic() + 20
        while not expected(self.delivered()) and time.monotonic() < deadline:
            time.sleep(0.02)
        self.assertTrue(expected(self.delivered()), self.delivered())

    def test_bots_leave_a_silent_stream_and_get_their_seats_again(self):
        """A connection that dies without a word (here: matchmaking frozen by
        SIGSTOP, its sockets open) is given up after silent_after."""
        self.silent_after = 1.5
        self.start_bots()
        assignment, person, done = self.start_game()
        self.gate.clear()  # the person thinks: the game stays on until the bots are back
        os.kill(self.stack.matchmaking.process.pid, signal.SIGSTOP)
        time.sleep(2 * self.silent_after)
        os.kill(self.stack.matchmaking.process.pid, signal.SIGCONT)
        # Each account reconnected (maybe more than once) and got its seat again.
        self.wait_delivered(lambda d: sorted(d) == sorted(self.bots.values()) and all(
            f[0] and len(f) > 1 and not any(f[1:]) for f in d.values()))
        self.gate.set()
        person.join(timeout=60)
        self.assertEqual(len(done), 1)
        self.check_game(assignment, done[0])

    def test_bots_reconnect_after_matchmaking_is_killed_and_get_their_seats_again(self):
        self.start_bots()
        assignment, person, done = self.start_game()
        self.gate.clear()  # the person thinks: the game stays on until the bots are back
        # One account is revoked meanwhile: its process finishes the game it is in.
        self.stack.revoke_bot(self.ids["py-serve-2"])
        self.stack.matchmaking.kill()
        self.stack.matchmaking.start()
        again = {"py-serve-0": [True, False], "py-serve-1": [True, False],
                 "py-serve-2": [True]}
        self.wait_delivered(lambda d: d == again)
        self.gate.set()
        person.join(timeout=60)
        self.assertEqual(len(done), 1)
        self.servers[2].join(timeout=30)
        with self.lock:
            error, finished_first = self.refused["py-serve-2"]
        self.assertIn("UNAUTHENTICATED", str(error))
        self.assertTrue(finished_first, "serve() raised before its game ended")
        self.check_game(assignment, done[0])


class SeatsTest(unittest.TestCase):
    """The bookkeeping of serve()'s seats, without a server: nothing is dialled."""

    def test_a_failing_bot_ends_its_seat_once_and_is_reported(self):
        outcomes = []

        def broken():
            raise ValueError("no bot today")

        seats = _Seats(broken, lambda a, outcome: outcomes.append((a.table_id, outcome)), None)
        given = matchmaking_pb2.Assignment(table_id="t-1", seat=2, address="127.0.0.1:1")
        with self.assertLogs("mamlaka_bot", "ERROR") as logs:
            self.assertTrue(seats.start(given))
            seats.join()
        self.assertIn("table t-1 seat 2: the bot failed", logs.output[0])
        [(table_id, error)] = outcomes
        self.assertEqual((table_id, str(error)), ("t-1", "no bot today"))
        # Delivered again after its game ended (a reconnect racing the game's end).
        self.assertFalse(seats.start(given))
        self.assertEqual(len(outcomes), 1)


if __name__ == "__main__":
    unittest.main()
