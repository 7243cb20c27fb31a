//! CPU and memory as resources a job's speed depends on (Synergy, OSDI 2022).
//!
//! A [`Profiles`] file gives, per model, the CPU cores and GB of memory per GPU it is best served
//! with (its *ideal* demand), its speedup there over the GPU-proportional share, its iteration
//! time at that share, and a throughput matrix over (CPUs per GPU) x (GB per GPU) normalised to 1
//! at the proportional share. The format is the one of ../shared/data/synergy/profiles.json; a
//! cited copy of that table is built in ([`Profiles::builtin`]).
//!
//! A job built from a profile carries [`JobResources`]; the engine asks it how fast the job runs
//! with the CPUs and memory a placement gives it ([`JobResources::speedup`]), so a scheduler
//! cannot claim a speed its resources do not buy.

use crate::error::SimError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The built-in profiles: the numbers of Synergy's simulator models (msr-fiddle/synergy,
/// `simulator/models/<model>_1.py`, MIT licence, copyright Microsoft; see the file's `source`).
const BUILTIN: &str = include_str!("../data/synergy_profiles.json");

/// One server's resources, the same for every server of a simulated cluster.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ServerShape {
    pub gpus: u32,
    pub cpus: f64,
    pub mem_gb: f64,
}

impl Default for ServerShape {
    /// Synergy's server: 8 GPUs, 24 CPU cores, 500 GB.
    fn default() -> Self {
        ServerShape {
            gpus: 8,
            cpus: 24.0,
            mem_gb: 500.0,
        }
    }
}

impl ServerShape {
    /// Parses `GPUS,CPUS,MEM_GB`, e.g. `8,24,500`.
    pub fn parse(spec: &str) -> Result<ServerShape, SimError> {
        let bad = |why: &str| {
            SimError::Input(format!(
                "server shape '{spec}': {why} (give GPUS,CPUS,MEM_GB, e.g. 8,24,500)"
            ))
        };
        let parts: Vec<&str> = spec.split(',').map(str::trim).collect();
        if parts.len() != 3 {
            return Err(bad("expected three numbers"));
        }
        let gpus: u32 = parts[0]
            .parse()
            .map_err(|_| bad("the GPU count must be a whole number"))?;
        let number = |s: &str, what: &str| -> Result<f64, SimError> {
            s.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| bad(&format!("{what} '{s}' is not a number")))
        };
        let shape = ServerShape {
            gpus,
            cpus: number(parts[1], "CPUs")?,
            mem_gb: number(parts[2], "memory")?,
        };
        shape.check().map_err(|e| bad(&e))?;
        Ok(shape)
    }

    pub fn check(&self) -> Result<(), String> {
        if self.gpus == 0 {
            return Err("a server needs at least one GPU".into());
        }
        if !(self.cpus.is_finite() && self.cpus > 0.0) {
            return Err(format!("CPUs must be > 0 (got {})", self.cpus));
        }
        if !(self.mem_gb.is_finite() && self.mem_gb > 0.0) {
            return Err(format!("memory must be > 0 GB (got {})", self.mem_gb));
        }
        Ok(())
    }

    /// The GPU-proportional share of one GPU: (CPUs, GB).
    pub fn share_per_gpu(&self) -> (f64, f64) {
        (
            self.cpus / f64::from(self.gpus),
            self.mem_gb / f64::from(self.gpus),
        )
    }
}

/// One model's profile, as the file gives it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelProfile {
    pub task: String,
    pub ideal_cpus_per_gpu: f64,
    pub ideal_mem_gb_per_gpu: f64,
    pub speedup_at_ideal: f64,
    pub iter_time_s: f64,
    /// `tput[r][c]`: throughput at `cpu_rows[r]` CPUs and `mem_cols_gb[c]` GB per GPU, 1 at the
    /// proportional share.
    pub tput: Vec<Vec<f64>>,
}

/// A set of model profiles over one (CPUs per GPU) x (GB per GPU) grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profiles {
    pub cpu_rows: Vec<f64>,
    pub mem_cols_gb: Vec<f64>,
    /// Models per task (image, language, speech), in the order the workload cycles them.
    pub task_models: BTreeMap<String, Vec<String>>,
    pub models: BTreeMap<String, ModelProfile>,
}

impl Profiles {
    /// The built-in copy of Synergy's profiles.
    pub fn builtin() -> Profiles {
        Profiles::from_json(BUILTIN).expect("the built-in profiles are valid")
    }

    /// Reads a profiles file; every problem is located (`models.alexnet.tput[3]: ...`).
    pub fn from_json(text: &str) -> Result<Profiles, SimError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let p: Profiles = serde_path_to_error::deserialize(de)
            .map_err(|e| SimError::Input(format!("profiles: {}: {}", e.path(), e.inner())))?;
        p.check()?;
        Ok(p)
    }

    fn check(&self) -> Result<(), SimError> {
        let bad = |m: String| SimError::Input(format!("profiles: {m}"));
        let ascending = |v: &[f64]| {
            !v.is_empty()
                && v.iter().all(|x| x.is_finite() && *x > 0.0)
                && v.windows(2).all(|w| w[0] < w[1])
        };
        if !ascending(&self.cpu_rows) {
            return Err(bad("cpu_rows must be positive and ascending".into()));
        }
        if !ascending(&self.mem_cols_gb) {
            return Err(bad("mem_cols_gb must be positive and ascending".into()));
        }
        if self.models.is_empty() {
            return Err(bad("no models".into()));
        }
        for (name, m) in &self.models {
            let at = format!("models.{name}");
            if m.tput.len() != self.cpu_rows.len() {
                return Err(bad(format!(
                    "{at}.tput has {} rows for {} cpu_rows",
                    m.tput.len(),
                    self.cpu_rows.len()
                )));
            }
            for (r, row) in m.tput.iter().enumerate() {
                if row.len() != self.mem_cols_gb.len() {
                    return Err(bad(format!(
                        "{at}.tput[{r}] has {} cells for {} mem_cols_gb",
                        row.len(),
                        self.mem_cols_gb.len()
                    )));
                }
                if let Some(c) = row.iter().position(|v| !(v.is_finite() && *v >= 0.0)) {
                    return Err(bad(format!("{at}.tput[{r}][{c}] must be a number >= 0")));
                }
            }
            for (what, v) in [
                ("ideal_cpus_per_gpu", m.ideal_cpus_per_gpu),
                ("ideal_mem_gb_per_gpu", m.ideal_mem_gb_per_gpu),
                ("speedup_at_ideal", m.speedup_at_ideal),
                ("iter_time_s", m.iter_time_s),
            ] {
                if !(v.is_finite() && v > 0.0) {
                    return Err(bad(format!("{at}.{what} must be > 0 (got {v})")));
                }
            }
        }
        for (task, names) in &self.task_models {
            if let Some(n) = names.iter().find(|n| !self.models.contains_key(*n)) {
                return Err(bad(format!(
                    "task_models.{task} names '{n}', which has no profile"
                )));
            }
        }
        Ok(())
    }

    /// The profile of a model, or an error listing the known ones.
    pub fn get(&self, model: &str) -> Result<&ModelProfile, SimError> {
        self.models.get(model).ok_or_else(|| {
            SimError::Input(format!(
                "no profile for model '{model}' (known: {})",
                self.models.keys().cloned().collect::<Vec<_>>().join(", ")
            ))
        })
    }

    /// What a `gpus`-GPU job of `model` needs and gains on servers of `shape`, with Synergy's
    /// multi-GPU caps (../shared/data/synergy/README.md, quirk 4): an ideal demand above one
    /// server's CPUs (memory) is capped there, and the speedup is interpolated linearly on CPUs
    /// between the proportional share (speedup 1) and the uncapped ideal (full speedup). When
    /// even the proportional share of such a job exceeds a server, the demand is the proportional
    /// share at speedup 1.
    pub fn job_resources(
        &self,
        model: &str,
        gpus: u32,
        shape: &ServerShape,
    ) -> Result<JobResources, SimError> {
        let m = self.get(model)?;
        let g = f64::from(gpus);
        let (fair_cpus, fair_mem) = shape.share_per_gpu();
        let (mut cpus, mut mem, mut speedup) = (
            m.ideal_cpus_per_gpu * g,
            m.ideal_mem_gb_per_gpu * g,
            m.speedup_at_ideal,
        );
        if gpus > shape.gpus && (cpus > shape.cpus || mem > shape.mem_gb) {
            (cpus, mem, speedup) = (fair_cpus * g, fair_mem * g, 1.0);
        } else {
            if cpus > shape.cpus {
                let fair = fair_cpus * g;
                let span = cpus - fair;
                speedup = if span > 0.0 {
                    1.0 + (m.speedup_at_ideal - 1.0) * ((shape.cpus - fair) / span).max(0.0)
                } else {
                    1.0
                };
                cpus = shape.cpus;
            }
            mem = mem.min(shape.mem_gb);
        }
        Ok(JobResources {
            ideal_cpus_per_gpu: cpus / g,
            ideal_mem_gb_per_gpu: mem / g,
            speedup_at_ideal: speedup,
            cpu_rows: self.cpu_rows.clone(),
            mem_cols_gb: self.mem_cols_gb.clone(),
            tput: m.tput.iter().flatten().copied().collect(),
        })
    }
}

/// A job's resource sensitivity (from its model's profile, for its GPU count).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobResources {
    /// The demand per GPU Synergy tries to give it (capped to one server for a big job).
    pub ideal_cpus_per_gpu: f64,
    pub ideal_mem_gb_per_gpu: f64,
    /// Its speed at that demand over its speed at the proportional share.
    pub speedup_at_ideal: f64,
    pub cpu_rows: Vec<f64>,
    pub mem_cols_gb: Vec<f64>,
    /// The profile's matrix, row-major.
    pub tput: Vec<f64>,
}

/// Slack for comparing resource amounts (sums of fractions of cores and GB).
const EPS: f64 = 1e-9;

impl JobResources {
    /// The job's speed with `cpus` cores and `mem_gb` GB per GPU, over its speed at the
    /// proportional share. At or above the ideal demand in both: the ideal speedup (Synergy's
    /// default allocators use only this figure, all or nothing). Otherwise the matrix as a step
    /// function: the cell of the largest row and column at or below what is held (below the
    /// grid's first label, that first label's cell, which the profiles mark as slow), never above
    /// the ideal speedup. Synergy's language models ask for 20 GB, just under the 20.83 GB
    /// column; they read that column, which for them is 1 like every other cell.
    pub fn speedup(&self, cpus: f64, mem_gb: f64) -> f64 {
        if cpus + EPS >= self.ideal_cpus_per_gpu && mem_gb + EPS >= self.ideal_mem_gb_per_gpu {
            return self.speedup_at_ideal;
        }
        let step = |labels: &[f64], v: f64| labels.iter().rposition(|&l| l <= v + EPS).unwrap_or(0);
        let (r, c) = (step(&self.cpu_rows, cpus), step(&self.mem_cols_gb, mem_gb));
        self.cell(r, c).min(self.speedup_at_ideal)
    }

    pub fn cell(&self, r: usize, c: usize) -> f64 {
        self.tput[r * self.mem_cols_gb.len() + c]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_server_shapes_and_refuses_empty_servers() {
        assert_eq!(
            ServerShape::parse("8, 24, 500").unwrap(),
            ServerShape::default()
        );
        for bad in [
            "0,24,500", "8,0,500", "8,24,-1", "8,24", "8,x,500", "8,24,inf",
        ] {
            let err = ServerShape::parse(bad).unwrap_err().to_string();
            assert!(err.starts_with(&format!("server shape '{bad}'")), "{err}");
        }
    }

    #[test]
    fn speed_follows_the_profile() {
        let p = Profiles::builtin();
        let shape = ServerShape::default();
        let alexnet = p.job_resources("alexnet", 1, &shape).unwrap();
        // Ideal 12 CPUs, 125 GB: speedup 2.94 (simulator/models/alexnet_1.py).
        assert_eq!(alexnet.speedup(12.0, 125.0), 2.94);
        assert_eq!(alexnet.speedup(24.0, 250.0), 2.94);
        assert_eq!(alexnet.speedup(3.0, 62.5), 1.0);
        assert_eq!(alexnet.speedup(9.0, 62.5), 2.0);
        assert_eq!(
            alexnet.speedup(6.5, 100.0),
            1.75,
            "step: row 6, column 62.5"
        );
        assert_eq!(alexnet.speedup(3.0, 20.0), 0.1, "starved of memory");
        let gnmt = p.job_resources("gnmt", 1, &shape).unwrap();
        assert_eq!(gnmt.speedup(1.0, 20.0), 1.0);
        assert_eq!(gnmt.speedup(3.0, 62.5), 1.0);
    }

    #[test]
    fn big_jobs_are_capped_to_one_server_with_interpolated_speedup() {
        let p = Profiles::builtin();
        let shape = ServerShape::default();
        // 4-GPU alexnet: ideal 48 CPUs > 24, so 24 CPUs (6 per GPU) and speedup
        // 1 + 1.94 x (24 - 12) / (48 - 12) = 1.6467; memory 500 GB, not capped.
        let r = p.job_resources("alexnet", 4, &shape).unwrap();
        assert_eq!(r.ideal_cpus_per_gpu, 6.0);
        assert_eq!(r.ideal_mem_gb_per_gpu, 125.0);
        assert!((r.speedup_at_ideal - (1.0 + 1.94 / 3.0)).abs() < 1e-12);
        // 4-GPU m5: 24 CPUs is exactly one server, memory 750 GB capped at 500 GB, speedup kept.
        let m5 = p.job_resources("m5", 4, &shape).unwrap();
        assert_eq!(
            (m5.ideal_cpus_per_gpu, m5.ideal_mem_gb_per_gpu),
            (6.0, 125.0)
        );
        assert_eq!(m5.speedup_at_ideal, 2.5);
        // 16-GPU alexnet spans servers: proportional share, speedup 1.
        let big = p.job_resources("alexnet", 16, &shape).unwrap();
        assert_eq!((big.ideal_cpus_per_gpu, big.speedup_at_ideal), (3.0, 1.0));
    }

    #[test]
    fn bad_profiles_get_located_errors() {
        let mut v: serde_json::Value = serde_json::from_str(BUILTIN).unwrap();
        v["models"]["res50"]["tput"][2] = serde_json::json!([1.0, 1.0]);
        let err = Profiles::from_json(&v.to_string()).unwrap_err().to_string();
        assert_eq!(
            err,
            "profiles: models.res50.tput[2] has 2 cells for 5 mem_cols_gb"
        );
        let mut v: serde_json::Value = serde_json::from_str(BUILTIN).unwrap();
        v["models"]["m5"]["iter_time_s"] = serde_json::json!("slow");
        let err = Profiles::from_json(&v.to_string()).unwrap_err().to_string();
        assert!(err.starts_with("profiles: models.m5.iter_time_s:"), "{err}");
        let err = Profiles::builtin().get("vgg").unwrap_err().to_string();
        assert!(
            err.starts_with("no profile for model 'vgg' (known: alexnet"),
            "{err}"
        );
    }

    /// The built-in copy holds Synergy's own figures for res50 (msr-fiddle/synergy,
    /// `simulator/models/res50_1.py`, read at 1b013c2: `tput` rows 1-24 CPUs, columns 20.83-250 GB;
    /// 0.4, 0.74, 1 and 1.15 at 1-4 CPUs with 62.5 GB, 0.1 starved of memory).
    #[test]
    fn builtin_holds_synergy_s_res50_figures() {
        let res50 = Profiles::builtin()
            .job_resources("res50", 1, &ServerShape::default())
            .unwrap();
        for (cpus, speedup) in [
            (1.0, 0.4),
            (2.0, 0.74),
            (3.0, 1.0),
            (4.0, 1.15),
            (24.0, 1.15),
        ] {
            assert_eq!(res50.speedup(cpus, 62.5), speedup, "{cpus} CPUs");
        }
        assert_eq!(res50.speedup(4.0, 20.0), 0.1);
    }
}
