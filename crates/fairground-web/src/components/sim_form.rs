//! The Simulation tab's form as data: its fields, the policies by family with each family's
//! options, the recipes (published set-ups in one click), and the reducer that owns the form
//! with undo. The tab (`simulate_tab.rs`) only draws it; everything here is plain Rust, tested
//! natively.

use crate::sim_worker::{NamedText, SimRequest, Workload};
use fairground_core::policies::{named, Family, PolicyInfo, CATALOGUE};
use fairground_sim::sharing::GpuMemory;
use fairground_sim::workload::{parse_split, SynergyConfig, SyntheticConfig, TenantMix};
use fairground_sim::{Cluster, ServerShape};
use std::rc::Rc;
use yew::Reducible;

/// A field of the form; its text lives at `SimForm::values[field as usize]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Cluster,
    Shape,
    GpuMemory,
    Jobs,
    Rate,
    Seed,
    Tenants,
    TenantMix,
    Split,
    Measure,
    Round,
    ShareAmong,
    WithinTenant,
    Order,
    MixedRate,
    SyncOverhead,
    Table,
}

/// How a field is shown: its label, test id, a hint (the title), its choices (a select) or
/// none (a text field), and its first value.
pub struct FieldSpec {
    pub label: &'static str,
    pub testid: &'static str,
    pub hint: &'static str,
    pub choices: &'static [&'static str],
    pub initial: &'static str,
}

const fn text(
    label: &'static str,
    testid: &'static str,
    hint: &'static str,
    initial: &'static str,
) -> FieldSpec {
    FieldSpec {
        label,
        testid,
        hint,
        choices: &[],
        initial,
    }
}

/// Every field, in [`Field`]'s order.
pub const FIELDS: [FieldSpec; 17] = [
    text("cluster (GPUs per type)", "sim-cluster", "TYPE=COUNT,... e.g. v100=4,p100=4,k80=4", "v100=4,p100=4,k80=4"),
    text("server (GPUs, CPUs, GB)", "sim-shape", "each server's GPUs, CPUs and memory; Synergy's are 8, 24 and 500 GB", "8,24,500"),
    text("GPU memory, GB", "sim-gpu-memory", "TYPE=GB,... (empty: each type's usual memory); what GPU sharing checks jobs fit in", ""),
    text("jobs", "sim-jobs", "how many jobs the generator makes (up to 5,000 in the browser)", "40"),
    text("jobs per hour", "sim-rate", "mean arrival rate (Poisson arrivals)", "4"),
    text("seed", "sim-seed", "the generator's random seed: the same seed, the same jobs", "0"),
    text("tenants", "sim-tenants", "how many tenants the jobs belong to", "4"),
    FieldSpec {
        label: "tenant mix",
        testid: "sim-tenant-mix",
        hint: "uniform: every tenant the same random mix of models; skewed: each tenant draws 80% of its jobs from its own model family",
        choices: &["uniform", "skewed"],
        initial: "uniform",
    },
    text("split image, language, speech %", "sim-split", "Synergy's mix of job kinds, in percent", "20,70,10"),
    text("steady-state job ids (A..B)", "sim-measure", "also report the JCT of these jobs, and stop once they finish (Synergy measures jobs 4000..5000)", ""),
    text("round (s)", "sim-round", "how often schedulers recompute (Gavel's rounds are 360 s, Synergy's 300 s)", "360"),
    FieldSpec {
        label: "share among",
        testid: "sim-share-among",
        hint: "who an allocation policy shares the cluster among: each job (Gavel's formulation) or each tenant (OEF's: a tenant's GPUs then go to its jobs by what each does best)",
        choices: &["jobs", "tenants"],
        initial: "jobs",
    },
    FieldSpec {
        label: "inside a tenant",
        testid: "sim-within-tenant",
        hint: "how a tenant's GPUs reach its jobs, the same for every tenant-level policy (tenants as parties, gandiva-fair, gavel-hierarchical): \
               fairness, max-min of the jobs' normalised throughput as gavel-hierarchical; fifo, the jobs in arrival order; \
               equal-time, equal time, then each job where it gains most",
        choices: &["fairness", "fifo", "equal-time"],
        initial: "fairness",
    },
    FieldSpec {
        label: "ordering",
        testid: "sim-synergy-order",
        hint: "which job Synergy's mechanism serves first",
        choices: &["fifo", "srtf", "las", "ftf", "drf", "tetris"],
        initial: "fifo",
    },
    FieldSpec {
        label: "mixed-type rate",
        testid: "sim-mixed-rate",
        hint: "how fast a job on several GPU types runs: at its slowest worker's pace, or with batches rebalanced by speed (the sum of its GPUs' rates)",
        choices: &["slowest", "sum"],
        initial: "slowest",
    },
    text("HadarE sync overhead (s per round)", "sim-sync-overhead", "seconds a forked job loses each round combining its copies", "10"),
    FieldSpec {
        label: "throughput table",
        testid: "sim-table-choice",
        hint: "the models and GPU types jobs draw from, with each model's measured speed on each type: \
               gavel, Gavel's six models on K80, P100 and V100 (2020); todays-gpus, ten models Lambda measured on \
               H100, A100 80 and 40 GB, RTX 6000 Ada, A10 and V100 (2023-24), sources in docs/todays-cluster.md. \
               The cluster's type names must be the table's",
        choices: &["gavel", "todays-gpus"],
        initial: "gavel",
    },
];

impl Field {
    pub fn spec(self) -> &'static FieldSpec {
        &FIELDS[self as usize]
    }
}

/// Which generator makes the jobs when no trace is uploaded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Generator {
    Gavel,
    Synergy,
}

/// An uploaded file: its name and text.
pub type TraceFile = (String, String);

/// The form's values.
#[derive(Debug, Clone, PartialEq)]
pub struct SimForm {
    pub values: Vec<String>,
    pub generator: Generator,
    pub multi_gpu: bool,
    pub chosen: Vec<String>,
    /// The uploaded trace's files: one, or PAI's two tables.
    pub trace: Option<Rc<Vec<TraceFile>>>,
    /// Gavel's measured throughputs, if uploaded.
    pub measured: Option<Rc<TraceFile>>,
}

impl Default for SimForm {
    fn default() -> Self {
        SimForm {
            values: FIELDS.iter().map(|f| f.initial.to_string()).collect(),
            generator: Generator::Gavel,
            multi_gpu: false,
            chosen: [
                "fifo",
                named::GAVEL_LAS.name,
                fairground_core::policies::DEFAULT_POLICY,
            ]
            .map(String::from)
            .to_vec(),
            trace: None,
            measured: None,
        }
    }
}

/// A family of the simulator's policies: its name, what its members have in common, its
/// members, and the fields only it uses. Its members are the simulator's own schedulers it
/// lists, then every allocation policy whose declared family is among `allocation`, in the
/// catalogue's order: a new policy shows here by declaring its family.
pub struct PolicyFamily {
    pub name: &'static str,
    pub blurb: &'static str,
    /// The simulator's own schedulers in it: name, and a line saying what it does.
    pub schedulers: &'static [(&'static str, &'static str)],
    /// The declared families of the allocation policies it groups.
    pub allocation: &'static [Family],
    pub options: &'static [Field],
}

impl PolicyFamily {
    /// Its members, each with a line saying what it does (an allocation policy's summary).
    pub fn policies(&self) -> Vec<(&'static str, &'static str)> {
        self.policies_from(CATALOGUE)
    }

    /// [`PolicyFamily::policies`] among the allocation policies `catalogue` declares.
    pub fn policies_from(&self, catalogue: &[PolicyInfo]) -> Vec<(&'static str, &'static str)> {
        let allocation = catalogue
            .iter()
            .filter(|p| self.allocation.contains(&p.family))
            .map(|p| (p.name, p.summary));
        self.schedulers.iter().copied().chain(allocation).collect()
    }
}

pub const FAMILIES: [PolicyFamily; 7] = [
    PolicyFamily {
        name: "Queues",
        blurb: "one job per GPU set, in an order; blind to GPU types",
        schedulers: &[
            ("fifo", "first come, first served"),
            ("srtf", "shortest remaining time first, preempting"),
            ("las", "least attained service first"),
            ("tiresias", "Tiresias: least attained GPU-service, three queues"),
            ("tiresias-2q", "Tiresias with two queues, as its testbed ran"),
        ],
        allocation: &[],
        options: &[],
    },
    PolicyFamily {
        name: "Gavel",
        blurb: "an allocation policy solved every round, each job on the types its rates favour (Narayanan et al., OSDI 2020); OEF and the market run in the same rounds, shared among jobs or tenants as chosen here",
        schedulers: &[],
        // Gavel's baselines (the isolated share, the equal split) run in the same rounds.
        allocation: &[Family::Gavel, Family::Baseline],
        options: &[Field::ShareAmong, Field::WithinTenant],
    },
    PolicyFamily {
        name: "OEF",
        blurb: "the efficiency-optimal fair allocation, in Gavel's rounds (Mo, Xu and Lau, Middleware 2024); share among tenants (above) for its tenant-level guarantees",
        schedulers: &[],
        allocation: &[Family::Oef],
        options: &[],
    },
    PolicyFamily {
        name: "Market",
        blurb: "markets from equal incomes, and trading from equal shares, in Gavel's rounds",
        schedulers: &[],
        allocation: &[Family::Market],
        options: &[],
    },
    PolicyFamily {
        name: "GPU sharing",
        blurb: "two jobs may share a GPU when their memory fits (Luo et al., IWQoS 2024); measured pair slowdowns come from the CLI, here every pair runs 2x slower (time slicing)",
        schedulers: &[
            ("sjf-bsbf", "SJF-BSBF: shortest job first, sharing with the best partner by batch size"),
            ("sjf-ffs", "SJF with first-fit sharing"),
        ],
        allocation: &[],
        options: &[],
    },
    PolicyFamily {
        name: "Synergy",
        blurb: "CPU and memory given by each job's sensitivity, over its ten model profiles (Mohan et al., OSDI 2022)",
        schedulers: &[
            ("synergy-proportional", "CPU and memory in proportion to GPUs (the baseline)"),
            ("synergy-greedy", "the most sensitive jobs first, greedily"),
            ("synergy-tune", "Synergy-Tune: each job's best CPU and memory, tuned to fit"),
            ("synergy-opt", "Synergy-OPT: the throughput-optimal program, then packed"),
        ],
        allocation: &[],
        options: &[Field::Order],
    },
    PolicyFamily {
        name: "Hadar",
        blurb: "jobs placed by price across GPU types, a job on several types at once (Sultana et al., IPDPS 2024)",
        schedulers: &[
            ("hadar", "Hadar: shortest remaining time first, by price, idle GPUs backfilled"),
            ("hadar:strict", "Hadar's template without the backfill"),
            ("hadare", "HadarE: jobs forked into copies on spare servers"),
        ],
        allocation: &[],
        options: &[Field::MixedRate, Field::SyncOverhead],
    },
];

/// A published evaluation's set-up, scaled to what the browser runs: the fields it sets, its
/// generator and its policies. Applying one says what changed and can be undone.
pub struct Recipe {
    pub name: &'static str,
    pub testid: &'static str,
    pub generator: Generator,
    pub fields: &'static [(Field, &'static str)],
    pub policies: &'static [&'static str],
}

pub const RECIPES: [Recipe; 6] = [
    Recipe {
        name: "Gavel's",
        testid: "sim-recipe-gavel",
        generator: Generator::Gavel,
        fields: &[
            (Field::Cluster, "v100=12,p100=12,k80=12"),
            (Field::Table, "gavel"),
            (Field::Jobs, "300"),
            (Field::Rate, "3"),
            (Field::Round, "360"),
            (Field::ShareAmong, "jobs"),
        ],
        policies: &[
            named::GAVEL_LAS.name,
            named::GAVEL_LAS_AGNOSTIC.name,
            named::GAVEL_FTF.name,
            "fifo",
        ],
    },
    Recipe {
        name: "OEF's",
        testid: "sim-recipe-oef",
        generator: Generator::Gavel,
        fields: &[
            (Field::Cluster, "v100=12,p100=12,k80=12"),
            (Field::Table, "gavel"),
            (Field::Jobs, "600"),
            (Field::Rate, "3"),
            (Field::Tenants, "8"),
            (Field::TenantMix, "skewed"),
            (Field::ShareAmong, "tenants"),
            (Field::Round, "360"),
        ],
        policies: &[
            named::OEF_COOP.name,
            named::OEF_NONCOOP.name,
            named::GAVEL_HIERARCHICAL.name,
            named::GAVEL_LAS_AGNOSTIC.name,
            named::GANDIVA_FAIR.name,
        ],
    },
    Recipe {
        name: "Synergy's",
        testid: "sim-synergy-setup",
        generator: Generator::Synergy,
        fields: &[
            (Field::Cluster, "gpu=128"),
            (Field::Shape, "8,24,500"),
            (Field::Jobs, "1000"),
            (Field::Rate, "9"),
            (Field::Round, "300"),
            (Field::Measure, "400..700"),
        ],
        policies: &["synergy-proportional", "synergy-tune", "synergy-opt"],
    },
    Recipe {
        name: "SJF-BSBF's",
        testid: "sim-recipe-sjf-bsbf",
        generator: Generator::Gavel,
        fields: &[
            (Field::Cluster, "v100=32"),
            (Field::Table, "gavel"),
            (Field::GpuMemory, "v100=16"),
            (Field::Jobs, "300"),
            (Field::Rate, "1"),
            (Field::Round, "360"),
        ],
        policies: &["sjf-bsbf", "sjf-ffs", "tiresias-2q", "srtf", "las"],
    },
    Recipe {
        name: "Hadar's",
        testid: "sim-recipe-hadar",
        generator: Generator::Gavel,
        fields: &[
            (Field::Cluster, "v100=4,p100=4,k80=4"),
            (Field::Table, "gavel"),
            (Field::Jobs, "300"),
            (Field::Rate, "1"),
            (Field::Seed, "0"),
            (Field::Round, "360"),
            (Field::MixedRate, "slowest"),
        ],
        policies: &[
            named::GAVEL_LAS.name,
            named::GAVEL_MIN_MAKESPAN.name,
            "hadar",
            "hadar:strict",
            "hadare",
        ],
    },
    Recipe {
        name: "Today's GPUs",
        testid: "sim-recipe-todays",
        generator: Generator::Gavel,
        fields: &[
            (
                Field::Cluster,
                "h100=8,a100-80=8,a100-40=8,rtx6000-ada=8,a10=8,v100=8",
            ),
            (Field::Table, "todays-gpus"),
            (Field::GpuMemory, ""),
            (Field::Jobs, "200"),
            (Field::Rate, "4"),
            (Field::Tenants, "10"),
            (Field::TenantMix, "skewed"),
            (Field::ShareAmong, "tenants"),
            (Field::Round, "360"),
        ],
        policies: &[
            "fifo",
            named::GAVEL_LAS.name,
            named::GAVEL_LAS_AGNOSTIC.name,
            named::OEF_COOP.name,
        ],
    },
];

/// What a link's or a saved draft's settings may hold: `;` separates settings and `=` a key from
/// its value, so both are encoded in values (with `%`, `&` and `#`, which end a fragment's field).
const SETTING: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
    .add(b' ')
    .add(b'%')
    .add(b';')
    .add(b'=')
    .add(b'&')
    .add(b'#')
    .add(b'"')
    .add(b'<')
    .add(b'>');

impl SimForm {
    pub fn get(&self, field: Field) -> &str {
        &self.values[field as usize]
    }

    /// The form's settings as text for the page's link (`sim=`) and the saved draft:
    /// `key=value` pairs joined by `;`, a field's key its test id without `sim-`, then
    /// `generator`, `multi-gpu` and `policies` (comma-separated). An uploaded trace or table
    /// is a file, not a setting: it is not in the text.
    pub fn to_settings(&self) -> String {
        let encode = |v: &str| percent_encoding::utf8_percent_encode(v, SETTING).to_string();
        let mut parts: Vec<String> = FIELDS
            .iter()
            .zip(&self.values)
            .map(|(spec, v)| format!("{}={}", spec.testid.trim_start_matches("sim-"), encode(v)))
            .collect();
        let generator = match self.generator {
            Generator::Gavel => "gavel",
            Generator::Synergy => "synergy",
        };
        parts.push(format!("generator={generator}"));
        parts.push(format!("multi-gpu={}", self.multi_gpu));
        parts.push(format!("policies={}", encode(&self.chosen.join(","))));
        parts.join(";")
    }

    /// This form with the settings `text` (from [`SimForm::to_settings`]) applied: a key it
    /// does not know and a policy no family offers are left out, and a value is taken as
    /// text, to be checked when the form is run as when it is typed.
    pub fn with_settings(&self, text: &str) -> SimForm {
        let mut next = self.clone();
        for part in text.split(';') {
            let Some((key, raw)) = part.split_once('=') else {
                continue;
            };
            let value = percent_encoding::percent_decode_str(raw)
                .decode_utf8_lossy()
                .into_owned();
            if let Some(k) = FIELDS
                .iter()
                .position(|spec| spec.testid.trim_start_matches("sim-") == key)
            {
                next.values[k] = value;
                continue;
            }
            match key {
                "generator" if value == "gavel" => next.generator = Generator::Gavel,
                "generator" if value == "synergy" => next.generator = Generator::Synergy,
                "multi-gpu" => next.multi_gpu = value == "true",
                "policies" => {
                    next.chosen = value
                        .split(',')
                        .filter(|p| {
                            FAMILIES
                                .iter()
                                .any(|f| f.policies().iter().any(|(name, _)| name == p))
                        })
                        .map(str::to_string)
                        .collect()
                }
                _ => {}
            }
        }
        next
    }

    /// The form with `recipe` applied: its fields, generator and policies, the synthetic
    /// workload instead of an uploaded trace.
    pub fn with_recipe(&self, recipe: &Recipe) -> SimForm {
        let mut next = self.clone();
        for &(field, value) in recipe.fields {
            next.values[field as usize] = value.to_string();
        }
        next.generator = recipe.generator;
        next.trace = None;
        next.chosen = recipe.policies.iter().map(|p| p.to_string()).collect();
        next
    }

    /// What differs from `before`, in words: "cluster: v100=4,p100=4,k80=4 → gpu=128".
    pub fn changes_from(&self, before: &SimForm) -> Vec<String> {
        let mut out: Vec<String> = FIELDS
            .iter()
            .zip(before.values.iter().zip(&self.values))
            .filter(|(_, (a, b))| a != b)
            .map(|(spec, (a, b))| {
                let shown = |v: &str| {
                    if v.is_empty() {
                        "(empty)".to_string()
                    } else {
                        v.to_string()
                    }
                };
                format!("{}: {} → {}", spec.label, shown(a), shown(b))
            })
            .collect();
        if self.generator != before.generator {
            let name = |g: Generator| match g {
                Generator::Gavel => "Gavel's",
                Generator::Synergy => "Synergy's",
            };
            out.push(format!(
                "workload: {} generator → {}",
                name(before.generator),
                name(self.generator)
            ));
        }
        if before.trace.is_some() && self.trace.is_none() {
            out.push("the uploaded trace set aside for the synthetic workload".into());
        }
        if self.chosen != before.chosen {
            out.push(format!("policies: {}", self.chosen.join(", ")));
        }
        out
    }

    /// The policy names sent to the simulator: Synergy's mechanisms get the chosen ordering.
    fn policy_names(&self) -> Vec<String> {
        let order = self.get(Field::Order);
        self.chosen
            .iter()
            .map(|p| {
                if p.starts_with("synergy-") && order != "fifo" {
                    format!("{p}:{order}")
                } else {
                    p.clone()
                }
            })
            .collect()
    }

    /// The simulator's request and the cluster it runs on, or what is wrong, in words naming
    /// the field.
    pub fn request(&self) -> Result<(SimRequest, Cluster), String> {
        let value = |f: Field| self.get(f);
        let positive = |f: Field| -> Result<f64, String> {
            crate::paste::parse_number(value(f))
                .filter(|v| v.is_finite() && *v > 0.0)
                .ok_or(format!(
                    "{}: '{}' should be a number > 0",
                    f.spec().label,
                    value(f)
                ))
        };
        let shape_text = value(Field::Shape);
        let server_shape = ServerShape::parse(shape_text).map_err(|e| e.to_string())?;
        let mut cluster = Cluster::parse_shaped(value(Field::Cluster), &server_shape)
            .map_err(|e| e.to_string())?;
        cluster.gpu_memory_gb = GpuMemory::parse(value(Field::GpuMemory), &cluster.types)
            .map_err(|e| e.to_string())?
            .0;
        let workload = match &self.trace {
            Some(files) => Workload::Trace {
                name: files[0].0.clone(),
                text: files[0].1.clone(),
                second: files.get(1).cloned(),
            },
            None => {
                let n = positive(Field::Jobs)?;
                if n > 5000.0 || n.fract() != 0.0 {
                    return Err(
                        "jobs: a whole number up to 5,000 in the browser (use the CLI for more)"
                            .into(),
                    );
                }
                let seed = crate::paste::parse_number(value(Field::Seed))
                    .filter(|s| *s >= 0.0 && s.fract() == 0.0)
                    .ok_or("seed: a whole number >= 0")? as u64;
                let jobs_per_hour = positive(Field::Rate)?;
                match self.generator {
                    Generator::Gavel => Workload::Synthetic(SyntheticConfig {
                        jobs: n as usize,
                        jobs_per_hour,
                        seed,
                        tenants: positive(Field::Tenants)? as usize,
                        tenant_mix: TenantMix::parse(value(Field::TenantMix)).unwrap_or_default(),
                    }),
                    Generator::Synergy => Workload::Synergy(SynergyConfig {
                        jobs: n as usize,
                        jobs_per_hour,
                        split: parse_split(value(Field::Split)).map_err(|e| e.to_string())?,
                        multi_gpu: self.multi_gpu,
                        seed,
                    }),
                }
            }
        };
        if self.chosen.is_empty() {
            return Err("pick at least one policy".into());
        }
        let sync = value(Field::SyncOverhead);
        let request = SimRequest {
            cluster: value(Field::Cluster).to_string(),
            workload,
            policies: self.policy_names(),
            round_s: positive(Field::Round)?,
            server_shape: shape_text.to_string(),
            measure_ids: parse_measure(value(Field::Measure))?,
            gpu_memory: value(Field::GpuMemory).to_string(),
            mixed_rate: value(Field::MixedRate).to_string(),
            sync_overhead_s: Some(
                crate::paste::parse_number(sync)
                    .filter(|v| v.is_finite() && *v >= 0.0)
                    .ok_or(format!(
                        "HadarE sync overhead: '{sync}' should be a number of seconds >= 0"
                    ))?,
            ),
            throughputs: self.measured.as_ref().map(|m| NamedText {
                name: m.0.clone(),
                text: m.1.clone(),
            }),
            share_among: value(Field::ShareAmong).to_string(),
            within_tenant: value(Field::WithinTenant).to_string(),
            table: value(Field::Table).to_string(),
        };
        Ok((request, cluster))
    }
}

/// `A..B` with A < B, or nothing for an empty field.
fn parse_measure(text: &str) -> Result<Option<(usize, usize)>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let bad = || format!("steady-state ids: '{text}' should be A..B with whole numbers A < B");
    let (a, b) = text.split_once("..").ok_or_else(bad)?;
    let a: usize = a.trim().parse().map_err(|_| bad())?;
    let b: usize = b.trim().parse().map_err(|_| bad())?;
    if a >= b {
        return Err(bad());
    }
    Ok(Some((a, b)))
}

/// The form with its undo history and what the last recipe changed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FormState {
    pub form: SimForm,
    undo: Vec<SimForm>,
    typing_in: Option<Field>,
    /// The recipe last applied and what it changed, until the next change.
    pub applied: Option<(&'static str, Vec<String>)>,
}

pub enum FormAction {
    Set(Field, String),
    Generator(Generator),
    MultiGpu(bool),
    Toggle(String),
    Trace(Option<Rc<Vec<TraceFile>>>),
    Measured(Option<Rc<TraceFile>>),
    Recipe(usize),
    Undo,
}

impl FormState {
    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }
}

impl Reducible for FormState {
    type Action = FormAction;

    fn reduce(self: Rc<Self>, action: FormAction) -> Rc<Self> {
        let mut next = (*self).clone();
        let mut form = self.form.clone();
        let mut typed = None;
        next.applied = None;
        match action {
            FormAction::Set(field, value) => {
                typed = Some(field);
                form.values[field as usize] = value;
            }
            FormAction::Generator(g) => form.generator = g,
            FormAction::MultiGpu(on) => form.multi_gpu = on,
            FormAction::Toggle(name) => match form.chosen.iter().position(|n| *n == name) {
                Some(k) => {
                    form.chosen.remove(k);
                }
                None => form.chosen.push(name),
            },
            FormAction::Trace(files) => form.trace = files,
            FormAction::Measured(file) => form.measured = file,
            FormAction::Recipe(k) => {
                let Some(recipe) = RECIPES.get(k) else {
                    return self;
                };
                form = self.form.with_recipe(recipe);
                next.applied = Some((recipe.name, form.changes_from(&self.form)));
            }
            FormAction::Undo => {
                let Some(previous) = next.undo.pop() else {
                    return self;
                };
                next.form = previous;
                next.typing_in = None;
                return Rc::new(next);
            }
        }
        if form == self.form {
            return Rc::new(next);
        }
        // Typing in one field is one step back, as in the scenario editor.
        if typed.is_none() || typed != self.typing_in {
            if next.undo.len() == crate::state::UNDO_DEPTH {
                next.undo.remove(0);
            }
            next.undo.push(self.form.clone());
        }
        next.typing_in = typed;
        next.form = form;
        Rc::new(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_travel_as_text_and_come_back_the_same() {
        // A recipe's form with a value holding every separator the text uses.
        let recipe = RECIPES.iter().find(|r| r.name == "Today's GPUs").unwrap();
        let mut form = SimForm::default().with_recipe(recipe);
        form.values[Field::Cluster as usize] = "h100=8,a10=4; x&y#z %".into();
        form.multi_gpu = true;
        let text = form.to_settings();
        assert!(
            text.starts_with("cluster=h100%3D8,a10%3D4%3B%20x%26y%23z%20%25;"),
            "{text}"
        );
        assert!(!text.contains('&') && !text.contains('#'), "{text}");
        assert!(text.ends_with(";generator=gavel;multi-gpu=true;policies=fifo,gavel-las,gavel-las-agnostic,oef-coop"), "{text}");
        let back = SimForm::default().with_settings(&text);
        assert_eq!(back.values, form.values);
        assert_eq!(
            (back.generator, back.multi_gpu),
            (form.generator, form.multi_gpu)
        );
        assert_eq!(back.chosen, form.chosen);
        assert_eq!(back.get(Field::Jobs), "200");
    }

    #[test]
    fn settings_from_elsewhere_keep_only_what_the_form_knows() {
        let form = SimForm::default().with_settings(
            "jobs=7;colour=red;policies=oef-coop,no-such-policy;generator=other;junk",
        );
        assert_eq!(form.get(Field::Jobs), "7");
        assert_eq!(form.chosen, ["oef-coop"]);
        assert_eq!(form.generator, Generator::Gavel);
        // A bad value stays as typed: the form says what is wrong with it when run.
        let bad = SimForm::default().with_settings("jobs=lots");
        assert!(
            bad.request().unwrap_err().contains("jobs"),
            "{:?}",
            bad.request().err()
        );
    }

    #[test]
    fn fields_are_listed_in_their_order() {
        assert_eq!(Field::Cluster.spec().testid, "sim-cluster");
        assert_eq!(Field::SyncOverhead.spec().testid, "sim-sync-overhead");
        assert_eq!(Field::Order.spec().testid, "sim-synergy-order");
        assert_eq!(Field::Table.spec().testid, "sim-table-choice");
        assert_eq!(FIELDS.len(), Field::Table as usize + 1);
        // The table choices are the simulator's built-in tables, in its order.
        let builtin = fairground_sim::throughputs::BUILTIN_TABLES.map(|t| t.0);
        assert_eq!(Field::Table.spec().choices, builtin);
        assert_eq!(Field::Table.spec().initial, builtin[0]);
    }

    #[test]
    fn every_policy_the_simulator_takes_is_in_one_family_and_every_option_shown_once() {
        let mut options: Vec<Field> = FAMILIES
            .iter()
            .flat_map(|f| f.options.iter().copied())
            .collect();
        let count = options.len();
        options.dedup();
        assert_eq!(options.len(), count);
        let offered: Vec<&str> = FAMILIES
            .iter()
            .flat_map(|f| f.policies().into_iter().map(|p| p.0))
            .collect();
        let names = fairground_sim::schedulers::names();
        // And the other way: every policy the simulator takes is offered (it once left out
        // gavel-water-filling, equal-share and isolated, kept by hand).
        for n in &names {
            assert!(offered.contains(&n.as_str()), "{n} is in no family");
        }
        for p in &offered {
            let base = p.split(':').next().unwrap();
            assert!(
                names.iter().any(|n| n == base),
                "{p} is not a simulator policy"
            );
        }
        let mut sorted = offered.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), offered.len(), "a policy in two families");
        // Every recipe's policies are offered.
        for r in &RECIPES {
            assert!(r.policies.iter().all(|p| offered.contains(p)), "{}", r.name);
        }
    }

    #[test]
    fn a_recipe_says_what_it_changed_and_is_undone_in_one_step() {
        let start = Rc::new(FormState::default());
        let typed = start
            .reduce(FormAction::Set(Field::Jobs, "5".into()))
            .reduce(FormAction::Set(Field::Jobs, "50".into()));
        let synergy = RECIPES.iter().position(|r| r.name == "Synergy's").unwrap();
        let applied = typed.clone().reduce(FormAction::Recipe(synergy));
        assert_eq!(applied.form.get(Field::Cluster), "gpu=128");
        assert_eq!(applied.form.generator, Generator::Synergy);
        let (name, changes) = applied.applied.clone().unwrap();
        assert_eq!(name, "Synergy's");
        assert!(
            changes.contains(&"cluster (GPUs per type): v100=4,p100=4,k80=4 → gpu=128".to_string()),
            "{changes:?}"
        );
        assert!(
            changes.contains(&"jobs: 50 → 1000".to_string()),
            "{changes:?}"
        );
        assert!(
            changes.contains(&"steady-state job ids (A..B): (empty) → 400..700".to_string()),
            "{changes:?}"
        );
        assert!(changes
            .iter()
            .any(|c| c == "policies: synergy-proportional, synergy-tune, synergy-opt"));
        let back = applied.reduce(FormAction::Undo);
        assert_eq!(back.form, typed.form);
        assert_eq!(back.form.get(Field::Jobs), "50");
        // The two keystrokes in one field were one step.
        let first = back.reduce(FormAction::Undo);
        assert_eq!(first.form, SimForm::default());
        assert!(!first.can_undo());
    }

    #[test]
    fn requests_name_the_field_that_is_wrong() {
        let mut form = SimForm::default();
        let (request, cluster) = form.request().unwrap();
        assert_eq!(request.policies, ["fifo", "gavel-las", "oef-coop"]);
        assert_eq!(cluster.types, ["v100", "p100", "k80"]);
        assert_eq!(request.round_s, 360.0);
        form.values[Field::Rate as usize] = "fast".into();
        assert_eq!(
            form.request().unwrap_err(),
            "jobs per hour: 'fast' should be a number > 0"
        );
        form.values[Field::Rate as usize] = "4".into();
        form.values[Field::Jobs as usize] = "6000".into();
        assert!(form
            .request()
            .unwrap_err()
            .starts_with("jobs: a whole number up to 5,000"));
        form.values[Field::Jobs as usize] = "40".into();
        form.values[Field::Measure as usize] = "9..3".into();
        assert!(form
            .request()
            .unwrap_err()
            .starts_with("steady-state ids: '9..3'"));
        // Synergy's mechanisms take the chosen ordering.
        form.values[Field::Measure as usize] = String::new();
        form.values[Field::Order as usize] = "srtf".into();
        form.chosen = vec!["synergy-tune".into(), "fifo".into()];
        assert_eq!(
            form.request().unwrap().0.policies,
            ["synergy-tune:srtf", "fifo"]
        );
        form.chosen.clear();
        assert_eq!(form.request().unwrap_err(), "pick at least one policy");
    }
}
