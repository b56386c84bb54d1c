//! MSR Cambridge CSV: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
//!
//! `Timestamp` is a Windows filetime (100 ns ticks since 1601); `Offset` and `Size` are
//! bytes; `Type` is `Read` or `Write` (any case). A header line naming the columns is
//! ignored.

use super::{op_word, LineResult, Record};
use crate::error::TraceErrorKind;
use crate::lex::{self, Commas};

/// Nanoseconds per filetime tick.
pub(crate) const NS_PER_TICK: u64 = 100;

/// Parses one MSR line.
#[inline]
pub(crate) fn parse(line: &[u8]) -> LineResult {
    let mut f = Commas::new(line);
    let ts = f.field("Timestamp")?;
    let time = match lex::uint("Timestamp", ts) {
        Ok(t) => t,
        Err(_) if ts.eq_ignore_ascii_case(b"Timestamp") => return Ok(None),
        Err(e) => return Err(e),
    };
    let _host = f.field("Hostname")?;
    let disk = lex::uint("DiskNumber", f.field("DiskNumber")?)?;
    let op = op_word("Type", f.field("Type")?)?;
    let offset_bytes = lex::uint("Offset", f.field("Offset")?)?;
    let size_bytes = lex::size("Size", f.field("Size")?)?;
    lex::uint("ResponseTime", f.field("ResponseTime")?)?;
    if offset_bytes.checked_add(size_bytes).is_none() {
        return Err(TraceErrorKind::OutOfRange {
            field: "Offset",
            value: offset_bytes.to_string(),
        });
    }
    Ok(Some(Record {
        stream: disk,
        ..Record::plain(time, op, offset_bytes, size_bytes)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::testutil::{bad_field, parse_one};
    use crate::{Op, TraceFormat};

    const F: TraceFormat = TraceFormat::Msr;

    #[test]
    fn good_line() {
        let r = parse_one(F, "128166385295514663,hm,0,Write,9056014336,2048,2833")
            .unwrap()
            .unwrap();
        assert_eq!(r.time, 128_166_385_295_514_663);
        assert_eq!(r.op, Op::Write);
        assert_eq!(r.offset_bytes, 9_056_014_336);
        assert_eq!(r.size_bytes, 2048);
        assert_eq!(r.content, None);
        assert_eq!(r.stream, 0);
        let r = parse_one(F, "1,hm,3,READ,0,512,1").unwrap().unwrap();
        assert_eq!(r.op, Op::Read);
        assert_eq!(r.stream, 3, "the disk number is the stream field");
    }

    #[test]
    fn header_is_ignored() {
        let h = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime";
        assert_eq!(parse_one(F, h), Ok(None));
    }

    #[test]
    fn bad_lines_name_their_field() {
        let cases = [
            ("1,hm,0,Write,4096", "Size"),
            ("1,hm,0,Write,4096,512", "ResponseTime"),
            ("1,hm,0,Write,4096,12a,5", "Size"),
            ("x1,hm,0,Write,4096,512,5", "Timestamp"),
            ("1,hm,z,Write,4096,512,5", "DiskNumber"),
            ("1,hm,0,Trim,4096,512,5", "Type"),
            ("1,hm,0,Write,-4096,512,5", "Offset"),
            ("1,hm,0,Write,4096,0,5", "Size"),
            ("1,hm,0,Write,4096,-512,5", "Size"),
        ];
        for (line, field) in cases {
            assert_eq!(bad_field(F, line).0, field, "{line}");
        }
        assert!(matches!(
            bad_field(F, "1,hm,0,Write,4096,0,5").1,
            TraceErrorKind::BadSize { .. }
        ));
        assert!(matches!(
            bad_field(F, "1,hm,0,Trim,4096,1,5").1,
            TraceErrorKind::UnknownOp { .. }
        ));
        assert!(matches!(
            bad_field(F, "1,hm,0,Write").1,
            TraceErrorKind::Truncated { .. }
        ));
    }
}
