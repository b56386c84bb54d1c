//! SSDsim's `page.parameters`: reading it, its parameters without an ssdlab counterpart,
//! and the conversions only SSDsim needs.
//!
//! Names follow `load_parameters()` in SSDsim's `initialize.c` (huaicheng/ssdsim
//! f411289) and the comments of its shipped `page.parameters`; what each parameter does
//! was read from where the code uses it (docs/IMPORT.md).

use super::error::{ImportError, Loc};
use super::params::{Param, Params};
use super::value::{bool_at, int_at, str_at, Exported, Outcome, Val};
use super::{Effect, Unmapped};

/// SSDsim's built-in values of the parameters a file may leave out: `load_parameters()`
/// zeroes every field, then sets `queue_length = 5`. Geometry and timing have none here.
pub const DEFAULTS: &[(&str, &str)] = &[
    ("overprovide", "0"),
    ("gc hard threshold", "0"),
    ("allocation", "0"),
    ("static_allocation", "0"),
    ("dynamic_allocation", "0"),
    ("advanced command", "0"),
    ("greed CB command", "0"),
    ("greed MPW command", "0"),
    ("aged", "0"),
    ("queue_length", "5"),
    ("dram capacity", "0"),
    ("active write", "0"),
    ("advanced command priority2", "0"),
];

/// Read by `load_parameters()` but never used by SSDsim's code.
const UNUSED: &str = "read by SSDsim but never used by its code";
const ENERGY: &str = "enters SSDsim's energy estimate only";
const NOT_IN_TIMING: &str = "an ONFI timing SSDsim reads but leaves out of its timing (it charges t_WC, t_RC, t_R, t_PROG, t_BERS, t_WB and t_DBSY)";

/// SSDsim parameters with no ssdlab counterpart.
pub const UNMAPPED: &[Unmapped] = &[
    Unmapped::new("dram capacity", Effect::Unless("dram capacity", &["0"]), "ssdlab has no DRAM write buffer yet (SSDsim buffers writes when it is not 0)"),
    Unmapped::new("cpu sdram", Effect::Never, UNUSED),
    Unmapped::new("t_DBSY", Effect::Unless("t_DBSY", &["0"]), "dummy busy between the planes of a two-plane program; ssdlab's multi-plane program has none"),
    Unmapped::new("t_WB", Effect::Unless("t_WB", &["0"]), "added to each erase (WE high to busy); ssdlab's erase is t_erase_ns alone"),
    Unmapped::new("t_CLS", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_CLH", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_CS", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_CH", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_WP", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_ALS", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_ALH", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_DS", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_DH", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_WH", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_ADL", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_AR", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_CLR", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_RR", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_RP", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_REA", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_CEA", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_RHZ", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_CHZ", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_RHOH", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_RLOH", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_COH", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_REH", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_IR", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_RHW", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_WHR", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("t_RST", Effect::Never, NOT_IN_TIMING),
    Unmapped::new("erase limit", Effect::Never, UNUSED),
    Unmapped::new("flash operating current", Effect::Never, ENERGY),
    Unmapped::new("flash supply voltage", Effect::Never, ENERGY),
    Unmapped::new("dram active current", Effect::Never, ENERGY),
    Unmapped::new("dram standby current", Effect::Never, ENERGY),
    Unmapped::new("dram refresh current", Effect::Never, ENERGY),
    Unmapped::new("dram voltage", Effect::Never, ENERGY),
    Unmapped::new("address mapping", Effect::Never, "read by SSDsim but never used: it always maps pages, as ssdlab does"),
    Unmapped::new("wear leveling", Effect::Never, "read by SSDsim but never used: it has no wear leveling"),
    Unmapped::new("gc", Effect::Never, UNUSED),
    Unmapped::new("clean in background", Effect::Never, "read by SSDsim but never used: it has no background GC"),
    Unmapped::new("gc threshold", Effect::Never, "read by SSDsim but never used: GC starts at `gc hard threshold`"),
    Unmapped::new("buffer management", Effect::Never, UNUSED),
    Unmapped::new("scheduling algorithm", Effect::Never, "read by SSDsim but never used: it always serves FCFS"),
    Unmapped::new("quick table radio", Effect::Never, UNUSED),
    Unmapped::new("related mapping", Effect::Never, UNUSED),
    Unmapped::new("striping", Effect::Never, UNUSED),
    Unmapped::new("interleaving", Effect::Never, UNUSED),
    Unmapped::new("pipelining", Effect::Never, UNUSED),
    Unmapped::new("time_step", Effect::Never, UNUSED),
    Unmapped::new("small large write", Effect::Never, UNUSED),
    Unmapped::new("active write threshold", Effect::Never, UNUSED),
    Unmapped::new("threshold value", Effect::Never, UNUSED),
    Unmapped::new("active write", Effect::Unless("active write", &["0"]), "SSDsim's active-write GC strategy has no counterpart (0: GC at `gc hard threshold`)"),
    Unmapped::new("advanced command priority", Effect::Never, UNUSED),
    Unmapped::new("advanced command priority2", Effect::Unless("advanced command priority2", &["0"]), "the order of SSDsim's interleave and two-plane commands; ssdlab has one packing rule"),
    Unmapped::new("aged ratio", Effect::Unless("aged", &["0"]), "used only when `aged` = 1"),
];

/// The name SSDsim's parser gives a `chip number[i]` line (`None` for other names).
fn chip_index(name: &str) -> Option<usize> {
    name.strip_prefix("chip number[")?
        .strip_suffix(']')?
        .parse()
        .ok()
}

/// Whether the text looks like a `page.parameters` (a line naming a parameter SSDsim
/// always has).
pub fn looks_like(text: &str) -> bool {
    text.lines().any(|l| {
        l.split_once('=')
            .is_some_and(|(n, _)| matches!(n.trim(), "channel number" | "page capacity" | "t_PROG"))
    })
}

/// The parameters of a `page.parameters`, read as SSDsim does: `name = value`, the name
/// before `=` with its trailing blanks removed, the value up to `;` or `#`. Lines that
/// start with `#` are comments; SSDsim also skips a line that starts with a space, so
/// such a line is kept under its own name with a leading space (never imported).
pub fn read(text: &str, file: &str) -> Result<Vec<Param>, ImportError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i as u32 + 1;
        let line = line.strip_prefix('\u{feff}').unwrap_or(line);
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((name, rest)) = line.split_once('=') else {
            return Err(ImportError::Malformed {
                file: file.to_string(),
                loc: Box::new(Loc::Line(n)),
                message: format!("expected `name = value;`, found {:?}", line.trim()),
            });
        };
        let skipped = line.starts_with([' ', '\t']);
        let name = name.trim();
        if name.is_empty() {
            return Err(ImportError::Malformed {
                file: file.to_string(),
                loc: Box::new(Loc::Line(n)),
                message: "a value without a parameter name".into(),
            });
        }
        let value = rest.split(['#', ';']).next().unwrap_or("").trim();
        out.push(Param {
            name: if skipped {
                format!(" {name}")
            } else {
                name.to_string()
            },
            value: value.to_string(),
            loc: Loc::Line(n),
        });
    }
    Ok(out)
}

/// `geometry.chips_per_channel` from `[chip number, channel number]` and the
/// `chip number[i]` lines: SSDsim needs the same count on every channel it uses.
pub fn chips(p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
    let total = p.int(names[0], 1, i64::from(i32::MAX))?;
    let channels = p.int(names[1], 1, i64::from(i32::MAX))?;
    if total % channels != 0 {
        return Err(p.bad(names[0], format!("must be a multiple of `channel number` = {channels} (ssdlab needs as many chips on every channel)")));
    }
    let per = total / channels;
    let listed: Vec<(usize, String)> = p
        .items()
        .filter_map(|(q, _)| chip_index(&q.name).map(|i| (i, q.name.clone())))
        .collect();
    for (i, name) in &listed {
        p.mark_used(name);
        let v = p.peek(name).map_or("", |q| q.value.as_str());
        let want = if (*i as i64) < channels { per } else { 0 };
        let ok = v
            .parse::<i64>()
            .is_ok_and(|x| x == want || *i as i64 >= channels);
        if !ok {
            return Err(p.bad(name, format!("must be {want} (`chip number` / `channel number`); ssdlab needs as many chips on every channel")));
        }
    }
    for c in 0..channels as usize {
        if !listed.iter().any(|(i, _)| *i == c) {
            return Err(ImportError::Missing {
                file: p.file().to_string(),
                simulator: "SSDsim",
                name: format!("chip number[{c}]"),
            });
        }
    }
    Ok(Outcome::noted(
        Val::Int(per),
        format!(
            "{total} / {channels}; chip number[0..{}] = {per}",
            channels - 1
        ),
    ))
}

/// `geometry.page_size_bytes` from `[page capacity, subpage page, subpage capacity]`:
/// SSDsim counts 512-byte sectors, `subpage page` of them per page.
pub fn page_size(p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
    let bytes = p.int(names[0], 1, i64::from(i32::MAX))?;
    let sectors = p.int(names[1], 1, 32)?;
    let sector = p.int(names[2], 512, 512)?;
    if sectors * sector != bytes {
        return Err(p.bad(
            names[0],
            format!(
                "must equal `subpage page` × `subpage capacity` = {}",
                sectors * sector
            ),
        ));
    }
    Ok(Outcome::exact(Val::Int(bytes)))
}

/// `timing.bus_ps_per_byte` from `[t_WC, t_RC]` (ns per byte written to / read from
/// the chip); ssdlab has one rate, so the two must agree to be exact.
pub fn byte_cycles(p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
    let wc = p.int(names[0], 1, i64::from(i32::MAX))?;
    let rc = p.int(names[1], 1, i64::from(i32::MAX))?;
    if wc == rc {
        return Ok(Outcome::noted(Val::Int(wc * 1000), format!("{wc} ns/byte")));
    }
    Ok(Outcome::approx(
        Val::Int((wc + rc) * 500),
        format!("t_WC = {wc} and t_RC = {rc} ns/byte differ; ssdlab has one bus rate: their mean"),
    ))
}

/// `timing.t_cmd_ns` from `[t_WC]`: SSDsim charges 7 command/address cycles of t_WC
/// before a page read or program.
pub fn command_cycles(p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
    let wc = p.int(names[0], 1, i64::from(i32::MAX))?;
    Ok(Outcome::noted(
        Val::Int(7 * wc),
        format!("7 × t_WC = 7 × {wc} ns"),
    ))
}

/// The orders of SSDsim's static allocation modes 0 to 5 (`allocate_location()` in
/// `flash.c`), fastest-varying unit first.
pub const STATIC_ORDERS: [&str; 6] = ["wdpc", "cwdp", "cpwd", "cdwp", "cpdw", "cdpw"];

/// `ftl.allocation` from `[allocation]`: 0 dynamic, 1 static.
pub fn allocation(p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
    let a = p.int(names[0], 0, 1)?;
    Ok(Outcome::exact(Val::Str(
        if a == 1 { "static" } else { "dynamic" }.into(),
    )))
}

/// `ftl.static_order` from `[allocation, static_allocation, dynamic_allocation]`.
pub fn order(p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
    if p.int(names[0], 0, 1)? == 1 {
        let m = p.int(names[1], 0, 5)?;
        return Ok(Outcome::noted(
            Val::Str(STATIC_ORDERS[m as usize].into()),
            format!("static mode {m}"),
        ));
    }
    let d = p.int(names[2], 0, 3)?;
    let o = Outcome::noted(
        Val::Str("cwdp".into()),
        "the order SSDsim's round-robin tokens advance in (channel, chip, die, plane)",
    );
    Ok(match d {
        0 => o,
        1 => o.and_approx("dynamic_allocation = 1 fixes the channel by LPN and allocates the rest dynamically; ssdlab has no such mix"),
        _ => o.and_approx(format!("dynamic_allocation = {d} has no counterpart")),
    })
}

/// `ftl.dynamic_policy` from `[allocation, dynamic_allocation]`.
pub fn dynamic_policy(p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
    if p.int(names[0], 0, 1)? == 1 {
        return Ok(Outcome::Skip("static allocation".into()));
    }
    p.int(names[1], 0, 3)?;
    Ok(Outcome::noted(
        Val::Str("round-robin".into()),
        "SSDsim advances a token per unit",
    ))
}

fn bits(p: &mut Params, name: &str) -> Result<i64, ImportError> {
    p.int(name, 0, 31)
}

/// `ftl.gc.copyback` from `[advanced command, greed CB command]`: GC moves pages by
/// copyback when the copyback bit (00010) is set and copyback is used greedily.
pub fn copyback(p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
    let adv = bits(p, names[0])?;
    let greedy = p.int(names[1], 0, 1)? == 1;
    Ok(Outcome::exact(Val::Bool(adv & 2 != 0 && greedy)))
}

/// `scheduler.multi_plane` from `[advanced command, greed MPW command]`: two-plane
/// program (00100) and two-plane read (10000); ssdlab's switch covers both.
pub fn multi_plane(p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
    let adv = bits(p, names[0])?;
    let greedy = p.int(names[1], 0, 1)? == 1;
    let (prog, read) = (adv & 4 != 0, adv & 16 != 0);
    let mut o = Outcome::exact(Val::Bool(prog));
    if prog != read {
        o = o.and_approx(format!("two-plane program {prog}, two-plane read {read}: ssdlab's switch covers both (set from the program bit)"));
    }
    if prog && !greedy {
        o = o.and_approx("greed MPW command = 0: SSDsim then pairs programs only when they fall together; ssdlab pairs whatever its queues hold");
    }
    let dies = p
        .peek("die number")
        .and_then(|q| q.value.parse::<i64>().ok());
    if adv & 8 == 0 && dies.is_some_and(|d| d > 1) {
        o = o.and_approx("interleave (01000) off: SSDsim runs one die of a chip at a time; ssdlab's dies always work in parallel");
    }
    Ok(o)
}

/// `ftl.precondition.enabled` from `[aged]`.
pub fn aged(p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
    Ok(if p.int(names[0], 0, 1)? == 1 {
        Outcome::approx(Val::Bool(false), "SSDsim's aging (`aged ratio`) marks pages used and invalid; ssdlab preconditions with valid data: set [ftl.precondition] by hand")
    } else {
        Outcome::exact(Val::Bool(false))
    })
}

/// `ftl.gc.threshold_free_ratio` from `[gc hard threshold]`: SSDsim collects a plane
/// whose free pages fall below that fraction of its pages.
pub fn gc_threshold(p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
    let r = p.float(names[0], 0.0, 1.0, false)?;
    let o = Outcome::noted(
        Val::Float(r),
        "a fraction of a plane's pages in SSDsim, of its blocks in ssdlab",
    );
    Ok(if r == 0.0 {
        o.and_approx(
            "0: SSDsim never collects; ssdlab collects below ftl.gc.reserve_blocks + 1 free blocks",
        )
    } else {
        o
    })
}

/// Export of [`chips`].
pub fn export_chips(cfg: &toml::Table, key: &str, names: &[&str]) -> Result<Exported, String> {
    let per = int_at(cfg, key)?;
    let channels = int_at(cfg, "geometry.channels")?;
    let mut out = vec![(names[0].to_string(), (per * channels).to_string())];
    out.extend((0..channels).map(|c| (format!("chip number[{c}]"), per.to_string())));
    Ok(Exported::many(out))
}

/// Export of [`page_size`].
pub fn export_page(cfg: &toml::Table, key: &str, names: &[&str]) -> Result<Exported, String> {
    let b = int_at(cfg, key)?;
    Ok(Exported::many([
        (names[0].to_string(), b.to_string()),
        (names[1].to_string(), (b / 512).to_string()),
        (names[2].to_string(), "512".to_string()),
    ]))
}

/// Export of [`byte_cycles`]: both cycles in whole ns.
pub fn export_cycles(cfg: &toml::Table, key: &str, names: &[&str]) -> Result<Exported, String> {
    let ps = int_at(cfg, key)?;
    let ns = ((ps + 500) / 1000).max(1);
    let e = Exported::many(names.iter().map(|n| (n.to_string(), ns.to_string())));
    Ok(if ns * 1000 == ps {
        e
    } else {
        e.with_note(format!("{ps} ps/byte rounded to {ns} ns"))
    })
}

/// Export of [`command_cycles`]: SSDsim derives them from t_WC, so nothing is written;
/// refused when they disagree.
pub fn export_command(cfg: &toml::Table, key: &str, _: &[&str]) -> Result<Exported, String> {
    let cmd = int_at(cfg, key)?;
    let wc = (int_at(cfg, "timing.bus_ps_per_byte")? + 500) / 1000;
    if cmd == 7 * wc {
        Ok(Exported::default())
    } else {
        Err(format!(
            "SSDsim charges 7 × t_WC = {} ns of command cycles, not {cmd}",
            7 * wc
        ))
    }
}

/// Export of [`allocation`], [`order`] and [`dynamic_policy`] together (they share
/// SSDsim's three allocation parameters).
pub fn export_allocation(cfg: &toml::Table, _: &str, names: &[&str]) -> Result<Exported, String> {
    let order = str_at(cfg, "ftl.static_order")?;
    match str_at(cfg, "ftl.allocation")? {
        "static" => {
            let m = STATIC_ORDERS
                .iter()
                .position(|o| *o == order)
                .ok_or_else(|| format!("SSDsim's static modes have no order {order}"))?;
            Ok(Exported::many([
                ("allocation".to_string(), "1".to_string()),
                ("static_allocation".to_string(), m.to_string()),
            ]))
        }
        "dynamic" if order == "cwdp" && str_at(cfg, "ftl.dynamic_policy")? == "round-robin" => {
            Ok(Exported::many([
                ("allocation".to_string(), "0".to_string()),
                ("dynamic_allocation".to_string(), "0".to_string()),
            ]))
        }
        other => Err(format!(
            "SSDsim has no {other} allocation like this ({names:?})"
        )),
    }
}

/// Export of [`copyback`] and [`multi_plane`]: the advanced-command bits (interleave
/// always on, as ssdlab's dies work in parallel) and the greedy switches.
pub fn export_advanced(cfg: &toml::Table, key: &str, names: &[&str]) -> Result<Exported, String> {
    let cb = bool_at(cfg, "ftl.gc.copyback")?;
    let mp = bool_at(cfg, "scheduler.multi_plane")?;
    let adv = 8 | if cb { 2 } else { 0 } | if mp { 4 | 16 } else { 0 };
    let greedy = bool_at(cfg, key)?;
    Ok(Exported::many([
        (names[0].to_string(), adv.to_string()),
        (names[1].to_string(), u8::from(greedy).to_string()),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anchors::Simulator;

    fn params(text: &str) -> Params {
        Params::new(Simulator::SsdSim, "p", read(text, "p").unwrap(), DEFAULTS).unwrap()
    }

    fn value(o: Outcome) -> (Val, Vec<String>) {
        match o {
            Outcome::Value { value, approx, .. } => (value, approx),
            Outcome::Skip(why) => panic!("skipped: {why}"),
        }
    }

    #[test]
    fn lines_are_read_as_ssdsim_reads_them() {
        let got = read("#c\n\nt_R = 20000;   #ns\n queue_length = 9;\nx=1", "p").unwrap();
        let names: Vec<&str> = got.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["t_R", " queue_length", "x"]);
        assert_eq!(got[0].value, "20000");
        assert_eq!(got[0].loc, Loc::Line(3));
        let e = read("t_R = 1;\nt_PROG 2\n", "p").unwrap_err().to_string();
        assert!(
            e.starts_with("p: line 2:") && e.contains("name = value"),
            "{e}"
        );
        let e = Params::new(
            Simulator::SsdSim,
            "p",
            read("a=1\na=2", "p").unwrap(),
            DEFAULTS,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("line 2") && e.contains("twice") && e.contains("line 1"),
            "{e}"
        );
    }

    #[test]
    fn chips_must_be_the_same_on_every_channel() {
        let names = &["chip number", "channel number"];
        let ok = "chip number[0] = 3;\nchip number[1] = 3;\nchip number[2] = 0;\nchannel number = 2;\nchip number = 6;";
        assert_eq!(value(chips(&mut params(ok), names).unwrap()).0, Val::Int(3));
        let uneven = ok.replace("chip number[1] = 3", "chip number[1] = 2");
        let e = chips(&mut params(&uneven), names).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("chip number[1]"), "{e}");
        let missing = ok.replace("chip number[1] = 3;\n", "");
        let e = chips(&mut params(&missing), names).unwrap_err();
        assert!(
            matches!(e, ImportError::Missing { ref name, .. } if name == "chip number[1]"),
            "{e}"
        );
        let odd = ok.replace("chip number = 6", "chip number = 5");
        assert!(chips(&mut params(&odd), names).is_err());
    }

    #[test]
    fn page_size_and_byte_cycles() {
        let n = &["page capacity", "subpage page", "subpage capacity"];
        let t = "page capacity = 4096;\nsubpage page = 8;\nsubpage capacity = 512;";
        assert_eq!(
            value(page_size(&mut params(t), n).unwrap()).0,
            Val::Int(4096)
        );
        let t = t.replace("page = 8", "page = 4");
        assert!(page_size(&mut params(&t), n)
            .unwrap_err()
            .to_string()
            .contains("2048"));
        let n = &["t_WC", "t_RC"];
        let (v, approx) = value(byte_cycles(&mut params("t_WC = 25;\nt_RC = 25;"), n).unwrap());
        assert_eq!((v, approx.len()), (Val::Int(25_000), 0));
        let (v, approx) = value(byte_cycles(&mut params("t_WC = 20;\nt_RC = 30;"), n).unwrap());
        assert_eq!((v, approx.len()), (Val::Int(25_000), 1));
        let (v, _) = value(command_cycles(&mut params("t_WC = 25;"), &["t_WC"]).unwrap());
        assert_eq!(v, Val::Int(175), "7 × tWC (SSDsim's flash.c)");
    }

    #[test]
    fn allocation_orders_and_policies() {
        let n = &["allocation", "static_allocation", "dynamic_allocation"];
        for (m, o) in STATIC_ORDERS.iter().enumerate() {
            let t = format!("allocation = 1;\nstatic_allocation = {m};");
            assert_eq!(
                value(order(&mut params(&t), n).unwrap()).0,
                Val::Str(o.to_string())
            );
            let p = &mut params(&t);
            assert_eq!(
                dynamic_policy(p, &n[..1]).unwrap(),
                Outcome::Skip("static allocation".into())
            );
        }
        assert!(order(&mut params("allocation = 1;\nstatic_allocation = 6;"), n).is_err());
        let (v, approx) = value(order(&mut params("allocation = 0;"), n).unwrap());
        assert_eq!((v, approx.len()), (Val::Str("cwdp".into()), 0));
        let (_, approx) = value(order(&mut params("dynamic_allocation = 1;"), n).unwrap());
        assert_eq!(approx.len(), 1);
        let (v, _) = value(allocation(&mut params("allocation = 0;"), &["allocation"]).unwrap());
        assert_eq!(v, Val::Str("dynamic".into()));
    }

    #[test]
    fn advanced_command_bits() {
        let cb = &["advanced command", "greed CB command"];
        let mp = &["advanced command", "greed MPW command"];
        let t = "advanced command = 2;\ngreed CB command = 1;";
        assert_eq!(
            value(copyback(&mut params(t), cb).unwrap()).0,
            Val::Bool(true)
        );
        let t = "advanced command = 2;\ngreed CB command = 0;";
        assert_eq!(
            value(copyback(&mut params(t), cb).unwrap()).0,
            Val::Bool(false)
        );
        let t = "advanced command = 20;\ngreed MPW command = 1;\ndie number = 1;";
        let (v, approx) = value(multi_plane(&mut params(t), mp).unwrap());
        assert_eq!((v, approx.len()), (Val::Bool(true), 0));
        let t = "advanced command = 4;\ngreed MPW command = 1;\ndie number = 2;";
        let (v, approx) = value(multi_plane(&mut params(t), mp).unwrap());
        assert_eq!(v, Val::Bool(true));
        assert_eq!(
            approx.len(),
            2,
            "no two-plane read, no interleave: {approx:?}"
        );
        assert!(copyback(&mut params("advanced command = 32;"), cb).is_err());
    }
}
