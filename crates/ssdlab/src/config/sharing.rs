//! The tenants' shares of the cached mapping table (`ftl.cmt.sharing`; docs/FTL.md
//! §12) and of the DRAM stage (`cache.sharing`; docs/DRAM.md, "Tenants"): the
//! namespaces both partition by, and their refusals.

use super::tenants::namespace;
use super::SimConfig;
use ssdlab_dram::CacheSharing;
use ssdlab_ftl::{CmtSharing, MapMode};

/// The first LPN of each tenant's namespace, in tenant order: none without tenants, or
/// when a tenant addresses the whole device (`shared = true`: pages have no one owner,
/// and `"equal"` is refused with it).
pub(crate) fn namespace_starts(cfg: &SimConfig) -> Vec<u32> {
    let tenants = &cfg.host.tenant;
    if tenants.iter().any(|t| t.shared) {
        return Vec::new();
    }
    let page = u64::from(cfg.geometry.page_size_bytes);
    let bytes = u64::from(cfg.ftl.logical_pages(&cfg.geometry)) * page;
    (0..tenants.len())
        .map(|i| (namespace(tenants, i, page, bytes).0 / page) as u32)
        .collect()
}

/// The refusals of `cfg`'s sharing modes: `(key, message)`. Without tenants, or with
/// one, `"equal"` is one partition of the whole table, the same as `"shared"`: allowed.
pub fn validate(cfg: &SimConfig) -> Vec<(String, String)> {
    let mut errs = validate_cache(cfg);
    let ts = &cfg.host.tenant;
    if cfg.ftl.mapping != MapMode::Cached || cfg.ftl.cmt.sharing != CmtSharing::Equal {
        return errs;
    }
    if let Some(i) = ts.iter().position(|t| t.shared) {
        errs.push((
            "ftl.cmt.sharing".into(),
            format!("\"equal\" partitions the table by namespace, and host.tenant[{i}] shares the whole device (shared = true): its pages have no one owner; use \"shared\""),
        ));
    }
    let n = ts.len().max(1) as u64;
    let cap = cfg.ftl.cmt.capacity();
    if cap > 0 && cap / n == 0 {
        errs.push((
            "ftl.cmt.sharing".into(),
            format!("\"equal\" gives each of the {n} tenants {cap} / {n} = 0 entries of the table: enlarge it (ftl.cmt.entries or ftl.cmt.bytes) or use \"shared\""),
        ));
    }
    errs
}

/// `cache.sharing = "equal"` in a run without tenants: it would be ignored, so the
/// simulation refuses it when it is built (the configuration alone cannot: tenants
/// given as several `--trace` flags join it after it is read).
pub(crate) fn equal_without_tenants(cfg: &SimConfig) -> Option<(String, String)> {
    (cfg.cache.is_on() && cfg.cache.sharing == CacheSharing::Equal && cfg.host.tenant.is_empty())
        .then(|| ("cache.sharing".to_string(), "\"equal\" gives each tenant its own partition of the DRAM stage, and the run has no tenants (host.tenant, or several --trace): it would be ignored; leave the key out or use \"shared\"".to_string()))
}

/// The refusals of `cache.sharing = "equal"`: it partitions the stage by tenant, so it
/// needs a stage and tenants whose pages each have one owner, and every partition must
/// hold at least one destage group (a page: RAID, whose rows destage together, is
/// refused with tenants). With one tenant it is one partition of the whole stage, the
/// same as `"shared"`: allowed, as `ftl.cmt.sharing` allows it. Without tenants see
/// [`equal_without_tenants`].
fn validate_cache(cfg: &SimConfig) -> Vec<(String, String)> {
    let mut errs = Vec::new();
    if cfg.cache.sharing != CacheSharing::Equal {
        return errs;
    }
    let mut bad = |m: String| errs.push(("cache.sharing".to_string(), m));
    let ts = &cfg.host.tenant;
    if !cfg.cache.is_on() {
        bad("\"equal\" partitions the DRAM stage, and cache.mode = \"off\" builds none: set cache.mode as well, or leave the key out".into());
        return errs;
    }
    if ts.is_empty() {
        return errs; // refused when the simulation is built (equal_without_tenants)
    }
    if let Some(i) = ts.iter().position(|t| t.shared) {
        bad(format!("\"equal\" partitions the DRAM stage by namespace, and host.tenant[{i}] shares the whole device (shared = true): its pages have no one owner; use \"shared\""));
    }
    let page = cfg.geometry.page_size_bytes;
    let pages = cfg.cache.capacity_pages(page, cfg.ftl.dram_bytes());
    let n = ts.len() as u64;
    // A destage group is one page here: RAID, whose rows destage together, is refused
    // with tenants (host.tenant).
    if pages / n == 0 {
        bad(format!("\"equal\" gives each of the {n} tenants {pages} / {n} = 0 pages of the DRAM stage, less than one destage group (a page): enlarge cache.capacity_mib or use \"shared\""));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TenantConfig;

    fn cfg(entries: u64, tenants: usize, sharing: CmtSharing) -> SimConfig {
        let mut c = SimConfig::default();
        c.ftl.mapping = MapMode::Cached;
        c.ftl.cmt.entries = entries;
        c.ftl.cmt.sharing = sharing;
        c.host.tenant = (0..tenants)
            .map(|_| TenantConfig {
                trace: "t".into(),
                ..TenantConfig::default()
            })
            .collect();
        c
    }

    fn keys(c: &SimConfig) -> Vec<String> {
        validate(c).into_iter().map(|(k, _)| k).collect::<Vec<_>>()
    }

    #[test]
    fn equal_without_tenants_or_with_one_is_allowed() {
        assert!(keys(&cfg(100, 0, CmtSharing::Equal)).is_empty());
        assert!(keys(&cfg(100, 1, CmtSharing::Equal)).is_empty());
    }

    #[test]
    fn a_share_below_one_entry_is_refused_naming_the_key() {
        assert_eq!(keys(&cfg(2, 3, CmtSharing::Equal)), ["ftl.cmt.sharing"]);
        assert!(keys(&cfg(3, 3, CmtSharing::Equal)).is_empty());
        assert!(keys(&cfg(2, 3, CmtSharing::Shared)).is_empty());
    }

    #[test]
    fn equal_with_a_shared_namespace_is_refused_naming_the_key() {
        let mut c = cfg(100, 2, CmtSharing::Equal);
        c.host.tenant[1].shared = true;
        let e = validate(&c);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].0, "ftl.cmt.sharing");
        assert!(e[0].1.contains("host.tenant[1]"), "{}", e[0].1);
        c.ftl.cmt.sharing = CmtSharing::Shared;
        assert!(keys(&c).is_empty());
    }

    /// A write buffer of `mib` MiB (4 KiB pages by default) shared as `sharing` by
    /// `tenants` tenants, with the ideal map.
    fn cache(mib: u64, tenants: usize, sharing: CacheSharing) -> SimConfig {
        let mut c = cfg(100, tenants, CmtSharing::Shared);
        c.ftl.mapping = MapMode::Ideal;
        c.ftl.cmt.entries = 0;
        c.cache.mode = ssdlab_dram::CacheMode::WriteBuffer;
        c.cache.capacity_mib = mib;
        c.cache.sharing = sharing;
        c
    }

    #[test]
    fn equal_dram_needs_a_stage_and_tenants() {
        assert!(keys(&cache(1, 2, CacheSharing::Equal)).is_empty());
        assert!(
            keys(&cache(1, 1, CacheSharing::Equal)).is_empty(),
            "one partition"
        );
        // Without tenants the configuration is read before several --trace join it:
        // the simulation refuses it.
        let alone = cache(1, 0, CacheSharing::Equal);
        assert!(keys(&alone).is_empty());
        let (key, why) = equal_without_tenants(&alone).expect("refused");
        assert_eq!(key, "cache.sharing");
        assert!(why.contains("no tenants"), "{why}");
        assert!(equal_without_tenants(&cache(1, 2, CacheSharing::Equal)).is_none());
        assert!(equal_without_tenants(&cache(1, 0, CacheSharing::Shared)).is_none());
        let mut off = cache(1, 2, CacheSharing::Equal);
        off.cache.mode = ssdlab_dram::CacheMode::Off;
        let e = validate(&off);
        assert_eq!(e.len(), 1);
        assert!(
            e[0].0 == "cache.sharing" && e[0].1.contains("cache.mode"),
            "{e:?}"
        );
    }

    #[test]
    fn equal_dram_with_a_shared_namespace_is_refused_naming_the_key() {
        let mut c = cache(1, 2, CacheSharing::Equal);
        c.host.tenant[0].shared = true;
        let e = validate(&c);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].0, "cache.sharing");
        assert!(e[0].1.contains("host.tenant[0]"), "{}", e[0].1);
        c.cache.sharing = CacheSharing::Shared;
        assert!(keys(&c).is_empty());
    }

    #[test]
    fn an_equal_dram_partition_below_one_page_is_refused_naming_the_key() {
        // 1 MiB of 256 KiB pages: 4 pages, 2 each for 2 tenants, none for 5.
        let mut c = cache(1, 2, CacheSharing::Equal);
        c.geometry.page_size_bytes = 256 << 10;
        assert!(keys(&c).is_empty());
        c.host.tenant = (0..5).map(|_| c.host.tenant[0].clone()).collect();
        let e = validate(&c);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].0, "cache.sharing");
        assert!(e[0].1.contains("4 / 5 = 0 pages"), "{}", e[0].1);
    }
}
