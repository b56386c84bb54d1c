//! Byte-level field splitting and number parsing shared by the format parsers.
//!
//! Everything works on `&[u8]` slices of one line: no allocation unless an error is
//! reported (the offending text is copied into the error).

use crate::error::TraceErrorKind;

/// Result of parsing one field.
pub(crate) type FieldResult<T> = Result<T, TraceErrorKind>;

/// The offending text of a field, for an error message.
pub(crate) fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[inline]
fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Strips leading and trailing spaces, tabs and line terminators.
#[inline]
pub(crate) fn trim(mut b: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = b {
        if is_blank(*first) || *first == b'\r' || *first == b'\n' {
            b = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = b {
        if is_blank(*last) || *last == b'\r' || *last == b'\n' {
            b = rest;
        } else {
            break;
        }
    }
    b
}

/// Fields separated by runs of spaces or tabs.
pub(crate) struct Words<'a> {
    rest: &'a [u8],
}

impl<'a> Words<'a> {
    /// Splits a trimmed line.
    #[inline]
    pub(crate) fn new(line: &'a [u8]) -> Self {
        Words { rest: line }
    }

    /// The next field, or `None` at the end of the line.
    #[inline]
    #[allow(clippy::should_implement_trait)]
    pub(crate) fn next(&mut self) -> Option<&'a [u8]> {
        let start = self.rest.iter().position(|b| !is_blank(*b))?;
        let rest = &self.rest[start..];
        let end = rest.iter().position(|b| is_blank(*b)).unwrap_or(rest.len());
        self.rest = &rest[end..];
        Some(&rest[..end])
    }

    /// The next field, which the format requires and calls `name`.
    #[inline]
    pub(crate) fn field(&mut self, name: &'static str) -> FieldResult<&'a [u8]> {
        // Not `ok_or(kind)`: that builds (and drops) the error for every field read.
        match self.next() {
            Some(field) => Ok(field),
            None => Err(TraceErrorKind::Truncated { field: name }),
        }
    }
}

/// Fields separated by commas, each trimmed of spaces.
pub(crate) struct Commas<'a> {
    rest: Option<&'a [u8]>,
}

impl<'a> Commas<'a> {
    /// Splits a trimmed line.
    #[inline]
    pub(crate) fn new(line: &'a [u8]) -> Self {
        Commas { rest: Some(line) }
    }

    /// The next field (possibly empty), or `None` after the last one.
    #[inline]
    #[allow(clippy::should_implement_trait)]
    pub(crate) fn next(&mut self) -> Option<&'a [u8]> {
        let rest = self.rest?;
        match rest.iter().position(|b| *b == b',') {
            Some(i) => {
                self.rest = Some(&rest[i + 1..]);
                Some(trim(&rest[..i]))
            }
            None => {
                self.rest = None;
                Some(trim(rest))
            }
        }
    }

    /// The next field, which the format requires (non-empty) and calls `name`.
    #[inline]
    pub(crate) fn field(&mut self, name: &'static str) -> FieldResult<&'a [u8]> {
        match self.next() {
            Some(f) if !f.is_empty() => Ok(f),
            _ => Err(TraceErrorKind::Truncated { field: name }),
        }
    }
}

#[inline]
fn all_digits(b: &[u8]) -> bool {
    !b.is_empty() && b.iter().all(u8::is_ascii_digit)
}

/// `true` when `b` looks like a (possibly fractional) non-negative decimal.
fn is_decimal_text(b: &[u8]) -> bool {
    let mut parts = b.splitn(2, |c| *c == b'.');
    let int = parts.next().unwrap_or_default();
    let frac = parts.next().unwrap_or_default();
    (!int.is_empty() || !frac.is_empty())
        && int.iter().all(u8::is_ascii_digit)
        && frac.iter().all(u8::is_ascii_digit)
}

/// Digits to `u64`, `None` on a non-digit or overflow.
#[inline]
fn digits(b: &[u8]) -> Option<u64> {
    if b.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    if b.len() <= 19 {
        for &c in b {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            v = v * 10 + u64::from(d);
        }
        return Some(v);
    }
    for &c in b {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(d))?;
    }
    Some(v)
}

/// A non-negative integer field.
#[inline]
pub(crate) fn uint(name: &'static str, b: &[u8]) -> FieldResult<u64> {
    if let Some(v) = digits(b) {
        return Ok(v);
    }
    let body = b.strip_prefix(b"-").unwrap_or(b);
    if all_digits(body) {
        // Negative, or more than u64 can hold.
        Err(TraceErrorKind::OutOfRange {
            field: name,
            value: lossy(b),
        })
    } else {
        Err(TraceErrorKind::BadNumber {
            field: name,
            value: lossy(b),
        })
    }
}

/// A request-size field in some unit: a positive integer.
#[inline]
pub(crate) fn size(name: &'static str, b: &[u8]) -> FieldResult<u64> {
    match digits(b) {
        Some(0) => Err(TraceErrorKind::BadSize {
            field: name,
            value: lossy(b),
        }),
        Some(v) => Ok(v),
        None => match b.strip_prefix(b"-") {
            Some(body) if is_decimal_text(body) => Err(TraceErrorKind::BadSize {
                field: name,
                value: lossy(b),
            }),
            _ if all_digits(b) => Err(TraceErrorKind::OutOfRange {
                field: name,
                value: lossy(b),
            }),
            _ => Err(TraceErrorKind::BadNumber {
                field: name,
                value: lossy(b),
            }),
        },
    }
}

/// Multiplies a count of `unit_bytes` units into bytes, failing on overflow.
#[inline]
pub(crate) fn scale(name: &'static str, raw: &[u8], v: u64, unit_bytes: u64) -> FieldResult<u64> {
    v.checked_mul(unit_bytes)
        .ok_or_else(|| TraceErrorKind::OutOfRange {
            field: name,
            value: lossy(raw),
        })
}

const POW10: [u64; 10] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
];

/// A non-negative decimal field such as `26.214000`, returned as an integer count of
/// 10^-`frac_digits` units (digits beyond that precision are truncated).
///
/// `frac_digits` is at most 9.
#[inline]
pub(crate) fn decimal(name: &'static str, b: &[u8], frac_digits: usize) -> FieldResult<u64> {
    debug_assert!(frac_digits < POW10.len());
    let bad = || {
        let body = b.strip_prefix(b"-").unwrap_or(b);
        if b.first() == Some(&b'-') && is_decimal_text(body) {
            TraceErrorKind::OutOfRange {
                field: name,
                value: lossy(b),
            }
        } else {
            TraceErrorKind::BadDecimal {
                field: name,
                value: lossy(b),
            }
        }
    };
    let (int, frac) = match b.iter().position(|c| *c == b'.') {
        Some(i) => (&b[..i], &b[i + 1..]),
        None => (b, &b[..0]),
    };
    if int.is_empty() && frac.is_empty() {
        return Err(bad());
    }
    let int_v = if int.is_empty() {
        0
    } else {
        digits(int).ok_or_else(bad)?
    };
    let mut frac_v: u64 = 0;
    for (i, &c) in frac.iter().enumerate() {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return Err(bad());
        }
        if i < frac_digits {
            frac_v = frac_v * 10 + u64::from(d);
        }
    }
    let kept = frac.len().min(frac_digits);
    frac_v *= POW10[frac_digits - kept];
    int_v
        .checked_mul(POW10[frac_digits])
        .and_then(|v| v.checked_add(frac_v))
        .ok_or_else(|| TraceErrorKind::OutOfRange {
            field: name,
            value: lossy(b),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_commas_split() {
        let mut w = Words::new(b"  a\t bb c ");
        assert_eq!(w.next(), Some(&b"a"[..]));
        assert_eq!(w.field("x").unwrap(), b"bb");
        assert_eq!(w.next(), Some(&b"c"[..]));
        assert_eq!(w.field("y"), Err(TraceErrorKind::Truncated { field: "y" }));
        let mut c = Commas::new(b"1, x ,,");
        assert_eq!(c.field("a").unwrap(), b"1");
        assert_eq!(c.field("b").unwrap(), b"x");
        assert_eq!(c.field("c"), Err(TraceErrorKind::Truncated { field: "c" }));
        assert_eq!(c.next(), Some(&b""[..]));
        assert_eq!(c.next(), None);
    }

    #[test]
    fn integers() {
        assert_eq!(uint("f", b"0"), Ok(0));
        assert_eq!(uint("f", b"18446744073709551615"), Ok(u64::MAX));
        assert!(matches!(
            uint("f", b"18446744073709551616"),
            Err(TraceErrorKind::OutOfRange { .. })
        ));
        assert!(matches!(
            uint("f", b"-3"),
            Err(TraceErrorKind::OutOfRange { .. })
        ));
        assert_eq!(
            uint("Size", b"12a"),
            Err(TraceErrorKind::BadNumber {
                field: "Size",
                value: "12a".into()
            })
        );
    }

    #[test]
    fn sizes() {
        assert_eq!(size("s", b"8"), Ok(8));
        assert!(matches!(
            size("s", b"0"),
            Err(TraceErrorKind::BadSize { .. })
        ));
        assert!(matches!(
            size("s", b"-8"),
            Err(TraceErrorKind::BadSize { .. })
        ));
        assert!(matches!(
            size("s", b"-"),
            Err(TraceErrorKind::BadNumber { .. })
        ));
        assert!(matches!(
            size("s", b"x"),
            Err(TraceErrorKind::BadNumber { .. })
        ));
    }

    #[test]
    fn decimals() {
        assert_eq!(decimal("t", b"26.214000", 6), Ok(26_214_000));
        assert_eq!(decimal("t", b"0.000011950", 9), Ok(11_950));
        assert_eq!(decimal("t", b"3", 3), Ok(3_000));
        assert_eq!(decimal("t", b"1.23456789012", 9), Ok(1_234_567_890));
        assert_eq!(decimal("t", b".5", 1), Ok(5));
        assert!(matches!(
            decimal("t", b"-1.5", 3),
            Err(TraceErrorKind::OutOfRange { .. })
        ));
        assert!(matches!(
            decimal("t", b"1e3", 3),
            Err(TraceErrorKind::BadDecimal { .. })
        ));
        assert!(matches!(
            decimal("t", b".", 3),
            Err(TraceErrorKind::BadDecimal { .. })
        ));
        assert!(matches!(
            decimal("t", b"1.2.3", 3),
            Err(TraceErrorKind::BadDecimal { .. })
        ));
    }

    #[test]
    fn trimming() {
        assert_eq!(trim(b" \tx y\r\n"), b"x y");
        assert_eq!(trim(b"\r\n"), b"");
    }
}
