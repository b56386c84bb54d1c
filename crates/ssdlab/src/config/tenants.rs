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
}

impl Default for TenantConfig {
    fn default() -> Self {
        TenantConfig {
            name: String::new(),
            trace: PathBuf::new(),
            queue_depth: 64,
            time_scale: 1.0,
            class: PriorityClass::Medium,
            namespace_offset_bytes: 0,
            namespace_bytes: 0,
            shared: false,
        }
    }
}

/// Default weights of the High, Medium and Low classes.
pub const DEFAULT_WEIGHTS: [u32; 3] = [1, 1, 1];

/// `true` when `w` is [`DEFAULT_WEIGHTS`] (not written out).
pub fn default_weights(w: &[u32; 3]) -> bool {
    *w == DEFAULT_WEIGHTS
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
                "host.tenant[2].namespace_bytes",
            ]
        );
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
