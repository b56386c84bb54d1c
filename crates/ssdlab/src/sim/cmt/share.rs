//! The tenants' share of the cached mapping table (`ftl.cmt.sharing`, docs/FTL.md §12):
//! the namespaces the table is partitioned by, and each tenant's part of the report.
//! The table itself is [`ssdlab_ftl::CmtTable`].

use super::CmtState;
use crate::config::tenants::namespace;
use crate::config::SimConfig;
use ssdlab_stats::{ratio, TenantCmtReport, TenantsReport};

/// The first LPN of each tenant's namespace, in tenant order: none without tenants, or
/// when a tenant addresses the whole device (`shared = true`: pages have no one owner,
/// and `"equal"` is refused with it).
pub(crate) fn tenant_namespaces(cfg: &SimConfig) -> Vec<u32> {
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

impl CmtState {
    /// Each tenant's use of the table into the tenants' section (`sharing`: the
    /// configured `ftl.cmt.sharing`, as written).
    pub(crate) fn tenants_report(&self, sharing: &str, r: &mut TenantsReport) {
        let Some(counts) = self.cmt.tenant_counts() else {
            return;
        };
        r.cmt_sharing = Some(sharing.to_string());
        for (t, c) in r.tenants.iter_mut().zip(counts) {
            t.cmt = Some(TenantCmtReport {
                entries: u64::from(c.entries),
                lookups: c.lookups,
                hits: c.hits,
                hit_ratio: ratio(c.hits as f64, c.lookups as f64),
                peak_entries: c.peak.map(u64::from),
            });
        }
    }
}
