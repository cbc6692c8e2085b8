"""bench/fwdcount.py: the router's datagrams counted at the host side of
tap1 (nft -j's counter), and what bench/run.sh's rule matches."""
import json
import os
import re
import subprocess
import sys

import pytest

import fwdcount
import profiles

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# `nft -j list counter netdev labfwd datagrams` (nftables 1.0.6) after 7
# datagrams of 1470 B: 1498 bytes each at the ingress hook (IP length)
NFT = {"nftables": [
    {"metainfo": {"version": "1.0.6", "release_name": "Lester Gooch #5",
                  "json_schema_version": 1}},
    {"counter": {"family": "netdev", "name": "datagrams", "table": "labfwd", "handle": 1,
                 "packets": 7, "bytes": 10486}}]}


def test_packets_of_nft_json():
    assert fwdcount.packets(NFT) == 7


@pytest.mark.parametrize("doc, why", [
    ({"nftables": NFT["nftables"][:1]}, "0 counters"),
    ({"nftables": NFT["nftables"] + NFT["nftables"][1:]}, "2 counters"),
    ({"nftables": [{"counter": {"name": "datagrams"}}]}, "no packet count"),
    ({"nftables": [{"counter": {"packets": "7"}}]}, "no packet count"),
    ({"nftables": [{"counter": {"packets": -1}}]}, "no packet count"),
    ([], "not nft -j output"),
    ({"counter": {"packets": 7}}, "not nft -j output"),
])
def test_packets_refuses_what_is_not_one_counter(doc, why):
    with pytest.raises(ValueError, match=why):
        fwdcount.packets(doc)


@pytest.mark.parametrize("text, out, rc", [
    (json.dumps(NFT), "7", 0),
    ("", "", 1),
    ("Error: No such file or directory", "", 1),
])
def test_cli_prints_the_packets_or_fails(text, out, rc):
    """run.sh's fwdframes pipes nft into it under `must`: a count that
    cannot be read stops the sweep (exit 1 and why) instead of a 0."""
    r = subprocess.run([sys.executable, os.path.join(BENCH, "fwdcount.py")], input=text,
                       capture_output=True, text=True)
    assert (r.stdout.strip(), r.returncode) == (out, rc), r.stderr
    assert bool(r.stderr.startswith("fwdcount.py: ")) == bool(rc)


def run_sh():
    with open(os.path.join(BENCH, "run.sh")) as f:
        return f.read()


def test_run_sh_counts_the_router_payload_at_the_receivers_port():
    """The rule's IP length is the router's payload (bench/profiles.py, which
    row.py turns the count into Mbit/s with) plus the IP and UDP headers,
    its port the receiver's, and the flood and the PDR search send that
    payload to that port."""
    text = run_sh()
    assert re.search(r"^ROUTER_PAYLOAD=(\d+)$", text, re.M).group(1) == str(
        profiles.PROFILES[profiles.ROUTER].payload)
    assert re.search(r"^RECEIVER_PORT=\d+$", text, re.M)
    assert ('udp dport "$RECEIVER_PORT" \\\n\t\tip length $((ROUTER_PAYLOAD + 28)) '
            'counter name datagrams') in text
    assert 'iperf3 -s -D -p "$RECEIVER_PORT"' in text
    router = text[text.index("\trouter)\n\t\tres=$dir/iperf.json"):]
    router = router[:router.index("\tesac\n")]
    assert 'IPERF_PORT=$RECEIVER_PORT' in router and '-l "$ROUTER_PAYLOAD"' in router
    pdr = text[text.index("offered=$(ZL_ROUTER=1"):]
    assert pdr[:pdr.index("\n\tfi\n")].count("RECEIVER_PORT") == 1
    assert 'zeroloss "$ROUTER_PAYLOAD"' in pdr[:pdr.index("\n\tfi\n")]


def test_run_sh_passes_the_floods_count_to_row_py():
    """The count around the flood alone (before the PDR search) reaches the
    router's row."""
    text = run_sh()
    assert "f0=$(must fwdframes)" in text and "f1=$(must fwdframes)" in text
    assert text.index("f1=$(must fwdframes)") < text.index("offered=$(ZL_ROUTER=1")
    assert "fwd_frames=$((f1 - f0))" in text
