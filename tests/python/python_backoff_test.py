"""The Python library's Backoff: the services' rule (first, doubling, capped, reset),
each wait jittered into [0.5, 1.5) of it, or into the window given (a seat's
never passes its cap)."""

import random
import unittest

from mamlaka_bot.backoff import Backoff


class BackoffTest(unittest.TestCase):
    def test_doubles_from_first_to_the_cap_and_starts_over_after_reset(self):
        backoff = Backoff(0.1, 1.0)
        self.assertEqual([backoff.after(n) for n in range(1, 7)],
                         [0.1, 0.2, 0.4, 0.8, 1.0, 1.0])
        for _ in range(3):
            backoff.failed()
        self.assertEqual(backoff.failures, 3)
        backoff.reset()
        self.assertEqual(backoff.failures, 0)
        self.assertLess(backoff.failed(), 0.1 * 1.5)

    def test_each_wait_is_spread_around_its_step(self):
        waits = []
        for seed in range(200):
            waits.append(Backoff(2.0, 5.0, rng=random.Random(seed)).failed())
        self.assertGreaterEqual(min(waits), 1.0)
        self.assertLess(max(waits), 3.0)
        self.assertGreater(max(waits) - min(waits), 1.0)  # spread, not one value

    def test_a_window_below_one_keeps_every_wait_within_the_cap(self):
        waits = []
        for seed in range(200):
            backoff = Backoff(0.1, 1.0, rng=random.Random(seed), jitter=(0.5, 1.0))
            waits.extend(backoff.failed() for _ in range(8))
        self.assertLessEqual(max(waits), 1.0)
        self.assertGreater(max(waits), 0.9)  # the cap is reached, not undershot
        self.assertGreaterEqual(min(waits), 0.05)


if __name__ == "__main__":
    unittest.main()
