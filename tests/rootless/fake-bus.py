#!/usr/bin/python3
# fake-bus.py LOG SOCKET...: a server on each unix SOCKET that answers
# nothing. Run by another user, it stands for a systemd or a bus that
# someone else serves where a user's sbrun looks for its own. It logs
# "ready" once listening, then per connection "connect SOCKET" and
# "read SOCKET N": the bytes the client sent before it closed, or before a
# second passed (an sbrun that trusts it sends its authentication).
import os
import select
import socket
import sys

log, paths = sys.argv[1], sys.argv[2:]
listeners = {}
for path in paths:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    os.chmod(path, 0o777)
    s.listen(16)
    listeners[s] = path


def note(line):
    with open(log, "a") as f:
        f.write(line + "\n")


note("ready")
while True:
    ready, _, _ = select.select(list(listeners), [], [])
    for s in ready:
        conn, _ = s.accept()
        note("connect " + listeners[s])
        conn.settimeout(1.0)
        got = 0
        try:
            while True:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                got += len(chunk)
        except socket.timeout:
            pass
        note("read %s %d" % (listeners[s], got))
        conn.close()
