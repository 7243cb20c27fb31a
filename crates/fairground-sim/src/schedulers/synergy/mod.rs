//! Synergy (Mohan et al., OSDI 2022): CPU- and memory-aware allocation, each mechanism paired with
//! a job ordering, as its simulator does it (msr-fiddle/synergy, `simulator/schedulers/*` and
//! `resources/cluster.py`; ../shared/BACKGROUND.md).
//!
//! Every round all leases end and the whole cluster is reallocated: jobs are taken in the
//! ordering's sequence; each job whose GPU count fits the GPUs still free is offered to the
//! mechanism, which places it or skips it for this round (later jobs backfill):
//! - `proportional`: g x the proportional share (cluster CPUs and memory per GPU), speedup 1;
//! - `greedy`: the ideal demand from the job's profile, or skip the round;
//! - `tune`: the ideal demand; else the proportional share; else take back CPUs and memory
//!   above the proportional share from jobs already placed this round ([`ledger::Ledger::take_back`])
//!   and place it at the proportional share;
//! - `opt`: an integer program over the jobs that fit by GPU count ([`opt`]).
//!
//! Placement is first fit over free GPUs in id order, a server accepting a GPU while its free CPUs
//! and memory cover the per-GPU demand. The engine derives each job's speed from what it holds
//! ([`crate::resources::JobResources::speedup`]); a job without a profile runs at its rate.
//!
//! Differences from Synergy's simulator, all small: a job finishes at its exact instant, not at
//! the end of the round in which it completes (JCTs here are up to one round shorter); Synergy's
//! promotion of jobs not run for 1,000 hours is left out (it never triggers on these workloads).

mod ledger;
mod opt;

use super::{JobState, Placement, RoundView, Scheduler};
use crate::model::{Job, SimError};
use fairground_core::order::sort_indices_by;
use ledger::{Demand, Ledger};

/// How CPU and memory are given out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mechanism {
    Proportional,
    Greedy,
    Tune,
    Opt,
}

/// The sequence in which jobs are offered each round (ascending key, ties by arrival).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Arrival time.
    Fifo,
    /// Remaining duration (at the proportional share for `proportional`, else at the ideal).
    Srtf,
    /// Attained service: seconds run x GPUs.
    Las,
    /// Finish-time fairness (time since arrival + remaining duration) / duration at the
    /// proportional share, ascending as Synergy's `ftf_synergy_new.py` sorts it.
    Ftf,
    /// Dominant share of the ideal demand over the cluster's GPUs, CPUs and memory.
    Drf,
    /// Remaining duration x the sum of the ideal demand's cluster fractions.
    Tetris,
}

pub const MECHANISMS: [&str; 4] = ["proportional", "greedy", "tune", "opt"];
pub const ORDERS: [&str; 6] = ["fifo", "srtf", "las", "ftf", "drf", "tetris"];

pub struct Synergy {
    mechanism: Mechanism,
    order: Order,
    opt_report: opt::Report,
}

impl Synergy {
    /// `synergy-MECHANISM[:ORDER]`; None when the name is not a Synergy policy at all.
    pub fn parse(name: &str) -> Option<Result<Synergy, SimError>> {
        let rest = name.strip_prefix("synergy-")?;
        let (mech, order) = rest.split_once(':').unwrap_or((rest, "fifo"));
        let mechanism = match mech {
            "proportional" => Mechanism::Proportional,
            "greedy" => Mechanism::Greedy,
            "tune" => Mechanism::Tune,
            "opt" => Mechanism::Opt,
            _ => {
                return Some(Err(SimError::Input(format!(
                    "policy '{name}': unknown Synergy mechanism '{mech}' (known: {})",
                    MECHANISMS.join(", ")
                ))))
            }
        };
        let order = match order {
            "fifo" => Order::Fifo,
            "srtf" => Order::Srtf,
            "las" => Order::Las,
            "ftf" => Order::Ftf,
            "drf" => Order::Drf,
            "tetris" => Order::Tetris,
            _ => {
                return Some(Err(SimError::Input(format!(
                    "policy '{name}': unknown ordering '{order}' (known: {})",
                    ORDERS.join(", ")
                ))))
            }
        };
        Some(Ok(Synergy {
            mechanism,
            order,
            opt_report: opt::Report::default(),
        }))
    }

    /// The active jobs (indices into `view.active`) in this round's sequence.
    fn sequence(&self, view: &RoundView) -> Vec<usize> {
        let (gpus, cpus, mem) = (
            f64::from(view.cluster.total_gpus().max(1)),
            view.cluster.total_cpus().max(f64::MIN_POSITIVE),
            view.cluster.total_mem_gb().max(f64::MIN_POSITIVE),
        );
        let at_ideal = self.mechanism != Mechanism::Proportional;
        let fractions = |job: &Job| {
            let g = f64::from(job.scale_factor);
            let (c, m) = ideal(job, view.cluster);
            (g / gpus, g * c / cpus, g * m / mem)
        };
        let key = |s: &JobState| -> f64 {
            let job = &view.jobs[s.job];
            let rate = job.best_rate(view.cluster).max(f64::MIN_POSITIVE);
            let speedup = if at_ideal {
                job.resources.as_ref().map_or(1.0, |r| r.speedup_at_ideal)
            } else {
                1.0
            };
            let remaining = s.remaining_steps / rate / speedup;
            match self.order {
                Order::Fifo => 0.0,
                Order::Srtf => remaining,
                Order::Las => s.attained_gpu_s,
                Order::Ftf => {
                    let elapsed = view.now - job.arrival;
                    (elapsed + remaining) / (job.total_steps / rate)
                }
                Order::Drf => {
                    let (g, c, m) = fractions(job);
                    g.max(c).max(m)
                }
                Order::Tetris => {
                    let (g, c, m) = fractions(job);
                    remaining * (g + c + m)
                }
            }
        };
        let keys: Vec<f64> = view.active.iter().map(key).collect();
        let mut order: Vec<usize> = (0..view.active.len()).collect();
        sort_indices_by(&mut order, &|a, b| {
            keys[a].total_cmp(&keys[b]).then(a.cmp(&b))
        });
        order
    }
}

/// The ideal CPUs and GB per GPU of a job (the proportional share when it has no profile).
fn ideal(job: &Job, cluster: &crate::model::Cluster) -> (f64, f64) {
    match &job.resources {
        Some(r) => (r.ideal_cpus_per_gpu, r.ideal_mem_gb_per_gpu),
        None => cluster.share_per_gpu(),
    }
}

/// Places one job by Tune's steps; false when even the last step leaves it without room.
fn tune(ledger: &mut Ledger, index: usize, job: &Job, ideal_demand: Demand) -> bool {
    if ledger.first_fit(index, job, ideal_demand) {
        return true;
    }
    let fair = ledger.fair;
    // Synergy's `_make_fair_share`: a demand above the share in some resource becomes the share
    // in both; a demand at or below it in both stays.
    let demand = if ideal_demand.cpus > fair.cpus || ideal_demand.mem_gb > fair.mem_gb {
        fair
    } else {
        ideal_demand
    };
    if demand != ideal_demand && ledger.first_fit(index, job, demand) {
        return true;
    }
    ledger.take_back(job, demand);
    ledger.first_fit(index, job, demand)
}

impl Scheduler for Synergy {
    fn name(&self) -> String {
        let mech = MECHANISMS[self.mechanism as usize];
        let order = ORDERS[self.order as usize];
        format!("synergy-{mech}:{order}")
    }

    fn schedule(&mut self, view: &RoundView) -> Result<Vec<Placement>, SimError> {
        let order = self.sequence(view);
        let mut ledger = Ledger::new(view.cluster);
        if self.mechanism == Mechanism::Opt {
            opt::place(view, &order, &mut ledger, &mut self.opt_report)?;
            return Ok(ledger.placed);
        }
        for k in order {
            let index = view.active[k].job;
            let job = &view.jobs[index];
            if ledger.free_gpu_count() == 0 {
                break;
            }
            if ledger.free_for(job) < job.scale_factor as usize {
                continue;
            }
            let (cpus, mem_gb) = ideal(job, view.cluster);
            let ideal_demand = Demand { cpus, mem_gb };
            match self.mechanism {
                Mechanism::Proportional => {
                    ledger.first_fit(index, job, ledger.fair);
                }
                Mechanism::Greedy => {
                    ledger.first_fit(index, job, ideal_demand);
                }
                Mechanism::Tune => {
                    tune(&mut ledger, index, job, ideal_demand);
                }
                Mechanism::Opt => {} // placed as a whole above
            }
        }
        Ok(ledger.placed)
    }

    fn notes(&self) -> Vec<String> {
        if self.mechanism == Mechanism::Opt {
            self.opt_report.notes()
        } else {
            Vec::new()
        }
    }
}
