//! `[errors]`: bit errors, ECC and read retry (docs/ERRORS.md). Off by default; the
//! whole section is written to the resolved configuration only when a key is set.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ssdlab_nand::{EccConfig, RberModel};

/// Whether page reads go through the error model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorsMode {
    /// Every read decodes at once (no error model; today's timing).
    #[default]
    Off,
    /// Every page read draws its bit errors, pays its read retries and soft decodes,
    /// and an uncorrectable one is rebuilt from redundancy or reported as a media error.
    On,
}

/// The error model of a run: RBER, ECC, and the device's age at the start.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ErrorsConfig {
    /// `"off"` (default) or `"on"`.
    pub mode: ErrorsMode,
    /// P/E cycles every block has been through before the run (the device's age), on
    /// top of the erases the run and its preconditioning do.
    pub initial_pe: u32,
    /// Spread of `initial_pe` across blocks: the coefficient of variation of a normal
    /// distribution (0 = every block alike), clamped at 0 cycles.
    pub pe_spread: f64,
    /// Retention age, in seconds, at the start of the run of the data already on the
    /// device (the preconditioned pages).
    pub initial_age_s: f64,
    /// Read reclaim: a page read that needed at least this many read-retry steps and
    /// soft-decode tiers, or could not be corrected, has its block relocated (its
    /// valid pages moved to fresh blocks, then erased) as soon as its plane runs no
    /// GC. 0 (default) relocates nothing.
    pub reclaim_steps: u32,
    /// Grown bad blocks: the probability that a block erase fails at `rated_pe` P/E
    /// cycles; at `PE` cycles it is `erase_fail_prob × (PE / rated_pe)^fail_exp`,
    /// clamped to 1. A failed erase retires the block. 0 (default): erases never fail.
    #[serde(skip_serializing_if = "is_zero")]
    #[schemars(extend("default" = 0.0))]
    pub erase_fail_prob: f64,
    /// Grown bad blocks: the probability that a page program fails at `rated_pe` P/E
    /// cycles (same form as `erase_fail_prob`). The page's data is written again
    /// elsewhere: the block is closed, its valid pages moved out (`retire-*`
    /// transactions), and it is retired at its erase. 0 (default): programs never fail.
    #[serde(skip_serializing_if = "is_zero")]
    #[schemars(extend("default" = 0.0))]
    pub program_fail_prob: f64,
    /// P/E cycles at which `erase_fail_prob` and `program_fail_prob` apply (the
    /// rated endurance); at least 1.
    #[serde(skip_serializing_if = "default_rated_pe")]
    #[schemars(extend("x-unit" = "P/E cycles", "default" = 3000))]
    pub rated_pe: u32,
    /// Exponent of the wear dependence of the failure probabilities (the shape of a
    /// Weibull hazard: above 1, failures grow faster than wear); finite, >= 0.
    #[serde(skip_serializing_if = "default_fail_exp")]
    #[schemars(extend("default" = 2.0))]
    pub fail_exp: f64,
    /// Retention refresh: a full block whose oldest data is at least this many seconds
    /// old (`initial_age_s` counts) is relocated (`refresh-*` transactions). 0
    /// (default): no retention refresh.
    #[serde(skip_serializing_if = "is_zero")]
    #[schemars(extend("x-unit" = "s", "default" = 0.0))]
    pub refresh_age_s: f64,
    /// Retention refresh: seconds of simulated time between scans for old blocks (the
    /// first at the first transaction completion). Only with `refresh_age_s` > 0.
    #[serde(skip_serializing_if = "default_refresh_scan")]
    #[schemars(extend("x-unit" = "s", "default" = 3600.0))]
    pub refresh_scan_s: f64,
    /// Data bytes per ECC codeword: a page read decodes
    /// `ceil(page_size_bytes / codeword_data_bytes)` codewords.
    pub codeword_data_bytes: u32,
    /// The raw bit error rate model.
    pub rber: RberModel,
    /// ECC strength, the read-retry ladder and the soft-decode tiers.
    pub ecc: EccConfig,
}

impl Default for ErrorsConfig {
    fn default() -> Self {
        ErrorsConfig {
            mode: ErrorsMode::Off,
            initial_pe: 0,
            pe_spread: 0.0,
            initial_age_s: 0.0,
            reclaim_steps: 0,
            erase_fail_prob: 0.0,
            program_fail_prob: 0.0,
            rated_pe: DEFAULT_RATED_PE,
            fail_exp: DEFAULT_FAIL_EXP,
            refresh_age_s: 0.0,
            refresh_scan_s: DEFAULT_REFRESH_SCAN_S,
            codeword_data_bytes: 1024,
            rber: RberModel::default(),
            ecc: EccConfig::default(),
        }
    }
}

const DEFAULT_RATED_PE: u32 = 3000;
const DEFAULT_FAIL_EXP: f64 = 2.0;
const DEFAULT_REFRESH_SCAN_S: f64 = 3600.0;

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}
fn default_rated_pe(v: &u32) -> bool {
    *v == DEFAULT_RATED_PE
}
fn default_fail_exp(v: &f64) -> bool {
    *v == DEFAULT_FAIL_EXP
}
fn default_refresh_scan(v: &f64) -> bool {
    *v == DEFAULT_REFRESH_SCAN_S
}

impl ErrorsConfig {
    /// True when programs or erases can fail (grown bad blocks).
    pub fn bad_blocks_on(&self) -> bool {
        self.erase_fail_prob > 0.0 || self.program_fail_prob > 0.0
    }

    /// Every key at its default: left out of the resolved configuration.
    pub fn is_default(&self) -> bool {
        *self == ErrorsConfig::default()
    }

    /// True when reads go through the error model.
    pub fn is_on(&self) -> bool {
        self.mode == ErrorsMode::On
    }

    /// Codewords one page read decodes.
    pub fn codewords(&self, page_size_bytes: u32) -> u32 {
        page_size_bytes.div_ceil(self.codeword_data_bytes.max(1))
    }

    /// Every problem, as `(key, message)` with the key's full path; `page_size_bytes`
    /// bounds the codeword's data.
    pub fn validate(&self, page_size_bytes: u32) -> Vec<(String, String)> {
        let mut errs: Vec<(String, String)> = Vec::new();
        if !self.is_on() {
            if !self.is_default() {
                errs.push((
                    "errors.mode".into(),
                    "is \"off\" while other [errors] keys are set, which would be ignored: \
                     set errors.mode = \"on\" or leave [errors] out"
                        .into(),
                ));
            }
            return errs;
        }
        for e in self.rber.validate().into_iter().chain(self.ecc.validate()) {
            errs.push((format!("errors.{}", e.key), e.message));
        }
        if !(self.pe_spread.is_finite() && self.pe_spread >= 0.0) {
            errs.push((
                "errors.pe_spread".into(),
                format!("must be finite and >= 0, not {}", self.pe_spread),
            ));
        }
        if !(self.initial_age_s.is_finite() && self.initial_age_s >= 0.0) {
            errs.push((
                "errors.initial_age_s".into(),
                format!("must be finite and >= 0, not {}", self.initial_age_s),
            ));
        }
        self.validate_housekeeping(&mut errs);
        let data_bits = u64::from(self.codeword_data_bytes) * 8;
        if self.codeword_data_bytes == 0 || self.codeword_data_bytes > page_size_bytes {
            errs.push((
                "errors.codeword_data_bytes".into(),
                format!(
                    "must be in 1..={page_size_bytes} (geometry.page_size_bytes), not {}",
                    self.codeword_data_bytes
                ),
            ));
        } else if data_bits > u64::from(self.ecc.codeword_bits) {
            errs.push((
                "errors.codeword_data_bytes".into(),
                format!(
                    "{} data bits do not fit in errors.ecc.codeword_bits = {}",
                    data_bits, self.ecc.codeword_bits
                ),
            ));
        }
        errs
    }
}

impl ErrorsConfig {
    /// The problems of the grown-bad-block and retention-refresh keys.
    fn validate_housekeeping(&self, errs: &mut Vec<(String, String)>) {
        let mut push = |key: &str, msg: String| errs.push((format!("errors.{key}"), msg));
        for (key, p) in [
            ("erase_fail_prob", self.erase_fail_prob),
            ("program_fail_prob", self.program_fail_prob),
        ] {
            if !(0.0..=1.0).contains(&p) {
                push(key, format!("is a probability: must be in [0, 1], not {p}"));
            }
        }
        if self.rated_pe == 0 {
            push("rated_pe", "must be at least 1".into());
        }
        if !(self.fail_exp.is_finite() && self.fail_exp >= 0.0) {
            push(
                "fail_exp",
                format!("must be finite and >= 0, not {}", self.fail_exp),
            );
        }
        let failing = self.bad_blocks_on();
        if !failing && self.rated_pe != DEFAULT_RATED_PE {
            push(
                "rated_pe",
                "is set while errors.erase_fail_prob and errors.program_fail_prob are 0, \
                 which would ignore it"
                    .into(),
            );
        }
        if !failing && self.fail_exp != DEFAULT_FAIL_EXP {
            push(
                "fail_exp",
                "is set while errors.erase_fail_prob and errors.program_fail_prob are 0, \
                 which would ignore it"
                    .into(),
            );
        }
        if !(self.refresh_age_s.is_finite() && self.refresh_age_s >= 0.0) {
            push(
                "refresh_age_s",
                format!("must be finite and >= 0, not {}", self.refresh_age_s),
            );
        }
        if !(self.refresh_scan_s.is_finite() && self.refresh_scan_s > 0.0) {
            push(
                "refresh_scan_s",
                format!("must be finite and > 0, not {}", self.refresh_scan_s),
            );
        } else if self.refresh_age_s == 0.0 && self.refresh_scan_s != DEFAULT_REFRESH_SCAN_S {
            push(
                "refresh_scan_s",
                "is set while errors.refresh_age_s = 0 (no retention refresh), which would \
                 ignore it"
                    .into(),
            );
        }
    }
}

/// Every problem of `[errors]` within the whole configuration: its own keys, then the
/// layers the error model does not yet work with, each refused naming its key.
pub(super) fn validate(cfg: &super::SimConfig) -> Vec<(String, String)> {
    let e = &cfg.errors;
    let mut errs = e.validate(cfg.geometry.page_size_bytes.max(1));
    if !e.is_on() {
        return errs;
    }
    let mut refuse = |key: &str, why: &str| {
        errs.push((
            key.to_string(),
            format!("is not modelled with errors.mode = \"on\" yet: {why}"),
        ));
    };
    if cfg.scheduler.merge.reads != crate::sched::MergeReads::Off {
        refuse(
            "scheduler.merge.reads",
            "a merged read's followers would share an uncorrectable read's status",
        );
    }
    if cfg.ftl.mapping == ssdlab_ftl::MapMode::Cached {
        refuse(
            "ftl.mapping",
            "an uncorrectable translation-page read has no recovery path",
        );
    }
    if e.bad_blocks_on() && cfg.nand.slc_cache.is_on() {
        refuse(
            "nand.slc_cache.mode",
            "a failed program or erase of an SLC-mode block would leave the SLC region's \
             accounting (grown bad blocks: errors.erase_fail_prob, errors.program_fail_prob)",
        );
    }
    if cfg.nand.cache_mode.reads() {
        refuse(
            "nand.cache_mode",
            "a cache read overlaps the next sense with a transfer a retry would repeat",
        );
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on() -> ErrorsConfig {
        ErrorsConfig {
            mode: ErrorsMode::On,
            ..ErrorsConfig::default()
        }
    }

    #[test]
    fn the_default_is_off_and_valid() {
        let c = ErrorsConfig::default();
        assert!(!c.is_on() && c.is_default());
        assert!(c.validate(16384).is_empty());
        assert!(on().validate(16384).is_empty());
    }

    #[test]
    fn keys_set_while_off_are_refused() {
        let c = ErrorsConfig {
            initial_pe: 3000,
            ..ErrorsConfig::default()
        };
        let e = c.validate(16384);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].0, "errors.mode");
    }

    #[test]
    fn bad_housekeeping_values_name_their_keys() {
        let mut c = on();
        c.erase_fail_prob = 1.5;
        c.program_fail_prob = -0.1;
        c.rated_pe = 0;
        c.fail_exp = f64::INFINITY;
        c.refresh_age_s = f64::NAN;
        c.refresh_scan_s = 0.0;
        let keys: Vec<String> = c.validate(16384).into_iter().map(|e| e.0).collect();
        for k in [
            "errors.erase_fail_prob",
            "errors.program_fail_prob",
            "errors.rated_pe",
            "errors.fail_exp",
            "errors.refresh_age_s",
            "errors.refresh_scan_s",
        ] {
            assert!(keys.iter().any(|x| x == k), "{k} missing from {keys:?}");
        }
        // Keys that only shape a mode that is off are refused too.
        let mut c = on();
        c.rated_pe = 5000;
        c.refresh_scan_s = 60.0;
        let keys: Vec<String> = c.validate(16384).into_iter().map(|e| e.0).collect();
        assert_eq!(keys, ["errors.rated_pe", "errors.refresh_scan_s"]);
        c.program_fail_prob = 1e-4;
        c.refresh_age_s = 86400.0;
        assert!(c.validate(16384).is_empty());
        assert!(c.bad_blocks_on());
    }

    #[test]
    fn codewords_cover_the_page() {
        let c = on();
        assert_eq!(c.codewords(16384), 16);
        assert_eq!(c.codewords(4096 + 1), 5);
    }

    #[test]
    fn bad_values_name_their_keys() {
        let mut c = on();
        c.pe_spread = f64::NAN;
        c.initial_age_s = -1.0;
        c.codeword_data_bytes = 0;
        c.rber.base = -1.0;
        c.ecc.retry_factors.clear();
        c.ecc.t = c.ecc.codeword_bits + 1;
        let keys: Vec<String> = c.validate(16384).into_iter().map(|e| e.0).collect();
        for k in [
            "errors.pe_spread",
            "errors.initial_age_s",
            "errors.codeword_data_bytes",
            "errors.rber.base",
            "errors.ecc.retry_factors",
            "errors.ecc.t",
        ] {
            assert!(keys.iter().any(|x| x == k), "{k} missing from {keys:?}");
        }
        let mut c = on();
        c.codeword_data_bytes = 2048; // 16384 bits > 9216
        let e = c.validate(16384);
        assert!(e[0].1.contains("do not fit"), "{e:?}");
        c.codeword_data_bytes = 32768;
        assert!(c.validate(16384)[0].1.contains("1..=16384"));
    }
}
