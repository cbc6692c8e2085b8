"""Verdict records: every question a sweep answers, one record each.

bench/report.py picks the pairs or runs of each question and makes its
record here; verdicts.json holds them ({"schema": 2, "verdicts": [...]},
fields: bench/schema.py VERDICT_FIELDS), and every Markdown cell that
carries a verdict or an interval is rendered from the records as
verdicts.json holds them (read back from the file), never computed beside
them. The kinds (schema.KINDS):

* goal: the patched kernel at its defaults against the baseline, paired,
  against a target (report.GOALS), Holm-corrected over the goals;
* aa: make aa, the same kernel in both slots: met when the interval of the
  ratio may contain 1 after a Holm correction over the metrics judged;
* band: a NIC's packet or CPU share over its weight share, within
  schema.SHARE_BAND, one sample of runs (no pairing: measured in one run);
* router: a router setting's forwarding rate against the baseline, paired;
* pdr: a setting's zero-loss rate (PDR) against the baseline's, paired
  (the router's, and a zero-loss profile's other than the goals').
  router and pdr share one Holm correction, target ">= 1.0x": met when the
  patched setting is ahead, not_met when it is behind, else inconclusive;
* article: make article's comparisons between two settings of the patched
  image (bench/article.py), with fields of their own
  (schema.ARTICLE_FIELDS) and verdicts (schema.ARTICLE_VERDICTS:
  reproduced, refuted, contrary, inconclusive, not measured, incomplete).

decided(): REPS=auto's stop (report.py --decided); nothing judged is not
decided. aa_outcome(): the exit status of make aa's report.
"""
import json
import math
import os

import paired
import profiles
import schema

AA_TARGET = "contains 1.0 (A/A)"
AHEAD = ">= 1.0x"  # router, pdr: is the setting ahead of the baseline?
BAND_LOW, BAND_HIGH = 1 - schema.SHARE_BAND, 1 + schema.SHARE_BAND
BAND_TARGET = "within +-%s (%.2f-%.2fx)" % (schema.percent(schema.SHARE_BAND),
                                            BAND_LOW, BAND_HIGH)


def record(**kw):
    """One verdict record: every field of schema.VERDICT_FIELDS, in order
    (nic, settings, p_holm, aim, note and excluded may be left out), none
    else."""
    extra = set(kw) - set(schema.VERDICT_FIELDS)
    if extra:
        raise KeyError("not a verdict field: %s" % ", ".join(sorted(extra)))
    kw.setdefault("nic", "")
    kw.setdefault("settings", {})
    kw.setdefault("p_holm", None)
    kw.setdefault("aim", None)
    kw.setdefault("note", "")
    kw.setdefault("excluded", [])
    assert kw["kind"] in schema.KINDS and kw["verdict"] in schema.VERDICTS, kw
    return {k: kw[k] for k in schema.VERDICT_FIELDS}


def article_record(**kw):
    """One record of kind article: every field of schema.ARTICLE_FIELDS but
    kind, in order (note and excluded may be left out), none else."""
    kw.setdefault("kind", schema.ARTICLE_KIND)
    kw.setdefault("note", "")
    kw.setdefault("excluded", [])
    if set(kw) != set(schema.ARTICLE_FIELDS):
        raise KeyError("not the article record's fields: %s" % ", ".join(
            sorted(set(kw) ^ set(schema.ARTICLE_FIELDS))))
    assert kw["kind"] == schema.ARTICLE_KIND and kw["verdict"] in schema.ARTICLE_VERDICTS, kw
    return {k: kw[k] for k in schema.ARTICLE_FIELDS}


def finite(v):
    return None if v is None or math.isinf(v) else v


def interval(ratio, lo, hi):
    """(ratio, ci_low, ci_high) as a record holds them: an unbounded
    interval (fewer than MIN_PAIRS) has no ends."""
    lo, hi = finite(lo), finite(hi)
    if hi is None:
        lo = None
    return finite(ratio), lo, hi


def bounded(r):
    return r["ci_low"] is not None and r["ci_high"] is not None


def unbounded(r):
    """Pairs (or runs) but too few of them for a 95 % interval."""
    return not bounded(r) and r["n"] > 0 and not r["note"]


def from_judged(spec, j, **kw):
    """The record of a paired.judge row j for spec (the dict judged)."""
    ratio, lo, hi = interval(j["ratio"], j["ci_low"], j["ci_high"])
    verdict = j["verdict"]
    if j["n_pairs"] == 0 and verdict == "inconclusive":
        verdict = "not_judged"
    return record(kind=spec["kind_of"], question=spec["label"], profile=spec["profile"],
                  nic=spec.get("nic", ""), metric=spec["metric"], config=spec["config"],
                  settings=spec.get("settings", {}), estimator=spec.get("kind", "ratio"),
                  ratio=ratio, ci_low=lo, ci_high=hi, n=j["n_pairs"], p_holm=j["p_holm"],
                  target=spec["target"], verdict=verdict, note=j["_note"],
                  excluded=spec.get("excluded", []), **kw)


def judge(specs, complete=True):
    """Records of paired questions (dicts as paired.judge takes them, plus
    kind_of, label and optionally nic, settings, excluded), Holm-corrected
    together."""
    return [from_judged(s, j) for s, j in zip(specs, paired.judge(specs, complete))]


def band(kind_of, question, profile, nic, metric, config, settings, values, complete=True,
         excluded=()):
    """A share over its weight share, one value per run: the Hodges-Lehmann
    centre of their logs with its exact interval (paired.ratio_interval),
    within BAND_LOW-BAND_HIGH (paired.band_verdict); None when no run has
    a value."""
    iv = paired.ratio_interval(values)
    if iv is None:
        return None
    if paired.has_interval(iv):
        ratio, lo, hi = iv[:3]
    else:
        ratio, lo, hi = iv[0], None, None
    verdict = paired.band_verdict(iv, BAND_LOW, BAND_HIGH) if complete else "incomplete"
    return record(kind=kind_of, question=question, profile=profile, nic=nic, metric=metric,
                  config=config, settings=settings, estimator="runs", ratio=ratio,
                  ci_low=lo, ci_high=hi, n=iv[3], target=BAND_TARGET, verdict=verdict,
                  excluded=list(excluded))


def both(a, b):
    """One verdict for two NICs' records: met when both are, not_met when
    either is, else the weaker of the two."""
    va, vb = (r["verdict"] if r else "inconclusive" for r in (a, b))
    if "not_met" in (va, vb):
        return "not_met"
    if va == vb:
        return va
    return "inconclusive"


# ---- verdicts.json ----

def write(d, records):
    data = {"schema": schema.VERDICTS_SCHEMA, "verdicts": records}
    tmp = os.path.join(d, ".verdicts.json.tmp")
    with open(tmp, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    os.replace(tmp, os.path.join(d, "verdicts.json"))


def load(path):
    """The records of a verdicts.json of either schema; schema 1's objects
    (a bare list, goals or A/A) come back as schema 2 records."""
    with open(path) as f:
        data = json.load(f)
    if isinstance(data, dict):
        if data.get("schema") != schema.VERDICTS_SCHEMA:
            raise ValueError("%s: verdicts schema %s, not %d" % (
                path, data.get("schema"), schema.VERDICTS_SCHEMA))
        return data["verdicts"]
    return [record(kind="aa" if v["target"] == AA_TARGET else "goal", question=v["metric"],
                   profile=v["profile"], metric=v["metric"], config=v["config"],
                   estimator="", ratio=v["ratio"], ci_low=v["ci_low"], ci_high=v["ci_high"],
                   n=v["n_pairs"], p_holm=v["p_holm"], target=v["target"],
                   verdict=v["verdict"]) for v in data]


def cost_of(r):
    """A record's COST: its settings', else its config's ", cost N" (the
    A/A's), else 0 (sweeps before COST)."""
    if "cost" in r["settings"]:
        return str(r["settings"]["cost"])
    return r["config"].rsplit(", cost ", 1)[1] if ", cost " in r["config"] else "0"


# ---- what the sweep decided ----

def decided(records):
    """REPS=auto may stop: something was judged, and every record judged has
    met or not_met. An empty list is not decided (a sweep whose profiles
    have no question answers nothing by stopping early)."""
    judged = [r for r in records if r["verdict"] != "not_judged"]
    return bool(judged) and paired.decided(judged)


def resolution(r):
    """An A/A record's resolution: its 95 % interval's half-width in % of
    the ratio, or None without an interval (or with a zero lower end)."""
    if not bounded(r) or r["ci_low"] <= 0:
        return None
    return 50.0 * (r["ci_high"] - r["ci_low"]) / r["ratio"]


def aa_decided(records):
    """make aa's REPS=auto stop: every A/A record has an interval and
    every one with an aim is within it. The rule looks only at the
    intervals' widths, never at where they lie: a width does not move when
    every log ratio shifts alike (it is the spread's), and for symmetric
    data the spread tells next to nothing of the centre (for normal data,
    nothing: a sample's spread and mean are independent), so stopping on
    it leaves each interval's 95 % and the Holm test as they are; stopping
    on a verdict would not, each look being one more chance of a false
    alarm."""
    aa = [r for r in records if r["kind"] == "aa"]
    if not aa:
        return False
    for r in aa:
        w = resolution(r)
        if r["p_holm"] is None or w is None or (r["aim"] and w > r["aim"]):
            return False
    return True


def aa_outcome(records):
    """make aa's exit status and its one line: 0 when at least one metric was
    judged and none differs after Holm; 3 when one differs (the method is
    broken); 4 when nothing was judged (no metric of the A/A had an
    interval: a profile the A/A does not judge, too few pairs, every run
    host-limited, or an incomplete sweep): an A/A that judged nothing
    has shown nothing and must not pass."""
    aa = [r for r in records if r["kind"] == "aa"]
    broken = [r for r in aa if r["verdict"] == "not_met"]
    if broken:
        return 3, ("report: A/A FAILED: a comparison differs after the Holm correction "
                   "between two kernels of the same code (%s)" %
                   ", ".join(r["question"] for r in broken))
    if not any(r["verdict"] == "met" for r in aa):
        why = ("; ".join("%s: %s" % (r["question"], r["note"] or (
            "%d pairs" % r["n"] if r["verdict"] != "incomplete" else "incomplete"))
                         for r in aa)
               or "none of its profiles has a metric the A/A judges")
        return 4, "report: A/A FAILED: nothing judged (%s)" % why
    return 0, ""


# ---- Markdown, from the records ----

def ci_text(r):
    if unbounded(r):
        return "unbounded (< %d pairs)" % paired.MIN_PAIRS
    if not bounded(r):
        return "-"
    return "%.3f - %.3f" % (r["ci_low"], r["ci_high"])


def x_cell(r):
    return "%.3fx" % r["ratio"] if r["ratio"] is not None else "-"


def p_cell(r):
    return "%.3g" % r["p_holm"] if r["p_holm"] is not None else "-"


def goal_verdict(r):
    """A goal's verdict as the tables have always written it: a goal with
    no pairs is inconclusive there (not_judged in the record)."""
    return "inconclusive" if r["verdict"] == "not_judged" else r["verdict"]


def verdict_table(records, meta):
    """summary.md's goals: the records of kind goal."""
    goals = [r for r in records if r["kind"] == "goal"]
    if not goals:
        return []
    out = ["## Verdicts: patched at its defaults vs baseline, paired (%s)" % goals[0]["config"],
           "",
           "Each pair is one patched and one baseline run of the same profile, back to "
           "back in random order, the other guest paused. Ratio: patched / baseline "
           "(Hodges-Lehmann over the pairs' log ratios, or the ratio of means for counts "
           "that can be 0), its 95 % interval, and the one-sided p of the goal "
           "Holm-corrected over the goals (bench/paired.py). `met`: the whole interval is "
           "beyond the target; `not_met`: the whole interval is on the wrong side; "
           "otherwise `inconclusive`.", "",
           "| goal | pairs | ratio | 95 % CI | p (Holm) | target | verdict |",
           "|---|---|---|---|---|---|---|"]
    for r in goals:
        note = " (%s)" % r["note"] if r["note"] else ""
        out.append("| %s | %d | %s | %s | %s | %s | **%s**%s |" % (
            r["question"], r["n"], x_cell(r), ci_text(r), p_cell(r), r["target"],
            goal_verdict(r), note))
    src = meta.get("udp1470_rate_source", "given")
    if any(profiles.PROFILES[r["profile"]].udp1470_rate for r in goals):
        if src.startswith("half"):
            out += ["", "The UDP 1470 B goals are measured at %s, half the baseline's median "
                    "saturation rate (%s Mbit/s received when offered %s)." % (
                        meta["udp1470_rate"], meta["saturation"]["baseline_median_mbps"],
                        meta["saturation"]["offered"])]
        else:
            out += ["", "The UDP 1470 B goals are stated at half the baseline's saturation "
                    "rate; this sweep was given UDP1470_RATE=%s instead." %
                    meta.get("udp1470_rate", "?")]
    return out + [""]


def resolution_table(records, meta=None):
    """summary.md's A/A: the records of kind aa."""
    rrows = [r for r in records if r["kind"] == "aa"]
    if not rrows:
        return []
    broken = [r for r in rrows if r["verdict"] == "not_met"]
    pad = (meta or {}).get("pad") or 0
    head = ("## Layout A/A: the baseline against itself built with %d bytes of text linked "
            "first (layout %s)" % (pad, (meta or {}).get("layout", "?")) if pad else
            "## A/A: the lab's resolution (baseline kernel in both slots)")
    out = [head, "",
           "Every metric that a verdict or comparison uses, judged at each COST swept. The "
           "intervals are 95 %% each; an A/A fails (**NO**) only where the two-sided p of "
           "\"the ratio is 1\" stays below 0.05 after a Holm correction over the %d metrics "
           "judged. An interval that excludes 1 without that is shown, and counts as chance."
           % sum(1 for r in rrows if r["p_holm"] is not None), ""]
    if broken:
        out += ["**THE METHOD IS BROKEN: %d A/A comparison(s) differ after the Holm "
                "correction (%s). Two kernels of the same code differ here; no verdict of this "
                "lab can be trusted until that is explained.**" % (
                    len(broken), ", ".join(r["question"] for r in broken)), ""]
    out += ["| metric | pairs | ratio | 95 % CI | p (Holm) | resolution (CI half-width) | aim | "
            "same |", "|---|---|---|---|---|---|---|---|"]
    for r in rrows:
        hw, aim, w = "-", "-", resolution(r)
        if w is not None:
            hw = "+-%.1f %%" % w
            if r["aim"]:
                aim = "<= %d %%: %s" % (r["aim"], "reached" if w <= r["aim"] else "**not reached**")
        elif r["aim"]:
            aim = "<= %d %%: no interval" % r["aim"]
        excl = bounded(r) and not r["ci_low"] <= 1.0 <= r["ci_high"]
        out.append("| %s | %d | %s | %s | %s | %s | %s | %s |" % (
            r["question"], r["n"], x_cell(r), ci_text(r), p_cell(r), hw, aim,
            {"met": "yes (the interval excludes 1: chance after Holm)" if excl else "yes",
             "not_met": "**NO**"}.get(r["verdict"], r["verdict"])))
    return out + [""]


def band_cell(r):
    """A share record's cell: centre [95 % interval], or "(no interval)"
    below MIN_PAIRS runs; "-" without a record."""
    if r is None:
        return "-"
    if not bounded(r):
        return "%.2f (no interval)" % r["ratio"]
    return "%.2f [%.2f-%.2f]" % (r["ratio"], r["ci_low"], r["ci_high"])


def vs_cell(r):
    """A router or pdr record's cell: ratio [95 % interval] (pairs)."""
    if r is None or r["ratio"] is None:
        return "-"
    if not bounded(r):
        return "%.2fx (%d pairs)" % (r["ratio"], r["n"])
    return "%.2fx [%.2f-%.2f] (%d pairs)" % (r["ratio"], r["ci_low"], r["ci_high"], r["n"])
