//! A whole device file of MQSim or SSDsim from an ssdlab configuration: the
//! parameters [`super::export`] gives through the table, written either as a minimal
//! file (every other parameter keeps the simulator's default) or over a base file
//! (every other parameter keeps the base's value).

use super::{export, mqsim, Simulator};
use crate::config::SimConfig;

/// The parameters `cfg` gives `sim`, merged over the table's rows, and the keys the
/// simulator cannot represent (one line each: `key: why`, including two rows that write
/// one parameter with different values).
pub fn export_params(cfg: &SimConfig, sim: Simulator) -> (Vec<(String, String)>, Vec<String>) {
    let mut params: Vec<(String, String)> = Vec::new();
    let mut refused: Vec<String> = Vec::new();
    for (key, r) in export(cfg, sim) {
        match r {
            Err(why) => refused.push(format!("{key}: {why}")),
            Ok(e) => {
                for (n, v) in e.params {
                    match params.iter().find(|q| q.0 == n) {
                        Some(q) if q.1 != v => refused.push(format!(
                            "{key}: writes {n} = {v}, another key already wrote {}",
                            q.1
                        )),
                        Some(_) => {}
                        None => params.push((n, v)),
                    }
                }
            }
        }
    }
    (params, refused)
}

/// The device file of `sim` for `cfg`: over `base` (the text of a device file of the
/// same simulator) when given, else a minimal file holding only the table's parameters.
/// With `lenient`, keys the simulator cannot represent are left out and returned (the
/// simulator's default or the base's value applies to them).
///
/// # Errors
/// Without `lenient`: every key the simulator cannot represent, one per line.
pub fn export_file(
    cfg: &SimConfig,
    sim: Simulator,
    base: Option<&str>,
    lenient: bool,
) -> Result<(String, Vec<String>), String> {
    let (params, refused) = export_params(cfg, sim);
    if !lenient && !refused.is_empty() {
        return Err(format!(
            "{} cannot represent this configuration:\n  {}",
            sim.name(),
            refused.join("\n  ")
        ));
    }
    let text = match (sim, base) {
        (Simulator::SsdSim, None) => params
            .iter()
            .map(|(n, v)| format!("{n} = {v};\n"))
            .collect(),
        (Simulator::SsdSim, Some(b)) => overlay_ssdsim(b, &params),
        (Simulator::MqSim, None) => {
            let mut sections = [String::new(), String::new(), String::new()];
            for (n, v) in &params {
                let i = match mqsim::section_of(n) {
                    "Host_Parameter_Set" => 0,
                    "Device_Parameter_Set" => 1,
                    _ => 2,
                };
                sections[i] += &format!("\t\t<{n}>{v}</{n}>\n");
            }
            format!(
                "<?xml version=\"1.0\" encoding=\"us-ascii\"?>\n<Execution_Parameter_Set>\n\
                 \t<Host_Parameter_Set>\n{}\t</Host_Parameter_Set>\n\
                 \t<Device_Parameter_Set>\n{}\t\t<Flash_Parameter_Set>\n{}\t\t</Flash_Parameter_Set>\n\
                 \t</Device_Parameter_Set>\n</Execution_Parameter_Set>\n",
                sections[0], sections[1], sections[2]
            )
        }
        (Simulator::MqSim, Some(b)) => overlay_mqsim(b, &params),
    };
    Ok((text, refused))
}

/// `base` with each `name = value;` line of `params` replaced (appended when absent).
fn overlay_ssdsim(base: &str, params: &[(String, String)]) -> String {
    let mut lines: Vec<String> = base.lines().map(str::to_string).collect();
    for (n, v) in params {
        let at = lines.iter().position(|l| {
            l.split_once('=').is_some_and(|(name, _)| {
                name.trim() == n.as_str() && !l.trim_start().starts_with('#')
            })
        });
        let line = format!("{n} = {v};");
        match at {
            Some(i) => lines[i] = line,
            None => lines.push(line),
        }
    }
    let mut out = lines.join("\n");
    if base.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// `base` with the text of each `<name>` element of `params` replaced (inserted at the
/// end of its section when absent).
fn overlay_mqsim(base: &str, params: &[(String, String)]) -> String {
    let mut out = base.to_string();
    for (n, v) in params {
        let (open, close) = (format!("<{n}>"), format!("</{n}>"));
        if let Some(s) = out.find(&open) {
            if let Some(len) = out[s..].find(&close) {
                out.replace_range(s + open.len()..s + len, v);
                continue;
            }
        }
        let end = format!("</{}>", mqsim::section_of(n));
        let element = format!("\t{open}{v}{close}\n\t");
        match out.find(&end) {
            Some(e) => out.insert_str(e, &element),
            None => out.push_str(&element),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anchors::import;

    const MQSIM: &str = include_str!("../../tests/data/anchors/mqsim-small.xml");
    const SSDSIM: &str = include_str!("../../tests/data/anchors/ssdsim-small.parameters");

    #[test]
    fn minimal_and_overlaid_files_import_back_to_the_same_configuration() {
        for (sim, text) in [(Simulator::MqSim, MQSIM), (Simulator::SsdSim, SSDSIM)] {
            let first = import(text.as_bytes(), "f").unwrap().config;
            for base in [None, Some(text)] {
                let (file, refused) = export_file(&first, sim, base, false).unwrap();
                assert!(refused.is_empty());
                let again = import(file.as_bytes(), "g").unwrap_or_else(|e| panic!("{e}\n{file}"));
                assert_eq!(again.config, first, "{sim:?} base {}", base.is_some());
            }
        }
    }

    #[test]
    fn a_changed_key_reaches_the_base_file_and_others_stay() {
        let mut c = import(MQSIM.as_bytes(), "f").unwrap().config;
        c.geometry.blocks_per_plane = 128;
        c.host.device_queue_depth = 512;
        c.host.pcie.lanes = 8;
        let file = export_file(&c, Simulator::MqSim, Some(MQSIM), false)
            .unwrap()
            .0;
        assert!(
            file.contains("<Block_No_Per_Plane>128</Block_No_Per_Plane>"),
            "{file}"
        );
        assert!(
            file.contains("<Queue_Fetch_Size>512</Queue_Fetch_Size>"),
            "{file}"
        );
        assert!(
            file.contains("<PCIe_Lane_Bandwidth>1</PCIe_Lane_Bandwidth>")
                && file.contains("<PCIe_Lane_Count>8</PCIe_Lane_Count>"),
            "the link, written back: {file}"
        );
        assert!(
            file.contains("<Caching_Mechanism>ADVANCED</Caching_Mechanism>"),
            "unmapped stays"
        );
        assert_eq!(import(file.as_bytes(), "g").unwrap().config, c);

        let mut c = import(SSDSIM.as_bytes(), "f").unwrap().config;
        c.geometry.blocks_per_plane = 512;
        let file = export_file(&c, Simulator::SsdSim, Some(SSDSIM), false)
            .unwrap()
            .0;
        assert!(file.contains("\nblock number = 512;\n"), "{file}");
        assert!(file.contains("t_CLS = 12;"), "unmapped stays");
        assert_eq!(import(file.as_bytes(), "g").unwrap().config, c);
    }

    #[test]
    fn refusals_name_every_key() {
        let mut c = import(SSDSIM.as_bytes(), "f").unwrap().config;
        c.timing.t_cmd_ns = 0;
        c.ftl.gc.victim = ssdlab_ftl::VictimPolicy::CostBenefit;
        let e = export_file(&c, Simulator::SsdSim, None, false).unwrap_err();
        assert!(
            e.starts_with("SSDsim cannot represent this configuration:"),
            "{e}"
        );
        assert!(
            e.contains("timing.t_cmd_ns: ") && e.contains("ftl.gc.victim: "),
            "{e}"
        );
        let (file, refused) = export_file(&c, Simulator::SsdSim, Some(SSDSIM), true).unwrap();
        assert_eq!(refused.len(), 2, "{refused:?}");
        assert!(
            file.contains("t_WC = 20;"),
            "the base's value stays: {file}"
        );
    }
}
