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

pub(super) struct Book {
    credit: f64,
    /// job_time[job]: per type; empty while the job is not active.
    job_time: Vec<Vec<f64>>,
    worker_time: Vec<f64>,
    deficit: Vec<Vec<f64>>,
    /// Jobs with a non-empty `job_time`.
    tracked: Vec<usize>,
    /// When the last reset happened (0 counts as never, as in Gavel).
    pub last_reset: f64,
}

impl Book {
    pub fn new(jobs: usize, types: usize, round_s: f64) -> Book {
        Book {
            credit: round_s / 2.0,
            job_time: vec![Vec::new(); jobs],
            worker_time: vec![0.0; types],
            deficit: vec![Vec::new(); jobs],
            tracked: Vec::new(),
            last_reset: 0.0,
        }
    }

    /// Counts the previous round's time, then forgets jobs that left and starts the jobs that
    /// arrived with the credit (Gavel: the done callbacks, then `_remove_job`, then `add_job`).
    pub fn update(&mut self, last_round: &[Ran], active: &[JobState]) {
        for r in last_round {
            self.worker_time[r.gpu_type] += r.seconds;
            if let Some(t) = self.job_time[r.job].get_mut(r.gpu_type) {
                *t += r.seconds;
            }
        }
        let types = self.worker_time.len();
        // Mark the active jobs by giving every one a row; rows of departed jobs are dropped.
        let mut still = vec![false; self.job_time.len()];
        for s in active {
            still[s.job] = true;
            if self.job_time[s.job].is_empty() {
                self.job_time[s.job] = vec![self.credit; types];
                self.deficit[s.job] = vec![0.0; types];
                self.tracked.push(s.job);
            }
        }
        let (job_time, deficit) = (&mut self.job_time, &mut self.deficit);
        self.tracked.retain(|&i| {
            if !still[i] {
                job_time[i].clear();
                deficit[i].clear();
            }
            still[i]
        });
    }

    /// A reset before x is recomputed: each deficit grows by the time the old allocation
    /// promised less the time received, and every clock restarts from the credit.
    pub fn reset(&mut self, now: f64, x: &[Vec<f64>]) {
        let elapsed = now - self.last_reset;
        self.worker_time.iter_mut().for_each(|w| *w = 0.0);
        for &i in &self.tracked {
            for j in 0..self.worker_time.len() {
                let received = self.job_time[i][j] - self.credit;
                let promised = x[i].get(j).map_or(0.0, |x| x * elapsed);
                self.deficit[i][j] += promised - received;
                self.job_time[i][j] = self.credit;
                self.worker_time[j] += self.credit;
            }
        }
        self.last_reset = now;
    }

    /// Job i's priority on type j (see the module's table); `rate` is its throughput there.
    pub fn priority(&self, i: usize, j: usize, x: &[f64], rate: f64) -> f64 {
        let Some(&xij) = x.get(j) else {
            return 0.0;
        };
        if xij == 0.0 || rate == 0.0 {
            return 0.0;
        }
        let worker = self.worker_time[j];
        let fraction = if worker == 0.0 {
            0.0
        } else {
            self.job_time[i][j] / worker
        };
        if fraction > 0.0 {
            xij / fraction
        } else {
            xij * 1e9
        }
    }

    pub fn deficit(&self, i: usize, j: usize) -> f64 {
        self.deficit[i].get(j).copied().unwrap_or(0.0)
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
            time_on_type: vec![0.0; 2],
        }
    }

    #[test]
    fn priorities_and_deficits_by_hand() {
        // Round 360 s: credit 180. Jobs 0 and 1 arrive; reset at t = 0 with no allocation.
        let mut book = Book::new(2, 2, 360.0);
        book.update(&[], &[state(0), state(1)]);
        book.reset(0.0, &[vec![], vec![]]);
        // worker_time = 2 x 180 on each type; job 0 has a share 1/2 of type 0's time.
        let x0 = [0.5, 0.5];
        assert!((book.priority(0, 0, &x0, 1.0) - 1.0).abs() < 1e-12); // 0.5 / (180/360)
        assert_eq!(book.priority(0, 0, &[], 1.0), 0.0, "no allocation");
        assert_eq!(book.priority(0, 1, &[0.5, 0.0], 1.0), 0.0, "x = 0");
        assert_eq!(book.priority(0, 0, &x0, 0.0), 0.0, "cannot run there");
        // Job 0 runs 360 s on type 0: its share is (180+360)/(360+360) = 0.75.
        book.update(
            &[Ran {
                job: 0,
                gpu_type: 0,
                seconds: 360.0,
            }],
            &[state(0), state(1)],
        );
        assert!((book.priority(0, 0, &x0, 1.0) - 0.5 / 0.75).abs() < 1e-12);
        assert!((book.priority(1, 0, &x0, 1.0) - 0.5 / 0.25).abs() < 1e-12);
        // Reset at t = 720 with x = 0.5 everywhere: job 0 was promised 360 s on each type and
        // got 360 on type 0, 0 on type 1; job 1 got none.
        let x = vec![x0.to_vec(), x0.to_vec()];
        book.reset(720.0, &x);
        assert!(book.deficit(0, 0).abs() < 1e-12);
        assert!((book.deficit(0, 1) - 360.0).abs() < 1e-12);
        assert!((book.deficit(1, 0) - 360.0).abs() < 1e-12);
        // Job 1 leaves; its row goes; the time it ran stays in worker_time.
        book.update(
            &[Ran {
                job: 1,
                gpu_type: 1,
                seconds: 100.0,
            }],
            &[state(0)],
        );
        assert_eq!(book.deficit(1, 0), 0.0);
        // Type 1: credits 2 x 180 + 100 run; job 0 has 180 of it.
        assert!((book.priority(0, 1, &x0, 1.0) - 0.5 / (180.0 / 460.0)).abs() < 1e-12);
    }
}
