//! MQSim's device file (`ssdconfig.xml`): reading it, its built-in defaults, its
//! parameters without an ssdlab counterpart, and the conversions only MQSim needs.
//!
//! Names, units and defaults follow MQSim's own parameter documentation (its README,
//! "MQSim Execution Configurations") and `src/exec/Device_Parameter_Set.cpp`,
//! `src/exec/Flash_Parameter_Set.cpp` (CMU-SAFARI/MQSim 7ec40e3); docs/IMPORT.md
//! gives the reading of each.

use super::error::{ImportError, Loc};
use super::params::{Param, Params};
use super::value::{bool_at, float_at, int_at, str_at, Exported, Outcome, Val};
use super::{Effect, Unmapped};

/// The root element of a device file.
pub const ROOT: &str = "Execution_Parameter_Set";

/// Sections of the device file and the parameters MQSim reads in each.
const HOST: &[&str] = &[
    "PCIe_Lane_Bandwidth",
    "PCIe_Lane_Count",
    "SATA_Processing_Delay",
    "Enable_ResponseTime_Logging",
    "ResponseTime_Logging_Period_Length",
];
const FLASH: &[&str] = &[
    "Flash_Technology",
    "CMD_Suspension_Support",
    "Page_Read_Latency_LSB",
    "Page_Read_Latency_CSB",
    "Page_Read_Latency_MSB",
    "Page_Program_Latency_LSB",
    "Page_Program_Latency_CSB",
    "Page_Program_Latency_MSB",
    "Block_Erase_Latency",
    "Block_PE_Cycles_Limit",
    "Suspend_Erase_Time",
    "Suspend_Program_Time",
    "Die_No_Per_Chip",
    "Plane_No_Per_Die",
    "Block_No_Per_Plane",
    "Page_No_Per_Block",
    "Page_Capacity",
    "Page_Metadat_Capacity",
];

/// MQSim's built-in values of the parameters a file may leave out. The geometry, the
/// array latencies of LSB pages and the channel rate have none here: a device file
/// without them does not describe a device.
pub const DEFAULTS: &[(&str, &str)] = &[
    ("Seed", "123"),
    ("PCIe_Lane_Bandwidth", "0.4"),
    ("PCIe_Lane_Count", "4"),
    ("Enabled_Preconditioning", "true"),
    ("HostInterface_Type", "NVME"),
    ("IO_Queue_Depth", "1024"),
    ("Queue_Fetch_Size", "512"),
    ("Address_Mapping", "PAGE_LEVEL"),
    ("Ideal_Mapping_Table", "false"),
    ("CMT_Capacity", "2097152"),
    ("Plane_Allocation_Scheme", "CWDP"),
    ("Transaction_Scheduling_Policy", "OUT_OF_ORDER"),
    ("Overprovisioning_Ratio", "0.07"),
    ("GC_Exec_Threshold", "0.05"),
    ("GC_Block_Selection_Policy", "RGA"),
    ("Use_Copyback_for_GC", "false"),
    ("Preemptible_GC_Enabled", "true"),
    ("Dynamic_Wearleveling_Enabled", "true"),
    ("Static_Wearleveling_Enabled", "true"),
    ("Static_Wearleveling_Threshold", "100"),
    ("Flash_Channel_Width", "1"),
    ("Flash_Technology", "MLC"),
    ("CMD_Suspension_Support", "ERASE"),
    ("Page_Read_Latency_CSB", "75000"),
    ("Page_Read_Latency_MSB", "75000"),
    ("Page_Program_Latency_CSB", "750000"),
    ("Page_Program_Latency_MSB", "750000"),
];

const NO_CACHE: &str = "ssdlab has no DRAM data cache yet (the workload file's Device_Level_Data_Caching_Mode says whether MQSim uses it)";
const NO_SUSPEND: Effect = Effect::Unless("CMD_Suspension_Support", &["NONE"]);
const NO_SUSPEND_WHY: &str = "ssdlab never suspends a program or an erase";

/// MQSim parameters with no ssdlab counterpart.
pub const UNMAPPED: &[Unmapped] = &[
    Unmapped::new("SATA_Processing_Delay", Effect::Unless("HostInterface_Type", &["NVME"]), "used by SATA only; ssdlab has no host link delay"),
    Unmapped::new("Enable_ResponseTime_Logging", Effect::Never, "an output option of MQSim"),
    Unmapped::new("ResponseTime_Logging_Period_Length", Effect::Never, "an output option of MQSim"),
    Unmapped::new("Memory_Type", Effect::Never, "FLASH is MQSim's only memory type"),
    Unmapped::new("Caching_Mechanism", Effect::Always, NO_CACHE),
    Unmapped::new("Data_Cache_Sharing_Mode", Effect::Always, NO_CACHE),
    Unmapped::new("Data_Cache_Capacity", Effect::Always, NO_CACHE),
    Unmapped::new("Data_Cache_DRAM_Row_Size", Effect::Always, NO_CACHE),
    Unmapped::new("Data_Cache_DRAM_Data_Rate", Effect::Always, NO_CACHE),
    Unmapped::new("Data_Cache_DRAM_Data_Busrt_Size", Effect::Always, NO_CACHE),
    Unmapped::new("Data_Cache_DRAM_tRCD", Effect::Always, NO_CACHE),
    Unmapped::new("Data_Cache_DRAM_tCL", Effect::Always, NO_CACHE),
    Unmapped::new("Data_Cache_DRAM_tRP", Effect::Always, NO_CACHE),
    Unmapped::new("Address_Mapping", Effect::Unless("Address_Mapping", &["PAGE_LEVEL"]), "ssdlab's FTL maps pages (PAGE_LEVEL); HYBRID has no counterpart"),
    Unmapped::new("CMT_Sharing_Mode", Effect::Unless("Ideal_Mapping_Table", &["TRUE"]), "how the cached mapping table is shared among I/O flows (SHARED, or EQUAL_SIZE_PARTITIONING: capacity / flows each); ssdlab's CMT has no sharing-mode key yet (one table for every flow, as SHARED); with one flow, as a trace replay has, both modes give it the whole table; unused when Ideal_Mapping_Table is true"),
    Unmapped::new("Preemptible_GC_Enabled", Effect::Unless("Preemptible_GC_Enabled", &["FALSE"]), "ssdlab's GC is not preemptible"),
    Unmapped::new("GC_Hard_Threshold", Effect::Unless("Preemptible_GC_Enabled", &["FALSE"]), "used by preemptible GC only (Preemptible_GC_Enabled)"),
    Unmapped::new("Preferred_suspend_erase_time_for_read", NO_SUSPEND, NO_SUSPEND_WHY),
    Unmapped::new("Preferred_suspend_erase_time_for_write", NO_SUSPEND, NO_SUSPEND_WHY),
    Unmapped::new("Preferred_suspend_write_time_for_read", NO_SUSPEND, NO_SUSPEND_WHY),
    Unmapped::new("Flash_Comm_Protocol", Effect::Never, "NVDDR2 is MQSim's only channel protocol; its rate is imported from Channel_Transfer_Rate"),
    Unmapped::new("CMD_Suspension_Support", NO_SUSPEND, NO_SUSPEND_WHY),
    Unmapped::new("Block_PE_Cycles_Limit", Effect::Never, "no block wears out during a run, in MQSim or in ssdlab"),
    Unmapped::new("Suspend_Erase_Time", NO_SUSPEND, NO_SUSPEND_WHY),
    Unmapped::new("Suspend_Program_Time", NO_SUSPEND, NO_SUSPEND_WHY),
    Unmapped::new("Page_Metadat_Capacity", Effect::Never, "the out-of-band area takes no bus time in MQSim's model"),
];

/// The section a parameter belongs in.
pub(crate) fn section_of(name: &str) -> &'static str {
    if HOST.contains(&name) {
        "Host_Parameter_Set"
    } else if FLASH.contains(&name) {
        "Flash_Parameter_Set"
    } else {
        "Device_Parameter_Set"
    }
}

/// Whether `name` is a parameter MQSim reads (mapped or not).
fn known(name: &str, mapped: &[&str]) -> bool {
    mapped.contains(&name) || UNMAPPED.iter().any(|u| u.name == name)
}

/// The parameters of an MQSim device file: every element without element children,
/// named by its tag. A parameter MQSim knows but placed outside its section is an error
/// (MQSim would silently ignore it); `mapped` lists the names the table converts.
pub fn read(text: &str, file: &str, mapped: &[&str]) -> Result<Vec<Param>, ImportError> {
    let doc = roxmltree::Document::parse(text).map_err(|e| ImportError::Malformed {
        file: file.to_string(),
        loc: Box::new(Loc::Line(e.pos().row)),
        message: format!("not well-formed XML: {e}"),
    })?;
    let root = doc.root_element();
    if root.tag_name().name() != ROOT {
        return Err(ImportError::UnknownFormat {
            file: file.to_string(),
            why: match root.tag_name().name() {
                "MQSim_IO_Scenarios" => {
                    "an MQSim workload file; give the device file (ssdconfig.xml)".to_string()
                }
                other => format!("an XML document whose root is <{other}>"),
            },
        });
    }
    let mut out = Vec::new();
    for node in root.descendants().filter(|n| n.is_element() && *n != root) {
        if node.children().any(|c| c.is_element()) {
            continue;
        }
        let name = node.tag_name().name().to_string();
        let mut path: Vec<&str> = node
            .ancestors()
            .filter(|a| a.is_element() && *a != root)
            .map(|a| a.tag_name().name())
            .collect();
        path.reverse();
        let parent = if path.len() >= 2 {
            path[path.len() - 2]
        } else {
            ROOT
        };
        let loc = Loc::Element {
            path: path.join("/"),
            line: doc.text_pos_at(node.range().start).row,
        };
        if known(&name, mapped) && parent != section_of(&name) {
            return Err(ImportError::Malformed {
                file: file.to_string(),
                loc: Box::new(loc),
                message: format!(
                    "`{name}` belongs in <{}>; MQSim ignores it here",
                    section_of(&name)
                ),
            });
        }
        let value = node.text().unwrap_or("").trim().to_string();
        out.push(Param { name, value, loc });
    }
    Ok(out)
}

/// Pages of a block, when the file gives a usable number (for the latency mean).
fn pages_per_block(p: &Params) -> Option<u64> {
    p.peek("Page_No_Per_Block")
        .and_then(|q| q.value.parse().ok())
        .filter(|&n| n > 0)
}

/// MQSim's latency class of page `page` (0 LSB, 1 CSB, 2 MSB) for a technology
/// (`Flash_Chip::Get_command_execution_latency`; an MLC chip holds LSB and MSB only).
fn latency_class(tech: &str, page: u64) -> usize {
    match tech {
        "MLC" => 2 * (page % 2) as usize,
        "TLC" if page <= 5 => 0,
        "TLC" if page <= 7 => 1,
        "TLC" => (((page - 8) >> 1) % 3) as usize,
        _ => 0,
    }
}

/// `timing.t_read_ns` / `t_prog_ns` from `[Flash_Technology, LSB, CSB, MSB]`: the
/// latency every page has, or the mean over a block's pages when they differ.
pub fn latency(p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
    let tech = p.word(names[0], &["SLC", "MLC", "TLC"])?;
    let mut ns = [0i64; 3];
    for (i, n) in names[1..4].iter().enumerate() {
        ns[i] = p.int(n, 1, i64::MAX)?;
    }
    let pages = pages_per_block(p).unwrap_or(1);
    let mut count = [0u64; 3];
    for page in 0..pages {
        count[latency_class(&tech, page)] += 1;
    }
    let used: Vec<usize> = (0..3).filter(|&i| count[i] > 0).collect();
    if used.iter().all(|&i| ns[i] == ns[used[0]]) {
        return Ok(Outcome::exact(Val::Int(ns[used[0]])));
    }
    let total: u128 = (0..3).map(|i| ns[i] as u128 * u128::from(count[i])).sum();
    let mean = ((total + u128::from(pages) / 2) / u128::from(pages)) as i64;
    let mix: Vec<String> = ["LSB", "CSB", "MSB"]
        .iter()
        .zip(count)
        .filter(|(_, c)| *c > 0)
        .map(|(k, c)| format!("{c} {k}"))
        .collect();
    Ok(Outcome::approx(
        Val::Int(mean),
        format!(
            "{tech} pages differ in latency; ssdlab has one: the mean over a block's {pages} pages ({}), rounded to the nearest ns",
            mix.join(", ")
        ),
    ))
}

/// `timing.bus_ps_per_byte` from `[Channel_Transfer_Rate (MT/s), Flash_Channel_Width
/// (bytes)]`: 10^6 / (rate × width) ps per byte, rounded to the nearest picosecond.
pub fn transfer_rate(p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
    let rate = p.int(names[0], 1, i64::from(u32::MAX))?;
    let width = p.int(names[1], 1, i64::from(u32::MAX))?;
    let per_s = rate * width; // bytes per µs
    let ps = (1_000_000 + per_s / 2) / per_s;
    if ps == 0 {
        return Err(p.bad(names[0], "gives less than 1 ps per byte"));
    }
    let text = format!("10^6 / ({rate} MT/s × {width} B)");
    if 1_000_000 % per_s == 0 {
        return Ok(Outcome::noted(
            Val::Int(ps),
            format!("{text} = {ps} ps/byte"),
        ));
    }
    Ok(Outcome::noted(
        Val::Int(ps),
        format!(
            "{text} = {:.3} ps/byte, rounded to the nearest ps (MQSim itself truncates to whole ns per transfer: {} ps/byte)",
            1e6 / per_s as f64,
            1000 * (1000 / rate) / width
        ),
    ))
}

/// `host.device_queue_depth` from `[HostInterface_Type, IO_Queue_Depth,
/// Queue_Fetch_Size]`: NVMe fetches at most `Queue_Fetch_Size` commands from a
/// submission queue of `IO_Queue_Depth`; SATA's NCQ holds `IO_Queue_Depth`.
pub fn queue_depth(p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
    let kind = p.word(names[0], &["NVME", "SATA"])?;
    let depth = p.int(names[1], 1, i64::from(u16::MAX))?;
    let fetch = p.int(names[2], 1, i64::from(u16::MAX))?;
    Ok(if kind == "SATA" {
        Outcome::noted(Val::Int(depth), "SATA: the NCQ depth")
    } else {
        Outcome::noted(
            Val::Int(fetch.min(depth)),
            "NVMe: commands fetched at once, at most the queue's depth",
        )
    })
}

/// `ftl.gc.threshold_free_ratio` from `[GC_Exec_Threshold]`. MQSim collects a plane with
/// fewer than `max(floor(r × blocks), 10)` free blocks, and keeps three blocks per I/O
/// flow out of that pool as write frontiers (data, GC, mapping); ssdlab keeps two (host,
/// GC) and has no mapping frontier. The ratio emitted gives ssdlab (which rounds up) one
/// block more, so that both collect with the same number of blocks not holding data
/// (one I/O flow, as a trace replay has).
pub fn gc_threshold(p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
    let r = p.float(names[0], 0.0, 1.0, false)?;
    let Some(blocks) = p
        .peek("Block_No_Per_Plane")
        .and_then(|q| q.value.parse::<u32>().ok())
        .filter(|&b| b > 0)
    else {
        return Err(p.bad("Block_No_Per_Plane", "a positive block count is needed"));
    };
    let floor = (r * f64::from(blocks)).floor() as u32;
    let k = floor.max(10);
    if k + 1 >= blocks {
        return Err(p.bad(
            names[0],
            format!("MQSim collects below at least 10 free blocks, which needs more than {} blocks per plane", k + 1),
        ));
    }
    let ratio = ratio_for_blocks(k + 1, blocks);
    let why = if k > floor { " (its minimum)" } else { "" };
    Ok(Outcome::noted(
        Val::Float(ratio),
        format!(
            "MQSim collects below max(floor({r} × {blocks}), 10) = {k}{why} free blocks of a plane, with 3 write frontiers open (data, GC, mapping); ssdlab opens 2, so {}/{blocks} gives its ceil() {} free blocks: the same blocks not holding data",
            k + 1,
            k + 1
        ),
    ))
}

/// The largest ratio `x` with `ceil(x × blocks) == k` (float-exact).
pub(crate) fn ratio_for_blocks(k: u32, blocks: u32) -> f64 {
    let mut x = f64::from(k) / f64::from(blocks);
    while (x * f64::from(blocks)).ceil() as u32 > k {
        x = x.next_down();
    }
    x
}

/// The smallest ratio `x` with `floor(x × blocks) == k` (float-exact; MQSim's rounding).
pub(crate) fn floor_ratio(k: u32, blocks: u32) -> f64 {
    let mut x = f64::from(k) / f64::from(blocks);
    while ((x * f64::from(blocks)).floor() as u32) < k {
        x = x.next_up();
    }
    x
}

/// `ftl.gc.victim` from `[GC_Block_Selection_Policy]`.
pub fn victim(p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
    let words = ["GREEDY", "RGA", "RANDOM", "RANDOM_P", "RANDOM_PP", "FIFO"];
    Ok(match p.word(names[0], &words)?.as_str() {
        "GREEDY" => Outcome::exact(Val::Str("greedy".into())),
        // ssdlab's random victim is drawn among the plane's full blocks that have an
        // invalid page (`GcVictimPolicy` Random). MQSim's RANDOM_P draws among full
        // blocks that are not a write frontier; its RANDOM among every block, free and
        // partly written ones too, and a draw with no invalid page runs no GC
        // (`GC_and_WL_Unit_Page_Level::Check_gc_required`).
        "RANDOM_P" => Outcome::approx(
            Val::Str("random".into()),
            "MQSim's RANDOM_P may draw a full block with no invalid page; ssdlab's random does not",
        ),
        "RANDOM" => Outcome::approx(
            Val::Str("random".into()),
            "MQSim's RANDOM may draw a free or partly written block and then runs no GC; ssdlab's random draws among full blocks with an invalid page",
        ),
        other => Outcome::approx(
            Val::Str("greedy".into()),
            format!("ssdlab has no {other} victim selection; greedy is used"),
        ),
    })
}

/// `ftl.wear_leveling.static_spread` from `[Static_Wearleveling_Enabled,
/// Static_Wearleveling_Threshold]`: the threshold when enabled, else 0.
pub fn static_wl(p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
    let on = p.boolean(names[0])?;
    let t = p.int(names[1], 0, i64::from(u32::MAX))?;
    Ok(Outcome::exact(Val::Int(if on { t } else { 0 })))
}

/// `ftl.precondition.enabled` from `[Enabled_Preconditioning]`.
pub fn precondition(p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
    Ok(if p.boolean(names[0])? {
        Outcome::approx(Val::Bool(false), "MQSim preconditions from the workload file (Initial_Occupancy_Percentage and the flow's access pattern); set [ftl.precondition] by hand")
    } else {
        Outcome::exact(Val::Bool(false))
    })
}

/// `scheduler.name` from `[Transaction_Scheduling_Policy]`.
pub fn scheduler(p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
    let w = p.word(names[0], &["OUT_OF_ORDER", "PRIORITY_OUT_OF_ORDER"])?;
    Ok(Outcome::approx(
        Val::Str("async-fifo".into()),
        format!("{w}: MQSim's TSU serves a chip's queued reads before its programs and erases; ssdlab's closest, async-fifo, keeps one FIFO per chip"),
    ))
}

/// Export of [`latency`]: every class takes the one latency.
pub fn export_latency(cfg: &toml::Table, key: &str, names: &[&str]) -> Result<Exported, String> {
    let ns = int_at(cfg, key)?;
    Ok(Exported::many(
        names[1..4].iter().map(|n| (n.to_string(), ns.to_string())),
    ))
}

/// Export of [`transfer_rate`]: a one-byte channel at 10^6 / ps MT/s, rounded.
pub fn export_rate(cfg: &toml::Table, key: &str, names: &[&str]) -> Result<Exported, String> {
    let ps = int_at(cfg, key)?.max(1);
    let rate = (1_000_000 + ps / 2) / ps;
    let e = Exported::many([
        (names[0].to_string(), rate.to_string()),
        (names[1].to_string(), "1".to_string()),
    ]);
    Ok(if 1_000_000 % ps == 0 {
        e
    } else {
        e.with_note(format!("10^6 / {ps} ps/byte rounded to {rate} MT/s"))
    })
}

/// Export of [`queue_depth`]: an NVMe device fetching that many commands.
pub fn export_queue(cfg: &toml::Table, key: &str, names: &[&str]) -> Result<Exported, String> {
    let d = int_at(cfg, key)?;
    if d > i64::from(u16::MAX) {
        return Err(format!("MQSim queues hold at most {} commands", u16::MAX));
    }
    Ok(Exported::many([
        (names[0].to_string(), "NVME".to_string()),
        (names[1].to_string(), u16::MAX.to_string()),
        (names[2].to_string(), d.to_string()),
    ]))
}

/// Export of [`gc_threshold`]: MQSim's threshold one block below ssdlab's (its extra
/// mapping write frontier).
pub fn export_gc(cfg: &toml::Table, key: &str, names: &[&str]) -> Result<Exported, String> {
    let r = float_at(cfg, key)?;
    let blocks = int_at(cfg, "geometry.blocks_per_plane")?;
    let reserve = int_at(cfg, "ftl.gc.reserve_blocks")?;
    let k = ((r * blocks as f64).ceil() as i64).max(reserve + 1) - 1;
    if k < 10 {
        return Err(format!(
            "ssdlab collects below {} free blocks; MQSim's equivalent is never below 11",
            k + 1
        ));
    }
    let (k, blocks) = (u32::try_from(k).map_err(|e| e.to_string())?, blocks as u32);
    Ok(Exported::one(names[0], floor_ratio(k, blocks)))
}

/// Export of [`victim`].
pub fn export_victim(cfg: &toml::Table, key: &str, names: &[&str]) -> Result<Exported, String> {
    match str_at(cfg, key)? {
        "greedy" => Ok(Exported::one(names[0], "GREEDY")),
        // RANDOM_P: MQSim's draw that, like ssdlab's, takes full blocks only.
        "random" => Ok(Exported::one(names[0], "RANDOM_P")),
        other => Err(format!("MQSim has no {other} victim selection")),
    }
}

/// Export of [`static_wl`].
pub fn export_static_wl(cfg: &toml::Table, key: &str, names: &[&str]) -> Result<Exported, String> {
    let t = int_at(cfg, key)?;
    Ok(Exported::many([
        (names[0].to_string(), (t > 0).to_string()),
        (names[1].to_string(), t.max(1).to_string()),
    ]))
}

/// Export of [`precondition`].
pub fn export_precondition(
    cfg: &toml::Table,
    key: &str,
    names: &[&str],
) -> Result<Exported, String> {
    let on = bool_at(cfg, key)?;
    let e = Exported::one(names[0], on);
    Ok(if on {
        e.with_note("MQSim's preconditioning follows the workload file, not [ftl.precondition]")
    } else {
        e
    })
}

/// Export of [`scheduler`].
pub fn export_scheduler(cfg: &toml::Table, key: &str, names: &[&str]) -> Result<Exported, String> {
    let s = str_at(cfg, key)?;
    Ok(Exported::one(names[0], "OUT_OF_ORDER").with_note(format!(
        "MQSim has one scheduler family; {s} is not reproduced"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anchors::Simulator;

    fn params(pairs: &[(&str, &str)]) -> Params {
        let items = pairs
            .iter()
            .enumerate()
            .map(|(i, (n, v))| Param {
                name: n.to_string(),
                value: v.to_string(),
                loc: Loc::Element {
                    path: format!("Device_Parameter_Set/{n}"),
                    line: i as u32 + 1,
                },
            })
            .collect();
        Params::new(Simulator::MqSim, "t.xml", items, DEFAULTS).unwrap()
    }

    fn value(o: Outcome) -> (Val, Vec<String>) {
        match o {
            Outcome::Value { value, approx, .. } => (value, approx),
            Outcome::Skip(why) => panic!("skipped: {why}"),
        }
    }

    const READ: &[&str] = &[
        "Flash_Technology",
        "Page_Read_Latency_LSB",
        "Page_Read_Latency_CSB",
        "Page_Read_Latency_MSB",
    ];

    #[test]
    fn latencies_by_technology() {
        let mut p = params(&[
            ("Flash_Technology", "slc"),
            ("Page_Read_Latency_LSB", "25000"),
            ("Page_Read_Latency_MSB", "99999"),
        ]);
        let (v, approx) = value(latency(&mut p, READ).unwrap());
        assert_eq!(v, Val::Int(25_000), "SLC reads LSB latencies only");
        assert!(approx.is_empty());
        let mut p = params(&[
            ("Flash_Technology", "MLC"),
            ("Page_No_Per_Block", "4"),
            ("Page_Read_Latency_LSB", "40000"),
            ("Page_Read_Latency_CSB", "1"),
            ("Page_Read_Latency_MSB", "60001"),
        ]);
        let (v, approx) = value(latency(&mut p, READ).unwrap());
        assert_eq!(
            v,
            Val::Int(50_001),
            "MLC alternates LSB and MSB; the mean is rounded"
        );
        assert!(approx[0].contains("2 LSB, 2 MSB"), "{approx:?}");
        // TLC: pages 0-5 LSB, 6-7 CSB, then pairs cycling LSB, CSB, MSB.
        let classes: Vec<usize> = (0..14).map(|pg| latency_class("TLC", pg)).collect();
        assert_eq!(classes, [0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1, 2, 2]);
        let mut p = params(&[("Flash_Technology", "QLC")]);
        assert!(latency(&mut p, READ)
            .unwrap_err()
            .to_string()
            .contains("SLC, MLC, TLC"));
    }

    #[test]
    fn transfer_rate_in_picoseconds_per_byte() {
        let names = &["Channel_Transfer_Rate", "Flash_Channel_Width"];
        let mut p = params(&[("Channel_Transfer_Rate", "400")]);
        let o = transfer_rate(&mut p, names).unwrap();
        assert_eq!(value(o.clone()).0, Val::Int(2500), "default width 1");
        let mut p = params(&[
            ("Channel_Transfer_Rate", "333"),
            ("Flash_Channel_Width", "1"),
        ]);
        let o = transfer_rate(&mut p, names).unwrap();
        let Outcome::Value { value, note, .. } = o else {
            panic!()
        };
        assert_eq!(value, Val::Int(3003));
        let note = note.unwrap();
        assert!(
            note.contains("3003.003") && note.contains("rounded"),
            "{note}"
        );
        assert!(
            note.contains("3000 ps/byte"),
            "MQSim's own truncation is stated: {note}"
        );
        let mut p = params(&[("Channel_Transfer_Rate", "0")]);
        let e = transfer_rate(&mut p, names).unwrap_err().to_string();
        assert!(
            e.contains("Channel_Transfer_Rate") && e.contains("t.xml"),
            "{e}"
        );
    }

    #[test]
    fn queue_depth_follows_the_interface() {
        let names = &["HostInterface_Type", "IO_Queue_Depth", "Queue_Fetch_Size"];
        let mut p = params(&[("IO_Queue_Depth", "65535"), ("Queue_Fetch_Size", "512")]);
        assert_eq!(value(queue_depth(&mut p, names).unwrap()).0, Val::Int(512));
        let mut p = params(&[("IO_Queue_Depth", "8"), ("Queue_Fetch_Size", "512")]);
        assert_eq!(value(queue_depth(&mut p, names).unwrap()).0, Val::Int(8));
        let mut p = params(&[("HostInterface_Type", "SATA"), ("IO_Queue_Depth", "32")]);
        assert_eq!(value(queue_depth(&mut p, names).unwrap()).0, Val::Int(32));
        let mut p = params(&[("IO_Queue_Depth", "70000")]);
        assert!(queue_depth(&mut p, names)
            .unwrap_err()
            .to_string()
            .contains("65535"));
    }

    #[test]
    fn gc_threshold_gives_mqsims_block_count() {
        let mut p = params(&[("GC_Exec_Threshold", "0.05"), ("Block_No_Per_Plane", "512")]);
        let (v, _) = value(gc_threshold(&mut p, &["GC_Exec_Threshold"]).unwrap());
        assert_eq!(
            v,
            Val::Float(26.0 / 512.0),
            "floor(25.6) = 25 blocks, + 1 frontier"
        );
        let mut p = params(&[("GC_Exec_Threshold", "0.01"), ("Block_No_Per_Plane", "100")]);
        let (v, _) = value(gc_threshold(&mut p, &["GC_Exec_Threshold"]).unwrap());
        assert_eq!(v, Val::Float(0.11), "at least 10 blocks, + 1 frontier");
        let mut p = params(&[("GC_Exec_Threshold", "0.5"), ("Block_No_Per_Plane", "8")]);
        assert!(gc_threshold(&mut p, &["GC_Exec_Threshold"]).is_err());
        for blocks in [3u32, 7, 100, 333, 1000, 2047, 4096] {
            for k in 1..blocks {
                let x = ratio_for_blocks(k, blocks);
                assert_eq!((x * f64::from(blocks)).ceil() as u32, k, "{k}/{blocks}");
                let y = floor_ratio(k, blocks);
                assert_eq!((y * f64::from(blocks)).floor() as u32, k, "{k}/{blocks}");
            }
        }
    }

    #[test]
    fn victims_and_switches() {
        let n = &["GC_Block_Selection_Policy"];
        let mut p = params(&[("GC_Block_Selection_Policy", "greedy")]);
        assert_eq!(
            value(victim(&mut p, n).unwrap()).0,
            Val::Str("greedy".into())
        );
        let mut p = params(&[]);
        let (v, approx) = value(victim(&mut p, n).unwrap());
        assert_eq!(v, Val::Str("greedy".into()));
        assert!(
            approx[0].contains("RGA"),
            "MQSim's default is RGA: {approx:?}"
        );
        for word in ["RANDOM", "RANDOM_P"] {
            let mut p = params(&[("GC_Block_Selection_Policy", word)]);
            let (v, approx) = value(victim(&mut p, n).unwrap());
            assert_eq!(v, Val::Str("random".into()));
            assert!(approx[0].contains(word), "{word}: {approx:?}");
        }
        let n = &[
            "Static_Wearleveling_Enabled",
            "Static_Wearleveling_Threshold",
        ];
        let mut p = params(&[("Static_Wearleveling_Enabled", "false")]);
        assert_eq!(value(static_wl(&mut p, n).unwrap()).0, Val::Int(0));
        let mut p = params(&[("Static_Wearleveling_Threshold", "40")]);
        assert_eq!(value(static_wl(&mut p, n).unwrap()).0, Val::Int(40));
        let mut p = params(&[("Enabled_Preconditioning", "yes")]);
        let e = precondition(&mut p, &["Enabled_Preconditioning"]).unwrap_err();
        assert!(e.to_string().contains("TRUE, FALSE"), "{e}");
    }

    #[test]
    fn reading_names_elements_and_refuses_misplaced_ones() {
        let xml = "<Execution_Parameter_Set>\n<Device_Parameter_Set>\n<Seed> 5 </Seed>\n\
                   <Flash_Parameter_Set><Page_Capacity>4096</Page_Capacity></Flash_Parameter_Set>\n\
                   </Device_Parameter_Set></Execution_Parameter_Set>";
        let got = read(xml, "d.xml", &["Seed", "Page_Capacity"]).unwrap();
        assert_eq!(got[0].name, "Seed");
        assert_eq!(got[0].value, "5");
        assert_eq!(
            got[1].loc,
            Loc::Element {
                path: "Device_Parameter_Set/Flash_Parameter_Set/Page_Capacity".into(),
                line: 4
            }
        );
        let bad = "<Execution_Parameter_Set><Device_Parameter_Set>\n<Page_Capacity>4096</Page_Capacity>\n</Device_Parameter_Set></Execution_Parameter_Set>";
        let e = read(bad, "d.xml", &["Page_Capacity"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("line 2") && e.contains("Flash_Parameter_Set"),
            "{e}"
        );
        let e = read("<Execution_Parameter_Set>\n<Seed>1</Sed>", "d.xml", &[]).unwrap_err();
        assert!(e.to_string().starts_with("d.xml: line 2"), "{e}");
        let e = read("<MQSim_IO_Scenarios/>", "w.xml", &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("workload file"), "{e}");
    }
}
