#!/usr/bin/python3
"""A staked player who queues and leaves, for tests/fault/holds_fault_test.sh.

Credits the player (--credit, once per player: the credit's request id is the
player's), opens a staked FindTable stream as a game's backend does (the service
token, acting for --player), prints one JSON line per event on stdout, and closes
the stream (the server sees it end as it would a lost connection) once the file
--close_when exists. Events: {"event": "queued", "ticket": ...}, then "closed", or
"ended" with the status code when the stream ended first (matchmaking died).

  PYTHONPATH=build/python:bots/python staked_client.py --matchmaking=H:P \\
      --ratings=H:P --player=ID --token=SERVICE_TOKEN --stake=100 --credit=1000 \\
      --close_when=FILE
"""

import argparse
import json
import os
import threading
import time

import grpc

from trix.v1 import matchmaking_pb2, matchmaking_pb2_grpc, ratings_pb2, ratings_pb2_grpc


def say(**fields):
    print(json.dumps(fields), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--matchmaking", required=True)
    p.add_argument("--ratings", required=True)
    p.add_argument("--player", required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--stake", type=int, default=100)
    p.add_argument("--credit", type=int, default=1000)
    p.add_argument("--close_when", required=True)
    args = p.parse_args()
    metadata = (("authorization", "Bearer " + args.token),)
    with grpc.insecure_channel(args.ratings) as channel:
        ratings_pb2_grpc.RatingsServiceStub(channel).Credit(
            ratings_pb2.TransferRequest(request_id="credit-" + args.player,
                                        player_id=args.player, amount=args.credit),
            metadata=metadata, timeout=10)
    channel = grpc.insecure_channel(args.matchmaking)
    stream = matchmaking_pb2_grpc.MatchmakingServiceStub(channel).FindTable(
        matchmaking_pb2.FindTableRequest(request_id="staked-" + args.player,
                                         player_id=args.player, display_name=args.player,
                                         stake=args.stake),
        metadata=metadata, timeout=300)
    closed = threading.Event()

    def close_when_asked():
        while not os.path.exists(args.close_when):
            time.sleep(0.05)
        closed.set()
        stream.cancel()

    threading.Thread(target=close_when_asked, daemon=True).start()
    queued = False
    try:
        for update in stream:
            if update.HasField("queued") and not queued:
                queued = True
                say(event="queued", ticket=update.queued.ticket_id)
    except grpc.RpcError as e:
        if closed.is_set():
            say(event="closed")
            return 0
        say(event="ended", code=e.code().name, details=e.details())
        return 0
    say(event="ended", code="OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
