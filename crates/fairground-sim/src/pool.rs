//! Free GPUs during one round's scheduling, and Gavel's packing rule.

use crate::model::Cluster;
use crate::schedulers::Piece;

/// The GPUs not yet given out this round, by server.
#[derive(Debug, Clone)]
pub struct GpuPool {
    /// free[s]: free GPU indices on server s, ascending.
    free: Vec<Vec<u32>>,
    server_type: Vec<usize>,
}

impl GpuPool {
    pub fn new(cluster: &Cluster) -> GpuPool {
        GpuPool {
            free: cluster
                .servers
                .iter()
                .map(|s| (0..s.gpus).collect())
                .collect(),
            server_type: cluster.servers.iter().map(|s| s.gpu_type).collect(),
        }
    }

    /// No GPU left to give this round.
    pub fn is_empty(&self) -> bool {
        self.free.iter().all(Vec::is_empty)
    }

    pub fn free_on_type(&self, gpu_type: usize) -> u32 {
        self.servers_of(gpu_type)
            .map(|s| self.free[s].len() as u32)
            .sum()
    }

    /// Free GPUs on server `s`.
    pub fn free_on_server(&self, s: usize) -> u32 {
        self.free[s].len() as u32
    }

    /// Takes `count` GPUs of server `s`, as one piece of copy `copy`; None (nothing taken) when
    /// it has fewer free.
    pub fn take_on_server(&mut self, s: usize, count: u32, copy: u32) -> Option<Piece> {
        if count == 0 || (self.free[s].len() as u32) < count {
            return None;
        }
        Some(Piece {
            server: s,
            gpus: self.free[s].drain(..count as usize).collect(),
            copy,
        })
    }

    fn servers_of(&self, gpu_type: usize) -> impl Iterator<Item = usize> + '_ {
        (0..self.free.len()).filter(move |&s| self.server_type[s] == gpu_type)
    }

    /// Takes `count` GPUs of one type, packed onto as few servers as possible (as Gavel does):
    /// the fullest server that still fits them all (best fit); otherwise servers with the most
    /// free GPUs first. None, and nothing taken, when the type has fewer free GPUs.
    pub fn take(&mut self, gpu_type: usize, count: u32) -> Option<Vec<Piece>> {
        if count == 0 || self.free_on_type(gpu_type) < count {
            return None;
        }
        let best_fit = self
            .servers_of(gpu_type)
            .filter(|&s| self.free[s].len() as u32 >= count)
            .min_by_key(|&s| (self.free[s].len(), s));
        let mut order: Vec<usize> = match best_fit {
            Some(s) => vec![s],
            None => {
                let mut servers: Vec<usize> = self.servers_of(gpu_type).collect();
                servers.sort_by_key(|&s| (std::cmp::Reverse(self.free[s].len()), s));
                servers
            }
        };
        let mut pieces = Vec::new();
        let mut left = count as usize;
        for s in order.drain(..) {
            if left == 0 {
                break;
            }
            let n = left.min(self.free[s].len());
            if n == 0 {
                continue;
            }
            let gpus: Vec<u32> = self.free[s].drain(..n).collect();
            left -= n;
            pieces.push(Piece {
                server: s,
                gpus,
                copy: 0,
            });
        }
        Some(pieces)
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
}
