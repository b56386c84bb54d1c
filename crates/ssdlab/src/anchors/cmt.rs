//! MQSim's cached mapping table (`Ideal_Mapping_Table`, `CMT_Capacity`) as ssdlab's
//! cached map (`ftl.mapping`, `[ftl.cmt]`, docs/FTL.md §12), both ways.
//!
//! MQSim (`Address_Mapping_Unit_Page_Level`'s constructor, CMU-SAFARI/MQSim 7ec40e3)
//! reads `CMT_Capacity` in bytes and divides it by the size of one cached entry, which it
//! derives from the geometry: an LPA, a PPA and a bitmap of the page's sectors,
//! `ceil((2 × log2(P) + s) / 8)` bytes for `P` physical pages of `s` sectors. An entry of
//! a translation page has no LPA, `ceil((log2(P) + s) / 8)` bytes, and a translation page
//! holds `page bytes / that` entries. ssdlab gets the same capacity in entries
//! (`ftl.cmt.entries`) and the translation-page entry as `ftl.cmt.entry_bytes`, so that
//! its default `entries_per_tpage` (a page's worth) is MQSim's.

use super::error::ImportError;
use super::params::Params;
use super::value::{int_at, lookup, Exported, Outcome, Val};

/// The ssdlab keys of the geometry MQSim's entry sizes come from (its parameters
/// `Flash_Channel_Count` … `Page_Capacity`, the last seven names of a row).
const KEYS: [&str; 7] = [
    "geometry.channels",
    "geometry.chips_per_channel",
    "geometry.dies_per_chip",
    "geometry.planes_per_die",
    "geometry.blocks_per_plane",
    "geometry.pages_per_block",
    "geometry.page_size_bytes",
];

/// MQSim's entry sizes for `pages` physical pages of `page_bytes`: `(cached, in a
/// translation page)` in bytes.
pub fn entry_sizes(pages: u64, page_bytes: u64) -> (u64, u64) {
    let bits = (pages as f64).log2();
    let sectors = (page_bytes / 512) as f64;
    let cached = ((2.0 * bits + sectors) / 8.0).ceil() as u64;
    let gtd = ((bits + sectors) / 8.0).ceil() as u64;
    (cached.max(1), gtd.max(1))
}

/// `(physical pages, page bytes)` from the file's geometry (the last seven `names`).
fn file_geometry(p: &mut Params, names: &[&str]) -> Result<(u64, u64), ImportError> {
    let mut pages = 1u64;
    let n = names.len();
    for name in &names[n - 7..n - 1] {
        pages = pages.saturating_mul(p.int(name, 1, i64::from(u32::MAX))? as u64);
    }
    let page = p.int(names[n - 1], 512, i64::from(u32::MAX))? as u64;
    Ok((pages, page))
}

/// `(physical pages, page bytes)` from a configuration.
fn config_geometry(cfg: &toml::Table) -> Result<(u64, u64), String> {
    let mut pages = 1u64;
    for k in &KEYS[..6] {
        pages = pages.saturating_mul(int_at(cfg, k)?.max(1) as u64);
    }
    Ok((pages, int_at(cfg, KEYS[6])?.max(1) as u64))
}

/// Whether `cfg` uses the cached map (`ftl.mapping` is written only when not ideal).
fn cached(cfg: &toml::Table) -> bool {
    lookup(cfg, "ftl.mapping").and_then(toml::Value::as_str) == Some("cached")
}

/// The integer at `key`, or `default` when the configuration leaves it out.
fn int_or(cfg: &toml::Table, key: &str, default: i64) -> Result<i64, String> {
    match lookup(cfg, key) {
        None => Ok(default),
        Some(_) => int_at(cfg, key),
    }
}

const SKIP: &str = "Ideal_Mapping_Table is true: the whole map is in DRAM, no CMT";

/// `ftl.mapping` from `[Ideal_Mapping_Table]`.
pub fn mapping(p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
    let ideal = p.boolean(names[0])?;
    Ok(Outcome::exact(Val::Str(
        if ideal { "ideal" } else { "cached" }.into(),
    )))
}

/// `ftl.cmt.entries` from `[Ideal_Mapping_Table, CMT_Capacity, geometry…]`:
/// `CMT_Capacity` bytes over MQSim's cached entry size, rounded down as MQSim does.
pub fn entries(p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
    if p.boolean(names[0])? {
        return Ok(Outcome::Skip(SKIP.into()));
    }
    let bytes = p.int(names[1], 0, i64::from(u32::MAX))? as u64;
    let (pages, page) = file_geometry(p, names)?;
    let (entry, _) = entry_sizes(pages, page);
    let n = bytes / entry;
    if n == 0 {
        return Err(p.bad(
            names[1],
            format!("holds no entry: MQSim's cached entry is {entry} bytes on this device"),
        ));
    }
    Ok(Outcome::noted(
        Val::Int(n as i64),
        format!(
            "CMT_Capacity is bytes; MQSim's entry (LPA, PPA, sector bitmap) is ceil((2 × log2({pages}) + {}) / 8) = {entry} bytes: {bytes} / {entry} = {n} entries",
            page / 512
        ),
    ))
}

/// `ftl.cmt.entry_bytes` from `[Ideal_Mapping_Table, geometry…]`: MQSim's entry of a
/// translation page (PPA and sector bitmap), which sets its entries per translation page.
pub fn entry_bytes(p: &mut Params, names: &[&str]) -> Result<Outcome, ImportError> {
    if p.boolean(names[0])? {
        return Ok(Outcome::Skip(SKIP.into()));
    }
    let (pages, page) = file_geometry(p, names)?;
    let (_, gtd) = entry_sizes(pages, page);
    Ok(Outcome::noted(
        Val::Int(gtd as i64),
        format!(
            "a translation-page entry (PPA, sector bitmap) is ceil((log2({pages}) + {}) / 8) = {gtd} bytes, so a translation page holds {page} / {gtd} = {} entries, as in MQSim (the CMT's own entries are counted in ftl.cmt.entries)",
            page / 512,
            page / gtd
        ),
    ))
}

/// Export of [`mapping`].
pub fn export_mapping(cfg: &toml::Table, _key: &str, names: &[&str]) -> Result<Exported, String> {
    Ok(Exported::one(names[0], !cached(cfg)))
}

/// Export of [`entries`]: the capacity in entries times MQSim's cached entry size
/// (nothing with the ideal map: the base's `CMT_Capacity` stays, unused).
pub fn export_entries(cfg: &toml::Table, _key: &str, names: &[&str]) -> Result<Exported, String> {
    if !cached(cfg) {
        return Ok(Exported::default());
    }
    let (pages, page) = config_geometry(cfg)?;
    let (entry, _) = entry_sizes(pages, page);
    let n = int_or(cfg, "ftl.cmt.entries", 0)?;
    let n = if n > 0 {
        n
    } else {
        int_or(cfg, "ftl.cmt.bytes", 0)? / int_or(cfg, "ftl.cmt.entry_bytes", 4)?.max(1)
    };
    let bytes = n as u64 * entry;
    if bytes > u64::from(u32::MAX) {
        return Err(format!(
            "{n} entries of {entry} bytes exceed CMT_Capacity's range (an unsigned int of bytes)"
        ));
    }
    Ok(Exported::one(names[1], bytes).with_note(format!(
        "{n} entries × {entry} bytes (MQSim's cached entry on this device)"
    )))
}

/// Export of [`entry_bytes`]: MQSim derives the translation page's layout from the
/// geometry; any other entry size or entries per page cannot be represented.
pub fn export_entry_bytes(
    cfg: &toml::Table,
    _key: &str,
    _names: &[&str],
) -> Result<Exported, String> {
    if !cached(cfg) {
        return Ok(Exported::default());
    }
    let (pages, page) = config_geometry(cfg)?;
    let (_, gtd) = entry_sizes(pages, page);
    let eb = int_or(cfg, "ftl.cmt.entry_bytes", 4)?;
    let per = int_or(cfg, "ftl.cmt.entries_per_tpage", 0)?;
    let want = (page / gtd) as i64;
    if eb as u64 != gtd {
        return Err(format!(
            "MQSim's translation-page entry on this device is {gtd} bytes (ceil((log2 of the physical pages + sectors per page) / 8)), not {eb}"
        ));
    }
    if per != 0 && per != want {
        return Err(format!(
            "MQSim fills a translation page ({want} entries on this device), not {per} (ftl.cmt.entries_per_tpage)"
        ));
    }
    Ok(Exported::default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anchors::{export, export_file, import, Simulator};
    use ssdlab_ftl::MapMode;

    const MQSIM: &str = include_str!("../../tests/data/anchors/mqsim-small.xml");

    /// The small device file with `CMT_Sharing_Mode` given.
    fn shared() -> String {
        MQSIM.replace(
            "</CMT_Capacity>",
            "</CMT_Capacity>\n\t\t<CMT_Sharing_Mode>SHARED</CMT_Sharing_Mode>",
        )
    }

    fn cached_file(bytes: &str) -> String {
        shared()
            .replace(
                ">true</Ideal_Mapping_Table>",
                ">false</Ideal_Mapping_Table>",
            )
            .replace(
                ">2097152</CMT_Capacity>",
                &format!(">{bytes}</CMT_Capacity>"),
            )
    }

    #[test]
    fn entry_sizes_follow_mqsims_formula() {
        // 64 GiB bench: 2^24 pages of 8 sectors: (48 + 8) / 8 = 7, (24 + 8) / 8 = 4.
        assert_eq!(entry_sizes(1 << 24, 4096), (7, 4));
        // 16 GiB: 2^22 pages: ceil(52 / 8) = 7, ceil(30 / 8) = 4.
        assert_eq!(entry_sizes(1 << 22, 4096), (7, 4));
        // The small test device: 2·2·1·2·64·32 = 16 384 = 2^14 pages: ceil(36/8) = 5,
        // ceil(22/8) = 3; 16 KiB pages have 32 sectors.
        assert_eq!(entry_sizes(1 << 14, 4096), (5, 3));
        assert_eq!(entry_sizes(1 << 14, 16384), (8, 6));
        // Not a power of two: log2 is fractional, the ceiling covers it.
        assert_eq!(entry_sizes(3_000_000, 4096), (7, 4));
    }

    #[test]
    fn a_cached_table_imports_as_entries_in_mqsims_unit() {
        let imp = import(cached_file("5000").as_bytes(), "c.xml").unwrap();
        let c = &imp.config;
        assert_eq!(c.ftl.mapping, MapMode::Cached);
        assert_eq!(c.ftl.cmt.entries, 1000, "5000 bytes / 5-byte entries");
        assert_eq!(c.ftl.cmt.entry_bytes, 3);
        assert_eq!(c.ftl.cmt.per_tpage(4096), 1365, "4096 / 3, as MQSim");
        assert!(imp.toml.contains("5000 / 5 = 1000 entries"), "{}", imp.toml);
        let names: Vec<&str> = imp.not_imported.iter().map(|n| n.name.as_str()).collect();
        assert!(!names.contains(&"CMT_Capacity"), "{names:?}");
        assert!(!names.contains(&"Ideal_Mapping_Table"), "{names:?}");
        let sharing = imp
            .not_imported
            .iter()
            .find(|n| n.name == "CMT_Sharing_Mode")
            .expect("still listed");
        assert!(sharing.matters(), "a cached table: its sharing may matter");
        // Rounded down as MQSim does.
        let imp = import(cached_file("5004").as_bytes(), "c.xml").unwrap();
        assert_eq!(imp.config.ftl.cmt.entries, 1000);
    }

    #[test]
    fn an_ideal_table_leaves_the_cmt_keys_out() {
        let imp = import(shared().as_bytes(), "i.xml").unwrap();
        assert_eq!(imp.config.ftl.mapping, MapMode::Ideal);
        assert!(imp.config.ftl.cmt.is_default());
        let cap = imp
            .not_imported
            .iter()
            .find(|n| n.name == "CMT_Capacity")
            .unwrap();
        assert!(!cap.matters(), "unused with an ideal table: {cap:?}");
        let sharing = imp
            .not_imported
            .iter()
            .find(|n| n.name == "CMT_Sharing_Mode")
            .unwrap();
        assert!(!sharing.matters());
        assert!(sharing.why.contains("sharing"), "{}", sharing.why);
    }

    #[test]
    fn bad_capacities_name_the_parameter() {
        let e = import(cached_file("4").as_bytes(), "c.xml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("CMT_Capacity") && e.contains("5 bytes"), "{e}");
        let e = import(cached_file("lots").as_bytes(), "c.xml")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("CMT_Capacity") && e.contains("whole number"),
            "{e}"
        );
        // Larger than the map: ssdlab refuses, naming the key and its source.
        let e = import(cached_file("4000000000").as_bytes(), "c.xml")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("ftl.cmt.entries") && e.contains("CMT_Capacity"),
            "{e}"
        );
        // MQSim's default capacity (2 MiB) applies when the file leaves it out.
        let text = cached_file("1").replace("<CMT_Capacity>1</CMT_Capacity>", "");
        let e = import(text.as_bytes(), "c.xml").unwrap_err().to_string();
        assert!(e.contains("CMT_Capacity = 2097152"), "default used: {e}");
    }

    #[test]
    fn export_writes_bytes_and_round_trips() {
        let first = import(cached_file("5000").as_bytes(), "c.xml")
            .unwrap()
            .config;
        let (file, refused) = export_file(&first, Simulator::MqSim, Some(MQSIM), false).unwrap();
        assert!(refused.is_empty(), "{refused:?}");
        assert!(
            file.contains("<Ideal_Mapping_Table>false</Ideal_Mapping_Table>"),
            "{file}"
        );
        assert!(file.contains("<CMT_Capacity>5000</CMT_Capacity>"), "{file}");
        assert_eq!(import(file.as_bytes(), "g").unwrap().config, first);
        // A capacity given in bytes of ssdlab's entries: converted to entries first.
        let mut c = first.clone();
        c.ftl.cmt.entries = 0;
        c.ftl.cmt.bytes = 3 * 700;
        let (file, _) = export_file(&c, Simulator::MqSim, None, false).unwrap();
        assert!(
            file.contains("<CMT_Capacity>3500</CMT_Capacity>"),
            "700 × 5: {file}"
        );
        // The ideal map: MQSim's table ideal, the base's capacity left as it was.
        let ideal = import(MQSIM.as_bytes(), "i.xml").unwrap().config;
        let (file, _) =
            export_file(&ideal, Simulator::MqSim, Some(&cached_file("777")), false).unwrap();
        assert!(file.contains("<Ideal_Mapping_Table>true</Ideal_Mapping_Table>"));
        assert!(file.contains("<CMT_Capacity>777</CMT_Capacity>"));
    }

    #[test]
    fn export_refuses_a_layout_mqsim_cannot_have() {
        let mut c = import(cached_file("5000").as_bytes(), "c.xml")
            .unwrap()
            .config;
        c.ftl.cmt.entry_bytes = 4;
        let refused = |c: &crate::config::SimConfig, sim| {
            export(c, sim)
                .into_iter()
                .filter_map(|(k, r)| r.err().map(|e| format!("{k}: {e}")))
                .collect::<Vec<_>>()
        };
        let r = refused(&c, Simulator::MqSim);
        assert!(
            r.iter()
                .any(|e| e.starts_with("ftl.cmt.entry_bytes: ") && e.contains("3 bytes")),
            "{r:?}"
        );
        c.ftl.cmt.entry_bytes = 3;
        c.ftl.cmt.entries_per_tpage = 1000;
        let r = refused(&c, Simulator::MqSim);
        assert!(r.iter().any(|e| e.contains("1365 entries")), "{r:?}");
        c.ftl.cmt.entries_per_tpage = 1365;
        assert!(refused(&c, Simulator::MqSim)
            .iter()
            .all(|e| !e.contains("ftl.cmt")));
        // SSDsim keeps its whole map in DRAM: a cached map is not representable.
        let r = refused(&c, Simulator::SsdSim);
        assert!(r.iter().any(|e| e.starts_with("ftl.mapping: ")), "{r:?}");
    }
}
