//! Bit errors, ECC and read retry: the pure functions of the error model.
//!
//! * [`RberModel`]: the raw bit error rate of one page read as a function of the block's
//!   program/erase cycles, the page's retention age, the block's read-disturb count and
//!   the page type. Fitted form (see docs/ERRORS.md for the sources):
//!
//!   `rber = (base + pe_coeff · PE^pe_exp) · (1 + ret_coeff · age_s^ret_exp)
//!           · (1 + rd_coeff · reads) · page_type_scale[type]`
//!
//!   The P/E term models the wear-out measured by Cai et al., DATE 2012, as a power law;
//!   age and read disturb enter as the power-law terms of Hetzler's fitted MLC error
//!   surface (2012/2014) and the read-count growth of Cai et al., DSN 2015.
//! * [`EccConfig`]: `t` correctable bits per codeword of `codeword_bits`, a read-retry
//!   ladder (each step a fresh sense with shifted references, lowering the effective RBER
//!   by its factor) and soft-decode tiers (each corrects more bits, at a longer decode).
//! * [`EccConfig::decode`]: given the RBER, the codewords of the read and uniform draws,
//!   how many retry steps and soft tiers the read needs, or that it is uncorrectable.
//! * [`ReadOutcome::extra_ns`]: the die and bus time those steps cost.
//!
//! Nothing here holds state: the caller owns the wear counters and the RNG stream, so
//! the same seed gives the same errors.
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An error-model setting that cannot describe a device.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("errors.{key}: {message}")]
pub struct ErrorsError {
    /// The offending key under `errors.`.
    pub key: &'static str,
    /// What is wrong.
    pub message: String,
}

/// Raw bit error rate as a function of wear, age, read disturb and page type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RberModel {
    /// RBER of a fresh block read right after its program.
    pub base: f64,
    /// Coefficient of the P/E-cycle power law.
    pub pe_coeff: f64,
    /// Exponent of the P/E-cycle power law.
    pub pe_exp: f64,
    /// Coefficient of the retention-age power law (age in seconds).
    pub ret_coeff: f64,
    /// Exponent of the retention-age power law.
    pub ret_exp: f64,
    /// Relative RBER growth per read of the block since its erase (read disturb).
    pub rd_coeff: f64,
    /// Multiplier per page type (lower, upper, extra, top); a missing entry is 1.
    pub page_type_scale: Vec<f64>,
}

impl Default for RberModel {
    /// Fitted to a 3D charge-trap TLC chip held a year at 25 °C: Li, Ye, Kuo and Xue,
    /// "How the Common Retention Acceleration Method of 3D NAND Flash Memory Goes
    /// Wrong?", HotStorage '21 (chip "CT flash B", optimal-reference RBER; 17 points
    /// read from its Figs. 4, 5 and 7, every one within 9 %; docs/ERRORS.md §1.1).
    /// `rd_coeff` is not constrained by it and keeps the value of [`RberModel::stress`].
    fn default() -> Self {
        RberModel {
            base: 2.62e-5,
            pe_coeff: 8.22e-8,
            pe_exp: 0.841,
            ret_coeff: 0.109,
            ret_exp: 0.311,
            rd_coeff: 1.0e-6,
            page_type_scale: vec![0.445, 1.075, 1.48],
        }
    }
}

impl RberModel {
    /// A stress set, not fitted to any paper: about 1e-5 at 0 P/E, about 2e-3 at 3000
    /// P/E read at once, 2.5 times that after a year, growing with the square of the
    /// P/E count, so that a worn drive loses data (docs/ERRORS.md §1.3). It was the
    /// default before the fitted one.
    pub fn stress() -> Self {
        RberModel {
            base: 1.0e-5,
            pe_coeff: 2.0e-10,
            pe_exp: 2.0,
            ret_coeff: 0.02,
            ret_exp: 0.25,
            rd_coeff: 1.0e-6,
            page_type_scale: vec![0.6, 1.0, 1.4],
        }
    }

    /// The raw bit error rate of one page read, clamped to `[0, 0.5]`.
    pub fn rber(&self, pe_cycles: u32, age_s: f64, reads: u64, page_type: u32) -> f64 {
        let pe = self.base + self.pe_coeff * f64::from(pe_cycles).powf(self.pe_exp);
        let ret = 1.0 + self.ret_coeff * age_s.max(0.0).powf(self.ret_exp);
        let rd = 1.0 + self.rd_coeff * reads as f64;
        let scale = self
            .page_type_scale
            .get(page_type as usize)
            .copied()
            .unwrap_or(1.0);
        (pe * ret * rd * scale).clamp(0.0, 0.5)
    }

    /// Every problem with the parameters, each naming its key.
    pub fn validate(&self) -> Vec<ErrorsError> {
        let mut errs = Vec::new();
        for (key, v) in [
            ("rber.base", self.base),
            ("rber.pe_coeff", self.pe_coeff),
            ("rber.pe_exp", self.pe_exp),
            ("rber.ret_coeff", self.ret_coeff),
            ("rber.ret_exp", self.ret_exp),
            ("rber.rd_coeff", self.rd_coeff),
        ] {
            if !v.is_finite() || v < 0.0 {
                errs.push(bad(key, format!("must be finite and >= 0, not {v}")));
            }
        }
        if self
            .page_type_scale
            .iter()
            .any(|s| !s.is_finite() || *s < 0.0)
        {
            let msg = "every entry must be finite and >= 0".to_string();
            errs.push(bad("rber.page_type_scale", msg));
        }
        errs
    }
}

/// One soft-decode tier: more correctable bits for a longer decode.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SoftTier {
    /// Bits per codeword this tier corrects.
    pub t: u32,
    /// Extra senses of the page this tier needs (soft information).
    pub senses: u32,
    /// Decode time of this tier, in nanoseconds.
    pub decode_ns: u64,
}

/// ECC strength, read-retry ladder and soft-decode tiers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct EccConfig {
    /// Bits per codeword (data and parity).
    pub codeword_bits: u32,
    /// Bits per codeword the hard decoder corrects.
    pub t: u32,
    /// Hard decode time per read, in nanoseconds.
    pub decode_ns: u64,
    /// Read-retry ladder: step `i` senses again with references that leave this
    /// fraction of the raw errors. Must not be empty.
    pub retry_factors: Vec<f64>,
    /// Soft-decode tiers tried after the ladder, in order.
    pub soft_tiers: Vec<SoftTier>,
}

impl Default for EccConfig {
    /// 1 KiB of data plus parity per codeword (LDPC-like), 72 bits hard, four retry
    /// steps and two soft tiers.
    fn default() -> Self {
        EccConfig {
            codeword_bits: 9216,
            t: 72,
            decode_ns: 2_000,
            retry_factors: vec![0.7, 0.5, 0.35, 0.25],
            soft_tiers: vec![
                SoftTier {
                    t: 120,
                    senses: 2,
                    decode_ns: 8_000,
                },
                SoftTier {
                    t: 180,
                    senses: 4,
                    decode_ns: 20_000,
                },
            ],
        }
    }
}

/// What a page read needed to decode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOutcome {
    /// Read-retry steps taken (each a sense, a transfer and a hard decode).
    pub retries: u32,
    /// Soft-decode tiers taken (0 when the ladder sufficed).
    pub soft_tiers: u32,
    /// No step corrected every codeword: the data must come from elsewhere.
    pub uncorrectable: bool,
}

/// The per-step times a [`ReadOutcome`] is charged with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepTimes {
    /// Array sense time of the page, in nanoseconds.
    pub sense_ns: u64,
    /// Bus transfer time of the page, in nanoseconds.
    pub xfer_ns: u64,
}

impl ReadOutcome {
    /// Die, bus and decode time beyond the first sense, transfer and hard decode.
    pub fn extra_ns(&self, ecc: &EccConfig, t: StepTimes) -> u64 {
        let step = t.sense_ns + t.xfer_ns + ecc.decode_ns;
        let mut ns = u64::from(self.retries) * step;
        for tier in ecc.soft_tiers.iter().take(self.soft_tiers as usize) {
            ns += u64::from(tier.senses) * (t.sense_ns + t.xfer_ns) + tier.decode_ns;
        }
        ns
    }

    /// Senses beyond the first: the retry steps' and the soft tiers'. Each also moves
    /// the page over the bus again.
    pub fn extra_senses(&self, ecc: &EccConfig) -> u32 {
        let soft: u32 = ecc
            .soft_tiers
            .iter()
            .take(self.soft_tiers as usize)
            .map(|t| t.senses)
            .sum();
        self.retries + soft
    }

    /// Decode time beyond the first hard decode: a hard decode per retry step and each
    /// soft tier's decode.
    pub fn extra_decode_ns(&self, ecc: &EccConfig) -> u64 {
        let soft: u64 = ecc
            .soft_tiers
            .iter()
            .take(self.soft_tiers as usize)
            .map(|t| t.decode_ns)
            .sum();
        u64::from(self.retries) * ecc.decode_ns + soft
    }
}

impl EccConfig {
    /// Every problem with the settings, each naming its key.
    pub fn validate(&self) -> Vec<ErrorsError> {
        let mut errs = Vec::new();
        if self.codeword_bits == 0 {
            errs.push(bad("ecc.codeword_bits", "must be at least 1".into()));
        }
        if self.t > self.codeword_bits {
            let msg = format!("{} exceeds codeword_bits {}", self.t, self.codeword_bits);
            errs.push(bad("ecc.t", msg));
        }
        if self.retry_factors.is_empty() {
            errs.push(bad(
                "ecc.retry_factors",
                "the ladder needs at least one step".into(),
            ));
        }
        if self
            .retry_factors
            .iter()
            .any(|f| !f.is_finite() || *f <= 0.0 || *f > 1.0)
        {
            errs.push(bad(
                "ecc.retry_factors",
                "every step must be in (0, 1]".into(),
            ));
        }
        if self.soft_tiers.iter().any(|s| s.t > self.codeword_bits) {
            let msg = "a tier's t exceeds codeword_bits".to_string();
            errs.push(bad("ecc.soft_tiers", msg));
        }
        errs
    }

    /// Decodes a read of `codewords` codewords at raw bit error rate `rber`. `draw`
    /// yields uniforms in `[0, 1)`: one per codeword, reused for every step, so a
    /// codeword that is bad stays bad as the effective RBER falls (the draws are the
    /// codeword's quantile of its error count).
    pub fn decode(&self, rber: f64, codewords: u32, draw: &mut impl FnMut() -> f64) -> ReadOutcome {
        let mean = rber * f64::from(self.codeword_bits);
        // The worst codeword decides: the highest quantile among them.
        let q = (0..codewords).map(|_| draw()).fold(0.0_f64, f64::max);
        let errors_at = |m: f64| poisson_quantile(m, q);
        if errors_at(mean) <= self.t {
            return ReadOutcome::default();
        }
        let mut out = ReadOutcome::default();
        let mut m = mean;
        for f in &self.retry_factors {
            out.retries += 1;
            m = mean * f;
            if errors_at(m) <= self.t {
                return out;
            }
        }
        let errors = errors_at(m);
        for tier in &self.soft_tiers {
            out.soft_tiers += 1;
            if errors <= tier.t {
                return out;
            }
        }
        out.uncorrectable = true;
        out
    }
}

/// The smallest `k` with `P(Poisson(mean) <= k) > q`; a normal approximation above a
/// mean of 200, where the sum would be slow.
fn poisson_quantile(mean: f64, q: f64) -> u32 {
    if mean <= 0.0 {
        return 0;
    }
    if mean > 200.0 {
        let z = normal_quantile(q);
        return (mean + z * mean.sqrt()).max(0.0).round() as u32;
    }
    let mut p = (-mean).exp();
    let mut cdf = p;
    let mut k = 0u32;
    while cdf <= q && k < 10_000 {
        k += 1;
        p *= mean / f64::from(k);
        cdf += p;
    }
    k
}

/// Inverse of the standard normal CDF (Acklam's rational approximation; |error| < 1.2e-9).
fn normal_quantile(q: f64) -> f64 {
    let q = q.clamp(1e-12, 1.0 - 1e-12);
    let a = [
        -39.696_830_286_653_76,
        220.946_098_424_520_5,
        -275.928_510_446_968_7,
        138.357_751_867_269,
        -30.664_798_066_147_16,
        2.506_628_277_459_239,
    ];
    let b = [
        -54.476_098_798_224_06,
        161.585_836_858_040_9,
        -155.698_979_859_886_6,
        66.801_311_887_719_72,
        -13.280_681_552_885_72,
    ];
    let c = [
        -0.007_784_894_002_430_293,
        -0.322_396_458_041_136_4,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    let d = [
        0.007_784_695_709_041_462,
        0.322_467_129_070_039_8,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let tail = |r: f64| {
        (((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5])
            / ((((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1.0)
    };
    if q < 0.02425 {
        tail((-2.0 * q.ln()).sqrt())
    } else if q > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - q).ln()).sqrt())
    } else {
        let u = q - 0.5;
        let r = u * u;
        (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * u
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0)
    }
}

/// The error model of one run: its parameters and the seed of its draws.
///
/// A page's draws are a function of the run's seed and the page's *version* (its
/// address and when it was programmed), not of the order of reads: a codeword that is
/// bad stays bad at every read of the same data, as its errors sit in its cells, while
/// the RBER it is drawn at grows with wear, age and read disturb. Data programmed again
/// (moved, rewritten) draws afresh.
#[derive(Clone, Debug)]
pub struct ErrorModel {
    rber: RberModel,
    ecc: EccConfig,
    seed: u64,
}

/// What one page read costs and whether its data came back.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReadCharge {
    /// The raw bit error rate the page was read at.
    pub rber: f64,
    /// Steps the decode took.
    pub outcome: ReadOutcome,
    /// Die, bus and decode time beyond the first sense (the `T_retry` share).
    pub extra_ns: u64,
}

impl ErrorModel {
    /// Validates both parts; the seed of the draws is the first of the stream
    /// `"errors"` forked from the run's seed stream.
    pub fn new(
        rber: RberModel,
        ecc: EccConfig,
        run_rng: &ssdlab_engine::SimRng,
    ) -> Result<Self, Vec<ErrorsError>> {
        let mut errs = rber.validate();
        errs.extend(ecc.validate());
        if !errs.is_empty() {
            return Err(errs);
        }
        Ok(ErrorModel {
            rber,
            ecc,
            seed: run_rng.fork("errors").next_u64(),
        })
    }

    /// The ECC settings the model decodes with.
    pub fn ecc(&self) -> &EccConfig {
        &self.ecc
    }

    /// One read of page version `page` (any key naming the page and its program, see
    /// the type's note) of `codewords` codewords: its RBER from the block's wear, the
    /// page's age and the block's read count, then the decode and its time.
    #[allow(clippy::too_many_arguments)]
    pub fn read(
        &self,
        page: u64,
        pe_cycles: u32,
        age_s: f64,
        reads: u64,
        page_type: u32,
        codewords: u32,
        times: StepTimes,
    ) -> ReadCharge {
        let rber = self.rber.rber(pe_cycles, age_s, reads, page_type);
        // SplitMix64 over the page's key: one uniform per codeword, the same at every
        // read of the version.
        let mut x = self.seed ^ page.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let mut draw = || {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            unit(z ^ (z >> 31))
        };
        let outcome = self.ecc.decode(rber, codewords, &mut draw);
        ReadCharge {
            rber,
            outcome,
            extra_ns: outcome.extra_ns(&self.ecc, times),
        }
    }
}

/// A uniform in `[0, 1)` from the top 53 bits.
fn unit(x: u64) -> f64 {
    (x >> 11) as f64 / (1u64 << 53) as f64
}

fn bad(key: &'static str, message: String) -> ErrorsError {
    ErrorsError { key, message }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssdlab_engine::SimRng;

    fn uniform(rng: &mut SimRng) -> f64 {
        (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    #[test]
    fn rber_grows_with_wear_age_reads_and_page_type() {
        let m = RberModel::stress();
        let fresh = m.rber(0, 0.0, 0, 1);
        assert!((fresh - 1.0e-5).abs() < 1e-12);
        assert!(m.rber(3000, 0.0, 0, 1) > 100.0 * fresh);
        assert!(m.rber(1000, 3.15e7, 0, 1) > m.rber(1000, 3600.0, 0, 1));
        assert!(m.rber(1000, 0.0, 100_000, 1) > m.rber(1000, 0.0, 0, 1));
        assert!(m.rber(1000, 0.0, 0, 2) > m.rber(1000, 0.0, 0, 0));
        // A page type past the list is scaled by 1.
        assert_eq!(m.rber(1000, 0.0, 0, 7), m.rber(1000, 0.0, 0, 1));
        assert_eq!(m.rber(u32::MAX, 1e12, u64::MAX, 2), 0.5);
    }

    #[test]
    fn the_default_is_the_fit_to_li_et_al_and_meets_its_points() {
        // Fig. 4(a) of Li et al. (HotStorage '21), CT flash B, a year at 25 °C (page
        // average: the mean of the three page types' scales is 1), and Fig. 5(b)'s MSB
        // line at 1K P/E: the fit is within 5 % of each.
        let m = RberModel::default();
        let year = 3.1622e7;
        let avg = |pe| (0..3).map(|t| m.rber(pe, year, 0, t)).sum::<f64>() / 3.0;
        for (pe, measured) in [
            (1, 6.369e-4),
            (1000, 1.315e-3),
            (3000, 2.227e-3),
            (5000, 3.305e-3),
        ] {
            let r = avg(pe) / measured;
            assert!((0.95..1.05).contains(&r), "{pe} P/E: {r}");
        }
        let msb = m.rber(1000, year, 0, 2) / 1.949e-3;
        assert!((0.95..1.05).contains(&msb), "MSB: {msb}");
        // Wear grows about linearly; a year of retention multiplies the fresh rate ~24×.
        assert!(m.rber(6000, 0.0, 0, 1) < 7.0 * m.rber(1000, 0.0, 0, 1));
        let aged = m.rber(1000, year, 0, 1) / m.rber(1000, 0.0, 0, 1);
        assert!((20.0..28.0).contains(&aged), "{aged}");
        assert!(RberModel::stress().validate().is_empty());
    }

    #[test]
    fn fitted_form_is_exact() {
        let m = RberModel {
            page_type_scale: vec![2.0],
            ..RberModel::stress()
        };
        let want = (1.0e-5 + 2.0e-10 * 2000f64.powi(2))
            * (1.0 + 0.02 * 10_000f64.powf(0.25))
            * (1.0 + 1.0e-6 * 500.0)
            * 2.0;
        assert!((m.rber(2000, 10_000.0, 500, 0) - want).abs() < 1e-15);
    }

    #[test]
    fn low_rber_needs_nothing_high_rber_is_uncorrectable() {
        let ecc = EccConfig::default();
        let mut rng = SimRng::new(1);
        let mut draw = || uniform(&mut rng);
        assert_eq!(ecc.decode(1e-5, 16, &mut draw), ReadOutcome::default());
        assert!(ecc.decode(0.2, 16, &mut draw).uncorrectable);
        assert_eq!(ecc.decode(0.0, 16, &mut draw), ReadOutcome::default());
    }

    #[test]
    fn ladder_then_soft_tiers_in_order() {
        let ecc = EccConfig::default();
        // Mean errors 100 at q = 0.5: the hard limit 72 fails, 0.7 → 70 passes.
        let one = ecc.decode(100.0 / 9216.0, 1, &mut || 0.5);
        assert_eq!(
            one,
            ReadOutcome {
                retries: 1,
                soft_tiers: 0,
                uncorrectable: false
            }
        );
        // Mean 400: 0.25 → 100 > 72 after the whole ladder; the first soft tier (120) fixes it.
        let soft = ecc.decode(400.0 / 9216.0, 1, &mut || 0.5);
        assert_eq!(
            soft,
            ReadOutcome {
                retries: 4,
                soft_tiers: 1,
                uncorrectable: false
            }
        );
        // Mean 1000: 250 after the ladder, beyond every tier.
        let lost = ecc.decode(1000.0 / 9216.0, 1, &mut || 0.5);
        assert_eq!(
            lost,
            ReadOutcome {
                retries: 4,
                soft_tiers: 2,
                uncorrectable: true
            }
        );
    }

    #[test]
    fn retry_ladder_timing() {
        let ecc = EccConfig::default();
        let t = StepTimes {
            sense_ns: 60_000,
            xfer_ns: 10_000,
        };
        assert_eq!(ReadOutcome::default().extra_ns(&ecc, t), 0);
        let r = ReadOutcome {
            retries: 3,
            soft_tiers: 0,
            uncorrectable: false,
        };
        assert_eq!(r.extra_ns(&ecc, t), 3 * 72_000);
        let s = ReadOutcome {
            retries: 4,
            soft_tiers: 2,
            uncorrectable: true,
        };
        let soft = 2 * 70_000 + 8_000 + 4 * 70_000 + 20_000;
        assert_eq!(s.extra_ns(&ecc, t), 4 * 72_000 + soft);
        // The split the back end charges: senses (each with a transfer) and decodes.
        assert_eq!(r.extra_senses(&ecc), 3);
        assert_eq!(r.extra_decode_ns(&ecc), 3 * 2_000);
        assert_eq!(s.extra_senses(&ecc), 4 + 2 + 4);
        assert_eq!(s.extra_decode_ns(&ecc), 4 * 2_000 + 8_000 + 20_000);
        for o in [r, s] {
            let split = u64::from(o.extra_senses(&ecc)) * 70_000 + o.extra_decode_ns(&ecc);
            assert_eq!(split, o.extra_ns(&ecc, t));
        }
    }

    #[test]
    fn same_seed_same_errors() {
        let ecc = EccConfig::default();
        let m = RberModel::stress();
        let run = |seed| {
            let mut rng = SimRng::new(seed).fork("errors");
            (0..2000u32)
                .map(|i| {
                    let rber = m.rber(i * 5, f64::from(i) * 1e4, u64::from(i), i % 3);
                    ecc.decode(rber, 16, &mut || uniform(&mut rng))
                })
                .collect::<Vec<_>>()
        };
        let a = run(7);
        assert_eq!(a, run(7));
        assert_ne!(a, run(8));
        assert!(a.iter().any(|o| o.retries > 0));
        assert!(a.iter().any(|o| o.uncorrectable));
    }

    #[test]
    fn poisson_quantile_matches_mean_and_normal_branch() {
        assert_eq!(poisson_quantile(0.0, 0.9), 0);
        assert_eq!(poisson_quantile(1.0, 0.3), 0); // P(0) = 0.368
        assert_eq!(poisson_quantile(1.0, 0.5), 1);
        let m = poisson_quantile(1000.0, 0.5);
        assert!((995..=1005).contains(&m));
        assert!(poisson_quantile(1000.0, 0.99) > 1060);
        assert!((normal_quantile(0.975) - 1.959_964).abs() < 1e-5);
    }

    #[test]
    fn bad_settings_are_named() {
        let m = RberModel {
            base: -1.0,
            pe_exp: f64::NAN,
            ..RberModel::default()
        };
        let keys: Vec<_> = m.validate().iter().map(|e| e.key).collect();
        assert_eq!(keys, ["rber.base", "rber.pe_exp"]);
        let e = EccConfig {
            t: 10_000,
            retry_factors: vec![],
            ..EccConfig::default()
        };
        let keys: Vec<_> = e.validate().iter().map(|e| e.key).collect();
        assert_eq!(keys, ["ecc.t", "ecc.retry_factors"]);
        assert!(RberModel::default().validate().is_empty());
        assert!(EccConfig::default().validate().is_empty());
        assert_eq!(
            e.validate()[0].to_string(),
            "errors.ecc.t: 10000 exceeds codeword_bits 9216"
        );
    }

    #[test]
    fn a_page_versions_draws_do_not_depend_on_the_read_order() {
        let m =
            ErrorModel::new(RberModel::stress(), EccConfig::default(), &SimRng::new(7)).unwrap();
        let t = StepTimes {
            sense_ns: 60_000,
            xfer_ns: 10_000,
        };
        // Near the hard limit, where the draw decides.
        let at = |page: u64| m.read(page, 6000, 0.0, 0, 1, 16, t).outcome;
        let first: Vec<_> = (0..200).map(at).collect();
        let again: Vec<_> = (0..200).rev().map(at).collect();
        assert!(
            first.iter().eq(again.iter().rev()),
            "the same page reads the same"
        );
        assert!(first.iter().any(|o| o.retries > 0) && first.iter().any(|o| o.retries == 0));
        // Another seed, other draws.
        let other =
            ErrorModel::new(RberModel::stress(), EccConfig::default(), &SimRng::new(8)).unwrap();
        let second: Vec<_> = (0..200)
            .map(|p| other.read(p, 6000, 0.0, 0, 1, 16, t).outcome)
            .collect();
        assert_ne!(first, second);
    }

    #[test]
    fn error_model_charges_retry_time_deterministically() {
        let seed = SimRng::new(42);
        let t = StepTimes {
            sense_ns: 60_000,
            xfer_ns: 10_000,
        };
        let run = |rng: &SimRng| {
            let m = ErrorModel::new(RberModel::default(), EccConfig::default(), rng).unwrap();
            (0..500u32)
                .map(|i| m.read(u64::from(i), 3000 + i * 10, 3.15e7, 0, i % 3, 16, t))
                .collect::<Vec<_>>()
        };
        let a = run(&seed);
        assert_eq!(a, run(&SimRng::new(42)));
        let ecc = EccConfig::default();
        for c in &a {
            assert_eq!(c.extra_ns, c.outcome.extra_ns(&ecc, t));
        }
        assert!(a.iter().any(|c| c.extra_ns > 0));
        let bad = RberModel {
            rd_coeff: f64::INFINITY,
            ..RberModel::default()
        };
        let errs = ErrorModel::new(bad, EccConfig::default(), &seed).unwrap_err();
        assert_eq!(errs[0].key, "rber.rd_coeff");
    }

    proptest::proptest! {
        #[test]
        fn decode_is_monotone_in_rber(a in 0.0f64..0.05, b in 0.0f64..0.05, q in 0.0f64..1.0) {
            let ecc = EccConfig::default();
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            let rank = |o: ReadOutcome| (o.uncorrectable, o.retries + o.soft_tiers);
            proptest::prop_assert!(
                rank(ecc.decode(lo, 1, &mut || q)) <= rank(ecc.decode(hi, 1, &mut || q))
            );
        }
    }
}
