#!/usr/bin/env python3
"""Run one command in the lab guest over its control serial port.

    ctl.py [--timeout S] SOCKET COMMAND...

COMMAND is joined with spaces and run by bash in the guest (qemu/guest/agent).
Its output (stdout and stderr) is copied to stdout and its exit status becomes
ours. Exit 124: no reply within the timeout; 125: the channel failed.
"""
import argparse
import base64
import os
import socket
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("socket")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = " ".join(args.command)
    if not cmd:
        ap.error("no command")

    req_id = "%d-%d" % (os.getpid(), time.monotonic_ns())
    deadline = time.monotonic() + args.timeout
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(max(0.1, args.timeout))
        s.connect(args.socket)
        s.sendall(b"%s %s\n" % (req_id.encode(),
                                base64.b64encode(cmd.encode())))
    except OSError as e:
        print("ctl: cannot reach the guest on %s: %s" % (args.socket, e),
              file=sys.stderr)
        return 125

    buf = b""
    body = None
    begin = b"LAB-BEGIN " + req_id.encode()
    end = b"LAB-END " + req_id.encode() + b" "
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            print("ctl: no reply from the guest within %gs to: %s"
                  % (args.timeout, cmd), file=sys.stderr)
            return 124
        s.settimeout(left)
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            continue
        except OSError as e:
            print("ctl: channel error: %s" % e, file=sys.stderr)
            return 125
        if not chunk:
            print("ctl: guest closed the channel during: %s" % cmd,
                  file=sys.stderr)
            return 125
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            line = line.rstrip(b"\r")
            # Anything else on the line (an echo of a request sent before the
            # agent set raw mode, a stale reply) is not ours: skip it.
            if line == begin:
                body = []
            elif body is not None and line.startswith(end):
                out = base64.b64decode(b"".join(body))
                sys.stdout.buffer.write(out)
                sys.stdout.flush()
                return int(line[len(end):])
            elif body is not None:
                body.append(line)


if __name__ == "__main__":
    sys.exit(main())
