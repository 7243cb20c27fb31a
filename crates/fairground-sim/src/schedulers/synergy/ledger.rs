//! What is free and who holds what during one Synergy round: GPUs, CPUs and memory per server,
//! and the jobs placed so far (Tune takes resources back from them).

use crate::model::{Cluster, Job};
use crate::schedulers::{Piece, Placement};
use fairground_core::order::sort_indices_by;

/// Slack for sums of fractional cores and GB.
const EPS: f64 = 1e-9;

/// CPUs and GB per GPU.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Demand {
    pub cpus: f64,
    pub mem_gb: f64,
}

pub struct Ledger<'a> {
    cluster: &'a Cluster,
    /// Free GPU indices per server, ascending.
    free_gpus: Vec<Vec<u32>>,
    free_cpus: Vec<f64>,
    free_mem: Vec<f64>,
    /// Jobs placed this round, in placing order.
    pub placed: Vec<Placement>,
    /// The per-GPU proportional share (Synergy's "fair share").
    pub fair: Demand,
}

impl<'a> Ledger<'a> {
    pub fn new(cluster: &'a Cluster) -> Ledger<'a> {
        let (cpus, mem_gb) = cluster.share_per_gpu();
        Ledger {
            cluster,
            free_gpus: cluster
                .servers
                .iter()
                .map(|s| (0..s.gpus).collect())
                .collect(),
            free_cpus: cluster.servers.iter().map(|s| s.cpus).collect(),
            free_mem: cluster.servers.iter().map(|s| s.mem_gb).collect(),
            placed: Vec::new(),
            fair: Demand { cpus, mem_gb },
        }
    }

    pub fn free_gpu_count(&self) -> usize {
        self.free_gpus.iter().map(Vec::len).sum()
    }

    /// Free GPUs on servers where `job` can run.
    pub fn free_for(&self, job: &Job) -> usize {
        self.servers_for(job).map(|s| self.free_gpus[s].len()).sum()
    }

    fn servers_for<'b>(&'b self, job: &'b Job) -> impl Iterator<Item = usize> + 'b {
        (0..self.free_gpus.len()).filter(move |&s| job.rate[self.cluster.servers[s].gpu_type] > 0.0)
    }

    /// Synergy's placement: first fit over free GPUs in id order (servers in order, GPUs in
    /// order within each), a server accepting one more GPU while its free CPUs and memory cover
    /// the per-GPU demand. Books and records the job when all `gpus` are found; otherwise takes
    /// nothing.
    pub fn first_fit(&mut self, job_index: usize, job: &Job, demand: Demand) -> bool {
        let mut pieces = Vec::new();
        let mut left = job.scale_factor as usize;
        for s in self.servers_for(job).collect::<Vec<_>>() {
            if left == 0 {
                break;
            }
            let by_cpu = if demand.cpus > 0.0 {
                ((self.free_cpus[s] + EPS) / demand.cpus).floor() as usize
            } else {
                usize::MAX
            };
            let by_mem = if demand.mem_gb > 0.0 {
                ((self.free_mem[s] + EPS) / demand.mem_gb).floor() as usize
            } else {
                usize::MAX
            };
            let n = left.min(self.free_gpus[s].len()).min(by_cpu).min(by_mem);
            if n > 0 {
                pieces.push((s, n));
                left -= n;
            }
        }
        if left > 0 {
            return false;
        }
        self.book(job_index, demand, pieces);
        true
    }

    /// Books `n` GPUs on each (server, n) for the job at `demand` per GPU, and records it.
    fn book(&mut self, job_index: usize, demand: Demand, counts: Vec<(usize, usize)>) {
        let pieces: Vec<Piece> = counts
            .into_iter()
            .map(|(s, n)| {
                self.free_cpus[s] -= demand.cpus * n as f64;
                self.free_mem[s] -= demand.mem_gb * n as f64;
                Piece {
                    server: s,
                    gpus: self.free_gpus[s].drain(..n).collect(),
                    copy: 0,
                }
            })
            .collect();
        self.placed.push(Placement {
            job: job_index,
            pieces,
            cpus_per_gpu: demand.cpus,
            mem_gb_per_gpu: demand.mem_gb,
            sharing: None,
        });
    }

    /// OPT's packing: like [`Ledger::first_fit`], but each GPU goes to the server that keeps the
    /// most room, and a server only accepts a GPU if what it has left still covers `reserve` per
    /// GPU for as many of its other free GPUs as there are GPUs still to pack after this job
    /// (`reserve`: the least demand among those jobs), so rich jobs are spread out instead of
    /// starving a server's remaining GPUs. Room is the smaller of the CPU and memory slack, each
    /// as a fraction of the server's.
    pub fn spread_fit(
        &mut self,
        job_index: usize,
        job: &Job,
        demand: Demand,
        (reserve, gpus_after): (Demand, usize),
    ) -> bool {
        let servers: Vec<usize> = self.servers_for(job).collect();
        let mut cpus = self.free_cpus.clone();
        let mut mem = self.free_mem.clone();
        let mut free: Vec<usize> = self.free_gpus.iter().map(Vec::len).collect();
        let mut taken: Vec<usize> = vec![0; self.free_gpus.len()];
        for _ in 0..job.scale_factor {
            let room = |s: usize| {
                let rest = free[s].saturating_sub(1).min(gpus_after) as f64;
                let c = cpus[s] - demand.cpus - reserve.cpus * rest;
                let m = mem[s] - demand.mem_gb - reserve.mem_gb * rest;
                let server = &self.cluster.servers[s];
                (c >= -EPS && m >= -EPS).then(|| (c / server.cpus).min(m / server.mem_gb))
            };
            let best = servers
                .iter()
                .filter(|&&s| free[s] > 0)
                .filter_map(|&s| room(s).map(|r| (s, r)))
                // Prefer a server the job already uses (fewer pieces), then the most room.
                .max_by(|a, b| {
                    (taken[a.0] > 0)
                        .cmp(&(taken[b.0] > 0))
                        .then(a.1.total_cmp(&b.1))
                        .then(b.0.cmp(&a.0))
                });
            let Some((s, _)) = best else {
                return false;
            };
            cpus[s] -= demand.cpus;
            mem[s] -= demand.mem_gb;
            free[s] -= 1;
            taken[s] += 1;
        }
        let counts = taken
            .into_iter()
            .enumerate()
            .filter(|&(_, n)| n > 0)
            .collect();
        self.book(job_index, demand, counts);
        true
    }

    /// Synergy-Tune's last resort for a job of `gpus` GPUs that fits nowhere at `demand`: pick
    /// servers (the first with `gpus` free GPUs for a multi-GPU job; otherwise servers with the
    /// fewest free GPUs first, as many as it takes), and on each take back CPUs and memory
    /// above the proportional share from jobs placed there this round — fewest servers spanned
    /// first, then most CPUs, then most memory per GPU — until that server's share of the demand
    /// is free. A job taken from drops to the proportional share on every server it spans
    /// (never below it: a job already at or below the share in every resource is left as is).
    pub fn take_back(&mut self, job: &Job, demand: Demand) {
        let gpus = job.scale_factor as usize;
        let mut targets: Vec<(usize, usize)> = Vec::new();
        let servers: Vec<usize> = self.servers_for(job).collect();
        if gpus > 1 {
            if let Some(&s) = servers.iter().find(|&&s| self.free_gpus[s].len() >= gpus) {
                targets.push((s, gpus));
            }
        }
        if targets.is_empty() {
            let mut by_free: Vec<usize> = servers
                .into_iter()
                .filter(|&s| !self.free_gpus[s].is_empty())
                .collect();
            sort_indices_by(&mut by_free, &|a, b| {
                (self.free_gpus[a].len(), a).cmp(&(self.free_gpus[b].len(), b))
            });
            let mut need = gpus;
            for s in by_free {
                if need == 0 {
                    break;
                }
                let n = need.min(self.free_gpus[s].len());
                targets.push((s, n));
                need -= n;
            }
        }
        for (s, n) in targets {
            let mut need_cpus = (demand.cpus * n as f64 - self.free_cpus[s]).max(0.0);
            let mut need_mem = (demand.mem_gb * n as f64 - self.free_mem[s]).max(0.0);
            if need_cpus <= EPS && need_mem <= EPS {
                continue;
            }
            let mut peers: Vec<usize> = (0..self.placed.len())
                .filter(|&k| self.placed[k].pieces.iter().any(|p| p.server == s))
                .collect();
            sort_indices_by(&mut peers, &|a, b| {
                let (pa, pb) = (&self.placed[a], &self.placed[b]);
                pa.pieces
                    .len()
                    .cmp(&pb.pieces.len())
                    .then(pb.cpus_per_gpu.total_cmp(&pa.cpus_per_gpu))
                    .then(pb.mem_gb_per_gpu.total_cmp(&pa.mem_gb_per_gpu))
                    .then(a.cmp(&b))
            });
            for k in peers {
                let here = self.placed[k]
                    .pieces
                    .iter()
                    .filter(|p| p.server == s)
                    .map(|p| p.gpus.len())
                    .sum::<usize>() as f64;
                let excess_cpus = ((self.placed[k].cpus_per_gpu - self.fair.cpus) * here).max(0.0);
                let excess_mem =
                    ((self.placed[k].mem_gb_per_gpu - self.fair.mem_gb) * here).max(0.0);
                self.drop_to_fair(k);
                need_cpus = (need_cpus - excess_cpus).max(0.0);
                need_mem = (need_mem - excess_mem).max(0.0);
                if need_cpus <= EPS && need_mem <= EPS {
                    break;
                }
            }
        }
    }

    /// Puts placed job `k` at the proportional share if it holds more of some resource
    /// (Synergy's `_make_fair_share`: both resources go to the share, speed to 1).
    pub fn drop_to_fair(&mut self, k: usize) {
        let p = &mut self.placed[k];
        if p.cpus_per_gpu <= self.fair.cpus + EPS && p.mem_gb_per_gpu <= self.fair.mem_gb + EPS {
            return;
        }
        for piece in &p.pieces {
            let n = piece.gpus.len() as f64;
            self.free_cpus[piece.server] += (p.cpus_per_gpu - self.fair.cpus) * n;
            self.free_mem[piece.server] += (p.mem_gb_per_gpu - self.fair.mem_gb) * n;
        }
        p.cpus_per_gpu = self.fair.cpus;
        p.mem_gb_per_gpu = self.fair.mem_gb;
    }
}
