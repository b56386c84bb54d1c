//! FIU SyLab traces: `ts pid process lba size op major minor md5`.
//!
//! `ts` is in nanoseconds, `lba` and `size` in 512-byte sectors (one line per 4 KiB
//! block, so `size` is normally 8), `op` is `R` or `W` (any case), `md5` is the
//! 32-hex-digit MD5 of the block's content. The content seed is the digest's first 8
//! bytes read as a big-endian `u64` (1 if they are all zero). The process name may hold
//! spaces, so the last six fields are taken from the right.

use super::{op_word, sectors_to_bytes, LineResult, Record};
use crate::error::TraceErrorKind;
use crate::lex::{self, Words};

const NAMES: [&str; 9] = [
    "ts", "pid", "process", "lba", "size", "op", "major", "minor", "md5",
];

/// Parses one FIU line.
#[inline]
pub(crate) fn parse(line: &[u8]) -> LineResult {
    let mut w = Words::new(line);
    let mut head: [&[u8]; 3] = [&[]; 3];
    for (i, slot) in head.iter_mut().enumerate() {
        *slot = w.field(NAMES[i])?;
    }
    // The last six fields, kept in a ring while the process name may go on.
    let mut tail: [&[u8]; 6] = [&[]; 6];
    let mut n = 0usize;
    while let Some(f) = w.next() {
        tail[n % 6] = f;
        n += 1;
    }
    if n < 6 {
        return Err(TraceErrorKind::Truncated {
            field: NAMES[3 + n],
        });
    }
    let at = |i: usize| tail[(n - 6 + i) % 6];
    let time = lex::uint("ts", head[0])?;
    lex::uint("pid", head[1])?;
    let offset_bytes = sectors_to_bytes("lba", at(0))?;
    let size_raw = at(1);
    let size_bytes = lex::scale("size", size_raw, lex::size("size", size_raw)?, 512)?;
    let op = op_word("op", at(2))?;
    lex::uint("major", at(3))?;
    lex::uint("minor", at(4))?;
    let content = Some(content_seed(at(5))?);
    Ok(Some(Record {
        time,
        op,
        offset_bytes,
        size_bytes,
        content,
    }))
}

/// The content seed of a 32-hex-digit MD5: its first 8 bytes, big-endian, never 0.
pub(crate) fn content_seed(md5: &[u8]) -> Result<u64, TraceErrorKind> {
    let bad = || TraceErrorKind::BadDigest {
        field: "md5",
        value: lex::lossy(md5),
    };
    if md5.len() != 32 || !md5.iter().all(u8::is_ascii_hexdigit) {
        return Err(bad());
    }
    let mut v: u64 = 0;
    for &c in &md5[..16] {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => c - b'A' + 10,
        };
        v = (v << 4) | u64::from(d);
    }
    Ok(v.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::testutil::{bad_field, parse_one};
    use crate::{Op, TraceFormat};

    const F: TraceFormat = TraceFormat::Fiu;
    const GOOD: &str =
        "89966522969723 4270 rpc.mountd 18579576 8 W 6 0 d6c75ba46e82326fefa545b57a12e221";

    #[test]
    fn good_line() {
        let r = parse_one(F, GOOD).unwrap().unwrap();
        assert_eq!(r.time, 89_966_522_969_723);
        assert_eq!(r.op, Op::Write);
        assert_eq!(r.offset_bytes, 18_579_576 * 512);
        assert_eq!(r.size_bytes, 4096);
        assert_eq!(r.content, Some(0xd6c7_5ba4_6e82_326f));
    }

    #[test]
    fn process_names_with_spaces() {
        let line = "5 1 kworker u8 2 100 8 r 6 0 D6C75BA46E82326FEFA545B57A12E221";
        let r = parse_one(F, line).unwrap().unwrap();
        assert_eq!(r.op, Op::Read);
        assert_eq!(r.offset_bytes, 100 * 512);
        assert_eq!(r.content, Some(0xd6c7_5ba4_6e82_326f));
    }

    #[test]
    fn zero_digest_prefix_becomes_one() {
        assert_eq!(content_seed(b"0000000000000000fefa545b57a12e22"), Ok(1));
    }

    #[test]
    fn bad_lines_name_their_field() {
        let cases = [
            ("1 2 p 3 8 W 6 0", "md5"),
            ("1 2 p 3 8", "op"),
            ("1 2", "process"),
            ("1x 2 p 3 8 W 6 0 d6c75ba46e82326fefa545b57a12e221", "ts"),
            ("1 2 p 3 0 W 6 0 d6c75ba46e82326fefa545b57a12e221", "size"),
            ("1 2 p 3 -8 W 6 0 d6c75ba46e82326fefa545b57a12e221", "size"),
            ("1 2 p 3 8 X 6 0 d6c75ba46e82326fefa545b57a12e221", "op"),
            ("1 2 p 3 8 W 6 0 d6c75ba46e82326fefa545b57a12e22", "md5"),
            ("1 2 p 3 8 W 6 0 z6c75ba46e82326fefa545b57a12e221", "md5"),
            ("1 2 p q 8 W 6 0 d6c75ba46e82326fefa545b57a12e221", "lba"),
        ];
        for (line, field) in cases {
            assert_eq!(bad_field(F, line).0, field, "{line}");
        }
    }
}
