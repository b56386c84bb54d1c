//! The refusals of the tenants' resource partitions (`[[host.tenant]]` `channels`,
//! `chips`, `dies`, `planes`; docs/HOST.md §5).

use super::tenants::namespace;
use super::{Bind, SimConfig};
use ssdlab_ftl::{Aging, Allocation};
use ssdlab_nand::{Geometry, PlaneId};

/// The list keys, with what their ids count.
const KEYS: [(&str, &str); 4] = [
    ("channels", "channels"),
    ("chips", "chips per channel"),
    ("dies", "dies per chip"),
    ("planes", "planes per die"),
];

/// The planes of `geom` in the product of the lists (`None` = every id), in the order
/// `order` gives the planes.
pub fn planes_of(geom: &Geometry, order: &[PlaneId], lists: [Option<&[u32]>; 4]) -> Vec<PlaneId> {
    let has = |list: Option<&[u32]>, id: u32| list.is_none_or(|l| l.contains(&id));
    order
        .iter()
        .copied()
        .filter(|&p| {
            let die = geom.die_of_plane(p);
            let chip = geom.chip_of_die(die);
            has(lists[0], geom.channel_of_chip(chip).0)
                && has(lists[1], geom.way_of_chip(chip))
                && has(lists[2], die.0 % geom.dies_per_chip)
                && has(lists[3], p.0 % geom.planes_per_die)
        })
        .collect()
}

/// The refusals of the partitions of `cfg` (a valid geometry): `(key, message)`.
pub fn validate(cfg: &SimConfig) -> Vec<(String, String)> {
    let ts = &cfg.host.tenant;
    if !ts.iter().any(|t| t.partitioned()) {
        return Vec::new();
    }
    let mut errs = Vec::new();
    let g = &cfg.geometry;
    let limits = [
        g.channels,
        g.chips_per_channel,
        g.dies_per_chip,
        g.planes_per_die,
    ];
    let mut lists_ok = true;
    for (i, t) in ts.iter().enumerate() {
        let first_key = (0..4).find(|&k| t.partition_lists()[k].is_some());
        for (k, list) in t.partition_lists().into_iter().enumerate() {
            let Some(list) = list else { continue };
            let key = format!("host.tenant[{i}].{}", KEYS[k].0);
            let (limit, what) = (limits[k], KEYS[k].1);
            let bad = list.iter().find(|&&id| id >= limit);
            let twice = (1..list.len()).find(|&j| list[..j].contains(&list[j]));
            if list.is_empty() {
                errs.push((
                    key,
                    "an empty list leaves the tenant no plane to write to".into(),
                ));
            } else if let Some(id) = bad {
                errs.push((
                    key,
                    format!(
                        "id {id} is out of range: the device has {limit} {what} (ids 0 to {})",
                        limit - 1
                    ),
                ));
            } else if let Some(j) = twice {
                errs.push((key, format!("lists id {} twice", list[j])));
            } else {
                continue;
            }
            lists_ok = false;
        }
        if let (Some(k), true) = (first_key, t.shared) {
            errs.push((
                format!("host.tenant[{i}].{}", KEYS[k].0),
                "a partition holds the tenant's namespace: a shared tenant (shared = true) has none".into(),
            ));
            lists_ok = false;
        }
    }
    let mut refuse = |key: &str, message: &str| errs.push((key.into(), message.into()));
    if !matches!(cfg.ftl.allocation, Allocation::Static | Allocation::Dynamic) {
        refuse(
            "ftl.allocation",
            "resource partitions (host.tenant[].channels, chips, dies, planes) are modelled with \
             static and dynamic allocation only",
        );
    }
    if cfg.placement.bind == Bind::Dispatch {
        refuse(
            "placement.bind",
            "\"dispatch\" chooses the plane inside a die when it programs, which a partition's \
             plane list would not bind: use bind = \"admission\" with resource partitions",
        );
    }
    let pre = &cfg.ftl.precondition;
    if pre.enabled && pre.aging == Aging::Sampled && pre.overwrite_ratio > 0.0 {
        refuse(
            "ftl.precondition.aging",
            "\"sampled\" ages planes that hold their share of every LPN, which partitions do \
             not: use aging = \"replay\"",
        );
    }
    if lists_ok {
        errs.extend(overfull(cfg));
    }
    errs
}

/// A refusal when the partitions give some plane more logical pages than it can hold
/// with room left for GC: its blocks less the GC reserve and two open blocks (a host
/// and a GC one).
fn overfull(cfg: &SimConfig) -> Option<(String, String)> {
    let g = &cfg.geometry;
    let ts = &cfg.host.tenant;
    let page = u64::from(g.page_size_bytes);
    let logical = u64::from(cfg.ftl.logical_pages(g));
    let n = g.planes() as usize;
    let order: Vec<PlaneId> = (0..g.planes()).map(PlaneId).collect();
    // The pages outside every partition spread over all planes; each partition's over
    // its own.
    let mut outside = logical as f64;
    let mut load = vec![0.0f64; n];
    let mut owner: Vec<Option<usize>> = vec![None; n];
    for (i, t) in ts.iter().enumerate().filter(|(_, t)| t.partitioned()) {
        let pages = namespace(ts, i, page, logical * page).1 / page;
        outside -= pages as f64;
        let planes = planes_of(g, &order, t.partition_lists());
        for p in &planes {
            load[p.idx()] += pages as f64 / planes.len() as f64;
            owner[p.idx()].get_or_insert(i);
        }
    }
    let (worst, most) = (0..n)
        .map(|p| (p, load[p] + outside.max(0.0) / n as f64))
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    let room = g
        .blocks_per_plane
        .saturating_sub(cfg.ftl.gc.reserve_blocks + 2);
    let holds = u64::from(room) * u64::from(g.pages_per_block);
    if most.ceil() as u64 <= holds {
        return None;
    }
    let i = owner[worst].unwrap_or(0);
    let k = (0..4)
        .find(|&k| ts[i].partition_lists()[k].is_some())
        .unwrap_or(0);
    Some((
        format!("host.tenant[{i}].{}", KEYS[k].0),
        format!(
            "the partitions put {most:.0} logical pages on plane {worst}, more than the \
             {holds} it holds beside the GC reserve and its open blocks: widen the \
             partition or shrink the namespace (namespace_bytes)"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use crate::config::{ConfigBuilder, ConfigError};

    /// The keys the configuration `text` (4 channels × 2 chips × 1 die × 2 planes) is
    /// refused by.
    fn refused(text: &str) -> Vec<String> {
        let base = "[geometry]\nchannels = 4\nchips_per_channel = 2\ndies_per_chip = 1\n\
                    planes_per_die = 2\nblocks_per_plane = 32\npages_per_block = 8\n";
        match ConfigBuilder::new()
            .text(&format!("{base}{text}"), "t")
            .unwrap()
            .build()
        {
            Ok(_) => Vec::new(),
            Err(e) => (e.0.iter())
                .filter_map(|e| match e {
                    ConfigError::Invalid { key, .. } => Some(key.clone()),
                    _ => None,
                })
                .collect(),
        }
    }

    #[test]
    fn partitions_are_refused_by_key() {
        let two = |a: &str, b: &str| {
            format!("[[host.tenant]]\ntrace = \"a\"\n{a}\n[[host.tenant]]\ntrace = \"b\"\n{b}\n")
        };
        assert!(refused(&two("channels = [0, 1]", "channels = [2, 3]")).is_empty());
        assert_eq!(
            refused(&two("channels = [4]", "chips = []")),
            ["host.tenant[0].channels", "host.tenant[1].chips"]
        );
        assert_eq!(
            refused(&two("dies = [1]", "planes = [0, 0]")),
            ["host.tenant[0].dies", "host.tenant[1].planes"]
        );
        assert_eq!(
            refused(&two("channels = [0]\nshared = true", "shared = true")),
            ["host.tenant[0].channels"]
        );
        // Half the device's logical pages on an eighth of its planes.
        assert_eq!(
            refused(&two("channels = [0]\nchips = [0]", "")),
            ["host.tenant[0].channels"]
        );
        assert_eq!(
            refused(&format!(
                "[ftl]\nallocation = \"hipa\"\n{}",
                two("planes = [1]", "planes = [0]")
            )),
            ["ftl.allocation"]
        );
        assert_eq!(
            refused(&format!(
                "[placement]\nbind = \"dispatch\"\n{}",
                two("planes = [1]", "planes = [0]")
            )),
            ["placement.bind"]
        );
    }
}
