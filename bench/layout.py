#!/usr/bin/env python3
"""Where two kernel images put their functions against 4 KiB pages.

Under QEMU's TCG a translated block jumps straight into the next one only
when the target is in the same 4 KiB guest page as the block's start, so a
hot loop that straddles a page boundary in one image and not in the other
runs the same source at different speeds (1.39x for nft_do_chain at 1000
rules). The bench's kernels are built with every C function page-aligned;
this report shows, from the two images' symbol tables (`symbols`, written
by qemu/build-kernel.sh with nm -S), whether the functions on the measured
paths (bench/hotpath.txt) sit alike in both:

    bench/layout.py build/kernel build/baseline [--check] [--json OUT]

Exit status: 0 when the report ran, 1 with --check when a hot function
crosses a page in one image only, 2 for bad arguments or unreadable input.
"""
import argparse
import json
import os
import re
import sys

PAGE = 4096
TEXT_TYPES = frozenset("tTW")
DEFAULT_NAMES = ("patched", "baseline")
DEFAULT_HOTPATH = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                               "hotpath.txt")
TABLE_ROWS = 40
# The keys of a hot function's entry beside the two images' names.
FLAGS = ("same_size", "offset_same", "crossing_same")
# Code that page alignment does not place and that does not run per packet:
# the out-of-line unlikely parts gcc splits off a function (foo.cold, in
# .text.unlikely, packed one after the other) and the static-call
# trampolines (__SCT__*, whose call sites x86 patches to call the target
# directly). Their place follows whatever cold code precedes them, so any
# WARN_ON() the series adds moves them all; they are reported apart.
COLD = re.compile(r"__SCT__.*|.*\.cold(\.[0-9]+)?")
# QEMU's per-vCPU jump cache (7.2: accel/tcg/tb-jmp-cache.h and
# include/exec/tb-hash.h), where a jump that leaves its page looks its
# target's translation up first: 1 << 12 slots, indexed in system mode by
# the address xor itself shifted right by six: the index's low six bits are
# address bits 0-5 xor 6-11, its high six bits 12-17 xor 18-23 (the page
# number's low twelve bits, folded). Two hot
# targets with one index evict each other. With every function at page
# offset 0 (the aligned layout) every entry falls into one of 64 slots, and
# which functions share one is decided by page numbers, which the
# alignment does not control: reported, not counted (docs/bench.md). Only
# function entries are counted; QEMU looks up return addresses and other
# cross-page targets there too.
PAGE_BITS = 12
JMP_CACHE_BITS = 12
JMP_PAGE_BITS = JMP_CACHE_BITS // 2


def is_cold(name):
    return COLD.fullmatch(name) is not None


def page_offset(addr):
    return addr & (PAGE - 1)


def crosses(addr, size):
    """True when the bytes [addr, addr + size) are on more than one page."""
    page = ~(PAGE - 1)
    return (addr & page) != ((addr + size - 1) & page)


def jmp_cache_slot(addr):
    """QEMU's tb_jmp_cache_hash_func() (system mode) of a guest address."""
    tmp = addr ^ (addr >> (PAGE_BITS - JMP_PAGE_BITS))
    page_mask = (1 << JMP_CACHE_BITS) - (1 << JMP_PAGE_BITS)
    return (((tmp >> (PAGE_BITS - JMP_PAGE_BITS)) & page_mask)
            | (tmp & ((1 << JMP_PAGE_BITS) - 1)))


def read_functions(path):
    """{name: [(addr, size), ...]}: the text symbols with a size in an
    `nm -S --defined-only` listing. A static name can occur several times:
    every occurrence is kept."""
    functions = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            fields = line.split()
            if len(fields) != 4 or fields[2] not in TEXT_TYPES:
                continue
            try:
                addr, size = int(fields[0], 16), int(fields[1], 16)
            except ValueError:
                raise ValueError(f"{path}:{n}: not an nm -S line") from None
            if size:
                functions.setdefault(fields[3], []).append((addr, size))
    if not functions:
        raise ValueError(f"{path}: no text symbol with a size (not nm -S?)")
    return functions


def read_layout(path):
    """The `layout` file's three values; layout "unknown" without it."""
    info = {"layout": "unknown", "kcflags": None, "pad": None}
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return info
    for line in lines:
        key, _, value = line.partition(" ")
        if key in info:
            info[key] = value.strip()
    return info


def load(dirpath):
    """A kernel output directory: its layout values and its text functions
    (`functions`, as read_functions returns them)."""
    functions = read_functions(os.path.join(dirpath, "symbols"))
    info = read_layout(os.path.join(dirpath, "layout"))
    info["functions"] = functions
    return info


def load_patterns(path):
    """The regexes of a hotpath file (one a line, '#' comments)."""
    patterns = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            pattern = line.split("#", 1)[0].strip()
            if not pattern:
                continue
            try:
                re.compile(pattern)
            except re.error as e:
                raise ValueError(f"{path}:{n}: bad regex {pattern!r}: {e}") from None
            patterns.append(pattern)
    return patterns


def image_summary(img):
    occurrences = [o for occ in img["functions"].values() for o in occ]
    return {
        "layout": img["layout"],
        "kcflags": img["kcflags"],
        "pad": img["pad"],
        "functions": len(occurrences),
        "crossing": sum(crosses(a, s) for a, s in occurrences),
    }


def common_stats(fa, fb):
    """Over the names in both images: how many are comparable (unique in
    each, same size), and of those how many differ in page offset and in
    page crossing."""
    stats = dict.fromkeys(("common", "skipped_non_unique", "skipped_size",
                           "offset_differs", "crossing_differs"), 0)
    for name in fa.keys() & fb.keys():
        if len(fa[name]) > 1 or len(fb[name]) > 1:
            stats["skipped_non_unique"] += 1
            continue
        (addr_a, size_a), (addr_b, size_b) = fa[name][0], fb[name][0]
        if size_a != size_b:
            stats["skipped_size"] += 1
            continue
        stats["common"] += 1
        stats["offset_differs"] += page_offset(addr_a) != page_offset(addr_b)
        stats["crossing_differs"] += crosses(addr_a, size_a) != crosses(addr_b, size_b)
    return stats


def place(occurrences):
    """Where a unique function sits in one image; None when it is absent."""
    if not occurrences:
        return None
    addr, size = occurrences[0]
    return {"addr": f"{addr:#x}", "size": size,
            "offset": f"{page_offset(addr):#x}", "crosses": crosses(addr, size)}


def hot_entry(pa, pb, names):
    """One hot function as it sits in each image; the flags are None
    unless it is in both."""
    both = pa is not None and pb is not None
    return {
        names[0]: pa,
        names[1]: pb,
        "same_size": pa["size"] == pb["size"] if both else None,
        "offset_same": pa["offset"] == pb["offset"] if both else None,
        "crossing_same": pa["crosses"] == pb["crosses"] if both else None,
    }


def hot_path(fa, fb, patterns, names):
    """The hot functions ({name: hot_entry}) and the names that match but
    occur more than once in an image (not comparable by name)."""
    # One regex for all the patterns; "(?!)" (no pattern) matches nothing.
    matcher = re.compile("|".join(f"(?:{p})" for p in patterns) or "(?!)")
    hot, non_unique = {}, []
    for name in sorted(fa.keys() | fb.keys()):
        if not matcher.fullmatch(name):
            continue
        occ_a, occ_b = fa.get(name, []), fb.get(name, [])
        if len(occ_a) > 1 or len(occ_b) > 1:
            non_unique.append(name)
        else:
            hot[name] = hot_entry(place(occ_a), place(occ_b), names)
    return hot, non_unique


def jmp_cache(hot, names):
    """Where the entries of the hot functions found in both images fall in
    QEMU's jump cache: per image the slots they use and the most in one;
    and how many of them share their slot with other hot functions in one
    image than in the other (whose calls evict which others changed)."""
    both = [n for n, e in hot.items() if e[names[0]] is not None and e[names[1]] is not None]
    result, mates = {"functions": len(both)}, {}
    for name in names:
        slots = {}
        for n in both:
            slots.setdefault(jmp_cache_slot(int(hot[n][name]["addr"], 16)), set()).add(n)
        result[name] = {"slots": len(slots),
                        "max_per_slot": max((len(v) for v in slots.values()), default=0)}
        mates[name] = {n: members - {n} for members in slots.values() for n in members}
    result["slot_mates_differ"] = sum(mates[names[0]][n] != mates[names[1]][n] for n in both)
    return result


def load_series(dirpath):
    """The functions the series' own objects define (qemu/build-kernel.sh
    writes `series-functions` for the patched kernel): where they sit is the
    series' doing, not layout. Empty when the file is absent."""
    try:
        with open(os.path.join(dirpath, "series-functions"), encoding="utf-8") as f:
            return {line.strip() for line in f if line.strip()}
    except FileNotFoundError:
        return set()


def compare(a, b, patterns, names=DEFAULT_NAMES, series=frozenset()):
    """The JSON-able report on two loaded images (load()) and the hotpath
    regexes; `names` label the two images in it. Hot functions in `series`
    (defined in an object the series changes) are listed apart and never
    count as a layout difference."""
    fa, fb = a["functions"], b["functions"]
    hot, non_unique = hot_path(fa, fb, patterns, names)
    both = {n: e for n, e in hot.items()
            if e["same_size"] is not None and n not in series and not is_cold(n)}
    own = {n: e for n, e in hot.items() if e["same_size"] is not None and n in series}
    cold = {n: e for n, e in hot.items()
            if e["same_size"] is not None and n not in series and is_cold(n)}
    return {
        "names": list(names),
        "images": {names[0]: image_summary(a), names[1]: image_summary(b)},
        **common_stats(fa, fb),
        "hot_functions": len(hot),
        "hot_crossing_differs": [n for n, e in both.items() if not e["crossing_same"]],
        "hot_offset_differs": [n for n, e in both.items()
                               if e["same_size"] and not e["offset_same"]],
        "hot_changed_size": [n for n, e in both.items() if not e["same_size"]],
        "hot_only_in": {names[0]: [n for n, e in hot.items() if e[names[1]] is None],
                        names[1]: [n for n, e in hot.items() if e[names[0]] is None]},
        "hot_non_unique": non_unique,
        "hot_series": sorted(series & hot.keys()),
        "hot_series_differs": [n for n, e in own.items()
                               if not (e["crossing_same"] and e["offset_same"])],
        "hot_cold": len(cold),
        "hot_cold_differs": [n for n, e in cold.items()
                             if not (e["crossing_same"] and e["offset_same"])],
        "hot_jmp_cache": jmp_cache(hot, names),
        "hot": hot,
    }


def cell(p):
    return f"{p['offset']}+{p['size']}{'*' if p['crosses'] else ''}"


def table(result):
    """The hot functions whose page crossing or offset differs, crossing
    first, at most TABLE_ROWS of them."""
    names, hot = result["names"], result["hot"]
    rows = result["hot_crossing_differs"] + [
        n for n in result["hot_offset_differs"] if n not in result["hot_crossing_differs"]]
    if not rows:
        return []
    width = min(40, max(len(n) for n in rows))
    lines = ["hot functions whose page crossing or offset differs"
             " (page offset+size, * = crosses a page):"]
    lines += [f"  {n:{width}}  {names[0]} {cell(hot[n][names[0]]):14}"
              f"  {names[1]} {cell(hot[n][names[1]])}" for n in rows[:TABLE_ROWS]]
    if len(rows) > TABLE_ROWS:
        lines.append(f"  ... and {len(rows) - TABLE_ROWS} more")
    return lines


def report(result):
    """The human-readable report: counts, then the table."""
    names = result["names"]
    width = max(len(n) for n in names) + 1
    lines = []
    for name in names:
        img = result["images"][name]
        lines.append(f"{name + ':':{width}} layout {img['layout']}, kcflags "
                     f"{img['kcflags'] or '-'}, pad {img['pad'] or '-'}: "
                     f"{img['functions']} text functions, {img['crossing']} cross a page")
    lines.append(
        f"common: {result['common']} functions (same name and size, unique; skipped"
        f" {result['skipped_non_unique']} non-unique, {result['skipped_size']} of"
        f" different size): page offset differs {result['offset_differs']},"
        f" page crossing differs {result['crossing_differs']}")
    only = result["hot_only_in"]
    lines.append(
        f"hot path: {result['hot_functions']} functions: page crossing differs"
        f" {len(result['hot_crossing_differs'])}, page offset differs (same size)"
        f" {len(result['hot_offset_differs'])}, size changed"
        f" {len(result['hot_changed_size'])}, only in {names[0]} {len(only[names[0]])},"
        f" only in {names[1]} {len(only[names[1]])}, non-unique"
        f" {len(result['hot_non_unique'])}; in objects the series changes"
        f" {len(result['hot_series'])}, of which placed differently"
        f" {len(result['hot_series_differs'])} (the series' doing, not counted);"
        f" cold parts and trampolines {result['hot_cold']}, of which placed"
        f" differently {len(result['hot_cold_differs'])} (not run per packet,"
        f" not counted)")
    jc = result.get("hot_jmp_cache")
    if jc:
        lines.append(
            f"QEMU's jump cache ({1 << JMP_CACHE_BITS} slots), the entries of the"
            f" {jc['functions']} hot functions in both: {names[0]} {jc[names[0]]['slots']}"
            f" slots (at most {jc[names[0]]['max_per_slot']} in one), {names[1]}"
            f" {jc[names[1]]['slots']} (at most {jc[names[1]]['max_per_slot']}); other"
            f" slot-mates in the two images {jc['slot_mates_differ']} (page numbers:"
            f" not controlled, not counted)")
    return "\n".join(lines + table(result))


def write_json(result, path):
    """Write the report to path through a temporary file beside it."""
    tmp = os.path.join(os.path.dirname(os.path.abspath(path)),
                       f".{os.path.basename(path)}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def image_names(value):
    names = tuple(value.split(","))
    if len(names) != 2 or not all(names) or names[0] == names[1] \
            or set(names) & set(FLAGS):
        raise argparse.ArgumentTypeError(
            f"'{value}' is not two different names A,B (none of {', '.join(FLAGS)})")
    return names


class Parser(argparse.ArgumentParser):
    """argparse whose errors are one line on stderr (exit status 2)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message}\n")


def parse_args(argv):
    p = Parser(prog="layout.py", description="Compare where two kernel images "
               "put their functions against 4 KiB pages (bench/layout.py).")
    p.add_argument("dir_a", metavar="DIR_A", help="kernel output directory (symbols, layout)")
    p.add_argument("dir_b", metavar="DIR_B", help="the other kernel output directory")
    p.add_argument("--hotpath", metavar="FILE", default=DEFAULT_HOTPATH,
                   help="regexes of the hot functions (default: hotpath.txt beside this script)")
    p.add_argument("--json", metavar="OUT",
                   help="write the full report as JSON to OUT (- for standard output)")
    p.add_argument("--quiet", action="store_true", help="no human-readable report")
    p.add_argument("--names", metavar="A,B", type=image_names, default=DEFAULT_NAMES,
                   help="labels of the two images (default: patched,baseline)")
    p.add_argument("--check", action="store_true",
                   help="exit 1 when a hot function crosses a page in one image only")
    return p.parse_args(argv)


def failure(e):
    """One line for an unreadable input or output."""
    if isinstance(e, OSError) and e.filename:
        return f"{e.filename}: {e.strerror}"
    return str(e)


def main(argv=None):
    args = parse_args(argv)
    try:
        patterns = load_patterns(args.hotpath)
        a, b = load(args.dir_a), load(args.dir_b)
    except (OSError, ValueError) as e:
        print(f"layout.py: {failure(e)}", file=sys.stderr)
        return 2
    result = compare(a, b, patterns, args.names,
                     load_series(args.dir_a) | load_series(args.dir_b))
    if not args.quiet:
        print(report(result))
    if args.json == "-":
        json.dump(result, sys.stdout, indent=1)
        print()
    elif args.json:
        try:
            write_json(result, args.json)
        except OSError as e:
            print(f"layout.py: {failure(e)}", file=sys.stderr)
            return 2
    return 1 if args.check and result["hot_crossing_differs"] else 0


if __name__ == "__main__":
    sys.exit(main())
