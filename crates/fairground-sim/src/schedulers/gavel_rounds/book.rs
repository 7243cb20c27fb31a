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

/// No job, or no place: a job's index and its clocks' place are below u32::MAX (the engine's
/// `validate`).
const NONE: u32 = u32::MAX;

/// Job i's clock and deficit on type j, side by side: a round reads both for each job that ran.
#[derive(Clone, Copy, Default)]
struct Slot {
    job_time: f64,
    deficit: f64,
}

/// The clocks are kept by arrival, not by job index: the active jobs are a scattered few of all
/// the jobs, and a reset reads every active job's clocks, which this way lie side by side.
pub(super) struct Book {
    credit: f64,
    types: usize,
    /// at[i]: where job i's clocks are in `slot` (`NONE`: the job is not active).
    at: Vec<u32>,
    /// slot[k * types + j]: type j's clock of the k-th job to arrive among those kept; owner[k]
    /// is that job (`NONE` once it finished). Compacted at a reset once half are finished.
    slot: Vec<Slot>,
    owner: Vec<u32>,
    finished: usize,
    worker_time: Vec<f64>,
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
            at: vec![NONE; jobs],
            slot: Vec::new(),
            owner: Vec::new(),
            finished: 0,
            worker_time: vec![0.0; types],
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
            if let Some(k) = self.at(r.job) {
                self.slot[k * types + r.gpu_type].job_time += r.seconds;
            }
        }
        for r in last_round.iter().filter(|r| r.finished) {
            if let Some(k) = self.at(r.job) {
                self.owner[k] = NONE;
                self.at[r.job] = NONE;
                self.finished += 1;
            }
        }
        let first_new = active
            .iter()
            .rposition(|s| self.at(s.job).is_some())
            .map_or(0, |k| k + 1);
        for s in &active[first_new..] {
            let i = s.job;
            self.at[i] = self.owner.len() as u32; // fewer than u32::MAX jobs: `validate`
            self.owner.push(i as u32);
            self.slot.extend((0..types).map(|_| Slot {
                job_time: self.credit,
                deficit: 0.0,
            }));
            arrived.push(i);
        }
    }

    /// A reset before x is recomputed: each deficit grows by the time the old allocation
    /// promised less the time received, and every clock restarts from the credit. `active`
    /// are the jobs with clocks (as after [`Book::update`]); the clocks are visited in their
    /// order, which is arrival order too.
    pub fn reset(&mut self, now: f64, x: &Shares, active: &[JobState]) {
        let elapsed = now - self.last_reset;
        let types = self.types;
        if self.finished > self.owner.len() / 2 {
            self.compact();
        }
        self.worker_time.iter_mut().for_each(|w| *w = 0.0);
        self.at_reset.clear();
        for (k, &i) in self.owner.iter().enumerate() {
            if i == NONE {
                continue;
            }
            let xi = x.of(i as usize);
            for j in 0..types {
                let slot = &mut self.slot[k * types + j];
                let received = slot.job_time - self.credit;
                let promised = xi.get(j).map_or(0.0, |x| x * elapsed);
                slot.deficit += promised - received;
                slot.job_time = self.credit;
                self.at_reset.push(slot.deficit);
                self.worker_time[j] += self.credit;
            }
        }
        assert_eq!(
            self.at_reset.len(),
            active.len() * types,
            "the book keeps clocks for the active jobs"
        );
        self.last_reset = now;
    }

    /// Where job i's clocks are, if it is active.
    fn at(&self, i: usize) -> Option<usize> {
        match self.at[i] {
            NONE => None,
            k => Some(k as usize),
        }
    }

    /// Drops the finished jobs' clocks, keeping the others in order.
    fn compact(&mut self) {
        let types = self.types;
        let mut write = 0;
        for read in 0..self.owner.len() {
            let i = self.owner[read];
            if i == NONE {
                continue;
            }
            self.owner[write] = i;
            self.slot
                .copy_within(read * types..(read + 1) * types, write * types);
            self.at[i as usize] = write as u32;
            write += 1;
        }
        self.owner.truncate(write);
        self.slot.truncate(write * types);
        self.finished = 0;
    }

    /// The deficits the last reset left: `[k * types + j]` is type j's for the k-th job it was
    /// given.
    pub fn deficits_at_reset(&self) -> &[f64] {
        &self.at_reset
    }

    /// Seconds job i ran on type j since the reset, with the credit (see the module's table);
    /// 0 for a job that is not active.
    pub fn job_time(&self, i: usize, j: usize) -> f64 {
        self.at(i)
            .map_or(0.0, |k| self.slot[k * self.types + j].job_time)
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
        self.at(i)
            .map_or(0.0, |k| self.slot[k * self.types + j].deficit)
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

    #[test]
    fn clocks_survive_compaction_in_arrival_order() {
        // Jobs 4, 1, 3 arrive in that order (one type, credit 180); 4 and 1 finish; the reset
        // then drops their clocks. Job 3 keeps its own, and a later arrival (0) comes after.
        let mut book = Book::new(5, 1, 360.0);
        let mut arrived = Vec::new();
        book.update(&[], &[state(4), state(1), state(3)], &mut arrived);
        assert_eq!(arrived, [4, 1, 3]);
        let ran = |job, seconds, finished| Ran {
            job,
            gpu_type: 0,
            seconds,
            finished,
        };
        book.update(
            &[ran(4, 10.0, true), ran(1, 20.0, true), ran(3, 30.0, false)],
            &[state(3)],
            &mut arrived,
        );
        assert_eq!(book.job_time(3, 0), 210.0);
        assert_eq!(book.job_time(4, 0), 0.0, "finished");
        let mut x = Shares::default();
        x.clear(5, &[]);
        let row = x.push_row(vec![1.0]);
        x.set(3, row);
        book.reset(100.0, &x, &[state(3)]);
        // Promised 100 s, received 30 s.
        assert_eq!(book.deficit(3, 0), 70.0);
        assert_eq!(book.deficits_at_reset(), [70.0]);
        assert_eq!(book.owner, [3], "the finished jobs' clocks are gone");
        arrived.clear();
        book.update(&[ran(3, 5.0, false)], &[state(3), state(0)], &mut arrived);
        assert_eq!(arrived, [0]);
        assert_eq!(book.job_time(3, 0), 185.0);
        assert_eq!(book.job_time(0, 0), 180.0);
        book.reset(200.0, &x, &[state(3), state(0)]);
        // Job 3: 70 + 100 - 5; job 0 had no allocation yet.
        assert_eq!(book.deficits_at_reset(), [165.0, 0.0]);
    }
}
