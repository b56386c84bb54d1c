//! Preconditioning at set-up, and prepared devices that runs share.
//!
//! Filling and aging a device (`ftl.precondition`) is the same work for every run that
//! starts from it: the schemes of one comparison, the points of one sweep, the traces of
//! one reproduction. An aged device (`overwrite_ratio > 0`) is therefore prepared once
//! per process and kept: its page tables are frozen ([`FrozenFtl`]) and each run gets an
//! FTL that reads through to them and stores only the entries it writes, with its own
//! copy of the block records and of the placement policy's state. A run on a shared
//! device is exactly the run on a device of its own (tests compare them); what changes
//! is that set-up is paid once and memory holds one set of tables, not one per run.
//!
//! Runs share a device when everything preconditioning reads is equal: the whole
//! configuration except what it never reads (see [`shared_device_key`]). The last
//! [`KEEP`] devices are kept; [`release_shared_devices`] drops them. A caller with many
//! runs to make (`ssdlab reproduce`) starts the runs of one device one after the other,
//! so that each device is prepared once.

use super::raid::{fix_redundancy, NoRoom, RaidState};
use crate::config::SimConfig;
use crate::placement::{self, PlacementPolicy};
use ssdlab_engine::SimRng;
use ssdlab_ftl::{Aging, FrozenFtl, Ftl};
use ssdlab_nand::Lpn;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Prepared devices kept at once (the most recently asked for).
pub const KEEP: usize = 2;

/// A device ready to run: the FTL and placement state preconditioning left.
pub(super) struct Prepared {
    pub ftl: Ftl,
    pub placement: Box<dyn PlacementPolicy>,
    /// The redundancy could not be made consistent after preconditioning
    /// ([`fix_redundancy`]): the preconditioned layout does not fit the device.
    pub no_room: Option<NoRoom>,
    /// The last write sequence number preconditioning used: the run's writes carry on
    /// from it, so that no trace write gets the token of a page's preconditioned data.
    pub write_seq: u32,
    /// `ftl.precondition.aging = "sampled"` was asked, but the fill had no pattern to
    /// sample by and the overwrites were replayed (the caller refuses the run).
    pub replayed_instead: bool,
}

/// A prepared device as runs share it.
struct Frozen {
    ftl: FrozenFtl,
    placement: Box<dyn PlacementPolicy>,
    no_room: Option<NoRoom>,
    write_seq: u32,
    replayed_instead: bool,
}

type Slot = Arc<OnceLock<Mutex<Frozen>>>;

/// The kept devices by key, oldest first.
#[cfg(not(test))]
static SHARED: Mutex<Vec<(String, Slot)>> = Mutex::new(Vec::new());

/// Whether aged devices are shared ([`set_device_sharing`]).
static SHARING: AtomicBool = AtomicBool::new(true);

/// Turns the sharing of aged devices between runs on (the default) or off. A process
/// that builds one simulation only (the `run`, `verify` and `bench` commands) turns it
/// off: with nobody to share with, the frozen tables and the run's own would both be
/// held. Results are the same either way.
pub fn set_device_sharing(on: bool) {
    SHARING.store(on, Ordering::Relaxed);
}

#[cfg(test)]
thread_local! {
    /// Set by tests that build a device of the run's own, to compare with a shared one.
    pub(super) static NO_SHARING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn sharing_off() -> bool {
    #[cfg(test)]
    return NO_SHARING.with(std::cell::Cell::get) || replay_forced();
    #[cfg(not(test))]
    false
}

/// Drops the prepared devices kept for later runs (runs using one keep their share),
/// and the page tables kept from finished runs on them; returns how many devices there
/// were.
pub fn release_shared_devices() -> usize {
    let n = {
        let mut kept = lock();
        let n = kept.len();
        kept.clear();
        n
    };
    ssdlab_ftl::release_spare_tables();
    n
}

/// Prepared devices kept for later runs.
pub fn shared_devices() -> usize {
    lock().len()
}

#[cfg(test)]
thread_local! {
    /// In unit tests, each test thread keeps its own devices, so that tests running at
    /// once never evict each other's.
    static SHARED_HERE: &'static Mutex<Vec<(String, Slot)>> =
        Box::leak(Box::new(Mutex::new(Vec::new())));
    /// Devices prepared for sharing by this thread.
    pub(super) static PREPARED_HERE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn lock() -> std::sync::MutexGuard<'static, Vec<(String, Slot)>> {
    #[cfg(test)]
    let shared = SHARED_HERE.with(|s| *s);
    #[cfg(not(test))]
    let shared = &SHARED;
    shared.lock().unwrap_or_else(|e| e.into_inner())
}

/// The kept slot of the device `key`, made the newest (a new one if it is not kept),
/// pushing the oldest out beyond [`KEEP`].
fn keep(key: String) -> Slot {
    let mut kept = lock();
    let slot = match kept.iter().position(|(k, _)| *k == key) {
        Some(i) => kept.remove(i).1,
        None => Slot::default(),
    };
    kept.push((key, Arc::clone(&slot)));
    let excess = kept.len().saturating_sub(KEEP);
    kept.drain(..excess);
    slot
}

/// Makes device `key` the newest kept one, as a run of it taken now would (tests).
#[cfg(test)]
pub(super) fn take_place(key: String) {
    let _ = keep(key);
}

thread_local! {
    /// The device slot the next run this thread prepares was given as it was taken
    /// ([`reserve_device`]), with its key.
    static RESERVED: std::cell::RefCell<Option<(String, Slot)>> =
        const { std::cell::RefCell::new(None) };
}

/// Gives the device of a run of `cfg` its place among the kept devices now, as
/// preparing the run would, and holds it for the next run this thread prepares.
///
/// Runners that start runs on several threads call it as they take a run, under the
/// lock that hands the runs out: the kept devices then follow the order the runs were
/// taken in ([`order_by_device`]), and a run finds its device even when runs taken after
/// it pushed the device out while it was still opening its trace. Without it such a run
/// would prepare its device again.
pub fn reserve_device(cfg: &SimConfig) {
    reserve(shared_device_key(cfg));
}

/// [`reserve_device`] for the device `key` (`None`: a device of the run's own, nothing
/// to reserve).
fn reserve(key: Option<String>) {
    let reserved = key.map(|key| (key.clone(), keep(key)));
    RESERVED.with(|r| *r.borrow_mut() = reserved);
}

/// The device a run of `cfg` starts from, as text, when runs share it (an aged device,
/// with sharing on); `None` when the run prepares a device of its own. Runs with equal
/// keys start from one device, prepared once while it is kept.
pub fn shared_device_key(cfg: &SimConfig) -> Option<String> {
    let pre = &cfg.ftl.precondition;
    let shared = pre.enabled
        && pre.overwrite_ratio > 0.0
        && SHARING.load(Ordering::Relaxed)
        && !sharing_off();
    shared.then(|| device_key(cfg))
}

/// The order to start runs of `cfgs` in (`None`: a run without a configuration, which
/// prepares a device of its own) on `threads` threads taking them in turn; see
/// [`order_by_device`], over the runs' [`shared_device_key`]s.
pub fn device_order<'a>(
    cfgs: impl IntoIterator<Item = Option<&'a SimConfig>>,
    threads: usize,
) -> Vec<usize> {
    order_by_device(&device_keys(cfgs), threads)
}

/// The [`shared_device_key`] of each run of `cfgs` (`None` for a run without one).
fn device_keys<'a>(cfgs: impl IntoIterator<Item = Option<&'a SimConfig>>) -> Vec<Option<String>> {
    cfgs.into_iter()
        .map(|c| c.and_then(shared_device_key))
        .collect()
}

/// The order to start runs in, given their device keys (`None`: a device of the run's
/// own), on `threads` threads that each take the next run when they are free: the runs
/// of one device start one after the other, so that a kept device is prepared once, not
/// again each time the list comes back to it after others have taken its place (the
/// last [`KEEP`] are kept).
///
/// Devices are taken in the order they first appear, up to `min(threads, KEEP)` at a
/// time: the first run of each of them first, so that their preparations (one thread
/// each) run side by side rather than one thread waiting for another's, then the rest
/// of their runs, device by device.
pub fn order_by_device<K: PartialEq>(keys: &[Option<K>], threads: usize) -> Vec<usize> {
    let mut groups: Vec<(Option<&K>, Vec<usize>)> = Vec::new();
    for (i, key) in keys.iter().enumerate() {
        let key = key.as_ref();
        match groups.iter_mut().find(|(k, _)| key.is_some() && *k == key) {
            Some((_, members)) => members.push(i),
            None => groups.push((key, vec![i])),
        }
    }
    let mut order = Vec::with_capacity(keys.len());
    for window in groups.chunks(threads.clamp(1, KEEP)) {
        order.extend(window.iter().map(|(_, m)| m[0]));
        order.extend(window.iter().flat_map(|(_, m)| &m[1..]));
    }
    order
}

/// Runs handed out to threads that each take the next when they are free: in
/// [`device_order`], each run's device reserved as the run is taken
/// ([`reserve_device`]), so that the kept devices follow the order runs are taken in.
pub struct RunQueue {
    /// Each run's [`shared_device_key`].
    keys: Vec<Option<String>>,
    order: Vec<usize>,
    next: Mutex<usize>,
}

impl RunQueue {
    /// The runs of `cfgs` (`None`: a run without a configuration) for `threads` threads.
    pub fn new<'a>(cfgs: impl IntoIterator<Item = Option<&'a SimConfig>>, threads: usize) -> Self {
        let keys = device_keys(cfgs);
        let order = order_by_device(&keys, threads);
        RunQueue {
            keys,
            order,
            next: Mutex::new(0),
        }
    }

    /// The index of the next run, its device reserved for this thread; `None` when every
    /// run has been taken.
    pub fn take(&self) -> Option<usize> {
        let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
        let &i = self.order.get(*next)?;
        *next += 1;
        reserve(self.keys[i].clone());
        Some(i)
    }
}

/// Everything preconditioning reads, as text: runs with equal keys get equal devices.
///
/// Left out is what it never reads: the host, the scheduler, DGC and verify mode; the
/// flash timing (the fill and the aging take no simulated time); what only the
/// controller reads of GC (`ftl.gc.trigger`, `copyback`), and background GC, which
/// each run's copy takes from its own configuration ([`Ftl::set_background_gc`]); the
/// warm-up (`ftl.precondition.warmup`), which each run replays on its own copy.
fn device_key(cfg: &SimConfig) -> String {
    let mut k = cfg.clone();
    k.host = Default::default();
    k.scheduler = Default::default();
    k.dgc = Default::default();
    k.verify = false;
    k.timing = Default::default();
    let (gc, default_gc) = (&mut k.ftl.gc, ssdlab_ftl::GcConfig::default());
    gc.trigger = default_gc.trigger;
    gc.copyback = default_gc.copyback;
    gc.background = default_gc.background;
    gc.background_free_ratio = default_gc.background_free_ratio;
    k.ftl.precondition.warmup = ssdlab_ftl::Warmup::None;
    k.to_toml()
}

/// The device `cfg` asks for, from `ftl` and `placement` as built (empty): prepared
/// here, or shared with earlier runs when it is aged.
pub(super) fn prepare(
    cfg: &SimConfig,
    ftl: Ftl,
    placement: Box<dyn PlacementPolicy>,
    raid: Option<&RaidState>,
    rng: &SimRng,
) -> Prepared {
    let Some(key) = shared_device_key(cfg) else {
        return precondition(cfg, ftl, placement, raid, rng);
    };
    let slot = match RESERVED.with(|r| r.borrow_mut().take()) {
        Some((k, slot)) if k == key => slot,
        _ => keep(key),
    };
    // The first run to ask prepares the device; the others wait for it.
    let frozen = slot.get_or_init(|| {
        #[cfg(test)]
        PREPARED_HERE.with(|n| n.set(n.get() + 1));
        let p = precondition(cfg, ftl, placement, raid, rng);
        Mutex::new(Frozen {
            ftl: p.ftl.freeze(),
            placement: p.placement,
            no_room: p.no_room,
            write_seq: p.write_seq,
            replayed_instead: p.replayed_instead,
        })
    });
    let f = frozen.lock().unwrap_or_else(|e| e.into_inner());
    let mut ftl = f.ftl.thaw();
    ftl.set_background_gc(&cfg.ftl);
    Prepared {
        ftl,
        placement: f.placement.boxed_clone(),
        no_room: f.no_room,
        write_seq: f.write_seq,
        replayed_instead: f.replayed_instead,
    }
}

#[cfg(test)]
thread_local! {
    /// Set by tests that build the preconditioning fill page by page, as if no placement
    /// had a formula for it.
    pub(super) static REPLAY_FILL: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the fill must be replayed page by page (tests compare both ways).
fn replay_forced() -> bool {
    #[cfg(test)]
    return REPLAY_FILL.with(std::cell::Cell::get);
    #[cfg(not(test))]
    false
}

/// Preconditions `ftl` as `cfg.ftl.precondition` asks (nothing when it is off), placing
/// the fill with `placement`.
fn precondition(
    cfg: &SimConfig,
    mut ftl: Ftl,
    mut placement: Box<dyn PlacementPolicy>,
    raid: Option<&RaidState>,
    rng: &SimRng,
) -> Prepared {
    let geom = cfg.geometry;
    let mut settled = 0;
    let mut write_seq = 0;
    let mut replayed_instead = false;
    if cfg.ftl.precondition.enabled {
        let pre = &cfg.ftl.precondition;
        let mut prng = rng.fork("precondition");
        let map = raid.map(|r| &r.map);
        let fill = ftl.fill_count(pre);
        let fixed = placement.fill_is_static();
        // A static layout's pattern moves no policy state: tests that replay the fill
        // page by page still sample by it.
        let mut pattern = match replay_forced() && !fixed {
            false => placement::fill_pattern(&mut *placement, &geom, map, fill),
            true => None,
        };
        // Sampled aging where every write of an LPN goes to the plane the fill's pattern
        // gives (ftl.precondition.aging).
        let sampled = match (&pattern, fixed) {
            (Some(p), true) => ftl.precondition_sampled(pre, p, &mut prng),
            _ => None,
        };
        if let Some(report) = &sampled {
            write_seq = report.last_version;
        } else {
            // Without overwrites, the redundancy fix gives every page of the fill a
            // known content: the implicit fill takes it at once.
            let known = pre.overwrite_ratio == 0.0;
            if let (Some(m), true) = (map.filter(|m| m.level.is_redundant()), known) {
                let m = m.clone();
                pattern = pattern.map(|p| p.with_content(Arc::new(move |l| m.filled_token(l))));
            }
            if replay_forced() {
                pattern = None;
            }
            let mut place = |lpn: Lpn| placement.fill_plane(lpn, &geom, map);
            let report = match fixed {
                true => ftl.precondition_static(pre, pattern.as_ref(), &mut place, &mut prng),
                false => ftl.precondition(pre, pattern.as_ref(), &mut place, &mut prng),
            };
            write_seq = report.last_version;
            if report.implicit && known && report.overwrites == 0 {
                settled = fill;
            }
            replayed_instead = pre.aging == Aging::Sampled && report.overwrites > 0;
        }
    }
    // The redundancy is made consistent here, before an aged device is frozen: runs
    // that share the device share the work and the tables it writes.
    let no_room = match raid {
        Some(r) if cfg.ftl.precondition.enabled && !replayed_instead => {
            fix_redundancy(&mut ftl, &mut *placement, &r.map, &geom, settled).err()
        }
        _ => None,
    };
    Prepared {
        ftl,
        placement,
        no_room,
        write_seq,
        replayed_instead,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs of one device start together; on several threads, the first runs of as many
    /// devices as are kept start first; runs of devices of their own keep their places.
    #[test]
    fn devices_are_taken_a_window_at_a_time() {
        let keys = [
            Some("a"),
            Some("b"),
            None,
            Some("a"),
            Some("c"),
            Some("b"),
            None,
            Some("c"),
            Some("d"),
        ];
        assert_eq!(order_by_device(&keys, 1), [0, 3, 1, 5, 2, 4, 7, 6, 8]);
        assert_eq!(order_by_device(&keys, 2), [0, 1, 3, 5, 2, 4, 7, 6, 8]);
        // A window holds no more devices than are kept: a third would push the first
        // out while runs of it were still to be taken.
        assert_eq!(KEEP, 2);
        assert_eq!(order_by_device(&keys, 8), order_by_device(&keys, 2));
        assert_eq!(order_by_device::<&str>(&[], 2), Vec::<usize>::new());
    }
}
