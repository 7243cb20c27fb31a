//! Public cluster traces users already hold, read into [`Job`]s. One file per format; what
//! they share lives here: the rules that turn a trace's job (a duration on some GPU, no model)
//! into a job the simulator can replay, and the report of what was kept and skipped.
//!
//! **Rules common to every format** (docs/simulator.md, "Public traces"):
//! - *Model.* A trace gives a duration, not a model, so each job is given a model from the
//!   throughput table among those measured at its GPU count, chosen by a seeded hash of the
//!   trace's own job id ([`model_for`]): the same job gets the same model whatever else the file
//!   holds, and another `--seed` gives another draw.
//! - *Work.* steps = duration x the model's rate on the trace's GPU type (`--trace-gpu-type`,
//!   default v100), so the job would last its recorded duration on the GPUs it had.
//! - *Arrival.* Seconds after the earliest submission among the jobs kept.
//! - *Cutting a large trace.* `--from` / `--until` keep the jobs submitted in [from, until);
//!   `--sample N` then keeps N of the rest, drawn by the same seeded hash of their ids (so a job's
//!   presence does not depend on the order of the file); both are counted as skipped.
//! - *Skipped, counted and reported, never silently dropped:* lines that do not parse (the first
//!   few are quoted with line and field), jobs with no GPUs, jobs with no duration, and jobs
//!   whose GPU count no model in the table was measured on. A trace from which no job is kept is
//!   an error that lists why.

pub mod helios;
pub mod pai;
pub mod philly;

use crate::model::{Job, SimError};
use crate::throughputs::ThroughputTable;
use std::collections::BTreeMap;

/// A trace file's format: Gavel's TSV, Fairground's CSV ([`crate::workload`]), or a public one
/// read here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceFormat {
    Gavel,
    Csv,
    Helios,
    Philly,
    /// Alibaba's PAI: a job table and a task table, read together.
    Pai,
}

impl TraceFormat {
    pub fn parse(text: &str) -> Result<TraceFormat, SimError> {
        match text {
            "gavel" => Ok(TraceFormat::Gavel),
            "csv" => Ok(TraceFormat::Csv),
            "helios" => Ok(TraceFormat::Helios),
            "philly" => Ok(TraceFormat::Philly),
            "pai" => Ok(TraceFormat::Pai),
            other => Err(SimError::Input(format!(
                "trace format '{other}': expected gavel, csv, helios, philly or pai"
            ))),
        }
    }

    /// The name `--trace-format` takes.
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Gavel => "gavel",
            TraceFormat::Csv => "csv",
            TraceFormat::Helios => "helios",
            TraceFormat::Philly => "philly",
            TraceFormat::Pai => "pai",
        }
    }

    /// The format of a file, from its name and text: a JSON array of jobs with attempts is
    /// Philly's, a file named `pai_job_table*` or `pai_task_table*` (or headed by their
    /// columns) PAI's, a `.csv` with Helios's header Helios's, any other `.csv` Fairground's,
    /// anything else Gavel's.
    pub fn recognise(name: &str, text: &str) -> TraceFormat {
        let is_csv = name.ends_with(".csv");
        if philly::recognises(text) {
            TraceFormat::Philly
        } else if pai::recognises(name, text) {
            TraceFormat::Pai
        } else if is_csv && text.lines().next().is_some_and(helios::recognises) {
            TraceFormat::Helios
        } else if is_csv {
            TraceFormat::Csv
        } else {
            TraceFormat::Gavel
        }
    }

    /// A public trace, read by this module (the others by [`crate::workload`]).
    pub fn is_public(self) -> bool {
        matches!(
            self,
            TraceFormat::Helios | TraceFormat::Philly | TraceFormat::Pai
        )
    }

    /// Reads a public trace from `file` (name, text) and, for PAI, `second`: its other table
    /// (either order). `None` for Gavel's and Fairground's formats.
    pub fn read_public(
        self,
        file: (&str, &str),
        second: Option<(&str, &str)>,
        table: &ThroughputTable,
        types: &[String],
        opts: &TraceOptions,
    ) -> Option<Result<TraceRead, SimError>> {
        let (_, text) = file;
        match self {
            TraceFormat::Helios => Some(helios::read(text, table, types, opts)),
            TraceFormat::Philly => Some(philly::read(text, table, types, opts)),
            TraceFormat::Pai => Some(match second {
                None => Err(SimError::Input(format!(
                    "{}: PAI's trace is two tables joined on job_name, pai_job_table.csv and \
                     pai_task_table.csv: give both",
                    file.0
                ))),
                Some(other) => {
                    let (jobs, tasks) = if pai::is_task_table(file.0, file.1) {
                        (other, file)
                    } else {
                        (file, other)
                    };
                    if pai::is_task_table(jobs.0, jobs.1) || !pai::is_task_table(tasks.0, tasks.1) {
                        Err(SimError::Input(format!(
                            "{} and {}: expected one PAI job table and one task table",
                            file.0, other.0
                        )))
                    } else {
                        pai::read(jobs.0, jobs.1, tasks.0, tasks.1, table, types, opts)
                    }
                }
            }),
            TraceFormat::Gavel | TraceFormat::Csv => None,
        }
    }
}

/// What a reader needs besides the text.
#[derive(Debug, Clone)]
pub struct TraceOptions {
    /// Seeds the model each job is given.
    pub seed: u64,
    /// Which field names the tenant: the user, or the virtual cluster.
    pub tenant: TenantField,
    /// The GPU type the trace's durations were measured on.
    pub gpu_type: String,
    /// Which models each tenant's jobs are given ([`crate::workload::TenantMix`]).
    pub tenant_mix: crate::workload::TenantMix,
    /// Keep only jobs submitted at or after this time (seconds, as [`seconds_of`] gives).
    pub from: Option<f64>,
    /// Keep only jobs submitted before this time.
    pub until: Option<f64>,
    /// Keep this many of the jobs left, drawn by a seeded hash of their ids (file order kept).
    pub sample: Option<usize>,
}

impl Default for TraceOptions {
    fn default() -> Self {
        TraceOptions {
            seed: 0,
            tenant: TenantField::User,
            gpu_type: "v100".into(),
            tenant_mix: crate::workload::TenantMix::Uniform,
            from: None,
            until: None,
            sample: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TenantField {
    User,
    VirtualCluster,
}

impl TenantField {
    pub fn parse(text: &str) -> Result<TenantField, SimError> {
        match text {
            "user" => Ok(TenantField::User),
            "vc" => Ok(TenantField::VirtualCluster),
            other => Err(SimError::Input(format!(
                "tenant field '{other}': expected user or vc"
            ))),
        }
    }
}

/// The jobs read and an account of every line.
#[derive(Debug, Clone, Default)]
pub struct TraceRead {
    pub jobs: Vec<Job>,
    /// Job lines in the file (header and blank lines not counted).
    pub lines: usize,
    /// Kept jobs by the state the trace records (COMPLETED, FAILED, ...): all are replayed with
    /// their recorded duration, since they held their GPUs that long.
    pub kept_by_state: BTreeMap<String, usize>,
    /// Skipped lines by reason.
    pub skipped: BTreeMap<String, usize>,
    /// Kept jobs changed by a stated rule, by rule (PAI's fractional GPUs rounded up, ...).
    pub adjusted: BTreeMap<String, usize>,
    /// The first few malformed lines, each with its line number and field.
    pub examples: Vec<String>,
}

/// Malformed lines quoted in a report; the rest are only counted.
const EXAMPLES: usize = 5;

impl TraceRead {
    fn skip(&mut self, reason: &str) {
        *self.skipped.entry(reason.to_string()).or_default() += 1;
    }

    fn adjust(&mut self, rule: &str) {
        *self.adjusted.entry(rule.to_string()).or_default() += 1;
    }

    fn malformed(&mut self, message: String) {
        self.skip("malformed line");
        if self.examples.len() < EXAMPLES {
            self.examples.push(message);
        }
    }

    /// One line a reason, for a person: how many lines, kept (by state), skipped (by reason).
    pub fn summary(&self) -> Vec<String> {
        let kept: Vec<String> = self
            .kept_by_state
            .iter()
            .map(|(s, n)| format!("{n} {s}"))
            .collect();
        let mut out = vec![format!(
            "{} job lines: {} kept ({})",
            self.lines,
            self.jobs.len(),
            kept.join(", ")
        )];
        out.extend(
            self.skipped
                .iter()
                .map(|(why, n)| format!("{n} skipped: {why}")),
        );
        out.extend(
            self.adjusted
                .iter()
                .map(|(rule, n)| format!("{n} kept with {rule}")),
        );
        out.extend(self.examples.iter().cloned());
        out
    }

    /// The jobs, or an error that says why none was kept.
    fn finish(self) -> Result<TraceRead, SimError> {
        if self.jobs.is_empty() {
            return Err(SimError::Input(format!(
                "no job could be read from the trace: {}",
                self.summary().join("; ")
            )));
        }
        Ok(self)
    }
}

/// A job as a trace describes it, before the common rules apply.
struct TraceJob {
    id: u64,
    tenant: String,
    gpus: u32,
    submit_s: f64,
    duration_s: f64,
    state: String,
    /// The GPU type the duration was recorded on, when the trace says (PAI); else
    /// `--trace-gpu-type`.
    gpu_type: Option<String>,
    /// Stated rules that changed the job (counted in the report if it is kept).
    adjusted: Vec<&'static str>,
}

/// Applies the module's rules to the jobs a reader parsed, in file order.
fn into_jobs(
    parsed: Vec<TraceJob>,
    table: &ThroughputTable,
    types: &[String],
    opts: &TraceOptions,
    read: &mut TraceRead,
) -> Result<(), SimError> {
    let mut kept = Vec::new();
    // Under a skewed mix, tenant k in name order has the k-th model family (round robin).
    let mut tenant_rank: BTreeMap<&str, usize> = BTreeMap::new();
    if opts.tenant_mix == crate::workload::TenantMix::Skewed {
        for job in &parsed {
            tenant_rank.insert(job.tenant.as_str(), 0);
        }
        for (rank, value) in tenant_rank.values_mut().enumerate() {
            *value = rank;
        }
    }
    let families = crate::workload::families(table);
    // Inserted, not collected: collecting into a map sorts its input, one more copy of the sort
    // in the browser's engine (crate::order).
    let mut owned_rank: BTreeMap<String, usize> = BTreeMap::new();
    for (name, rank) in tenant_rank {
        owned_rank.insert(name.to_string(), rank);
    }
    let tenant_rank = owned_rank;
    for job in parsed {
        if opts.from.is_some_and(|t| job.submit_s < t)
            || opts.until.is_some_and(|t| job.submit_s >= t)
        {
            read.skip("submitted outside --from/--until");
            continue;
        }
        if job.gpus == 0 {
            read.skip("no GPUs (a CPU job)");
            continue;
        }
        if job.duration_s <= 0.0 {
            read.skip("no recorded duration");
            continue;
        }
        let model = match tenant_rank.get(&job.tenant) {
            Some(&rank) => skewed_model_for(table, &families, rank, job.gpus, job.id, opts.seed),
            None => model_for(table, job.gpus, job.id, opts.seed),
        };
        let Some(model) = model else {
            read.skip("no model in the throughput table was measured on this many GPUs");
            continue;
        };
        let gpu_type = job.gpu_type.as_deref().unwrap_or(&opts.gpu_type);
        let Some(rate) = table
            .rate_on(model, job.gpus, gpu_type)
            .filter(|r| *r > 0.0)
        else {
            return Err(SimError::Input(format!(
                "the throughput table has no rate for '{model}' on {} GPU(s) of type \
                 '{gpu_type}', the trace's GPU type (--trace-gpu-type)",
                job.gpus
            )));
        };
        kept.push((job, model, rate));
    }
    if let Some(n) = opts.sample.filter(|&n| n < kept.len()) {
        let keys: Vec<(u64, usize)> = kept
            .iter()
            .enumerate()
            .map(|(k, (job, _, _))| {
                (
                    splitmix64(opts.seed.rotate_left(32) ^ splitmix64(job.id)),
                    k,
                )
            })
            .collect();
        // The keys are distinct (k is), so the shared stable index sort gives the order
        // sort_unstable would, without another copy of a sort in the browser's engine.
        let mut order: Vec<usize> = (0..keys.len()).collect();
        fairground_core::order::sort_indices_by(&mut order, &|a, b| keys[a].cmp(&keys[b]));
        let mut chosen = vec![false; kept.len()];
        for &i in order.iter().take(n) {
            chosen[keys[i].1] = true;
        }
        for _ in n..kept.len() {
            read.skip("not drawn by --sample");
        }
        let mut flags = chosen.into_iter();
        kept.retain(|_| flags.next().unwrap_or(false));
    }
    let start = kept
        .iter()
        .map(|(job, _, _)| job.submit_s)
        .fold(f64::INFINITY, f64::min);
    for (job, model, rate) in kept {
        *read.kept_by_state.entry(job.state).or_default() += 1;
        for rule in job.adjusted {
            read.adjust(rule);
        }
        read.jobs.push(Job {
            id: read.jobs.len(),
            tenant: job.tenant,
            job_type: model.to_string(),
            arrival: job.submit_s - start,
            total_steps: job.duration_s * rate,
            scale_factor: job.gpus,
            rate: table.rates(model, job.gpus, types)?,
            resources: None,
            gpu_mem_mb: crate::sharing::model_memory_mb(model),
        });
    }
    Ok(())
}

/// FNV-1a of a job id's text: a number for the model draw and the sample.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The model a job is given: among the table's models measured on `gpus` GPUs (sorted by
/// name), the one a seeded hash of the trace's job id picks. `None` when there is none.
pub fn model_for(table: &ThroughputTable, gpus: u32, job_id: u64, seed: u64) -> Option<&str> {
    // Already in name order (`models_with`).
    let models = table.models_with(gpus);
    if models.is_empty() {
        return None;
    }
    let pick = splitmix64(seed ^ splitmix64(job_id)) % models.len() as u64;
    Some(models[pick as usize])
}

/// The model a job of tenant rank `rank` is given under a skewed mix: by seeded hashes of the
/// job's id, its family's ([`crate::workload::OWN_FAMILY`] of the time) or any model measured on
/// `gpus` GPUs. `None` when there is none.
fn skewed_model_for<'a>(
    table: &'a ThroughputTable,
    families: &[String],
    rank: usize,
    gpus: u32,
    job_id: u64,
    seed: u64,
) -> Option<&'a str> {
    let models = table.models_with(gpus);
    if models.is_empty() {
        return None;
    }
    let unit = |salt: u64| {
        (splitmix64(seed ^ splitmix64(job_id ^ salt)) >> 11) as f64 / (1u64 << 53) as f64
    };
    let own = unit(0x0f_a1_11_e5) < crate::workload::OWN_FAMILY;
    Some(crate::workload::skewed_model(
        &models,
        families,
        rank,
        own,
        unit(0x91_c4),
    ))
}

/// SplitMix64's output function: a well-mixed 64-bit hash of one number.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Seconds since 1970-01-01 00:00:00 of "YYYY-MM-DD HH:MM:SS" (no time zone: traces record
/// local time, and only differences are used). Days from the civil date by the usual
/// era-based count (Hinnant's `days_from_civil`); a small function rather than a date crate, to
/// keep the browser's download small.
pub fn seconds_of(text: &str) -> Option<f64> {
    let (date, time) = text.trim().split_once(' ')?;
    let mut d = date.split('-').map(|p| p.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let mut t = time.split(':').map(|p| p.parse::<i64>().ok());
    let (hh, mm, ss) = (t.next()??, t.next()??, t.next()??);
    if d.next().is_some() || t.next().is_some() {
        return None;
    }
    let days_in = [
        31,
        28 + i64::from(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)),
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&m)
        || !(1..=days_in[(m - 1) as usize]).contains(&day)
        || !(0..24).contains(&hh)
        || !(0..60).contains(&mm)
        || !(0..61).contains(&ss)
    {
        return None;
    }
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some((days * 86_400 + hh * 3_600 + mm * 60 + ss) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_times_against_known_epoch_seconds() {
        // Known values (date -u -d '...' +%s).
        assert_eq!(seconds_of("1970-01-01 00:00:00"), Some(0.0));
        assert_eq!(seconds_of("2020-06-09 18:41:01"), Some(1_591_728_061.0));
        assert_eq!(seconds_of("2000-02-29 12:00:00"), Some(951_825_600.0));
        assert_eq!(seconds_of("2020-03-01 00:00:00"), Some(1_583_020_800.0));
        for bad in [
            "2020-02-30 00:00:00",
            "2019-02-29 00:00:00",
            "2020-13-01 00:00:00",
            "2020-06-09",
            "2020-06-09 24:00:00",
            "yesterday noon",
            "2020-06-09 18:41:01:00",
        ] {
            assert_eq!(seconds_of(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_model_depends_on_the_job_id_and_seed_only() {
        let table = ThroughputTable::builtin();
        let a = model_for(&table, 1, 42, 7).unwrap();
        assert_eq!(model_for(&table, 1, 42, 7), Some(a));
        // Over many ids every single-GPU model is drawn, and another seed changes some draws.
        let drawn: std::collections::BTreeSet<&str> = (0..200)
            .filter_map(|id| model_for(&table, 1, id, 7))
            .collect();
        assert_eq!(drawn.len(), table.models_with(1).len());
        assert!((0..50).any(|id| model_for(&table, 1, id, 7) != model_for(&table, 1, id, 8)));
        assert_eq!(
            model_for(&table, 3, 1, 7),
            None,
            "no 3-GPU entries in the table"
        );
    }
}
