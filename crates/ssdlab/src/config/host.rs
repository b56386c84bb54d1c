//! `[host]`: the arrival model and queue depths.

use super::pcie::PcieConfig;
pub use super::tenants::HostMode;
use super::tenants::{
    default_burst, default_weights, Arbitration, PlacementFrom, PlacementIsolation, TenantConfig,
    DEFAULT_WEIGHTS,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a read of a never-written LPN does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum UnwrittenReads {
    /// Treat the page as written before the trace began: it is placed (zero time)
    /// and read from flash like any other page (DiskSim and MQSim behave this way).
    Materialize,
    /// Answer from the controller without touching flash (zeros).
    Zero,
}

/// The host side of the device: arrival model and queue depths (docs/ARCHITECTURE.md §6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct HostConfig {
    /// Open loop (trace timestamps) or closed loop (fixed outstanding requests).
    pub mode: HostMode,
    /// Multiplies trace inter-arrival times (0.5 = twice as fast). Open loop only.
    #[schemars(extend("exclusiveMinimum" = 0.0, "x-unit" = "factor"))]
    pub time_scale: f64,
    /// Outstanding requests in closed loop.
    #[schemars(range(min = 1), extend("x-unit" = "requests"))]
    pub queue_depth: u32,
    /// Requests the device accepts at once (NCQ depth); the rest wait in the host queue.
    #[schemars(range(min = 1), extend("x-unit" = "requests"))]
    pub device_queue_depth: u32,
    /// What a read of a never-written page does.
    pub unwritten_reads: UnwrittenReads,
    /// How the device picks the tenant's submission queue it fetches from next (with
    /// tenants only).
    #[serde(skip_serializing_if = "Arbitration::is_default")]
    #[schemars(extend("default" = "round-robin"))]
    pub arbitration: Arbitration,
    /// Arbitration Burst: the most commands fetched from one submission queue at one
    /// arbitration (NVMe Base 2.0 §3.4.4).
    #[serde(skip_serializing_if = "default_burst")]
    #[schemars(range(min = 1), extend("x-unit" = "commands", "default" = 1))]
    pub arbitration_burst: u32,
    /// The most commands of one tenant's submission queue in the device at once
    /// (MQSim's `Queue_Fetch_Size`; with tenants only; a tenant's `fetch_size` overrides
    /// it). 0 = no limit but the tenant's `queue_depth`.
    #[serde(skip_serializing_if = "super::tenants::is_zero")]
    #[schemars(extend("x-unit" = "commands", "default" = 0))]
    pub fetch_size: u32,
    /// Weights of the High, Medium and Low classes under weighted round robin (1 to 256).
    #[serde(skip_serializing_if = "default_weights")]
    #[schemars(extend("default" = [1, 1, 1]))]
    pub weights: [u32; 3],
    /// Placement handles (NVMe Flexible Data Placement's reclaim unit handles): host data
    /// of different handles never share a block. 0 = off; with tenants, tenant `i` writes
    /// through handle `i` modulo this count unless its `placement_handle` says otherwise
    /// (1 = every tenant shares one handle). Without tenants every write takes handle 0.
    #[serde(skip_serializing_if = "super::tenants::is_zero")]
    #[schemars(
        range(max = 256),
        extend(
            "x-unit" = "handles",
            "default" = 0,
            "x-constraint" = "2 × handles + ftl.gc.reserve_blocks <= the spare blocks per plane"
        )
    )]
    pub placement_handles: u32,
    /// Where a write's placement identifier comes from (with `placement_handles`):
    /// `"tenant"`, its tenant's handle; `"workload"`, the stream its workload names (a
    /// trace's stream field, a synthetic workload's placement rule), handle = stream
    /// modulo `placement_handles` (docs/HOST.md §5).
    #[serde(skip_serializing_if = "PlacementFrom::is_default")]
    #[schemars(extend("default" = "tenant"))]
    pub placement_from: PlacementFrom,
    /// Whether GC keeps the handles' data apart too (with `placement_handles`).
    #[serde(skip_serializing_if = "PlacementIsolation::is_default")]
    #[schemars(extend("default" = "persistent"))]
    pub placement_isolation: PlacementIsolation,
    /// Tenants: several workloads at once, each with its own submission queue and
    /// namespace (none: the one trace of the run).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = []))]
    pub tenant: Vec<TenantConfig>,
    /// The PCIe link between host and device (none by default: transfers take no time).
    #[serde(skip_serializing_if = "PcieConfig::is_default")]
    pub pcie: PcieConfig,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            mode: HostMode::Open,
            time_scale: 1.0,
            queue_depth: 32,
            device_queue_depth: 64,
            unwritten_reads: UnwrittenReads::Materialize,
            arbitration: Arbitration::RoundRobin,
            arbitration_burst: 1,
            fetch_size: 0,
            weights: DEFAULT_WEIGHTS,
            tenant: Vec::new(),
            placement_handles: 0,
            placement_isolation: PlacementIsolation::Persistent,
            placement_from: PlacementFrom::Tenant,
            pcie: PcieConfig::default(),
        }
    }
}

impl HostConfig {
    /// The refusals of `placement_from`: `(key, message)`.
    pub fn validate_placement_from(&self) -> Vec<(String, String)> {
        let mut errs = Vec::new();
        if self.placement_from == PlacementFrom::Workload {
            let key = "host.placement_from".to_string();
            if self.placement_handles == 0 {
                errs.push((
                    key.clone(),
                    "\"workload\" needs host.placement_handles (the handle count)".into(),
                ));
            }
            if !self.tenant.is_empty() {
                errs.push((
                    key,
                    "\"workload\" takes the one workload's streams; tenants write through \
                     their own handles (placement_from = \"tenant\")"
                        .into(),
                ));
            }
        }
        errs
    }
}
