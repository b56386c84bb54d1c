//! FIU SyLab traces: `ts pid process lba size op major minor md5`.
//!
//! `ts` is in nanoseconds, `lba` and `size` in 512-byte sectors, `op` is `R` or `W` (any
//! case). The last field holds one or more 32-hex-digit MD5 digests, concatenated:
//!
//! * one digest: the content seed of the request ([`Content::Seed`]); the canonical
//!   layout (mail, web-vm) has one line per 4 KiB block, so `size` is 8;
//! * one digest per 4 KiB page the request covers (a multi-page line of that layout):
//!   one token per page ([`Content::Pages`]);
//! * one digest per 512-byte sector (`size` digests; the homes traces): the digests of
//!   the sectors of each 4 KiB device page are folded into that page's token.
//!
//! A digest's token is its first 8 bytes read as a big-endian `u64` (1 if they are all
//! zero). The process name may hold spaces, so the last six fields are taken from the
//! right.

use super::{op_word, sectors_to_bytes, LineResult, Record};
use crate::error::TraceErrorKind;
use crate::lex::{self, Words};
use crate::request::{mix64, Content, PAGE_BYTES};

const NAMES: [&str; 9] = [
    "ts", "pid", "process", "lba", "size", "op", "major", "minor", "md5",
];

/// Hex digits of one MD5 digest.
const DIGEST_HEX: usize = 32;
/// 512-byte sectors per 4 KiB page.
const SECTORS_PER_PAGE: u64 = PAGE_BYTES / 512;

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
    let pid = lex::uint("pid", head[1])?;
    let lba = at(0);
    let offset_bytes = sectors_to_bytes("lba", lba)?;
    let size_raw = at(1);
    let sectors = lex::size("size", size_raw)?;
    let size_bytes = lex::scale("size", size_raw, sectors, 512)?;
    let op = op_word("op", at(2))?;
    lex::uint("major", at(3))?;
    lex::uint("minor", at(4))?;
    let content = Some(content(at(5), offset_bytes / 512, sectors)?);
    Ok(Some(Record {
        time,
        op,
        offset_bytes,
        size_bytes,
        content,
        fua: false,
        preflush: false,
        stream: pid,
    }))
}

/// The content of a request of `sectors` sectors from sector `lba` whose digest field
/// is `field` (one digest, one per 4 KiB page, or one per sector).
fn content(field: &[u8], lba: u64, sectors: u64) -> Result<Content, TraceErrorKind> {
    if field.len() < DIGEST_HEX
        || !field.len().is_multiple_of(DIGEST_HEX)
        || !field.iter().all(u8::is_ascii_hexdigit)
    {
        return Err(bad_digest(field));
    }
    let digests = (field.len() / DIGEST_HEX) as u64;
    if digests == 1 {
        return Ok(Content::Seed(digest_token(&field[..DIGEST_HEX])));
    }
    let first_page = lba / SECTORS_PER_PAGE;
    let pages = (lba + sectors - 1) / SECTORS_PER_PAGE - first_page + 1;
    let chunks = field.chunks_exact(DIGEST_HEX).map(digest_token);
    if digests == sectors {
        Ok(Content::Pages(fold_sectors(chunks, lba, pages)))
    } else if digests == sectors.div_ceil(SECTORS_PER_PAGE) {
        Ok(Content::Pages(chunks.collect()))
    } else {
        Err(TraceErrorKind::DigestCount {
            field: "md5",
            digests,
            sectors,
            pages,
        })
    }
}

/// The page tokens of per-sector digests: the sectors that fall in one 4 KiB page are
/// folded together, in order, with the position of the first one and their number, so
/// that a partly written page never takes the token of a whole one.
fn fold_sectors(sector_tokens: impl Iterator<Item = u64>, lba: u64, pages: u64) -> Box<[u64]> {
    let mut out = Vec::with_capacity(pages as usize);
    let (mut page, mut acc, mut first, mut count) = (lba / SECTORS_PER_PAGE, 0u64, 0u64, 0u64);
    let mut finish = |acc: u64, first: u64, count: u64| {
        out.push(mix64(acc ^ (first << 8 | count).wrapping_mul(SECTOR_SALT)).max(1));
    };
    for (j, t) in sector_tokens.enumerate() {
        let sector = lba + j as u64;
        if sector / SECTORS_PER_PAGE != page {
            finish(acc, first, count);
            (page, acc, count) = (sector / SECTORS_PER_PAGE, 0, 0);
        }
        if count == 0 {
            first = sector % SECTORS_PER_PAGE;
        }
        acc = mix64(acc.rotate_left(23) ^ t);
        count += 1;
    }
    finish(acc, first, count);
    debug_assert_eq!(out.len() as u64, pages);
    out.into_boxed_slice()
}

/// Salt of folded sector digests.
const SECTOR_SALT: u64 = 0x94d0_49bb_1331_11eb;

fn bad_digest(field: &[u8]) -> TraceErrorKind {
    const SHOWN: usize = 80;
    let mut value = lex::lossy(&field[..field.len().min(SHOWN)]);
    if field.len() > SHOWN {
        value.push('…');
    }
    TraceErrorKind::BadDigest {
        field: "md5",
        value,
    }
}

/// The token of one 32-hex-digit digest (checked by the caller): its first 8 bytes,
/// big-endian, never 0.
fn digest_token(md5: &[u8]) -> u64 {
    debug_assert_eq!(md5.len(), DIGEST_HEX);
    let mut v: u64 = 0;
    for &c in &md5[..16] {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => c - b'A' + 10,
        };
        v = (v << 4) | u64::from(d);
    }
    v.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::testutil::{bad_field, parse_one};
    use crate::{Content, Op, TraceFormat};

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
        assert_eq!(r.content, Some(Content::Seed(0xd6c7_5ba4_6e82_326f)));
        assert_eq!(r.stream, 4270, "the pid is the stream field");
    }

    #[test]
    fn process_names_with_spaces() {
        let line = "5 1 kworker u8 2 100 8 r 6 0 D6C75BA46E82326FEFA545B57A12E221";
        let r = parse_one(F, line).unwrap().unwrap();
        assert_eq!(r.op, Op::Read);
        assert_eq!(r.offset_bytes, 100 * 512);
        assert_eq!(r.content, Some(Content::Seed(0xd6c7_5ba4_6e82_326f)));
    }

    #[test]
    fn zero_digest_prefix_becomes_one() {
        assert_eq!(digest_token(b"0000000000000000fefa545b57a12e22"), 1);
    }

    /// Line 14 of the FIU mail excerpt `mail.replay.0` (ricarkol/tracing): a 2-page
    /// request with one digest per page, the first as on its line 1.
    const TWO_PAGES: &str = "89966527996712 4253 nfsd 680 16 W 6 0 \
        b5e9f4e5ab62a4fff5313a606b0ad4e3d6c75ba46e82326fefa545b57a12e221";

    #[test]
    fn a_digest_per_page_gives_each_page_its_token() {
        let r = parse_one(F, TWO_PAGES).unwrap().unwrap();
        assert_eq!(r.size_bytes, 8192);
        let c = r.content.unwrap();
        assert_eq!(
            c,
            Content::Pages(vec![0xb5e9_f4e5_ab62_a4ff, 0xd6c7_5ba4_6e82_326f].into())
        );
        assert_eq!(c.page(0), 0xb5e9_f4e5_ab62_a4ff);
    }

    fn sector_line(lba: u64, digests: &[&str]) -> String {
        format!("1 2 p {lba} {} W 6 0 {}", digests.len(), digests.concat())
    }

    const A: &str = "3f4fc2833a17fd2a3dacad7c0e8ca8ad";
    const B: &str = "bf619eac0cdf3f68d496ea9344137e8b";

    #[test]
    fn digests_per_sector_fold_into_page_tokens() {
        let page = |lba: u64, d: &[&str]| parse_one(F, &sector_line(lba, d)).unwrap().unwrap();
        let one = page(8, &[A, B, B, B, B, B, B, B]).content.unwrap();
        let same = page(800, &[A, B, B, B, B, B, B, B]).content.unwrap();
        let other = page(8, &[B, A, B, B, B, B, B, B]).content.unwrap();
        assert_eq!(one, same, "equal sectors, equal token wherever the page is");
        assert_ne!(one.page(0), other.page(0), "sector order matters");
        let Content::Pages(tokens) = &one else {
            panic!("per-page tokens")
        };
        assert_eq!(tokens.len(), 1);
        // Two pages: the first equals the page above, the second is all B.
        let mut two = vec![A];
        two.extend([B; 15]);
        let c = page(16, &two).content.unwrap();
        assert_eq!(c.page(0), one.page(0));
        let all_b = page(0, &[B; 8]).content.unwrap();
        assert_eq!(c.page(1), all_b.page(0));
        // Not aligned: sectors 4..12 cover the second half of page 0 and the first half
        // of page 1, and neither half takes a whole page's token.
        let half = page(4, &[B; 8]).content.unwrap();
        let Content::Pages(t) = &half else { panic!() };
        assert_eq!(t.len(), 2);
        assert_ne!(t[0], t[1], "the halves sit at different positions");
        assert!(!t.contains(&all_b.page(0)));
    }

    #[test]
    fn a_digest_count_that_fits_no_layout_is_an_error() {
        let line = format!("1 2 p 0 16 W 6 0 {A}{B}{A}");
        match parse_one(F, &line) {
            Err(TraceErrorKind::DigestCount {
                digests: 3,
                sectors: 16,
                pages: 2,
                ..
            }) => {}
            other => panic!("{other:?}"),
        }
        assert_eq!(bad_field(F, &line).0, "md5");
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
            ("1 2 p 3 8 W 6 0 d6c75ba46e82326fefa545b57a12e221d", "md5"),
            ("1 2 p q 8 W 6 0 d6c75ba46e82326fefa545b57a12e221", "lba"),
        ];
        for (line, field) in cases {
            assert_eq!(bad_field(F, line).0, field, "{line}");
        }
    }
}
