#!/usr/bin/python3
"""Find the kernel's reports in a console log.

    scan.py [--json] [--baseline] [--known FILE] CONSOLE.log

A report is a block the kernel prints when one of its checkers fires: KASAN,
UBSAN, lockdep (and PROVE_RCU, DEBUG_ATOMIC_SLEEP), WARNING:, BUG: (and
Oops, general protection fault, kernel BUG at, panic), DEBUG_LIST
corruption, an RCU stall, a soft or hard lockup, a hung task, a workqueue
lockup, a kmemleak "unreferenced object", a refcount_t warning, an oops
(die(): "int3: 0000 [#1]") and a panic (with the report before it). Each is
printed once, with its kind, its console line, its first frames and where
they are:

    report 1: kasan at line 812: BUG: KASAN: use-after-free in e1000_clean_rx_irq+0x1d2/0x6a0 [e1000]
      frames: e1000_clean_rx_irq [e1000] < e1000_clean [e1000] < __napi_poll
      code: e1000 (a module the lab patches)

"code" says whose code the trace runs through: the e1000 module or the weight
knob (what the lab patches), or upstream code alone. With --baseline (a
kernel built without the lab's patches) every report is upstream code.

With --known FILE (qemu/soak/known-upstream.txt), a report whose printed
frames are all upstream code and whose kind and frames match a line of FILE
is printed as "known upstream" and does not count for the exit status; each
line there names a report that the soak of the unpatched kernel raises too,
and docs/harness.md gives its trace. A report with a frame of the lab's code
among those printed is never known (kmemleak prints at most 16 frames, so
for a cut trace that is all the scanner can tell).

Messages that look alike but are not reports (the checkers' boot banners,
"page allocation failure" and FAULT_INJECTION lines that the soak's own
fault injection causes) are not reports. Exit status: 0 when no report (or
only known ones), 1 when any other, 2 on a usage error.
"""
import json
import re
import sys

# kind, pattern. The first pattern that matches a line decides its kind; the
# order puts the specific headers (KASAN's "BUG: KASAN:", lockdep's
# "WARNING: possible ...") before the generic ones.
HEADERS = [
    ("kasan", r"BUG: KASAN: |KASAN: .*(out-of-bounds|use-after-free|double-free|invalid-free|wild-memory-access|null-ptr-deref)"),
    ("ubsan", r"UBSAN: [a-z-]+ in "),
    ("lockdep", r"WARNING: (possible circular locking dependency|possible recursive locking|inconsistent lock state|"
                r"suspicious RCU usage|bad unlock balance|lock held when returning to user space|"
                r"held lock freed|possible irq lock inversion|[A-Z]+-safe -> [A-Z]+-unsafe lock order|"
                r"nested lock was not taken|lock held at task exit|still has locks held|"
                r"bad contention detected|lockdep)"),
    ("lockdep", r"BUG: (MAX_LOCKDEP|MAX_STACK_TRACE_ENTRIES|held lock freed|looking up invalid subclass|"
                r"key [0-9a-f]+ has not been registered|lock held when returning)"),
    ("lockdep", r"INFO: (trying to register non-static key|lockdep is turned off)"),
    ("atomic_sleep", r"BUG: (sleeping function called from invalid context|scheduling while atomic|"
                     r"using (__this_cpu|smp_processor_id)\S* in preemptible|"
                     r"Invalid wait context|workqueue leaked lock or atomic)"),
    ("soft_lockup", r"BUG: soft lockup - CPU#\d+ stuck"),
    ("hard_lockup", r"Watchdog detected hard LOCKUP|NMI watchdog: .*hard LOCKUP"),
    ("rcu_stall", r"rcu: INFO: rcu_\w+ (self-)?detected (expedited )?stalls?|INFO: rcu_\w+ (self-)?detected (expedited )?stalls?|"
                  r"rcu_\w+ kthread starved for|rcu: .* detected stall"),
    ("hung_task", r"INFO: task \S+ blocked for more than \d+ seconds"),
    ("workqueue_lockup", r"BUG: workqueue lockup"),
    ("kmemleak", r"unreferenced object 0x[0-9a-f]+ \(size \d+\)"),
    ("kmemleak_summary", r"kmemleak: \d+ new suspected memory leaks"),
    ("refcount", r"refcount_t: (underflow|overflow|saturated|addition on 0|decrement hit 0|"
                 r"addition overflow)"),
    ("list_corruption", r"list_(add|del) corruption|list_del corruption|list_add double add|"
                        r"BUG: (list|hlist)_\w+ corruption"),
    ("panic", r"Kernel panic - not syncing"),
    # die(): "int3: 0000 [#1] SMP KASAN", "invalid opcode: 0000 [#2] ..."
    ("bug", r"^[a-z0-9 ]+: [0-9a-f]{4} \[#\d+\]|"
            r"kernel BUG at |BUG: |Oops: |Oops\b|general protection fault|"
            r"Unable to handle kernel|"
            r"stack-protector: Kernel stack is corrupted|"
            r"stack guard page was hit|double fault: "),
    ("warning", r"WARNING: |------------\[ cut here \]------------"),
]
HEADER_RES = [(k, re.compile(p)) for k, p in HEADERS]

# Not reports, though they match a pattern above or look like one.
BENIGN = re.compile(
    r"page allocation failure|FAULT_INJECTION: forcing a failure|"
    r"kasan: KernelAddressSanitizer initialized|"
    r"Lock dependency validator|lockdep: fixing up alternatives|"
    r"kmemleak: Kernel memory leak detector|kmemleak: Automatic memory scanning|"
    r"RCU lockdep checking is enabled|"
    r"NMI watchdog: Perf NMI watchdog permanently disabled|"
    r"BUG: KASAN: this is a test"  # never printed by a real report
)

# A later header that belongs to the report an earlier one opened, within
# so many lines: (earlier kind, later kind) -> lines.
FOLLOWS = {
    ("refcount", "warning"): 12,
    ("list_corruption", "warning"): 12,
    ("list_corruption", "bug"): 12,
    ("warning", "warning"): 3,       # "cut here" then "WARNING: CPU:"
    ("warning", "refcount"): 3,      # "cut here" then "refcount_t: ..."
    ("warning", "list_corruption"): 3,
    ("warning", "bug"): 3,           # "cut here" then "kernel BUG at"
    ("warning", "ubsan"): 3,
    ("bug", "bug"): 12,              # BUG: ... NULL pointer, #PF, Oops:
    ("kasan", "bug"): 6,
    ("bug", "kasan"): 3,             # a GP fault, then KASAN's null-ptr-deref range
    ("rcu_stall", "rcu_stall"): 200,  # "kthread starved" inside a stall
}

TS = re.compile(r"^\s*(<\d+>)?\[\s*\d+\.\d+\]\s?")
FRAME = re.compile(r"^\s*(?:RIP: \d+:)?(?:\[<[0-9a-f]+>\] )?(\? )?([A-Za-z_][\w.]*)\+0x[0-9a-f]+/0x[0-9a-f]+(?: \[(\w+)\])?")
# Functions that are the lab's, outside the e1000 module: the weight knob
# (patches/0002).
OURS_CORE = re.compile(r"^(weight_(show|store)|netdev_(set_)?napi_weight\w*|change_napi_weight)$")
# Frames that say where a report was printed, not where it happened.
NOISE = re.compile(r"^(dump_stack\w*|show_stack|print_report|kasan_report|__kasan\w*|kasan_\w+|"
                   r"ubsan_\w+|__ubsan\w*|lockdep_\w+|__lock_acquire|lock_acquire|"
                   r"print_\w+|check_\w+|validate_chain|__warn|warn_slowpath\w*|report_bug|"
                   r"handle_bug|exc_invalid_op|asm_exc_invalid_op|refcount_warn_saturate|"
                   r"__list_(add|del)_valid|panic|__might_resched|__might_sleep|"
                   r"___might_sleep|rcu_dump_cpu_stacks|show_regs|__show_regs|"
                   r"watchdog_timer_fn|__hrtimer_run_queues|hrtimer_interrupt)$")


def clean(line):
    return TS.sub("", line.rstrip("\r\n"))


KMEMLEAK_PREFIX = re.compile(r"^kmemleak: ")
# The soak's kmemleak check (qemu/guest/soak/soak kmemleak) scans, rescans
# after a pause and then prints the objects still unreferenced, itself, after
# this line; the kernel's "N new suspected memory leaks" counts that came
# before it are then superseded (an object a later scan found referenced again
# was one of kmemleak's false positives).
KMEMLEAK_CONFIRMED = re.compile(r"soak: kmemleak: \d+ of \d+ suspected leaks still unreferenced")


def kind_of(text):
    if BENIGN.search(text):
        return None
    for kind, rx in HEADER_RES:
        if rx.search(text):
            return kind
    return None


def scan(lines, baseline=False):
    """The reports in LINES (a console, one string a line), in order."""
    reports = []
    last = None  # (kind, line index) of the last header
    for i, raw in enumerate(lines):
        text = clean(raw)
        kind = kind_of(text)
        if kind is None:
            continue
        # A panic belongs to the report before it (an oops in interrupt).
        limit = FOLLOWS.get((last[0], kind), -1) if last else -1
        if kind == "panic":
            limit = 300
        if reports and last is not None and i - last[1] <= limit:
            r = reports[-1]
            if "cut here" in r["header"]:
                # "cut here" tells no kind: the next header names it.
                r["kind"], r["header"], r["line"] = kind, text, i + 1
            last = (r["kind"], i)
            continue
        reports.append(new_report(kind, i, text))
        last = (kind, i)
    # kmemleak prints its objects (with kmemleak.verbose=1), then how many:
    # the count is a report only when no object was printed and the soak did
    # not confirm the suspects with a rescan.
    confirmed = any(KMEMLEAK_CONFIRMED.search(clean(l)) for l in lines)
    if confirmed or any(r["kind"] == "kmemleak" for r in reports):
        reports = [r for r in reports if r["kind"] != "kmemleak_summary"]
    for r in reports:
        r["frames"], r["modules"] = frames_after(lines, r["line"] - 1)
        r["code"] = attribute(r, baseline)
    return reports


def new_report(kind, i, text):
    return {"kind": kind, "line": i + 1, "header": text}


def frames_after(lines, start, limit=80):
    """Function names of the first call trace after START (and modules)."""
    frames, modules = [], set()
    for raw in lines[start + 1:start + 1 + limit]:
        text = clean(raw)
        if frames and kind_of(text) is not None:
            break
        m = FRAME.match(KMEMLEAK_PREFIX.sub("", text))
        if not m:
            continue
        name, mod = m.group(2), m.group(3)
        if mod:
            modules.add(mod)
        if m.group(1) or NOISE.match(name.split(".")[0]):
            continue
        frames.append(name + (" [%s]" % mod if mod else ""))
    return frames, sorted(modules)


# kmemleak records at most 16 frames (MAX_TRACE): a trace that long was
# cut, and its callers (a driver's poll, say) are not shown.
KMEMLEAK_MAX_TRACE = 16


def attribute(report, baseline):
    if baseline:
        return "upstream (baseline kernel: no lab patch in it)"
    text = report["header"] + " " + " ".join(report["frames"])
    names = [f.split(" ")[0] for f in report["frames"]]
    if "e1000" in report["modules"] or re.search(r"\be1000_|\[e1000\]|intel/e1000/", text):
        return "e1000 (a module the lab patches): check patches/ first"
    if any(OURS_CORE.match(n) for n in names):
        return "the weight knob (patches/0002): the lab's code"
    if report["kind"] == "kmemleak" and len(report["frames"]) >= KMEMLEAK_MAX_TRACE - 1:
        return ("upstream frames only, but the trace is cut at %d frames: "
                "its callers are not shown" % KMEMLEAK_MAX_TRACE)
    return "upstream (no frame in the lab's code)"


def read_known(path):
    """KIND<TAB>FRAMES-REGEX<TAB>WHERE lines (# comments): [(kind, re, where)]."""
    known = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 3:
                raise ValueError("%s:%d: want KIND<TAB>FRAMES-REGEX<TAB>WHERE" % (path, n))
            known.append((parts[0], re.compile(parts[1]), parts[2]))
    return known


def mark_known(reports, known):
    """Set report["known"] to the WHERE of the first matching entry, or None.
    Only reports in upstream code alone can be known."""
    for r in reports:
        r["known"] = None
        if not r["code"].startswith("upstream"):
            continue
        frames = " < ".join(r["frames"])
        for kind, rx, where in known:
            if r["kind"] == kind and rx.search(frames):
                r["known"] = where
                break
    return reports


def main(argv):
    args = argv[1:]
    as_json = "--json" in args
    baseline = "--baseline" in args
    args = [a for a in args if a not in ("--json", "--baseline")]
    known = []
    if len(args) >= 2 and args[0] == "--known":
        try:
            known = read_known(args[1])
        except (OSError, ValueError, re.error) as e:
            print("scan: %s" % e, file=sys.stderr)
            return 2
        args = args[2:]
    if len(args) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        with open(args[0], encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
    except OSError as e:
        print("scan: %s" % e, file=sys.stderr)
        return 2
    reports = mark_known(scan(lines, baseline), known)
    new = [r for r in reports if not r["known"]]
    if as_json:
        print(json.dumps(reports, indent=1))
    else:
        for n, r in enumerate(reports, 1):
            print("report %d: %s at line %d: %s" % (n, r["kind"], r["line"], r["header"]))
            if r["frames"]:
                print("  frames: " + " < ".join(r["frames"][:8]))
            print("  code: " + r["code"])
            if r["known"]:
                print("  known upstream: " + r["known"])
        print("%d reports" % len(reports))
        if known:
            print("%d of them known upstream, %d not" % (len(reports) - len(new), len(new)))
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
