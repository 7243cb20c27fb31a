//! Gavel's per-type lists, kept between rounds so that a round costs what changed in it (the
//! jobs that ran, arrived or left, and the jobs the walk reads) rather than a pass over every
//! waiting job.
//!
//! Each round, Gavel lists every active job for type j by (priority, deficit, x_ij), highest
//! first, ties in arrival order, and walks the list until the type is full ([`super::book`]
//! defines the three). Between two resets almost nothing in those keys moves:
//! - x and the deficits change only at a reset (the allocation is recomputed right after it);
//! - a job's time on j changes only when it runs on j;
//! - priority_ij = x_ij / (jt_ij / W_j), and W_j, type j's total time, changes every round, but it
//!   is common to all of j's jobs.
//!
//! So the jobs with x_ij > 0 are kept in groups of one x row (a class's jobs share their row,
//! [`super::shares`]; a row's jobs have one scale factor). Within a group x is one number, and
//! the priority falls as jt rises, so the group's order is (jt ascending, deficit descending,
//! arrival): members that have not run on j since the reset all have jt = the credit and come
//! in (deficit, arrival) order from a heap built at the reset ([`Fresh`]); members that ran sit
//! in a sorted vector by (jt, deficit, arrival), updated as they run. A round merges the groups'
//! heads by Gavel's own key, the priority computed by [`Book::priority`], so different groups
//! are ordered by the same floating-point numbers as Gavel's list. Jobs with priority 0 (x_ij =
//! 0, or no allocation yet) come after, by (deficit, arrival), in one part per scale factor;
//! a type's parts are built when a walk first reaches them after a reset (most walks fill the
//! type before).
//!
//! Skipping is Gavel's too: a job that does not fit in the GPUs left is passed over, and as
//! those only shrink during a walk, a group or part whose jobs need more is left at once.
//!
//! The one place floating point could part the two orders: two members of a group with
//! different jt whose priorities round to the same number (Gavel's list then orders them by
//! deficit). A walk that meets such a pair reports [`Unordered`], and the caller lists the type
//! the full way for that round, so the order is always Gavel's. So does a type with W_j = 0,
//! where every priority is x_ij * 1e9.

use super::super::{JobState, Ran};
use super::book::Book;
use super::shares::Shares;
use super::ListEntry;
use crate::model::Job;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A float as a u64 whose unsigned order is the float's order (-0.0 counted as 0.0).
fn ordered(v: f64) -> u64 {
    let b = (v + 0.0).to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

/// The float [`ordered`] was made from (-0.0 comes back as 0.0).
fn unordered(u: u64) -> f64 {
    if u >> 63 == 1 {
        f64::from_bits(u & !(1 << 63))
    } else {
        f64::from_bits(!u)
    }
}

/// A member at the credit: the greatest comes first (deficit descending, then arrival). One
/// u128 (deficit as [`ordered`], then u32::MAX - arrival rank, then the job; both fewer than
/// u32::MAX, the engine's `validate`), so a heap moves and compares 16 bytes, not a tuple.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct FreshKey(u128);

impl FreshKey {
    fn new(deficit: f64, seq: u32, job: usize) -> FreshKey {
        let later = u32::MAX - seq;
        FreshKey(u128::from(ordered(deficit)) << 64 | u128::from(later) << 32 | job as u128)
    }

    /// The deficit, as [`ordered`].
    fn deficit(self) -> u64 {
        (self.0 >> 64) as u64
    }

    fn seq(self) -> u64 {
        u64::from(u32::MAX - (self.0 >> 32) as u32)
    }

    fn job(self) -> usize {
        self.0 as u32 as usize
    }
}

/// A member that ran: the least comes first (jt ascending, deficit descending, arrival).
type RanKey = (u64, Reverse<u64>, u64, usize);

/// The walk met two jobs of one group whose order floating point could swap; list the type
/// the full way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Unordered;

/// Jobs in (deficit descending, arrival) order, fixed from a reset to the next: a heap built
/// at the reset, and in front of it, in order, what walks have taken from it. A walk reads the
/// front, then takes more from the heap; entries that died (ran, left) are dropped as met.
#[derive(Default)]
struct Fresh {
    front: Vec<FreshKey>,
    heap: BinaryHeap<FreshKey>,
}

impl Fresh {
    fn reset(&mut self, keys: Vec<FreshKey>) {
        self.front.clear();
        self.heap = BinaryHeap::from(keys);
    }

    fn take_keys(&mut self) -> Vec<FreshKey> {
        let mut v = std::mem::take(&mut self.heap).into_vec();
        v.clear();
        v
    }

    /// The first live entry at or after `k` in front, taking from the heap as needed; `k`
    /// moves past dead entries (counted in `dead`).
    fn peek(
        &mut self,
        k: &mut usize,
        dead: &mut usize,
        is_dead: &dyn Fn(usize) -> bool,
    ) -> Option<FreshKey> {
        loop {
            if let Some(&key) = self.front.get(*k) {
                if is_dead(key.job()) {
                    *k += 1;
                    *dead += 1;
                    continue;
                }
                return Some(key);
            }
            let key = self.heap.pop()?;
            if !is_dead(key.job()) {
                self.front.push(key);
                return Some(key);
            }
        }
    }
}

#[derive(Default)]
struct Group {
    /// The members' scale factor, if they share one (a row's jobs do).
    sf: Option<u32>,
    fresh: Fresh,
    ran: Vec<RanKey>,
    /// Keys to take out of (in `before_update`) or put into (in `after_update`) `ran`, sorted:
    /// a round's changes to a group are applied in one pass over `ran`, not one shift each.
    change: Vec<RanKey>,
}

impl Group {
    /// Notes a change to `ran`; true if it is the group's first this pass.
    fn note(&mut self, key: RanKey) -> bool {
        let k = self.change.partition_point(|c| *c < key);
        self.change.insert(k, key);
        self.change.len() == 1
    }

    /// Takes the noted keys out of `ran` (both are sorted).
    fn take_out(&mut self) {
        let (change, mut k) = (&self.change, 0);
        self.ran.retain(|key| {
            while change.get(k).is_some_and(|c| c < key) {
                k += 1;
            }
            change.get(k) != Some(key)
        });
        self.change.clear();
    }

    /// Merges the noted keys into `ran`, from the back (both are sorted).
    fn put_in(&mut self) {
        let (old, add) = (self.ran.len(), &self.change);
        self.ran.extend_from_slice(add);
        let (mut a, mut b) = (old, add.len());
        for w in (0..self.ran.len()).rev() {
            if b == 0 {
                break;
            }
            if a > 0 && self.ran[a - 1] > add[b - 1] {
                self.ran[w] = self.ran[a - 1];
                a -= 1;
            } else {
                self.ran[w] = add[b - 1];
                b -= 1;
            }
        }
        self.change.clear();
    }
}

/// Jobs with priority 0 on the type and one scale factor.
struct ZeroPart {
    sf: u32,
    fresh: Fresh,
    /// Jobs arrived since the reset (deficit 0), in arrival order.
    arrivals: Vec<usize>,
}

#[derive(Default)]
struct TypeList {
    /// groups[row]: the jobs of that x row with x_row,j > 0 that can run on j.
    groups: Vec<Group>,
    /// Jobs with priority 0 that can run on j, by scale factor.
    zero: Vec<ZeroPart>,
    /// in_ran[job]: the job is in its group's `ran` vector.
    in_ran: Vec<bool>,
    /// `zero` holds the jobs of the reset (else only the arrivals since): built when a walk
    /// first reaches it.
    zero_built: bool,
}

/// The priority-0 part of scale factor `sf`, made if missing.
fn zero_part(zero: &mut Vec<ZeroPart>, sf: u32) -> &mut ZeroPart {
    let k = match zero.iter().position(|p| p.sf == sf) {
        Some(k) => k,
        None => {
            zero.push(ZeroPart {
                sf,
                fresh: Fresh::default(),
                arrivals: Vec::new(),
            });
            zero.len() - 1
        }
    };
    &mut zero[k]
}

/// One group's head in a walk's merge, ordered by Gavel's key.
struct Head {
    entry: ListEntry,
    group: usize,
    /// Its jt (ordered), and whether it comes from `ran` (else from `fresh`).
    jt: u64,
    from_ran: bool,
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        self.entry == other.entry
    }
}
impl Eq for Head {}
impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Head {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.entry.cmp(&other.entry)
    }
}

/// Where a walk stands in one group.
#[derive(Clone, Copy, Default)]
struct Cursor {
    front: usize,
    ran: usize,
    dead: usize,
    /// The jt whose run was checked for a tie with the next jt (u64::MAX: none yet).
    checked: u64,
}

/// Job i's rank in arrival order (Gavel's tie-break; fewer than u32::MAX jobs: the engine's
/// `validate`) and its scale factor.
#[derive(Clone, Copy)]
struct ListJob {
    seq: u32,
    sf: u32,
}

/// A job of a reset as the priority-0 parts' build reads it: (job, arrival rank, scale factor).
type ResetJob = (u32, u32, u32);

/// The lists of every type, and each job's arrival rank.
pub(super) struct Lists {
    types: Vec<TypeList>,
    /// can_run[i * types + j]: job i has a throughput on type j.
    can_run: Vec<bool>,
    /// What the lists read of job i, in one place (a reset reads it for every active job).
    job: Vec<ListJob>,
    next_seq: u32,
    /// gone[job]: it finished.
    gone: Vec<bool>,
    /// Lists exist (from the first reset on).
    built: bool,
    /// (type, row) of the groups with changes noted this pass.
    touched: Vec<(usize, usize)>,
    /// The jobs of the last reset, in its order.
    at_reset: Vec<ResetJob>,
}

impl Lists {
    pub fn new(jobs: &[Job], types: usize) -> Lists {
        Lists {
            types: (0..types)
                .map(|_| TypeList {
                    in_ran: vec![false; jobs.len()],
                    ..TypeList::default()
                })
                .collect(),
            can_run: jobs
                .iter()
                .flat_map(|job| (0..types).map(|j| job.rate[j] > 0.0))
                .collect(),
            job: jobs
                .iter()
                .map(|job| ListJob {
                    seq: 0,
                    sf: job.scale_factor,
                })
                .collect(),
            next_seq: 0,
            gone: vec![false; jobs.len()],
            built: false,
            touched: Vec::new(),
            at_reset: Vec::new(),
        }
    }

    /// Rebuilds every type's lists after a reset and recomputation: every active job's clock is
    /// the credit, its deficit and x are new. `active` are the jobs the reset was given.
    pub fn rebuild(&mut self, book: &Book, x: &Shares, active: &[JobState]) {
        let (types, rows) = (self.types.len(), x.rows());
        // keys[j * rows + r]: the keys of type j's group of row r (vectors reused from the
        // last reset). One pass over the jobs fills every type. A group's scale factor is its
        // row's when the row's jobs share one (a class's do; else None, and a walk reads each
        // member's). The priority-0 parts are built only if a walk reaches them
        // ([`build_zero`]; in a run at 100,000 jobs, about one type in six between two resets
        // is walked that far), from the jobs of the reset kept in `at_reset`.
        let mut keys: Vec<Vec<FreshKey>> = Vec::with_capacity(types * rows);
        for list in &mut self.types {
            for group in &mut list.groups {
                for key in &group.ran {
                    list.in_ran[key.3] = false;
                }
                group.ran.clear();
            }
            let from = keys.len();
            keys.extend(list.groups.iter_mut().map(|g| g.fresh.take_keys()));
            keys.resize_with(from + rows, Vec::new);
            list.zero.clear();
            list.zero_built = false;
        }
        let mut row_sf: Vec<Option<Option<u32>>> = vec![None; rows];
        self.at_reset.clear();
        let at_reset = book.deficits_at_reset();
        assert_eq!(
            at_reset.len(),
            active.len() * types,
            "a rebuild follows a reset"
        );
        for (s, deficits) in active.iter().zip(at_reset.chunks_exact(types.max(1))) {
            let i = s.job;
            let ListJob { seq, sf } = self.job[i];
            self.at_reset.push((i as u32, seq, sf)); // fewer than u32::MAX jobs: `validate`
            let Some(r) = x.row(i) else { continue };
            let can_run = &self.can_run[i * types..(i + 1) * types];
            for (j, (&xrj, &can)) in x.row_values(r).iter().zip(can_run).enumerate() {
                if can && xrj > 0.0 {
                    keys[j * rows + r].push(FreshKey::new(deficits[j], seq, i));
                }
            }
            let row = &mut row_sf[r];
            *row = match *row {
                None => Some(Some(sf)),
                Some(Some(s)) if s == sf => Some(Some(s)),
                _ => Some(None),
            };
        }
        let mut keys = keys.into_iter();
        for list in &mut self.types {
            list.groups.resize_with(rows, Group::default);
            for (group, sf) in list.groups.iter_mut().zip(&row_sf) {
                group.sf = sf.flatten();
                group.fresh.reset(keys.next().expect("rows keys per type"));
            }
        }
        self.built = true;
    }

    /// Before the book counts last round: takes the jobs that ran out of their `ran` vectors
    /// (their keys are about to change), and the finished ones out for good.
    pub fn before_update(&mut self, book: &Book, x: &Shares, last_round: &[Ran]) {
        for r in last_round {
            if self.gone[r.job] {
                continue;
            }
            if r.finished {
                self.gone[r.job] = true;
            }
            if !self.built {
                continue;
            }
            let types = if r.finished {
                0..self.types.len()
            } else {
                r.gpu_type..r.gpu_type + 1
            };
            for j in types {
                if self.types[j].in_ran[r.job] {
                    let key = self.ran_key(book, r.job, j);
                    let row = x.row(r.job).expect("a member has a row");
                    let list = &mut self.types[j];
                    if list.groups[row].note(key) {
                        self.touched.push((j, row));
                    }
                    list.in_ran[r.job] = false;
                }
            }
        }
        for (j, row) in self.touched.drain(..) {
            self.types[j].groups[row].take_out();
        }
    }

    /// After the book counted last round: puts the jobs that ran (and are still active) back
    /// with their new time, and lists the arrivals.
    pub fn after_update(&mut self, book: &Book, x: &Shares, last_round: &[Ran], arrived: &[usize]) {
        for &i in arrived {
            self.job[i].seq = self.next_seq;
            self.next_seq += 1;
        }
        if !self.built {
            return;
        }
        for r in last_round {
            let (i, j) = (r.job, r.gpu_type);
            if self.gone[i] || self.types[j].in_ran[i] {
                continue;
            }
            let Some(row) = x.row(i) else { continue };
            // (It ran on j, so it can run there: the engine refuses a placement elsewhere.)
            if x.row_values(row)[j] > 0.0 {
                let key = self.ran_key(book, i, j);
                let list = &mut self.types[j];
                if list.groups[row].note(key) {
                    self.touched.push((j, row));
                }
                list.in_ran[i] = true;
            }
        }
        for (j, row) in self.touched.drain(..) {
            self.types[j].groups[row].put_in();
        }
        let types = self.types.len();
        for &i in arrived {
            for (j, list) in self.types.iter_mut().enumerate() {
                if self.can_run[i * types + j] {
                    zero_part(&mut list.zero, self.job[i].sf).arrivals.push(i);
                }
            }
        }
    }

    fn ran_key(&self, book: &Book, i: usize, j: usize) -> RanKey {
        (
            ordered(book.job_time(i, j)),
            Reverse(ordered(book.deficit(i, j))),
            u64::from(self.job[i].seq),
            i,
        )
    }

    /// Whether type j can be walked here this round (else list it the full way).
    pub fn walkable(&self, j: usize, book: &Book) -> bool {
        self.built && book.worker_time(j) > 0.0
    }

    /// Walks type j's list in Gavel's order from `left` free GPUs, handing each job that may
    /// fit, its priority and its scale factor to `visit`, which answers the GPUs left after it,
    /// or None to stop. Every job listed can run on j.
    /// On [`Unordered`], `visit` may have seen some jobs: the caller undoes what it did and
    /// lists the type the full way.
    pub fn walk(
        &mut self,
        j: usize,
        book: &Book,
        x: &Shares,
        mut left: u32,
        visit: &mut dyn FnMut(usize, f64, u32) -> Option<u32>,
    ) -> Result<(), Unordered> {
        let credit = ordered(book.credit());
        let (gone, job) = (&self.gone, &self.job);
        let types = self.types.len();
        let list = &mut self.types[j];
        let in_ran = &list.in_ran;
        let dead = |i: usize| gone[i] || in_ran[i];
        let head_of = |group: &mut Group, g: usize, at: &mut Cursor| -> Option<Head> {
            let fresh = group
                .fresh
                .peek(&mut at.front, &mut at.dead, &dead)
                .map(|k| (credit, Reverse(k.deficit()), k.seq(), k.job()));
            let (key, from_ran) = match (fresh, group.ran.get(at.ran).copied()) {
                (Some(f), Some(r)) if r < f => (r, true),
                (Some(f), _) => (f, false),
                (None, Some(r)) => (r, true),
                (None, None) => return None,
            };
            let (i, xij) = (key.3, x.row_values(g)[j]);
            let priority = book.priority_at(j, xij, unordered(key.0));
            Some(Head {
                entry: ListEntry::new([priority, unordered(key.1 .0), xij], key.2 as usize, i),
                group: g,
                jt: key.0,
                from_ran,
            })
        };
        let mut cursors = vec![
            Cursor {
                checked: u64::MAX,
                ..Cursor::default()
            };
            list.groups.len()
        ];
        let mut heads: BinaryHeap<Head> = list
            .groups
            .iter_mut()
            .enumerate()
            .filter_map(|(g, group)| head_of(group, g, &mut cursors[g]))
            .collect();
        let mut outcome = Ok(());
        let mut stopped = false;
        while let Some(head) = heads.pop() {
            let g = head.group;
            let group = &mut list.groups[g];
            let i = head.entry.job;
            // (The group's scale factor, when its members share one, saves reading the job's.)
            let gpus = group.sf.unwrap_or_else(|| job[i].sf);
            if gpus > left && group.sf.is_some() {
                // Every member needs as many GPUs, and fewer are left from here on.
                continue;
            }
            let at = &mut cursors[g];
            if at.checked != head.jt {
                // Within a group the priority falls as jt rises; the first member with a
                // larger jt must not tie with this run, or floating point decides an order by
                // deficit.
                at.checked = head.jt;
                let next = group.ran.partition_point(|k| k.0 <= head.jt);
                let mut later = group.ran.get(next).map(|k| k.0);
                if head.jt < credit {
                    // (Not met in practice: a job that ran has more than the credit.)
                    let mut front = at.front + usize::from(!head.from_ran);
                    let mut skipped = 0;
                    let fresh = group.fresh.peek(&mut front, &mut skipped, &dead);
                    later = later.or(fresh.map(|_| credit));
                }
                let xij = x.row_values(g)[j];
                if later
                    .is_some_and(|jt| book.priority_at(j, xij, unordered(jt)) == head.entry.key[0])
                {
                    outcome = Err(Unordered);
                    break;
                }
            }
            if head.from_ran {
                at.ran += 1;
            } else {
                at.front += 1;
            }
            match visit(i, head.entry.key[0], gpus) {
                Some(l) => left = l,
                None => {
                    stopped = true;
                    break;
                }
            }
            if let Some(next) = head_of(group, g, at) {
                heads.push(next);
            }
        }
        // Jobs with priority 0, by (deficit, arrival): in each part, those of the reset, then
        // the arrivals (deficit 0, later than all of them) after those with deficit >= 0.
        if outcome.is_ok() && !stopped {
            if !list.zero_built {
                list.zero_built = true;
                build_zero(
                    &mut list.zero,
                    (j, types),
                    (&self.at_reset, &self.can_run, x),
                    book.deficits_at_reset(),
                );
            }
            walk_zero(&mut list.zero, (gone, job), left, visit);
        }
        for (group, at) in list.groups.iter_mut().zip(&cursors) {
            if at.dead > 0 {
                group.fresh.front.retain(|k| !dead(k.job()));
            }
        }
        outcome
    }
}

/// Walks type j's priority-0 parts from `left` free GPUs, by (deficit, arrival): in each part,
/// the jobs of the reset, then the arrivals (deficit 0, later than all of them) after those
/// with deficit >= 0; `visit` as in [`Lists::walk`].
fn walk_zero(
    zero: &mut [ZeroPart],
    (gone, job): (&[bool], &[ListJob]),
    mut left: u32,
    visit: &mut dyn FnMut(usize, f64, u32) -> Option<u32>,
) {
    let zero_key = ordered(0.0);
    let mut at: Vec<(usize, usize, usize)> = vec![(0, 0, 0); zero.len()];
    loop {
        // Each part's head as ((deficit, earlier arrival first), from_arrivals).
        let mut best: Option<(usize, (u64, Reverse<u64>), bool)> = None;
        for (p, part) in zero.iter_mut().enumerate() {
            if part.sf > left {
                continue;
            }
            let (front, arrival, dead_seen) = &mut at[p];
            let fresh = part.fresh.peek(front, dead_seen, &|i| gone[i]);
            while part.arrivals.get(*arrival).is_some_and(|&i| gone[i]) {
                *arrival += 1;
            }
            let arrived = part.arrivals.get(*arrival).copied();
            let head = match (fresh, arrived) {
                (Some(k), Some(a)) if k.deficit() < zero_key => {
                    ((zero_key, Reverse(u64::from(job[a].seq))), true)
                }
                (Some(k), _) => ((k.deficit(), Reverse(k.seq())), false),
                (None, Some(a)) => ((zero_key, Reverse(u64::from(job[a].seq))), true),
                (None, None) => continue,
            };
            if best.is_none_or(|(_, b, _)| head.0 > b) {
                best = Some((p, head.0, head.1));
            }
        }
        let Some((p, _, from_arrivals)) = best else {
            break;
        };
        let (front, arrival, _) = &mut at[p];
        let part = &zero[p];
        let i = if from_arrivals {
            *arrival += 1;
            part.arrivals[*arrival - 1]
        } else {
            *front += 1;
            part.fresh.front[*front - 1].job()
        };
        match visit(i, 0.0, part.sf) {
            Some(l) => left = l,
            None => break,
        }
    }
    for (part, &(_, _, dead_seen)) in zero.iter_mut().zip(&at) {
        if dead_seen > 0 {
            part.fresh.front.retain(|k| !gone[k.job()]);
        }
    }
}

/// Lists the jobs of the last reset that belong in type j's priority-0 parts (they can run on
/// j, and x, which has not changed since the reset, gives them no time there), by scale factor
/// (`zero` may already hold parts with the arrivals since): the keys an eager rebuild would
/// have made, from the same deficits.
fn build_zero(
    zero: &mut Vec<ZeroPart>,
    (j, types): (usize, usize),
    (jobs, can_run, x): (&[ResetJob], &[bool], &Shares),
    deficits: &[f64],
) {
    let mut keys: Vec<(u32, Vec<FreshKey>)> = Vec::new();
    for (k, &(i, seq, sf)) in jobs.iter().enumerate() {
        let i = i as usize;
        let in_group = x.row(i).is_some_and(|r| x.row_values(r)[j] > 0.0);
        if !can_run[i * types + j] || in_group {
            continue;
        }
        let key = FreshKey::new(deficits[k * types + j], seq, i);
        match keys.iter_mut().find(|(s, _)| *s == sf) {
            Some((_, part)) => part.push(key),
            None => keys.push((sf, vec![key])),
        }
    }
    for (sf, part) in keys {
        zero_part(zero, sf).fresh.reset(part);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_groups_noted_changes_apply_in_one_pass() {
        let key = |jt: u64, job: usize| (jt, Reverse(0), job as u64, job);
        let mut g = Group {
            ran: vec![key(1, 0), key(3, 1), key(5, 2), key(7, 3)],
            ..Group::default()
        };
        // Out: 3 and 7 (and 4, which is not there); noted out of order.
        assert!(g.note(key(7, 3)));
        assert!(!g.note(key(4, 9)));
        assert!(!g.note(key(3, 1)));
        g.take_out();
        assert_eq!(g.ran, [key(1, 0), key(5, 2)]);
        assert!(g.change.is_empty());
        // In: before, between and after the kept ones.
        for k in [key(9, 4), key(0, 5), key(2, 6), key(5, 7)] {
            g.note(k);
        }
        g.put_in();
        assert_eq!(
            g.ran,
            [
                key(0, 5),
                key(1, 0),
                key(2, 6),
                key(5, 2),
                key(5, 7),
                key(9, 4)
            ]
        );
    }

    fn job(id: usize, gpus: u32) -> Job {
        Job {
            id,
            tenant: "t".into(),
            job_type: "m".into(),
            arrival: 0.0,
            total_steps: 1e6,
            scale_factor: gpus,
            rate: vec![1.0],
            resources: None,
            gpu_mem_mb: None,
        }
    }

    fn state(job: usize) -> JobState {
        JobState {
            job,
            remaining_steps: 1.0,
            attained_gpu_s: 0.0,
        }
    }

    fn ran(job: usize, seconds: f64) -> Ran {
        Ran {
            job,
            gpu_type: 0,
            seconds,
            finished: false,
        }
    }

    /// Jobs 0..4 on one type, round 360 s (credit 180), all arrived and reset at t = 0; jobs 0-2
    /// share an x row of 0.25, job 3 has x = 0.5, job 4 has none of this type (x = 0). Jobs 2
    /// and 3 need 2 GPUs, the others 1.
    fn setup() -> (Vec<Job>, Vec<JobState>, Book, Shares, Lists) {
        setup_of(5)
    }

    /// As [`setup`], with `n` >= 5 jobs of which only 0..4 have arrived (the others need 1 GPU).
    fn setup_of(n: usize) -> (Vec<Job>, Vec<JobState>, Book, Shares, Lists) {
        let jobs: Vec<Job> = (0..n)
            .map(|i| job(i, if i == 2 || i == 3 { 2 } else { 1 }))
            .collect();
        let active: Vec<JobState> = (0..5).map(state).collect();
        let mut book = Book::new(n, 1, 360.0);
        let mut lists = Lists::new(&jobs, 1);
        let mut arrived = Vec::new();
        book.update(&[], &active, &mut arrived);
        lists.after_update(&book, &Shares::default(), &[], &arrived);
        let mut x = Shares::default();
        x.clear(n, &[]);
        let quarter = x.push_row(vec![0.25]);
        let half = x.push_row(vec![0.5]);
        let none = x.push_row(vec![0.0]);
        for i in 0..3 {
            x.set(i, quarter);
        }
        x.set(3, half);
        x.set(4, none);
        book.reset(0.0, &Shares::default(), &active);
        lists.rebuild(&book, &x, &active);
        (jobs, active, book, x, lists)
    }

    fn order(
        lists: &mut Lists,
        book: &Book,
        x: &Shares,
        left: u32,
    ) -> Result<Vec<usize>, Unordered> {
        let mut seen = Vec::new();
        lists
            .walk(0, book, x, left, &mut |i, _, _| {
                seen.push(i);
                Some(left)
            })
            .map(|()| seen)
    }

    #[test]
    fn walks_in_gavels_order_by_hand() {
        let (_, active, mut book, x, mut lists) = setup();
        // All at the credit (W = 5 x 180 = 900): priority = x / (180 / 900) = 5x, so job 3
        // (2.5) first, then 0, 1, 2 (1.25, in arrival order), then job 4 (priority 0).
        assert_eq!(order(&mut lists, &book, &x, 8), Ok(vec![3, 0, 1, 2, 4]));
        // Job 0 runs a full round: jt 540, W 1260, its priority 0.25 / (540/1260) = 0.583 is
        // now under jobs 1 and 2's 0.25 / (180/1260) = 1.75; job 3 has 3.5.
        let round = [ran(0, 360.0)];
        lists.before_update(&book, &x, &round);
        book.update(&round, &active, &mut Vec::new());
        lists.after_update(&book, &x, &round, &[]);
        assert_eq!(order(&mut lists, &book, &x, 8), Ok(vec![3, 1, 2, 0, 4]));
        // With one GPU left, job 3's group (2 GPUs each) is left at once; job 2 shares its
        // row with 1-GPU jobs, so it is handed over with its 2 GPUs for the caller to pass over.
        let mut seen = Vec::new();
        let walked = lists.walk(0, &book, &x, 1, &mut |i, _, gpus| {
            seen.push((i, gpus));
            Some(1)
        });
        assert_eq!(walked, Ok(()));
        assert_eq!(seen, [(1, 1), (2, 2), (0, 1), (4, 1)]);
        // Job 3 finishes: it is gone from every list.
        let done = [Ran {
            finished: true,
            ..ran(3, 10.0)
        }];
        lists.before_update(&book, &x, &done);
        let still = [state(0), state(1), state(2), state(4)];
        book.update(&done, &still, &mut Vec::new());
        lists.after_update(&book, &x, &done, &[]);
        assert_eq!(order(&mut lists, &book, &x, 8), Ok(vec![1, 2, 0, 4]));
    }

    #[test]
    fn priority_0_parts_are_built_when_first_walked_with_the_arrivals_since() {
        // As `setup`, with a sixth job (1 GPU, like job 4) that arrives after the reset: its
        // arrival makes type 0's priority-0 part for 1 GPU before the walk builds the reset's
        // jobs into it. Both have deficit 0, so arrival order decides: job 4, then job 5.
        let (_, _, mut book, x, mut lists) = setup_of(6);
        assert!(!lists.types[0].zero_built);
        let now: Vec<JobState> = (0..6).map(state).collect();
        let mut arrived = Vec::new();
        book.update(&[], &now, &mut arrived);
        assert_eq!(arrived, [5]);
        lists.after_update(&book, &x, &[], &arrived);
        assert_eq!(order(&mut lists, &book, &x, 8), Ok(vec![3, 0, 1, 2, 4, 5]));
        assert!(lists.types[0].zero_built);
        assert_eq!(lists.types[0].zero.len(), 1, "one part for 1 GPU");
        // Walked again, the part is not built twice.
        assert_eq!(order(&mut lists, &book, &x, 8), Ok(vec![3, 0, 1, 2, 4, 5]));
    }

    #[test]
    fn a_floating_point_tie_between_different_clocks_is_reported() {
        // Jobs 0 and 1 (one x row) run for slightly different times: find times whose clocks
        // differ by one ulp but whose priorities round to the same number. Gavel's list then
        // orders the two by deficit, which the kept order (by clock) cannot promise.
        let (_, active, book0, x, _) = setup();
        let credit = book0.credit();
        let (mut a, mut b) = (0.0, 0.0);
        for k in 1..10_000 {
            let s = 100.0 + f64::from(k) * 0.37;
            let t = f64::from_bits((credit + s).to_bits() + 1) - credit;
            let w = 5.0 * credit + s + t;
            let p = |jt: f64| 0.25 / (jt / w);
            if credit + t != credit + s && p(credit + s) == p(credit + t) {
                (a, b) = (s, t);
                break;
            }
        }
        assert!(a > 0.0, "no tie found");
        let (_, _, mut book, _, mut lists) = setup();
        let round = [ran(0, a), ran(1, b)];
        lists.before_update(&book, &x, &round);
        book.update(&round, &active, &mut Vec::new());
        lists.after_update(&book, &x, &round, &[]);
        assert_ne!(book.job_time(0, 0), book.job_time(1, 0));
        assert_eq!(order(&mut lists, &book, &x, 8), Err(Unordered));
    }
}
