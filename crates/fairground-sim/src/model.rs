//! The simulated cluster and jobs.

pub use crate::error::SimError;
use crate::resources::{JobResources, ServerShape};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Server {
    /// Index into [`Cluster::types`].
    pub gpu_type: usize,
    pub gpus: u32,
    pub cpus: f64,
    pub mem_gb: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cluster {
    pub types: Vec<String>,
    pub servers: Vec<Server>,
    /// GB of memory per GPU, by type (empty or short: [`crate::sharing::default_gpu_memory_gb`]).
    #[serde(default)]
    pub gpu_memory_gb: Vec<f64>,
}

impl Cluster {
    /// Parses `v100=4,p100=4,k80=4`: per type, that many GPUs on servers of up to 8 GPUs
    /// (24 cores, 500 GB each: [`ServerShape::default`]).
    pub fn parse(spec: &str) -> Result<Cluster, SimError> {
        Cluster::parse_shaped(spec, &ServerShape::default())
    }

    /// As [`Cluster::parse`], on servers of `shape` (the last server of a type may hold fewer
    /// GPUs, with the same CPUs and memory per GPU).
    pub fn parse_shaped(spec: &str, shape: &ServerShape) -> Result<Cluster, SimError> {
        shape
            .check()
            .map_err(|e| SimError::Input(format!("server shape: {e}")))?;
        let mut cluster = Cluster {
            types: Vec::new(),
            servers: Vec::new(),
            gpu_memory_gb: Vec::new(),
        };
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, count) = part.split_once('=').ok_or_else(|| {
                SimError::Input(format!(
                    "cluster: '{part}' should be TYPE=GPUS, e.g. v100=4"
                ))
            })?;
            let name = name.trim();
            let count: u32 = count.trim().parse().map_err(|_| {
                SimError::Input(format!(
                    "cluster: '{part}': the GPU count must be a whole number"
                ))
            })?;
            if name.is_empty() || cluster.types.iter().any(|t| t == name) {
                return Err(SimError::Input(format!(
                    "cluster: '{part}': empty or repeated type name"
                )));
            }
            // Checked before the servers are made (a typo of 10^9 GPUs would fill the memory).
            let total = u64::from(cluster.total_gpus()) + u64::from(count);
            if total > crate::limits::MAX_GPUS {
                return Err(SimError::Input(format!(
                    "cluster: '{part}' makes {total} GPUs; at most {} in all (every round walks \
                     every server; the largest public traces' clusters have under 7,000)",
                    crate::limits::MAX_GPUS
                )));
            }
            cluster.add_type_shaped(name, count, shape);
        }
        if cluster.total_gpus() == 0 {
            return Err(SimError::Input(
                "cluster: no GPUs (give e.g. v100=4,p100=4)".into(),
            ));
        }
        Ok(cluster)
    }

    /// Adds a GPU type with `count` GPUs on default servers ([`ServerShape::default`]).
    pub fn add_type(&mut self, name: &str, count: u32) {
        self.add_type_shaped(name, count, &ServerShape::default());
    }

    /// Adds a GPU type with `count` GPUs on servers of `shape`; a last, smaller server keeps the
    /// shape's CPUs and memory per GPU.
    pub fn add_type_shaped(&mut self, name: &str, count: u32, shape: &ServerShape) {
        let j = self.types.len();
        self.types.push(name.to_string());
        let (cpus_per_gpu, mem_per_gpu) = shape.share_per_gpu();
        let mut left = count;
        while left > 0 {
            let gpus = left.min(shape.gpus);
            let full = gpus == shape.gpus;
            self.servers.push(Server {
                gpu_type: j,
                gpus,
                cpus: if full {
                    shape.cpus
                } else {
                    cpus_per_gpu * f64::from(gpus)
                },
                mem_gb: if full {
                    shape.mem_gb
                } else {
                    mem_per_gpu * f64::from(gpus)
                },
            });
            left -= gpus;
        }
    }

    pub fn gpus_of_type(&self, j: usize) -> u32 {
        self.servers
            .iter()
            .filter(|s| s.gpu_type == j)
            .map(|s| s.gpus)
            .sum()
    }

    pub fn total_gpus(&self) -> u32 {
        self.servers.iter().map(|s| s.gpus).sum()
    }

    /// The shape of the largest server (most GPUs, the first of those): the one a job's ideal
    /// demand is capped to, so that it fits somewhere.
    pub fn largest_server(&self) -> ServerShape {
        let mut best: Option<&Server> = None;
        for s in &self.servers {
            if best.is_none_or(|b| s.gpus > b.gpus) {
                best = Some(s);
            }
        }
        best.map_or_else(ServerShape::default, |s| ServerShape {
            gpus: s.gpus,
            cpus: s.cpus,
            mem_gb: s.mem_gb,
        })
    }

    /// MB of memory on one GPU of type `j` (1 GB = 1024 MB).
    pub fn gpu_memory_mb(&self, j: usize) -> f64 {
        let gb = self.gpu_memory_gb.get(j).copied().unwrap_or_else(|| {
            crate::sharing::default_gpu_memory_gb(self.types.get(j).map_or("", String::as_str))
        });
        gb * 1024.0
    }

    /// The GPU-proportional share of one GPU over the whole cluster: (CPUs, GB).
    pub fn share_per_gpu(&self) -> (f64, f64) {
        let gpus = f64::from(self.total_gpus().max(1));
        (self.total_cpus() / gpus, self.total_mem_gb() / gpus)
    }

    pub fn total_cpus(&self) -> f64 {
        self.servers.iter().map(|s| s.cpus).sum()
    }

    pub fn total_mem_gb(&self) -> f64 {
        self.servers.iter().map(|s| s.mem_gb).sum()
    }
}

/// A training job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    pub id: usize,
    pub tenant: String,
    /// The model, as the throughput table names it (e.g. `ResNet-50 (batch size 64)`).
    pub job_type: String,
    /// Seconds from the start of the trace.
    pub arrival: f64,
    pub total_steps: f64,
    /// GPUs the job needs at once.
    pub scale_factor: u32,
    /// `rate[j]`: steps/s of the whole job on `scale_factor` GPUs of cluster type j (0: cannot run).
    pub rate: Vec<f64>,
    /// How its speed depends on CPU and memory, when its model has a profile (Synergy);
    /// without one, CPU and memory do not change its speed.
    #[serde(default)]
    pub resources: Option<JobResources>,
    /// GPU memory footprint in MB, if known (SJF-BSBF's sharing check).
    #[serde(default)]
    pub gpu_mem_mb: Option<f64>,
}

impl Job {
    /// Whether a GPU of type `j` holds the job alone (true when its footprint is unknown).
    pub fn fits_alone(&self, cluster: &Cluster, j: usize) -> bool {
        self.gpu_mem_mb
            .is_none_or(|mb| mb <= cluster.gpu_memory_mb(j))
    }

    /// The fastest rate over types with at least `scale_factor` GPUs, each with memory for the job
    /// alone (when its footprint is known). 0: it can run nowhere, and is reported unschedulable.
    pub fn best_rate(&self, cluster: &Cluster) -> f64 {
        (0..cluster.types.len())
            .filter(|&j| cluster.gpus_of_type(j) >= self.scale_factor)
            .filter(|&j| self.fits_alone(cluster, j))
            .map(|j| self.rate[j])
            .fold(0.0, f64::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cluster_specs_onto_eight_gpu_servers() {
        let c = Cluster::parse("v100=12, k80=4").unwrap();
        assert_eq!(c.types, ["v100", "k80"]);
        assert_eq!(
            c.servers.iter().map(|s| s.gpus).collect::<Vec<_>>(),
            [8, 4, 4]
        );
        assert_eq!(c.gpus_of_type(0), 12);
        for bad in ["v100", "v100=x", "v100=1,v100=2", "v100=0", ""] {
            assert!(Cluster::parse(bad).is_err(), "{bad}");
        }
    }
}
