//! Gavel's LAS over classes of identical jobs whose numbers change, re-solved warm.
//!
//! A simulator recomputes LAS every time jobs arrive or finish: hundreds of times per run, each
//! a fresh LP with one party per class. Between two recomputations only a few classes change
//! their job counts, so this keeps one LP over every class the workload can have, with the
//! counts as fixed variables, and re-solves it from the last basis after changing them (a few
//! dual simplex pivots instead of a solve from scratch: 0.04 ms against 0.8 ms at 70 classes).
//!
//! The LP is [`super::GavelLas`]'s, for parties that are classes (weight m_c, cap m_c s_c),
//! with z = 1/T:
//!
//! ```text
//! maximise z  s.t.  sum_j T_cj g_cj / (m_c prop_c) >= z,  sum_c g_cj <= n_j,
//!                   sum_j g_cj <= m_c s_c                                        (LAS)
//!
//! with g = h / T:
//! minimise T  s.t.  sum_j (T_cj / prop_c) h_cj >= M_c      for every class c, M_c fixed at m_c
//!                   sum_c h_cj <= n_j T                    for every type j
//!                   sum_j h_cj - m_c s_c T - e <= 0        cap rows, only where needed
//! ```
//!
//! The job count appears in the first rows only as the fixed variable M_c, which microlp can
//! re-fix and re-solve warm; a row's coefficients could not change. A cap row's coefficient
//! does depend on m_c, so cap rows are made per (class, count), only when a solution breaks
//! that cap, each with a slack e of its own: e fixed at 0 switches the row on, e free switches
//! it off once the class has more jobs than the row allows (a row for as many or more jobs
//! than the class has is a looser, still valid cap and stays), and on again when that count's
//! cap is broken once more. A solution that meets
//! every cap with only some cap rows on is optimal for the full model, whose feasible set is
//! smaller and whose optimum it bounds. The slacks are made with the model (microlp cannot add
//! variables to a solved LP), [`SPARE_CAP_ROWS`] per class; when a class runs out, or too many
//! rows have piled up, the kept solution is dropped and the next call starts afresh.

use crate::lp::{Lp, LpError, LpSolution, Var};

/// One LP over a fixed set of job classes, re-solved warm as their job counts change.
pub struct IncrementalLas {
    /// T_cj / prop_c: class c's normalised throughput per GPU of type j (0: cannot run there).
    normalised: Vec<Vec<f64>>,
    /// s_c: GPUs each job of class c holds when it runs.
    job_gpus: Vec<f64>,
    lp: Lp,
    t: Var,
    members: Vec<Var>,
    h: Vec<Vec<Option<Var>>>,
    /// The optimal solution for `fixed`, kept for the next warm re-solve.
    solution: Option<LpSolution>,
    fixed: Vec<Option<f64>>,
    /// Per class: the slacks made for cap rows, and the rows in the kept solution.
    slacks: Vec<Vec<Var>>,
    caps: Vec<Vec<CapRow>>,
}

/// A cap row `sum_j h_cj - count s_c T - slack <= 0` in the kept solution.
struct CapRow {
    count: usize,
    slack: Var,
    on: bool,
}

/// Cap rows a class may have at once (counts at which its cap bound).
pub const SPARE_CAP_ROWS: usize = 6;

/// Cap rows in the kept solution past which the next call starts afresh.
const MAX_CAP_ROWS: usize = 24;

/// LAS's answer for the classes present: z* and the GPUs of each type each class holds.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassShares {
    /// The lowest normalised throughput per job (LAS's objective).
    pub z: f64,
    /// g[c][j]: GPUs of type j held by class c as a whole (time-averaged); zero for absent ones.
    pub gpus: Vec<Vec<f64>>,
}

/// How far past its cap a class may sit (relative) before a cap row is switched on.
const CAP_TOLERANCE: f64 = 1e-7;

impl IncrementalLas {
    /// `throughput[c][j]`: a class-c job's throughput per GPU of type j (0 where it cannot
    /// run); `job_gpus[c]`: its scale factor; `count[j]`: GPUs of type j.
    ///
    /// A class with no positive throughput is refused: it could never be given its share.
    pub fn new(
        throughput: &[Vec<f64>],
        job_gpus: &[f64],
        count: &[f64],
    ) -> Result<IncrementalLas, LpError> {
        let total: f64 = count.iter().sum();
        let mut normalised = Vec::with_capacity(throughput.len());
        for (c, row) in throughput.iter().enumerate() {
            // prop_c: the throughput of an equal time share of every GPU (Gavel's normaliser).
            let prop = row.iter().zip(count).map(|(t, n)| t * n).sum::<f64>() / total;
            if !(prop.is_finite() && prop > 0.0) || row.len() != count.len() {
                return Err(LpError::Numerical(format!(
                    "class {c} has no GPU type it can run on"
                )));
            }
            normalised.push(row.iter().map(|t| t / prop).collect::<Vec<f64>>());
        }
        let mut lp = Lp::minimize();
        let t = lp.var(1.0);
        let members: Vec<Var> = normalised.iter().map(|_| lp.var(0.0)).collect();
        let h: Vec<Vec<Option<Var>>> = normalised
            .iter()
            .map(|row| {
                row.iter()
                    .map(|&r| (r > 0.0).then(|| lp.var(0.0)))
                    .collect()
            })
            .collect();
        for (c, row) in normalised.iter().enumerate() {
            // sum_j (T_cj / prop_c) h_cj - M_c >= 0
            let mut terms: Vec<(Var, f64)> = row
                .iter()
                .zip(&h[c])
                .filter_map(|(&r, v)| v.map(|v| (v, r)))
                .collect();
            terms.push((members[c], -1.0));
            lp.ge(terms, 0.0);
        }
        for (j, &n) in count.iter().enumerate() {
            // sum_c h_cj - n_j T <= 0
            let mut terms: Vec<(Var, f64)> = h
                .iter()
                .filter_map(|row| row[j])
                .map(|v| (v, 1.0))
                .collect();
            terms.push((t, -n));
            lp.le(terms, 0.0);
        }
        let slacks = normalised
            .iter()
            .map(|_| (0..SPARE_CAP_ROWS).map(|_| lp.var(0.0)).collect())
            .collect();
        Ok(IncrementalLas {
            fixed: vec![None; normalised.len()],
            slacks,
            caps: (0..normalised.len()).map(|_| Vec::new()).collect(),
            normalised,
            job_gpus: job_gpus.to_vec(),
            lp,
            t,
            members,
            h,
            solution: None,
        })
    }

    /// Classes this LP was built for.
    pub fn classes(&self) -> usize {
        self.normalised.len()
    }

    /// LAS for `members[c]` jobs of each class c. `Ok(None)` when no class has a job, or when
    /// the caps need more rows than were set aside (solve the full model, `GavelLas`, instead;
    /// the next call starts afresh).
    pub fn solve(&mut self, members: &[usize]) -> Result<Option<ClassShares>, LpError> {
        assert_eq!(members.len(), self.classes(), "one count per class");
        if members.iter().all(|&m| m == 0) {
            return Ok(None);
        }
        let result = self.resolve(members);
        if !matches!(result, Ok(Some(_))) {
            // The kept basis is gone with a failed edit, or holds rows to be dropped.
            self.solution = None;
            self.fixed.iter_mut().for_each(|f| *f = None);
            self.caps.iter_mut().for_each(Vec::clear);
        }
        let Some(solution) = result? else {
            return Ok(None);
        };
        let shares = self.shares(&solution, members);
        self.solution = Some(solution);
        shares.map(Some)
    }

    /// z and g from a solution; absent classes get nothing.
    fn shares(&self, solution: &LpSolution, members: &[usize]) -> Result<ClassShares, LpError> {
        let t = solution.value(self.t);
        if !(t.is_finite() && t > 0.0) {
            return Err(LpError::Numerical(format!("bottleneck T = {t}")));
        }
        let types = self.h.first().map_or(0, Vec::len);
        let gpus = members
            .iter()
            .zip(&self.h)
            .map(|(&m, vars)| {
                if m == 0 {
                    return vec![0.0; types];
                }
                vars.iter()
                    .map(|v| v.map_or(0.0, |v| solution.value(v).max(0.0) / t))
                    .collect()
            })
            .collect();
        Ok(ClassShares { z: 1.0 / t, gpus })
    }

    /// Fixes every changed count, switches off cap rows now too tight and re-solves from the
    /// kept basis (the first time, from the model with every count free, where all is zero);
    /// then switches on or adds cap rows while a cap is broken. None when out of rows.
    fn resolve(&mut self, members: &[usize]) -> Result<Option<LpSolution>, LpError> {
        let rows: usize = self.caps.iter().map(Vec::len).sum();
        if rows > MAX_CAP_ROWS {
            // Rows switched off still cost every pivot: start afresh without them.
            self.solution = None;
            self.fixed.iter_mut().for_each(|f| *f = None);
            self.caps.iter_mut().for_each(Vec::clear);
        }
        let mut solution = match self.solution.take() {
            Some(solution) => solution,
            None => self.lp.solve()?,
        };
        for (c, &m) in members.iter().enumerate() {
            let count = m as f64;
            if self.fixed[c] != Some(count) {
                solution = solution.fix(self.members[c], count)?;
                self.fixed[c] = Some(count);
            }
            for row in &mut self.caps[c] {
                // A row for fewer jobs than the class now has would cap it too tightly: off.
                // A row for as many or more is a valid (looser) cap and may stay as it is.
                if row.on && row.count < m {
                    solution = solution.unfix(row.slack)?;
                    row.on = false;
                }
            }
        }
        loop {
            let Some(c) = self.most_exceeded_cap(&solution, members) else {
                return Ok(Some(solution));
            };
            let m = members[c];
            if let Some(row) = self.caps[c].iter_mut().find(|row| row.count == m) {
                if row.on {
                    // Its row is on and the cap still shows as exceeded: round-off.
                    return Ok(Some(solution));
                }
                solution = solution.fix(row.slack, 0.0)?;
                row.on = true;
                continue;
            }
            let Some(&slack) = self.slacks[c].get(self.caps[c].len()) else {
                return Ok(None);
            };
            // sum_j h_cj - m s_c T - slack <= 0, slack fixed at 0 (row on).
            solution = solution.fix(slack, 0.0)?;
            let mut terms: Vec<(Var, f64)> =
                self.h[c].iter().flatten().map(|&v| (v, -1.0)).collect();
            terms.push((self.t, m as f64 * self.job_gpus[c]));
            terms.push((slack, 1.0));
            solution = solution.add_ge(terms, 0.0)?;
            self.caps[c].push(CapRow {
                count: m,
                slack,
                on: true,
            });
        }
    }

    /// The class furthest past its cap (relative), if any.
    fn most_exceeded_cap(&self, solution: &LpSolution, members: &[usize]) -> Option<usize> {
        let t = solution.value(self.t);
        if !(t.is_finite() && t > 0.0) {
            return None;
        }
        members
            .iter()
            .enumerate()
            .filter(|&(_, &m)| m > 0)
            .filter_map(|(c, &m)| {
                let held: f64 = self.h[c]
                    .iter()
                    .flatten()
                    .map(|&v| solution.value(v).max(0.0))
                    .sum::<f64>()
                    / t;
                let cap = m as f64 * self.job_gpus[c];
                let excess = (held - cap) / cap;
                (excess > CAP_TOLERANCE).then_some((excess, c))
            })
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, c)| c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hand_solved_case_and_a_capped_one() {
        // Types A and B, one GPU each. Class 0: T = (2, 1), prop 1.5; class 1: T = (1, 1),
        // prop 1. Class 0 has the comparative advantage on A and uses only A:
        //   z = 2 g_0A / 1.5 = (1 + 1 - g_0A) / m_1.
        let mut las =
            IncrementalLas::new(&[vec![2.0, 1.0], vec![1.0, 1.0]], &[1.0, 1.0], &[1.0, 1.0])
                .unwrap();
        // m_1 = 3: (4/3) g = (2 - g) / 3, g = 0.4, z = 8/15; caps 1 and 3 hold.
        let shares = las.solve(&[1, 3]).unwrap().expect("no cap binds");
        assert!((shares.z - 8.0 / 15.0).abs() < 1e-9, "z = {}", shares.z);
        assert!((shares.gpus[0][0] - 0.4).abs() < 1e-9 && shares.gpus[0][1].abs() < 1e-9);
        assert!((shares.gpus[1][0] - 0.6).abs() < 1e-9 && (shares.gpus[1][1] - 1.0).abs() < 1e-9);
        // m_1 = 1: uncapped, class 1 would take B and 1/7 of A (z = 8/7), past its cap of one
        // GPU. With its cap row: class 1 holds one GPU, so z = 1 (class 0 on A alone gets 4/3).
        let capped = las
            .solve(&[1, 1])
            .unwrap()
            .expect("answered with a cap row");
        assert!((capped.z - 1.0).abs() < 1e-9, "z = {}", capped.z);
        let held: f64 = capped.gpus[1].iter().sum();
        assert!(held <= 1.0 + 1e-9, "class 1 holds {held}");
        // Back to three: the row for one job is switched off, the same answer as before.
        let again = las.solve(&[1, 3]).unwrap().expect("no cap binds");
        assert!((again.z - 8.0 / 15.0).abs() < 1e-9);
        // And one job again: its row is switched back on.
        let capped = las.solve(&[1, 1]).unwrap().expect("answered");
        assert!((capped.z - 1.0).abs() < 1e-9);
        assert_eq!(
            las.solve(&[0, 0]).unwrap(),
            None,
            "no jobs, nothing to share"
        );
    }

    #[test]
    fn a_class_that_runs_nowhere_is_refused() {
        assert!(IncrementalLas::new(&[vec![0.0, 0.0]], &[1.0], &[1.0, 1.0]).is_err());
    }
}
