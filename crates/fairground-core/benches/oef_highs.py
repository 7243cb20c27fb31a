"""oef-coop's LP solved by HiGHS (highspy), for the side-by-side benchmark `cargo xtask bench-oef`.

Reads one instance on standard input, as the example `oef_vs_highs` writes it:
  {"speedup": [[s_ij]], "count": [n_j], "weight": [w_i], "mode": "full" | "lazy"}
(uncapped tenants only, so every ordered pair carries an envy-freeness row), and prints one JSON
line: {"seconds": build + solve time, "objective": sum_i u_i, "ef_rows": EF rows in the last LP}.

The program is the one `oef_coop.rs` documents:
  maximise   sum_ij s_ij g_ij
  subject to sum_i g_ij <= n_j                        capacity
             sum_j s_ij g_ij >= u_i(e_i)              sharing incentive, e_i = n w_i / W
             u_i(g_i) / w_i - u_i(g_k) / w_k >= 0     envy-freeness, every ordered pair
g_ij is measured in tenant i's equal split of type j (as our LP layer does), so tolerances are
relative to what a tenant is entitled to.

"full" builds every row. "lazy" solves without the envy-freeness rows, then adds, for every
tenant that envies someone by more than 1e-8 (relative to the larger value compared), its most
violated row, all in one batch, and re-solves from the previous basis (HiGHS keeps it across
addRows), until no row is violated: the batch rule issue 14 describes.
"""

import json
import sys
import time

import highspy
import numpy as np

VIOLATION = 1e-8


def main():
    data = json.load(sys.stdin)
    s = np.array(data["speedup"], dtype=float)
    n_count = np.array(data["count"], dtype=float)
    w = np.array(data["weight"], dtype=float)
    mode = data["mode"]
    start = time.perf_counter()
    tenants, types = s.shape
    share = np.outer(w / w.sum(), n_count)  # e_ij, the equal split
    target = (s * share).sum(axis=1)  # u_i(e_i)

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("primal_feasibility_tolerance", 1e-9)
    h.setOptionValue("dual_feasibility_tolerance", 1e-9)
    inf = highspy.kHighsInf
    # Variables y_ij = g_ij / e_ij, column index i * types + j; maximise sum s_ij e_ij y_ij.
    cost = (s * share).ravel()
    h.addVars(tenants * types, np.zeros(tenants * types), np.full(tenants * types, inf))
    h.changeColsCost(tenants * types, np.arange(tenants * types, dtype=np.int32), cost)
    h.changeObjectiveSense(highspy.ObjSense.kMaximize)

    def add_rows(rows):
        """rows: list of (lower, upper, indices, values)."""
        if not rows:
            return
        starts, idx, vals = [], [], []
        for _, _, ri, rv in rows:
            starts.append(len(idx))
            idx.extend(ri)
            vals.extend(rv)
        h.addRows(
            len(rows),
            np.array([r[0] for r in rows]),
            np.array([r[1] for r in rows]),
            len(idx),
            np.array(starts, dtype=np.int32),
            np.array(idx, dtype=np.int32),
            np.array(vals),
        )

    own_cols = [list(range(i * types, (i + 1) * types)) for i in range(tenants)]
    rows = []
    for j in range(types):
        rows.append((-inf, 1.0, [i * types + j for i in range(tenants)], list(share[:, j] / n_count[j])))
    for i in range(tenants):
        rows.append((1.0, inf, own_cols[i], list(s[i] * share[i] / target[i])))
    add_rows(rows)

    def ef_row(i, k):
        # (u_i(g_i)/w_i - u_i(g_k)/w_k) / (u_i(e_i)/w_i) >= 0
        scale = w[i] / target[i]
        vals = list(s[i] * share[i] / w[i] * scale) + list(-s[i] * share[k] / w[k] * scale)
        return (0.0, inf, own_cols[i] + own_cols[k], vals)

    ef_rows = 0
    if mode == "full":
        add_rows([ef_row(i, k) for i in range(tenants) for k in range(tenants) if i != k])
        ef_rows = tenants * (tenants - 1)
        h.run()
    else:
        added = np.zeros((tenants, tenants), dtype=bool)
        np.fill_diagonal(added, True)
        while True:
            h.run()
            y = np.array(h.getSolution().col_value).reshape(tenants, types)
            g = y * share
            values = s @ g.T  # values[i, k] = u_i(g_k)
            own = np.diag(values) / w
            theirs = values / w[None, :]
            larger = np.maximum(np.abs(own)[:, None], np.abs(theirs))
            envy = np.where(larger > 0, (theirs - own[:, None]) / np.where(larger > 0, larger, 1), 0)
            envy[added] = -np.inf
            worst = envy.argmax(axis=1)
            batch = [(i, int(worst[i])) for i in range(tenants) if envy[i, worst[i]] > VIOLATION]
            if not batch:
                break
            for i, k in batch:
                added[i, k] = True
            add_rows([ef_row(i, k) for i, k in batch])
            ef_rows += len(batch)
    status = h.getModelStatus()
    if status != highspy.HighsModelStatus.kOptimal:
        print(json.dumps({"error": h.modelStatusToString(status)}))
        return 1
    y = np.array(h.getSolution().col_value)
    objective = float((cost * y).sum())
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "objective": objective, "ef_rows": ef_rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
