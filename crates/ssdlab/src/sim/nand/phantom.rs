//! Pages placed without a program on a one-shot device (docs/NAND.md, *Program, one
//! shot*): a read of a never-written page materializes it in zero time
//! (`host.unwritten_reads = "materialize"`), taking the next page of its plane, which
//! may be a page of a wordline whose other pages are waiting in the page buffer. No
//! program of that page will come to close the wordline, so the layer remembers it as a
//! phantom: a page whose wordline's other pages are all held or phantoms closes it, and
//! a phantom that completes a held wordline has the die program it when it is free.

use super::super::backend::Phase;
use super::super::Simulation;
use ssdlab_nand::{DieId, Ppn};

impl Simulation {
    /// The key of `ppn`'s wordline.
    fn wordline_key(&self, ppn: Ppn) -> (u32, u32) {
        let page = self.geom.page_in_block(ppn);
        (
            self.geom.block_of_page(ppn).0,
            self.nand().cfg.wordline(page),
        )
    }

    /// Pages of wordline `key` held by `die`.
    fn held_on(&self, die: DieId, key: (u32, u32)) -> u32 {
        self.nand().dies[die.idx()]
            .held
            .iter()
            .filter(|&&t| self.wordline_key(self.txns[t].ppn) == key)
            .count() as u32
    }

    /// Page `ppn` was placed in zero time (no program will reach its die): remembered
    /// if the layer programs wordlines one shot; if it completes a wordline whose other
    /// pages are held, the die programs it when free.
    pub(in crate::sim) fn nand_phantom(&mut self, ppn: Ppn) {
        if !self.nand().one_shot {
            return;
        }
        let key = self.wordline_key(ppn);
        let bits = self.nand().cfg.cell.bits();
        let die = self.geom.die_of_page(ppn);
        let n = self.nand_mut();
        let count = n.phantoms.entry(key).or_insert(0);
        *count += 1;
        let phantoms = *count;
        if phantoms == bits {
            // A wordline of phantoms only: nothing to program.
            n.phantoms.remove(&key);
            return;
        }
        let held = self.held_on(die, key);
        if held > 0 && held + phantoms == bits {
            let n = self.nand_mut();
            n.phantoms.remove(&key);
            if !n.dies[die.idx()].close {
                n.dies[die.idx()].close = true;
                n.closing += 1;
            }
            if self.dies[die.idx()].phase == Phase::Idle {
                self.try_start(die);
            }
        }
    }

    /// Whether the program of `ppn` on `die` closes its wordline because every other
    /// page of it is held or a phantom.
    pub(super) fn nand_phantoms_close(&self, die: DieId, ppn: Ppn) -> bool {
        let n = self.nand();
        if n.phantoms.is_empty() {
            return false;
        }
        let key = self.wordline_key(ppn);
        let phantoms = n.phantoms.get(&key).copied().unwrap_or(0);
        phantoms > 0 && self.held_on(die, key) + phantoms + 1 == n.cfg.cell.bits()
    }

    /// Idle `die` was flagged to close a wordline only phantoms complete: it programs
    /// its held pages padded (true), or false if it was not flagged.
    pub(super) fn nand_close_if_flagged(&mut self, die: DieId) -> bool {
        let n = self.nand_mut();
        let d = &mut n.dies[die.idx()];
        if !d.close {
            return false;
        }
        d.close = false;
        n.closing -= 1;
        if n.dies[die.idx()].held.is_empty() {
            return false;
        }
        let chip = self.queues.home(die).0;
        self.set_die_busy(die, chip, true);
        self.nand_pad_die(die);
        true
    }
}
