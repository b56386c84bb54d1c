//! The runs of `reproduce paq`: what each varies from the preset ([`Setting`]), the
//! sweep points, and the list of runs.

use super::{DIE_SPLIT, PAPER, PAQ2, SCHEDULERS};

/// What a run varies from the preset as shipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Setting {
    /// The preset as shipped.
    Preset,
    /// The die-bound split of the 180 µs read ([`DIE_SPLIT`]).
    DieSplit,
    /// `scheduler.paq.chip_slots = 1`: the literal "one transaction per package" (docs/PAQ.md A3).
    OneSlot,
    /// Closed loop at this many outstanding requests (= device queue).
    Queue(u32),
    /// This many channels, blocks per plane scaled to keep the capacity.
    Channels(u32),
    /// This many dies per package, blocks per plane scaled to keep the capacity.
    Dies(u32),
    /// Open loop at [`AWT_LOAD`], this device queue depth.
    AwtQueue(u32),
    /// Open loop at [`AWT_LOAD`], this many channels.
    AwtChannels(u32),
}

impl Setting {
    /// The name of the setting in CSVs.
    pub(super) fn label(self) -> String {
        match self {
            Setting::Preset => "preset".into(),
            Setting::DieSplit => "die-split".into(),
            Setting::OneSlot => "one-slot".into(),
            Setting::Queue(q) => format!("queue={q}"),
            Setting::Channels(c) => format!("channels={c}"),
            Setting::Dies(d) => format!("dies={d}"),
            Setting::AwtQueue(q) => format!("open,queue={q}"),
            Setting::AwtChannels(c) => format!("open,channels={c}"),
        }
    }

    pub(super) fn open_loop(self) -> bool {
        matches!(self, Setting::AwtQueue(_) | Setting::AwtChannels(_))
    }
}

/// One run: workload index, setting, scheduler index.
pub(super) type Key = (usize, Setting, usize);

/// The device the preset (with `--set`) describes: the values the sweeps vary.
#[derive(Clone, Copy, Debug)]
pub(super) struct Base {
    pub(super) queue: u32,
    pub(super) channels: u32,
    pub(super) dies: u32,
    pub(super) blocks: u32,
}

/// The sweep values.
pub(super) struct Points {
    pub(super) queues: Vec<u32>,
    pub(super) channels: Vec<u32>,
    pub(super) dies: Vec<u32>,
}

impl Points {
    pub(super) fn new(quick: bool) -> Self {
        Points {
            queues: if quick {
                vec![8, 32, 256]
            } else {
                vec![8, 16, 32, 64, 128, 256]
            },
            channels: vec![4, 8, 16],
            dies: vec![1, 2, 4],
        }
    }
}

impl Base {
    /// A setting equal to the preset is the preset (so its run is shared).
    pub(super) fn canonical(&self, s: Setting) -> Setting {
        match s {
            Setting::Queue(q) if q == self.queue => Setting::Preset,
            Setting::Channels(c) if c == self.channels => Setting::Preset,
            Setting::Dies(d) if d == self.dies => Setting::Preset,
            Setting::AwtChannels(c) if c == self.channels => Setting::AwtQueue(self.queue),
            s => s,
        }
    }

    /// Config overrides of setting `s` (`scale`: the open-loop time scale).
    pub(super) fn sets(&self, s: Setting, scale: f64) -> Vec<String> {
        let queue = |q: u32| {
            vec![
                format!("host.queue_depth={q}"),
                format!("host.device_queue_depth={q}"),
                format!("scheduler.chip_queue_depth={}", q.max(64)),
            ]
        };
        let open = || {
            vec![
                "host.mode=\"open\"".to_string(),
                format!("host.time_scale={scale}"),
            ]
        };
        // Capacity held constant: blocks per plane scale with 1 / (channels × dies).
        let blocks = |c: u32, d: u32| {
            let b =
                u64::from(self.blocks) * u64::from(self.channels * self.dies) / u64::from(c * d);
            format!("geometry.blocks_per_plane={}", b.max(1))
        };
        match s {
            Setting::Preset => Vec::new(),
            Setting::DieSplit => DIE_SPLIT.iter().map(|s| s.to_string()).collect(),
            Setting::OneSlot => vec!["scheduler.paq.chip_slots=1".into()],
            Setting::Queue(q) => queue(q),
            Setting::Channels(c) => vec![format!("geometry.channels={c}"), blocks(c, self.dies)],
            Setting::Dies(d) => vec![
                format!("geometry.dies_per_chip={d}"),
                blocks(self.channels, d),
            ],
            Setting::AwtQueue(q) => {
                let mut v = open();
                v.push(format!("host.device_queue_depth={q}"));
                v.push(format!("scheduler.chip_queue_depth={}", q.max(64)));
                v
            }
            Setting::AwtChannels(c) => {
                let mut v = open();
                v.push(format!("geometry.channels={c}"));
                v.push(blocks(c, self.dies));
                v
            }
        }
    }
}

/// The runs of the experiment (the open-loop runs of figure 15 included).
pub(super) fn keys(quick: bool, base: &Base, workloads: usize, sweep: &[usize]) -> Vec<Key> {
    let mut keys = Vec::new();
    for w in 0..workloads {
        keys.extend((0..SCHEDULERS.len()).map(|s| (w, Setting::Preset, s)));
        if !quick {
            keys.extend(PAPER.iter().map(|&s| (w, Setting::DieSplit, s)));
            keys.push((w, Setting::OneSlot, PAQ2));
        }
    }
    let p = Points::new(quick);
    for &w in sweep {
        for &s in &PAPER {
            let settings = p
                .queues
                .iter()
                .flat_map(|&q| [Setting::Queue(q), Setting::AwtQueue(q)])
                .chain(
                    p.channels
                        .iter()
                        .flat_map(|&c| [Setting::Channels(c), Setting::AwtChannels(c)]),
                )
                .chain(p.dies.iter().map(|&d| Setting::Dies(d)));
            keys.extend(settings.map(|x| (w, base.canonical(x), s)));
        }
    }
    keys.sort();
    keys.dedup();
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: Base = Base {
        queue: 32,
        channels: 8,
        dies: 2,
        blocks: 2048,
    };

    #[test]
    fn runs_equal_to_the_preset_run_once() {
        // Per workload: 5 schedulers at the preset, 4 at the die split, paq2 at one slot.
        assert_eq!(keys(false, &BASE, 3, &[]).len(), 3 * 10);
        assert_eq!(keys(true, &BASE, 3, &[]).len(), 3 * 5);
        // Swept (full): 5 more queue depths, 2 more channel counts, 2 more die counts
        // closed; 6 queue depths and 2 more channel counts open; each for 4 schedulers.
        let full = keys(false, &BASE, 3, &[1]).len();
        assert_eq!(full, 3 * 10 + 4 * (5 + 2 + 2 + 6 + 2));
        let quick = keys(true, &BASE, 3, &[1]).len();
        assert_eq!(quick, 3 * 5 + 4 * (2 + 2 + 2 + 3 + 2));
    }

    #[test]
    fn sweeps_keep_the_capacity() {
        let sets = BASE.sets(Setting::Channels(16), 1.0);
        assert_eq!(
            sets,
            ["geometry.channels=16", "geometry.blocks_per_plane=1024"]
        );
        let sets = BASE.sets(Setting::Dies(1), 1.0);
        assert_eq!(
            sets,
            ["geometry.dies_per_chip=1", "geometry.blocks_per_plane=4096"]
        );
        assert_eq!(
            BASE.canonical(Setting::AwtChannels(8)),
            Setting::AwtQueue(32)
        );
        assert_eq!(BASE.canonical(Setting::Queue(32)), Setting::Preset);
    }
}
