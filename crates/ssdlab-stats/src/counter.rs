//! [`Counter`]: the typed key of the report's named counters.
//!
//! The simulator adds to a counter with [`Recorder::count`](crate::Recorder::count) and
//! readers take it back with [`Report::counter`](crate::Report::counter). In JSON and in
//! the table a counter appears under its [`Counter::name`], and counters are listed in
//! name order whatever the order of the variants ([`Counter`]'s `Ord` compares names).
//!
//! Counters count sub-requests (pages), not whole requests, unless their doc says
//! otherwise.

use std::cmp::Ordering;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

macro_rules! counters {
    ($( $(#[doc = $doc:literal])+ $variant:ident = $name:literal, )+) => {
        /// A named counter of the report: one variant per counter the simulator writes.
        ///
        /// Serialized (JSON map key) as its [`name`](Counter::name); ordered by name.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Counter {
            $( $(#[doc = $doc])+ $variant, )+
        }

        impl Counter {
            /// Every counter, in declaration order (`Counter::ALL[c.index()] == c`).
            pub const ALL: [Counter; [$(Counter::$variant),+].len()] = [$(Counter::$variant),+];

            /// The counter's name in reports: kebab-case, stable across versions.
            pub const fn name(self) -> &'static str {
                match self {
                    $( Counter::$variant => $name, )+
                }
            }
        }
    };
}

counters! {
    // Host path, GC and scheduling (the simulator's own counters).
    /// Read pages answered from the controller's write buffer (content still waiting
    /// for space or being programmed) instead of by a flash read.
    BufferHits = "buffer-hits",
    /// Reads of never-written pages served after the page (under RAID, its stripe or
    /// both copies, with their redundancy) was written in place at zero cost
    /// (`host.unwritten_reads`).
    MaterializedReads = "materialized-reads",
    /// Reads of never-written pages answered without any flash read: with
    /// `host.unwritten_reads = "zero"`, or when there was no room to materialize them.
    UnwrittenZeroReads = "unwritten-zero-reads",
    /// Host read pages whose content token was checked against the last write to their
    /// page (verify mode).
    VerifiedReads = "verified-reads",
    /// Page programs (host, mirror or parity) that found no free page in their plane and
    /// waited for its next erase.
    ParkedWrites = "parked-writes",
    /// Times a plane needed GC and had no victim: every full block held only valid
    /// pages (a *starved* plane, possible when a page's versions move between planes).
    GcStarvedPlanes = "gc-starved-planes",
    /// Parked host writes of a starved plane placed again on another plane.
    ParkedWritesMoved = "parked-writes-moved",
    /// GC runs started on an idle die before free space fell to the foreground
    /// threshold (`ftl.gc.background`); counts runs.
    BackgroundGcRuns = "background-gc-runs",
    /// Multi-plane operations: array operations that served more than one plane of a
    /// die at once; counts operations.
    MultiPlaneOps = "multi-plane-ops",
    /// PAQ: held reads committed while another held read waited for the same die
    /// (a node conflict, PAQ paper §4.2); counts committed groups.
    PaqCommitsNode = "paq-commits-node",
    /// PAQ: groups committed with no other held read on their die but one on another
    /// die of the same package (a cluster conflict).
    PaqCommitsCluster = "paq-commits-cluster",
    /// PAQ: groups committed with held reads only on other packages of the same channel
    /// (a domain conflict).
    PaqCommitsDomain = "paq-commits-domain",
    /// PAQ: groups committed with no other held read on their channel (conflict-free).
    PaqCommitsNone = "paq-commits-none",
    /// PAQ (`paq1`, `paq2`): clumps, the passes over the packages that committed at least
    /// one group; counts passes.
    PaqClumps = "paq-clumps",
    /// PAQ (`paq0`, `paq2`): held reads that joined a committed read as its plane-packing
    /// partners; counts pages.
    PaqPackedPages = "paq-packed-pages",
    /// Pages served by multi-plane operations (the sum of their group sizes): how much
    /// of the work packing reached (PAQ §6).
    MultiPlanePages = "multi-plane-pages",
    /// Host programs whose plane and page were chosen when their die started them
    /// (`placement.bind = "dispatch"`; reported only then).
    DispatchBoundWrites = "dispatch-bound-writes",
    /// Host programs waiting for dispatch that a newer write of the same page made
    /// unnecessary: dropped without a flash operation (`placement.bind = "dispatch"`).
    DispatchSupersededWrites = "dispatch-superseded-writes",
    /// Read sub-requests that a scheduler chose to serve by another plan than `direct`:
    /// reconstruction from the parity group (BRR) or another copy (DS-FTL, CR1, CR5M).
    /// Degraded reads are not counted here. The report divides it by the read pages
    /// (BRR's redirected reads; DS-FTL figure 13).
    RedirectedReads = "redirected-reads",
    // The trace reader.
    /// Bad trace lines skipped (only when skipping bad lines is asked for); counts lines.
    TraceSkippedLines = "trace-skipped-lines",
    /// Legitimate non-request trace lines passed over (blkparse events other than `D`,
    /// its summary, header lines); counts lines.
    TraceIgnoredLines = "trace-ignored-lines",
    /// Trace records whose timestamp went backwards and was raised to the previous one;
    /// counts records.
    TraceClampedTimestamps = "trace-clamped-timestamps",
    /// Gaps between consecutive trace requests longer than 30 days: jumps of the trace's
    /// clock (a wall-clock stamp in a relative trace); counts gaps, reported only when
    /// there is one.
    TraceTimeJumps = "trace-time-jumps",
    /// The trace line of the request after the first such jump.
    TraceFirstJumpLine = "trace-first-jump-line",
    /// The first such jump as the trace has it, in ns.
    TraceFirstJumpNs = "trace-first-jump-ns",
    /// Gaps cut to the `--max-gap` length (`max_gap_ns` of the trace options); counts
    /// gaps, reported only when one was cut.
    TraceGapsCut = "trace-gaps-cut",
    /// Time those cuts removed from the trace, in ns.
    TraceGapCutNs = "trace-gap-cut-ns",
    // RAID (present only with RAID configured).
    /// Parity updates done by read-modify-write (old data and old parity pre-read);
    /// counts stripe updates.
    RaidRmw = "raid-rmw",
    /// Parity updates done by reconstruct-write (the untouched members pre-read);
    /// counts stripe updates.
    RaidRcw = "raid-rcw",
    /// Parity updates that rewrote every data chunk of their group, with no pre-read;
    /// counts stripe updates.
    RaidFullGroup = "raid-full-group",
    /// Pages pre-read for parity updates (RMW and RCW).
    RaidPreReads = "raid-pre-reads",
    /// Pre-reads of them issued before their job held its stripe's lock, because a GC
    /// victim waited for their pins (see the controller's early pre-reads).
    RaidEarlyPreReads = "raid-early-pre-reads",
    /// Parity pages programmed.
    RaidParityWrites = "raid-parity-writes",
    /// Buffered groups of new writes encoded because their timeout expired before all
    /// their data chunks arrived (`raid.buffer_new_writes`); counts groups.
    RaidGroupTimeouts = "raid-group-timeouts",
    /// Mirror copies programmed (reason `mirror-write`): the second copy of a RAID-1
    /// (CR1) page write, or a CR5M mirror write's copy on the mirror chip, as opposed to
    /// a parity update.
    MirrorWrites = "mirror-writes",
    /// Reads served by the mirror copy (RAID-1: its chip had the shorter queue; CR5M: by
    /// `raid.mirror_read_choice`).
    RaidMirrorReads = "raid-mirror-reads",
    /// Reads served by reconstruction from their parity group, by choice or because of
    /// a failure; counts reconstructed pages.
    RaidReconstructions = "raid-reconstructions",
    /// Pages read to reconstruct other pages: the other members of each reconstructed
    /// page's group.
    RaidReconstructReads = "raid-reconstruct-reads",
    // Failures and rebuild (present only with failures configured).
    /// Failures injected (`raid.fail`, `--fail`); a channel failure counts once.
    Failures = "failures",
    /// Power losses injected (`--fail power@T`); present only when there was one.
    PowerLosses = "power-losses",
    /// Flush commands completed; present only when the workload had one. Not requests of
    /// the read or write classes.
    Flushes = "flushes",
    /// Write requests with FUA (durable before they complete); present only when the
    /// workload had one.
    FuaWrites = "fua-writes",
    /// Trim (deallocate) commands completed; present only when the workload had one.
    /// Requests, not of the read or write classes.
    Trims = "trims",
    /// Pages those trims covered whole (each unmapped, whether it held data or not);
    /// present only with trims.
    TrimmedPages = "trimmed-pages",
    /// Host reads of trimmed pages that verify mode confirmed hold no data (they return
    /// what a never-written page returns); present only when there was one.
    VerifiedTrimmedReads = "verified-trimmed-reads",
    // Partial-page writes (present only with `timing.transfer = "sectors"`).
    /// Host write pages that covered part of a page.
    PartialWritePages = "partial-write-pages",
    /// Flash reads of a page's old copy before a partial write of it was programmed.
    MergeReads = "merge-reads",
    /// Partial writes merged with a version the controller held (DRAM, a waiting write),
    /// with no flash read of their own.
    MergedInController = "merged-in-controller",
    /// Timed failures due after the last request completed: not applied (they would
    /// only have moved the end of the run).
    FailuresNotFired = "failures-not-fired",
    /// Mean response time, in ns, of the requests completed before the first failure
    /// (a mean, not a count).
    MeanResponseNsBeforeFailure = "mean-response-ns-before-failure",
    /// Mean response time, in ns, of the requests completed while a rebuild ran (a mean,
    /// not a count).
    MeanResponseNsDuringRebuild = "mean-response-ns-during-rebuild",
    /// Mean response time, in ns, of the requests completed after a failure while no
    /// rebuild ran (a mean, not a count).
    MeanResponseNsAfterFailure = "mean-response-ns-after-failure",
    /// Read sub-requests served by reconstruction (or the other copy) because their
    /// chip has failed.
    DegradedReads = "degraded-reads",
    /// Host page writes whose chip was dead, kept only by the redundancy (RAID-4/5
    /// parity, the RAID-1 copy).
    DegradedWrites = "degraded-writes",
    /// Reads of pages that no plan could recover (a second failure in the group, or no
    /// redundancy): counted, never answered.
    UnrecoverableReads = "unrecoverable-reads",
    /// Host page writes to a dead chip without redundancy: their data is gone.
    LostWrites = "lost-writes",
    /// At the end of the run, host pages on dead chips that neither their stripe nor a
    /// mirror can recover.
    UnrecoverablePages = "unrecoverable-pages",
    /// Pages programmed onto spare chips by rebuilds.
    RebuiltPages = "rebuilt-pages",
    /// Rows the rebuilds have walked, over all rebuilds; counts rows.
    RebuildRowsDone = "rebuild-rows-done",
    /// Rows the rebuilds have to walk, over all rebuilds; counts rows.
    RebuildRowsTotal = "rebuild-rows-total",
    /// Times a rebuild row was put off because its stripe was busy.
    RebuildDeferrals = "rebuild-deferrals",
    /// Duration of the longest finished rebuild, in ns (0 when none finished).
    RebuildTimeNs = "rebuild-time-ns",
    // DGC (present only with DGC enabled).
    /// Write sub-requests placed away from their usual place: to another chip before
    /// its GC (DGC) or to another plane by content (DS-FTL). The report divides it by
    /// the write pages (DS-FTL figure 13).
    RedirectedWrites = "redirected-writes",
    /// GC runs that DGC postponed and then started on an idle chip; counts runs.
    DeferredGc = "deferred-gc",
    /// Writes DGC found about to start or wait behind GC on their chip (the candidates
    /// for redirection).
    DgcWarnedWrites = "dgc-warned-writes",
    // DS-FTL and HIPA (present only with the content index, or with HIPA).
    /// Read pages served by another page of identical content on a less loaded chip
    /// (DS-FTL's multi-path read); also counted in `redirected-reads`.
    DuplicateReads = "duplicate-reads",
    /// Host page writes whose content a valid page of the device already held when they
    /// were placed (the LPN's own old page included).
    DuplicateWrites = "duplicate-writes",
    /// Content-aware writes whose content every unit (channel or chip) already held: they
    /// went where `dsftl.on_saturated` says.
    DsftlSaturatedWrites = "dsftl-saturated-writes",
    /// Fingerprint-table answers "held" that the content index contradicted (Bloom
    /// filter false positives; each caused a needless move to another unit).
    DsftlBloomFalsePositives = "dsftl-bloom-false-positives",
    /// Content-aware writes that stayed at their target because no unit lacking the
    /// content had room (`dsftl.space_guard_blocks`).
    DsftlNoRoomWrites = "dsftl-no-room-writes",
    /// HIPA writes placed by the dynamic gear (the least-loaded unit) instead of the
    /// static one.
    HipaDynamicWrites = "hipa-dynamic-writes",
    /// Read pages that joined a read of the same page (or content) already queued on
    /// their chip instead of reading the flash (`scheduler.merge.reads`).
    MergedReads = "merged-reads",
    // RAID-4/5 writes to never-written stripes (`raid.unwritten_stripes`).
    /// Stripes a write found partly or wholly unwritten, whose unwritten pages and parity
    /// were written in zero time before the write (`raid.unwritten_stripes =
    /// "materialize"`); counts stripes.
    RaidMaterializedStripes = "raid-materialized-stripes",
    // CR5M (present only with `raid.mirror_chips`).
    /// Partial-stripe updates served by a mirror write (data and mirror copy, no parity
    /// update); counts stripe updates. `mirror-writes` counts their mirror pages.
    MirrorWriteStripes = "mirror-write-stripes",
    /// Partial-stripe updates that could not take a mirror write because a mirror chip
    /// they needed was busy; counts stripe updates.
    MirrorWriteRefusedBusy = "mirror-write-refused-busy",
    /// Partial-stripe updates that could not take a mirror write because a mirror chip
    /// they needed was below its reclaim threshold or had no free page; counts stripe updates.
    MirrorWriteRefusedFull = "mirror-write-refused-full",
    /// Partial-stripe updates that could not take a mirror write for another reason: the
    /// stripe was being updated or held a page waiting for space, a page of it is on a
    /// failed chip, or the stripe was never written; counts stripe updates.
    MirrorWriteRefusedOther = "mirror-write-refused-other",
    /// Mirror entries released by the parity update (RMW or RCW) of a host write to
    /// their stripe (§III-B 1c).
    MirrorReclaimsUpdate = "mirror-reclaims-update",
    /// Mirror entries released by a full-stripe write of their stripe (no read needed).
    MirrorReclaimsFull = "mirror-reclaims-full",
    /// Mirror entries released because their mirror chip fell below
    /// `raid.mirror_reclaim_free_ratio` (§III-B 1d).
    MirrorReclaimsCapacity = "mirror-reclaims-capacity",
    /// Mirror entries released because a data plane could not collect garbage while
    /// their expired page filled it (`raid.mirror_pressure_reclaim`).
    MirrorReclaimsPressure = "mirror-reclaims-pressure",
    /// Mirror entries released because their mirror chip failed.
    MirrorReclaimsFailure = "mirror-reclaims-failure",
    /// Mirror entries alive at the end of the run: parity updates still owed (the run
    /// ends without flushing them, as in the paper).
    MirrorEntriesAtEnd = "mirror-entries-at-end",
    /// The most mirror entries alive at once during the run.
    MirrorEntriesPeak = "mirror-entries-peak",
    // Foreground GC starts by what took their plane below the threshold (every run).
    /// Foreground GC runs started in a plane that a host data write (or its RAID-1
    /// copy) took below the free-block threshold; counts runs.
    GcStartsData = "gc-starts-data",
    /// Foreground GC runs started in a plane that a RAID parity write took below the
    /// threshold; counts runs.
    GcStartsParity = "gc-starts-parity",
    /// Foreground GC runs started in a plane still below the threshold after its
    /// previous GC erased its victim; counts runs.
    GcStartsChain = "gc-starts-chain",
    /// Foreground GC runs started for other work (materialized reads, rebuild, GC's own
    /// page moves); counts runs.
    GcStartsOther = "gc-starts-other",
    /// Parity programs DGC placed on a chip of another group before their chip's GC
    /// (`dgc.redirect_parity`); not in `redirected-writes`.
    DgcRedirectedParity = "dgc-redirected-parity",
    // PIQ and BRR.
    /// PIQ, BRR: transactions placed in a chip queue ahead of transactions queued
    /// before them (a request that joined an older batch; `scheduler.piq.batch_order =
    /// "queue"`).
    PiqReordered = "piq-reordered",
    /// BRR: host reads with a reconstruction on offer that stayed direct because a member
    /// chip would not serve its read sooner than the target chip (Algorithm 2, line 7,
    /// first test).
    BrrRejectedWait = "brr-rejected-wait",
    /// BRR: host reads with a reconstruction on offer that stayed direct because a member
    /// chip's next request is due before it would serve its read (line 7, second test).
    BrrRejectedArrival = "brr-rejected-arrival",
}

impl Counter {
    /// Position of the counter in [`Counter::ALL`].
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The counter named `name`, if there is one.
    pub fn from_name(name: &str) -> Option<Counter> {
        Counter::ALL.into_iter().find(|c| c.name() == name)
    }
}

impl fmt::Display for Counter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// By name, so that a map keyed by counters lists them in name order.
impl Ord for Counter {
    fn cmp(&self, other: &Self) -> Ordering {
        self.name().cmp(other.name())
    }
}

impl PartialOrd for Counter {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Serialize for Counter {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Counter {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Counter::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown counter `{name}`")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_lists_every_variant_at_its_index() {
        for (i, c) in Counter::ALL.into_iter().enumerate() {
            assert_eq!(c.index(), i, "{c:?}");
        }
    }

    #[test]
    fn names_are_unique_kebab_case_and_round_trip() {
        let mut names: Vec<&str> = Counter::ALL.iter().map(|c| c.name()).collect();
        for n in &names {
            assert!(!n.is_empty(), "empty name");
            assert!(
                n.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{n} is not kebab-case"
            );
            assert_eq!(Counter::from_name(n).map(Counter::name), Some(*n));
        }
        names.sort_unstable();
        let len = names.len();
        names.dedup();
        assert_eq!(names.len(), len, "duplicate counter names");
        assert_eq!(Counter::from_name("no-such-counter"), None);
    }

    #[test]
    fn order_is_name_order() {
        let mut by_ord = Counter::ALL.to_vec();
        by_ord.sort();
        let mut by_name = Counter::ALL.to_vec();
        by_name.sort_by_key(|c| c.name());
        assert_eq!(by_ord, by_name);
        // Declaration order differs from name order, so the impl is what sorts.
        assert!(Counter::BufferHits > Counter::BackgroundGcRuns);
        assert!(Counter::DegradedReads < Counter::RedirectedReads);
    }

    #[test]
    fn serializes_as_its_name() {
        let json = serde_json::to_string(&Counter::TraceSkippedLines).unwrap();
        assert_eq!(json, "\"trace-skipped-lines\"");
        let back: Counter = serde_json::from_str(&json).unwrap();
        assert_eq!(back, Counter::TraceSkippedLines);
        let err = serde_json::from_str::<Counter>("\"nope\"").unwrap_err();
        assert!(err.to_string().contains("unknown counter `nope`"), "{err}");
    }
}
