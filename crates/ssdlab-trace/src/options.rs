//! Trace formats, size units and reader options.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A block-trace file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TraceFormat {
    /// MSR Cambridge CSV: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
    Msr,
    /// UMass / SPC CSV: `ASU,LBA,Size,Opcode,Timestamp`.
    Spc,
    /// FIU SyLab: `ts pid process lba size R/W major minor md5`, one line per 4 KiB block.
    Fiu,
    /// DiskSim ASCII: `time_ms device block size flags`.
    Disksim,
    /// SSDsim ASCII: `time_ns dev lsn size_sectors ope`.
    Ssdsim,
    /// MQSim ASCII: `time_ns device lba_sectors size_sectors type`.
    Mqsim,
    /// Linux `blkparse` default text output.
    Blkparse,
}

impl TraceFormat {
    /// Every format, in the order detection prefers them.
    pub const ALL: [TraceFormat; 7] = [
        TraceFormat::Msr,
        TraceFormat::Spc,
        TraceFormat::Fiu,
        TraceFormat::Blkparse,
        TraceFormat::Disksim,
        TraceFormat::Mqsim,
        TraceFormat::Ssdsim,
    ];

    /// The lowercase name used by `--format`, configs and reports.
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Msr => "msr",
            TraceFormat::Spc => "spc",
            TraceFormat::Fiu => "fiu",
            TraceFormat::Disksim => "disksim",
            TraceFormat::Ssdsim => "ssdsim",
            TraceFormat::Mqsim => "mqsim",
            TraceFormat::Blkparse => "blkparse",
        }
    }
}

impl TraceFormat {
    /// The field of its lines that names a stream of data, which the reader delivers as
    /// [`crate::IoRequest::stream`] when [`TraceOptions::streams`] asks for it: SPC's
    /// application specific unit, MSR's disk number, FIU's and blkparse's process id,
    /// the device column of DiskSim, SSDsim and MQSim.
    pub fn stream_field(self) -> &'static str {
        match self {
            TraceFormat::Msr => "DiskNumber",
            TraceFormat::Spc => "ASU",
            TraceFormat::Fiu | TraceFormat::Blkparse => "pid",
            TraceFormat::Disksim | TraceFormat::Mqsim => "device",
            TraceFormat::Ssdsim => "dev",
        }
    }
}

impl fmt::Display for TraceFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not one of the accepted values.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} `{found}`; expected one of: {expected}")]
pub struct ParseNameError {
    /// What was being parsed (`trace format`, `size unit`).
    pub what: &'static str,
    /// The text given.
    pub found: String,
    /// The accepted names, comma-separated.
    pub expected: &'static str,
}

impl FromStr for TraceFormat {
    type Err = ParseNameError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TraceFormat::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| ParseNameError {
                what: "trace format",
                found: s.to_string(),
                expected: "msr, spc, fiu, disksim, ssdsim, mqsim, blkparse",
            })
    }
}

/// The unit of a size column whose unit a format leaves open (DiskSim's `size`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SizeUnit {
    /// 512-byte sectors (DiskSim's own convention).
    #[serde(rename = "sectors")]
    Sectors,
    /// Bytes.
    #[serde(rename = "bytes")]
    Bytes,
    /// 4 KiB pages (what the `spc-derived` converter wrote; see `docs/TRACES.md`).
    #[serde(rename = "4k")]
    Pages4K,
}

impl SizeUnit {
    /// Bytes in one unit.
    pub fn bytes(self) -> u64 {
        match self {
            SizeUnit::Sectors => 512,
            SizeUnit::Bytes => 1,
            SizeUnit::Pages4K => 4096,
        }
    }

    /// The name used by options and reports.
    pub fn name(self) -> &'static str {
        match self {
            SizeUnit::Sectors => "sectors",
            SizeUnit::Bytes => "bytes",
            SizeUnit::Pages4K => "4k",
        }
    }
}

impl fmt::Display for SizeUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SizeUnit {
    type Err = ParseNameError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "sectors" | "sector" | "512" => Ok(SizeUnit::Sectors),
            "bytes" | "byte" | "1" => Ok(SizeUnit::Bytes),
            "4k" | "4kib" | "pages" | "4096" => Ok(SizeUnit::Pages4K),
            _ => Err(ParseNameError {
                what: "size unit",
                found: s.to_string(),
                expected: "sectors, bytes, 4k",
            }),
        }
    }
}

/// What the reader does with a trace's discards (blkparse's `D` operation letter, the
/// block layer's `REQ_OP_DISCARD`; the only format here that records them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Discards {
    /// Passed over like any other non-request line (what every reader did before trims
    /// existed, so that replays of existing traces stay as they were).
    #[default]
    Drop,
    /// Delivered as [`crate::Op::Trim`] requests (NVMe Dataset Management, Deallocate).
    Trim,
}

impl Discards {
    /// The name used by `--discards` and reports.
    pub fn name(self) -> &'static str {
        match self {
            Discards::Drop => "drop",
            Discards::Trim => "trim",
        }
    }

    fn is_drop(&self) -> bool {
        *self == Discards::Drop
    }
}

impl fmt::Display for Discards {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Discards {
    type Err = ParseNameError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "drop" => Ok(Discards::Drop),
            "trim" => Ok(Discards::Trim),
            _ => Err(ParseNameError {
                what: "discard handling",
                found: s.to_string(),
                expected: "drop, trim",
            }),
        }
    }
}

/// How to read a trace file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TraceOptions {
    /// The format; `None` detects it from the content.
    pub format: Option<TraceFormat>,
    /// Skip (and count) bad lines instead of stopping at the first one.
    pub skip_bad_lines: bool,
    /// Replay the trace this many times back to back (>= 1).
    pub repeat: u32,
    /// Unit of DiskSim's `size` column; `None` infers it per file from sequential
    /// runs and falls back to sectors (see `docs/TRACES.md`).
    pub disksim_size_unit: Option<SizeUnit>,
    /// The largest request accepted, in bytes; a larger one is a bad line (skipped and
    /// counted with `skip_bad_lines`).
    pub max_request_bytes: u64,
    /// The longest gap kept between two consecutive requests, in ns; a longer gap is cut
    /// to this length (the rest of the trace moves earlier) and counted. `None` keeps
    /// every gap (see [`crate::TimeJumps`] for the warning about jumps).
    pub max_gap_ns: Option<u64>,
    /// Discards: dropped (the default) or kept as trims.
    #[serde(skip_serializing_if = "Discards::is_drop")]
    pub discards: Discards,
    /// Deliver each request's stream field ([`TraceFormat::stream_field`]) as
    /// [`crate::IoRequest::stream`]; off (the default), every request's is `None`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub streams: bool,
    /// The device's logical capacity in bytes, when the caller knows it: a trim that
    /// runs past it is a bad line (named by file and line). Reads and writes are not
    /// checked here (the simulator folds or refuses them, `ftl.address_fold`).
    #[serde(skip)]
    pub device_bytes: Option<u64>,
}

/// The default of [`TraceOptions::max_request_bytes`]: 1 GiB, far above any request a
/// block trace records (block layers split requests at a few MiB) and small enough that
/// one request cannot exhaust memory or time.
pub const DEFAULT_MAX_REQUEST_BYTES: u64 = 1 << 30;

impl Default for TraceOptions {
    fn default() -> Self {
        TraceOptions {
            format: None,
            skip_bad_lines: false,
            repeat: 1,
            disksim_size_unit: None,
            max_request_bytes: DEFAULT_MAX_REQUEST_BYTES,
            max_gap_ns: None,
            discards: Discards::Drop,
            streams: false,
            device_bytes: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_names_round_trip() {
        for f in TraceFormat::ALL {
            assert_eq!(f.to_string().parse::<TraceFormat>().unwrap(), f);
            let json = serde_json::to_string(&f).unwrap();
            assert_eq!(json, format!("\"{}\"", f.name()));
        }
        let err = "csv".parse::<TraceFormat>().unwrap_err();
        assert!(err.to_string().contains("`csv`"), "{err}");
    }

    #[test]
    fn size_units_parse() {
        assert_eq!("4k".parse::<SizeUnit>().unwrap(), SizeUnit::Pages4K);
        assert_eq!("Sectors".parse::<SizeUnit>().unwrap(), SizeUnit::Sectors);
        assert!("kb".parse::<SizeUnit>().is_err());
        assert_eq!(serde_json::to_string(&SizeUnit::Pages4K).unwrap(), "\"4k\"");
    }

    #[test]
    fn discards_parse_and_are_left_out_when_dropped() {
        assert_eq!("TRIM".parse::<Discards>().unwrap(), Discards::Trim);
        assert!("keep".parse::<Discards>().is_err());
        let json = serde_json::to_string(&TraceOptions::default()).unwrap();
        assert!(!json.contains("discards"), "{json}");
        let o: TraceOptions = serde_json::from_str(r#"{"discards": "trim"}"#).unwrap();
        assert_eq!(o.discards, Discards::Trim);
        assert!(serde_json::to_string(&o)
            .unwrap()
            .contains(r#""discards":"trim""#));
    }

    #[test]
    fn options_reject_unknown_keys() {
        let o: TraceOptions = serde_json::from_str(r#"{"repeat": 3}"#).unwrap();
        assert_eq!(o.repeat, 3);
        assert!(!o.skip_bad_lines);
        let e = serde_json::from_str::<TraceOptions>(r#"{"repeats": 3}"#).unwrap_err();
        assert!(e.to_string().contains("repeats"), "{e}");
    }
}
