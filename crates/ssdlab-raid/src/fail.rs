//! Failure specs: `TARGET@WHEN`, e.g. `chip:3@150ms`, `channel:1@0.25` or `power@0.5`.
//!
//! `TARGET` is `chip:N` (a chip in stripe order), `channel:N`, or `power` (the device
//! loses power: the controller's DRAM loses what it did not program, beyond what
//! power-loss protection saves). `WHEN` is a time with a
//! unit (`42ns`, `300us`, `300µs`, `1.5ms`, `2s`; decimals must come to a whole number of
//! nanoseconds) or a bare number in `[0, 1]`: the fraction of the trace's requests that
//! have arrived (`0.25` = when the first quarter of the requests has arrived).

use serde::{Deserialize, Serialize};
use ssdlab_engine::SimTime;
use ssdlab_nand::{ChannelId, ChipId};
use std::fmt;
use std::str::FromStr;

/// What fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FailTarget {
    /// One chip, by its global index in stripe order.
    Chip(ChipId),
    /// A whole channel: every chip on it.
    Channel(ChannelId),
    /// The device's power.
    Power,
}

/// When it fails.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum FailAt {
    /// At this simulated time.
    Time(SimTime),
    /// When this fraction (in `[0, 1]`) of the trace's requests has arrived.
    Fraction(f64),
}

/// One failure to inject: a target and a moment. Parse with [`str::parse`]; [`Display`]
/// prints a spec that parses back to the same value.
///
/// [`Display`]: fmt::Display
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FailSpec {
    /// What fails.
    pub target: FailTarget,
    /// When.
    pub at: FailAt,
}

/// What is wrong with a failure spec.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FailSpecErrorKind {
    /// The spec is empty.
    #[error("empty spec; expected TARGET@WHEN, e.g. chip:3@150ms or channel:1@0.25")]
    Empty,
    /// No `@` separates target and moment.
    #[error("missing '@'; expected TARGET@WHEN, e.g. chip:3@150ms or channel:1@0.25")]
    MissingAt,
    /// The target is neither `chip:N` nor `channel:N`.
    #[error("unknown target {found:?}; expected chip:N, channel:N or power")]
    UnknownTarget {
        /// The target text found.
        found: String,
    },
    /// The index after `chip:` / `channel:` is not a decimal number.
    #[error("{what} index must be a number")]
    BadIndex {
        /// `chip` or `channel`.
        what: &'static str,
    },
    /// The index does not fit 32 bits.
    #[error("{what} index {found} is too large")]
    IndexTooLarge {
        /// `chip` or `channel`.
        what: &'static str,
        /// The digits found.
        found: String,
    },
    /// The moment is not a number followed by an optional unit.
    #[error(
        "moment {found:?} must be a time with a unit (ns, us, µs, ms, s) or a fraction in [0, 1]"
    )]
    BadMoment {
        /// The moment text found.
        found: String,
    },
    /// The unit is not one we know.
    #[error("unknown time unit {unit:?}; use ns, us, µs, ms or s")]
    UnknownUnit {
        /// The unit text found.
        unit: String,
    },
    /// A bare number outside `[0, 1]`.
    #[error(
        "a number without unit is a fraction of the trace's requests and must be in [0, 1], found {found}; add a unit (ns, us, ms, s) for a time"
    )]
    FractionOutOfRange {
        /// The number found.
        found: String,
    },
    /// A time finer than one nanosecond.
    #[error("time {found} is not a whole number of nanoseconds")]
    SubNanosecond {
        /// The moment text found.
        found: String,
    },
    /// A time beyond `u64::MAX` nanoseconds.
    #[error("time {found} does not fit 64-bit nanoseconds")]
    TimeTooLarge {
        /// The moment text found.
        found: String,
    },
}

/// A failure spec that does not parse: the spec as given and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("--fail {spec}: {kind}")]
pub struct FailSpecError {
    /// The spec as given.
    pub spec: String,
    /// What is wrong.
    pub kind: FailSpecErrorKind,
}

impl FailSpec {
    /// Parses `TARGET@WHEN` (see the module docs). Surrounding whitespace is ignored.
    pub fn parse(spec: &str) -> Result<FailSpec, FailSpecError> {
        parse_spec(spec.trim()).map_err(|kind| FailSpecError {
            spec: spec.to_string(),
            kind,
        })
    }
}

impl FromStr for FailSpec {
    type Err = FailSpecError;

    fn from_str(s: &str) -> Result<FailSpec, FailSpecError> {
        FailSpec::parse(s)
    }
}

fn parse_spec(spec: &str) -> Result<FailSpec, FailSpecErrorKind> {
    if spec.is_empty() {
        return Err(FailSpecErrorKind::Empty);
    }
    let (target, at) = spec.split_once('@').ok_or(FailSpecErrorKind::MissingAt)?;
    Ok(FailSpec {
        target: parse_target(target)?,
        at: parse_at(at)?,
    })
}

fn parse_target(s: &str) -> Result<FailTarget, FailSpecErrorKind> {
    let unknown = || FailSpecErrorKind::UnknownTarget {
        found: s.to_string(),
    };
    if s == "power" {
        return Ok(FailTarget::Power);
    }
    let (what, index) = s.split_once(':').ok_or_else(unknown)?;
    let what: &'static str = match what {
        "chip" => "chip",
        "channel" => "channel",
        _ => return Err(unknown()),
    };
    if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
        return Err(FailSpecErrorKind::BadIndex { what });
    }
    let n: u32 = index
        .parse()
        .map_err(|_| FailSpecErrorKind::IndexTooLarge {
            what,
            found: index.to_string(),
        })?;
    Ok(match what {
        "chip" => FailTarget::Chip(ChipId(n)),
        _ => FailTarget::Channel(ChannelId(n)),
    })
}

/// Nanoseconds per unit, as a power of ten.
fn unit_exponent(unit: &str) -> Option<u32> {
    match unit {
        "ns" => Some(0),
        "us" | "µs" => Some(3),
        "ms" => Some(6),
        "s" => Some(9),
        _ => None,
    }
}

fn parse_at(s: &str) -> Result<FailAt, FailSpecErrorKind> {
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    let dots = number.matches('.').count();
    if dots > 1 || number.len() == dots {
        return Err(FailSpecErrorKind::BadMoment {
            found: s.to_string(),
        });
    }
    let (int, frac) = number.split_once('.').unwrap_or((number, ""));
    if unit.is_empty() {
        let value: f64 = number.parse().map_err(|_| FailSpecErrorKind::BadMoment {
            found: s.to_string(),
        })?;
        if !(0.0..=1.0).contains(&value) {
            return Err(FailSpecErrorKind::FractionOutOfRange {
                found: s.to_string(),
            });
        }
        return Ok(FailAt::Fraction(value));
    }
    let exp = unit_exponent(unit).ok_or_else(|| FailSpecErrorKind::UnknownUnit {
        unit: unit.to_string(),
    })?;
    exact_ns(int, frac, exp)
        .map(|ns| FailAt::Time(SimTime(ns)))
        .map_err(|sub_ns| {
            let found = s.to_string();
            if sub_ns {
                FailSpecErrorKind::SubNanosecond { found }
            } else {
                FailSpecErrorKind::TimeTooLarge { found }
            }
        })
}

/// `int.frac × 10^exp` as whole nanoseconds. `Err(true)`: not whole; `Err(false)`: overflow.
fn exact_ns(int: &str, frac: &str, exp: u32) -> Result<u64, bool> {
    let frac = frac.trim_end_matches('0');
    let len = u32::try_from(frac.len()).map_err(|_| true)?;
    if len > exp {
        return Err(true);
    }
    let scale = 10u64.pow(exp);
    let int_ns = if int.is_empty() {
        0
    } else {
        let digits = int.trim_start_matches('0');
        if digits.len() > 20 {
            return Err(false);
        }
        let v: u64 = if digits.is_empty() {
            0
        } else {
            digits.parse().map_err(|_| false)?
        };
        v.checked_mul(scale).ok_or(false)?
    };
    let frac_ns = if frac.is_empty() {
        0
    } else {
        // `frac` has at most 9 digits here, so it fits.
        let f: u64 = frac.parse().map_err(|_| true)?;
        f * 10u64.pow(exp - len)
    };
    int_ns.checked_add(frac_ns).ok_or(false)
}

impl fmt::Display for FailTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailTarget::Chip(c) => write!(f, "chip:{c}"),
            FailTarget::Channel(c) => write!(f, "channel:{c}"),
            FailTarget::Power => write!(f, "power"),
        }
    }
}

impl fmt::Display for FailAt {
    /// A time in the largest of `s`, `ms`, `us`, `ns` that shows it exactly; a fraction as
    /// a plain decimal number.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FailAt::Time(t) => {
                let ns = t.as_ns();
                let (unit, scale) = [("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1_000)]
                    .into_iter()
                    .find(|&(_, scale)| ns % scale == 0)
                    .unwrap_or(("ns", 1));
                write!(f, "{}{unit}", ns / scale)
            }
            FailAt::Fraction(x) => write!(f, "{x}"),
        }
    }
}

impl fmt::Display for FailSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}", self.target, self.at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn time(spec: &str) -> u64 {
        match FailSpec::parse(spec).unwrap().at {
            FailAt::Time(t) => t.as_ns(),
            other => panic!("{spec}: expected a time, got {other:?}"),
        }
    }

    fn kind(spec: &str) -> FailSpecErrorKind {
        FailSpec::parse(spec).unwrap_err().kind
    }

    #[test]
    fn units_scale_exactly() {
        assert_eq!(time("chip:0@42ns"), 42);
        assert_eq!(time("chip:0@300us"), 300_000);
        assert_eq!(time("chip:0@300µs"), 300_000);
        assert_eq!(time("chip:0@1.5ms"), 1_500_000);
        assert_eq!(time("chip:0@0.1ms"), 100_000);
        assert_eq!(time("chip:0@2s"), 2_000_000_000);
        assert_eq!(time("chip:0@.5s"), 500_000_000);
        assert_eq!(time("chip:0@1.250000s"), 1_250_000_000);
        assert_eq!(time("chip:0@18446744073709551615ns"), u64::MAX);
    }

    #[test]
    fn targets_and_fractions() {
        let s: FailSpec = "channel:7@0.25".parse().unwrap();
        assert_eq!(s.target, FailTarget::Channel(ChannelId(7)));
        assert_eq!(s.at, FailAt::Fraction(0.25));
        let s = FailSpec::parse(" chip:3@1 ").unwrap();
        assert_eq!(s.target, FailTarget::Chip(ChipId(3)));
        assert_eq!(s.at, FailAt::Fraction(1.0));
        assert_eq!(
            FailSpec::parse("chip:3@0").unwrap().at,
            FailAt::Fraction(0.0)
        );
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let e = FailSpec::parse("chip:x@1s").unwrap_err();
        assert_eq!(
            e.to_string(),
            "--fail chip:x@1s: chip index must be a number"
        );
        assert_eq!(kind(""), FailSpecErrorKind::Empty);
        assert_eq!(kind("chip:3"), FailSpecErrorKind::MissingAt);
        assert!(matches!(
            kind("die:3@1s"),
            FailSpecErrorKind::UnknownTarget { .. }
        ));
        assert!(matches!(
            kind("chip3@1s"),
            FailSpecErrorKind::UnknownTarget { .. }
        ));
        assert_eq!(
            kind("channel:@1s"),
            FailSpecErrorKind::BadIndex { what: "channel" }
        );
        assert_eq!(
            kind("chip:-1@1s"),
            FailSpecErrorKind::BadIndex { what: "chip" }
        );
        assert!(matches!(
            kind("chip:99999999999@1s"),
            FailSpecErrorKind::IndexTooLarge { .. }
        ));
        assert!(matches!(
            kind("chip:1@"),
            FailSpecErrorKind::BadMoment { .. }
        ));
        assert!(matches!(
            kind("chip:1@ms"),
            FailSpecErrorKind::BadMoment { .. }
        ));
        assert!(matches!(
            kind("chip:1@1.2.3s"),
            FailSpecErrorKind::BadMoment { .. }
        ));
        assert!(matches!(
            kind("chip:1@-1s"),
            FailSpecErrorKind::BadMoment { .. }
        ));
        assert!(matches!(
            kind("chip:1@5min"),
            FailSpecErrorKind::UnknownUnit { .. }
        ));
        assert!(matches!(
            kind("chip:1@1.5"),
            FailSpecErrorKind::FractionOutOfRange { .. }
        ));
        assert!(matches!(
            kind("chip:1@1.5ns"),
            FailSpecErrorKind::SubNanosecond { .. }
        ));
        assert!(matches!(
            kind("chip:1@0.0000000001s"),
            FailSpecErrorKind::SubNanosecond { .. }
        ));
        assert!(matches!(
            kind("chip:1@18446744074s"),
            FailSpecErrorKind::TimeTooLarge { .. }
        ));
        let e = FailSpec::parse("chip:1@5min").unwrap_err().to_string();
        assert!(e.starts_with("--fail chip:1@5min: "), "{e}");
        assert!(e.contains("\"min\""), "{e}");
    }

    #[test]
    fn display_round_trips() {
        for spec in [
            "chip:3@150ms",
            "channel:0@2s",
            "chip:1@1500us",
            "chip:1@7ns",
            "chip:12@0.25",
            "chip:12@1",
            "chip:12@0",
            "channel:2@0.0000001",
        ] {
            let parsed = FailSpec::parse(spec).unwrap();
            assert_eq!(parsed.to_string(), spec);
            assert_eq!(FailSpec::parse(&parsed.to_string()).unwrap(), parsed);
        }
        assert_eq!(
            FailSpec::parse("chip:1@1.5ms").unwrap().to_string(),
            "chip:1@1500us"
        );
        assert_eq!(
            FailSpec::parse("chip:1@300µs").unwrap().to_string(),
            "chip:1@300us"
        );
    }
}
