//! Workloads: Gavel's synthetic generator, Gavel's TSV traces, and a CSV format of our own.

use crate::model::{Job, SimError};
use crate::resources::{Profiles, ServerShape};
use crate::sharing::model_memory_mb;
use crate::throughputs::ThroughputTable;
use fairground_core::order::sort_stably_by;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Uniform};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

fn check_arrival_rate(jobs_per_hour: f64) -> Result<(), SimError> {
    if jobs_per_hour.is_finite() && jobs_per_hour > 0.0 {
        Ok(())
    } else {
        Err(SimError::Input(format!(
            "arrival rate must be > 0 jobs per hour (got {jobs_per_hour})"
        )))
    }
}

/// Gavel's synthetic workload (its `generate_trace` reading, ../shared/BACKGROUND.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyntheticConfig {
    pub jobs: usize,
    /// Poisson arrivals, jobs per hour.
    pub jobs_per_hour: f64,
    pub seed: u64,
    /// Jobs are spread uniformly over this many tenants (`tenant0`, `tenant1`, ...).
    pub tenants: usize,
    /// Which models each tenant runs ([`TenantMix`]).
    #[serde(default)]
    pub tenant_mix: TenantMix,
}

/// Which models a tenant's jobs run (`--tenant-mix`).
///
/// - `uniform`: every job's model is drawn from all models, whatever its tenant, so every
///   tenant runs the same random mix.
/// - `skewed`: tenant k has its own model family, the k-th of the table's families in name
///   order (round robin past the last; a family is a model's name without its batch size, e.g.
///   `ResNet-50`, `Recommendation`, `LM`), and draws [`OWN_FAMILY`] (80%) of its jobs' models
///   from it, the rest from all models, uniformly within each. A job whose GPU count no model of
///   the family was measured on draws from all models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TenantMix {
    #[default]
    Uniform,
    Skewed,
}

/// The share of a skewed tenant's jobs drawn from its own model family.
pub const OWN_FAMILY: f64 = 0.8;

impl TenantMix {
    pub fn parse(text: &str) -> Result<TenantMix, SimError> {
        match text {
            "uniform" => Ok(TenantMix::Uniform),
            "skewed" => Ok(TenantMix::Skewed),
            other => Err(SimError::Input(format!(
                "--tenant-mix '{other}': give uniform (every tenant the same random mix of models) \
                 or skewed (each tenant 80% from its own model family)"
            ))),
        }
    }
}

/// A model's family: its name without the batch size (`ResNet-50 (batch size 64)` ->
/// `ResNet-50`).
pub fn model_family(model: &str) -> &str {
    model.split(" (").next().unwrap_or(model).trim()
}

/// The table's model families (of its single-GPU models), in name order: tenant k's family
/// under a skewed mix is the (k mod F)-th.
pub fn families(table: &ThroughputTable) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for model in table.models_with(1) {
        let family = model_family(model);
        if !out.iter().any(|f| f == family) {
            out.push(family.to_string());
        }
    }
    // models_with lists models in name order, so families come in order too, but a family
    // name that is a prefix of another's model can interleave: sort to be sure.
    sort_stably_by(&mut out, |a, b| a.cmp(b));
    out
}

/// Under a skewed mix, the model for a job of tenant rank `tenant`: from `models` (the table's
/// models at the job's GPU count, in name order), its family's when `own` and the family has
/// one there; `pick` in [0, 1) chooses within the list.
pub fn skewed_model<'a>(
    models: &[&'a str],
    families: &[String],
    tenant: usize,
    own: bool,
    pick: f64,
) -> &'a str {
    let choose = |list: &[&'a str]| list[((pick * list.len() as f64) as usize).min(list.len() - 1)];
    if own && !families.is_empty() {
        let family = &families[tenant % families.len()];
        let members: Vec<&str> = models
            .iter()
            .copied()
            .filter(|m| model_family(m) == family)
            .collect();
        if !members.is_empty() {
            return choose(&members);
        }
    }
    choose(models)
}

/// Generates the workload: scale factor 1/2/4/8 w.p. 0.70/0.10/0.15/0.05; the model uniform
/// over the table's models measured at that scale factor; duration 10^U(1.5, 3) minutes w.p.
/// 0.8, else 10^U(3, 4); steps = duration x the job's rate on V100 (the fastest type when the
/// table has no V100 figure); exponential inter-arrival times. The transforms use `libm`, so
/// a seed gives bit-identical jobs natively and in wasm.
pub fn synthetic(
    cfg: &SyntheticConfig,
    table: &ThroughputTable,
    types: &[String],
) -> Result<Vec<Job>, SimError> {
    check_arrival_rate(cfg.jobs_per_hour)?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(cfg.seed);
    let unit = Uniform::new(0.0f64, 1.0).map_err(|e| SimError::Input(e.to_string()))?;
    let tenants = cfg.tenants.max(1);
    // A skewed mix draws from its own generator, so the main one's draws (and with them each
    // job's tenant, GPU count, minutes and arrival) are those of the uniform mix's workload.
    let mut skew = rand::rngs::StdRng::seed_from_u64(cfg.seed ^ 0x5ce7_ed00_7e4a_4701);
    let families = families(table);
    let mut t = 0.0;
    let mut jobs = Vec::with_capacity(cfg.jobs);
    for id in 0..cfg.jobs {
        let u: f64 = unit.sample(&mut rng);
        let scale_factor = match u {
            u if u < 0.70 => 1,
            u if u < 0.80 => 2,
            u if u < 0.95 => 4,
            _ => 8,
        };
        let mut models = table.models_with(scale_factor);
        let scale_factor = if models.is_empty() {
            models = table.models_with(1);
            1
        } else {
            scale_factor
        };
        if models.is_empty() {
            return Err(SimError::Input(
                "the throughput table has no single-GPU models".into(),
            ));
        }
        let drawn = models[rng.random_range(0..models.len())];
        let (lo, hi) = if unit.sample(&mut rng) < 0.8 {
            (1.5, 3.0)
        } else {
            (3.0, 4.0)
        };
        let minutes = libm::pow(10.0, lo + (hi - lo) * unit.sample(&mut rng));
        let tenant_rank = rng.random_range(0..tenants);
        let model = match cfg.tenant_mix {
            TenantMix::Uniform => drawn,
            TenantMix::Skewed => {
                let own = unit.sample(&mut skew) < OWN_FAMILY;
                skewed_model(&models, &families, tenant_rank, own, unit.sample(&mut skew))
            }
        }
        .to_string();
        let rate = table.rates(&model, scale_factor, types)?;
        let reference = table
            .rate_on(&model, scale_factor, "v100")
            .unwrap_or_else(|| rate.iter().copied().fold(0.0, f64::max));
        let tenant = format!("tenant{tenant_rank}");
        jobs.push(Job {
            id,
            tenant,
            gpu_mem_mb: model_memory_mb(&model),
            job_type: model,
            arrival: t,
            total_steps: (minutes * 60.0 * reference).max(1.0),
            scale_factor,
            rate,
            resources: None,
        });
        // Exponential inter-arrival by inversion: -ln(1 - u) / lambda.
        t += -libm::log(1.0 - unit.sample(&mut rng)) * 3600.0 / cfg.jobs_per_hour;
    }
    Ok(jobs)
}

/// Synergy's synthetic workload (its simulator's generator, ../shared/BACKGROUND.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SynergyConfig {
    pub jobs: usize,
    /// Poisson arrivals, jobs per hour.
    pub jobs_per_hour: f64,
    /// Target percentages of image, language and speech jobs (Synergy's default 20, 70, 10).
    pub split: [f64; 3],
    /// 1/2/4/8 GPUs w.p. .70/.10/.15/.05; otherwise every job has one GPU (Synergy's default).
    pub multi_gpu: bool,
    pub seed: u64,
}

impl Default for SynergyConfig {
    fn default() -> Self {
        SynergyConfig {
            jobs: 1000,
            jobs_per_hour: 9.0,
            split: [20.0, 70.0, 10.0],
            multi_gpu: false,
            seed: 0,
        }
    }
}

/// The tasks of a Synergy split, in order.
pub const SYNERGY_TASKS: [&str; 3] = ["image", "language", "speech"];

/// Parses `IMAGE,LANGUAGE,SPEECH` percentages, e.g. `20,70,10`.
pub fn parse_split(spec: &str) -> Result<[f64; 3], SimError> {
    let bad = |why: &str| {
        SimError::Input(format!(
            "split '{spec}': {why} (give IMAGE,LANGUAGE,SPEECH percentages, e.g. 20,70,10)"
        ))
    };
    let parts: Vec<f64> = spec
        .split(',')
        .map(|p| p.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| bad("not three numbers"))?;
    let split: [f64; 3] = parts
        .try_into()
        .map_err(|_| bad("expected three numbers"))?;
    if split.iter().any(|v| !(v.is_finite() && *v >= 0.0)) || split.iter().sum::<f64>() <= 0.0 {
        return Err(bad("shares must be >= 0 and not all 0"));
    }
    Ok(split)
}

/// Generates Synergy's workload. Each job: the task furthest below its target share of the jobs
/// so far (the first task when all are level), the task's next model round-robin; one GPU, or
/// 1/2/4/8 w.p. .70/.10/.15/.05 with `multi_gpu`; a duration of 60 x 10^U(1.5, 3) s w.p. 0.8,
/// else 60 x 10^U(3, 4) s, which it takes at the proportional share: steps (iterations) =
/// duration / the model's iteration time, and its rate 1 / iteration time on every GPU type
/// (the profiles do not depend on the GPU type); exponential inter-arrival times. Tenants are
/// the tasks. The transforms use `libm`, so a seed gives the same jobs natively and in wasm.
pub fn synergy(
    cfg: &SynergyConfig,
    profiles: &Profiles,
    shape: &ServerShape,
    types: &[String],
) -> Result<Vec<Job>, SimError> {
    check_arrival_rate(cfg.jobs_per_hour)?;
    let total_share: f64 = cfg.split.iter().sum();
    if cfg.split.iter().any(|v| !(v.is_finite() && *v >= 0.0)) || total_share <= 0.0 {
        return Err(SimError::Input(
            "split: shares must be >= 0 and not all 0".into(),
        ));
    }
    let mut models: Vec<&[String]> = Vec::new();
    for (task, share) in SYNERGY_TASKS.iter().zip(cfg.split) {
        let list = profiles
            .task_models
            .get(*task)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        if share > 0.0 && list.is_empty() {
            return Err(SimError::Input(format!(
                "split gives {task} jobs {share}%, but the profiles have no {task} models"
            )));
        }
        models.push(list);
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(cfg.seed);
    let unit = Uniform::new(0.0f64, 1.0).map_err(|e| SimError::Input(e.to_string()))?;
    let mut counts = [0usize; 3];
    let mut next_model = [0usize; 3];
    let mut t = 0.0;
    let mut jobs = Vec::with_capacity(cfg.jobs);
    for id in 0..cfg.jobs {
        let so_far = id.max(1) as f64;
        let task = (0..3)
            .filter(|&k| cfg.split[k] > 0.0)
            .max_by(|&a, &b| {
                let behind = |k: usize| {
                    if id == 0 {
                        0.0
                    } else {
                        cfg.split[k] / total_share - counts[k] as f64 / so_far
                    }
                };
                behind(a).total_cmp(&behind(b)).then(b.cmp(&a))
            })
            .unwrap_or(0);
        counts[task] += 1;
        let model = models[task][next_model[task] % models[task].len()].clone();
        next_model[task] += 1;
        let scale_factor = if cfg.multi_gpu {
            match unit.sample(&mut rng) {
                u if u < 0.70 => 1,
                u if u < 0.80 => 2,
                u if u < 0.95 => 4,
                _ => 8,
            }
        } else {
            1
        };
        let (lo, hi) = if unit.sample(&mut rng) < 0.8 {
            (1.5, 3.0)
        } else {
            (3.0, 4.0)
        };
        let seconds = 60.0 * libm::pow(10.0, lo + (hi - lo) * unit.sample(&mut rng));
        let profile = profiles.get(&model)?;
        jobs.push(Job {
            id,
            tenant: SYNERGY_TASKS[task].to_string(),
            arrival: t,
            total_steps: (seconds / profile.iter_time_s).max(1.0),
            scale_factor,
            rate: vec![1.0 / profile.iter_time_s; types.len()],
            resources: Some(profiles.job_resources(&model, scale_factor, shape)?),
            gpu_mem_mb: None,
            job_type: model,
        });
        t += -libm::log(1.0 - unit.sample(&mut rng)) * 3600.0 / cfg.jobs_per_hour;
    }
    Ok(jobs)
}

/// Reads a Gavel trace: tab-separated job_type, command, working_directory, num_steps_arg,
/// needs_data_dir, total_steps, scale_factor, priority_weight, SLO, arrival_time. Jobs are
/// their own tenants (`job<line>`); errors name the line.
pub fn gavel_trace(
    text: &str,
    table: &ThroughputTable,
    types: &[String],
) -> Result<Vec<Job>, SimError> {
    let mut jobs = Vec::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let at = format!("trace line {}", n + 1);
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 10 {
            return Err(SimError::Input(format!(
                "{at}: expected 10 tab-separated fields, found {}",
                f.len()
            )));
        }
        let number = |k: usize, what: &str| -> Result<f64, SimError> {
            f[k].trim()
                .parse::<f64>()
                .map_err(|_| SimError::Input(format!("{at}: {what} '{}' is not a number", f[k])))
        };
        let total_steps = number(5, "total_steps")?;
        let scale = number(6, "scale_factor")?;
        let arrival = number(9, "arrival_time")?;
        if scale < 1.0 || scale.fract() != 0.0 {
            return Err(SimError::Input(format!(
                "{at}: scale_factor must be a whole number >= 1"
            )));
        }
        let scale_factor = scale as u32;
        let rate = table
            .rates(f[0], scale_factor, types)
            .map_err(|e| SimError::Input(format!("{at}: {e}")))?;
        jobs.push(Job {
            id: jobs.len(),
            tenant: format!("job{}", jobs.len()),
            job_type: f[0].to_string(),
            arrival,
            total_steps,
            scale_factor,
            rate,
            resources: None,
            gpu_mem_mb: model_memory_mb(f[0]),
        });
    }
    Ok(jobs)
}

/// Writes jobs as a Gavel trace (the format [`gavel_trace`] reads), so a workload made here can
/// be replayed by Gavel's own simulator. Gavel counts whole steps: fractional step counts are
/// rounded up. The command and directory columns, which simulation ignores, hold
/// placeholders; priority weight 1, no SLO (-1), no data directory.
pub fn write_gavel_trace(jobs: &[Job]) -> String {
    let mut out = String::new();
    for job in jobs {
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t0\t{}\t{}\t1\t-1.000000\t{}\n",
            job.job_type.replace(['\t', '\n'], " "),
            "fairground-synthetic",
            ".",
            "--num_steps",
            job.total_steps.ceil() as u64,
            job.scale_factor,
            job.arrival
        ));
    }
    out
}

/// A reader over Fairground's CSV trace (fields trimmed) and its header.
fn csv_reader(text: &str) -> Result<(csv::Reader<&[u8]>, csv::StringRecord), SimError> {
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| SimError::Input(format!("CSV header: {e}")))?
        .clone();
    Ok((reader, headers))
}

/// The tenants' weights an optional `weight` column of Fairground's CSV trace gives (empty
/// without one; a row with the cell empty says nothing). Each weight is a number > 0, the same
/// on every row of its tenant; errors name the line.
pub fn csv_tenant_weights(text: &str) -> Result<BTreeMap<String, f64>, SimError> {
    let (mut reader, headers) = csv_reader(text)?;
    let mut weights = BTreeMap::new();
    let (Some(tenant_col), Some(weight_col)) = (
        headers.iter().position(|h| h == "tenant"),
        headers.iter().position(|h| h == "weight"),
    ) else {
        return Ok(weights);
    };
    for (n, record) in reader.records().enumerate() {
        let at = format!("CSV line {}", n + 2);
        let record = record.map_err(|e| SimError::Input(format!("{at}: {e}")))?;
        let cell = record.get(weight_col).unwrap_or("");
        if cell.is_empty() {
            continue;
        }
        let w: f64 = cell
            .parse()
            .ok()
            .filter(|w: &f64| w.is_finite() && *w > 0.0)
            .ok_or_else(|| {
                SimError::Input(format!(
                    "{at}: weight '{cell}' must be a number > 0 (the tenant's weight)"
                ))
            })?;
        let tenant = record.get(tenant_col).unwrap_or("").to_string();
        if let Some(&before) = weights.get(&tenant) {
            if before != w {
                return Err(SimError::Input(format!(
                    "{at}: tenant '{tenant}' has weight {w} here and {before} on an earlier line \
                     (a tenant has one weight)"
                )));
            }
        }
        weights.insert(tenant, w);
    }
    Ok(weights)
}

/// Reads Fairground's CSV trace. Header names the columns; required: `tenant`, `job_type`,
/// `arrival_s`, `total_steps`, `scale_factor`. Optional: `id`, and `throughput.<gpu type>`
/// columns giving the job's steps/s on that type (used instead of the table, so a trace can
/// carry its own measurements). With `profiles`, a `job_type` naming a profiled model gives the
/// job its CPU and memory sensitivity, and (without throughput columns) the rate of one
/// iteration per `iter_time_s` on every type, `total_steps` counting iterations. An optional
/// `gpu_mem_mb` column gives the job's GPU memory footprint (else the model table's,
/// [`crate::sharing::model_memory_mb`]). Errors name the line.
pub fn csv_trace(
    text: &str,
    table: &ThroughputTable,
    types: &[String],
    profiles: Option<(&Profiles, &ServerShape)>,
) -> Result<Vec<Job>, SimError> {
    let (mut reader, headers) = csv_reader(text)?;
    let columns = CsvColumns::of(&headers, types)?;
    let mut jobs = Vec::new();
    // id -> the line that gave it, so a repeated id names both lines.
    let mut id_line: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    for (n, record) in reader.records().enumerate() {
        let at = format!("CSV line {}", n + 2);
        let record = record.map_err(|e| SimError::Input(format!("{at}: {e}")))?;
        let row = CsvRow {
            at: &at,
            record: &record,
            headers: &headers,
        };
        let cols = &columns.required;
        let scale = row.number(cols[4])?;
        if scale < 1.0 || scale.fract() != 0.0 {
            return Err(SimError::Input(format!(
                "{at}: scale_factor must be a whole number >= 1"
            )));
        }
        let scale_factor = scale as u32;
        let job_type = row.field(cols[1]).to_string();
        let profiled = profiles.filter(|(p, _)| p.models.contains_key(&job_type));
        let resources = match profiled {
            Some((p, shape)) => Some(
                p.job_resources(&job_type, scale_factor, shape)
                    .map_err(|e| SimError::Input(format!("{at}: {e}")))?,
            ),
            None => None,
        };
        let rate = columns.rate(&row, (&job_type, scale_factor), table, types, profiles)?;
        let gpu_mem_mb = match columns.mem.map(|c| (c, row.field(c))) {
            Some((c, text)) if !text.is_empty() => {
                let mb = row.number(c)?;
                if !(mb.is_finite() && mb > 0.0) {
                    return Err(SimError::Input(format!("{at}: gpu_mem_mb must be > 0 MB")));
                }
                Some(mb)
            }
            _ => model_memory_mb(&job_type),
        };
        let id = match columns.id {
            Some(c) => row.id(c)?,
            None => jobs.len(),
        };
        if let Some(first) = id_line.insert(id, n + 2) {
            return Err(SimError::Input(format!(
                "{at}: id {id} is also the id on line {first}; ids must be unique (each job's \
                 outcome is reported by id)"
            )));
        }
        let job = Job {
            id,
            tenant: row.field(cols[0]).to_string(),
            job_type,
            arrival: row.number(cols[2])?,
            total_steps: row.number(cols[3])?,
            scale_factor,
            rate,
            resources,
            gpu_mem_mb,
        };
        crate::limits::check_job(job.arrival, job.total_steps, &job.rate)
            .map_err(|e| SimError::Input(format!("{at}: {e}")))?;
        jobs.push(job);
    }
    Ok(jobs)
}

/// Where a CSV trace keeps each field: the required columns (in [`CSV_REQUIRED`]'s order), the
/// optional id and GPU memory, and the types' own throughput columns.
struct CsvColumns {
    required: Vec<usize>,
    id: Option<usize>,
    mem: Option<usize>,
    own: Vec<(usize, usize)>,
}

/// A CSV trace's required columns.
const CSV_REQUIRED: [&str; 5] = [
    "tenant",
    "job_type",
    "arrival_s",
    "total_steps",
    "scale_factor",
];

impl CsvColumns {
    fn of(headers: &csv::StringRecord, types: &[String]) -> Result<CsvColumns, SimError> {
        let column = |name: &str| headers.iter().position(|h| h == name);
        let mut required = Vec::new();
        for name in CSV_REQUIRED {
            required.push(column(name).ok_or_else(|| {
                SimError::Input(format!(
                    "CSV header: no '{name}' column (required: {})",
                    CSV_REQUIRED.join(", ")
                ))
            })?);
        }
        Ok(CsvColumns {
            required,
            id: column("id"),
            mem: column("gpu_mem_mb"),
            own: types
                .iter()
                .enumerate()
                .filter_map(|(j, t)| column(&format!("throughput.{t}")).map(|c| (j, c)))
                .collect(),
        })
    }

    /// A job's steps/s on each type: its row's own throughput columns, else its profile's one
    /// iteration per `iter_time_s`, else the table's.
    fn rate(
        &self,
        row: &CsvRow,
        (job_type, scale_factor): (&str, u32),
        table: &ThroughputTable,
        types: &[String],
        profiles: Option<(&Profiles, &ServerShape)>,
    ) -> Result<Vec<f64>, SimError> {
        if !self.own.is_empty() {
            let mut rate = vec![0.0; types.len()];
            for &(j, c) in &self.own {
                rate[j] = row.number(c)?;
            }
            return Ok(rate);
        }
        match profiles.filter(|(p, _)| p.models.contains_key(job_type)) {
            Some((p, _)) => {
                let iter_time = p.models[job_type].iter_time_s;
                Ok(vec![1.0 / iter_time; types.len()])
            }
            None => table.rates(job_type, scale_factor, types).map_err(|e| {
                let also = if profiles.is_some() {
                    " and no model profile of that name"
                } else {
                    ""
                };
                SimError::Input(format!("{}: {e}{also}", row.at))
            }),
        }
    }
}

/// A CSV trace's line: its fields, and its numbers with a located error.
struct CsvRow<'a> {
    at: &'a str,
    record: &'a csv::StringRecord,
    headers: &'a csv::StringRecord,
}

impl CsvRow<'_> {
    fn field(&self, c: usize) -> &str {
        self.record.get(c).unwrap_or("")
    }

    fn number(&self, c: usize) -> Result<f64, SimError> {
        self.field(c).parse::<f64>().map_err(|_| {
            SimError::Input(format!(
                "{}: '{}' in column '{}' is not a number",
                self.at,
                self.field(c),
                &self.headers[c]
            ))
        })
    }

    /// A job's id: whole, >= 0 and exact in f64 (ids beyond 2^53 would collide silently).
    fn id(&self, c: usize) -> Result<usize, SimError> {
        let id = self.number(c)?;
        if !(id >= 0.0 && id.fract() == 0.0 && id <= 9_007_199_254_740_992.0) {
            return Err(SimError::Input(format!(
                "{}: id must be a whole number >= 0 (got '{}')",
                self.at,
                self.field(c)
            )));
        }
        Ok(id as usize)
    }
}

/// A digest of a workload's exact bits (FNV-1a over ids, arrivals, steps, scale factors), to
/// check that the same seed gives the same jobs on every platform.
pub fn digest(jobs: &[Job]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |x: u64| {
        for b in x.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for j in jobs {
        eat(j.id as u64);
        eat(j.arrival.to_bits());
        eat(j.total_steps.to_bits());
        eat(u64::from(j.scale_factor));
        for r in &j.rate {
            eat(r.to_bits());
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types() -> Vec<String> {
        ["v100", "p100", "k80"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    #[test]
    fn a_written_gavel_trace_reads_back_as_the_same_jobs() {
        let table = ThroughputTable::builtin();
        let cfg = SyntheticConfig {
            jobs: 40,
            jobs_per_hour: 3.0,
            seed: 5,
            tenants: 2,
            tenant_mix: Default::default(),
        };
        let jobs = synthetic(&cfg, &table, &types()).unwrap();
        let text = write_gavel_trace(&jobs);
        assert_eq!(text.lines().count(), 40);
        let back = gavel_trace(&text, &table, &types()).unwrap();
        for (a, b) in jobs.iter().zip(&back) {
            assert_eq!((&a.job_type, a.scale_factor), (&b.job_type, b.scale_factor));
            assert_eq!(a.arrival, b.arrival, "arrival times keep every bit");
            assert_eq!(a.total_steps.ceil(), b.total_steps);
            assert_eq!(a.rate, b.rate);
        }
    }

    #[test]
    fn synthetic_is_seeded_and_follows_gavels_distributions() {
        let cfg = SyntheticConfig {
            jobs: 2000,
            jobs_per_hour: 6.0,
            seed: 3,
            tenants: 4,
            tenant_mix: Default::default(),
        };
        let table = ThroughputTable::builtin();
        let a = synthetic(&cfg, &table, &types()).unwrap();
        assert_eq!(a, synthetic(&cfg, &table, &types()).unwrap());
        let single = a.iter().filter(|j| j.scale_factor == 1).count() as f64 / 2000.0;
        assert!((single - 0.70).abs() < 0.04, "{single}");
        // Mean inter-arrival 600 s at 6 jobs/hour.
        let mean_gap = a.last().unwrap().arrival / 1999.0;
        assert!((mean_gap - 600.0).abs() < 60.0, "{mean_gap}");
        // Durations on V100 between 10^1.5 and 10^4 minutes.
        for j in &a {
            let minutes = j.total_steps / j.rate[0] / 60.0;
            assert!((31.0..=10_001.0).contains(&minutes), "{minutes}");
        }
    }

    #[test]
    fn reads_csv_with_its_own_throughputs_and_locates_errors() {
        let table = ThroughputTable::builtin();
        let text = "id,tenant,job_type,arrival_s,total_steps,scale_factor,throughput.v100,throughput.k80\n\
                    7,alice,bert,0,100,1,2.0,0.5\n";
        let jobs = csv_trace(text, &table, &types(), None).unwrap();
        assert_eq!(jobs[0].id, 7);
        assert_eq!(jobs[0].rate, vec![2.0, 0.0, 0.5]);
        let err = csv_trace(
            "tenant,job_type,arrival_s,total_steps,scale_factor\na,A3C,x,1,1\n",
            &table,
            &types(),
            None,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "CSV line 2: 'x' in column 'arrival_s' is not a number"
        );
        let err = csv_trace("tenant,job_type\n", &table, &types(), None).unwrap_err();
        assert!(err.to_string().contains("no 'arrival_s' column"), "{err}");
    }

    #[test]
    fn gavel_trace_errors_name_the_line() {
        let table = ThroughputTable::builtin();
        let err = gavel_trace("A3C\tcmd\n", &table, &types()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "trace line 1: expected 10 tab-separated fields, found 2"
        );
        let err =
            gavel_trace("Nope\tc\td\t-n\t1\t100\t1\t1\t-1\t0\n", &table, &types()).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("trace line 1: no throughput for 'Nope'"),
            "{err}"
        );
    }
}
