//! Page tables of finished runs on shared devices, kept for the next run.
//!
//! A run on a shared prepared device ([`crate::FrozenFtl`]) gets page tables of its own
//! that start all zero and read through to the shared ones. Fresh from the allocator,
//! every 4 KiB page of them the run touches costs a page fault, and a run that collects
//! garbage over a large device touches most of them: tens of thousands of faults a run,
//! which the threads of one process take largely one at a time in the kernel. So when such
//! a run's tables are dropped they are kept here, and the next run over a device of the
//! same size takes them and zeroes only the regions written before ([`Dirty`] records
//! them as the tables are written).
//!
//! At most one set per core is kept (as many as runs at once can give back), at least
//! two; [`release_spare_tables`] drops them.

use std::sync::Mutex;

/// Sets of tables kept at once: one per core, at least two.
fn keep() -> usize {
    static KEEP: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *KEEP.get_or_init(|| std::thread::available_parallelism().map_or(2, |n| n.get().max(2)))
}

/// The 4 KiB regions of one table written since it was last all zero, one bit each
/// (`SHIFT`: log2 of the entries a region holds).
#[derive(Clone, Debug)]
pub(crate) struct Dirty<const SHIFT: u32> {
    bits: Vec<u64>,
}

impl<const SHIFT: u32> Dirty<SHIFT> {
    /// No region of a table of `len` entries written.
    pub fn new(len: usize) -> Self {
        Dirty {
            bits: vec![0; (len >> SHIFT).div_ceil(64) + 1],
        }
    }

    /// Entry `i` is written.
    #[inline(always)]
    pub fn mark(&mut self, i: usize) {
        let r = i >> SHIFT;
        self.bits[r >> 6] |= 1 << (r & 63);
    }

    /// Whether entry `i`'s region was written (if not, the entry is zero).
    #[inline(always)]
    pub fn has(&self, i: usize) -> bool {
        let r = i >> SHIFT;
        self.bits[r >> 6] >> (r & 63) & 1 == 1
    }

    /// Entries `range` are written.
    pub fn mark_range(&mut self, range: std::ops::Range<usize>) {
        if range.is_empty() {
            return;
        }
        for r in range.start >> SHIFT..=(range.end - 1) >> SHIFT {
            self.bits[r >> 6] |= 1 << (r & 63);
        }
    }

    /// Zeroes the written regions of `table` and forgets them.
    pub fn zero<T: Copy + Default>(&mut self, table: &mut [T]) {
        for (w, word) in self.bits.iter_mut().enumerate() {
            let mut m = std::mem::take(word);
            while m != 0 {
                let r = w * 64 + m.trailing_zeros() as usize;
                m &= m - 1;
                let start = (r << SHIFT).min(table.len());
                let end = ((r + 1) << SHIFT).min(table.len());
                table[start..end].fill(T::default());
            }
        }
    }
}

/// One set of page tables with the record of what was written in them.
pub(super) struct Tables {
    pub l2p: Vec<u32>,
    pub p2l: Vec<u32>,
    pub tokens: Vec<u64>,
    pub pending: Vec<u64>,
    pub written: Written,
}

/// The written regions of each table of a set.
#[derive(Clone, Debug)]
pub(crate) struct Written {
    pub l2p: Dirty<10>,
    pub p2l: Dirty<10>,
    pub tokens: Dirty<9>,
    pub pending: Dirty<9>,
}

impl Written {
    /// Nothing written in tables of `map_entries` LPNs over `pages` pages.
    pub fn new(map_entries: usize, pages: usize) -> Self {
        Written {
            l2p: Dirty::new(map_entries),
            p2l: Dirty::new(pages),
            tokens: Dirty::new(pages),
            pending: Dirty::new(pages.div_ceil(64)),
        }
    }
}

impl Tables {
    /// Zeroes what was written.
    fn zero(&mut self) {
        let w = &mut self.written;
        w.l2p.zero(&mut self.l2p);
        w.p2l.zero(&mut self.p2l);
        w.tokens.zero(&mut self.tokens);
        w.pending.zero(&mut self.pending);
        debug_assert!(
            self.l2p.len() > 1 << 16 || self.all_zero(),
            "a spare not zeroed"
        );
    }

    fn all_zero(&self) -> bool {
        self.l2p.iter().all(|&v| v == 0)
            && self.p2l.iter().all(|&v| v == 0)
            && self.tokens.iter().all(|&v| v == 0)
            && self.pending.iter().all(|&v| v == 0)
    }
}

static SPARE: Mutex<Vec<Tables>> = Mutex::new(Vec::new());

fn lock() -> std::sync::MutexGuard<'static, Vec<Tables>> {
    SPARE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Kept tables for `map_entries` LPNs over `pages` pages, all zero, if there are any.
pub(super) fn take(map_entries: usize, pages: usize) -> Option<Tables> {
    let mut t = {
        let mut kept = lock();
        let i = kept
            .iter()
            .rposition(|t| t.l2p.len() == map_entries && t.p2l.len() == pages)?;
        kept.remove(i)
    };
    t.zero();
    Some(t)
}

/// Keeps `t` for a later run (dropping the oldest beyond [`keep`]).
pub(super) fn give(t: Tables) {
    let old = {
        let mut kept = lock();
        kept.push(t);
        let excess = kept.len().saturating_sub(keep());
        kept.drain(..excess).collect::<Vec<_>>()
    };
    drop(old);
}

/// Drops the kept tables; returns how many sets there were.
pub fn release_spare_tables() -> usize {
    let old = std::mem::take(&mut *lock());
    old.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_clears_exactly_the_written_regions() {
        let mut t = vec![0u32; 5000];
        let mut d = Dirty::<10>::new(t.len());
        for i in [3, 1024, 4999] {
            t[i] = 7;
            d.mark(i);
        }
        t[2000..2100].fill(9);
        d.mark_range(2000..2100);
        d.mark_range(10..10);
        d.zero(&mut t);
        assert!(t.iter().all(|&v| v == 0));
        assert!(d.bits.iter().all(|&w| w == 0));
        // A write outside any marked region survives: only marked regions are zeroed.
        t[4000] = 1;
        d.mark(10);
        d.zero(&mut t);
        assert_eq!(t[4000], 1);
    }
}
