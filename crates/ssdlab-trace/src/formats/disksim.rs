//! DiskSim ASCII: `time_ms device block size flags`.
//!
//! `time_ms` is a decimal in milliseconds, `block` in 512-byte sectors, `flags` bit 0
//! set = read. The unit of `size` is not fixed by the traces in circulation: DiskSim
//! itself uses sectors, while the `spc-derived` conversions use 4 KiB pages. The reader
//! takes it from [`crate::TraceOptions::disksim_size_unit`] or infers it per file with
//! [`UnitEvidence`]; see `docs/TRACES.md` for the evidence. `device` is checked but not
//! used: all devices share one address space (as the simulators that read this format
//! for one SSD do).

use super::{sectors_to_bytes, LineResult, Record};
use crate::lex::{self, Words};
use crate::options::SizeUnit;
use crate::request::Op;

/// Parser state: the unit of the `size` column.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DisksimParser {
    unit_bytes: u64,
}

impl DisksimParser {
    pub(crate) fn new(unit: SizeUnit) -> Self {
        DisksimParser {
            unit_bytes: unit.bytes(),
        }
    }

    /// Parses one DiskSim line.
    #[inline]
    pub(crate) fn parse(&self, line: &[u8]) -> LineResult {
        let raw = parse_raw(line)?;
        let offset_bytes = raw.offset_bytes;
        let size_bytes = lex::scale("size", raw.size_raw, raw.size, self.unit_bytes)?;
        Ok(Some(Record {
            stream: raw.device,
            ..Record::plain(raw.time_ns, raw.op, offset_bytes, size_bytes)
        }))
    }
}

/// The fields of one line, with `size` still in its unknown unit.
pub(crate) struct RawLine<'a> {
    pub time_ns: u64,
    pub device: u64,
    pub block: u64,
    pub offset_bytes: u64,
    pub size: u64,
    pub size_raw: &'a [u8],
    pub op: Op,
}

/// Parses the columns of a line, leaving `size` unscaled.
#[inline]
pub(crate) fn parse_raw(line: &[u8]) -> Result<RawLine<'_>, crate::TraceErrorKind> {
    let mut w = Words::new(line);
    let time = w.field("time_ms")?;
    let dev = w.field("device")?;
    let block = w.field("block")?;
    let size_raw = w.field("size")?;
    let flags = w.field("flags")?;
    let time_ns = lex::decimal("time_ms", time, 6)?;
    let device = lex::uint("device", dev)?;
    let offset_bytes = sectors_to_bytes("block", block)?;
    let size = lex::size("size", size_raw)?;
    let flags = lex::uint("flags", flags)?;
    let op = if flags & 1 == 1 { Op::Read } else { Op::Write };
    Ok(RawLine {
        time_ns,
        device,
        block: offset_bytes / 512,
        offset_bytes,
        size,
        size_raw,
        op,
    })
}

/// Records examined when inferring the size unit of a file.
pub(crate) const UNIT_SAMPLE_RECORDS: usize = 10_000;
/// Earlier records a request may continue.
const WINDOW: usize = 16;
/// Least number of continuations for a unit to be believed.
const MIN_HITS: u64 = 32;
/// How many times more continuations the winning unit needs than any other.
const MARGIN: u64 = 4;

/// Evidence for the unit of the `size` column, from sequential runs: a request that
/// starts exactly where one of the last 16 requests ended (`block' = block + size ×
/// unit / 512`) counts for that unit. Real workloads have sequential runs, and under a
/// wrong unit they stop lining up.
#[derive(Clone, Debug, Default)]
pub(crate) struct UnitEvidence {
    recent: [(u64, u64); WINDOW],
    len: usize,
    next: usize,
    /// Continuations under [sectors, bytes, 4 KiB pages].
    pub hits: [u64; 3],
}

impl UnitEvidence {
    /// Adds one record (`block` in sectors, `size` raw). Only the most recent earlier
    /// record that it continues under some unit counts, so that a long run in one unit
    /// does not also line up, several records apart, under a larger unit.
    pub(crate) fn observe(&mut self, block: u64, size: u64) {
        for back in 1..=self.len {
            let (pb, ps) = self.recent[(self.next + WINDOW - back) % WINDOW];
            let matches = [
                pb.wrapping_add(ps) == block,
                ps % 512 == 0 && pb.wrapping_add(ps / 512) == block,
                pb.wrapping_add(ps.wrapping_mul(8)) == block,
            ];
            if matches.contains(&true) {
                for (h, m) in self.hits.iter_mut().zip(matches) {
                    *h += u64::from(m);
                }
                break;
            }
        }
        self.recent[self.next] = (block, size);
        self.next = (self.next + 1) % WINDOW;
        self.len = (self.len + 1).min(WINDOW);
    }

    /// The unit the evidence supports clearly, if any.
    pub(crate) fn decide(&self) -> Option<SizeUnit> {
        const UNITS: [SizeUnit; 3] = [SizeUnit::Sectors, SizeUnit::Bytes, SizeUnit::Pages4K];
        let (best, &top) = self.hits.iter().enumerate().max_by_key(|(_, h)| **h)?;
        let runner_up = self
            .hits
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != best)
            .map(|(_, h)| *h);
        let runner_up = runner_up.max().unwrap_or(0);
        (top >= MIN_HITS && top >= runner_up.saturating_mul(MARGIN)).then_some(UNITS[best])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::testutil::{bad_field, parse_one};
    use crate::formats::Parser;
    use crate::TraceFormat;

    const F: TraceFormat = TraceFormat::Disksim;

    #[test]
    fn good_line_in_each_unit() {
        let line = "26.214000\t0\t303574\t2\t1";
        let r = parse_one(F, line).unwrap().unwrap();
        assert_eq!(
            (r.time, r.op, r.offset_bytes, r.size_bytes),
            (26_214_000, Op::Read, 303_574 * 512, 1024)
        );
        let mut p = Parser::new(F, SizeUnit::Pages4K);
        assert_eq!(p.parse(line.as_bytes()).unwrap().unwrap().size_bytes, 8192);
        let mut p = Parser::new(F, SizeUnit::Bytes);
        assert_eq!(p.parse(line.as_bytes()).unwrap().unwrap().size_bytes, 2);
        assert_eq!(r.stream, 0);
        let r = parse_one(F, "0 5 8 1 2").unwrap().unwrap();
        assert_eq!(r.op, Op::Write);
        assert_eq!(r.stream, 5, "the device is the stream field");
    }

    #[test]
    fn bad_lines_name_their_field() {
        let cases = [
            ("1.0 0 5 1", "flags"),
            ("1.0 0 5", "size"),
            ("1.0x 0 5 1 1", "time_ms"),
            ("1.0 0 5b 1 1", "block"),
            ("1.0 0 5 0 1", "size"),
            ("1.0 0 5 -1 1", "size"),
            ("1.0 0 5 1 r", "flags"),
            ("-1.0 0 5 1 1", "time_ms"),
        ];
        for (line, field) in cases {
            assert_eq!(bad_field(F, line).0, field, "{line}");
        }
    }

    #[test]
    fn evidence_picks_the_unit_of_sequential_runs() {
        // One sequential stream with varying sizes, written in both units.
        let mut pages = UnitEvidence::default();
        let mut sectors = UnitEvidence::default();
        let mut block = 1000;
        for i in 0..200u64 {
            let size_pages = 1 + (i * 7 + i / 3) % 5;
            pages.observe(block, size_pages);
            sectors.observe(block, size_pages * 8);
            block += size_pages * 8;
        }
        assert_eq!(pages.decide(), Some(SizeUnit::Pages4K), "{:?}", pages.hits);
        assert_eq!(
            sectors.decide(),
            Some(SizeUnit::Sectors),
            "{:?}",
            sectors.hits
        );
        let mut random = UnitEvidence::default();
        for i in 0..100u64 {
            random.observe((i * 7919) % 1013 * 64, 3);
        }
        assert_eq!(random.decide(), None);
    }
}
