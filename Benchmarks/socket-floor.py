#!/usr/bin/env python3
"""The floor under any client's CPU time for one keep-alive GET on this machine.

Sequential GETs of small.json on one keep-alive socket, with the least a client can do: an
epoll wait, one send and one recv a request, no parsing beyond Content-Length. Its system time is
what the kernel charges every client for a loopback request; its user time is Python's own.

Usage: run Benchmarks/run-loopback.sh once (it writes .nginx/nginx.conf), start that nginx, then
    taskset -c 0 python3 Benchmarks/socket-floor.py PORT [REQUESTS]
"""
import resource
import select
import socket
import sys
import time

port = int(sys.argv[1])
count = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
sock = socket.create_connection(("127.0.0.1", port))
sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
poll = select.epoll()
poll.register(sock.fileno(), select.EPOLLIN)
request = b"GET /small.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def get():
    sock.sendall(request)
    received = b""
    while True:
        poll.poll()
        data = sock.recv(65536)
        if not data:
            sys.exit("the server closed the connection")
        received += data
        end = received.find(b"\r\n\r\n")
        if end < 0:
            continue
        head = received[:end].lower()
        length = int(head.split(b"content-length: ")[1].split(b"\r\n")[0])
        if len(received) >= end + 4 + length:
            return


for _ in range(500):
    get()
before, start = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
for _ in range(count):
    get()
after, seconds = resource.getrusage(resource.RUSAGE_SELF), time.monotonic() - start
user = (after.ru_utime - before.ru_utime) / count * 1e6
system = (after.ru_stime - before.ru_stime) / count * 1e6
switches = (after.ru_nvcsw + after.ru_nivcsw - before.ru_nvcsw - before.ru_nivcsw) / count
print(f"{count / seconds:.0f} req/s, CPU {user + system:.1f} µs/request (user {user:.1f}, system {system:.1f}), "
      f"{switches:.2f} switches/request")
