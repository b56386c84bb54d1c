//! Named presets: partial configuration documents carrying each paper's device,
//! `tlc-1tb`, a current 1 TB class TLC drive built from public numbers, and
//! `tlc-1tb-hmb`, the same drive without DRAM (its map cached in a host memory buffer).
//!
//! Each preset is a TOML file in `crates/ssdlab/presets/`, compiled in, layered over
//! the defaults. The files cite the table of the paper (or the public source) every
//! value comes from; `docs/PRESETS.md` lists them side by side.

/// Every preset name, in the order `ssdlab config list` prints them.
pub const NAMES: &[&str] = &[
    "default",
    "brr",
    "dgc",
    "cr5m-ssd1",
    "cr5m-ssd2",
    "cr5m-ssd3",
    "paq",
    "dsftl",
    "tlc-1tb",
    "tlc-1tb-hmb",
];

/// The TOML text of preset `name`, if there is one.
pub fn text(name: &str) -> Option<&'static str> {
    Some(match name {
        "default" => include_str!("../presets/default.toml"),
        "brr" => include_str!("../presets/brr.toml"),
        "dgc" => include_str!("../presets/dgc.toml"),
        "cr5m-ssd1" => include_str!("../presets/cr5m-ssd1.toml"),
        "cr5m-ssd2" => include_str!("../presets/cr5m-ssd2.toml"),
        "cr5m-ssd3" => include_str!("../presets/cr5m-ssd3.toml"),
        "paq" => include_str!("../presets/paq.toml"),
        "dsftl" => include_str!("../presets/dsftl.toml"),
        "tlc-1tb" => include_str!("../presets/tlc-1tb.toml"),
        "tlc-1tb-hmb" => include_str!("../presets/tlc-1tb-hmb.toml"),
        _ => return None,
    })
}

/// The preset that preset `name` is layered over, if any: its file then holds only
/// what differs from that one.
pub fn base(name: &str) -> Option<&'static str> {
    match name {
        "tlc-1tb-hmb" => Some("tlc-1tb"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_has_text_and_unknown_has_none() {
        for n in NAMES {
            assert!(text(n).is_some(), "{n}");
        }
        assert!(text("nope").is_none());
    }

    /// Every key of a TOML table, as dotted paths.
    fn keys(prefix: &str, v: &toml::Value, out: &mut Vec<String>) {
        if let toml::Value::Table(t) = v {
            for (k, v) in t {
                let path = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                if v.is_table() {
                    keys(&path, v, out);
                } else {
                    out.push(path);
                }
            }
        }
    }

    /// `tlc-1tb` is a terabyte of whole TLC wordlines with a dynamic SLC cache of 113 GB.
    #[test]
    fn the_tlc_1tb_preset_is_a_terabyte_with_its_slc_cache() {
        let cfg = crate::SimConfig::preset("tlc-1tb").unwrap();
        let g = cfg.geometry;
        let raw = g.capacity_bytes();
        assert!((1 << 40..(1 << 40) + (1 << 31)).contains(&raw), "{raw}");
        assert_eq!(g.pages_per_block % 3, 0);
        assert!(raw as f64 * (1.0 - cfg.ftl.over_provisioning) >= 1e12);
        // A fill ends on a wordline boundary in every plane.
        assert_eq!(cfg.ftl.logical_pages(&g) % (g.planes() * 3), 0);
        let slc = &cfg.nand.slc_cache;
        assert_eq!(slc.mode, ssdlab_nand::SlcMode::Dynamic);
        let bytes = u64::from(slc.blocks_per_plane)
            * u64::from(g.planes())
            * u64::from(g.pages_per_block / 3)
            * u64::from(g.page_size_bytes);
        assert!((112e9..114e9).contains(&(bytes as f64)), "{bytes}");
        // A fresh drive reaches the region's maximum.
        let share = slc.free_share * f64::from(g.blocks_per_plane);
        assert!(share >= f64::from(slc.blocks_per_plane));
    }

    /// `tlc-1tb-hmb` is `tlc-1tb` with its map cached in 64 MiB of host memory and no
    /// DRAM stage; everything else is its base's.
    #[test]
    fn the_hmb_preset_is_its_base_without_dram() {
        let base = crate::SimConfig::preset("tlc-1tb").unwrap();
        let hmb = crate::SimConfig::preset("tlc-1tb-hmb").unwrap();
        assert_eq!(hmb.ftl.mapping, ssdlab_ftl::MapMode::Cached);
        assert_eq!(hmb.cache.mode, ssdlab_dram::CacheMode::Off);
        assert_ne!(base.cache.mode, hmb.cache.mode);
        assert_eq!(hmb.geometry, base.geometry);
        assert_eq!(hmb.timing, base.timing);
        assert_eq!(hmb.nand, base.nand);
        // 64 MiB of 16-byte entries: 4 Mi pages of 16 KiB, 64 GiB of the logical space.
        assert_eq!(hmb.ftl.cmt.capacity(), 4 << 20);
        assert_eq!(hmb.ftl.cmt.per_tpage(hmb.geometry.page_size_bytes), 1024);
        assert_eq!(super::base("tlc-1tb"), None);
    }

    /// The reproduced papers' presets spell out every key of the configuration, so that a
    /// changed default cannot change what they reproduce.
    #[test]
    fn the_brr_and_dgc_presets_list_every_key() {
        for name in ["brr", "dgc"] {
            let written: toml::Value = toml::from_str(text(name).unwrap()).unwrap();
            let cfg = crate::ConfigBuilder::new()
                .preset(name)
                .unwrap()
                .build()
                .unwrap();
            let resolved: toml::Value = toml::from_str(&cfg.to_toml()).unwrap();
            let (mut a, mut b) = (Vec::new(), Vec::new());
            keys("", &written, &mut a);
            keys("", &resolved, &mut b);
            a.sort();
            b.sort();
            let missing: Vec<_> = b.iter().filter(|k| !a.contains(k)).collect();
            assert!(missing.is_empty(), "{name} leaves out {missing:?}");
        }
    }
}
