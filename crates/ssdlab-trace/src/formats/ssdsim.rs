//! SSDsim ASCII: `time_ns dev lsn size_sectors ope`, `ope` 1 = read, 0 = write.
//!
//! `lsn` and `size_sectors` are in 512-byte sectors. `dev` is checked but not used, as
//! in SSDsim itself. The format has no flush command and no FUA flag: every request is
//! a plain read or write.

use super::{parse_sim_columns, LineResult, SimColumns};

const COLUMNS: SimColumns = SimColumns {
    time_ns: "time_ns",
    device: "dev",
    lba_sectors: "lsn",
    size_sectors: "size_sectors",
    op: "ope",
};

/// Parses one SSDsim line.
#[inline]
pub(crate) fn parse(line: &[u8]) -> LineResult {
    parse_sim_columns(line, &COLUMNS)
}

#[cfg(test)]
mod tests {
    use crate::formats::testutil::{bad_field, parse_one};
    use crate::{Op, TraceErrorKind, TraceFormat};

    const F: TraceFormat = TraceFormat::Ssdsim;

    #[test]
    fn good_line() {
        let r = parse_one(F, "78643005 1 55596 6 1").unwrap().unwrap();
        assert_eq!(
            (r.time, r.op, r.offset_bytes, r.size_bytes),
            (78_643_005, Op::Read, 55_596 * 512, 3072)
        );
        assert_eq!(r.stream, 1, "the device is the stream field");
        assert_eq!(
            parse_one(F, "0 0 303567 7 0").unwrap().unwrap().op,
            Op::Write
        );
    }

    #[test]
    fn bad_lines_name_their_field() {
        let cases = [
            ("0 0 1 7", "ope"),
            ("0 0 1", "size_sectors"),
            ("0 0 1 7 2", "ope"),
            ("0 0 1 0 1", "size_sectors"),
            ("0 0 1 -7 1", "size_sectors"),
            ("0 x 1 7 1", "dev"),
            ("0 0 1.5 7 1", "lsn"),
            ("0.5 0 1 7 1", "time_ns"),
        ];
        for (line, field) in cases {
            assert_eq!(bad_field(F, line).0, field, "{line}");
        }
        assert!(matches!(
            bad_field(F, "0 0 1 7 2").1,
            TraceErrorKind::UnknownOp { .. }
        ));
    }
}
