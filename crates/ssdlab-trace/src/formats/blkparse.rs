//! Linux `blkparse` default text output:
//! `maj,min cpu sequence time pid action rwbs sector + blocks [process]`.
//!
//! Each request is counted once, at its `D` (dispatch: issued to the device) event;
//! `Q`, `G`, `I`, `C`, `U`, `M`, `m`, … events describe the same request at other
//! stages or are not requests at all, and are ignored. `time` is
//! `seconds.nanoseconds`, `sector` and `blocks` are 512-byte sectors.
//!
//! RWBS is read as blkparse writes it (its `fill_rwbs`, which follows the kernel's
//! `blk_fill_rwbs`): an optional leading `F` (preflush: a flush before the request),
//! one operation letter (`W` write, `R` read, `D` discard, `N` no data), then flags, of
//! which `F` (FUA) counts and `A`, `S`, `M`, … do not. So:
//!
//! - `W…` → a write, `R…` → a read (`RA`, `RS`, `WS`, `WM`, …);
//! - `WF…` → a FUA write; on a read, FUA is dropped (there is nothing to make durable);
//! - `F` before the letter, with data (`FWS 1234 + 8`) → a flush, then the request, at
//!   the same time (`FWFS` → a flush, then a FUA write);
//! - `F` before the letter without data (no sector, `[process]` in its place, or
//!   `+ 0`), and `FN` → a flush command; so are `F` and `FF`, the kernel's own letter of
//!   a flush operation;
//! - `D…` (discards) → ignored by default (`--discards drop`, what every replay did
//!   before trims existed); with `--discards trim` a trim of `sector + blocks` (a
//!   preflush before it gives a flush first; FUA means nothing on a discard and is
//!   dropped). A kept discard of 0 blocks, or without a sector, is an error naming
//!   `blocks` or `sector`;
//! - `N` without a preflush → not a request, ignored; a FUA write without data →
//!   ignored (nothing to force).
//!
//! Any other operation letter is an error naming `rwbs`. The per-CPU and total summary
//! that `blkparse` prints at the end (from the first line `CPU<n> (maj,min):` or
//! `Total (maj,min):` on) is not request data and is ignored. Any other line that is not
//! an event line is an error.

use super::{sectors_to_bytes, LineResult, Record};
use crate::error::TraceErrorKind;
use crate::lex::{self, Words};
use crate::request::Op;

/// The action whose events are counted as requests.
pub const COUNTED_ACTION: &[u8] = b"D";

/// Parser state: whether the closing summary has started, and whether discards are
/// kept as trims.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BlkparseParser {
    in_summary: bool,
    pub(crate) keep_discards: bool,
}

/// `maj,min`: two integers joined by a comma.
pub(crate) fn is_device(b: &[u8]) -> bool {
    match b.iter().position(|c| *c == b',') {
        Some(i) => {
            let (maj, min) = (&b[..i], &b[i + 1..]);
            !maj.is_empty()
                && !min.is_empty()
                && maj.iter().all(u8::is_ascii_digit)
                && min.iter().all(u8::is_ascii_digit)
        }
        None => false,
    }
}

/// `true` for the first line of blkparse's closing summary.
pub(crate) fn is_summary_start(line: &[u8]) -> bool {
    let mut w = Words::new(line);
    let (Some(first), Some(second)) = (w.next(), w.next()) else {
        return false;
    };
    let cpu = first.len() > 3 && first[..3] == *b"CPU" && first[3..].iter().all(u8::is_ascii_digit);
    let opens = (cpu || first == b"Total") && second.first() == Some(&b'(');
    opens && second.ends_with(b"):") && is_device(&second[1..second.len() - 2])
}

impl BlkparseParser {
    /// Parses one blkparse line.
    #[inline]
    pub(crate) fn parse(&mut self, line: &[u8]) -> LineResult {
        if self.in_summary {
            return Ok(None);
        }
        let mut w = Words::new(line);
        let dev = w.field("device")?;
        if !is_device(dev) {
            if is_summary_start(line) {
                self.in_summary = true;
                return Ok(None);
            }
            return Err(TraceErrorKind::BadNumber {
                field: "device",
                value: lex::lossy(dev),
            });
        }
        lex::uint("cpu", w.field("cpu")?)?;
        lex::uint("sequence", w.field("sequence")?)?;
        let time = lex::decimal("time", w.field("time")?, 9)?;
        let pid = lex::uint("pid", w.field("pid")?)?;
        let action = w.field("action")?;
        if action != COUNTED_ACTION {
            return Ok(None);
        }
        let (op, preflush, fua) = match rwbs(w.field("rwbs")?)? {
            Rwbs::Ignored => return Ok(None),
            Rwbs::Discard { .. } if !self.keep_discards => return Ok(None),
            Rwbs::Discard { preflush } => return discard(&mut w, time, preflush, pid),
            Rwbs::Flush => return Ok(Some(Record::flush(time))),
            Rwbs::Data { op, preflush, fua } => (op, preflush, fua),
        };
        // A flag on an event without data: a flush command for a preflush, nothing for
        // FUA alone.
        let flagged = preflush || fua;
        let no_data = || Ok(preflush.then(|| Record::flush(time)));
        let sector = match w.next() {
            Some(s) if flagged && s.first() == Some(&b'[') => return no_data(),
            Some(s) => s,
            None if flagged => return no_data(),
            None => return Err(TraceErrorKind::Truncated { field: "sector" }),
        };
        let offset_bytes = sectors_to_bytes("sector", sector)?;
        let blocks = blocks_after_plus(&mut w)?;
        if flagged && blocks == b"0" {
            return no_data();
        }
        let size_bytes = lex::scale("blocks", blocks, lex::size("blocks", blocks)?, 512)?;
        Ok(Some(Record {
            fua,
            preflush,
            stream: pid,
            ..Record::plain(time, op, offset_bytes, size_bytes)
        }))
    }
}

/// The trim of a kept discard event at `time`, from its `sector + blocks` (every one
/// required, the size positive).
#[cold]
fn discard(w: &mut Words<'_>, time: u64, preflush: bool, pid: u64) -> LineResult {
    let offset_bytes = sectors_to_bytes("sector", w.field("sector")?)?;
    let blocks = blocks_after_plus(w)?;
    let size_bytes = lex::scale("blocks", blocks, lex::size("blocks", blocks)?, 512)?;
    Ok(Some(Record {
        preflush,
        stream: pid,
        ..Record::plain(time, Op::Trim, offset_bytes, size_bytes)
    }))
}

/// The `blocks` word of `sector + blocks`, after its `+` (anything else there is a bad
/// `blocks` field).
fn blocks_after_plus<'a>(w: &mut Words<'a>) -> Result<&'a [u8], TraceErrorKind> {
    let plus = w.field("blocks")?;
    if plus != b"+" {
        return Err(TraceErrorKind::BadNumber {
            field: "blocks",
            value: lex::lossy(plus),
        });
    }
    w.field("blocks")
}

/// What an RWBS field asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rwbs {
    /// No data without a preflush: not a request.
    Ignored,
    /// A discard (kept as a trim or ignored, as the reader is told), with a flush
    /// before it or not.
    Discard { preflush: bool },
    /// A flush command.
    Flush,
    /// A read or a write, with a flush before it or FUA (writes only).
    Data { op: Op, preflush: bool, fua: bool },
}

/// Reads an RWBS field (see the module comment).
fn rwbs(raw: &[u8]) -> Result<Rwbs, TraceErrorKind> {
    let (preflush, rest) = match raw {
        [b'F', rest @ ..] => (true, rest),
        _ => (false, raw),
    };
    let Some((&letter, flags)) = rest.split_first() else {
        return Ok(Rwbs::Flush); // `F`: the kernel's letter of a flush operation
    };
    let op = match letter {
        b'W' => Op::Write,
        b'R' => Op::Read,
        b'F' => return Ok(Rwbs::Flush),
        b'N' if preflush => return Ok(Rwbs::Flush),
        b'N' => return Ok(Rwbs::Ignored),
        b'D' => return Ok(Rwbs::Discard { preflush }),
        _ => {
            return Err(TraceErrorKind::UnknownOp {
                field: "rwbs",
                value: lex::lossy(raw),
            })
        }
    };
    let fua = op == Op::Write && flags.contains(&b'F');
    Ok(Rwbs::Data { op, preflush, fua })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::testutil::{bad_field, parse_one};
    use crate::formats::Parser;
    use crate::{SizeUnit, TraceFormat};

    const F: TraceFormat = TraceFormat::Blkparse;

    #[test]
    fn counts_dispatches_only() {
        let d = "259,2    0        5     0.000005462  4020  D  RS 282624 + 8 [java]";
        let r = parse_one(F, d).unwrap().unwrap();
        assert_eq!(
            (r.time, r.op, r.offset_bytes, r.size_bytes),
            (5_462, Op::Read, 282_624 * 512, 4096)
        );
        assert_eq!(r.stream, 4020, "the pid is the stream field");
        let w = "  8,16   2       10     1.002328218  3626  D  WSM 4811688 + 256 [java]";
        let r = parse_one(F, w).unwrap().unwrap();
        assert_eq!(
            (r.time, r.op, r.size_bytes),
            (1_002_328_218, Op::Write, 131_072)
        );
        for other in [
            "259,2    0        1     0.000000000  4020  Q   R 282624 + 8 [java]",
            "259,2    0        6     0.013163464     0  C  RS 282624 + 8 [0]",
            "259,2    0        3     0.000003650  4020  U   N [java] 1",
            "8,0    3        1     0.000000000   697  D   DS 2048 + 8 [fstrim]",
            "8,0    3        1     0.000000000   697  D    N [scsi_id]",
            "8,0    0        0     0.000000000     0  m   N cfq697 alloced",
        ] {
            assert_eq!(parse_one(F, other), Ok(None), "{other}");
        }
        // A dispatched flush without data is a flush command, not an ignored line.
        for flush in [
            "8,0    3        1     0.000000000   697  D  FWS [jbd2/sda1-8]",
            "8,0    3        1     0.000000000   697  D  FWS 0 + 0 [jbd2/sda1-8]",
        ] {
            assert_eq!(parse_one(F, flush), Ok(Some(Record::flush(0))), "{flush}");
        }
    }

    /// The request, FUA and preflush of the `D` event with `rwbs` at sector 1234, 8
    /// sectors, at 2 s.
    fn event(rwbs: &str, data: &str) -> LineResult {
        parse_one(
            F,
            &format!("8,0 1 7 2.000000000 697 D {rwbs} {data} [kworker]"),
        )
    }

    fn data(op: Op, preflush: bool, fua: bool) -> Option<Record> {
        Some(Record {
            preflush,
            fua,
            stream: 697,
            ..Record::plain(2_000_000_000, op, 1234 * 512, 4096)
        })
    }

    #[test]
    fn a_leading_f_is_a_flush_before_the_request() {
        let flush = Ok(Some(Record::flush(2_000_000_000)));
        // Without data: the flush alone, whatever follows the F.
        for (rwbs, rest) in [
            ("FWS", "0 + 0"),
            ("FWS", ""),
            ("FN", ""),
            ("FN", "0 + 0"),
            ("FWFS", "0 + 0"),
            ("FR", "0 + 0"),
            ("F", ""),
            ("FF", ""),
        ] {
            assert_eq!(event(rwbs, rest), flush, "{rwbs} {rest}");
        }
        // With data: a flush, then the request.
        assert_eq!(event("FWS", "1234 + 8"), Ok(data(Op::Write, true, false)));
        assert_eq!(event("FW", "1234 + 8"), Ok(data(Op::Write, true, false)));
        assert_eq!(event("FWFS", "1234 + 8"), Ok(data(Op::Write, true, true)));
    }

    #[test]
    fn an_f_after_the_operation_letter_is_fua() {
        assert_eq!(event("WFS", "1234 + 8"), Ok(data(Op::Write, false, true)));
        assert_eq!(event("WF", "1234 + 8"), Ok(data(Op::Write, false, true)));
        assert_eq!(event("WFSM", "1234 + 8"), Ok(data(Op::Write, false, true)));
        // Plain writes and reads carry neither flag.
        for (rwbs, op) in [
            ("W", Op::Write),
            ("WS", Op::Write),
            ("WSM", Op::Write),
            ("R", Op::Read),
            ("RA", Op::Read),
            ("RS", Op::Read),
            ("RM", Op::Read),
        ] {
            assert_eq!(
                event(rwbs, "1234 + 8"),
                Ok(data(op, false, false)),
                "{rwbs}"
            );
        }
        // FUA on a read has nothing to make durable; a FUA write without data forces
        // nothing.
        assert_eq!(event("RF", "1234 + 8"), Ok(data(Op::Read, false, false)));
        assert_eq!(event("WFS", "0 + 0"), Ok(None));
        assert_eq!(event("WFS", ""), Ok(None));
    }

    #[test]
    fn discards_stay_ignored_and_unknown_letters_are_errors() {
        for rwbs in ["D", "DS", "DE", "N"] {
            assert_eq!(event(rwbs, "1234 + 8"), Ok(None), "{rwbs}");
        }
        let (field, kind) = bad_field(F, "8,0 1 7 2.0 697 D XS 1234 + 8");
        assert_eq!(field, "rwbs");
        assert_eq!(
            kind,
            TraceErrorKind::UnknownOp {
                field: "rwbs",
                value: "XS".into()
            }
        );
        // Without a flag, an event without data is as bad as before.
        assert_eq!(bad_field(F, "8,0 1 7 2.0 697 D WS").0, "sector");
        assert_eq!(bad_field(F, "8,0 1 7 2.0 697 D WS 0 + 0").0, "blocks");
        assert_eq!(bad_field(F, "8,0 1 7 2.0 697 D WS [kworker]").0, "sector");
    }

    /// A parser that keeps discards as trims.
    fn keeping() -> Parser {
        let mut p = Parser::new(F, SizeUnit::Sectors);
        p.keep_discards();
        p
    }

    #[test]
    fn kept_discards_are_trims() {
        let mut p = keeping();
        let line = "8,0 3 1 0.000001000 697 D DS 2048 + 16 [fstrim]";
        let r = p.parse(line.as_bytes()).unwrap().unwrap();
        assert_eq!(
            (
                r.time,
                r.op,
                r.offset_bytes,
                r.size_bytes,
                r.fua,
                r.preflush
            ),
            (1_000, Op::Trim, 2048 * 512, 8192, false, false)
        );
        for (rwbs, preflush) in [("D", false), ("DE", false), ("DSF", false), ("FDS", true)] {
            let l = format!("8,0 3 1 0.5 697 D {rwbs} 8 + 8 [fstrim]");
            let r = p.parse(l.as_bytes()).unwrap().unwrap();
            assert_eq!(
                (r.op, r.preflush, r.fua),
                (Op::Trim, preflush, false),
                "{rwbs}"
            );
        }
        // Other events of a discard are not counted; reads and writes are as before.
        assert_eq!(p.parse(b"8,0 3 1 0.5 697 Q DS 8 + 8 [fstrim]"), Ok(None));
        assert_eq!(p.parse(b"8,0 3 1 0.5 697 C DS 8 + 8 [0]"), Ok(None));
        let w = p.parse(b"8,0 3 1 0.5 697 D WS 8 + 8 [x]").unwrap().unwrap();
        assert_eq!(w.op, Op::Write);
    }

    #[test]
    fn bad_kept_discards_name_their_field() {
        for (line, field) in [
            ("8,0 3 1 0.5 697 D DS 2048 + 0 [fstrim]", "blocks"),
            ("8,0 3 1 0.5 697 D DS 2048 + -8 [fstrim]", "blocks"),
            ("8,0 3 1 0.5 697 D DS [fstrim]", "sector"),
            ("8,0 3 1 0.5 697 D DS", "sector"),
            ("8,0 3 1 0.5 697 D DS 2048 +", "blocks"),
        ] {
            let kind = keeping().parse(line.as_bytes()).expect_err(line);
            assert_eq!(kind.field(), Some(field), "{line}: {kind}");
        }
        // Dropped, the same lines are passed over as before.
        for line in [
            "8,0 3 1 0.5 697 D DS 2048 + 0 [fstrim]",
            "8,0 3 1 0.5 697 D DS",
        ] {
            assert_eq!(parse_one(F, line), Ok(None), "{line}");
        }
    }

    #[test]
    fn summary_is_ignored_to_the_end() {
        let mut p = Parser::new(F, SizeUnit::Sectors);
        assert_eq!(p.parse(b"CPU0 (8,16):"), Ok(None));
        assert_eq!(p.parse(b"Reads Queued:           0,        0KiB"), Ok(None));
        assert_eq!(p.parse(b"Total (8,16):"), Ok(None));
        assert_eq!(p.parse(b"Throughput (R/W): 0KiB/s / 0KiB/s"), Ok(None));
        let mut fresh = Parser::new(F, SizeUnit::Sectors);
        assert_eq!(fresh.parse(b"Total (8,16):"), Ok(None));
        assert!(is_summary_start(b"CPU12 (259,2):"));
        assert!(!is_summary_start(b"CPU (8,16):"));
    }

    #[test]
    fn bad_lines_name_their_field() {
        let cases = [
            ("Reads Queued: 0, 0KiB", "device"),
            ("8,16 2 10 1.0 3626 D R 48x + 256 [java]", "sector"),
            ("8,16 2 10 1.0 3626 D R 48 + 0 [java]", "blocks"),
            ("8,16 2 10 1.0 3626 D R 48 + -8 [java]", "blocks"),
            ("8,16 2 10 1.0 3626 D R 48 +", "blocks"),
            ("8,16 2 10 1.0 3626 D R 48 - 8", "blocks"),
            ("8,16 2 10 1.0 3626 D R", "sector"),
            ("8,16 2 10 1.0 3626", "action"),
            ("8,16 2 10 x1.0 3626 D R 48 + 8", "time"),
            ("8,16 c 10 1.0 3626 D R 48 + 8", "cpu"),
        ];
        for (line, field) in cases {
            assert_eq!(bad_field(F, line).0, field, "{line}");
        }
    }
}
