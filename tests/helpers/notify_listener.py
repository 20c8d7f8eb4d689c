#!/usr/bin/env python3
"""The caller's side of sd_notify (systemd's, conmon's) for
tests/integration/notify.bats: a datagram socket at PATH ("@NAME":
abstract) that writes each message it gets to LOG as one line, its
newlines shown as "|", followed by " fds=N" (the file descriptors that came
with it, closed at once: BARRIER=1's pipe then reads EOF, as systemd answers
it). "ready" is written to LOG once it listens.

    notify_listener.py PATH LOG
"""
import array
import os
import socket
import sys

path, log = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\0" + path[1:] if path.startswith("@") else path)
with open(log, "a", buffering=1) as out:
    out.write("ready\n")
    while True:
        data, anc, _flags, _addr = s.recvmsg(65536, socket.CMSG_SPACE(16 * 4))
        fds = array.array("i")
        for level, kind, payload in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
        for fd in fds:
            os.close(fd)
        text = data.decode(errors="replace").replace("\n", "|")
        out.write(f"{text} fds={len(fds)}\n")
