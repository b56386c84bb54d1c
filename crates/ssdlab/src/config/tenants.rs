//! `[[host.tenant]]` and the arbitration keys of `[host]`: several workloads sharing
//! the device through their own submission queues (docs/HOST.md).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// How the controller picks the submission queue it fetches from next
/// (NVM Express Base Specification 2.0, §3.4.4 "Arbitration Mechanisms").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Arbitration {
    /// Every submission queue in turn (§3.4.4.1).
    #[default]
    RoundRobin,
    /// Urgent queues first (strict priority), then weighted round robin over the High,
    /// Medium and Low classes, round robin inside each class (§3.4.4.2).
    WeightedRoundRobin,
}

impl Arbitration {
    /// `true` for the default (round robin), which is not written out.
    pub fn is_default(&self) -> bool {
        *self == Arbitration::RoundRobin
    }
}

/// Whether GC keeps the data of different placement handles apart (NVMe TP4146's
/// reclaim unit handle types).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PlacementIsolation {
    /// Persistently isolated: GC copies a page into an open block of its own handle.
    #[default]
    Persistent,
    /// Initially isolated: host writes are kept apart, GC copies of every handle share
    /// the plane's GC open block.
    Initial,
}

impl PlacementIsolation {
    /// `true` for the default (persistent), which is not written out.
    pub fn is_default(&self) -> bool {
        *self == PlacementIsolation::Persistent
    }
}

/// Where a write's placement identifier comes from (`host.placement_from`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PlacementFrom {
    /// Its tenant's handle (handle 0 without tenants).
    #[default]
    Tenant,
    /// The stream its workload names: a trace's stream field, a synthetic workload's
    /// placement rule; the handle is the stream modulo `host.placement_handles`.
    Workload,
}

impl PlacementFrom {
    /// `true` for the default (the tenant's), which is not written out.
    pub fn is_default(&self) -> bool {
        *self == PlacementFrom::Tenant
    }
}

/// How requests arrive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum HostMode {
    /// Requests arrive at their trace timestamps (times `time_scale`).
    Open,
    /// Timestamps are ignored; `queue_depth` requests are kept outstanding.
    Closed,
}

/// A submission queue's priority class under weighted round robin (§3.4.4.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PriorityClass {
    /// Served before every other class (strict priority).
    Urgent,
    /// Weighted by `host.weights[0]`.
    High,
    /// Weighted by `host.weights[1]`.
    #[default]
    Medium,
    /// Weighted by `host.weights[2]`.
    Low,
}

/// One tenant: a workload with its own submission queue and namespace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TenantConfig {
    /// A name for the reports (default: `t0`, `t1`, … in order).
    pub name: String,
    /// The trace file (its format is detected) or a synthetic workload (`.toml`).
    pub trace: PathBuf,
    /// The depth of its submission queue: at most this many of its requests are in the
    /// device or waiting in its queue to be fetched; later ones wait in the host.
    #[schemars(range(min = 1), extend("x-unit" = "requests"))]
    pub queue_depth: u32,
    /// The most of its commands in the device at once (MQSim's `Queue_Fetch_Size`):
    /// the device fetches from its queue only while fewer are in flight; default
    /// `host.fetch_size` (0 there: its `queue_depth`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("x-unit" = "commands", "default" = null))]
    pub fetch_size: Option<u32>,
    /// Open loop (its trace times) or closed loop (`queue_depth` requests outstanding,
    /// the next issued when one completes); default: `host.mode`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null))]
    pub mode: Option<HostMode>,
    /// Multiplies the trace's inter-arrival times (open loop).
    #[schemars(extend("exclusiveMinimum" = 0.0, "x-unit" = "factor"))]
    pub time_scale: f64,
    /// Its class under weighted round robin.
    pub class: PriorityClass,
    /// Start of its namespace on the device, bytes (page-aligned); with `namespace_bytes`
    /// 0, namespaces are laid out in tenant order, each an equal share of the device.
    #[schemars(extend("x-unit" = "bytes"))]
    pub namespace_offset_bytes: u64,
    /// Size of its namespace, bytes (0 = an equal share of the device). Its addresses
    /// are folded into the namespace (modulo its size).
    #[schemars(extend("x-unit" = "bytes"))]
    pub namespace_bytes: u64,
    /// Addresses the whole device as they are, sharing it with the other tenants
    /// (an explicit opt-in to overlapping addresses).
    pub shared: bool,
    /// The placement handle its writes carry (below `host.placement_handles`; default:
    /// its index modulo that count).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null))]
    pub placement_handle: Option<u32>,
    /// Its resource partition: the channels its host writes may go to (MQSim's
    /// `Channel_IDs`; default: all). Its pages are written only to the planes in the
    /// product of `channels`, `chips`, `dies` and `planes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null))]
    pub channels: Option<Vec<u32>>,
    /// The chips of each channel it may write to, by position on the channel (MQSim's
    /// `Chip_IDs`; default: all).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null))]
    pub chips: Option<Vec<u32>>,
    /// The dies of each chip it may write to (MQSim's `Die_IDs`; default: all).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null))]
    pub dies: Option<Vec<u32>>,
    /// The planes of each die it may write to (MQSim's `Plane_IDs`; default: all).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null))]
    pub planes: Option<Vec<u32>>,
}

impl TenantConfig {
    /// True when it lists channels, chips, dies or planes (a resource partition).
    pub fn partitioned(&self) -> bool {
        self.partition_lists().iter().any(Option::is_some)
    }

    /// Its `channels`, `chips`, `dies` and `planes` lists (`None`: every id).
    pub fn partition_lists(&self) -> [Option<&[u32]>; 4] {
        [
            self.channels.as_deref(),
            self.chips.as_deref(),
            self.dies.as_deref(),
            self.planes.as_deref(),
        ]
    }
}

impl Default for TenantConfig {
    fn default() -> Self {
        TenantConfig {
            name: String::new(),
            trace: PathBuf::new(),
            queue_depth: 64,
            fetch_size: None,
            mode: None,
            time_scale: 1.0,
            class: PriorityClass::Medium,
            namespace_offset_bytes: 0,
            namespace_bytes: 0,
            shared: false,
            placement_handle: None,
            channels: None,
            chips: None,
            dies: None,
            planes: None,
        }
    }
}

/// Default weights of the High, Medium and Low classes.
pub const DEFAULT_WEIGHTS: [u32; 3] = [1, 1, 1];

/// `true` when `w` is [`DEFAULT_WEIGHTS`] (not written out).
pub fn default_weights(w: &[u32; 3]) -> bool {
    *w == DEFAULT_WEIGHTS
}

/// `true` for 0 (not written out).
pub fn is_zero(v: &u32) -> bool {
    *v == 0
}

/// The most commands of tenant `t` in the device at once: its `fetch_size`, else
/// `host_fetch_size` (0 = no limit), and never more than its `queue_depth`.
pub fn fetch_limit(t: &TenantConfig, host_fetch_size: u32) -> u32 {
    let f = t.fetch_size.unwrap_or(host_fetch_size);
    if f == 0 {
        t.queue_depth
    } else {
        f.min(t.queue_depth)
    }
}

/// The placement handle tenant `i`'s writes carry, with `handles` handles (> 0).
pub fn placement_handle(tenants: &[TenantConfig], i: usize, handles: u32) -> u32 {
    tenants[i].placement_handle.unwrap_or(i as u32 % handles)
}

/// The LPN ranges of the tenants' namespaces with the handle each writes through
/// (`(first LPN, end LPN, handle)`), for `handles` handles (> 0), pages of `page` bytes
/// and `device_bytes` of logical capacity. Shared namespaces are left out (their
/// writes take handle 0).
pub fn placement_ranges(
    tenants: &[TenantConfig],
    handles: u32,
    page: u64,
    device_bytes: u64,
) -> Vec<(u32, u32, u32)> {
    (0..tenants.len())
        .filter(|&i| !tenants[i].shared)
        .map(|i| {
            let (off, size) = namespace(tenants, i, page, device_bytes);
            let h = placement_handle(tenants, i, handles);
            ((off / page) as u32, ((off + size) / page) as u32, h)
        })
        .collect()
}

/// The refusals of the placement keys: `(key, message)`. `spare_blocks` is the
/// over-provisioning per plane in blocks and `reserve` the GC reserve: every handle
/// keeps an open block in every plane, which the spare blocks must leave room for.
pub fn validate_placement(
    tenants: &[TenantConfig],
    handles: u32,
    spare_blocks: u32,
    reserve: u32,
) -> Vec<(String, String)> {
    let mut errs = Vec::new();
    if handles > ssdlab_ftl::MAX_HANDLES {
        errs.push((
            "host.placement_handles".into(),
            format!(
                "must be at most {}, found {handles}",
                ssdlab_ftl::MAX_HANDLES
            ),
        ));
    } else if handles > 0 && 2 * handles + reserve > spare_blocks {
        errs.push((
            "host.placement_handles".into(),
            format!(
                "{handles} handles keep {} open blocks per plane (a host and a GC one each), \
                 which with the GC reserve ({reserve}) need more than the {spare_blocks} \
                 spare blocks per plane the over-provisioning leaves",
                2 * handles
            ),
        ));
    }
    for (i, t) in tenants.iter().enumerate() {
        let key = format!("host.tenant[{i}].placement_handle");
        match t.placement_handle {
            Some(_) if handles == 0 => errs.push((
                key,
                "needs host.placement_handles (the handle count)".into(),
            )),
            Some(h) if h >= handles => errs.push((
                key,
                format!("must be below host.placement_handles ({handles}), found {h}"),
            )),
            _ => {}
        }
        if t.shared && handles > 1 {
            errs.push((
                format!("host.tenant[{i}].shared"),
                "a tenant's handle is kept by its namespace: shared namespaces take one \
                 placement handle (host.placement_handles = 1)"
                    .into(),
            ));
        }
    }
    errs
}

/// `true` for an arbitration burst of 1 (not written out).
pub fn default_burst(b: &u32) -> bool {
    *b == 1
}

/// The refusals of the tenant keys: `(key, message)`; `page` is the page size and
/// `device_bytes` the logical capacity.
pub fn validate(
    tenants: &[TenantConfig],
    weights: &[u32; 3],
    burst: u32,
    page: u64,
    device_bytes: u64,
) -> Vec<(String, String)> {
    let mut errs = Vec::new();
    for (i, w) in weights.iter().enumerate() {
        if !(1..=256).contains(w) {
            errs.push((
                format!("host.weights[{i}]"),
                format!("must be 1 to 256 (the NVMe Arbitration feature's range), found {w}"),
            ));
        }
    }
    if burst == 0 {
        errs.push(("host.arbitration_burst".into(), "must be at least 1".into()));
    }
    let mut spans: Vec<(usize, u64, u64)> = Vec::new();
    for (i, t) in tenants.iter().enumerate() {
        let key = |k: &str| format!("host.tenant[{i}].{k}");
        if t.trace.as_os_str().is_empty() {
            errs.push((key("trace"), "every tenant needs a trace".into()));
        }
        if t.queue_depth == 0 {
            errs.push((key("queue_depth"), "must be at least 1".into()));
        }
        if t.fetch_size == Some(0) {
            errs.push((key("fetch_size"), "must be at least 1".into()));
        }
        if !(t.time_scale.is_finite() && t.time_scale > 0.0) {
            errs.push((
                key("time_scale"),
                format!("must be a positive number, found {}", t.time_scale),
            ));
        }
        if t.shared {
            continue;
        }
        let (off, size) = namespace(tenants, i, page, device_bytes);
        if off % page != 0 || size % page != 0 {
            errs.push((
                key("namespace_offset_bytes"),
                format!("namespace [{off}, +{size}) is not aligned to the {page}-byte page"),
            ));
        } else if size == 0 || off.checked_add(size).is_none_or(|end| end > device_bytes) {
            errs.push((
                key("namespace_bytes"),
                format!(
                    "namespace [{off}, +{size}) falls outside the device ({device_bytes} bytes)"
                ),
            ));
        } else if let Some(&(j, _, _)) = spans
            .iter()
            .find(|&&(_, o, s)| off < o + s && o < off + size)
        {
            errs.push((
                key("namespace_offset_bytes"),
                format!(
                    "namespace overlaps tenant {j}'s; set shared = true on both to share addresses"
                ),
            ));
        } else {
            spans.push((i, off, size));
        }
    }
    errs
}

/// Start and size in bytes of tenant `i`'s namespace (the whole device when shared).
pub fn namespace(tenants: &[TenantConfig], i: usize, page: u64, device_bytes: u64) -> (u64, u64) {
    let t = &tenants[i];
    if t.shared {
        return (0, device_bytes);
    }
    if t.namespace_bytes > 0 {
        return (t.namespace_offset_bytes, t.namespace_bytes);
    }
    let share = device_bytes / tenants.len().max(1) as u64 / page * page;
    (share * i as u64, share)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(path: &str) -> TenantConfig {
        TenantConfig {
            trace: path.into(),
            ..TenantConfig::default()
        }
    }

    #[test]
    fn equal_shares_in_order() {
        let ts = vec![t("a"), t("b"), t("c")];
        assert_eq!(namespace(&ts, 0, 4096, 3 * 8192 + 4096), (0, 8192));
        assert_eq!(namespace(&ts, 2, 4096, 3 * 8192 + 4096), (16384, 8192));
        assert!(validate(&ts, &DEFAULT_WEIGHTS, 1, 4096, 3 * 8192).is_empty());
    }

    #[test]
    fn refusals_name_their_key() {
        let mut a = t("a");
        a.namespace_bytes = 8192;
        let mut b = t("b");
        b.namespace_offset_bytes = 4096;
        b.namespace_bytes = 8192;
        let mut c = t("");
        c.queue_depth = 0;
        c.fetch_size = Some(0);
        c.namespace_offset_bytes = 1 << 20;
        c.namespace_bytes = 4096;
        let keys: Vec<String> = validate(&[a, b, c], &[0, 1, 300], 0, 4096, 65536)
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(
            keys,
            [
                "host.weights[0]",
                "host.weights[2]",
                "host.arbitration_burst",
                "host.tenant[1].namespace_offset_bytes",
                "host.tenant[2].trace",
                "host.tenant[2].queue_depth",
                "host.tenant[2].fetch_size",
                "host.tenant[2].namespace_bytes",
            ]
        );
    }

    #[test]
    fn placement_refusals_name_their_key() {
        let mut a = t("a");
        a.placement_handle = Some(2);
        let mut b = t("b");
        b.shared = true;
        let keys = |ts: &[TenantConfig], handles, spare| -> Vec<String> {
            validate_placement(ts, handles, spare, 2)
                .into_iter()
                .map(|(k, _)| k)
                .collect()
        };
        let ts = [a.clone(), b.clone()];
        assert_eq!(
            keys(&ts, 2, 20),
            ["host.tenant[0].placement_handle", "host.tenant[1].shared"]
        );
        assert_eq!(keys(&ts, 0, 20), ["host.tenant[0].placement_handle"]);
        assert_eq!(keys(&ts[1..], 1, 20), Vec::<String>::new());
        // 3 handles: 6 open blocks and the reserve of 2 in 7 spare blocks do not fit.
        assert_eq!(keys(&ts[..1], 3, 7), ["host.placement_handles"]);
        assert!(keys(&ts[..1], 3, 8).is_empty());
        assert_eq!(keys(&[], 257, 10_000), ["host.placement_handles"]);
    }

    #[test]
    fn tenants_take_their_index_modulo_the_handles_unless_told() {
        let mut ts = vec![t("a"), t("b"), t("c")];
        ts[2].placement_handle = Some(0);
        let of = |ts: &[TenantConfig], n| -> Vec<u32> {
            (0..ts.len()).map(|i| placement_handle(ts, i, n)).collect()
        };
        assert_eq!(of(&ts, 4), [0, 1, 0]);
        assert_eq!(of(&ts[..2], 1), [0, 0]);
        // Namespaces as LPN ranges (pages of 4096 bytes, three equal shares).
        assert_eq!(
            placement_ranges(&ts, 4, 4096, 3 * 8192),
            [(0, 2, 0), (2, 4, 1), (4, 6, 0)]
        );
    }

    #[test]
    fn the_fetch_limit_is_the_tenants_then_the_hosts_within_the_queue_depth() {
        let mut a = t("a");
        a.queue_depth = 8;
        assert_eq!(fetch_limit(&a, 0), 8);
        assert_eq!(fetch_limit(&a, 2), 2);
        assert_eq!(fetch_limit(&a, 32), 8);
        a.fetch_size = Some(3);
        assert_eq!(fetch_limit(&a, 2), 3);
        assert_eq!(fetch_limit(&a, 0), 3);
    }

    #[test]
    fn shared_tenants_may_overlap() {
        let mut a = t("a");
        a.shared = true;
        let mut b = t("b");
        b.shared = true;
        assert!(validate(&[a, b], &DEFAULT_WEIGHTS, 1, 4096, 65536).is_empty());
    }
}
