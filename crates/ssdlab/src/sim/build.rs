//! Building a simulation: configuration, the FTL (preconditioned if asked), the RAID
//! layer, queues and the scheduler.

use super::backend::{ChannelState, ChipRun, DieState};
use super::cr5m::Cr5m;
use super::stream_tags::StreamTags;
use super::txn::TxnSlab;
use super::verify::Verifier;
use super::{bind, dgc, fold, host::ReqSlab, merge, raid, SimCounters, Simulation};
use crate::config::tenants::{placement_ranges, PlacementFrom, PlacementIsolation};
use crate::config::{Bind, SimConfig};
use crate::device::{DeadChips, GcJob};
use crate::error::SimError;
use crate::placement;
use crate::plans::{BusyFallback, ReadChoice, ReadPlans, ShortestQueue};
use crate::sched::{self, Queues};
use ssdlab_engine::{EventQueue, SimDuration, SimRng};
use ssdlab_ftl::Ftl;
use ssdlab_raid::MirrorReadChoice;
use ssdlab_stats::{Recorder, RunMeta, Shape};
use ssdlab_trace::{RequestStream, TraceError};
use std::collections::VecDeque;

/// The read-choice policy: CR5M's mirror-read rule when the device has mirror chips,
/// else the shortest queue.
fn read_choice(cfg: &SimConfig) -> Box<dyn ReadChoice> {
    if cfg.raid.mirror_chips && cfg.raid.mirror_read_choice == MirrorReadChoice::BusyFallback {
        Box::new(BusyFallback)
    } else {
        Box::new(ShortestQueue)
    }
}

impl Simulation {
    /// Builds a simulation of `cfg` fed by `source`; `trace` describes the source in the report.
    ///
    /// # Errors
    /// [`SimError::Config`] if the configuration is inconsistent.
    pub fn new(
        cfg: SimConfig,
        source: Box<dyn RequestStream>,
        trace: &str,
    ) -> Result<Simulation, SimError> {
        cfg.validate()?;
        let geom = cfg.geometry;
        let rng = SimRng::new(cfg.seed);
        let raid = raid::RaidState::new(&cfg)?;
        let (raid, map_entries, slots, logical_pages) = match raid {
            Some((r, entries, slots)) => {
                let host = r.map.host_pages as u32;
                (Some(r), entries, slots, host)
            }
            None => {
                let n = cfg.ftl.logical_pages(&geom);
                (None, n, 0, n)
            }
        };
        // The cached map's translation pages are slots after every other page (host
        // pages, RAID's redundancy pages and slots).
        let tpage0 = map_entries + slots;
        let per_tpage = cfg.ftl.cmt.per_tpage(geom.page_size_bytes);
        // DS-FTL's group records, in translation pages after the LPNs'.
        let groups = cfg.cmt_groups().then(|| {
            let cost = cfg.ftl.cmt.group_cost(geom.chips());
            super::cmt::GroupMap::new(logical_pages, cost, per_tpage)
        });
        let ftl_slots = if cfg.ftl.mapping == ssdlab_ftl::MapMode::Cached {
            let records = groups.as_ref().map_or(0, super::cmt::GroupMap::tpages);
            slots + logical_pages.div_ceil(per_tpage) + records
        } else {
            slots
        };
        let mut ftl = Ftl::with_slots(&cfg.ftl, &geom, map_entries, ftl_slots, rng.fork("ftl"))
            .map_err(|e| SimError::config("ftl", e.to_string()))?;
        if cfg.content_index() {
            ftl.enable_content_index(&cfg.dsftl.index_config());
            if groups.is_some() {
                ftl.log_group_changes();
            }
        }
        let cr5m = raid
            .as_ref()
            .filter(|r| r.map.mirror)
            .map(|r| Box::new(Cr5m::new(&cfg.raid, r, map_entries, slots, &geom)));
        let placement = placement::build(&cfg);
        let prepared = super::prepare::prepare(&cfg, ftl, placement, raid.as_ref(), &rng);
        let (mut ftl, placement) = (prepared.ftl, prepared.placement);
        if cfg.nand.slc_cache.is_on() {
            // After preconditioning, which writes native blocks: the region starts empty.
            ftl.enable_slc_cache(&cfg.nand.slc_cache, cfg.nand.cell.bits());
        }
        let handles = cfg.host.placement_handles;
        if handles > 0 {
            // After preconditioning: the aged device's data is each namespace's own.
            let page = u64::from(geom.page_size_bytes);
            let bytes = u64::from(cfg.ftl.logical_pages(&geom)) * page;
            let ranges = placement_ranges(&cfg.host.tenant, handles, page, bytes);
            let persistent = cfg.host.placement_isolation == PlacementIsolation::Persistent;
            ftl.enable_handles(handles, &ranges, persistent);
        }
        let write_seq = prepared.write_seq;
        if let Some(e) = prepared.no_room {
            return Err(e.into());
        }
        if prepared.replayed_instead {
            return Err(SimError::config(
                "ftl.precondition.aging",
                "\"sampled\" found no periodic layout of the fill on this device to sample by \
                 (its period exceeds 2^22 LPNs); use aging = \"replay\""
                    .into(),
            ));
        }
        let timing = cfg.timing;
        let planes = geom.planes() as usize;
        let chips = geom.chips() as usize;
        let meta = RunMeta {
            seed: cfg.seed,
            config_hash: cfg.hash_hex(),
            git_rev: crate::GIT_REV.to_string(),
            trace: trace.to_string(),
            scheduler: cfg.scheduler.name.name().to_string(),
            preset: None,
            version: env!("CARGO_PKG_VERSION").to_string(),
        };
        let stream_tags = (cfg.host.placement_from == PlacementFrom::Workload)
            .then(|| Box::new(StreamTags::new(handles, source.format_name())));
        let mut sim = Simulation {
            events: EventQueue::new(),
            sched: sched::build(&cfg.scheduler, &geom, &cfg.timing),
            queues: Queues::new(&geom, cfg.scheduler.chip_queue_depth),
            txns: TxnSlab::default(),
            t_read: SimDuration(timing.t_read_ns),
            t_prog: SimDuration(timing.t_prog_ns),
            t_erase: SimDuration(timing.t_erase_ns),
            xfer: SimDuration(timing.page_transfer_ns(geom.page_size_bytes)),
            sectors: super::sectors::Sectors::of(&cfg),
            source,
            lookahead: None,
            source_done: false,
            reqs: ReqSlab::default(),
            host_queue: VecDeque::new(),
            outstanding: 0,
            next_id: 0,
            completed: 0,
            last_completion_ns: 0,
            last_event_ns: 0,
            logical_pages: u64::from(logical_pages),
            write_seq,
            verify: cfg.verify.then(|| Verifier::new(logical_pages)),
            dies: vec![DieState::idle(); geom.dies() as usize],
            channels: vec![ChannelState::free(); geom.channels as usize],
            chip_run: vec![ChipRun::default(); chips],
            chip_busy_ns: vec![0; chips],
            busy_chips: 0,
            gc_jobs: vec![GcJob::none(); planes],
            parked: vec![Vec::new(); planes],
            held: rustc_hash::FxHashMap::default(),
            park_seq: 0,
            primed: false,
            warmed_up: false,
            gc_pages: Vec::new(),
            fold_pace: cfg.nand.slc_cache.is_on().then(|| {
                let c = &cfg.nand.slc_cache;
                let wordline = match cfg.nand.program {
                    ssdlab_nand::ProgramModel::OneShot => cfg.nand.cell.bits(),
                    ssdlab_nand::ProgramModel::PerPage => 1,
                };
                Box::new(fold::FoldPace::new(
                    geom.planes(),
                    wordline,
                    c.fold_wordlines_in_flight,
                    c.idle_after_ns,
                ))
            }),
            gc_check: Vec::new(),
            starved: Vec::new(),
            gc_cause: vec![super::gc_trigger::GcCause::None; planes],
            gc_blocking: vec![false; planes],
            gc_first: if cfg.ftl.gc.trigger == ssdlab_ftl::GcTrigger::Lazy {
                vec![VecDeque::new(); geom.dies() as usize]
            } else {
                Vec::new()
            },
            gc_starts: Default::default(),
            raid,
            fail: None,
            dead: DeadChips::new(geom.chips()),
            cr5m,
            dgc: cfg
                .dgc
                .enabled
                .then(|| dgc::DgcState::new(&cfg.dgc, &cfg.timing, &geom)),
            bind: (cfg.placement.bind == Bind::Dispatch).then(|| bind::BindState::new(&geom)),
            admit_done_now: 0,
            stripe_writes: Vec::new(),
            scratch: Vec::new(),
            group: Vec::with_capacity(8),
            counters: SimCounters::default(),
            rec: Recorder::new(Shape {
                channels: geom.channels,
                chips: geom.chips(),
                dies: geom.dies(),
                page_size_bytes: geom.page_size_bytes,
            }),
            error: None,
            progress: None,
            meta,
            ftl,
            placement_settles: placement.settles(),
            placement,
            read_choice: read_choice(&cfg),
            read_plans: ReadPlans::new(),
            multipath: cfg.multipath_reads(),
            dsftl_counters: Default::default(),
            merge: merge::MergeState::new(&cfg.scheduler.merge),
            dram: None,
            tenants: None,
            stream_tags,
            pcie: super::pcie::Pcie::new(&cfg.host.pcie).map(Box::new),
            nand: super::nand::NandState::build(
                &cfg.nand,
                &cfg.timing,
                cfg.scheduler.suspend,
                geom.dies(),
            ),
            partial: (timing.transfer == ssdlab_nand::Transfer::Sectors).then(|| {
                Box::new(super::partial::PartialWrites::new(
                    geom.page_size_bytes,
                    u64::from(logical_pages),
                ))
            }),
            cmt: (cfg.ftl.mapping == ssdlab_ftl::MapMode::Cached).then(|| {
                Box::new(super::cmt::CmtState::new(
                    cfg.ftl.cmt.capacity() as u32,
                    cfg.ftl.cmt.per_tpage(geom.page_size_bytes),
                    logical_pages,
                    tpage0,
                    cfg.verify,
                    (
                        &crate::config::sharing::namespace_starts(&cfg),
                        cfg.ftl.cmt.sharing,
                    ),
                    groups,
                ))
            }),
            errors: cfg
                .errors
                .is_on()
                .then(|| Box::new(super::errors::ErrorsState::new(&cfg.errors, &geom, &rng))),
            geom,
            cfg,
        };
        if sim.errors.is_some() {
            // Requests can fail: the per-request results carry a status.
            sim.rec.add_status_column();
        }
        if let Some((key, why)) = crate::config::sharing::equal_without_tenants(&sim.cfg) {
            return Err(SimError::config(&key, why));
        }
        if sim.cfg.cache.is_on() {
            // Destage a RAID row's host pages together, so that whole stripes leave
            // DRAM as full-stripe writes.
            let group = sim.raid.as_ref().map_or(1, |r| r.map.layout.data_per_row());
            let plp = super::dram::plp_budget(&sim.cfg.cache, &sim.geom, sim.t_prog.0, sim.xfer.0);
            // One destage in flight per plane by default; with one-shot programs a
            // wordline's worth, or every plane's destage could wait in its page buffer
            // for a wordline no further destage completes.
            let per_plane = if sim.cfg.nand.program == ssdlab_nand::ProgramModel::OneShot {
                sim.cfg.nand.cell.bits()
            } else {
                1
            };
            let hook = super::dram::DramHook::new(
                &sim.cfg.cache,
                (
                    sim.geom.page_size_bytes,
                    group,
                    sim.geom.planes() * per_plane,
                ),
                plp,
                sim.cfg.ftl.dram_bytes(),
                &crate::config::sharing::namespace_starts(&sim.cfg),
            );
            sim.dram = Some(Box::new(hook));
        }
        sim.init_failures()?;
        if sim.cfg.ftl.precondition.enabled {
            sim.verify_from_set_up();
        }
        Ok(sim)
    }

    /// [`Simulation::new`] on the trace `open` opens, made ready to run: warmed up with
    /// the trace when `ftl.precondition.warmup = "trace"`, and told the trace's length
    /// when a failure is given as a fraction of it. Each of those reads the trace once
    /// more, from a stream `open` opens again.
    ///
    /// # Errors
    /// As [`Simulation::new`] and [`Simulation::warm_up`]; a trace error of any pass.
    pub fn on_trace(
        cfg: SimConfig,
        mut open: impl FnMut() -> Result<Box<dyn RequestStream>, TraceError>,
        trace: &str,
    ) -> Result<Simulation, SimError> {
        let mut sim = Simulation::new(cfg, open()?, trace)?;
        if sim.needs_warm_up() {
            sim.warm_up(open()?)?;
        }
        if sim.needs_trace_length() {
            let mut n = 0u64;
            for r in open()? {
                r?;
                n += 1;
            }
            sim.set_trace_requests(n);
        }
        Ok(sim)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ConfigBuilder;
    use crate::VecStream;
    use ssdlab_nand::Lpn;
    use ssdlab_trace::{IoRequest, Op};

    /// Reads and writes over the first `pages` host pages.
    fn requests(pages: u64) -> Vec<IoRequest> {
        (0..400u64)
            .map(|i| IoRequest {
                arrival_ns: i * 40_000,
                op: if i % 3 == 0 { Op::Read } else { Op::Write },
                fua: false,
                offset_bytes: (i * 7919 % pages) * 4096,
                size_bytes: 4096 * (1 + i % 3),
                content: None,
                stream: None,
            })
            .collect()
    }

    fn build(sets: &[&str], replay: bool) -> Simulation {
        let text = "verify = true\n[geometry]\nchannels = 4\nchips_per_channel = 2\n\
                    dies_per_chip = 1\nplanes_per_die = 2\nblocks_per_plane = 32\n\
                    pages_per_block = 16\n[ftl]\nover_provisioning = 0.25\n\
                    [ftl.precondition]\nenabled = true\noverwrite_ratio = 0.0\n";
        let mut b = ConfigBuilder::new().text(text, "fill").unwrap();
        for s in sets {
            b = b.set(s).unwrap();
        }
        let cfg = b.build().unwrap();
        let reqs = requests(u64::from(cfg.ftl.logical_pages(&cfg.geometry)) / 2);
        super::super::prepare::REPLAY_FILL.with(|r| r.set(replay));
        let sim = Simulation::on_trace(cfg, || Ok(Box::new(VecStream::new(reqs.clone()))), "-");
        super::super::prepare::REPLAY_FILL.with(|r| r.set(false));
        sim.unwrap()
    }

    /// A trace that writes the device in order after preconditioning (the first write
    /// to LPN 0, the second to LPN 1, …) gives every page a token other than the one
    /// preconditioning left there, also after aging: the run's write numbers carry on.
    #[test]
    fn trace_writes_never_reuse_a_preconditioned_token() {
        for sets in [&[][..], &["ftl.precondition.overwrite_ratio=0.4"][..]] {
            let mut sim = build(sets, false);
            assert!(sim.write_seq > 0, "{sets:?}");
            for l in 0..sim.logical_pages as u32 {
                let lpn = Lpn(l);
                let Some(ppn) = sim.ftl.lookup(lpn) else {
                    continue;
                };
                let old = sim.ftl.token(ppn);
                assert_ne!(sim.write_token(lpn, None), old, "{sets:?}: {lpn}");
            }
        }
    }

    /// A run of `sets` (see `build`) to its end, on a device of its own or on one shared
    /// with other runs.
    fn ran(sets: &[&str], share: bool) -> Simulation {
        use super::super::prepare::NO_SHARING;
        NO_SHARING.with(|n| n.set(!share));
        let mut sim = build(sets, false);
        NO_SHARING.with(|n| n.set(false));
        // A shared device is one frozen layer; verify mode's snapshot of set-up another,
        // and one more after a warm-up.
        let warm = sim.cfg.ftl.precondition.warmup != ssdlab_ftl::Warmup::None;
        let layers = usize::from(share) + usize::from(sim.cfg.verify) * (1 + usize::from(warm));
        assert_eq!(sim.ftl.frozen_layers(), layers, "{sets:?}: shared");
        sim.run_to_end().unwrap();
        sim.audit().unwrap();
        sim
    }

    /// Runs that start from one aged device, prepared once and shared, are runs on
    /// devices of their own (the same device state at the end, the same report): also
    /// with another scheduler (not part of the device), verified reads, sampled aging,
    /// content-aware placement and RAID-5.
    #[test]
    fn runs_on_a_shared_aged_device_are_runs_on_their_own() {
        let cases: &[&[&str]] = &[
            &["ftl.precondition.overwrite_ratio=0.5"],
            &[
                "ftl.precondition.overwrite_ratio=0.5",
                "ftl.precondition.aging=\"sampled\"",
                "ftl.precondition.sample_planes=2",
            ],
            &[
                "ftl.precondition.overwrite_ratio=0.5",
                "ftl.allocation=\"content-aware\"",
            ],
            &[
                "ftl.precondition.overwrite_ratio=0.3",
                "raid.level=5",
                "raid.group_size=4",
                "raid.layout=\"lci\"",
            ],
            &["ftl.precondition.overwrite_ratio=0.5", "seed=9"],
        ];
        let json = |s: Simulation| serde_json::to_string(&s.into_report().unwrap()).unwrap();
        for sets in cases {
            let deeper: Vec<&str> = sets
                .iter()
                .copied()
                .chain(["scheduler.chip_queue_depth=2"])
                .collect();
            for sets in [&sets[..], &deeper[..]] {
                let own = ran(sets, false);
                assert!(own.ftl.counters().erases > 0, "{sets:?}: GC ran");
                let shared = [ran(sets, true), ran(sets, true)];
                for s in &shared {
                    assert_eq!(s.ftl.diff_state(&own.ftl), None, "{sets:?}");
                    assert_eq!(s.write_seq, own.write_seq, "{sets:?}");
                }
                let own = json(own);
                for s in shared {
                    assert_eq!(json(s), own, "{sets:?}");
                }
            }
        }
    }

    /// Runs whose configurations differ only in what preconditioning never reads (the
    /// timing, when GC starts, background GC, the warm-up, the scheduler) start from one
    /// device, prepared once, and each is the run on a device of its own.
    #[test]
    fn runs_that_differ_in_what_aging_never_reads_share_one_device() {
        use super::super::prepare::{shared_device_key, PREPARED_HERE};
        let aged = ["ftl.precondition.overwrite_ratio=0.5", "seed=77"];
        let variants: &[&[&str]] = &[
            &[],
            &["ftl.gc.trigger=\"lazy\""],
            &["ftl.gc.background=true", "ftl.gc.background_free_ratio=0.2"],
            &["timing.t_prog_ns=500000", "timing.bus_ps_per_byte=10000"],
            &["ftl.precondition.warmup=\"trace\""],
            &["scheduler.name=\"sync-fifo\"", "ftl.gc.copyback=true"],
        ];
        let json = |s: Simulation| serde_json::to_string(&s.into_report().unwrap()).unwrap();
        let prepared = || PREPARED_HERE.with(std::cell::Cell::get);
        let before = prepared();
        let mut keys = Vec::new();
        for v in variants {
            let sets = [&aged[..], v].concat();
            let own = ran(&sets, false);
            let shared = ran(&sets, true);
            assert_eq!(shared.ftl.diff_state(&own.ftl), None, "{sets:?}");
            keys.push(shared_device_key(&shared.cfg));
            assert_eq!(json(shared), json(own), "{sets:?}");
        }
        assert_eq!(prepared() - before, 1, "one device for every variant");
        assert!(keys[0].is_some());
        assert!(keys.iter().all(|k| *k == keys[0]), "{keys:?}");
        // What the aging reads makes another device.
        let other = ran(
            &[&aged[..], &["ftl.gc.threshold_free_ratio=0.1"]].concat(),
            true,
        );
        assert_ne!(shared_device_key(&other.cfg), keys[0]);
        assert_eq!(prepared() - before, 2);
    }

    /// A run whose device was reserved as the run was taken finds it, prepared, even
    /// after runs taken later pushed it out of the kept devices; without the
    /// reservation it would prepare the device again.
    #[test]
    fn a_device_reserved_as_its_run_is_taken_is_not_prepared_again() {
        use super::super::prepare::{reserve_device, shared_device_key, take_place, PREPARED_HERE};
        let prepared = || PREPARED_HERE.with(std::cell::Cell::get);
        let sim = |seed: &str| build(&["ftl.precondition.overwrite_ratio=0.5", seed], false);
        let key = |s: &Simulation| shared_device_key(&s.cfg).unwrap();
        let before = prepared();
        let a = sim("seed=1");
        let others = [key(&sim("seed=2")), key(&sim("seed=3"))];
        assert_eq!(prepared() - before, 3);
        for reserved in [true, false] {
            // Device 1 is kept, prepared; a run of it is taken, then runs of devices 2
            // and 3, which get to their preparation first and push device 1 out.
            let _ = sim("seed=1");
            let n = prepared();
            if reserved {
                reserve_device(&a.cfg);
            }
            for k in &others {
                take_place(k.clone());
            }
            let again = sim("seed=1");
            assert_eq!(key(&again), key(&a));
            let expected = usize::from(!reserved);
            assert_eq!(prepared() - n, expected, "reserved: {reserved}");
        }
    }

    /// Sampled aging with every plane its own sample is the replay, with and without
    /// RAID: once the run is over, every LPN on the same page with the same token, every
    /// plane with the same pages valid, invalid and free, the same wear, and the same
    /// report. (A stale page's token differs: a sample records a stale page's version,
    /// not its LPN.) The RAID arrays' redundancy is fixed over the sampled pages, and the
    /// run's audit checks it.
    #[test]
    fn sampled_aging_with_every_plane_a_sample_is_the_replay() {
        let aged = ["ftl.precondition.overwrite_ratio=0.4"];
        let every = [
            "ftl.precondition.aging=\"sampled\"",
            "ftl.precondition.sample_planes=16",
        ];
        let layouts: &[&[&str]] = &[
            &[],
            &["raid.level=5", "raid.group_size=4", "raid.layout=\"lci\""],
            &["raid.level=1", "raid.group_size=2"],
        ];
        let report = |s: Simulation| {
            let mut v = serde_json::to_value(s.into_report().unwrap()).unwrap();
            let m = v.as_object_mut().unwrap();
            m.retain(|k, _| !k.contains("config") && k != "meta");
            v
        };
        for raid in layouts {
            let replay = ran(&[&aged[..], raid].concat(), false);
            let sampled = ran(&[&aged[..], raid, &every[..]].concat(), false);
            assert!(replay.ftl.counters().erases > 0, "{raid:?}: GC ran");
            let (f, r) = (&sampled.ftl, &replay.ftl);
            for l in (0..f.map_entries()).map(Lpn) {
                let at = |f: &ssdlab_ftl::Ftl| f.lookup(l).map(|p| (p, f.token(p)));
                assert_eq!(at(f), at(r), "{raid:?}: {l}");
            }
            for p in (0..16).map(ssdlab_nand::PlaneId) {
                assert_eq!(f.plane_state(p), r.plane_state(p), "{raid:?}: {p}");
            }
            assert_eq!(f.erase_count_summary(), r.erase_count_summary(), "{raid:?}");
            assert_eq!(report(sampled), report(replay), "{raid:?}");
        }
    }

    /// The fill laid out by formula and the fill written page by page give the same
    /// device after set-up (redundancy fixed, warm-up done) and the same run.
    #[test]
    fn the_formula_and_the_replayed_fill_build_the_same_device() {
        let cases: &[&[&str]] = &[
            &[],
            &["ftl.precondition.fill_ratio=0.6"],
            &[
                "ftl.precondition.overwrite_ratio=0.4",
                "ftl.gc.victim=\"cost-benefit\"",
            ],
            &["ftl.allocation=\"dynamic\""],
            &[
                "ftl.allocation=\"dynamic\"",
                "ftl.precondition.warmup=\"trace\"",
            ],
            &["raid.level=5", "raid.group_size=4", "raid.layout=\"lci\""],
            &[
                "raid.level=5",
                "raid.group_size=4",
                "ftl.precondition.overwrite_ratio=0.3",
            ],
            &[
                "raid.level=5",
                "raid.group_size=4",
                "ftl.precondition.fill_ratio=0.9",
            ],
            &[
                "raid.level=5",
                "raid.group_size=4",
                "ftl.precondition.warmup=\"trace\"",
            ],
            &["raid.level=1", "raid.group_size=2"],
            &[
                "raid.level=4",
                "raid.group_size=4",
                "raid.domain=\"channel\"",
            ],
            &[
                "raid.level=5",
                "raid.group_size=4",
                "raid.domain=\"channel\"",
                "raid.chip_in_channel=\"sda\"",
            ],
            &[
                "raid.level=5",
                "raid.group_size=2",
                "raid.domain=\"channel\"",
                "raid.mirror_chips=true",
                "raid.buffer_new_writes=false",
                "ftl.over_provisioning=0.4",
            ],
        ];
        for sets in cases {
            let mut a = build(sets, false);
            let mut b = build(sets, true);
            assert_eq!(a.ftl.diff_state(&b.ftl), None, "{sets:?}: after set-up");
            a.check_invariants();
            a.audit().unwrap();
            a.run_to_end().unwrap();
            b.run_to_end().unwrap();
            assert_eq!(a.ftl.diff_state(&b.ftl), None, "{sets:?}: after the run");
            a.audit().unwrap();
            let json = |s: Simulation| serde_json::to_string(&s.into_report().unwrap()).unwrap();
            assert_eq!(json(a), json(b), "{sets:?}: reports");
        }
    }
}
