//! What the simulator accepts, checked before any work: so a typo (`v100=1000000000`,
//! `--synthetic 100000000`) or an absurd trace row (a corrupt duration of 1e15 steps) gets a
//! message at once instead of a run that spins or fills the machine's memory.
//!
//! Each limit comes from a measurement on the project's machine kind (2 cores, 24 GB; release
//! CLI, `fifo`), recorded in BENCHMARKS.md ("Input limits"):
//! - [`MAX_GPUS`]: every round walks every server, so time grows with the cluster: 100,000 GPUs
//!   took 1.2 s for 10 jobs, 1,000,000 took 13.7 s. The largest public traces' clusters have
//!   under 7,000 GPUs.
//! - [`DEFAULT_MAX_JOBS`]: a run keeps about 650 B per job (100,000 jobs: 81 MB peak; 400,000:
//!   259 MB), and each `--policy` runs on its own copy: 2,000,000 jobs is about 1.3 GB a policy.
//!   `--max-jobs` raises it for a machine with more memory.
//! - [`MAX_JOB_S`] and [`MAX_ARRIVAL_S`]: the engine advances round by round while a job runs,
//!   about 700,000 rounds a second for a lone job, so a job's length and the time before the
//!   last arrival bound the run. A year at a job's fastest rate (87,600 rounds of 360 s) and ten
//!   years of arrivals are far past any published trace (Philly, Helios and PAI span months).
//!
//! Why bounds, and no skipping over rounds in which nothing changes: every quantity a round
//! updates is a running floating-point sum (the clock, each job's steps left, its attained
//! service, busy GPU-seconds, the utilisation series that is merged in pairs as it grows), so a
//! jump over k rounds gives other last digits than k rounds do, and schedules must not move; and
//! most schedulers (Gavel's round mechanism, LAS, Tiresias, SRTF, Hadar, Synergy) change their
//! decision or their own state as a job's service grows, so a stretch of identical rounds is
//! not known without running it. Within the limits the longest lone job is 87,600 rounds:
//! 0.05 s under fifo, 0.17 s under Hadar (BENCHMARKS.md, "Input limits").

/// Most GPUs a cluster may have, in all types together.
pub const MAX_GPUS: u64 = 100_000;

/// Most jobs one workload may have unless the caller raises it (`--max-jobs`).
pub const DEFAULT_MAX_JOBS: usize = 2_000_000;

/// Longest a job may take at its fastest rate: one year.
pub const MAX_JOB_S: f64 = 365.0 * 24.0 * 3600.0;

/// Latest a job may arrive: ten years after time 0.
pub const MAX_ARRIVAL_S: f64 = 10.0 * MAX_JOB_S;

/// Samples kept per series of a run's result (utilisation, tenant shares, tenants' verdicts over
/// time): past twice this, neighbours are merged in pairs, so a long run's result stays small.
pub const MAX_SAMPLES: usize = 1000;

/// A job's arrival and length against the limits (its steps over its fastest whole-job rate,
/// `rate` per GPU type); the message says which limit and by how much, for the caller to locate
/// (a job id, a line). A job that can run nowhere (every rate 0) has no length and is not refused
/// here. (Numbers, not a `Job`: the limits sit below the model, which checks its cluster
/// against [`MAX_GPUS`].)
pub fn check_job(arrival: f64, total_steps: f64, rate: &[f64]) -> Result<(), String> {
    if arrival > MAX_ARRIVAL_S {
        return Err(format!(
            "arrives at {:e} s, past the {:.0}-year horizon ({MAX_ARRIVAL_S:e} s) the simulator \
             accepts",
            arrival,
            MAX_ARRIVAL_S / MAX_JOB_S
        ));
    }
    let fastest = rate.iter().copied().fold(0.0, f64::max);
    if fastest > 0.0 {
        let seconds = total_steps / fastest;
        if seconds > MAX_JOB_S {
            return Err(format!(
                "{:e} steps take {:.3e} s ({:.3e} years) even at its fastest rate ({fastest} \
                 steps/s); a job may take at most a year (a corrupt duration?)",
                total_steps,
                seconds,
                seconds / MAX_JOB_S
            ));
        }
    }
    Ok(())
}

/// The job count against `max_jobs`, with how to go past it.
pub fn check_job_count(jobs: usize, max_jobs: usize) -> Result<(), String> {
    if jobs > max_jobs {
        return Err(format!(
            "{jobs} jobs: at most {max_jobs} (about 650 B a job for each policy run; \
             --max-jobs N raises the limit on a machine with more memory)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_year_at_the_fastest_rate_and_ten_years_of_arrivals() {
        // 31,536,000 steps at 1 step/s is exactly a year: accepted; one more step is not.
        assert!(check_job(0.0, MAX_JOB_S, &[0.5, 1.0]).is_ok());
        let err = check_job(0.0, MAX_JOB_S + 1.0, &[0.5, 1.0]).unwrap_err();
        assert!(err.contains("at most a year"), "{err}");
        assert!(check_job(MAX_ARRIVAL_S, 1.0, &[1.0]).is_ok());
        let err = check_job(MAX_ARRIVAL_S + 1.0, 1.0, &[1.0]).unwrap_err();
        assert!(err.contains("10-year horizon"), "{err}");
        // Runs nowhere: no length to check (the engine reports it unschedulable).
        assert!(check_job(0.0, 1e300, &[0.0]).is_ok());
        assert!(check_job_count(2, 2).is_ok());
        assert!(check_job_count(3, 2).unwrap_err().contains("--max-jobs"));
    }
}
