#!/usr/bin/env python3
"""memory_verdict.py on made-up samples: a steady service passes; a leak, an RSS
that keeps rising, and a heap not given back after the games are over fail; a
steady part too short is not judged."""
import os
import random
import subprocess
import sys
import tempfile
import unittest

VERDICT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "memory_verdict.py")


def samples(leak_mib_h=0.0, rss_leak_mib_h=0.0, kept_after=0.0, hours=1.0, seed=1):
    """A table service and matchmaking sampled every 10 s: idle 20 s, a ramp of
    10 min, steady to `hours`, then the drain. The heap follows the live tables
    (300 +- 15, each 150 KiB) plus a leak; the RSS stays above the heap."""
    rng = random.Random(seed)
    lines, live = [], 300
    end = int(hours * 3600)
    for t in range(0, end + 300, 10):
        if t < 20:
            n = 0
        elif t < 620:
            n = int(300 * (t - 20) / 600)
        elif t <= end:
            live = max(270, min(330, live + rng.randint(-3, 3)))
            n = live
        else:
            n = 0
        leak = leak_mib_h * max(0, t - 20) / 3600
        heap = 20 + n * 150 / 1024 + leak + rng.uniform(-0.5, 0.5)
        if t > end:
            heap = 20 + leak + kept_after
        rss = max(heap + 30, 30 + 300 * 150 / 1024 + 20) + rss_leak_mib_h * t / 3600
        hosted = 0 if t > end + 150 else n
        lines.append(f"{t},table-1,{int(rss * 1024)},{int(heap * 1024)},{hosted},{n}")
        lines.append(f"{t},matchmaking,{int((40 + rss_leak_mib_h * t / 3600) * 1024)},,,{n}")
    return "\n".join(lines) + "\n", end


def verdict(text, end, steady_from=800, min_steady=600):
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        f.write(text)
    try:
        r = subprocess.run([sys.executable, VERDICT, f.name, f"--steady_from={steady_from}",
                            f"--steady_to={end}", f"--drained_at={end + 160}",
                            f"--min_steady={min_steady}"], capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    return r.returncode, r.stdout


class MemoryVerdictTest(unittest.TestCase):
    def test_steady_and_given_back_passes(self):
        code, out = verdict(*samples())
        self.assertEqual(code, 0, out)
        self.assertIn("given back", out)

    def test_a_leak_of_a_few_mib_an_hour_fails(self):
        code, out = verdict(*samples(leak_mib_h=12))
        self.assertEqual(code, 1, out)
        self.assertIn("GREW", out)

    def test_an_rss_that_keeps_rising_fails(self):
        code, out = verdict(*samples(rss_leak_mib_h=20))
        self.assertEqual(code, 1, out)
        self.assertIn("matchmaking", [l.split(":")[0].strip() for l in out.splitlines()
                                      if "GREW" in l])

    def test_memory_kept_after_the_games_are_over_fails(self):
        code, out = verdict(*samples(kept_after=64))
        self.assertEqual(code, 1, out)
        self.assertIn("NOT GIVEN BACK", out)

    def test_a_short_steady_part_is_printed_not_judged(self):
        text, end = samples(leak_mib_h=200, hours=0.2)
        code, out = verdict(text, end, steady_from=end - 120)
        self.assertIn("not judged", out)
        self.assertNotIn("GREW", out)


if __name__ == "__main__":
    unittest.main()
