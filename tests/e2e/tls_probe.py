#!/usr/bin/python3
"""Whether a gRPC client with the given TLS settings gets a connection to ADDRESS
(the TLS handshake done, a channel ready) within --seconds: exit 0 if it does, 1 if
it is refused. Used by tls_stack_test.sh to show who a TLS server turns away.

  tls_probe.py 127.0.0.1:50051 --ca ca.crt [--cert c.crt --key c.key]
  tls_probe.py 127.0.0.1:50051 --plaintext
"""
import argparse
import sys

import grpc


def main():
    p = argparse.ArgumentParser()
    p.add_argument("address")
    p.add_argument("--plaintext", action="store_true")
    p.add_argument("--ca")
    p.add_argument("--cert")
    p.add_argument("--key")
    p.add_argument("--server_name", help="the name checked against the certificate")
    p.add_argument("--seconds", type=float, default=3.0)
    a = p.parse_args()
    if a.plaintext:
        channel = grpc.insecure_channel(a.address)
    else:
        def read(path):
            return open(path, "rb").read() if path else None
        credentials = grpc.ssl_channel_credentials(read(a.ca), read(a.key), read(a.cert))
        options = [("grpc.ssl_target_name_override", a.server_name)] if a.server_name else []
        channel = grpc.secure_channel(a.address, credentials, options)
    try:
        grpc.channel_ready_future(channel).result(timeout=a.seconds)
    except grpc.FutureTimeoutError:
        return 1
    # And a call goes through (the health check, an empty request: the whole
    # server's status).
    try:
        channel.unary_unary("/grpc.health.v1.Health/Check")(b"", timeout=a.seconds)
    except grpc.RpcError as e:
        if e.code() == grpc.StatusCode.UNAVAILABLE:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
