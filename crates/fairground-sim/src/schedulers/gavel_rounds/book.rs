//! Gavel's bookkeeping between allocation resets, as its simulator keeps it
//! (`scheduler.py`: `_reset_time_run_so_far`, `_update_priorities`, `_done_callback`):
//!
//! ```text
//! job_time[i][j]   seconds job i ran on type j since the last reset, plus a half-round credit
//!                  given at the reset and at the job's arrival
//! worker_time[j]   the credits of the jobs present at the reset, plus every second run on j
//!                  since (jobs that finished included)
//! priority[i][j]   0 without an allocation, or where x_ij = 0 or i cannot run on j;
//!                  else x_ij / (job_time[i][j] / worker_time[j]), or x_ij * 1e9 while that
//!                  fraction is 0
//! deficit[i][j]   += x_ij (now - last reset) - (job_time[i][j] - credit), at each reset
//! ```
//!
//! The fraction a priority divides by is job i's share of all the time type j gave out since
//! the reset, which is how Gavel's code measures "rounds received".

use super::super::{JobState, Ran};
use super::shares::Shares;

/// Job i's clock and deficit on type j, side by side: a round reads both for each job that ran.
#[derive(Clone, Copy, Default)]
struct Slot {
    job_time: f64,
    deficit: f64,
}

pub(super) struct Book {
    credit: f64,
    types: usize,
    /// slot[i * types + j]; meaningful while job i is `live`.
    slot: Vec<Slot>,
    worker_time: Vec<f64>,
    /// live[i]: job i is active (it has a clock).
    live: Vec<bool>,
    /// When the last reset happened (0 counts as never, as in Gavel).
    pub last_reset: f64,
    /// The deficits the last reset left, of the jobs it was given, in that order
    /// (`k * types + j`): the lists' rebuild reads them densely rather than per job.
    at_reset: Vec<f64>,
}

impl Book {
    pub fn new(jobs: usize, types: usize, round_s: f64) -> Book {
        Book {
            credit: round_s / 2.0,
            types,
            slot: vec![Slot::default(); jobs * types],
            worker_time: vec![0.0; types],
            live: vec![false; jobs],
            last_reset: 0.0,
            at_reset: Vec::new(),
        }
    }

    /// Counts the previous round's time, then forgets jobs that finished in it and starts the
    /// jobs that arrived with the credit (Gavel: the done callbacks, then `_remove_job`, then
    /// `add_job`). The arrivals are pushed onto `arrived`, in arrival order. The cost follows
    /// the round's runs and arrivals, not the number of active jobs: arrivals are the tail of
    /// `active` (it is in arrival order) that has no clock yet.
    pub fn update(&mut self, last_round: &[Ran], active: &[JobState], arrived: &mut Vec<usize>) {
        let types = self.types;
        for r in last_round {
            self.worker_time[r.gpu_type] += r.seconds;
            if self.live[r.job] {
                self.slot[r.job * types + r.gpu_type].job_time += r.seconds;
            }
        }
        for r in last_round.iter().filter(|r| r.finished) {
            self.live[r.job] = false;
        }
        let first_new = active
            .iter()
            .rposition(|s| self.live[s.job])
            .map_or(0, |k| k + 1);
        for s in &active[first_new..] {
            let i = s.job;
            self.live[i] = true;
            self.slot[i * types..(i + 1) * types].fill(Slot {
                job_time: self.credit,
                deficit: 0.0,
            });
            arrived.push(i);
        }
    }

    /// A reset before x is recomputed: each deficit grows by the time the old allocation
    /// promised less the time received, and every clock restarts from the credit. `active`
    /// are the jobs with clocks (as after [`Book::update`]).
    pub fn reset(&mut self, now: f64, x: &Shares, active: &[JobState]) {
        let elapsed = now - self.last_reset;
        let types = self.types;
        self.worker_time.iter_mut().for_each(|w| *w = 0.0);
        self.at_reset.clear();
        for s in active {
            let i = s.job;
            let xi = x.of(i);
            for j in 0..types {
                let slot = &mut self.slot[i * types + j];
                let received = slot.job_time - self.credit;
                let promised = xi.get(j).map_or(0.0, |x| x * elapsed);
                slot.deficit += promised - received;
                slot.job_time = self.credit;
                self.at_reset.push(slot.deficit);
                self.worker_time[j] += self.credit;
            }
        }
        self.last_reset = now;
    }

    /// The deficits the last reset left: `[k * types + j]` is type j's for the k-th job it was
    /// given.
    pub fn deficits_at_reset(&self) -> &[f64] {
        &self.at_reset
    }

    /// Seconds job i ran on type j since the reset, with the credit (see the module's table).
    pub fn job_time(&self, i: usize, j: usize) -> f64 {
        self.slot[i * self.types + j].job_time
    }

    /// All the time type j gave out since the reset, with the credits.
    pub fn worker_time(&self, j: usize) -> f64 {
        self.worker_time[j]
    }

    /// The credit a job's clock starts from at a reset and at its arrival.
    pub fn credit(&self) -> f64 {
        self.credit
    }

    /// Job i's priority on type j (see the module's table); `rate` is its throughput there.
    pub fn priority(&self, i: usize, j: usize, x: &[f64], rate: f64) -> f64 {
        let Some(&xij) = x.get(j) else {
            return 0.0;
        };
        if xij == 0.0 || rate == 0.0 {
            return 0.0;
        }
        self.priority_at(j, xij, self.job_time(i, j))
    }

    /// The priority on type j of a job that can run there with x_ij = `xij` > 0 and `jt` on
    /// its clock.
    pub fn priority_at(&self, j: usize, xij: f64, jt: f64) -> f64 {
        let worker = self.worker_time[j];
        let fraction = if worker == 0.0 { 0.0 } else { jt / worker };
        if fraction > 0.0 {
            xij / fraction
        } else {
            xij * 1e9
        }
    }

    /// Job i's deficit on type j; 0 for a job that is not active.
    pub fn deficit(&self, i: usize, j: usize) -> f64 {
        if self.live[i] {
            self.slot[i * self.types + j].deficit
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(job: usize) -> JobState {
        JobState {
            job,
            remaining_steps: 1.0,
            attained_gpu_s: 0.0,
        }
    }

    #[test]
    fn priorities_and_deficits_by_hand() {
        // Round 360 s: credit 180. Jobs 0 and 1 arrive; reset at t = 0 with no allocation.
        let mut book = Book::new(2, 2, 360.0);
        let mut arrived = Vec::new();
        book.update(&[], &[state(0), state(1)], &mut arrived);
        assert_eq!(arrived, [0, 1]);
        book.reset(0.0, &Shares::default(), &[state(0), state(1)]);
        // worker_time = 2 x 180 on each type; job 0 has a share 1/2 of type 0's time.
        let x0 = [0.5, 0.5];
        assert!((book.priority(0, 0, &x0, 1.0) - 1.0).abs() < 1e-12); // 0.5 / (180/360)
        assert_eq!(book.priority(0, 0, &[], 1.0), 0.0, "no allocation");
        assert_eq!(book.priority(0, 1, &[0.5, 0.0], 1.0), 0.0, "x = 0");
        assert_eq!(book.priority(0, 0, &x0, 0.0), 0.0, "cannot run there");
        // Job 0 runs 360 s on type 0: its share is (180+360)/(360+360) = 0.75.
        arrived.clear();
        book.update(
            &[Ran {
                job: 0,
                gpu_type: 0,
                seconds: 360.0,
                finished: false,
            }],
            &[state(0), state(1)],
            &mut arrived,
        );
        assert!(arrived.is_empty(), "no one new");
        assert!((book.priority(0, 0, &x0, 1.0) - 0.5 / 0.75).abs() < 1e-12);
        assert!((book.priority(1, 0, &x0, 1.0) - 0.5 / 0.25).abs() < 1e-12);
        // Reset at t = 720 with x = 0.5 everywhere: job 0 was promised 360 s on each type and
        // got 360 on type 0, 0 on type 1; job 1 got none.
        let mut x = Shares::default();
        x.clear(2, &[]);
        let row = x.push_row(x0.to_vec());
        x.set(0, row);
        x.set(1, row);
        book.reset(720.0, &x, &[state(0), state(1)]);
        assert!(book.deficit(0, 0).abs() < 1e-12);
        assert!((book.deficit(0, 1) - 360.0).abs() < 1e-12);
        assert!((book.deficit(1, 0) - 360.0).abs() < 1e-12);
        // Job 1 finishes after 100 s on type 1; its row goes; the time it ran stays in
        // worker_time.
        book.update(
            &[Ran {
                job: 1,
                gpu_type: 1,
                seconds: 100.0,
                finished: true,
            }],
            &[state(0)],
            &mut arrived,
        );
        assert_eq!(book.deficit(1, 0), 0.0);
        // Type 1: credits 2 x 180 + 100 run; job 0 has 180 of it.
        assert!((book.priority(0, 1, &x0, 1.0) - 0.5 / (180.0 / 460.0)).abs() < 1e-12);
    }
}
