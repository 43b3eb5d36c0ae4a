#!/usr/bin/python3
"""Garbage at gRPC ports, for tests/fault: for SECONDS, connections to each PORT
send random bytes, an HTTP/2 preface followed by random bytes, or a frame header
announcing 16 MiB followed by a little of it, then hang up (a service must shrug
them off). Prints how many connections it made.

  garbage_bytes.py SECONDS PORT [PORT ...]
"""
import os
import random
import socket
import struct
import sys
import time

seconds, ports = float(sys.argv[1]), [int(p) for p in sys.argv[2:]]
preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
rng = random.Random(7)
sent = 0
until = time.time() + seconds
while time.time() < until:
    kind = sent % 3
    try:
        s = socket.create_connection(("127.0.0.1", ports[sent % len(ports)]), timeout=2)
        if kind == 0:
            s.sendall(os.urandom(rng.randint(1, 65536)))
        elif kind == 1:
            s.sendall(preface + os.urandom(rng.randint(1, 16384)))
        else:  # a HEADERS frame that claims 16 MiB, then a little of it
            s.sendall(preface + struct.pack(">I", 0x1000000)[1:] + b"\x01\x04" +
                      struct.pack(">I", 1) + os.urandom(1024))
        s.close()
    except OSError:
        pass
    sent += 1
    time.sleep(0.002)  # a steady stream, not a CPU hog beside the other tests
print(f"garbage: {sent} connections to ports {' '.join(map(str, ports))}")
