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
//! Zeroed regions stay in memory, so a kept set holds every region any of its users
//! wrote. A set whose regions in memory outnumber twice the most one of its users wrote
//! is dropped instead of kept, so that light runs over a large device (a sweep's short
//! traces) do not pile up memory run after run, while runs that write most of their
//! tables (those that collect garbage) keep theirs, also between lighter runs. One set
//! is kept at a time: a thread that finishes a run starts the next, which takes it.
//! [`release_spare_tables`] drops it.

use std::sync::Mutex;

/// The 4 KiB regions of one table written since it was last all zero, one bit each
/// (`SHIFT`: log2 of the entries a region holds).
#[derive(Clone, Debug)]
pub(crate) struct Dirty<const SHIFT: u32> {
    bits: Vec<u64>,
    /// Regions written before the last zeroing (still in memory).
    before: Vec<u64>,
}

impl<const SHIFT: u32> Dirty<SHIFT> {
    /// No region of a table of `len` entries written.
    pub fn new(len: usize) -> Self {
        let words = (len >> SHIFT).div_ceil(64) + 1;
        Dirty {
            bits: vec![0; words],
            before: vec![0; words],
        }
    }

    /// Entry `i` is written.
    #[inline(always)]
    pub fn mark(&mut self, i: usize) {
        self.mark_region(i >> SHIFT);
    }

    #[inline(always)]
    fn mark_region(&mut self, r: usize) {
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
            self.mark_region(r);
        }
    }

    /// The entries of the regions written since the last zeroing, in a table of `len`
    /// entries, in order.
    pub fn ranges(&self, len: usize) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
        self.bits.iter().enumerate().flat_map(move |(w, &word)| {
            let mut m = word;
            std::iter::from_fn(move || {
                (m != 0).then(|| {
                    let r = w * 64 + m.trailing_zeros() as usize;
                    m &= m - 1;
                    (r << SHIFT).min(len)..((r + 1) << SHIFT).min(len)
                })
            })
        })
    }

    /// Zeroes the written regions of `table` and forgets them.
    pub fn zero<T: Copy + Default>(&mut self, table: &mut [T]) {
        for range in self.ranges(table.len()) {
            table[range].fill(T::default());
        }
        for (before, now) in self.before.iter_mut().zip(&mut self.bits) {
            *before |= std::mem::take(now);
        }
    }

    /// Regions written since the last zeroing, and regions written ever.
    fn regions(&self) -> (u32, u32) {
        let now = self.bits.iter().map(|w| w.count_ones()).sum();
        let ever = (self.bits.iter().zip(&self.before))
            .map(|(a, b)| (a | b).count_ones())
            .sum();
        (now, ever)
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
    /// The most regions one user of the set wrote.
    most: u32,
}

impl Written {
    /// Nothing written in tables of `map_entries` LPNs over `pages` pages.
    pub fn new(map_entries: usize, pages: usize) -> Self {
        Written {
            l2p: Dirty::new(map_entries),
            p2l: Dirty::new(pages),
            tokens: Dirty::new(pages),
            pending: Dirty::new(pages.div_ceil(64)),
            most: 0,
        }
    }

    /// Regions written since the last zeroing, and regions written ever.
    fn regions(&self) -> (u32, u32) {
        [
            self.l2p.regions(),
            self.p2l.regions(),
            self.tokens.regions(),
            self.pending.regions(),
        ]
        .iter()
        .fold((0, 0), |(a, b), p| (a + p.0, b + p.1))
    }
}

impl Tables {
    /// Whether the set is worth keeping: the regions in memory are at most twice the
    /// most one of its users wrote (and a few).
    fn worth_keeping(&self) -> bool {
        let (now, ever) = self.written.regions();
        ever <= 2 * now.max(self.written.most) + 16
    }

    /// Zeroes what was written.
    fn zero(&mut self) {
        let w = &mut self.written;
        w.most = w.most.max(w.regions().0);
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

/// The kept set, if any.
static SPARE: Mutex<Option<Tables>> = Mutex::new(None);

fn lock() -> std::sync::MutexGuard<'static, Option<Tables>> {
    SPARE.lock().unwrap_or_else(|e| e.into_inner())
}

/// The kept tables, all zero, if they are for `map_entries` LPNs over `pages` pages.
pub(super) fn take(map_entries: usize, pages: usize) -> Option<Tables> {
    let mut t = {
        let mut kept = lock();
        let fits = |t: &Tables| t.l2p.len() == map_entries && t.p2l.len() == pages;
        kept.take_if(|t| fits(t))?
    };
    t.zero();
    Some(t)
}

/// Keeps `t` for a later run, in place of the set kept before, if it is worth it. The
/// set it replaces is freed outside the lock.
pub(super) fn give(t: Tables) {
    if t.worth_keeping() {
        let old = lock().replace(t);
        drop(old);
    }
}

/// Drops the kept tables; returns how many sets there were.
pub fn release_spare_tables() -> usize {
    let old = lock().take();
    usize::from(old.is_some())
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
        assert_eq!(d.regions(), (0, 4), "regions 0, 1, 2 and 4 were written");
        // A write outside any marked region survives: only marked regions are zeroed.
        t[4000] = 1;
        d.mark(10);
        d.zero(&mut t);
        assert_eq!(t[4000], 1);
    }

    /// A set whose last user wrote much less than earlier users did is not worth keeping;
    /// one whose last user wrote most of what is in memory is.
    #[test]
    fn a_set_is_kept_while_its_users_write_most_of_it() {
        let (entries, pages) = (1 << 18, 1 << 16);
        let mut t = Tables {
            l2p: vec![0; entries],
            p2l: vec![0; pages],
            tokens: vec![0; pages],
            pending: vec![0; pages / 64],
            written: Written::new(entries, pages),
        };
        for i in (0..pages).step_by(512) {
            t.tokens[i] = 1;
            t.written.tokens.mark(i);
        }
        assert!(t.worth_keeping(), "the first user wrote all it holds");
        t.zero();
        assert!(t.all_zero());
        t.written.l2p.mark(0);
        assert!(
            t.worth_keeping(),
            "a light user after one that wrote it all"
        );
        // Light users that each write elsewhere: the set holds more and more that none
        // of them needs.
        let (entries_per_region, mut next) = (1 << 10, 0);
        let mut light = |t: &mut Tables| {
            t.zero();
            for _ in 0..64 {
                t.written.l2p.mark(next * entries_per_region);
                next += 1;
            }
            t.worth_keeping()
        };
        // In memory, against twice the most one user wrote (128) and 16.
        assert!(light(&mut t), "128 + 64 regions");
        assert!(light(&mut t), "128 + 128 regions");
        assert!(!light(&mut t), "128 + 192 regions");
    }
}
