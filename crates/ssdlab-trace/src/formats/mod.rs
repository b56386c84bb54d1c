//! One parser per trace format. A parser turns one trimmed, non-blank, non-comment
//! line into a [`Record`], or `None` for a legitimate non-request line, or the kind of
//! error with the name of the field at fault.

pub(crate) mod blkparse;
pub(crate) mod disksim;
pub(crate) mod fiu;
pub(crate) mod mqsim;
pub(crate) mod msr;
pub(crate) mod spc;
pub(crate) mod ssdsim;

use crate::error::TraceErrorKind;
use crate::lex::{self, FieldResult, Words};
use crate::options::{SizeUnit, TraceFormat};
use crate::request::{Content, Op};

/// One request as read from its line, before its time is rebased.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Record {
    /// Timestamp in the format's tick (see [`Parser::ns_per_tick`]), absolute.
    pub time: u64,
    pub op: Op,
    pub offset_bytes: u64,
    pub size_bytes: u64,
    pub content: Option<Content>,
    /// A write that must be durable before it completes (FUA).
    pub fua: bool,
    /// A flush comes before the request, at the same time: the reader delivers a flush
    /// command, then the request (blkparse's preflush).
    pub preflush: bool,
    /// The line's stream field ([`TraceFormat::stream_field`]: SPC's ASU, MSR's disk
    /// number, FIU's and blkparse's pid, the device column of DiskSim, SSDsim and
    /// MQSim); 0 for a request without one (a blkparse flush command).
    pub stream: u64,
}

impl Record {
    /// A read, write or trim without content, FUA or preflush.
    #[inline]
    pub(crate) fn plain(time: u64, op: Op, offset_bytes: u64, size_bytes: u64) -> Record {
        Record {
            time,
            op,
            offset_bytes,
            size_bytes,
            content: None,
            fua: false,
            preflush: false,
            stream: 0,
        }
    }

    /// A flush command at `time`.
    pub(crate) fn flush(time: u64) -> Record {
        Record::plain(time, Op::Flush, 0, 0)
    }
}

/// What one line holds.
pub(crate) type LineResult = Result<Option<Record>, TraceErrorKind>;

/// A parser for one format, with the little state some formats need.
#[derive(Clone, Debug)]
pub(crate) enum Parser {
    Msr,
    Spc,
    Fiu,
    Disksim(disksim::DisksimParser),
    Ssdsim,
    Mqsim,
    Blkparse(blkparse::BlkparseParser),
}

impl Parser {
    /// A fresh parser for `format`; `size_unit` is used by DiskSim only.
    pub(crate) fn new(format: TraceFormat, size_unit: SizeUnit) -> Self {
        match format {
            TraceFormat::Msr => Parser::Msr,
            TraceFormat::Spc => Parser::Spc,
            TraceFormat::Fiu => Parser::Fiu,
            TraceFormat::Disksim => Parser::Disksim(disksim::DisksimParser::new(size_unit)),
            TraceFormat::Ssdsim => Parser::Ssdsim,
            TraceFormat::Mqsim => Parser::Mqsim,
            TraceFormat::Blkparse => Parser::Blkparse(blkparse::BlkparseParser::default()),
        }
    }

    /// Keeps discards as trims (blkparse; other formats record none).
    pub(crate) fn keep_discards(&mut self) {
        if let Parser::Blkparse(p) = self {
            p.keep_discards = true;
        }
    }

    /// The name of the address field, for error messages about a request's range.
    pub(crate) fn address_field(&self) -> &'static str {
        match self {
            Parser::Blkparse(_) => "sector",
            _ => "offset",
        }
    }

    /// The name of the timestamp field, for error messages.
    pub(crate) fn time_field(&self) -> &'static str {
        match self {
            Parser::Msr | Parser::Spc => "Timestamp",
            Parser::Fiu => "ts",
            Parser::Disksim(_) => "time_ms",
            Parser::Ssdsim | Parser::Mqsim => "time_ns",
            Parser::Blkparse(_) => "time",
        }
    }

    /// Nanoseconds per unit of [`Record::time`].
    pub(crate) fn ns_per_tick(&self) -> u64 {
        match self {
            Parser::Msr => msr::NS_PER_TICK,
            _ => 1,
        }
    }

    /// Parses one trimmed, non-empty line.
    #[inline]
    pub(crate) fn parse(&mut self, line: &[u8]) -> LineResult {
        match self {
            Parser::Msr => msr::parse(line),
            Parser::Spc => spc::parse(line),
            Parser::Fiu => fiu::parse(line),
            Parser::Disksim(p) => p.parse(line),
            Parser::Ssdsim => ssdsim::parse(line),
            Parser::Mqsim => mqsim::parse(line),
            Parser::Blkparse(p) => p.parse(line),
        }
    }
}

/// Names of the five columns of the integer simulator formats (SSDsim, MQSim).
pub(crate) struct SimColumns {
    pub time_ns: &'static str,
    pub device: &'static str,
    pub lba_sectors: &'static str,
    pub size_sectors: &'static str,
    pub op: &'static str,
}

/// `time_ns device lba_sectors size_sectors op` with op 1 = read, 0 = write.
#[inline]
pub(crate) fn parse_sim_columns(line: &[u8], c: &SimColumns) -> LineResult {
    let mut w = Words::new(line);
    let time = w.field(c.time_ns)?;
    let dev = w.field(c.device)?;
    let lba = w.field(c.lba_sectors)?;
    let size = w.field(c.size_sectors)?;
    let op = w.field(c.op)?;
    let time = lex::uint(c.time_ns, time)?;
    let stream = lex::uint(c.device, dev)?;
    let offset_bytes = sectors_to_bytes(c.lba_sectors, lba)?;
    let size_bytes = lex::scale(c.size_sectors, size, lex::size(c.size_sectors, size)?, 512)?;
    let op = match op {
        b"1" => Op::Read,
        b"0" => Op::Write,
        _ => {
            return Err(TraceErrorKind::UnknownOp {
                field: c.op,
                value: lex::lossy(op),
            })
        }
    };
    Ok(Some(Record {
        stream,
        ..Record::plain(time, op, offset_bytes, size_bytes)
    }))
}

/// A sector-address field converted to bytes.
#[inline]
pub(crate) fn sectors_to_bytes(name: &'static str, raw: &[u8]) -> FieldResult<u64> {
    lex::scale(name, raw, lex::uint(name, raw)?, 512)
}

/// A textual read/write flag (`r`, `w`, `read`, `write`, any case).
#[inline]
pub(crate) fn op_word(name: &'static str, raw: &[u8]) -> FieldResult<Op> {
    if raw.eq_ignore_ascii_case(b"r") || raw.eq_ignore_ascii_case(b"read") {
        Ok(Op::Read)
    } else if raw.eq_ignore_ascii_case(b"w") || raw.eq_ignore_ascii_case(b"write") {
        Ok(Op::Write)
    } else {
        Err(TraceErrorKind::UnknownOp {
            field: name,
            value: lex::lossy(raw),
        })
    }
}

#[cfg(test)]
pub(crate) mod testutil {
    use super::*;

    /// Parses one line with a fresh parser for `format` (sectors for DiskSim).
    pub(crate) fn parse_one(format: TraceFormat, line: &str) -> LineResult {
        Parser::new(format, SizeUnit::Sectors).parse(line.as_bytes())
    }

    /// The field named by the error of a bad line.
    pub(crate) fn bad_field(format: TraceFormat, line: &str) -> (&'static str, TraceErrorKind) {
        let kind = parse_one(format, line).expect_err(line);
        let err = crate::TraceError::new(std::path::Path::new("t"), 1, kind.clone());
        (err.field().expect("error names a field"), kind)
    }
}
