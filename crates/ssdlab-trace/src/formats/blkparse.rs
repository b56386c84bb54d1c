//! Linux `blkparse` default text output:
//! `maj,min cpu sequence time pid action rwbs sector + blocks [process]`.
//!
//! Each request is counted once, at its `D` (dispatch: issued to the device) event;
//! `Q`, `G`, `I`, `C`, `U`, `M`, `m`, … events describe the same request at other
//! stages or are not requests at all, and are ignored. `D` events whose RWBS holds
//! neither `R` nor `W` (discards, pure flushes) and flushes without data are ignored
//! too. `time` is `seconds.nanoseconds`, `sector` and `blocks` are 512-byte sectors.
//! The per-CPU and total summary that `blkparse` prints at the end (from the first line
//! `CPU<n> (maj,min):` or `Total (maj,min):` on) is not request data and is ignored.
//! Any other line that is not an event line is an error.

use super::{sectors_to_bytes, LineResult, Record};
use crate::error::TraceErrorKind;
use crate::lex::{self, Words};
use crate::request::Op;

/// The action whose events are counted as requests.
pub const COUNTED_ACTION: &[u8] = b"D";

/// Parser state: whether the closing summary has started.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BlkparseParser {
    in_summary: bool,
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
        lex::uint("pid", w.field("pid")?)?;
        let action = w.field("action")?;
        if action != COUNTED_ACTION {
            return Ok(None);
        }
        let rwbs = w.field("rwbs")?;
        let flush = rwbs.contains(&b'F');
        let op = if rwbs.contains(&b'W') {
            Op::Write
        } else if rwbs.contains(&b'R') {
            Op::Read
        } else {
            return Ok(None); // discard, flush or no-data event
        };
        let sector = match w.next() {
            Some(s) if flush && s.first() == Some(&b'[') => return Ok(None),
            Some(s) => s,
            None if flush => return Ok(None),
            None => return Err(TraceErrorKind::Truncated { field: "sector" }),
        };
        let offset_bytes = sectors_to_bytes("sector", sector)?;
        let plus = w.field("blocks")?;
        if plus != b"+" {
            return Err(TraceErrorKind::BadNumber {
                field: "blocks",
                value: lex::lossy(plus),
            });
        }
        let blocks = w.field("blocks")?;
        if flush && blocks == b"0" {
            return Ok(None);
        }
        let size_bytes = lex::scale("blocks", blocks, lex::size("blocks", blocks)?, 512)?;
        Ok(Some(Record {
            time,
            op,
            offset_bytes,
            size_bytes,
            content: None,
        }))
    }
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
            "8,0    3        1     0.000000000   697  D  FWS [jbd2/sda1-8]",
            "8,0    3        1     0.000000000   697  D  FWS 0 + 0 [jbd2/sda1-8]",
            "8,0    3        1     0.000000000   697  D   DS 2048 + 8 [fstrim]",
            "8,0    0        0     0.000000000     0  m   N cfq697 alloced",
        ] {
            assert_eq!(parse_one(F, other), Ok(None), "{other}");
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
