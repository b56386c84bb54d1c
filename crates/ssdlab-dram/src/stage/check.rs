//! The stage's invariants, checked in full (tests call it after every step).

use super::{DramStage, Where};

impl DramStage {
    /// Checks every invariant of the stage's state.
    ///
    /// # Panics
    /// On the first one that does not hold.
    pub fn check_invariants(&self) {
        assert!(self.resident() <= self.capacity, "over capacity");
        assert_eq!(self.index.len() as u32, self.resident(), "index vs lists");
        let mut destaging = 0;
        for (&lpn, &slot) in &self.index {
            let e = &self.entries[slot as usize];
            assert_eq!(e.lpn, lpn);
            let w = self.wheres[slot as usize];
            match w {
                Where::Clean => assert_eq!((e.dirty_since, e.destaging), (0, 0), "{lpn}"),
                Where::Dirty => assert!(e.dirty_since != 0 && e.destaging == 0, "{lpn}"),
                Where::Destaging => assert!(e.dirty_since != 0 && e.destaging != 0, "{lpn}"),
            }
            destaging += u32::from(w == Where::Destaging);
            assert_eq!(
                self.by_age.contains(&(e.dirty_since, slot)),
                e.dirty_since != 0,
                "age index of {lpn}"
            );
            assert!(e.seq < self.next_seq && e.dirty_since <= e.seq.max(e.dirty_since));
        }
        assert_eq!(destaging, self.destaging);
        assert_eq!(self.by_age.len() as u32, self.dirty_pages());
        for (set, w) in [(&self.clean, Where::Clean), (&self.dirty, Where::Dirty)] {
            for &(stamp, s) in set {
                assert_eq!(self.wheres[s as usize], w);
                assert_eq!(self.entries[s as usize].stamp, stamp);
            }
        }
    }
}
