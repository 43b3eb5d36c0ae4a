"""Backoff: how long to wait before trying again something that keeps failing (a
stream, a connection): `first` seconds after the first failure, doubling after each
further one up to `most`; reset() after a success starts over. Each wait is spread
by a factor drawn from `jitter` ([0.5, 1.5) unless told), so that many bots cut off
together do not all come back together. The same rule as the services'
(services/common/backoff.h).

    backoff = Backoff(0.1, 2.0)
    while not connect():
        time.sleep(backoff.failed())
    backoff.reset()
"""

import random


class Backoff:
    def __init__(self, first, most, rng=random, jitter=(0.5, 1.5)):
        self.first = first
        self.most = most
        self.jitter = jitter
        self.failures = 0
        self._rng = rng

    def after(self, failures):
        """The wait after `failures` failures in a row (1: `first`), before jitter."""
        return min(self.first * 2 ** max(failures - 1, 0), self.most)

    def failed(self):
        """Counts a failure; returns its wait in seconds, jittered."""
        self.failures += 1
        low, high = self.jitter
        return self.after(self.failures) * (low + (high - low) * self._rng.random())

    def reset(self):
        self.failures = 0
