"""Independent expected values for oef-coop on weighted scenarios, solved by HiGHS.

Not part of CI: run it by hand to regenerate the committed data file
crates/fairground-core/tests/data/oef_coop_weighted.json, which the Rust test
`weighted_envy.rs` reads. Needs numpy and scipy (HiGHS ships in scipy) in an environment kept
outside the repository, e.g.

    python3 -m venv /tmp/fg-venv && /tmp/fg-venv/bin/pip install numpy scipy
    /tmp/fg-venv/bin/python tests/reference/oef_coop_highs.py

The model is written here from README.md's statement of OEF-cooperative, not from the Rust code:
maximise sum_i u_i(g_i) subject to capacity, caps, sharing incentive against the capped weighted
equal split, and weighted envy-freeness u_i(g_i)/w_i >= u_i(g_k)/w_k for every pair the README's
cap rule requires (all pairs when nobody is capped), with the full set of rows up front.
"""

import json
import pathlib

import numpy as np
from scipy.optimize import linprog

OUT = pathlib.Path(__file__).resolve().parents[2] / "crates/fairground-core/tests/data/oef_coop_weighted.json"


def required(i, k, w, caps, total):
    """README: i must not envy k iff (w_i / w_k) * H_k <= C_i, H_k = min(d_k, N), C_i = d_i if
    d_i < N else unbounded."""
    c_i = caps[i] if caps[i] is not None and caps[i] < total else None
    h_k = min(caps[k], total) if caps[k] is not None else total
    return c_i is None or w[i] / w[k] * h_k <= c_i * (1 + 1e-12)


def solve(throughput, w, n, caps):
    t = np.array(throughput, dtype=float)
    speedup = t / t.min(axis=1, keepdims=True)  # normalised to each tenant's slowest type
    tenants, types = speedup.shape
    total, weight_sum = float(sum(n)), float(sum(w))

    def var(i, j):
        return i * types + j

    rows, rhs = [], []
    for j in range(types):
        r = np.zeros(tenants * types)
        r[[var(i, j) for i in range(tenants)]] = 1
        rows.append(r)
        rhs.append(n[j])
    for i in range(tenants):
        mine = [var(i, j) for j in range(types)]
        if caps[i] is not None:
            r = np.zeros(tenants * types)
            r[mine] = 1
            rows.append(r)
            rhs.append(caps[i])
        e = np.array(n, dtype=float) * w[i] / weight_sum
        if caps[i] is not None and e.sum() > caps[i]:
            e *= caps[i] / e.sum()
        r = np.zeros(tenants * types)
        r[mine] = -speedup[i]
        rows.append(r)
        rhs.append(-speedup[i] @ e)
        for k in range(tenants):
            if k != i and required(i, k, w, caps, total):
                r = np.zeros(tenants * types)
                r[mine] -= speedup[i] / w[i]
                r[[var(k, j) for j in range(types)]] += speedup[i] / w[k]
                rows.append(r)
                rhs.append(0.0)
    res = linprog(-speedup.flatten(), A_ub=np.array(rows), b_ub=np.array(rhs), bounds=(0, None), method="highs")
    assert res.status == 0, res.message
    return -res.fun


def main():
    rng = np.random.default_rng(20261123)
    cases = []
    for case in range(24):
        tenants = int(rng.integers(2, 13))
        types = int(rng.integers(2, 5))
        n = [int(x) for x in rng.integers(1, 9, size=types)]
        throughput = np.round(rng.uniform(0.5, 8.0, size=(tenants, types)), 3).tolist()
        w = [float(rng.choice([1, 1, 2, 3])) for _ in range(tenants)]
        # The first 16 cases have no caps (plain weighted EF); the rest cap about a third of the
        # tenants, some below and some above their equal split.
        caps = [None] * tenants
        if case >= 16:
            caps = [float(np.round(rng.uniform(0.5, sum(n) / 2), 2)) if rng.random() < 0.35 else None for _ in range(tenants)]
        scenario = {
            "version": 1,
            "gpu_types": [{"name": f"t{j}", "count": n[j]} for j in range(types)],
            "tenants": [
                {"name": f"u{i}", "throughput": throughput[i], "weight": w[i]}
                | ({"max_gpus": caps[i]} if caps[i] is not None else {})
                for i in range(tenants)
            ],
        }
        cases.append({"scenario": scenario, "efficiency": solve(throughput, w, n, caps)})
    source = "tests/reference/oef_coop_highs.py (scipy.optimize.linprog, method='highs'), full EF rows"
    lines = ",\n  ".join(json.dumps(c) for c in cases)
    OUT.write_text(f'{{"source": {json.dumps(source)},\n "cases": [\n  {lines}\n ]}}\n')
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
