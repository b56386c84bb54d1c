//! The tenants' share of the cached mapping table (`ftl.cmt.sharing`, docs/FTL.md §12):
//! each tenant's part of the report (the namespaces the table is partitioned by are
//! `config::sharing::namespace_starts`).
//! The table itself is [`ssdlab_ftl::CmtTable`].

use super::CmtState;
use ssdlab_stats::{ratio, TenantCmtReport, TenantsReport};

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
