//! x_ij, the fraction of time the allocation gives job i on type j, stored once per distinct
//! row: the jobs of one class (or one party) share theirs, so a recomputation writes one row per
//! class and one index per job, and the round's lists can group jobs by row.

/// The allocation's x, per job, through shared rows.
#[derive(Debug, Default, Clone)]
pub(super) struct Shares {
    rows: Vec<Vec<f64>>,
    /// row_of[job]: its row, or [`Shares::NONE`] for a job without an allocation.
    row_of: Vec<u32>,
}

impl Shares {
    const NONE: u32 = u32::MAX;

    /// Forgets the allocation of `allocated` (the jobs that had one) and makes room for `jobs`.
    pub fn clear(&mut self, jobs: usize, allocated: &[usize]) {
        self.row_of.resize(jobs, Self::NONE);
        for &i in allocated {
            self.row_of[i] = Self::NONE;
        }
        self.rows.clear();
    }

    /// Adds a row (snapped, see [`super::snap`]) and returns its index.
    pub fn push_row(&mut self, x: Vec<f64>) -> usize {
        self.rows.push(x.into_iter().map(super::snap).collect());
        self.rows.len() - 1
    }

    pub fn set(&mut self, job: usize, row: usize) {
        self.row_of[job] = row as u32;
    }

    /// Job i's row index, or None without an allocation.
    pub fn row(&self, job: usize) -> Option<usize> {
        match self.row_of.get(job) {
            Some(&r) if r != Self::NONE => Some(r as usize),
            _ => None,
        }
    }

    /// x_i over the cluster's types; empty without an allocation.
    pub fn of(&self, job: usize) -> &[f64] {
        self.row(job).map_or(&[], |r| &self.rows[r])
    }

    pub fn row_values(&self, row: usize) -> &[f64] {
        &self.rows[row]
    }

    pub fn rows(&self) -> usize {
        self.rows.len()
    }
}
