//! The refusals of the tenants' share of the cached mapping table (`ftl.cmt.sharing`;
//! docs/FTL.md §12).

use super::SimConfig;
use ssdlab_ftl::{CmtSharing, MapMode};

/// The refusals of `cfg`'s sharing modes: `(key, message)`. Without tenants, or with
/// one, `"equal"` is one partition of the whole table, the same as `"shared"`: allowed.
pub fn validate(cfg: &SimConfig) -> Vec<(String, String)> {
    let mut errs = Vec::new();
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
}
