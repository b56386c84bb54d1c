//! [`FrozenFtl`]: a prepared device that several runs share.
//!
//! Filling and aging a device (preconditioning) builds page tables for every page of it;
//! on a 256 GB device that is a gigabyte and, aged, tens of seconds. Runs that start from
//! the same prepared device (the schemes of one comparison, the points of one sweep) can
//! share it: [`Ftl::freeze`] moves the page tables behind an `Arc`, and each
//! [`FrozenFtl::thaw`] makes an FTL whose own tables start empty and read through to the
//! shared ones until the run writes an entry (see `mapping/mod.rs`: a zero entry means "what
//! the base left"). Block and plane records (0.5 bytes per page) are copied. A thawed FTL
//! behaves exactly as a copy of the frozen one would, and its memory follows the pages
//! the run touches.
//!
//! [`Ftl::snapshot`] is the same move in place: the FTL goes on over its own tables,
//! frozen, and the [`Snapshot`] keeps reading them as they were (verify mode's record of
//! the data a device held at set-up, without a copy).

use std::sync::Arc;

use ssdlab_nand::Lpn;

use crate::ftl::Ftl;
use crate::mapping::Mapping;

/// An FTL whose state several runs start from (see the module docs).
pub struct FrozenFtl {
    /// Everything but the page tables (its own tables are empty).
    rest: Ftl,
    /// The page tables, shared by every thawed copy.
    tables: Arc<Mapping>,
}

impl Ftl {
    /// Takes background GC's settings (`ftl.gc.background`, `background_free_ratio`)
    /// from `cfg`: a run on a device prepared under other ones (preconditioning never
    /// reads them) collects in the background as its own configuration says.
    pub fn set_background_gc(&mut self, cfg: &crate::FtlConfig) {
        self.background = cfg.gc.background;
        self.bg_threshold_blocks = cfg.bg_threshold_blocks(&self.geom);
    }

    /// Freezes this FTL's state for [`FrozenFtl::thaw`]. The FTL must be idle: no
    /// program outstanding (as after preconditioning).
    pub fn freeze(mut self) -> FrozenFtl {
        let tables = std::mem::replace(&mut self.map, Mapping::new(0, 0));
        FrozenFtl {
            rest: self,
            tables: Arc::new(tables),
        }
    }
}

/// The data a device held at one moment, read only: each LPN's page and the token on it
/// then. Taken by [`Ftl::snapshot`]; nothing the FTL does later changes it.
#[derive(Clone)]
pub struct Snapshot {
    tables: Arc<Mapping>,
}

impl Ftl {
    /// A [`Snapshot`] of the data now. The page tables move behind an `Arc` and this FTL
    /// goes on over them exactly as [`FrozenFtl::thaw`] does (same behaviour, its own
    /// tables starting empty), so nothing is copied. The FTL must be idle: no program
    /// outstanding.
    pub fn snapshot(&mut self) -> Snapshot {
        let tables = Arc::new(std::mem::replace(&mut self.map, Mapping::new(0, 0)));
        self.map = Mapping::over(Arc::clone(&tables), self.geom.pages_per_block);
        Snapshot { tables }
    }
}

impl Snapshot {
    /// The token `lpn` held, if it was mapped.
    #[inline]
    pub fn token(&self, lpn: Lpn) -> Option<u64> {
        LpnTokens(&self.tables).get(lpn)
    }

    /// Number of LPNs.
    pub fn map_entries(&self) -> u32 {
        self.tables.map_entries()
    }
}

/// Which token each LPN holds now, read only and shareable between threads: set-up work
/// that reads the whole map (a RAID's parity after aging) splits it over the cores.
#[derive(Clone, Copy)]
pub struct LpnTokens<'a>(&'a Mapping);

impl Ftl {
    /// A [`LpnTokens`] view of the data now.
    pub fn lpn_tokens(&self) -> LpnTokens<'_> {
        LpnTokens(&self.map)
    }
}

impl LpnTokens<'_> {
    /// The token `lpn` holds, if it is mapped (the page may still be programming).
    #[inline]
    pub fn get(&self, lpn: Lpn) -> Option<u64> {
        self.0.lpn_token(lpn)
    }

    /// Asks the cache for what [`LpnTokens::get`] of `lpn` will read (see
    /// [`Ftl::prefetch_lpn_token`]). Nothing changes.
    #[inline]
    pub fn prefetch(&self, lpn: Lpn) {
        self.0.prefetch_lpn_token(lpn);
    }
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("map_entries", &self.map_entries())
            .finish()
    }
}

impl FrozenFtl {
    /// An FTL in the frozen state, sharing its page tables.
    pub fn thaw(&self) -> Ftl {
        // `rest`'s own tables are empty: cloning it copies the block records and the
        // policies only.
        let mut f = self.rest.clone();
        f.map = Mapping::over(Arc::clone(&self.tables), f.geom.pages_per_block);
        f
    }

    /// Heap bytes of the shared page tables (once, however many copies share them) and
    /// of the records each copy gets its own of.
    pub fn heap_bytes(&self) -> u64 {
        self.tables.heap_bytes() + self.rest.heap_bytes()
    }

    /// FTLs thawed from this one and still alive.
    pub fn sharers(&self) -> usize {
        Arc::strong_count(&self.tables) - 1
    }
}

impl std::fmt::Debug for FrozenFtl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrozenFtl")
            .field("ftl", &self.rest)
            .field("sharers", &self.sharers())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{small_cfg, tiny};
    use crate::{Ftl, PreconditionConfig};
    use ssdlab_engine::SimRng;
    use ssdlab_nand::{Lpn, PlaneId, Ppn};

    fn aged(seed: u64) -> Ftl {
        let (cfg, g) = (small_cfg(), tiny());
        let n = cfg.logical_pages(&g);
        let mut f = Ftl::new(&cfg, &g, n, SimRng::new(seed)).unwrap();
        let pre = PreconditionConfig {
            enabled: true,
            overwrite_ratio: 0.6,
            ..PreconditionConfig::default()
        };
        let planes = g.planes();
        f.precondition(
            &pre,
            None,
            &mut |l| PlaneId(l.0 % planes),
            &mut SimRng::new(seed + 1),
        );
        f
    }

    #[test]
    fn a_thawed_ftl_keeps_its_invariants_through_writes_and_gc() {
        let frozen = aged(11).freeze();
        let mut a = frozen.thaw();
        let planes = a.geometry().planes();
        let n = a.map_entries();
        for i in 0..2000u32 {
            let l = Lpn(i.wrapping_mul(2_654_435_761) % n);
            a.write_now(l, PlaneId(l.0 % planes), u64::from(i) + 1)
                .unwrap();
        }
        a.check_invariants();
        assert!(
            a.counters().erases > 0 || a.erases_total > 0,
            "GC ran over the shared tables"
        );
    }

    #[test]
    fn a_thawed_ftl_is_the_frozen_one_and_copies_do_not_see_each_other() {
        let reference = aged(3);
        let frozen = aged(3).freeze();
        let mut a = frozen.thaw();
        let b = frozen.thaw();
        assert_eq!(frozen.sharers(), 2);
        assert_eq!(a.diff_state(&reference), None);
        // A write through one copy leaves the other (and the frozen tables) as they were.
        let planes = a.geometry().planes();
        let l = Lpn(7);
        let token = 0xfeed;
        let ppn = a.write_now(l, PlaneId(l.0 % planes), token).unwrap();
        assert_eq!(a.lookup(l), Some(ppn));
        assert_eq!(a.token(ppn), token);
        assert_ne!(b.lookup(l), Some(ppn));
        assert_eq!(b.diff_state(&reference), None);
        assert_eq!(frozen.thaw().diff_state(&reference), None);
        drop((a, b));
        assert_eq!(frozen.sharers(), 0);
    }

    #[test]
    fn a_snapshot_keeps_the_data_of_its_moment_while_the_ftl_goes_on_unchanged() {
        let mut reference = aged(5);
        let mut a = aged(5);
        let n = a.map_entries();
        let then: Vec<Option<u64>> = (0..n)
            .map(|l| a.lookup(Lpn(l)).map(|p| a.token(p)))
            .collect();
        let first = a.snapshot();
        // A second snapshot over the first: the tables nest a level deeper.
        let second = a.snapshot();
        assert_eq!(a.diff_state(&reference), None);
        let planes = a.geometry().planes();
        for i in 0..3000u32 {
            let l = Lpn(i.wrapping_mul(2_654_435_761) % n);
            let plane = PlaneId(l.0 % planes);
            let token = u64::from(i) + 1;
            assert_eq!(
                a.write_now(l, plane, token).unwrap(),
                reference.write_now(l, plane, token).unwrap()
            );
        }
        a.check_invariants();
        assert!(a.counters().erases > 0 || a.erases_total > 0, "GC ran");
        assert_eq!(a.diff_state(&reference), None);
        for (l, &t) in then.iter().enumerate() {
            assert_eq!(first.token(Lpn(l as u32)), t, "LPN {l}");
            assert_eq!(second.token(Lpn(l as u32)), t, "LPN {l}");
        }
        let changed = (0..n)
            .filter(|&l| a.lookup(Lpn(l)).map(|p| a.token(p)) != then[l as usize])
            .count();
        assert!(
            changed > 0,
            "the writes changed data the snapshot still has"
        );
    }

    /// After a snapshot, the LPNs the tables may hold differently are listed: every LPN
    /// whose page or token differs from the snapshot's, after a few writes (fewer than
    /// all LPNs listed) and after many with GC.
    #[test]
    fn changed_lpns_cover_every_change_since_the_snapshot() {
        let mut a = aged(5);
        assert_eq!(a.changed_lpns(), None, "no snapshot, no record");
        let n = a.map_entries();
        let then: Vec<Option<(Ppn, u64)>> = (0..n)
            .map(|l| a.lookup(Lpn(l)).map(|p| (p, a.token(p))))
            .collect();
        let _snapshot = a.snapshot();
        assert_eq!(a.changed_lpns(), Some(Vec::new()));
        let planes = a.geometry().planes();
        let mut written = 0u32;
        for writes in [10u32, 3000] {
            for i in written..written + writes {
                let l = Lpn(i.wrapping_mul(2_654_435_761) % n);
                a.write_now(l, PlaneId(l.0 % planes), u64::from(i) + 1)
                    .unwrap();
            }
            written += writes;
            let listed = a.changed_lpns().unwrap();
            assert!(
                listed.windows(2).all(|w| w[0] < w[1]),
                "in order, once each"
            );
            let differ: Vec<u32> = (0..n)
                .filter(|&l| a.lookup(Lpn(l)).map(|p| (p, a.token(p))) != then[l as usize])
                .collect();
            assert!(!differ.is_empty());
            for l in &differ {
                assert!(
                    listed.binary_search(l).is_ok(),
                    "LPN {l} changed, not listed"
                );
            }
            if writes == 10 {
                assert!(listed.len() < n as usize, "{} of {n}", listed.len());
            }
        }
        assert!(a.counters().erases > 0 || a.erases_total > 0, "GC ran");
    }
}
