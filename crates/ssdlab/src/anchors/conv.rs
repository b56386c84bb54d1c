//! The conversions of the table: each one reads a few simulator parameters into one
//! ssdlab value (import) and writes that value back as the simulator's parameters
//! (export).

use super::cmt;
use super::error::ImportError;
use super::link;
use super::mqsim as mq;
use super::params::Params;
use super::ssdsim as ss;
use super::value::{bool_at, float_at, int_at, str_at, Exported, Outcome, Val};
use ssdlab_ftl::AllocOrder;

/// How one ssdlab key relates to a simulator's parameters (the names of its row, in the
/// order each conversion documents).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Conv {
    /// The same whole number, in `min..=max`.
    Int {
        /// Smallest value accepted.
        min: i64,
        /// Largest value accepted (the simulator's integer type).
        max: i64,
    },
    /// The same fraction, in `[0, 1)`.
    Ratio,
    /// MQSim's `true` / `false`.
    Flag,
    /// MQSim `[Flash_Technology, LSB, CSB, MSB]` latencies → one latency.
    MqLatency,
    /// MQSim `[Channel_Transfer_Rate, Flash_Channel_Width]` → ps per byte.
    MqRate,
    /// MQSim `[HostInterface_Type, IO_Queue_Depth, Queue_Fetch_Size]` → device queue.
    MqQueue,
    /// MQSim `[GC_Exec_Threshold]` → the ratio giving the same block count.
    MqGc,
    /// MQSim `[GC_Block_Selection_Policy]` → victim policy.
    MqVictim,
    /// MQSim `[Static_Wearleveling_Enabled, Static_Wearleveling_Threshold]` → spread.
    MqStaticWl,
    /// MQSim `[Enabled_Preconditioning]` → precondition switch.
    MqPrecondition,
    /// MQSim `[Transaction_Scheduling_Policy]` → scheduler.
    MqScheduler,
    /// MQSim `[Plane_Allocation_Scheme]` (`CWDP`…) → static order.
    MqOrder,
    /// MQSim `[Ideal_Mapping_Table]` → `ftl.mapping`.
    MqMapping,
    /// MQSim `[Ideal_Mapping_Table, CMT_Capacity, geometry…]` → CMT entries.
    MqCmtEntries,
    /// MQSim `[Ideal_Mapping_Table, geometry…]` → translation-page entry bytes.
    MqCmtEntryBytes,
    /// SSDsim `[chip number, channel number]` and `chip number[i]` → chips per channel.
    SsChips,
    /// SSDsim `[page capacity, subpage page, subpage capacity]` → page size.
    SsPageSize,
    /// SSDsim `[t_WC, t_RC]` (ns per byte) → ps per byte.
    SsByteCycles,
    /// SSDsim `[t_WC]` → 7 command cycles.
    SsCommand,
    /// SSDsim `[allocation]` → allocation.
    SsAllocation,
    /// SSDsim `[allocation, static_allocation, dynamic_allocation]` → static order.
    SsOrder,
    /// SSDsim `[allocation, dynamic_allocation]` → dynamic policy.
    SsDynamicPolicy,
    /// SSDsim `[advanced command, greed CB command]` → copyback.
    SsCopyback,
    /// SSDsim `[advanced command, greed MPW command]` → multi-plane.
    SsMultiPlane,
    /// SSDsim `[aged]` → precondition switch.
    SsAged,
    /// MQSim `[PCIe_Lane_Count]` → `host.pcie.lanes`.
    MqPcieLanes,
    /// MQSim `[PCIe_Lane_Bandwidth]` → `host.pcie.lane_gbytes_per_s`.
    MqPcieRate,
    /// No parameter: MQSim's Max Payload Size → `host.pcie.max_payload_bytes`.
    MqPciePayload,
    /// No parameter: MQSim's bytes per TLP → `host.pcie.tlp_overhead_bytes`.
    MqPcieOverhead,
    /// No parameter: SSDsim has no host link (export refuses one).
    SsNoLink,
    /// SSDsim `[gc hard threshold]` → GC threshold.
    SsGc,
    /// The GC threshold parameter again → `ftl.gc.background_free_ratio`, which ssdlab
    /// requires at or above the threshold even with background GC off.
    GcBackground,
}

impl Conv {
    /// Reads `names` from `p` into one value.
    ///
    /// # Errors
    /// A missing parameter without a default, or a value out of range.
    pub fn import(self, p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
        let n0 = names.first().copied().unwrap_or_default();
        match self {
            Conv::Int { min, max } => Ok(Outcome::exact(Val::Int(p.int(n0, min, max)?))),
            Conv::Ratio => Ok(Outcome::exact(Val::Float(p.float(n0, 0.0, 1.0, false)?))),
            Conv::Flag => Ok(Outcome::exact(Val::Bool(p.boolean(n0)?))),
            Conv::MqLatency => mq::latency(p, names),
            Conv::MqRate => mq::transfer_rate(p, names),
            Conv::MqQueue => mq::queue_depth(p, names),
            Conv::MqGc => mq::gc_threshold(p, names),
            Conv::MqVictim => mq::victim(p, names),
            Conv::MqStaticWl => mq::static_wl(p, names),
            Conv::MqPrecondition => mq::precondition(p, names),
            Conv::MqScheduler => mq::scheduler(p, names),
            Conv::MqOrder => {
                let (v, _) = p.get(n0)?;
                let lower = v.trim().to_ascii_lowercase();
                match lower.parse::<AllocOrder>() {
                    Ok(_) => Ok(Outcome::exact(Val::Str(lower))),
                    Err(_) => Err(p.bad(n0, "expected a permutation of C, W, D, P (e.g. CWDP)")),
                }
            }
            Conv::MqMapping => cmt::mapping(p, names),
            Conv::MqCmtEntries => cmt::entries(p, names),
            Conv::MqCmtEntryBytes => cmt::entry_bytes(p, names),
            Conv::SsChips => ss::chips(p, names),
            Conv::SsPageSize => ss::page_size(p, names),
            Conv::SsByteCycles => ss::byte_cycles(p, names),
            Conv::SsCommand => ss::command_cycles(p, names),
            Conv::SsAllocation => ss::allocation(p, names),
            Conv::SsOrder => ss::order(p, names),
            Conv::SsDynamicPolicy => ss::dynamic_policy(p, names),
            Conv::SsCopyback => ss::copyback(p, names),
            Conv::SsMultiPlane => ss::multi_plane(p, names),
            Conv::SsAged => ss::aged(p, names),
            Conv::SsGc => ss::gc_threshold(p, names),
            Conv::MqPcieLanes => link::mq_lanes(p, names),
            Conv::MqPcieRate => link::mq_rate(p, names),
            Conv::MqPciePayload => Ok(link::mq_tlp(true)),
            Conv::MqPcieOverhead => Ok(link::mq_tlp(false)),
            Conv::SsNoLink => Ok(link::ss_none()),
            Conv::GcBackground => {
                let gc = match p.simulator() {
                    super::Simulator::MqSim => Conv::MqGc,
                    super::Simulator::SsdSim => Conv::SsGc,
                };
                let default = crate::config::SimConfig::default()
                    .ftl
                    .gc
                    .background_free_ratio;
                Ok(match gc.import(p, names)? {
                    Outcome::Value { value: Val::Float(r), .. } if r > default => Outcome::noted(
                        Val::Float(r),
                        "no effect (background GC is off); ssdlab requires it at or above threshold_free_ratio",
                    ),
                    _ => Outcome::Skip(format!(
                        "background GC is off; ssdlab's default {default} is at or above the threshold"
                    )),
                })
            }
        }
    }

    /// Writes the value at `key` of `cfg` (a whole configuration as TOML) as the
    /// simulator's parameters `names`.
    ///
    /// # Errors
    /// Why the simulator cannot represent the value.
    pub fn export(self, cfg: &toml::Table, key: &str, names: &[&str]) -> Result<Exported, String> {
        let n0 = names.first().copied().unwrap_or_default();
        match self {
            Conv::Int { min, max } => {
                let v = int_at(cfg, key)?;
                if (min..=max).contains(&v) {
                    Ok(Exported::one(n0, v))
                } else {
                    Err(format!("{v} is outside {n0}'s range {min}..={max}"))
                }
            }
            Conv::Ratio | Conv::SsGc => Ok(Exported::one(n0, float_at(cfg, key)?)),
            Conv::Flag => Ok(Exported::one(n0, bool_at(cfg, key)?)),
            Conv::MqLatency => mq::export_latency(cfg, key, names),
            Conv::MqRate => mq::export_rate(cfg, key, names),
            Conv::MqQueue => mq::export_queue(cfg, key, names),
            Conv::MqGc => mq::export_gc(cfg, key, names),
            Conv::MqVictim => mq::export_victim(cfg, key, names),
            Conv::MqStaticWl => mq::export_static_wl(cfg, key, names),
            Conv::MqPrecondition => mq::export_precondition(cfg, key, names),
            Conv::MqScheduler => mq::export_scheduler(cfg, key, names),
            Conv::MqOrder => Ok(Exported::one(n0, str_at(cfg, key)?.to_ascii_uppercase())),
            Conv::MqMapping => cmt::export_mapping(cfg, key, names),
            Conv::MqCmtEntries => cmt::export_entries(cfg, key, names),
            Conv::MqCmtEntryBytes => cmt::export_entry_bytes(cfg, key, names),
            Conv::SsChips => ss::export_chips(cfg, key, names),
            Conv::SsPageSize => ss::export_page(cfg, key, names),
            Conv::SsByteCycles => ss::export_cycles(cfg, key, names),
            Conv::SsCommand => ss::export_command(cfg, key, names),
            Conv::SsAllocation | Conv::SsOrder | Conv::SsDynamicPolicy => {
                ss::export_allocation(cfg, key, names)
            }
            Conv::SsCopyback | Conv::SsMultiPlane => ss::export_advanced(cfg, key, names),
            Conv::GcBackground => Ok(Exported::default()),
            Conv::MqPcieLanes => link::export_lanes(cfg, key, names),
            Conv::MqPcieRate => link::export_rate(cfg, key, names),
            Conv::MqPciePayload => link::export_tlp(cfg, key, true),
            Conv::MqPcieOverhead => link::export_tlp(cfg, key, false),
            Conv::SsNoLink => link::export_none(cfg, key),
            Conv::SsAged => {
                if bool_at(cfg, key)? {
                    Err(
                        "SSDsim's aging (`aged`) invalidates pages; it cannot fill them with data"
                            .into(),
                    )
                } else {
                    Ok(Exported::one(n0, 0))
                }
            }
        }
    }
}
