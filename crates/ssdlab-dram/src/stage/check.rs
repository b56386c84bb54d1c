//! The stage's invariants, checked in full (tests call it after every step).

use super::{DramStage, Where, CLEAN, DESTAGING, DIRTY};

impl DramStage {
    /// The pages DRAM holds, in no order.
    pub(crate) fn lpns(&self) -> impl Iterator<Item = u32> + '_ {
        self.index.keys().copied()
    }

    /// Checks every invariant of the stage's state.
    ///
    /// # Panics
    /// On the first one that does not hold.
    pub fn check_invariants(&self) {
        assert!(self.resident() <= self.capacity, "over capacity");
        assert_eq!(self.index.len() as u32, self.resident(), "index vs lists");
        let mut destaging = 0;
        // What each list must hold: (key, slot) pairs.
        let (mut clean, mut dirty, mut waiting, mut flying) = (vec![], vec![], vec![], vec![]);
        for (&lpn, &slot) in &self.index {
            let e = &self.entries[slot as usize];
            assert_eq!(e.lpn, lpn);
            let w = self.wheres[slot as usize];
            match w {
                Where::Clean => {
                    assert_eq!((e.dirty_since, e.destaging), (0, 0), "{lpn}");
                    clean.push((e.stamp, slot));
                }
                Where::Dirty => {
                    assert!(e.dirty_since != 0 && e.destaging == 0, "{lpn}");
                    dirty.push((e.stamp, slot));
                    waiting.push((e.dirty_since, slot));
                }
                Where::Destaging => {
                    assert!(e.dirty_since != 0 && e.destaging != 0, "{lpn}");
                    flying.push((e.dirty_since, slot));
                }
            }
            destaging += u32::from(w == Where::Destaging);
            assert!(e.seq < self.next_seq && e.dirty_since <= e.seq.max(e.dirty_since));
        }
        assert_eq!(destaging, self.destaging);
        for (lists, l, mut want, what) in [
            (&self.by_stamp, CLEAN, clean, "clean by stamp"),
            (&self.by_stamp, DIRTY, dirty, "dirty by stamp"),
            (&self.by_age, DIRTY, waiting, "dirty by age"),
            (&self.by_age, DESTAGING, flying, "destaging by age"),
        ] {
            want.sort_unstable();
            assert_eq!(lists.check(l), want, "{what}");
            assert_eq!(lists.first(l), want.first().copied(), "{what}");
        }
    }
}
