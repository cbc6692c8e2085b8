#!/usr/bin/env python3
"""Checkpatch findings the lab knows it cannot fix here, each with its reason.

A tree's series may carry a file `checkpatch-waivers` beside its `series`
(patches/6.12/checkpatch-waivers). Each line waives one checkpatch message
type on one patch, and says why:

    # comment
    0001 MISSING_FIXES_TAG the commit it fixes has no mainline id here (issue 19)

The patch is named by its four-digit number in the series, the type as
checkpatch --show-types prints it. A waiver is narrow on purpose: it covers
that type on that patch only, every other message still fails, and a waiver
whose message checkpatch no longer prints fails too (stale), so none can
outlive its reason. Waived messages are printed, never hidden.

    waivers.py validate WAIVERS N     refuse a malformed WAIVERS for a series
                                      of N patches (status 2, one line per
                                      fault); nothing printed when it is sound
    waivers.py filter WAIVERS NNNN    checkpatch --show-types output for patch
                                      NNNN on stdin: prints the messages that
                                      stay, then "stale waiver: ..." lines,
                                      then "waived TYPE: reason" lines; status
                                      1 if any message stays or a waiver is
                                      stale, else 0

WAIVERS may be a path that does not exist: no waivers.
qemu/check.sh and qemu/series.sh call both.
"""
import os
import re
import sys

LINE = re.compile(r"(\d{4})\s+([A-Z][A-Z0-9_]*)\s+(\S.*)$")
# checkpatch --show-types: "WARNING:TYPE: text", "ERROR:TYPE: ...", "CHECK:TYPE: ..."
MESSAGE = re.compile(r"(?:ERROR|WARNING|CHECK):([A-Z][A-Z0-9_]*):")
TOTAL = re.compile(r"total: \d+ errors?, \d+ warnings?, ")
# A reason names something a reader can check: at least this many words.
MIN_REASON_WORDS = 4


class WaiverError(Exception):
    pass


def parse(path, npatches=None):
    """{(patch, type): reason} from WAIVERS; WaiverError names every fault."""
    if not os.path.exists(path):
        return {}
    waivers, faults = {}, []
    with open(path, encoding="utf-8") as f:
        for no, raw in enumerate(f, 1):
            text = raw.strip()
            if not text or text.startswith("#"):
                continue
            where = f"{path}:{no}"
            m = LINE.match(text)
            if not m:
                faults.append(f"{where}: not 'NNNN TYPE reason': {text!r}")
                continue
            patch, kind, reason = m.groups()
            if npatches is not None and not 1 <= int(patch) <= npatches:
                faults.append(f"{where}: patch {patch} is not in the series (1..{npatches})")
            if len(reason.split()) < MIN_REASON_WORDS:
                faults.append(f"{where}: the reason must say why in at least "
                              f"{MIN_REASON_WORDS} words: {reason!r}")
            if (patch, kind) in waivers:
                faults.append(f"{where}: {patch} {kind} is waived twice")
            waivers[(patch, kind)] = reason
    if faults:
        raise WaiverError("\n".join(faults))
    return waivers


def messages(output):
    """checkpatch's output as (type, text) messages; the total line dropped.

    A message runs from its ERROR/WARNING/CHECK line to the next blank line.
    Text outside any message (it should have none with -q) stays, typed None,
    so that nothing checkpatch says is lost.
    """
    out, cur = [], None
    for line in output.splitlines():
        m = MESSAGE.match(line)
        if m:
            cur = [m.group(1), [line]]
            out.append(cur)
        elif not line.strip() or TOTAL.match(line):
            cur = None
        elif cur is not None:
            cur[1].append(line)
        else:
            out.append([None, [line]])
    return [(kind, "\n".join(lines)) for kind, lines in out]


def filter_output(waivers, patch, output):
    """(stays, stale, waived) for patch's checkpatch output."""
    mine = {kind: why for (p, kind), why in waivers.items() if p == patch}
    stays, seen = [], set()
    for kind, text in messages(output):
        if kind in mine:
            seen.add(kind)
        else:
            stays.append(text)
    stale = [f"stale waiver: {patch} {kind}: checkpatch no longer reports it; remove the line"
             for kind in sorted(set(mine) - seen)]
    waived = [f"waived {kind}: {mine[kind]}" for kind in sorted(seen)]
    return stays, stale, waived


def main(argv):
    if len(argv) != 4 or argv[1] not in ("validate", "filter"):
        print("usage: waivers.py validate WAIVERS N | filter WAIVERS NNNN", file=sys.stderr)
        return 2
    verb, path, arg = argv[1:]
    try:
        if verb == "validate":
            if not arg.isdigit():
                raise WaiverError(f"N must be the number of patches, not {arg!r}")
            parse(path, int(arg))
            return 0
        if not re.fullmatch(r"\d{4}", arg):
            raise WaiverError(f"NNNN must be a patch's four-digit number, not {arg!r}")
        stays, stale, waived = filter_output(parse(path), arg, sys.stdin.read())
    except WaiverError as e:
        print(e, file=sys.stderr)
        return 2
    for text in stays + stale + waived:
        print(text)
    return 1 if stays or stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
