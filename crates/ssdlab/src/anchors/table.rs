//! The one table that relates ssdlab's configuration keys to MQSim's and SSDsim's
//! device parameters. Import reads it from right to left, export from left to right;
//! docs/IMPORT.md gives the unit and the reading of every parameter.

use super::conv::Conv;

/// How one simulator relates to an ssdlab key.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Side {
    /// The simulator's parameters `names` give the key through the conversion.
    Param(&'static [&'static str], Conv),
    /// No parameter: the simulator's model always behaves as this value (a TOML
    /// literal), for the reason given.
    Fixed(&'static str, &'static str),
    /// No parameter and no fixed behaviour that ssdlab's key expresses: the key keeps
    /// ssdlab's default, for the reason given.
    Absent(&'static str),
}

/// One row: an ssdlab key and its counterpart in each simulator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row {
    /// The dotted ssdlab key.
    pub key: &'static str,
    /// MQSim's side.
    pub mqsim: Side,
    /// SSDsim's side.
    pub ssdsim: Side,
}

const fn row(key: &'static str, mqsim: Side, ssdsim: Side) -> Row {
    Row { key, mqsim, ssdsim }
}

use Side::{Absent, Fixed, Param};

const U32: Conv = Conv::Int {
    min: 1,
    max: u32::MAX as i64,
};
const I32: Conv = Conv::Int {
    min: 1,
    max: i32::MAX as i64,
};
const NS: Conv = Conv::Int {
    min: 1,
    max: i64::MAX,
};

/// Every ssdlab key that either simulator's device file speaks to, in the order of an
/// ssdlab configuration.
pub const TABLE: &[Row] = &[
    row(
        "seed",
        Param(&["Seed"], Conv::Int { min: 0, max: i32::MAX as i64 }),
        Absent("SSDsim has no seed"),
    ),
    row("geometry.channels", Param(&["Flash_Channel_Count"], U32), Param(&["channel number"], I32)),
    row(
        "geometry.chips_per_channel",
        Param(&["Chip_No_Per_Channel"], U32),
        Param(&["chip number", "channel number"], Conv::SsChips),
    ),
    row("geometry.dies_per_chip", Param(&["Die_No_Per_Chip"], U32), Param(&["die number"], I32)),
    row("geometry.planes_per_die", Param(&["Plane_No_Per_Die"], U32), Param(&["plane number"], I32)),
    row("geometry.blocks_per_plane", Param(&["Block_No_Per_Plane"], U32), Param(&["block number"], I32)),
    row("geometry.pages_per_block", Param(&["Page_No_Per_Block"], U32), Param(&["page number"], I32)),
    row(
        "geometry.page_size_bytes",
        Param(&["Page_Capacity"], U32),
        Param(&["page capacity", "subpage page", "subpage capacity"], Conv::SsPageSize),
    ),
    row(
        "timing.t_read_ns",
        Param(
            &["Flash_Technology", "Page_Read_Latency_LSB", "Page_Read_Latency_CSB", "Page_Read_Latency_MSB"],
            Conv::MqLatency,
        ),
        Param(&["t_R"], NS),
    ),
    row(
        "timing.t_prog_ns",
        Param(
            &["Flash_Technology", "Page_Program_Latency_LSB", "Page_Program_Latency_CSB", "Page_Program_Latency_MSB"],
            Conv::MqLatency,
        ),
        Param(&["t_PROG"], NS),
    ),
    row("timing.t_erase_ns", Param(&["Block_Erase_Latency"], NS), Param(&["t_BERS"], NS)),
    row(
        "timing.bus_ps_per_byte",
        Param(&["Channel_Transfer_Rate", "Flash_Channel_Width"], Conv::MqRate),
        Param(&["t_WC", "t_RC"], Conv::SsByteCycles),
    ),
    row(
        "timing.t_cmd_ns",
        Absent("MQSim has no parameter for it: its NVDDR2 channel builds command times from constants (about 0.2 to 0.4 µs per operation)"),
        Param(&["t_WC"], Conv::SsCommand),
    ),
    row(
        "timing.write_ack",
        Fixed("\"program\"", "MQSim completes an uncached write when its page is programmed"),
        Fixed("\"transfer\"", "SSDsim completes a write when its data is in the die's register"),
    ),
    row(
        "ftl.over_provisioning",
        Param(&["Overprovisioning_Ratio"], Conv::Ratio),
        Param(&["overprovide"], Conv::Ratio),
    ),
    row(
        "ftl.allocation",
        Fixed("\"static\"", "MQSim places every page by its LPN (Plane_Allocation_Scheme)"),
        Param(&["allocation"], Conv::SsAllocation),
    ),
    row(
        "ftl.static_order",
        Param(&["Plane_Allocation_Scheme"], Conv::MqOrder),
        Param(&["allocation", "static_allocation", "dynamic_allocation"], Conv::SsOrder),
    ),
    row(
        "ftl.dynamic_policy",
        Absent("MQSim allocates statically"),
        Param(&["allocation", "dynamic_allocation"], Conv::SsDynamicPolicy),
    ),
    row(
        "ftl.mapping",
        Param(&["Ideal_Mapping_Table"], Conv::MqMapping),
        Fixed("\"ideal\"", "SSDsim keeps the whole page map in DRAM: no translation reads or writes"),
    ),
    row(
        "ftl.gc.victim",
        Param(&["GC_Block_Selection_Policy"], Conv::MqVictim),
        Fixed("\"greedy\"", "SSDsim collects the block with the most invalid pages"),
    ),
    row(
        "ftl.gc.threshold_free_ratio",
        Param(&["GC_Exec_Threshold"], Conv::MqGc),
        Param(&["gc hard threshold"], Conv::SsGc),
    ),
    row(
        "ftl.gc.background_free_ratio",
        Param(&["GC_Exec_Threshold"], Conv::GcBackground),
        Param(&["gc hard threshold"], Conv::GcBackground),
    ),
    row(
        "ftl.gc.copyback",
        Param(&["Use_Copyback_for_GC"], Conv::Flag),
        Param(&["advanced command", "greed CB command"], Conv::SsCopyback),
    ),
    row(
        "ftl.gc.background",
        Fixed("false", "MQSim has no idle-time GC"),
        Fixed("false", "SSDsim has no idle-time GC"),
    ),
    row(
        "ftl.wear_leveling.dynamic",
        Param(&["Dynamic_Wearleveling_Enabled"], Conv::Flag),
        Fixed("false", "SSDsim opens the next free block without looking at wear"),
    ),
    row(
        "ftl.wear_leveling.static_spread",
        Param(&["Static_Wearleveling_Enabled", "Static_Wearleveling_Threshold"], Conv::MqStaticWl),
        Fixed("0", "SSDsim has no static wear leveling"),
    ),
    row(
        "ftl.precondition.enabled",
        Param(&["Enabled_Preconditioning"], Conv::MqPrecondition),
        Param(&["aged"], Conv::SsAged),
    ),
    row(
        "ftl.cmt.entries",
        Param(
            &[
                "Ideal_Mapping_Table",
                "CMT_Capacity",
                "Flash_Channel_Count",
                "Chip_No_Per_Channel",
                "Die_No_Per_Chip",
                "Plane_No_Per_Die",
                "Block_No_Per_Plane",
                "Page_No_Per_Block",
                "Page_Capacity",
            ],
            Conv::MqCmtEntries,
        ),
        Absent("SSDsim has no cached mapping table"),
    ),
    row(
        "ftl.cmt.entry_bytes",
        Param(
            &[
                "Ideal_Mapping_Table",
                "Flash_Channel_Count",
                "Chip_No_Per_Channel",
                "Die_No_Per_Chip",
                "Plane_No_Per_Die",
                "Block_No_Per_Plane",
                "Page_No_Per_Block",
                "Page_Capacity",
            ],
            Conv::MqCmtEntryBytes,
        ),
        Absent("SSDsim has no cached mapping table"),
    ),
    row(
        "host.mode",
        Fixed("\"open\"", "MQSim replays a trace at its timestamps"),
        Fixed("\"open\"", "SSDsim replays a trace at its timestamps"),
    ),
    row(
        "host.device_queue_depth",
        Param(&["HostInterface_Type", "IO_Queue_Depth", "Queue_Fetch_Size"], Conv::MqQueue),
        Param(&["queue_length"], I32),
    ),
    row(
        "host.unwritten_reads",
        Fixed("\"materialize\"", "MQSim maps a read of a never-written page to a new page and reads it"),
        Fixed("\"materialize\"", "SSDsim writes every page the trace reads before the replay (pre_process_page)"),
    ),
    row(
        "host.pcie.lanes",
        Param(&["PCIe_Lane_Count"], Conv::MqPcieLanes),
        Param(&[], Conv::SsNoLink),
    ),
    row(
        "host.pcie.lane_gbytes_per_s",
        Param(&["PCIe_Lane_Bandwidth"], Conv::MqPcieRate),
        Param(&[], Conv::SsNoLink),
    ),
    row(
        "host.pcie.max_payload_bytes",
        Param(&[], Conv::MqPciePayload),
        Param(&[], Conv::SsNoLink),
    ),
    row(
        "host.pcie.tlp_overhead_bytes",
        Param(&[], Conv::MqPcieOverhead),
        Param(&[], Conv::SsNoLink),
    ),
    row(
        "scheduler.name",
        Param(&["Transaction_Scheduling_Policy"], Conv::MqScheduler),
        Fixed("\"async-fifo\"", "SSDsim serves each chip's sub-requests first come, first served"),
    ),
    row(
        "scheduler.multi_plane",
        Fixed("true", "MQSim's TSU packs the queued transactions of one die into a multi-plane command whenever they share a page offset"),
        Param(&["advanced command", "greed MPW command"], Conv::SsMultiPlane),
    ),
];

impl Row {
    /// The side of `sim`.
    pub fn side(&self, sim: super::Simulator) -> Side {
        match sim {
            super::Simulator::MqSim => self.mqsim,
            super::Simulator::SsdSim => self.ssdsim,
        }
    }
}

/// Every parameter name the table converts for `sim`.
pub fn mapped_names(sim: super::Simulator) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for r in TABLE {
        if let Side::Param(names, _) = r.side(sim) {
            for n in names {
                if !out.contains(n) {
                    out.push(n);
                }
            }
        }
    }
    out
}
