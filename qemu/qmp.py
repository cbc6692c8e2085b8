#!/usr/bin/env python3
"""One QMP command to a guest's QEMU, bounded.

    qmp.py [--timeout S] SOCKET COMMAND [KEY=VALUE ...]

Values are JSON when they parse as JSON (true, 3, "x"), else strings:
    qmp.py qmp.sock set_link name=n0 up=false
    qmp.py qmp.sock stop
Prints the command's "return" as JSON; exits 1 with QMP's error message, 124
on timeout, 125 when the socket cannot be used.
"""
import json
import socket
import sys


def main():
    args = sys.argv[1:]
    timeout = 10.0
    if args[:1] == ["--timeout"]:
        timeout = float(args[1])
        args = args[2:]
    if len(args) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    path, cmd = args[0], args[1]
    arguments = {}
    for kv in args[2:]:
        k, _, v = kv.partition("=")
        try:
            arguments[k] = json.loads(v)
        except ValueError:
            arguments[k] = v
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        s.connect(path)
        f = s.makefile("rw")
    except OSError as e:
        print("qmp: %s: %s" % (path, e), file=sys.stderr)
        return 125

    def reply():
        while True:  # skip events
            line = f.readline()
            if not line:
                raise EOFError("QEMU closed the QMP socket")
            msg = json.loads(line)
            if "return" in msg or "error" in msg or "QMP" in msg:
                return msg

    try:
        reply()  # greeting
        for req in ({"execute": "qmp_capabilities"},
                    {"execute": cmd, "arguments": arguments}):
            f.write(json.dumps(req) + "\n")
            f.flush()
            msg = reply()
            if "error" in msg:
                print("qmp: %s: %s" % (req["execute"], msg["error"].get("desc")),
                      file=sys.stderr)
                return 1
        print(json.dumps(msg["return"]))
        return 0
    except socket.timeout:
        print("qmp: no reply in %g s" % timeout, file=sys.stderr)
        return 124
    except (OSError, EOFError, ValueError) as e:
        print("qmp: %s" % e, file=sys.stderr)
        return 125


if __name__ == "__main__":
    sys.exit(main())
