//! Why a line fits no trace format: the reason behind a failed format detection.
//!
//! Detection classifies lines by shape ([`crate::detect`]). When no sampled line has a
//! known shape, the first record line is read by every format's parser. The closest
//! format is the one whose field count the line comes nearest to (commas for the CSV
//! formats, blanks for the others), and among those the one whose parser got furthest
//! along its fields before it failed; its error says what is wrong with the line
//! (`field `flags`: line is truncated`), so that a trace whose first line is malformed
//! is reported at that line with a reason.

use crate::error::TraceErrorKind;
use crate::formats::Parser;
use crate::lex::{Commas, Words};
use crate::options::{SizeUnit, TraceFormat};

/// How a format splits its lines into fields.
#[derive(Clone, Copy)]
enum Split {
    Commas,
    Blanks,
}

/// Each format: how it splits, the fields of its records in the order its parser reads
/// them (the names its errors use), and whether a record may carry more fields than
/// these. SSDsim has MQSim's columns and is left to it.
const FORMATS: [(TraceFormat, Split, &[&str], bool); 6] = [
    (
        TraceFormat::Msr,
        Split::Commas,
        &[
            "Timestamp",
            "Hostname",
            "DiskNumber",
            "Type",
            "Offset",
            "Size",
            "ResponseTime",
        ],
        false,
    ),
    (
        TraceFormat::Spc,
        Split::Commas,
        &["ASU", "LBA", "Size", "Opcode", "Timestamp"],
        true,
    ),
    (
        TraceFormat::Fiu,
        Split::Blanks,
        &[
            "ts", "pid", "process", "lba", "size", "op", "major", "minor", "md5",
        ],
        true,
    ),
    (
        TraceFormat::Disksim,
        Split::Blanks,
        &["time_ms", "device", "block", "size", "flags"],
        false,
    ),
    (
        TraceFormat::Mqsim,
        Split::Blanks,
        &["time_ns", "device", "lba_sectors", "size_sectors", "type"],
        false,
    ),
    (
        TraceFormat::Blkparse,
        Split::Blanks,
        // `sector + blocks`: the `+` is a field of its own.
        &[
            "device", "cpu", "sequence", "time", "pid", "action", "rwbs", "sector", "+", "blocks",
        ],
        true,
    ),
];

/// The number of fields of `line` when split by `split`.
fn count_fields(line: &[u8], split: Split) -> usize {
    let mut n = 0;
    match split {
        Split::Commas => {
            let mut c = Commas::new(line);
            while c.next().is_some() {
                n += 1;
            }
        }
        Split::Blanks => {
            let mut w = Words::new(line);
            while w.next().is_some() {
                n += 1;
            }
        }
    }
    n
}

/// Why `line` (trimmed, not blank, not a comment) is not a record of a recognised
/// shape: the closest format and its parser's error, or, when some parser accepts the
/// line after all, [`TraceErrorKind::LooseShape`] naming that format.
pub(crate) fn diagnose(line: &[u8]) -> TraceErrorKind {
    let mut best: Option<((usize, usize), TraceFormat, TraceErrorKind)> = None;
    for (format, split, fields, open_ended) in FORMATS {
        let mut parser = Parser::new(format, SizeUnit::Sectors);
        let kind = match parser.parse(line) {
            Ok(Some(_)) => {
                return TraceErrorKind::LooseShape {
                    format: format.name(),
                }
            }
            // A legitimate line that is not a request (a blkparse event other than
            // `D`): not evidence either way.
            Ok(None) => continue,
            Err(kind) => kind,
        };
        let n = count_fields(line, split);
        let missing = fields.len().saturating_sub(n);
        let extra = if open_ended {
            0
        } else {
            n.saturating_sub(fields.len())
        };
        // How far the parser got: the field it failed at, or, for a missing field, the
        // fields present (a parser may look for a later field before an earlier one).
        let at = kind
            .field()
            .and_then(|f| fields.iter().position(|x| *x == f))
            .unwrap_or(0);
        let reached = match kind {
            TraceErrorKind::Truncated { .. } => at.min(n),
            _ => at,
        };
        // Nearest field count first, then furthest reached; ties keep the list order.
        let score = (usize::MAX - (missing + extra), reached);
        if best.as_ref().is_none_or(|(s, _, _)| score > *s) {
            best = Some((score, format, kind));
        }
    }
    match best {
        Some((_, format, kind)) => TraceErrorKind::UnrecognisedLine {
            closest: format.name(),
            reason: Box::new(kind),
        },
        None => TraceErrorKind::UnknownFormat,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn closest(line: &str) -> (&'static str, String) {
        match diagnose(line.as_bytes()) {
            TraceErrorKind::UnrecognisedLine { closest, reason } => (closest, reason.to_string()),
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn a_disksim_line_missing_its_flags_is_read_as_disksim() {
        let (f, why) = closest("12.5 0 100 8");
        assert_eq!(f, "disksim");
        assert!(
            why.contains("`flags`") && why.contains("truncated"),
            "{why}"
        );
    }

    #[test]
    fn an_msr_line_with_a_misspelt_operation_is_read_as_msr() {
        let (f, why) = closest("128166385295514663,hm,0,Wrte,9056014336,2048,2833");
        assert_eq!(f, "msr");
        assert!(why.contains("`Type`") && why.contains("Wrte"), "{why}");
    }

    #[test]
    fn four_integers_are_closest_to_a_five_column_format() {
        let (f, why) = closest("0 0 303567 7");
        assert!(f == "disksim" || f == "mqsim", "{f}");
        assert!(why.contains("truncated"), "{why}");
    }

    #[test]
    fn an_fiu_line_without_its_digest_is_read_as_fiu() {
        let (f, why) = closest("89966522969723 4270 rpc.mountd 18579576 8 W 6 0");
        assert_eq!(f, "fiu");
        assert!(why.contains("md5") || why.contains("truncated"), "{why}");
    }

    #[test]
    fn a_line_some_parser_accepts_is_a_loose_shape() {
        // A numeric host name: the MSR parser reads it, detection does not take it.
        let kind = diagnose(b"128166385295514663,7,0,Write,0,4096,1");
        assert_eq!(kind, TraceErrorKind::LooseShape { format: "msr" });
    }

    #[test]
    fn prose_is_closest_to_some_format_at_its_first_field() {
        let (_, why) = closest("hello world");
        assert!(why.starts_with("field `"), "{why}");
    }
}
