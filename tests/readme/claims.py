"""Numbers README.md and the guides in docs/ quote in prose, each recomputed
from the committed file it comes from (results/, written only by
results/regenerate.sh). A claim is the exact text as a document prints it,
the documents that must print it, and a function computing that text from the
files: a regenerated result that changes a quoted number fails here until the
prose follows. Used by tests/readme/run.py."""

import csv
import json
import math
import os
import statistics


def _rows(root, rel):
    with open(os.path.join(root, rel), newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _json(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        return json.load(f)


def _thousands(n):
    return f"{n:,}"


def jumps_of_default_run(root):
    rows = _rows(root, "results/geometric150/owners.csv")
    return f"the {_thousands(sum(int(r['jumps']) for r in rows))} jumps of all {len(rows)} paths"


def far_members(root):
    sizes = {}
    for r in _rows(root, "results/geometric150-collude/coalition.csv"):
        if r["coalition"] == "far:min-d=4":
            sizes[r["owner"]] = int(r["size"])
    s = list(sizes.values())
    return (
        f"the {len(s)} owners' coalitions of members at ≥ 4 hops: "
        f"{statistics.mean(s):.1f} members on average, median {statistics.median(s):g}"
    )


def independent_gains(root):
    """Median gain over owners of the ε-aware estimators (inverse-variance
    weights, MLE, Pitman) under independent noise, as `lo–hi×` per coalition."""
    by = {}
    for r in _rows(root, "results/geometric150-collude/coalition.csv"):
        if r["mechanism"] == "independent" and r["estimator"] in ("ivw", "mle", "pitman"):
            by.setdefault((r["coalition"], r["estimator"]), []).append(float(r["gain"]))

    def span(coalition):
        meds = [statistics.median(v) for (c, _), v in by.items() if c == coalition]
        return f"{math.floor(min(meds))}–{math.ceil(max(meds))}×"

    return (
        f"gain {span('nearest:m=5')} (5 nearest), {span('sybil:m=20,d=6')} (20 sybil accounts of "
        f"one distant adversary) and {span('far:min-d=4')}"
    )


def fig7_owner_range(root):
    rows = [r for r in _rows(root, "results/thesis/fig7/owners.csv") if r["owner"] == "0"]
    lo = min(float(r["eps_lo"]) for r in rows)
    hi = max(float(r["eps_hi"]) for r in rows)
    return f"ε ∈ [{lo:.3f}, {hi:.2f}]"


def fig7_jumps(root):
    rows = _rows(root, "results/thesis/fig7/owners.csv")
    j = [r["jumps"] for r in rows if r["owner"] == "0"]
    return f"its two replicates' paths jump {j[0]} and {j[1]} times"


def utility_decay_b2(root):
    """MSE over all recipients at the fastest decay (b = 2) on Facebook, per
    family of schemes: raw answers (utility_values_facebook) and projected
    bits (utility_bits_facebook), as `lo–hi` over value models and schemes."""
    raw = _rows(root, "results/thesis/utility_values_facebook.csv")
    bits = _rows(root, "results/thesis/utility_bits_facebook.csv")

    def span(rows, schemes):
        v = [
            float(r["value"])
            for r in rows
            if r["b"] == "2" and r["metric"] == "utility_mse_all" and r["mechanism"] in schemes
        ]
        lo, hi = f"{min(v):.3g}", f"{max(v):.3g}"
        return lo if lo == hi else f"{lo}–{hi}"

    plain = ("correlated", "independent")
    shrink = ("correlated-shrinkage", "independent-shrinkage")
    debiased = ("correlated-debiased", "independent-debiased")
    return (
        f"the raw plain means reach MSE {span(raw, plain)} and the debiased means "
        f"{span(bits, debiased)}, shrinkage\n{span(raw, shrink)} on raw answers and "
        f"{span(bits, shrink)} on projected bits, the projected plain means {span(bits, plain)}"
    )


def access_rights_bits(root):
    """MSE over all recipients on Facebook with i.i.d. projected bits
    (`bits:0.3`, b = 1): access rights, the correlated plain mean and the
    independent debiased mean, each ± its standard error over the replicates."""
    rows = _rows(root, "results/thesis/utility_bits_facebook.csv")

    def at(scheme, metric):
        (v,) = [
            float(r["value"])
            for r in rows
            if r["values"] == "bits:0.3" and r["b"] == "1" and r["mechanism"] == scheme and r["metric"] == metric
        ]
        return v

    def mse(scheme, se=True):
        text = f"{at(scheme, 'utility_mse_all'):#.3g}"
        return f"{text} ± {at(scheme, 'utility_mse_all_se'):.1g}" if se else text

    return (
        f"access {mse('access', se=False)}, correlated {mse('correlated')}, independent-debiased\n"
        f"{mse('independent-debiased')}"
    )


# (documents that quote it, file the text depends on, function giving the text)
CLAIMS = [
    (("README.md", "docs/simulate.md"), "results/geometric150/owners.csv", jumps_of_default_run),
    (("docs/collude.md",), "results/geometric150-collude/coalition.csv", far_members),
    (("docs/collude.md",), "results/geometric150-collude/coalition.csv", independent_gains),
    (("docs/thesis.md",), "results/thesis/fig7/owners.csv", fig7_owner_range),
    (("docs/thesis.md",), "results/thesis/fig7/owners.csv", fig7_jumps),
    (("docs/utility.md",), "results/thesis/utility_bits_facebook.csv", utility_decay_b2),
    (("docs/utility.md",), "results/thesis/utility_bits_facebook.csv", access_rights_bits),
]


def check(texts, root, have_facebook):
    """(failures, number checked); `texts` maps a document's path to its text."""
    failures = []
    n = 0
    for docs, rel, fn in CLAIMS:
        if not os.path.exists(os.path.join(root, rel)):
            failures.append(f"claim {fn.__name__}: {rel} is missing")
            continue
        text = fn(root)
        for doc in docs:
            n += 1
            if text not in texts.get(doc, ""):
                failures.append(f"claim {fn.__name__}: {doc} does not say '{text}' (computed from {rel})")
    return failures, n
