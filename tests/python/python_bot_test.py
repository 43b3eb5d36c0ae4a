"""The Python bot library in real games: four Python seats on a real table-service
process, checked against the service's own record of the game."""

import threading
import unittest

from example_bot import Ducker
from mamlaka_bot import Bot, Seat
from table_fixture import SERVICE_TOKEN, TableService
from trix.v1 import common_pb2, table_pb2


class Stubborn(Bot):
    """Always answers a card it does not hold: the library must say so and go on."""

    def play_card(self, view, legal):
        return "XX"


def play_all(service, table, bots, resume_at=0, **kwargs):
    seats = [Seat(service.address, table.table_id, table.seat_tokens[s], bots[s],
                  give_up_after=60, **kwargs) for s in range(4)]
    for seat in seats:
        seat.last_seq = resume_at
    results = [None] * 4
    errors = []

    def run(s):
        try:
            results[s] = seats[s].play()
        except Exception as e:  # reported below, with the seat
            errors.append((s, e))

    threads = [threading.Thread(target=run, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    return seats, results, errors, threads


class PythonBotTest(unittest.TestCase):
    def setUp(self):
        self.service = TableService().start()

    def tearDown(self):
        self.service.stop()

    def record(self, table_id):
        # The backend's record: the test's tables are not open to spectators.
        return self.service.stub().GetGameRecord(
            table_pb2.GetGameRecordRequest(game_id=table_id),
            metadata=(("authorization", "Bearer " + SERVICE_TOKEN),), timeout=10)

    def finish_and_check(self, table, results, errors, threads):
        """Waits for every seat, then checks each one ended with the recorded totals;
        answers the record."""
        for t in threads:
            t.join(timeout=90)
        self.assertEqual(errors, [])
        record = self.record(table.table_id)
        self.assertEqual(len(record.result.totals), 4)
        for s in range(4):
            self.assertEqual(list(results[s].totals), list(record.result.totals),
                             "seat %d's result" % s)
        return record

    def test_four_python_seats_finish_a_game_the_service_recorded(self):
        table = self.service.create_table(team=common_pb2.TEAM_PARTNER)
        seats, results, errors, threads = play_all(
            self.service, table, [Ducker(), Ducker(), Ducker(), Stubborn()])
        record = self.finish_and_check(table, results, errors, threads)
        for s in range(4):
            self.assertEqual(seats[s].view.totals, list(record.result.totals),
                             "seat %d's running totals" % s)
        self.assertEqual(sum(r.illegal for r in seats[:3]), 0)
        self.assertGreater(seats[3].illegal, 0)

    def test_the_library_gives_each_seats_seed_at_a_table_dealing_from_them(self):
        table = self.service.create_table(seat_seeds=True)
        seats, results, errors, threads = play_all(self.service, table, [Ducker()] * 4)
        record = self.finish_and_check(table, results, errors, threads)
        self.assertEqual(record.deal_proof.procedure, "trix-deals-v2")
        self.assertEqual([len(s) for s in record.deal_proof.seat_seeds], [32] * 4)
        self.assertEqual(len(set(record.deal_proof.seat_seeds)), 4)

    def test_seats_resume_after_the_service_is_killed_mid_game(self):
        table = self.service.create_table(kingdoms=2)
        seats, results, errors, threads = play_all(self.service, table, [Ducker()] * 4)
        while all(s.last_seq < 40 for s in seats):
            threads[0].join(timeout=0.01)
        self.service.kill()
        self.service.start()
        self.finish_and_check(table, results, errors, threads)
        self.assertGreater(sum(s.reconnects for s in seats), 0)

    def test_seats_resuming_beyond_the_stream_start_from_a_snapshot(self):
        # As after a database failover that lost the events the seats had seen:
        # the server answers OUT_OF_RANGE, and each seat takes a snapshot and plays.
        table = self.service.create_table(kingdoms=1)
        seats, results, errors, threads = play_all(
            self.service, table, [Ducker()] * 4, resume_at=500)
        self.finish_and_check(table, results, errors, threads)


if __name__ == "__main__":
    unittest.main()
