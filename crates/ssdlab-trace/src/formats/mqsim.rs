//! MQSim ASCII: `time_ns device lba_sectors size_sectors type`, `type` 1 = read,
//! 0 = write.
//!
//! `device` is checked but not used: every request goes to the one simulated device.
//! The format has no flush command and no FUA flag (MQSim's own trace reader knows
//! reads and writes only), so every request is a plain read or write.

use super::{parse_sim_columns, LineResult, SimColumns};

const COLUMNS: SimColumns = SimColumns {
    time_ns: "time_ns",
    device: "device",
    lba_sectors: "lba_sectors",
    size_sectors: "size_sectors",
    op: "type",
};

/// Parses one MQSim line.
#[inline]
pub(crate) fn parse(line: &[u8]) -> LineResult {
    parse_sim_columns(line, &COLUMNS)
}

#[cfg(test)]
mod tests {
    use crate::formats::testutil::{bad_field, parse_one};
    use crate::{Op, TraceErrorKind, TraceFormat};

    const F: TraceFormat = TraceFormat::Mqsim;

    #[test]
    fn good_line() {
        let r = parse_one(F, "938513000 4 264719034 16 0").unwrap().unwrap();
        assert_eq!(
            (r.time, r.op, r.offset_bytes, r.size_bytes),
            (938_513_000, Op::Write, 264_719_034 * 512, 8192)
        );
        assert_eq!(r.stream, 4, "the device is the stream field");
        assert_eq!(parse_one(F, "1 0 0 1 1").unwrap().unwrap().op, Op::Read);
    }

    #[test]
    fn bad_lines_name_their_field() {
        let cases = [
            ("0 0 1 7", "type"),
            ("0 0 1 7 w", "type"),
            ("0 0 1 0 1", "size_sectors"),
            ("0 0 1 -3 1", "size_sectors"),
            ("0 0 1x 7 1", "lba_sectors"),
            ("t 0 1 7 1", "time_ns"),
            ("1 d 1 7 1", "device"),
        ];
        for (line, field) in cases {
            assert_eq!(bad_field(F, line).0, field, "{line}");
        }
        assert!(matches!(
            bad_field(F, "0 0 1 7").1,
            TraceErrorKind::Truncated { .. }
        ));
    }
}
