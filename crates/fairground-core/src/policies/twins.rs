//! Twins: tenants a program cannot tell apart. Gavel's per-job programs (max-sum, space
//! sharing, and the agnostic max-min, which reads no throughputs at all) are unchanged when two
//! jobs of one model and scale factor trade places, so an interior point's central path gives
//! both the same, and the program can be solved over classes of twins with each row weighted by
//! how many it stands for ([`crate::barrier`]).

use super::interior::significant;
use crate::barrier::WeightedLp;
use crate::co_location::CoLocation;
use crate::{Allocation, Instance};

/// Classes of twins: tenants with the same throughputs, cap and weight, which every pair treats
/// alike. `groups` are the pairs by the classes of their two jobs. Found only when the pairs
/// between any two classes are all of them, with one throughput pair (the same both ways within
/// a class), listed once; otherwise every tenant is its own class and every pair its own group,
/// which is the program per job.
pub(super) struct Twins {
    pub class_of: Vec<usize>,
    /// Members per class.
    pub size: Vec<usize>,
    pub groups: Vec<PairGroup>,
    /// Each pair's group.
    pub group_of: Vec<usize>,
}

/// Pairs between two classes (`ends`, the first end's class not after the second's).
pub(super) struct PairGroup {
    pub ends: (usize, usize),
    /// Per type, the throughput of the job from `ends.0`, then from `ends.1`.
    pub throughput: Vec<(f64, f64)>,
    pub pairs: usize,
}

impl PairGroup {
    /// Partners a job of class `c` has in this group, and its throughput per type next to them.
    pub fn partners_of(&self, c: usize, size: &[usize]) -> Option<(f64, Vec<f64>)> {
        let ends = usize::from(self.ends.0 == c) + usize::from(self.ends.1 == c);
        (ends > 0).then(|| {
            let partners = (self.pairs * ends / size[c]) as f64;
            let side = |t: &(f64, f64)| if self.ends.0 == c { t.0 } else { t.1 };
            (partners, self.throughput.iter().map(side).collect())
        })
    }
}

impl Twins {
    /// The first tenant of each class.
    pub fn first(&self) -> Vec<usize> {
        let mut first = vec![usize::MAX; self.size.len()];
        for (i, &c) in self.class_of.iter().enumerate().rev() {
            first[c] = i;
        }
        first
    }

    pub fn of(inst: &Instance, pairs: &[CoLocation]) -> Self {
        Self::classes(inst, pairs).unwrap_or_else(|| Self::none(inst, pairs))
    }

    /// Every tenant its own class, every pair its own group.
    pub fn none(inst: &Instance, pairs: &[CoLocation]) -> Self {
        Twins {
            class_of: (0..inst.tenants()).collect(),
            size: vec![1; inst.tenants()],
            groups: pairs
                .iter()
                .map(|p| PairGroup {
                    ends: (p.a, p.b),
                    throughput: p.throughput.clone(),
                    pairs: 1,
                })
                .collect(),
            group_of: (0..pairs.len()).collect(),
        }
    }

    pub fn classes(inst: &Instance, pairs: &[CoLocation]) -> Option<Self> {
        let n = inst.tenants();
        let alike = |a: usize, b: usize| {
            inst.throughput[a] == inst.throughput[b]
                && inst.cap[a] == inst.cap[b]
                && inst.weight[a] == inst.weight[b]
        };
        let mut first: Vec<usize> = Vec::new();
        let mut class_of = Vec::with_capacity(n);
        for i in 0..n {
            let c = first.iter().position(|&f| alike(f, i)).unwrap_or_else(|| {
                first.push(i);
                first.len() - 1
            });
            class_of.push(c);
        }
        let classes = first.len();
        if classes == n {
            return None;
        }
        let mut size = vec![0; classes];
        class_of.iter().for_each(|&c| size[c] += 1);
        // Each pair listed once: partners stamped per tenant.
        let mut partners: Vec<Vec<usize>> = vec![Vec::new(); n];
        for p in pairs {
            partners[p.a].push(p.b);
            partners[p.b].push(p.a);
        }
        let mut stamp = vec![usize::MAX; n];
        for (i, list) in partners.iter().enumerate() {
            for &o in list {
                if stamp[o] == i {
                    return None;
                }
                stamp[o] = i;
            }
        }
        let mut table = vec![usize::MAX; classes * classes];
        let mut groups: Vec<PairGroup> = Vec::new();
        let mut group_of = Vec::with_capacity(pairs.len());
        for p in pairs {
            let (mut ca, mut cb) = (class_of[p.a], class_of[p.b]);
            let mut throughput = p.throughput.clone();
            if ca == cb && throughput.iter().any(|(x, y)| x != y) {
                return None;
            }
            if ca > cb {
                std::mem::swap(&mut ca, &mut cb);
                throughput.iter_mut().for_each(|t| *t = (t.1, t.0));
            }
            let slot = &mut table[ca * classes + cb];
            if *slot == usize::MAX {
                *slot = groups.len();
                groups.push(PairGroup {
                    ends: (ca, cb),
                    throughput,
                    pairs: 0,
                });
            } else if groups[*slot].throughput != throughput {
                return None;
            }
            groups[*slot].pairs += 1;
            group_of.push(*slot);
        }
        let complete = groups.iter().all(|g| {
            let (a, b) = (size[g.ends.0], size[g.ends.1]);
            g.pairs
                == if g.ends.0 == g.ends.1 {
                    a * (a - 1) / 2
                } else {
                    a * b
                }
        });
        complete.then_some(Twins {
            class_of,
            size,
            groups,
            group_of,
        })
    }
}

/// The base constraints of a per-job program over classes of twins (no pairs), g_cj each job's
/// GPUs of type j in class c, of cost `cost(i, j)` per job (i the class's first tenant):
///
/// ```text
/// sum_j g_cj <= s_c          weight |c|, capped classes
/// sum_c |c| g_cj <= n_j      weight 1
/// g_cj >= 0                  weight |c|, cost |c| cost(i, j)
/// ```
///
/// Returns the program, to add a policy's own rows to, and the variables g[c][j].
pub fn base_program(
    inst: &Instance,
    twins: &Twins,
    cost: impl Fn(usize, usize) -> f64,
) -> (WeightedLp, Vec<Vec<usize>>) {
    let k = inst.types();
    let mut lp = WeightedLp::default();
    let first = twins.first();
    let g: Vec<Vec<usize>> = first
        .iter()
        .zip(&twins.size)
        .map(|(&i, &size)| {
            let size = size as f64;
            (0..k).map(|j| lp.var(size * cost(i, j), size)).collect()
        })
        .collect();
    for ((&i, &size), vars) in first.iter().zip(&twins.size).zip(&g) {
        if let Some(cap) = inst.cap[i] {
            let row: Vec<(usize, f64)> = vars.iter().map(|&v| (v, 1.0)).collect();
            lp.le(&row, cap, size as f64);
        }
    }
    for j in 0..k {
        let row: Vec<(usize, f64)> = g
            .iter()
            .zip(&twins.size)
            .map(|(vars, &size)| (vars[j], size as f64))
            .collect();
        lp.le(&row, inst.count[j], 1.0);
    }
    (lp, g)
}

/// Every tenant's GPUs from a solved [`base_program`]'s x: its class's, to 8 significant digits.
pub fn allocation_of(inst: &Instance, twins: &Twins, g: &[Vec<usize>], x: &[f64]) -> Allocation {
    let mut allocation = Allocation::zeros(inst.tenants(), inst.types());
    for (row, &c) in allocation.gpus.iter_mut().zip(&twins.class_of) {
        for (gij, &v) in row.iter_mut().zip(&g[c]) {
            *gij = significant(x[v].max(0.0));
        }
    }
    allocation
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Six jobs of three models (3, 2 and 1 jobs), every pair offered: three classes, and the
    /// pairs in five groups (a class of one has no pair inside). Any pair missing, listed
    /// twice, or with a throughput unlike its group's, and the program is solved per job.
    #[test]
    fn twins_are_merged_only_when_every_pair_between_two_classes_is_alike() {
        let rates: [&[f64]; 3] = [&[1.0, 2.0], &[3.0, 1.0], &[2.0, 2.0]];
        let model = [0, 1, 0, 2, 1, 0];
        let spec: Vec<(&[f64], Option<f64>, Option<f64>)> =
            model.iter().map(|&m| (rates[m], Some(1.0), None)).collect();
        let inst = crate::policies::test_instance(&[("a", 2), ("b", 3)], &spec);
        let rate = |m: usize, other: usize| 0.5 + 0.1 * m as f64 + 0.01 * other as f64;
        let mut pairs = Vec::new();
        for a in 0..6 {
            for b in a + 1..6 {
                let (ma, mb) = (model[a], model[b]);
                pairs.push(CoLocation {
                    a,
                    b,
                    throughput: vec![(rate(ma, mb), rate(mb, ma)); 2],
                });
            }
        }
        let twins = Twins::classes(&inst, &pairs).expect("twins");
        assert_eq!(twins.class_of, vec![0, 1, 0, 2, 1, 0]);
        assert_eq!(twins.size, vec![3, 2, 1]);
        let mut groups: Vec<((usize, usize), usize)> =
            twins.groups.iter().map(|g| (g.ends, g.pairs)).collect();
        groups.sort_unstable();
        assert_eq!(
            groups,
            vec![
                ((0, 0), 3),
                ((0, 1), 6),
                ((0, 2), 3),
                ((1, 1), 1),
                ((1, 2), 2)
            ]
        );
        // A job of class 0 has 2 partners in its own class and 2 in class 1.
        let inside = twins.groups.iter().find(|g| g.ends == (0, 0)).unwrap();
        assert_eq!(inside.partners_of(0, &twins.size).unwrap().0, 2.0);
        let across = twins.groups.iter().find(|g| g.ends == (0, 1)).unwrap();
        assert_eq!(across.partners_of(0, &twins.size).unwrap().0, 2.0);
        assert_eq!(across.partners_of(1, &twins.size).unwrap().0, 3.0);
        assert!(across.partners_of(2, &twins.size).is_none());

        let mut missing = pairs.clone();
        missing.remove(4);
        assert!(Twins::classes(&inst, &missing).is_none());
        let mut twice = pairs.clone();
        twice[4] = twice[3].clone();
        assert!(Twins::classes(&inst, &twice).is_none());
        let mut unlike = pairs.clone();
        unlike[0].throughput[1].0 += 0.01;
        assert!(Twins::classes(&inst, &unlike).is_none());
        // Jobs 0 and 2 (one model) sharing at unequal rates cannot be swapped.
        let mut lopsided = pairs.clone();
        let k = lopsided.iter().position(|p| (p.a, p.b) == (0, 2)).unwrap();
        lopsided[k].throughput[0] = (0.5, 0.6);
        assert!(Twins::classes(&inst, &lopsided).is_none());
        assert_eq!(Twins::of(&inst, &lopsided).size, vec![1; 6]);
    }
}
