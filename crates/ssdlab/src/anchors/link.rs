//! The host link (`[host.pcie]`, docs/HOST.md §6) in the reference simulators' files.
//!
//! MQSim always moves a request over its PCIe link (`src/host/PCIe_Link.{h,cpp}`,
//! CMU-SAFARI/MQSim 7ec40e3): `PCIe_Lane_Count` lanes of `PCIe_Lane_Bandwidth` GB/s,
//! data split into TLPs of at most 128 bytes, each adding 20 bytes of header, 6 of the
//! Data Link Layer and 2 of framing (constants of its `PCIe_Link` constructor, not
//! parameters). The import sets ssdlab's link to the same wire bytes per TLP; docs/IMPORT.md
//! lists what still differs (the messages per command). SSDsim has no link.

use super::error::ImportError;
use super::params::Params;
use super::value::{float_at, int_at, lookup, Exported, Outcome, Val};
use crate::sim::pcie_generation_rate;

/// MQSim's Max Payload Size (`tlp_max_payload_size`).
pub const MQ_MAX_PAYLOAD: i64 = 128;
/// MQSim's bytes per TLP on top of its payload: `tlp_header_size` 20 + `dllp_ovehread`
/// 6 + `ph_overhead` 2.
pub const MQ_TLP_OVERHEAD: i64 = 28;

/// The lane counts ssdlab's link accepts.
const LANES: [i64; 5] = [1, 2, 4, 8, 16];

const NO_LINK: &str = "ssdlab's configuration has no host link (host.pcie off: a request's data reaches the device in zero time); MQSim always moves it over its PCIe link, so the base file's link or MQSim's default (4 lanes of 0.4 GB/s) applies";

/// Whether the configuration `cfg` (as TOML) has a link, and its `[host.pcie]` table.
fn link(cfg: &toml::Table) -> Option<&toml::Table> {
    let t = lookup(cfg, "host.pcie")?.as_table()?;
    let num = |k: &str| {
        t.get(k)
            .and_then(|v| v.as_float().or(v.as_integer().map(|i| i as f64)))
    };
    let on =
        num("generation").unwrap_or(0.0) > 0.0 || num("lane_gbytes_per_s").unwrap_or(0.0) > 0.0;
    on.then_some(t)
}

/// `host.pcie.lanes` from `[PCIe_Lane_Count]`.
pub fn mq_lanes(p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
    let n = p.int(names[0], 1, i64::from(u32::MAX))?;
    if !LANES.contains(&n) {
        return Err(p.bad(names[0], "ssdlab's link has 1, 2, 4, 8 or 16 lanes"));
    }
    Ok(Outcome::exact(Val::Int(n)))
}

/// `host.pcie.lane_gbytes_per_s` from `[PCIe_Lane_Bandwidth]` (GB/s of one lane in one
/// direction in both simulators).
pub fn mq_rate(p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
    let bw = p.float(names[0], 0.0, f64::MAX, true)?;
    if bw <= 0.0 {
        return Err(p.bad(names[0], "must be above 0 GB/s"));
    }
    Ok(Outcome::exact(Val::Float(bw)))
}

/// `host.pcie.max_payload_bytes` (`payload`) or `tlp_overhead_bytes`: MQSim's constants.
pub fn mq_tlp(payload: bool) -> Outcome {
    let (v, why) = if payload {
        (
            MQ_MAX_PAYLOAD,
            "no parameter: PCIe_Link's constant tlp_max_payload_size",
        )
    } else {
        (
            MQ_TLP_OVERHEAD,
            "no parameter: PCIe_Link's constants, TLP header 20 + DLLP 6 + framing 2 bytes",
        )
    };
    Outcome::Value {
        value: Val::Int(v),
        note: Some(why.into()),
        approx: Vec::new(),
    }
}

/// Export of [`mq_lanes`]: the lane count when there is a link (else the rate row says
/// why nothing is written).
pub fn export_lanes(cfg: &toml::Table, key: &str, names: &[&str]) -> Result<Exported, String> {
    if link(cfg).is_none() {
        return Ok(Exported::default());
    }
    Ok(Exported::one(names[0], int_at(cfg, key)?))
}

/// Export of [`mq_rate`]: the lane bandwidth, set or from the generation; refused
/// without a link (MQSim cannot have none).
pub fn export_rate(cfg: &toml::Table, key: &str, names: &[&str]) -> Result<Exported, String> {
    let Some(t) = link(cfg) else {
        return Err(NO_LINK.into());
    };
    let bw = float_at(cfg, key)?;
    if bw > 0.0 {
        return Ok(Exported::one(names[0], bw));
    }
    let g = t
        .get("generation")
        .and_then(toml::Value::as_integer)
        .unwrap_or(0);
    let (gt, code) = pcie_generation_rate(u32::try_from(g).map_err(|e| e.to_string())?);
    let bw = gt * code / 8.0;
    Ok(Exported::one(names[0], bw).with_note(format!(
        "PCIe generation {g}: {bw} GB/s per lane after its line code"
    )))
}

/// Export of [`mq_tlp`]: nothing to write; refused when ssdlab's link differs from
/// MQSim's constant.
pub fn export_tlp(cfg: &toml::Table, key: &str, payload: bool) -> Result<Exported, String> {
    if link(cfg).is_none() {
        return Ok(Exported::default());
    }
    let Outcome::Value {
        value: Val::Int(want),
        note,
        ..
    } = mq_tlp(payload)
    else {
        unreachable!("mq_tlp gives an integer")
    };
    let v = int_at(cfg, key)?;
    if v == want {
        Ok(Exported::default())
    } else {
        Err(format!(
            "{v}: MQSim cannot change it, {want} ({})",
            note.unwrap_or_default()
        ))
    }
}

/// SSDsim's side of the link keys: nothing imported; an ssdlab link cannot be exported.
pub fn ss_none() -> Outcome {
    Outcome::Skip(
        "SSDsim has no host link: a request reaches the device at its arrival time".into(),
    )
}

/// Export of [`ss_none`]: refused when there is a link (once, on the bandwidth's key).
pub fn export_none(cfg: &toml::Table, key: &str) -> Result<Exported, String> {
    match link(cfg) {
        Some(_) if key.ends_with("lane_gbytes_per_s") => Err("SSDsim has no host link: a request reaches the device at its arrival time, its data in zero time".into()),
        _ => Ok(Exported::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anchors::{Loc, Param, Simulator};

    fn params(pairs: &[(&str, &str)]) -> Params {
        let items = pairs
            .iter()
            .map(|(n, v)| Param {
                name: n.to_string(),
                value: v.to_string(),
                loc: Loc::Element {
                    path: format!("Host_Parameter_Set/{n}"),
                    line: 3,
                },
            })
            .collect();
        Params::new(
            Simulator::MqSim,
            "t.xml",
            items,
            super::super::mqsim::DEFAULTS,
        )
        .unwrap()
    }

    fn cfg(text: &str) -> toml::Table {
        text.parse().unwrap()
    }

    #[test]
    fn lanes_and_rate_are_read_or_refused_by_name() {
        let mut p = params(&[("PCIe_Lane_Count", "8")]);
        assert_eq!(
            mq_lanes(&mut p, &["PCIe_Lane_Count"]).unwrap(),
            Outcome::exact(Val::Int(8))
        );
        let mut p = params(&[("PCIe_Lane_Count", "3")]);
        let e = mq_lanes(&mut p, &["PCIe_Lane_Count"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("PCIe_Lane_Count") && e.contains("1, 2, 4, 8 or 16") && e.contains("t.xml"),
            "{e}"
        );
        let mut p = params(&[]);
        assert_eq!(
            mq_rate(&mut p, &["PCIe_Lane_Bandwidth"]).unwrap(),
            Outcome::exact(Val::Float(0.4)),
            "MQSim's default lane: 0.4 GB/s"
        );
        assert_eq!(
            mq_lanes(&mut p, &["PCIe_Lane_Count"]).unwrap(),
            Outcome::exact(Val::Int(4))
        );
        for bad in ["0", "-1", "fast"] {
            let mut p = params(&[("PCIe_Lane_Bandwidth", bad)]);
            let e = mq_rate(&mut p, &["PCIe_Lane_Bandwidth"])
                .unwrap_err()
                .to_string();
            assert!(e.contains("PCIe_Lane_Bandwidth"), "{e}");
        }
    }

    #[test]
    fn tlp_constants_are_mqsims() {
        let Outcome::Value { value, .. } = mq_tlp(true) else {
            panic!()
        };
        assert_eq!(value, Val::Int(128));
        let Outcome::Value { value, .. } = mq_tlp(false) else {
            panic!()
        };
        assert_eq!(value, Val::Int(28));
    }

    #[test]
    fn export_writes_the_link_or_says_mqsim_cannot_do_without() {
        let off = cfg("[host]\ndevice_queue_depth = 8\n");
        assert_eq!(
            export_lanes(&off, "host.pcie.lanes", &["PCIe_Lane_Count"]).unwrap(),
            Exported::default()
        );
        let e = export_rate(
            &off,
            "host.pcie.lane_gbytes_per_s",
            &["PCIe_Lane_Bandwidth"],
        )
        .unwrap_err();
        assert!(e.contains("no host link"), "{e}");
        assert_eq!(
            export_tlp(&off, "host.pcie.tlp_overhead_bytes", false).unwrap(),
            Exported::default()
        );
        assert_eq!(
            export_none(&off, "host.pcie.lane_gbytes_per_s").unwrap(),
            Exported::default()
        );

        let mq = cfg("[host.pcie]\nlanes = 8\nlane_gbytes_per_s = 1.5\nmax_payload_bytes = 128\ntlp_overhead_bytes = 28\ngeneration = 0\n");
        assert_eq!(
            export_lanes(&mq, "host.pcie.lanes", &["PCIe_Lane_Count"])
                .unwrap()
                .params,
            [("PCIe_Lane_Count".to_string(), "8".to_string())]
        );
        assert_eq!(
            export_rate(&mq, "host.pcie.lane_gbytes_per_s", &["PCIe_Lane_Bandwidth"])
                .unwrap()
                .params,
            [("PCIe_Lane_Bandwidth".to_string(), "1.5".to_string())]
        );
        assert!(export_tlp(&mq, "host.pcie.max_payload_bytes", true).is_ok());
        assert!(export_tlp(&mq, "host.pcie.tlp_overhead_bytes", false).is_ok());
        assert!(export_none(&mq, "host.pcie.lane_gbytes_per_s")
            .unwrap_err()
            .contains("SSDsim has no host link"));
        assert!(
            export_none(&mq, "host.pcie.lanes").is_ok(),
            "said once, on the bandwidth"
        );

        let gen3 = cfg("[host.pcie]\nlanes = 4\nlane_gbytes_per_s = 0.0\nmax_payload_bytes = 256\ntlp_overhead_bytes = 24\ngeneration = 3\n");
        let e = export_rate(
            &gen3,
            "host.pcie.lane_gbytes_per_s",
            &["PCIe_Lane_Bandwidth"],
        )
        .unwrap();
        let bw: f64 = e.params[0].1.parse().unwrap();
        assert!((bw - 8.0 * 128.0 / 130.0 / 8.0).abs() < 1e-12, "{bw}");
        assert!(e.note.unwrap().contains("generation 3"));
        let e = export_tlp(&gen3, "host.pcie.max_payload_bytes", true).unwrap_err();
        assert!(e.contains("256") && e.contains("128"), "{e}");
        let e = export_tlp(&gen3, "host.pcie.tlp_overhead_bytes", false).unwrap_err();
        assert!(e.contains("24") && e.contains("28"), "{e}");
    }
}
