//! Free GPUs during one round's scheduling, and Gavel's packing rule.

use crate::model::Cluster;
use serde::{Deserialize, Serialize};

/// GPUs on one server given to a job for a round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Piece {
    pub server: usize,
    /// GPU indices on that server.
    pub gpus: Vec<u32>,
    /// Which copy of the job this piece runs (0 unless the job is forked, as in HadarE).
    pub copy: u32,
}

/// The GPUs not yet given out this round, by server.
///
/// Besides each server's free GPUs it keeps, per type, the servers grouped by how many GPUs
/// they have free, so that a take costs the servers it touches, not the cluster's size (a
/// round at 100,000 waiting jobs asks the pool once per job).
#[derive(Debug, Clone)]
pub struct GpuPool {
    /// GPUs are given out from the front of each server, so the free ones of server s are
    /// always the indices taken[s]..size[s].
    taken: Vec<u32>,
    size: Vec<u32>,
    server_type: Vec<usize>,
    /// by_free[type][c]: the servers of that type with exactly c GPUs free.
    by_free: Vec<Vec<ServerSet>>,
    /// Free GPUs per type, and in all.
    free_of_type: Vec<u32>,
    total_free: u32,
}

impl GpuPool {
    pub fn new(cluster: &Cluster) -> GpuPool {
        let types = cluster.types.len();
        let largest = cluster.servers.iter().map(|s| s.gpus).max().unwrap_or(0) as usize;
        let mut by_free = vec![vec![ServerSet::new(cluster.servers.len()); largest + 1]; types];
        let mut free_of_type = vec![0; types];
        for (s, server) in cluster.servers.iter().enumerate() {
            by_free[server.gpu_type][server.gpus as usize].insert(s);
            free_of_type[server.gpu_type] += server.gpus;
        }
        GpuPool {
            taken: vec![0; cluster.servers.len()],
            size: cluster.servers.iter().map(|s| s.gpus).collect(),
            server_type: cluster.servers.iter().map(|s| s.gpu_type).collect(),
            by_free,
            total_free: free_of_type.iter().sum(),
            free_of_type,
        }
    }

    /// No GPU left to give this round.
    pub fn is_empty(&self) -> bool {
        self.total_free == 0
    }

    pub fn free_on_type(&self, gpu_type: usize) -> u32 {
        self.free_of_type.get(gpu_type).copied().unwrap_or(0)
    }

    /// Free GPUs on server `s`.
    pub fn free_on_server(&self, s: usize) -> u32 {
        self.size[s] - self.taken[s]
    }

    /// The most GPUs free on one server of `gpu_type`.
    pub fn most_free_on_a_server(&self, gpu_type: usize) -> u32 {
        self.by_free[gpu_type]
            .iter()
            .rposition(|servers| servers.first().is_some())
            .unwrap_or(0) as u32
    }

    /// Takes the first `n` free GPUs of server `s`, keeping the counts.
    fn drain(&mut self, s: usize, n: usize) -> Vec<u32> {
        let t = self.server_type[s];
        let before = self.free_on_server(s) as usize;
        self.by_free[t][before].remove(s);
        self.by_free[t][before - n].insert(s);
        self.free_of_type[t] -= n as u32;
        self.total_free -= n as u32;
        let first = self.taken[s];
        self.taken[s] += n as u32;
        (first..first + n as u32).collect()
    }

    /// Takes `count` GPUs of server `s`, as one piece of copy `copy`; None (nothing taken) when
    /// it has fewer free.
    pub fn take_on_server(&mut self, s: usize, count: u32, copy: u32) -> Option<Piece> {
        if count == 0 || self.free_on_server(s) < count {
            return None;
        }
        Some(Piece {
            server: s,
            gpus: self.drain(s, count as usize),
            copy,
        })
    }

    /// Takes `count` GPUs of one type, packed onto as few servers as possible (as Gavel does):
    /// the fullest server that still fits them all (best fit: fewest free, then lowest index);
    /// otherwise servers with the most free GPUs first (then lowest index). None, and nothing
    /// taken, when the type has fewer free GPUs.
    pub fn take(&mut self, gpu_type: usize, count: u32) -> Option<Vec<Piece>> {
        if count == 0 || self.free_on_type(gpu_type) < count {
            return None;
        }
        let buckets = &self.by_free[gpu_type];
        let best_fit = buckets
            .iter()
            .skip(count as usize)
            .find_map(ServerSet::first);
        if let Some(s) = best_fit {
            // The usual case: one server holds the whole job.
            let gpus = self.drain(s, count as usize);
            return Some(vec![Piece {
                server: s,
                gpus,
                copy: 0,
            }]);
        }
        // Every server has fewer than `count` free: most free first, until enough.
        let mut order = Vec::new();
        let mut enough = 0;
        for (c, servers) in buckets.iter().enumerate().skip(1).rev() {
            for s in servers.iter() {
                if enough >= count as usize {
                    break;
                }
                order.push(s);
                enough += c;
            }
        }
        let mut pieces = Vec::new();
        let mut left = count as usize;
        for s in order {
            let n = left.min(self.free_on_server(s) as usize);
            left -= n;
            pieces.push(Piece {
                server: s,
                gpus: self.drain(s, n),
                copy: 0,
            });
        }
        Some(pieces)
    }
}

/// A set of server indices as bits: O(1) insert and remove, ascending iteration, on the path
/// every job's placement takes.
#[derive(Debug, Clone)]
struct ServerSet {
    words: Vec<u64>,
}

impl ServerSet {
    fn new(servers: usize) -> ServerSet {
        ServerSet {
            words: vec![0; servers.div_ceil(64)],
        }
    }

    fn insert(&mut self, s: usize) {
        self.words[s / 64] |= 1 << (s % 64);
    }

    fn remove(&mut self, s: usize) {
        self.words[s / 64] &= !(1 << (s % 64));
    }

    /// The lowest index in the set.
    fn first(&self) -> Option<usize> {
        self.iter().next()
    }

    /// The indices in ascending order.
    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(w, &bits)| {
            let mut rest = bits;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let b = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    w * 64 + b
                })
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_onto_the_fullest_server_that_fits() {
        let cluster = Cluster::parse("v100=12").unwrap(); // servers of 8 and 4
        let mut pool = GpuPool::new(&cluster);
        let one = pool.take(0, 2).unwrap();
        assert_eq!(
            one,
            vec![Piece {
                server: 1,
                gpus: vec![0, 1],
                copy: 0
            }]
        ); // best fit: the 4
        let spread = pool.take(0, 9).unwrap(); // 8 + 2 free: needs both servers
        assert_eq!(spread.iter().map(|p| p.gpus.len()).sum::<usize>(), 9);
        assert_eq!(spread[0].server, 0);
        assert_eq!(pool.free_on_type(0), 1);
        assert!(pool.take(0, 2).is_none());
        assert_eq!(pool.free_on_type(0), 1, "a failed take takes nothing");
    }

    /// The packing rule recomputed from its statement over plain lists (fullest server that
    /// fits, else most free first, ties to the lower index), against the pool's buckets, on
    /// random takes over a cluster with servers of several sizes.
    #[test]
    fn takes_follow_the_packing_rule_stated_plainly() {
        use rand::{Rng, SeedableRng};
        let cluster = Cluster::parse("v100=30,k80=13").unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for _ in 0..200 {
            let mut pool = GpuPool::new(&cluster);
            // Reference: free GPU lists per server.
            let mut free: Vec<Vec<u32>> = cluster
                .servers
                .iter()
                .map(|s| (0..s.gpus).collect())
                .collect();
            for _ in 0..12 {
                let t = rng.random_range(0..2);
                let count = rng.random_range(1..=9);
                let servers: Vec<usize> = (0..free.len())
                    .filter(|&s| cluster.servers[s].gpu_type == t)
                    .collect();
                let total: usize = servers.iter().map(|&s| free[s].len()).sum();
                let expected = (total >= count).then(|| {
                    let fit = servers
                        .iter()
                        .copied()
                        .filter(|&s| free[s].len() >= count)
                        .min_by_key(|&s| (free[s].len(), s));
                    let mut order = match fit {
                        Some(s) => vec![s],
                        None => servers.clone(),
                    };
                    order.sort_by_key(|&s| (std::cmp::Reverse(free[s].len()), s));
                    let mut left = count;
                    let mut pieces = Vec::new();
                    for s in order {
                        let n = left.min(free[s].len());
                        if n > 0 {
                            pieces.push(Piece {
                                server: s,
                                gpus: free[s].drain(..n).collect(),
                                copy: 0,
                            });
                            left -= n;
                        }
                    }
                    pieces
                });
                assert_eq!(pool.take(t, count as u32), expected);
                assert_eq!(
                    pool.free_on_type(t) as usize,
                    servers.iter().map(|&s| free[s].len()).sum::<usize>()
                );
            }
        }
    }
}
