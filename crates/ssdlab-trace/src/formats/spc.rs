//! UMass / SPC CSV: `ASU,LBA,Size,Opcode,Timestamp`.
//!
//! `LBA` is in 512-byte sectors, `Size` in bytes, `Opcode` `r`/`w` (any case),
//! `Timestamp` in seconds (decimal). Application storage units (ASUs) share no address
//! space, so the ASU goes into the high bits of the address:
//! `offset_bytes = ((ASU << 40) | LBA) × 512`. LBAs must stay below 2^40 sectors
//! (512 TiB) and ASUs below 2^15, so the result fits in 64 bits. Fields after
//! `Timestamp` are ignored.

use super::{op_word, LineResult, Record};
use crate::error::TraceErrorKind;
use crate::lex::{self, Commas};

/// Bits of the sector address below the ASU.
pub const LBA_BITS: u32 = 40;
/// Exclusive upper bound of the ASU so that `((asu << 40) | lba) × 512` fits in `u64`.
pub const ASU_LIMIT: u64 = 1 << (64 - LBA_BITS - 9);

/// Parses one SPC line.
#[inline]
pub(crate) fn parse(line: &[u8]) -> LineResult {
    let mut f = Commas::new(line);
    let asu_raw = f.field("ASU")?;
    let asu = match lex::uint("ASU", asu_raw) {
        Ok(a) => a,
        Err(_) if asu_raw.eq_ignore_ascii_case(b"ASU") => return Ok(None),
        Err(e) => return Err(e),
    };
    let lba_raw = f.field("LBA")?;
    let lba = lex::uint("LBA", lba_raw)?;
    let size_bytes = lex::size("Size", f.field("Size")?)?;
    let op = op_word("Opcode", f.field("Opcode")?)?;
    let time = lex::decimal("Timestamp", f.field("Timestamp")?, 9)?;
    if asu >= ASU_LIMIT {
        return Err(TraceErrorKind::OutOfRange {
            field: "ASU",
            value: lex::lossy(asu_raw),
        });
    }
    if lba >= 1 << LBA_BITS {
        return Err(TraceErrorKind::OutOfRange {
            field: "LBA",
            value: lex::lossy(lba_raw),
        });
    }
    let offset_bytes = ((asu << LBA_BITS) | lba) * 512;
    Ok(Some(Record {
        stream: asu,
        ..Record::plain(time, op, offset_bytes, size_bytes)
    }))
}

#[cfg(test)]
mod tests {
    use crate::formats::testutil::{bad_field, parse_one};
    use crate::{Op, TraceFormat};

    const F: TraceFormat = TraceFormat::Spc;

    #[test]
    fn good_lines() {
        let r = parse_one(F, "0,303567,3584,w,0.000000").unwrap().unwrap();
        assert_eq!(
            (r.time, r.op, r.offset_bytes, r.size_bytes),
            (0, Op::Write, 303_567 * 512, 3584)
        );
        let r = parse_one(F, "2, 55590, 3072, R, 26.214001")
            .unwrap()
            .unwrap();
        assert_eq!(r.time, 26_214_001_000);
        assert_eq!(r.op, Op::Read);
        assert_eq!(r.offset_bytes, ((2u64 << 40) | 55_590) * 512);
        assert_eq!(r.stream, 2, "the ASU is the stream field");
        assert_eq!(parse_one(F, "ASU,LBA,Size,Opcode,Timestamp"), Ok(None));
    }

    #[test]
    fn bad_lines_name_their_field() {
        let cases = [
            ("0,1,512,w", "Timestamp"),
            ("0,1,512", "Opcode"),
            ("0,1x,512,w,0.1", "LBA"),
            ("0,1,512,x,0.1", "Opcode"),
            ("0,1,0,w,0.1", "Size"),
            ("0,1,-512,w,0.1", "Size"),
            ("0,1,512,w,0.1s", "Timestamp"),
            ("32768,1,512,w,0.1", "ASU"),
            ("0,1099511627776,512,w,0.1", "LBA"),
        ];
        for (line, field) in cases {
            assert_eq!(bad_field(F, line).0, field, "{line}");
        }
    }
}
