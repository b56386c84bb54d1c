//! Format detection from the first lines of a file, and the DiskSim size-unit
//! inference.
//!
//! Each sampled line is classified by its shape; the format with most lines wins:
//!
//! | shape | format |
//! |---|---|
//! | ≥ 7 comma fields, text host name in field 2, `Read`/`Write` in field 4 | `msr` |
//! | ≥ 5 comma fields, integers, `r`/`w` in field 4, decimal field 5 | `spc` |
//! | first field `maj,min` (and the closing summary) | `blkparse` |
//! | ≥ 9 fields, `R`/`W` fourth from the end, a multiple of 32 hex digits last | `fiu` |
//! | 5 numeric fields, the first with a decimal point | `disksim` |
//! | 5 integer fields | `mqsim`, or `ssdsim` if the file name says so |
//!
//! SSDsim and MQSim ASCII have the same shape and the same units, so content cannot
//! tell them apart and the choice changes only the name reported; a DiskSim file whose
//! sampled times are all integers reads as MQSim. `--format` overrides detection.

use crate::error::{TraceError, TraceErrorKind};
use crate::formats::{blkparse, disksim};
use crate::input::{LineInput, LineStatus};
use crate::lex::{self, Commas, Words};
use crate::options::{SizeUnit, TraceFormat};
use std::path::Path;

/// Non-blank, non-comment lines examined by [`detect_format`].
pub const DETECT_SAMPLE_LINES: usize = 32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    Msr,
    Spc,
    Fiu,
    Blkparse,
    Disksim,
    IntColumns,
}

fn is_uint(b: &[u8]) -> bool {
    !b.is_empty() && b.iter().all(u8::is_ascii_digit)
}

fn is_decimal(b: &[u8]) -> bool {
    lex::decimal("", b, 0).is_ok()
}

fn is_op_word(b: &[u8]) -> bool {
    [&b"r"[..], b"w", b"read", b"write"]
        .iter()
        .any(|w| b.eq_ignore_ascii_case(w))
}

fn classify_csv(line: &[u8]) -> Option<Shape> {
    let mut c = Commas::new(line);
    let mut f: [&[u8]; 7] = [&[]; 7];
    let mut n = 0;
    while let Some(x) = c.next() {
        if n < f.len() {
            f[n] = x;
        }
        n += 1;
    }
    if n >= 7
        && is_uint(f[0])
        && !is_uint(f[1])
        && is_uint(f[2])
        && is_op_word(f[3])
        && f[3].len() > 1
    {
        return Some(Shape::Msr);
    }
    if f[0].eq_ignore_ascii_case(b"Timestamp") && f[3].eq_ignore_ascii_case(b"Type") {
        return Some(Shape::Msr);
    }
    let spc = n >= 5 && is_uint(f[0]) && is_uint(f[1]) && is_uint(f[2]) && is_op_word(f[3]);
    if spc && is_decimal(f[4]) {
        return Some(Shape::Spc);
    }
    (f[0].eq_ignore_ascii_case(b"ASU") && f[1].eq_ignore_ascii_case(b"LBA")).then_some(Shape::Spc)
}

fn classify_words(line: &[u8]) -> Option<Shape> {
    let mut w = Words::new(line);
    let mut f: [&[u8]; 6] = [&[]; 6];
    let mut last: [&[u8]; 4] = [&[]; 4];
    let mut n = 0;
    while let Some(x) = w.next() {
        if n < f.len() {
            f[n] = x;
        }
        last[n % 4] = x;
        n += 1;
    }
    if blkparse::is_device(f[0]) && n >= 6 || blkparse::is_summary_start(line) {
        return Some(Shape::Blkparse);
    }
    if n >= 9 {
        let md5 = last[(n - 1) % 4];
        let op = last[(n - 4) % 4];
        // One digest, or several concatenated (per page or per sector).
        let hex = !md5.is_empty()
            && md5.len().is_multiple_of(32)
            && md5.iter().all(u8::is_ascii_hexdigit);
        return (hex && is_op_word(op)).then_some(Shape::Fiu);
    }
    if n == 5 && f[1..5].iter().all(|x| is_uint(x)) {
        if is_uint(f[0]) {
            return Some(Shape::IntColumns);
        }
        if is_decimal(f[0]) {
            return Some(Shape::Disksim);
        }
    }
    None
}

fn classify(line: &[u8]) -> Option<Shape> {
    if line.contains(&b',') && !blkparse::is_device(Words::new(line).next().unwrap_or_default()) {
        if let Some(s) = classify_csv(line) {
            return Some(s);
        }
    }
    classify_words(line)
}

/// Detects the format of a trace from some of its first lines (blank and `#` lines
/// are skipped). `file_name` only breaks the SSDsim/MQSim tie. `None` when no line has
/// a known shape.
pub fn detect_format_from_lines<'a, I>(lines: I, file_name: Option<&str>) -> Option<TraceFormat>
where
    I: IntoIterator<Item = &'a [u8]>,
{
    let mut votes = [0u32; 6];
    const SHAPES: [Shape; 6] = [
        Shape::Msr,
        Shape::Spc,
        Shape::Fiu,
        Shape::Blkparse,
        Shape::Disksim,
        Shape::IntColumns,
    ];
    for line in lines {
        let line = lex::trim(line);
        if line.is_empty() || line[0] == b'#' {
            continue;
        }
        if let Some(s) = classify(line) {
            votes[SHAPES.iter().position(|x| *x == s).unwrap_or(0)] += 1;
        }
    }
    // Integer-time lines of a DiskSim file still vote for DiskSim once any has a decimal.
    if votes[4] > 0 {
        votes[4] += std::mem::take(&mut votes[5]);
    }
    let (best, &top) = votes.iter().enumerate().rev().max_by_key(|(_, v)| **v)?;
    if top == 0 {
        return None;
    }
    Some(match SHAPES[best] {
        Shape::Msr => TraceFormat::Msr,
        Shape::Spc => TraceFormat::Spc,
        Shape::Fiu => TraceFormat::Fiu,
        Shape::Blkparse => TraceFormat::Blkparse,
        Shape::Disksim => TraceFormat::Disksim,
        Shape::IntColumns => {
            let ssdsim = file_name.is_some_and(|n| n.to_ascii_lowercase().contains("ssdsim"));
            if ssdsim {
                TraceFormat::Ssdsim
            } else {
                TraceFormat::Mqsim
            }
        }
    })
}

/// Detects the format of the trace at `path` from its first
/// [`DETECT_SAMPLE_LINES`] non-blank lines (after gunzip when it is gzip).
pub fn detect_format(path: &Path) -> Result<TraceFormat, TraceError> {
    let mut input = LineInput::open(path).map_err(|e| TraceError::io(path, 0, &e))?;
    let mut lines: Vec<(u64, Vec<u8>)> = Vec::new();
    let mut line_no = 0;
    let mut buf = Vec::new();
    let mut first_too_long = None;
    while lines.len() < DETECT_SAMPLE_LINES {
        buf.clear();
        line_no += 1;
        match input
            .next_line(&mut buf)
            .map_err(|e| TraceError::io(path, line_no, &e))?
        {
            LineStatus::Eof => break,
            LineStatus::TooLong => {
                first_too_long.get_or_insert(line_no);
                continue;
            }
            LineStatus::Line => {}
        }
        let l = lex::trim(&buf);
        if !l.is_empty() && l[0] != b'#' {
            lines.push((line_no, l.to_vec()));
        }
    }
    if lines.is_empty() {
        // Over-long lines are not records of any format: say so rather than "empty".
        return Err(match first_too_long {
            Some(line) => TraceError::new(
                path,
                line,
                TraceErrorKind::LineTooLong {
                    limit_bytes: crate::input::MAX_LINE_BYTES,
                },
            ),
            None => TraceError::new(path, 0, TraceErrorKind::Empty),
        });
    }
    let name = path.file_name().and_then(|n| n.to_str());
    detect_format_from_lines(lines.iter().map(|(_, l)| l.as_slice()), name).ok_or_else(|| {
        // Say what is wrong with the first record line, at that line.
        let (line, first) = &lines[0];
        TraceError::new(path, *line, crate::diagnose::diagnose(first))
    })
}

/// Infers the unit of the `size` column of the DiskSim file at `path` from its first
/// records (see [`disksim::UnitEvidence`]); `None` when the evidence is not clear.
pub(crate) fn infer_disksim_unit(path: &Path) -> Result<Option<SizeUnit>, TraceError> {
    let mut input = LineInput::open(path).map_err(|e| TraceError::io(path, 0, &e))?;
    let mut evidence = disksim::UnitEvidence::default();
    let (mut records, mut line_no, mut buf) = (0, 0, Vec::new());
    while records < disksim::UNIT_SAMPLE_RECORDS {
        buf.clear();
        line_no += 1;
        match input
            .next_line(&mut buf)
            .map_err(|e| TraceError::io(path, line_no, &e))?
        {
            LineStatus::Eof => break,
            LineStatus::TooLong => continue,
            LineStatus::Line => {}
        }
        if let Ok(raw) = disksim::parse_raw(lex::trim(&buf)) {
            evidence.observe(raw.block, raw.size);
            records += 1;
        }
    }
    Ok(evidence.decide())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detect(lines: &[&str], name: Option<&str>) -> Option<TraceFormat> {
        detect_format_from_lines(lines.iter().map(|l| l.as_bytes()), name)
    }

    #[test]
    fn shapes() {
        let msr = ["128166385295514663,hm,0,Write,9056014336,2048,2833"];
        assert_eq!(detect(&msr, None), Some(TraceFormat::Msr));
        let msr_h = [
            "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime",
            msr[0],
        ];
        assert_eq!(detect(&msr_h, None), Some(TraceFormat::Msr));
        let spc = ["0,303567,3584,w,0.000000", "1,55590,3072,R,0.000000"];
        assert_eq!(detect(&spc, None), Some(TraceFormat::Spc));
        let fiu =
            ["89966522969723 4270 rpc.mountd 18579576 8 W 6 0 d6c75ba46e82326fefa545b57a12e221"];
        assert_eq!(detect(&fiu, None), Some(TraceFormat::Fiu));
        let homes = [concat!(
            "777599999908936 2552 kjournald 224 8 W 6 0 ",
            "3f4fc2833a17fd2a3dacad7c0e8ca8adc046a93c984f2f1142a0feb72949861938eb5fb74b981157",
            "a39248bccfe5aa1a602f8f1f850ca719fd84e29fd2be0654bf619eac0cdf3f68d496ea9344137e8b",
            "bf619eac0cdf3f68d496ea9344137e8bbf619eac0cdf3f68d496ea9344137e8bbf619eac0cdf3f68",
            "d496ea9344137e8b"
        )];
        assert_eq!(
            detect(&homes, None),
            Some(TraceFormat::Fiu),
            "a digest per sector"
        );
        let blk = [
            "259,2    0        1     0.000000000  4020  Q   R 282624 + 8 [java]",
            "259,2    0        3     0.000003650  4020  U   N [java] 1",
        ];
        assert_eq!(detect(&blk, None), Some(TraceFormat::Blkparse));
        let disksim = ["0 0 94554803 1 1", "3.149680\t0\t94554811\t1\t1"];
        assert_eq!(detect(&disksim, None), Some(TraceFormat::Disksim));
        let ints = ["0 0 303567 7 0", "26214000 1 240840 6 0"];
        assert_eq!(detect(&ints, None), Some(TraceFormat::Mqsim));
        assert_eq!(
            detect(&ints, Some("example.SSDsim.gz")),
            Some(TraceFormat::Ssdsim)
        );
    }

    #[test]
    fn unknown_shapes() {
        assert_eq!(detect(&["hello world", "# comment", ""], None), None);
        assert_eq!(detect(&["1 2 3"], None), None);
        assert_eq!(detect(&[], None), None);
    }

    #[test]
    fn majority_wins_over_a_stray_line() {
        let lines = [
            "garbage,1,2,w,0.5",
            "1,hm,0,Read,0,512,1",
            "2,hm,0,Read,0,512,1",
        ];
        assert_eq!(detect(&lines, None), Some(TraceFormat::Msr));
    }
}
