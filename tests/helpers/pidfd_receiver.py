#!/usr/bin/env python3
"""The caller's side of --pidfd-socket for tests/integration/pidfd_socket.bats:
listens on a unix stream socket at PATH, writes "listening" to LOG, then for
each connection the message and the pid the received pidfd names
(/proc/self/fdinfo's Pid:) as "KIND PID", and with --signal N SECONDS sends
signal N through the pidfd (pidfd_send_signal) that many seconds later,
then closes it.

    pidfd_receiver.py PATH LOG [--signal N SECONDS]
"""
import os
import signal
import socket
import sys
import threading

path, log = sys.argv[1], sys.argv[2]
sig, delay = (int(sys.argv[4]), float(sys.argv[5])) if len(sys.argv) > 5 else (0, 0)


def later(fd):
    signal.pidfd_send_signal(fd, sig)
    os.close(fd)

srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(path)
srv.listen(4)
with open(log, "a", buffering=1) as out:
    out.write("listening\n")
    while True:
        conn, _ = srv.accept()
        msg, fds, _flags, _addr = socket.recv_fds(conn, 4096, 4)
        conn.close()
        for fd in fds:
            pid = "?"
            with open(f"/proc/self/fdinfo/{fd}") as info:
                for line in info:
                    if line.startswith("Pid:"):
                        pid = line.split()[1]
            if sig:
                threading.Timer(delay, later, (fd,)).start()
            else:
                os.close(fd)
            out.write(f"{msg.decode(errors='replace')} {pid} fds={len(fds)}\n")
        if not fds:
            out.write(f"{msg.decode(errors='replace')} nofd\n")
