#!/usr/bin/env python3
"""The router's forwarded datagrams, counted at the host side of tap1.

    nft -j list counter netdev TABLE NAME | fwdcount.py

prints the counter's packets (exit status 1, and why, when the input holds
no such counter).

bench/run.sh keeps an nftables counter on the ingress hook of tap1, in
tap1's netns: the frames the guest sent out of eth1, as the host received
them, before the host's IP stack and the receiver's socket. Its one rule
counts only the router's own datagrams: IPv4 UDP to the receiver's port
whose IP length is the flood's payload plus the 28 bytes of IP and UDP
headers. tap1's own RX counters (/sys/class/net/tap1/statistics) count
everything else the guest sends out of eth1 as well: the ping at 100/s
beside the flood, iperf3's control connection and its 4-byte UDP connect
datagram, ARP and IPv6 neighbour discovery. At a 1 Mbit/s PDR trial (about
425 datagrams in 5 s) a single stray frame is more than the 0.1 % of loss
the trial may have, so those frames are filtered out, not estimated.
"""
import json
import sys


def packets(doc):
    """The packets of the one counter in `nft -j list counter`'s output
    (parsed JSON). ValueError when it holds none, or more than one."""
    if not isinstance(doc, dict) or not isinstance(doc.get("nftables"), list):
        raise ValueError("not nft -j output (no nftables list)")
    found = [o["counter"] for o in doc["nftables"]
             if isinstance(o, dict) and isinstance(o.get("counter"), dict)]
    if len(found) != 1:
        raise ValueError("%d counters, not 1" % len(found))
    n = found[0].get("packets")
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError("the counter has no packet count (%r)" % (n,))
    return n


def main():
    try:
        print(packets(json.load(sys.stdin)))
    except ValueError as e:  # json.JSONDecodeError is one
        print("fwdcount.py: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
