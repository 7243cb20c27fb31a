//! The robustness fuzz suite: scenarios with throughputs, weights, caps and GPU counts spread over
//! many orders of magnitude, every policy, and each answer judged by an independent checker
//! written here from the definitions (docs/policies.md and ../shared/BACKGROUND.md), never through the
//! engine's own helpers, with optima re-solved by a different solver (clarabel, interior point).
//!
//! What must hold for every scenario and policy: the policy either answers or refuses with an
//! error (never a panic); an answer is feasible (g >= 0, capacity, caps) and meets the policy's
//! defining constraints; every verdict shown (SI, EF, PE) agrees with the independent one; and,
//! where the scenario's numbers lie within 1e6 of each other, oef-coop's efficiency and
//! oef-noncoop's t are not below clarabel's optimum by more than 1e-6 relative (being feasible,
//! they cannot be above it by more than the tolerance). The price-of-fairness frontier either
//! refuses (only beyond that range) or draws curves that never fall and end where they must.
//!
//! CI runs a short fixed-seed run (`extreme_scenarios_short`). Developers run a long one with
//! `cargo xtask fuzz --minutes N`. Failing cases are kept in `tests/fuzz-regressions/` and
//! replayed first on every run.

mod common;
use clarabel::algebra::CscMatrix;
use clarabel::solver::{
    DefaultSettingsBuilder, DefaultSolver, IPSolver, SolverStatus, SupportedConeT,
};
use fairground_core::frontier::{self, Guarantee};
use fairground_core::report::{self, PolicyReport};
use fairground_core::{policies, PolicyError, Scenario};
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestRunner};

/// The checker's tolerance: README's 1e-6, relative to the quantities compared.
const TOL: f64 = 1e-6;
/// Verdicts are compared outside a band around the tolerance, where round-off may tip either way.
const BAND: f64 = 10.0;
/// Where the scenario's numbers lie within this of each other, optima must match clarabel's.
const RELIABLE: f64 = 1e6;

/// 10^U(lo, hi), sometimes exactly a power of ten.
fn magnitude(lo: f64, hi: f64) -> impl Strategy<Value = f64> {
    prop_oneof![
        3 => (lo..hi).prop_map(|e: f64| 10f64.powf(e)),
        1 => (lo as i32..=hi as i32).prop_map(|e| 10f64.powi(e)),
    ]
}

pub fn extreme_scenario() -> impl Strategy<Value = Scenario> {
    (1usize..=4, 1usize..=6).prop_flat_map(|(types, tenants)| {
        let counts = proptest::collection::vec(
            prop_oneof![1 => Just(0u32), 6 => magnitude(0.0, 6.0).prop_map(|x| x as u32)],
            types,
        )
        .prop_filter("some GPUs", |c| c.iter().any(|&n| n > 0));
        let rows = proptest::collection::vec(
            (
                proptest::collection::vec(
                    prop_oneof![1 => Just(0.0), 8 => magnitude(-9.0, 9.0)],
                    types,
                ),
                magnitude(-9.0, 9.0),
                proptest::option::weighted(0.4, magnitude(-9.0, 9.0)),
            ),
            tenants,
        );
        (counts, rows).prop_filter_map("every tenant runs somewhere", |(counts, rows)| {
            common::scenario_from(&counts, rows)
        })
    })
}

/// The scenario's numbers as the definitions use them, computed here.
struct Model {
    n: Vec<f64>,
    s: Vec<Vec<f64>>,
    w: Vec<f64>,
    cap: Vec<Option<f64>>,
}

impl Model {
    fn of(sc: &Scenario) -> Model {
        Model {
            n: sc.gpu_types.iter().map(|t| f64::from(t.count)).collect(),
            s: sc
                .tenants
                .iter()
                .map(|t| {
                    let slowest = t
                        .throughput
                        .iter()
                        .copied()
                        .filter(|&x| x > 0.0)
                        .fold(f64::INFINITY, f64::min);
                    t.throughput.iter().map(|x| x / slowest).collect()
                })
                .collect(),
            w: sc.tenants.iter().map(|t| t.weight).collect(),
            cap: sc.tenants.iter().map(|t| t.max_gpus).collect(),
        }
    }

    fn total(&self) -> f64 {
        self.n.iter().sum()
    }

    fn u(&self, i: usize, bundle: &[f64]) -> f64 {
        self.s[i].iter().zip(bundle).map(|(s, g)| s * g).sum()
    }

    /// e_i: n_j w_i / W, scaled down to d_i GPUs when the cap is smaller.
    fn share(&self, i: usize) -> Vec<f64> {
        let weight: f64 = self.w.iter().sum();
        let mut e: Vec<f64> = self.n.iter().map(|n| n * self.w[i] / weight).collect();
        let held: f64 = e.iter().sum();
        if let Some(d) = self.cap[i] {
            if held > d {
                e.iter_mut().for_each(|x| *x *= d / held);
            }
        }
        e
    }

    /// README: i must not envy k iff (w_i/w_k) min(d_k, N) <= C_i, C_i = d_i if d_i < N.
    fn required(&self, i: usize, k: usize) -> bool {
        let total = self.total();
        let held_k = self.cap[k].map_or(total, |d| d.min(total));
        i != k
            && match self.cap[i].filter(|&d| d < total) {
                None => true,
                Some(limit) => self.w[i] / self.w[k] * held_k <= limit * (1.0 + 1e-12),
            }
    }

    fn relative_shortfall(&self, g: &[Vec<f64>], i: usize) -> f64 {
        let target = self.u(i, &self.share(i));
        if target > 0.0 {
            (target - self.u(i, &g[i])) / target
        } else {
            0.0
        }
    }

    fn relative_envy(&self, g: &[Vec<f64>], i: usize, k: usize) -> f64 {
        let own = self.u(i, &g[i]) / self.w[i];
        let theirs = self.u(i, &g[k]) / self.w[k];
        let scale = own.abs().max(theirs.abs());
        if scale > 0.0 {
            (theirs - own) / scale
        } else {
            0.0
        }
    }

    /// Why g is not a feasible allocation, if it is not.
    fn infeasibility(&self, g: &[Vec<f64>]) -> Option<String> {
        let dust = 1e-12 * self.total();
        for (i, row) in g.iter().enumerate() {
            if row.iter().any(|x| !x.is_finite() || *x < 0.0) {
                return Some(format!("tenant {i} holds {row:?}"));
            }
            if let Some(d) = self.cap[i] {
                let held: f64 = row.iter().sum();
                if held > d * (1.0 + TOL) {
                    return Some(format!("tenant {i} holds {held}, cap {d}"));
                }
            }
        }
        for (j, n) in self.n.iter().enumerate() {
            let used: f64 = g.iter().map(|row| row[j]).sum();
            if used > n * (1.0 + TOL) + dust {
                return Some(format!("type {j}: {used} of {n}"));
            }
        }
        None
    }

    /// README's range: the widest spread of one tenant's positive throughputs, times the spread
    /// of the weights, times that of the caps and the cluster's size, is at most 1e6.
    fn spread_is_reliable(&self, sc: &Scenario) -> bool {
        let spread = |v: Vec<f64>| {
            let v: Vec<f64> = v.into_iter().filter(|x| *x > 0.0).collect();
            let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = v.iter().copied().fold(0.0, f64::max);
            if v.is_empty() {
                1.0
            } else {
                hi / lo
            }
        };
        let speedups = sc
            .tenants
            .iter()
            .map(|t| spread(t.throughput.clone()))
            .fold(1.0, f64::max);
        let sizes = spread(
            self.cap
                .iter()
                .flatten()
                .copied()
                .chain([self.total()])
                .collect(),
        );
        speedups * spread(self.w.clone()) * sizes <= RELIABLE
    }
}

/// An LP in clarabel's form, built row by row: minimise c x s.t. rows, x >= 0. Each variable
/// has a size (what it is measured in) and each row is divided by its largest coefficient, so
/// the interior point's absolute tolerances are relative ones.
struct Clarabel {
    vars: usize,
    size: Vec<f64>,
    eq: Vec<(Vec<f64>, f64)>,
    le: Vec<(Vec<f64>, f64)>,
}

impl Clarabel {
    fn new(size: Vec<f64>) -> Self {
        Clarabel {
            vars: size.len(),
            size,
            eq: vec![],
            le: vec![],
        }
    }

    /// The optimum and x, when clarabel solves it to its default accuracy.
    fn minimise(&self, c: &[f64]) -> Option<(f64, Vec<f64>)> {
        let n = self.vars;
        let unit = |row: &Vec<f64>, b: f64| {
            let row: Vec<f64> = row.iter().zip(&self.size).map(|(a, z)| a * z).collect();
            let big = row.iter().fold(0.0_f64, |m, a| m.max(a.abs()));
            let f = if big > 0.0 { 1.0 / big } else { 1.0 };
            (row.iter().map(|a| a * f).collect::<Vec<f64>>(), b * f)
        };
        // Rows: equalities, then inequalities, then -x <= 0.
        let mut rows: Vec<(Vec<f64>, f64)> = self.eq.iter().map(|(r, b)| unit(r, *b)).collect();
        rows.extend(self.le.iter().map(|(r, b)| unit(r, *b)));
        for v in 0..n {
            let mut r = vec![0.0; n];
            r[v] = -1.0;
            rows.push((r, 0.0));
        }
        let (mut colptr, mut rowval, mut nzval) = (vec![0], vec![], vec![]);
        for v in 0..n {
            for (r, (row, _)) in rows.iter().enumerate() {
                if row[v] != 0.0 {
                    rowval.push(r);
                    nzval.push(row[v]);
                }
            }
            colptr.push(rowval.len());
        }
        let a = CscMatrix::new(rows.len(), n, colptr, rowval, nzval);
        let b: Vec<f64> = rows.iter().map(|(_, b)| *b).collect();
        let p = CscMatrix::<f64>::zeros((n, n));
        let cones = [
            SupportedConeT::ZeroConeT(self.eq.len()),
            SupportedConeT::NonnegativeConeT(self.le.len() + n),
        ];
        // Tighter than clarabel's defaults (1e-8): the optima are compared to 1e-6.
        let settings = DefaultSettingsBuilder::default()
            .verbose(false)
            .tol_gap_abs(1e-14)
            .tol_gap_rel(1e-11)
            .tol_feas(1e-11)
            .max_iter(400)
            .build()
            .ok()?;
        let c: Vec<f64> = c.iter().zip(&self.size).map(|(c, z)| c * z).collect();
        let big = c.iter().fold(0.0_f64, |m, a| m.max(a.abs()));
        let f = if big > 0.0 { 1.0 / big } else { 1.0 };
        let c: Vec<f64> = c.iter().map(|x| x * f).collect();
        let mut solver = DefaultSolver::new(&p, &c, &a, &b, &cones, settings).ok()?;
        solver.solve();
        let x: Vec<f64> = solver
            .solution
            .x
            .iter()
            .zip(&self.size)
            .map(|(x, z)| x * z)
            .collect();
        (solver.solution.status == SolverStatus::Solved).then(|| (solver.solution.obj_val / f, x))
    }
}

/// Capacity and cap rows over g (tenant-major), written from the definitions.
fn base_rows(m: &Model) -> Clarabel {
    let (t, k) = (m.w.len(), m.n.len());
    // g_ij measured in the most it can be: n_j, or the cap when smaller.
    let size = (0..t * k)
        .map(|v| {
            let n = m.n[v % k];
            m.cap[v / k].map_or(n, |d| d.min(n)).max(f64::MIN_POSITIVE)
        })
        .collect();
    let mut lp = Clarabel::new(size);
    for j in 0..k {
        let mut r = vec![0.0; t * k];
        (0..t).for_each(|i| r[i * k + j] = 1.0);
        lp.le.push((r, m.n[j]));
    }
    for i in 0..t {
        if let Some(d) = m.cap[i] {
            let mut r = vec![0.0; t * k];
            (0..k).for_each(|j| r[i * k + j] = 1.0);
            lp.le.push((r, d));
        }
    }
    lp
}

/// oef-coop's optimum: max sum u_i s.t. base, SI, EF on every required pair.
fn oef_coop_optimum(m: &Model) -> Option<f64> {
    let (t, k) = (m.w.len(), m.n.len());
    let mut lp = base_rows(m);
    for i in 0..t {
        let mut r = vec![0.0; t * k];
        (0..k).for_each(|j| r[i * k + j] = -m.s[i][j]);
        lp.le.push((r, -m.u(i, &m.share(i))));
        for kk in (0..t).filter(|&kk| m.required(i, kk)) {
            let mut r = vec![0.0; t * k];
            (0..k).for_each(|j| {
                r[i * k + j] -= m.s[i][j] / m.w[i];
                r[kk * k + j] += m.s[i][j] / m.w[kk];
            });
            lp.le.push((r, 0.0));
        }
    }
    let c: Vec<f64> = (0..t * k).map(|v| -m.s[v / k][v % k]).collect();
    lp.minimise(&c).map(|(obj, _)| -obj)
}

/// oef-noncoop's t: max t s.t. base, u_i = w_i t.
fn oef_noncoop_optimum(m: &Model) -> Option<f64> {
    let (t, k) = (m.w.len(), m.n.len());
    let mut lp = base_rows(m);
    lp.vars += 1;
    lp.size.push(m.total() / m.w.iter().sum::<f64>()); // t in N / W
    for (row, _) in lp.le.iter_mut() {
        row.push(0.0);
    }
    for i in 0..t {
        let mut r = vec![0.0; t * k + 1];
        (0..k).for_each(|j| r[i * k + j] = m.s[i][j]);
        r[t * k] = -m.w[i];
        lp.eq.push((r, 0.0));
    }
    let mut c = vec![0.0; t * k + 1];
    c[t * k] = -1.0;
    lp.minimise(&c).map(|(obj, _)| -obj)
}

/// The most sum_i u_i(h_i) - u_i(g_i) over feasible h leaving nobody worse off.
fn pareto_gain(m: &Model, g: &[Vec<f64>]) -> Option<f64> {
    let (t, k) = (m.w.len(), m.n.len());
    let mut lp = base_rows(m);
    for i in 0..t {
        let mut r = vec![0.0; t * k];
        (0..k).for_each(|j| r[i * k + j] = -m.s[i][j]);
        lp.le.push((r, -m.u(i, &g[i]) * (1.0 - 1e-9)));
    }
    let c: Vec<f64> = (0..t * k).map(|v| -m.s[v / k][v % k]).collect();
    let now: f64 = (0..t).map(|i| m.u(i, &g[i])).sum();
    lp.minimise(&c).map(|(obj, _)| -obj - now)
}

/// Every check on one policy's answer; Err says what is wrong.
fn judge(sc: &Scenario, m: &Model, r: &PolicyReport) -> Result<(), String> {
    let g = &r.allocation.gpus;
    let name = &r.policy;
    if let Some(why) = m.infeasibility(g) {
        return Err(format!("{name}: infeasible allocation shown: {why}"));
    }
    let t = m.w.len();
    // Defining constraints.
    if name == "oef-coop" {
        for i in 0..t {
            let short = m.relative_shortfall(g, i);
            if short > TOL {
                return Err(format!("oef-coop: tenant {i} below its share by {short:e}"));
            }
            for k in (0..t).filter(|&k| m.required(i, k)) {
                let envy = m.relative_envy(g, i, k);
                if envy > TOL {
                    return Err(format!("oef-coop: {i} envies {k} by {envy:e}"));
                }
            }
        }
    }
    if name == "oef-noncoop" {
        for (i, bundle) in g.iter().enumerate() {
            let per_weight = m.u(i, bundle) / m.w[i];
            if (per_weight - r.objective).abs() > TOL * r.objective.abs() {
                return Err(format!(
                    "oef-noncoop: tenant {i} at {per_weight:e}, t = {:e}",
                    r.objective
                ));
            }
        }
    }
    // Verdicts, away from the tolerance band.
    let worst_short = (0..t)
        .map(|i| m.relative_shortfall(g, i))
        .fold(f64::NEG_INFINITY, f64::max);
    let si = r.properties.sharing_incentive.holds;
    if (worst_short > TOL * BAND && si) || (worst_short < TOL / BAND && !si) {
        return Err(format!(
            "{name}: SI shown as {si} at worst shortfall {worst_short:e}"
        ));
    }
    let worst_envy = (0..t)
        .flat_map(|i| (0..t).map(move |k| (i, k)))
        .filter(|&(i, k)| m.required(i, k))
        .map(|(i, k)| m.relative_envy(g, i, k))
        .fold(f64::NEG_INFINITY, f64::max);
    // No scenario here lists co-located pairs, so EF always has a verdict.
    let Some(ef) = r.properties.envy_freeness.holds else {
        return Err(format!("{name}: EF shown without a verdict"));
    };
    if (worst_envy > TOL * BAND && ef) || (worst_envy < TOL / BAND && !ef) {
        return Err(format!(
            "{name}: EF shown as {ef} at worst envy {worst_envy:e}"
        ));
    }
    let pe = &r.properties.pareto_efficiency;
    let efficiency: f64 = (0..t).map(|i| m.u(i, &g[i])).sum();
    if let Some(h) = &pe.dominating {
        // A witness must be feasible and dominate.
        if let Some(why) = m.infeasibility(&h.gpus) {
            return Err(format!("{name}: PE witness infeasible: {why}"));
        }
        let after: f64 = (0..t).map(|i| m.u(i, &h.gpus[i])).sum();
        let nobody_worse =
            (0..t).all(|i| m.u(i, &h.gpus[i]) >= m.u(i, &g[i]) * (1.0 - TOL) - 1e-300);
        if !nobody_worse || after <= efficiency * (1.0 + TOL) {
            return Err(format!("{name}: PE witness does not dominate"));
        }
    } else if pe.holds == Some(false) {
        return Err(format!("{name}: PE fails without a witness"));
    }
    if pe.holds.is_none() {
        // Undecided is allowed only where the numbers are spread wide, and must say why.
        if m.spread_is_reliable(sc) || pe.undecided.is_none() {
            return Err(format!(
                "{name}: PE undecided within range: {:?}",
                pe.undecided
            ));
        }
    }
    if pe.holds == Some(true) && m.spread_is_reliable(sc) {
        if let Some(gain) = pareto_gain(m, g) {
            if gain > 1e-4 * efficiency {
                return Err(format!(
                    "{name}: PE shown as holding, clarabel finds a gain of {gain:e} on {efficiency:e}"
                ));
            }
        }
    }
    // Optima against clarabel where the numbers are within range.
    if m.spread_is_reliable(sc) {
        let (ours, theirs) = match name.as_str() {
            "oef-coop" => (efficiency, oef_coop_optimum(m)),
            "oef-noncoop" => (r.objective, oef_noncoop_optimum(m)),
            _ => return Ok(()),
        };
        // Ours is feasible (checked above, from the definitions), so it can only be wrong by
        // falling short; where it is higher, clarabel's interior point stopped short (its
        // accuracy is relative to the size of the right-hand sides).
        if let Some(theirs) = theirs {
            if ours < theirs - 1e-6 * theirs.abs().max(ours.abs()) {
                return Err(format!("{name}: optimum {ours:e}, clarabel {theirs:e}"));
            }
        }
    }
    Ok(())
}

/// What one scenario gave: answers judged, refusals counted.
#[derive(Default, Debug)]
struct Tally {
    answers: usize,
    refused: usize,
}

fn check_scenario(sc: &Scenario, tally: &mut Tally) -> Result<(), TestCaseError> {
    let inst = sc
        .instance()
        .map_err(|p| TestCaseError::reject(format!("{p:?}")))?;
    let m = Model::of(sc);
    for policy in policies::all() {
        match report::run(sc, &inst, policy, None) {
            Ok(r) => {
                tally.answers += 1;
                judge(sc, &m, &r).map_err(TestCaseError::fail)?;
            }
            Err(PolicyError::Unreliable(why)) | Err(PolicyError::Solver(why)) => {
                // A refusal is allowed only where the numbers are spread wide, and must say so.
                tally.refused += 1;
                if m.spread_is_reliable(sc) {
                    return Err(TestCaseError::fail(format!(
                        "{} refused a scenario within range: {why}",
                        policy.name()
                    )));
                }
            }
            Err(PolicyError::Infeasible(why)) => {
                return Err(TestCaseError::fail(format!(
                    "{}: infeasible, but every policy here always has an answer: {why}",
                    policy.name()
                )))
            }
            Err(PolicyError::OutOfTime(stop)) => {
                return Err(TestCaseError::fail(format!(
                    "{}: {stop}, but no time limit is set here",
                    policy.name()
                )))
            }
        }
    }
    // The price-of-fairness frontier (a coarse grid): curves that never fall, or a refusal,
    // allowed only beyond the reliable range. Before the frontier checked its points, wide
    // spreads gave curves that fell by a factor of 1e6 between neighbouring points.
    match frontier::frontier(&inst, 0.25) {
        Ok(f) => judge_frontier(&f, m.spread_is_reliable(sc)).map_err(TestCaseError::fail)?,
        Err(why) => {
            tally.refused += 1;
            if m.spread_is_reliable(sc) {
                return Err(TestCaseError::fail(format!(
                    "the frontier refused a scenario within range: {why}"
                )));
            }
        }
    }
    Ok(())
}

/// Each curve is non-decreasing in eps (the feasible set grows), which the frontier checks of
/// itself. Within the reliable range, also: each curve ends at the maximum efficiency (nothing
/// is imposed at eps = 1), and SI + EF allows no more than either alone. Beyond it, the LPs'
/// tolerances may leave those a few 1e-6 apart, as they may leave policies' optima.
fn judge_frontier(f: &frontier::Frontier, reliable: bool) -> Result<(), String> {
    let close_below = |a: f64, b: f64| a <= b + TOL * a.abs().max(b.abs());
    for c in &f.curves {
        if let Some(w) = c.efficiency.windows(2).find(|w| !close_below(w[0], w[1])) {
            return Err(format!(
                "{:?} falls from {} to {}: {:?}",
                c.guarantee, w[0], w[1], c.efficiency
            ));
        }
        if !reliable {
            continue;
        }
        let last = c.efficiency[c.efficiency.len() - 1];
        if !(close_below(last, f.max_efficiency) && close_below(f.max_efficiency, last)) {
            return Err(format!(
                "{:?} ends at {last}, not at {}",
                c.guarantee, f.max_efficiency
            ));
        }
    }
    if !reliable {
        return Ok(());
    }
    let curve = |g: Guarantee| {
        &f.curves
            .iter()
            .find(|c| c.guarantee == g)
            .unwrap()
            .efficiency
    };
    let (si, ef, both) = (
        curve(Guarantee::SharingIncentive),
        curve(Guarantee::EnvyFreeness),
        curve(Guarantee::Both),
    );
    for k in 0..both.len() {
        if !close_below(both[k], si[k].min(ef[k])) {
            return Err(format!(
                "SI + EF at point {k} ({}) above SI ({}) or EF ({})",
                both[k], si[k], ef[k]
            ));
        }
    }
    Ok(())
}

fn runner(cases: u32, seed: Option<u64>) -> TestRunner {
    let config = Config {
        cases,
        max_shrink_iters: 256,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/fuzz-regressions/extreme.txt",
        ))),
        ..Config::default()
    };
    match seed {
        Some(seed) => TestRunner::new_with_rng(
            config,
            proptest::test_runner::TestRng::from_seed(
                proptest::test_runner::RngAlgorithm::ChaCha,
                &seed_bytes(seed),
            ),
        ),
        None => TestRunner::new(config),
    }
}

fn seed_bytes(seed: u64) -> [u8; 32] {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes
}

fn run(cases: u32, seed: Option<u64>) -> Tally {
    let mut tally = Tally::default();
    let cell = std::cell::RefCell::new(&mut tally);
    let result = runner(cases, seed).run(&extreme_scenario(), |sc| {
        check_scenario(&sc, &mut cell.borrow_mut())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    tally
}

/// CI: a fixed-seed run, short enough for every test run.
#[test]
fn extreme_scenarios_short() {
    let tally = run(96, Some(20261123));
    assert!(tally.answers > 96, "{tally:?}");
}

/// `cargo xtask fuzz --minutes N`: random seeds until the time is up (FAIRGROUND_FUZZ_SECONDS).
#[test]
#[ignore = "long run: cargo xtask fuzz --minutes N"]
fn extreme_scenarios_long() {
    let seconds: u64 = std::env::var("FAIRGROUND_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let end = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    let (mut scenarios, mut total) = (0u32, Tally::default());
    while std::time::Instant::now() < end {
        let tally = run(500, None);
        scenarios += 500;
        total.answers += tally.answers;
        total.refused += tally.refused;
    }
    eprintln!(
        "fuzz: {scenarios} scenarios, {} answers judged, {} refused as beyond reliable range, 0 failures",
        total.answers, total.refused
    );
}
