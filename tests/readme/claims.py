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


def _two_schools(root, run):
    rows = _rows(root, f"results/two-schools/{run}/two_schools.csv")
    return {r["statistic"]: r for r in rows if r["distance"] == ""}


def gossip_ego_exact_at_local_level(root):
    """Ego 1912 (issue 36): the hops at which the median pair's exact loss is
    the local level α/(2σ²) (no amplification), and the observers' ranks."""
    local = _json(root, "results/two-schools/ego1912/summary.json")["local_level"]
    ranks = [r["rank"] for r in _json(root, "results/two-schools/ego1912/summary.json")["ranks"]]
    rows = _rows(root, "results/two-schools/ego1912/privacy_by_distance.csv")
    full = [int(r["distance"]) for r in rows if float(r["rdp_exact_median"]) >= local * (1 - 1e-9)]
    share = sum(1 for x in ranks if x >= 739) / len(ranks)
    return (
        f"the exact loss of the median pair is the whole local level ({local:.3f}) at hops "
        f"{min(full)}–{max(full)}; {share:.0%} of the {len(ranks)} observers see a view of rank ≥ 739 of 743"
    )


def gossip_ego_mse(root):
    """Ego 1912: MSE of the network mean, gossip against diffusion matched per hop
    (median pair)."""
    m = _two_schools(root, "ego1912")["median"]
    f = lambda k: f"{float(m[k]):.2e}"
    return (
        f"MSE {f('mse_gossip')} for gossip (theory {f('mse_gossip_theory')}), "
        f"{f('mse_diffusion_gaussian')} for diffusion's Gaussian mechanism at the same μ and "
        f"{f('mse_diffusion_laplace')} for its Laplace mechanism matched on the whole privacy profile"
    )


def gossip_facebook_paper_vs_exact(root):
    """The full graph: the median pair's code accounting and exact loss at hop 1 and
    at the deepest hop, in units of the local level."""
    local = _json(root, "results/two-schools/facebook/summary.json")["local_level"]
    rows = _rows(root, "results/two-schools/facebook/privacy_by_distance.csv")
    rows = [r for r in rows if int(r["distance"]) > 0]
    a, b = rows[0], rows[-1]
    u = lambda r, k: float(r[k]) / local
    return (
        f"the median pair's accounting (8) is {u(a, 'rdp_paper_median'):.2f} of the local level at hop 1 "
        f"and {u(b, 'rdp_paper_median'):.2f} at hop {b['distance']}, its exact loss "
        f"{u(a, 'rdp_exact_median'):.2f} and {u(b, 'rdp_exact_median'):.2f}"
    )


def gossip_coalitions(root):
    """Ego 1912, nearest-m coalitions of 64 owners: the mean exact loss of the pooled
    views against diffusion's bound, the largest member's own loss."""
    rows = _rows(root, "results/two-schools/ego1912-coalitions/coalition.csv")
    out = []
    for spec in sorted({r["coalition"] for r in rows}, key=lambda c: int(c.split("=")[1])):
        rs = [r for r in rows if r["coalition"] == spec and r["rdp_coalition"]]
        c = statistics.mean(float(r["rdp_coalition"]) for r in rs)
        m = statistics.mean(float(r["rdp_max_member"]) for r in rs)
        out.append(f"{spec.split('=')[1]} nearest: {c:.3f} against {m:.3f}")
    return "coalition loss (RDP at α = 2) " + ", ".join(out)


# (documents that quote it, file the text depends on, function giving the text)
CLAIMS = [
    (("README.md", "docs/simulate.md"), "results/geometric150/owners.csv", jumps_of_default_run),
    (("docs/collude.md",), "results/geometric150-collude/coalition.csv", far_members),
    (("docs/collude.md",), "results/geometric150-collude/coalition.csv", independent_gains),
    (("docs/thesis.md",), "results/thesis/fig7/owners.csv", fig7_owner_range),
    (("docs/thesis.md",), "results/thesis/fig7/owners.csv", fig7_jumps),
    (("docs/utility.md",), "results/thesis/utility_bits_facebook.csv", utility_decay_b2),
    (("docs/utility.md",), "results/thesis/utility_bits_facebook.csv", access_rights_bits),
    (("README.md",), "results/two-schools/ego1912/privacy_by_distance.csv", gossip_ego_exact_at_local_level),
    (("README.md",), "results/two-schools/ego1912/two_schools.csv", gossip_ego_mse),
    (("docs/gossip.md",), "results/two-schools/facebook/privacy_by_distance.csv", gossip_facebook_paper_vs_exact),
    (("docs/gossip.md",), "results/two-schools/ego1912-coalitions/coalition.csv", gossip_coalitions),
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
        # Markdown reflows lines: compare with runs of whitespace as one space.
        flat = " ".join(text.split())
        for doc in docs:
            n += 1
            if flat not in " ".join(texts.get(doc, "").split()):
                failures.append(f"claim {fn.__name__}: {doc} does not say '{text}' (computed from {rel})")
    return failures, n
