//! `[scheduler]`: which I/O scheduler, and its queues. The scheduler names
//! ([`SchedulerKind`]) are derived from the list of policies in [`crate::sched`]; the
//! run configuration re-exports both as `crate::config::{SchedulerConfig,
//! SchedulerKind}`. The sub-tables `[scheduler.vaq]` and `[scheduler.paq]` hold the
//! options of the PAQ paper's schedulers (docs/PAQ.md).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ssdlab_nand::Geometry;

use super::{MergeConfig, SchedulerKind};

/// Scheduler selection and its queues.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SchedulerConfig {
    /// Which policy.
    pub name: SchedulerKind,
    /// Transactions a chip's queue holds (BRR: 64; its sensitivity study: 1..256).
    #[schemars(range(min = 1), extend("x-unit" = "transactions"))]
    pub chip_queue_depth: u32,
    /// Pack queued reads or programs of one die into multi-plane operations when they
    /// obey the plane-addressing rule (different planes, same page offset).
    pub multi_plane: bool,
    /// `async-fifo`, `piq`, `brr`: a die whose next transaction is a program first
    /// serves the host reads already queued behind it; reads queued later wait for the
    /// program (BRR §III-C: writes are delayed behind reads, then served before newly
    /// arriving reads). `sync-fifo` keeps the rule by construction; refused with `vaq`
    /// and the `paq` schedulers, which do not delay programs behind reads.
    pub write_behind_read: bool,
    /// `vaq` options.
    pub vaq: VaqConfig,
    /// `paq0`, `paq1`, `paq2` options.
    pub paq: PaqConfig,
    /// Merging a new host read into an identical read waiting in its chip queue.
    pub merge: MergeConfig,
    /// `piq`, `brr` options.
    pub piq: PiqConfig,
    /// `brr` options.
    pub brr: BrrConfig,
    /// Which reads queued for a die busy with a program or erase suspend it (the die's
    /// capability: `[nand.suspend]`); refused with `vaq` and the `paq` schedulers,
    /// which queue a read only for an idle die.
    ///
    /// Written out in the resolved configuration (and so part of its hash) only when it
    /// is not the default.
    #[serde(skip_serializing_if = "super::SuspendPolicy::is_off")]
    #[schemars(extend("default" = "off"))]
    pub suspend: super::SuspendPolicy,
    /// `async-fifo`: garbage collection's transactions go ahead of host work on their
    /// chip (they take a free slot of its queue before host work waiting for one, and a
    /// die serves its first queued GC transaction before any other), after MQSim's
    /// non-preemptible GC (`Preemptible_GC_Enabled = false`: its TSU serves a chip's GC
    /// queues first). With `multi_plane`, a GC operation's other planes are filled from
    /// GC work first, then from host work, as MQSim's TSU fills them. Off: GC work takes
    /// its turn in arrival order. Refused with the other schedulers.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[schemars(extend("default" = false))]
    pub gc_first: bool,
}

impl Default for SchedulerConfig {
    fn default() -> Self {
        SchedulerConfig {
            name: SchedulerKind::AsyncFifo,
            chip_queue_depth: 64,
            multi_plane: false,
            write_behind_read: false,
            vaq: VaqConfig::default(),
            paq: PaqConfig::default(),
            merge: MergeConfig::default(),
            piq: PiqConfig::default(),
            brr: BrrConfig::default(),
            suspend: super::SuspendPolicy::Off,
            gc_first: false,
        }
    }
}

/// Where PIQ's batch order decides what a chip serves next.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum BatchOrder {
    /// Inside the chip queues: a chip's queue is the controller's pending queue of that
    /// chip, ordered by batch (the BRR paper's reading, §III-D).
    #[default]
    Queue,
    /// Only in what waits for room in the chip queues, which are FIFO.
    Overflow,
}

/// `[scheduler.piq]`: Parallel Issue Queuing (BRR paper §II-D, Algorithm 1).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PiqConfig {
    /// Where the batch order applies.
    pub batch_order: BatchOrder,
}

/// How BRR estimates `AT_j`, the next arrival at a member chip (Algorithm 2, line 7).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum NextArrival {
    /// The chip's next arrival expected from its past ones: one mean gap between
    /// arrivals from now (memoryless arrivals, as DGC's `AT`). The redirected read joins
    /// the end of the member's queue, so only requests still to come can suffer from it.
    #[default]
    MeanGap,
    /// The earliest arrival among the host requests held for the chip in the batch
    /// lists that arrived after the read (none: unbounded).
    Held,
}

/// `[scheduler.brr]`: Balanced Redirected Read (BRR paper §III-E, Algorithm 2).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BrrConfig {
    /// How `AT_j` is estimated.
    pub next_arrival: NextArrival,
}

/// What VAQ's head waits for before it is committed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum BlockOn {
    /// The head's die is idle with nothing queued for it.
    Die,
    /// The head's whole package (chip) is idle with nothing queued.
    Chip,
}

/// `[scheduler.vaq]`: the in-order baseline (PAQ paper §4.3, §6.5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct VaqConfig {
    /// What the head of the queue blocks on.
    pub block_on: BlockOn,
    /// Entries right behind the head that qualify (same die and operation, same page
    /// offset, another plane) join it in one multi-plane operation ("purely luck", §4.4).
    pub adjacent_multi_plane: bool,
    /// Blocked entries the queue may look past to commit one behind them whose die is
    /// open (not in the paper, whose VAQ is strictly in order: 0). A sensitivity knob
    /// that brackets how strict the baseline is.
    #[serde(skip_serializing_if = "is_zero")]
    #[schemars(extend("default" = 0), extend("x-unit" = "entries"))]
    pub lookahead: u32,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

impl Default for VaqConfig {
    fn default() -> Self {
        VaqConfig {
            block_on: BlockOn::Die,
            adjacent_multi_plane: true,
            lookahead: 0,
        }
    }
}

/// Where PAQ sends host writes and background work.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum WritePath {
    /// Straight to the chip queue in submission order (Algorithm 1's bypass).
    Bypass,
    /// `paq0` only: into the read FIFO, in order with the reads (VAQ plus packing).
    Fifo,
}

/// Which die of a package a clump serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PaqOrder {
    /// Among the dies the oldest request has reads on, the one with the most held
    /// reads (node conflict first, §4.3 goal #1); ties to the lowest die.
    ConflictFirst,
    /// The die of the oldest held read.
    OldestFirst,
}

/// `[scheduler.paq]`: physically addressed queueing (PAQ paper §4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PaqConfig {
    /// Dies of one package that may hold committed or running work at once when a
    /// clump commits to it; 0 means all of them (die interleaving), 1 is the literal
    /// "one transaction per package" of goal #2.
    #[schemars(extend("x-unit" = "dies", "x-constraint" = "<= geometry.dies_per_chip"))]
    pub chip_slots: u32,
    /// Die choice inside a package (`paq1`, `paq2`).
    pub order: PaqOrder,
    /// Where writes and background work go.
    pub write_path: WritePath,
    /// An idle die serves its held reads before writes already in its chip queue (not
    /// in the paper).
    pub read_first: bool,
    /// Pack the queued writes and background work of a die into multi-plane
    /// operations, never moving a program ahead of an earlier program of its plane.
    /// Programs whose page is chosen at dispatch are packed by the back end when
    /// `scheduler.multi_plane` is on (not in the paper).
    pub pack_writes: bool,
    /// Starvation bound: a held read whose die has started this many operations since
    /// the read arrived is served next by that die, ahead of queued writes; 0 = off
    /// (not in the paper, §6.4 names the need).
    #[schemars(extend("x-unit" = "operations"))]
    pub starvation_limit: u32,
}

impl Default for PaqConfig {
    fn default() -> Self {
        PaqConfig {
            chip_slots: 0,
            order: PaqOrder::ConflictFirst,
            write_path: WritePath::Bypass,
            read_first: false,
            pack_writes: false,
            starvation_limit: 0,
        }
    }
}

impl SchedulerConfig {
    /// Inconsistent scheduler values for `geom`, each with its key; `bind_at_dispatch`
    /// says whether host programs are bound when their die starts them.
    pub fn validate(&self, geom: &Geometry, bind_at_dispatch: bool) -> Vec<(String, String)> {
        let mut errs = Vec::new();
        let p = &self.paq;
        if p.chip_slots > geom.dies_per_chip {
            errs.push((
                "scheduler.paq.chip_slots".into(),
                format!(
                    "must be 0 (every die) or at most geometry.dies_per_chip = {}, found {}",
                    geom.dies_per_chip, p.chip_slots
                ),
            ));
        }
        if p.write_path == WritePath::Fifo
            && matches!(self.name, SchedulerKind::Paq1 | SchedulerKind::Paq2)
        {
            errs.push((
                "scheduler.paq.write_path".into(),
                format!(
                    "\"fifo\" is a paq0 option (clumping schedules reads only); {} needs \"bypass\"",
                    self.name.name()
                ),
            ));
        }
        let paq = matches!(
            self.name,
            SchedulerKind::Paq0 | SchedulerKind::Paq1 | SchedulerKind::Paq2
        );
        if self.suspend.is_on() && (paq || self.name == SchedulerKind::Vaq) {
            errs.push((
                "scheduler.suspend".into(),
                format!(
                    "{} queues a read only for an idle die, so no read can suspend a program or erase: use \"off\"",
                    self.name.name()
                ),
            ));
        }
        if self.gc_first && self.name != SchedulerKind::AsyncFifo {
            errs.push((
                "scheduler.gc_first".into(),
                format!(
                    "only async-fifo puts garbage collection ahead of host work, not {}: set it to false",
                    self.name.name()
                ),
            ));
        }
        if self.write_behind_read && (paq || self.name == SchedulerKind::Vaq) {
            errs.push((
                "scheduler.write_behind_read".into(),
                format!(
                    "{} does not delay programs behind reads (async-fifo, piq and brr do; \
                     sync-fifo keeps the rule by serving whole requests in arrival order): \
                     set it to false{}",
                    self.name.name(),
                    if paq {
                        " (PAQ's own read priority is scheduler.paq.read_first)"
                    } else {
                        ""
                    }
                ),
            ));
        }
        if p.pack_writes && bind_at_dispatch && !self.multi_plane {
            errs.push((
                "scheduler.paq.pack_writes".into(),
                "with placement.bind = \"dispatch\" programs are packed when bound, which needs scheduler.multi_plane = true".into(),
            ));
        }
        errs
    }
}

#[cfg(test)]
mod tests {
    use crate::config::ConfigBuilder;

    fn errors(sets: &[&str]) -> String {
        let mut b = ConfigBuilder::new();
        for s in sets {
            b = b.set(s).unwrap();
        }
        match b.build() {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn paq_and_vaq_keys_are_read_and_checked_by_name() {
        assert_eq!(
            errors(&[
                "scheduler.name=\"paq2\"",
                "scheduler.paq.chip_slots=1",
                "scheduler.paq.order=\"oldest-first\"",
                "scheduler.paq.read_first=true",
                "scheduler.paq.starvation_limit=8",
                "scheduler.vaq.block_on=\"chip\"",
            ]),
            ""
        );
        let e = errors(&["scheduler.paq.chip_slots=3"]);
        assert!(e.contains("scheduler.paq.chip_slots"), "{e}");
        let e = errors(&[
            "scheduler.name=\"paq1\"",
            "scheduler.paq.write_path=\"fifo\"",
        ]);
        assert!(e.contains("scheduler.paq.write_path"), "{e}");
        assert_eq!(
            errors(&[
                "scheduler.name=\"paq0\"",
                "scheduler.paq.write_path=\"fifo\""
            ]),
            ""
        );
        let e = errors(&[
            "placement.bind=\"dispatch\"",
            "scheduler.paq.pack_writes=true",
        ]);
        assert!(e.contains("scheduler.paq.pack_writes"), "{e}");
        let e = errors(&["scheduler.vaq.block_on=\"channel\""]);
        assert!(e.contains("scheduler.vaq.block_on"), "{e}");
        let e = errors(&["scheduler.paq.age_limit=1"]);
        assert!(e.contains("age_limit"), "{e}");
    }

    #[test]
    fn gc_first_is_refused_with_every_scheduler_but_async_fifo() {
        assert_eq!(errors(&["scheduler.gc_first=true"]), "");
        for name in ["sync-fifo", "piq", "brr", "vaq", "paq2"] {
            let set = format!("scheduler.name=\"{name}\"");
            let e = errors(&[&set, "scheduler.gc_first=true"]);
            assert!(e.contains("scheduler.gc_first"), "{name}: {e}");
        }
    }

    #[test]
    fn write_behind_read_is_refused_where_no_scheduler_would_apply_it() {
        for name in ["vaq", "paq0", "paq1", "paq2"] {
            let set = format!("scheduler.name=\"{name}\"");
            let e = errors(&[&set, "scheduler.write_behind_read=true"]);
            assert!(e.contains("scheduler.write_behind_read"), "{name}: {e}");
            assert!(e.contains(name), "{name}: {e}");
            assert_eq!(errors(&[&set, "scheduler.write_behind_read=false"]), "");
        }
        for name in ["sync-fifo", "async-fifo", "piq", "brr"] {
            let set = format!("scheduler.name=\"{name}\"");
            assert_eq!(errors(&[&set, "scheduler.write_behind_read=true"]), "");
        }
    }
}
