#!/usr/bin/env python3
"""The soak's memory verdict (tests/soak/run_soak.sh; docs/benchmarks.md, "Soak").

Reads the samples run_soak.sh takes every 10 s, one line per service:

    t,name,rss_kib,heap_kib,hosted,live

t: seconds since the services started; rss_kib: the process's VmRSS; heap_kib:
tcmalloc's bytes in use by the program (trix_heap_allocated_bytes), empty for a
service without it; hosted: the tables the instance holds (trix_table_tables),
empty for other services; live: the games under way by the soak tool's count.

Memory is judged over the steady part of the run only — after the players' ramp
and a finished table's linger, when the number of live tables and the spread of
their logs' lengths hold steady — never against the first minute, when every
table is new. For each service:

  * growth: a least-squares fit of the heap in use against time and the tables
    the instance hosts (the games under way for a service that hosts none),
    memory = a + b * tables + c * t; the growth c, in MiB per hour, is what the
    load does not explain (a leak), and it must be at most --slope MiB/h. The RSS
    is judged the same way over the second half of the steady part: tcmalloc keeps
    freed memory in its caches, so the RSS climbs to a high-water mark while they
    fill, and in a steady state that mark stops rising. (A leak of tables that
    stay hosted fails the check after the drain.) Steady parts shorter than
    --min_steady are printed, not judged.
  * given back: after the wind-down (every game finished) and the linger, a table
    service hosts no table and its heap in use is at most --drain MiB above what it
    was idle before the run; what the RSS still holds beyond the heap is free
    memory tcmalloc keeps (trix_heap_free_bytes), printed.

  memory_verdict.py samples.csv --steady_from=S --steady_to=S [--drained_at=S]
      [--slope=8] [--drain=8] [--min_steady=600]

Exit status 0 when every judged check holds, 1 otherwise.
"""
import argparse
import collections
import sys


def fit(rows):
    """Least squares y = a + b*live + c*t over rows of (t, live, y); c per hour.

    Falls back to y = a + c*t when live does not vary."""
    n = len(rows)
    ts = [r[0] / 3600 for r in rows]
    ls = [r[1] for r in rows]
    ys = [r[2] for r in rows]
    mt, ml, my = sum(ts) / n, sum(ls) / n, sum(ys) / n
    stt = sum((t - mt) ** 2 for t in ts)
    sll = sum((l - ml) ** 2 for l in ls)
    stl = sum((t - mt) * (l - ml) for t, l in zip(ts, ls))
    sty = sum((t - mt) * (y - my) for t, y in zip(ts, ys))
    sly = sum((l - ml) * (y - my) for l, y in zip(ls, ys))
    det = stt * sll - stl * stl
    if stt == 0:
        return 0.0
    if sll == 0 or abs(det) < 1e-12 * stt * sll:
        return sty / stt
    return (sty * sll - sly * stl) / det


def slope(rows):
    """Plain least-squares slope of y over t, per hour."""
    return fit([(t, 0, y) for t, _, y in rows])


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def judge(name, steady, judged, max_slope):
    """Prints the steady part's figures; False when a judged series grew."""
    ok = True
    window = max(3, len(steady) // 5)  # first and last fifth of the steady part
    first, last = steady[:window], steady[-window:]
    has_heap = steady[0][2] is not None
    judged_series = [("RSS", 1)] + ([("heap in use", 2)] if has_heap else [])
    parts = []
    for label, i in judged_series:
        over = steady[len(steady) // 2:] if label == "RSS" else steady
        rows_i = [(r[0], r[3] if r[3] is not None else r[4] or 0, r[i]) for r in over]
        growth, plain = fit(rows_i), slope(rows_i)
        grew = judged and growth > max_slope
        ok = ok and not grew
        parts.append(f"{label} {mean([r[i] for r in first]):.1f} -> "
                     f"{mean([r[i] for r in last]):.1f} MiB (slope {plain:+.1f} MiB/h, "
                     f"beyond the tables {growth:+.1f} MiB/h"
                     + (" over the second half" if label == "RSS" else "")
                     + (" GREW" if grew else "") + ")")
    print(f"  {name}: " + "; ".join(parts))
    return ok


def main(argv):
    p = argparse.ArgumentParser()
    p.add_argument("samples")
    p.add_argument("--steady_from", type=float, required=True)
    p.add_argument("--steady_to", type=float, required=True)
    p.add_argument("--drained_at", type=float, default=None)
    p.add_argument("--slope", type=float, default=8.0, help="MiB/h")
    p.add_argument("--drain", type=float, default=8.0, help="MiB")
    p.add_argument("--min_steady", type=float, default=600.0, help="seconds")
    a = p.parse_args(argv)

    series = collections.defaultdict(list)  # name -> [(t, rss, heap, hosted, live)]
    for line in open(a.samples):
        if line.count(",") != 5:
            continue  # cut short when the sampler was stopped
        t, name, rss, heap, hosted, live = line.strip().split(",")
        num = lambda v: float(v) if v != "" else None
        series[name].append((float(t), float(rss) / 1024, num(heap) and num(heap) / 1024,
                             num(hosted), num(live)))
    steady_s = a.steady_to - a.steady_from
    judged = steady_s >= a.min_steady
    print(f"  steady part t={a.steady_from:.0f}..{a.steady_to:.0f} s ({steady_s / 60:.1f} min)"
          + ("" if judged else f": shorter than {a.min_steady / 60:.0f} min, growth not judged"))
    ok = True
    for name, rows in sorted(series.items()):
        steady = [r for r in rows if a.steady_from <= r[0] <= a.steady_to and r[1] > 0]
        if len(steady) < 6:
            print(f"  {name}: too few samples in the steady part")
            ok = ok and not judged
            steady = []
        has_heap = all(r[2] is not None for r in rows)
        if steady:
            ok = judge(name, steady, judged, a.slope) and ok
        if a.drained_at is not None and has_heap:
            idle = rows[0]
            end = [r for r in rows if r[0] >= a.drained_at]
            if not end:
                print(f"  {name}: no sample after the drain")
                ok = False
                continue
            e = end[-1]
            hosted_ok = e[3] is None or e[3] == 0
            back = e[2] <= idle[2] + a.drain and hosted_ok
            ok = ok and back
            print(f"  {name}: after the drain: "
                  + (f"{e[3]:.0f} tables hosted, " if e[3] is not None else "")
                  + f"heap in use {e[2]:.1f} MiB (idle before the run {idle[2]:.1f}; peak "
                  f"{max(r[2] for r in rows):.1f}), RSS {e[1]:.1f} MiB (idle {idle[1]:.1f}, peak "
                  f"{max(r[1] for r in rows):.1f}) "
                  + ("given back" if back else f"NOT GIVEN BACK (bound idle + {a.drain:.0f} MiB, "
                     "no table hosted)"))
    per_live_table(series, a.steady_from, a.steady_to)
    return 0 if ok else 1


def per_live_table(series, steady_from, steady_to):
    """Prints the table services' heap in use together per game under way and per
    table hosted (a finished table stays hosted for its linger)."""
    by_t = collections.defaultdict(lambda: [0.0, 0.0, 0.0])  # t -> heap MiB, hosted, live
    for name, rows in series.items():
        if not name.startswith("table"):
            continue
        for t, _, heap, hosted, live in rows:
            if steady_from <= t <= steady_to and heap is not None and live:
                by_t[t][0] += heap
                by_t[t][1] += hosted or 0
                by_t[t][2] = live
    rows = [v for _, v in sorted(by_t.items())]
    if len(rows) >= 6:
        w = max(3, len(rows) // 5)
        live = [heap * 1024 / live for heap, _, live in rows]
        hosted = [heap * 1024 / hosted for heap, hosted, _ in rows if hosted]
        print(f"  table services' heap in use per live table: {mean(live[:w]):.0f} -> "
              f"{mean(live[-w:]):.0f} KiB; per table hosted: {mean(hosted[:w]):.0f} -> "
              f"{mean(hosted[-w:]):.0f} KiB (first and last fifth of the steady part)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
