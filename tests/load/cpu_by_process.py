#!/usr/bin/python3
"""CPU per process over a window, with PostgreSQL's backends named by the
application_name their clients gave them ("mamlaka pool load", "mamlaka
matchmaking", ...), so that a load run's database work is split by the service
that asked for it.

    tests/load/cpu_by_process.py --port=55471 --delay=10 --window=10

Run it beside a load script (run_matchmaking_load.sh's PostgreSQL listens on
55471): it waits --delay seconds, names the backends connected then, and prints
each name's user, system and total CPU over the next --window seconds in cores,
the largest first. Processes that start or end within the window are not
counted.
"""
import argparse
import collections
import os
import subprocess
import time


def backend_names(port):
    query = ("SELECT pid, coalesce(nullif(application_name, ''), backend_type) "
             "FROM pg_stat_activity")
    out = subprocess.run(
        ["psql", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-d", "postgres",
         "-AtF|", "-c", query], capture_output=True, text=True, check=True).stdout
    names = {}
    for line in out.splitlines():
        pid, name = line.split("|", 1)
        names[int(pid)] = "postgres: " + name.split("#")[0].strip()
    return names


def cpu_ticks():
    ticks = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        ticks[int(entry)] = (comm, int(fields[11]), int(fields[12]))  # utime, stime
    return ticks


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=55471, help="PostgreSQL's port")
    parser.add_argument("--delay", type=float, default=10, help="seconds before sampling")
    parser.add_argument("--window", type=float, default=10, help="seconds sampled")
    args = parser.parse_args()
    time.sleep(args.delay)
    names = backend_names(args.port)
    before, start = cpu_ticks(), time.monotonic()
    time.sleep(args.window)
    after, seconds = cpu_ticks(), time.monotonic() - start
    totals = collections.defaultdict(lambda: [0, 0])
    for pid, (comm, user, system) in after.items():
        if pid not in before or before[pid][0] != comm:
            continue
        name = names.get(pid, "postgres: other" if comm == "postgres" else comm)
        totals[name][0] += user - before[pid][1]
        totals[name][1] += system - before[pid][2]
    hz = os.sysconf("SC_CLK_TCK")
    for name, (user, system) in sorted(totals.items(), key=lambda t: -sum(t[1])):
        if user + system == 0:
            continue
        print(f"{name:40s} user {user / hz / seconds:.3f}  system {system / hz / seconds:.3f}"
              f"  total {(user + system) / hz / seconds:.3f} cores")


if __name__ == "__main__":
    main()
