//! `[host.pcie]`: the PCIe link between host and device (docs/HOST.md §6). Off by
//! default: with `generation = 0` and no `lane_gbytes_per_s` there is no link, and the
//! section is not written out.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Every host↔device transfer crosses it; on when `generation` or `lane_gbytes_per_s`
/// is set (docs/HOST.md §6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PcieConfig {
    /// PCI Express generation, 1 to 5 (its signalling rate and line encoding); 0: no
    /// link, unless `lane_gbytes_per_s` gives one.
    #[schemars(range(min = 0, max = 5))]
    pub generation: u32,
    /// Lanes of the link: 1, 2, 4, 8 or 16.
    #[schemars(extend("x-unit" = "lanes"))]
    pub lanes: u32,
    /// Bandwidth of one lane in one direction, in GB/s (10^9 bytes/s), instead of the
    /// generation's (MQSim's `PCIe_Lane_Bandwidth`); 0: from `generation`.
    #[schemars(extend("x-unit" = "GB/s"))]
    pub lane_gbytes_per_s: f64,
    /// Max Payload Size: the most data bytes one TLP carries.
    #[schemars(range(min = 1), extend("x-unit" = "bytes"))]
    pub max_payload_bytes: u32,
    /// Bytes each TLP adds on the wire: header, sequence number, LCRC and framing.
    #[schemars(extend("x-unit" = "bytes"))]
    pub tlp_overhead_bytes: u32,
}

impl Default for PcieConfig {
    fn default() -> Self {
        PcieConfig {
            generation: 0,
            lanes: 4,
            lane_gbytes_per_s: 0.0,
            max_payload_bytes: 256,
            tlp_overhead_bytes: 24,
        }
    }
}

impl PcieConfig {
    /// True for the default (nothing set: not written out).
    pub fn is_default(&self) -> bool {
        *self == PcieConfig::default()
    }

    /// True when there is a link.
    pub fn is_on(&self) -> bool {
        self.generation > 0 || self.lane_gbytes_per_s != 0.0
    }

    /// The refusals: `(key, message)`.
    pub fn validate(&self) -> Vec<(String, String)> {
        let mut errs = Vec::new();
        let mut no = |k: &str, m: String| errs.push((format!("host.pcie.{k}"), m));
        if self.generation > 5 {
            no(
                "generation",
                format!("must be 1 to 5 (0: no link), found {}", self.generation),
            );
        }
        if ![1, 2, 4, 8, 16].contains(&self.lanes) {
            no(
                "lanes",
                format!("must be 1, 2, 4, 8 or 16, found {}", self.lanes),
            );
        }
        let bw = self.lane_gbytes_per_s;
        if !(bw.is_finite() && bw >= 0.0) {
            no(
                "lane_gbytes_per_s",
                format!("must be a finite number ≥ 0 (0: from the generation), found {bw}"),
            );
        }
        if self.max_payload_bytes == 0 {
            no("max_payload_bytes", "must be at least 1".into());
        }
        errs
    }
}

#[cfg(test)]
mod tests {
    use super::PcieConfig;

    #[test]
    fn the_default_is_off_and_valid() {
        let c = PcieConfig::default();
        assert!(!c.is_on());
        assert!(c.validate().is_empty());
        let on = PcieConfig {
            generation: 3,
            ..c.clone()
        };
        assert!(on.is_on());
        let mq = PcieConfig {
            lane_gbytes_per_s: 1.0,
            ..c
        };
        assert!(mq.is_on());
    }

    #[test]
    fn bad_values_are_refused_by_key() {
        let keys =
            |c: PcieConfig| -> Vec<String> { c.validate().into_iter().map(|(k, _)| k).collect() };
        let d = PcieConfig::default;
        let g6 = PcieConfig {
            generation: 6,
            ..d()
        };
        assert_eq!(keys(g6), ["host.pcie.generation"]);
        let x3 = PcieConfig { lanes: 3, ..d() };
        assert_eq!(keys(x3), ["host.pcie.lanes"]);
        let nan = PcieConfig {
            lane_gbytes_per_s: f64::NAN,
            ..d()
        };
        assert_eq!(keys(nan), ["host.pcie.lane_gbytes_per_s"]);
        let neg = PcieConfig {
            lane_gbytes_per_s: -1.0,
            ..d()
        };
        assert_eq!(keys(neg), ["host.pcie.lane_gbytes_per_s"]);
        let mps = PcieConfig {
            max_payload_bytes: 0,
            ..d()
        };
        assert_eq!(keys(mps), ["host.pcie.max_payload_bytes"]);
    }
}
