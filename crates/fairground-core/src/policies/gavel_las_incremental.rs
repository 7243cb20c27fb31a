//! Gavel's LAS over classes of identical jobs whose numbers change, re-solved warm.
//!
//! A simulator recomputes LAS every time jobs arrive or finish: hundreds of times per run, each
//! a fresh LP with one party per class. Between two recomputations only a few classes change
//! their job counts, so this keeps one LP over every class the workload can have, with the
//! counts as fixed variables, and re-solves it from the last basis after changing them (a few
//! dual simplex pivots instead of a solve from scratch: 0.04 ms against 0.8 ms at 70 classes).
//!
//! The LP is [`super::GavelLas`]'s, for parties that are classes (weight m_c, cap m_c s_c), with
//! its caps left out and z = 1/T:
//!
//! ```text
//! maximise z  s.t.  sum_j T_cj g_cj / (m_c prop_c) >= z,  sum_c g_cj <= n_j    (LAS, no caps)
//!
//! with g = h / T:
//! minimise T  s.t.  sum_j (T_cj / prop_c) h_cj >= M_c      for every class c, M_c fixed at m_c
//!                   sum_c h_cj <= n_j T                    for every type j
//! ```
//!
//! The job count appears only as the fixed variable M_c, which microlp can re-fix and re-solve
//! warm; a row's coefficients could not change. When the answer breaks a cap
//! (sum_j g_cj > m_c s_c: few jobs on many GPUs), it is not LAS's answer and [`IncrementalLas::solve`]
//! says so, for the caller to solve the full model; when it meets every cap, it is optimal for
//! the full model too, whose feasible set is smaller and whose optimum this one bounds.

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
}

/// LAS's answer for the classes present: z* and the GPUs of each type each class holds.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassShares {
    /// The lowest normalised throughput per job (LAS's objective).
    pub z: f64,
    /// g[c][j]: GPUs of type j held by class c as a whole (time-averaged); zero for absent ones.
    pub gpus: Vec<Vec<f64>>,
}

/// How far past its cap a class may sit (relative) before the answer counts as capped.
const CAP_TOLERANCE: f64 = 1e-9;

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
        Ok(IncrementalLas {
            fixed: vec![None; normalised.len()],
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

    /// LAS for `members[c]` jobs of each class c. `Ok(None)` when the uncapped optimum breaks
    /// a cap (or no class has a job): solve the full model (`GavelLas`) instead.
    pub fn solve(&mut self, members: &[usize]) -> Result<Option<ClassShares>, LpError> {
        assert_eq!(members.len(), self.classes(), "one count per class");
        if members.iter().all(|&m| m == 0) {
            return Ok(None);
        }
        let result = self.resolve(members);
        if result.is_err() {
            // The kept basis is gone with the failed edit; the next call starts afresh.
            self.solution = None;
            self.fixed.iter_mut().for_each(|f| *f = None);
        }
        let solution = result?;
        let t = solution.value(self.t);
        if !(t.is_finite() && t > 0.0) {
            return Err(LpError::Numerical(format!("bottleneck T = {t}")));
        }
        let mut gpus = vec![vec![0.0; self.h.first().map_or(0, Vec::len)]; self.classes()];
        for (c, &m) in members.iter().enumerate() {
            if m == 0 {
                continue;
            }
            for (g, v) in gpus[c].iter_mut().zip(&self.h[c]) {
                *g = v.map_or(0.0, |v| solution.value(v).max(0.0) / t);
            }
            let held: f64 = gpus[c].iter().sum();
            let cap = m as f64 * self.job_gpus[c];
            if held > cap * (1.0 + CAP_TOLERANCE) + CAP_TOLERANCE {
                self.solution = Some(solution);
                return Ok(None);
            }
        }
        self.solution = Some(solution);
        Ok(Some(ClassShares { z: 1.0 / t, gpus }))
    }

    /// Fixes every changed count and re-solves from the kept basis (the first time, from the
    /// model with every count free, where everything is zero).
    fn resolve(&mut self, members: &[usize]) -> Result<LpSolution, LpError> {
        let mut solution = match self.solution.take() {
            Some(solution) => solution,
            None => self.lp.solve()?,
        };
        for (c, &m) in members.iter().enumerate() {
            let m = m as f64;
            if self.fixed[c] != Some(m) {
                solution = solution.fix(self.members[c], m)?;
                self.fixed[c] = Some(m);
            }
        }
        Ok(solution)
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
        // GPU, so the full model must decide.
        assert_eq!(las.solve(&[1, 1]).unwrap(), None);
        // Back to three: the same answer, warm.
        let again = las.solve(&[1, 3]).unwrap().expect("no cap binds");
        assert!((again.z - 8.0 / 15.0).abs() < 1e-9);
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
