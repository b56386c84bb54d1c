//! The cached map beside DS-FTL's content index (docs/FTL.md §12, "With DS-FTL"): when
//! reads use the 1-to-n map its group records are charged in the CMT, and the keys that
//! size them are checked here.

use super::{ConfigError, SimConfig};
use ssdlab_ftl::{CmtSharing, MapMode};

impl SimConfig {
    /// True when the cached map charges DS-FTL's secondary table: the map is cached, the
    /// content index is kept and reads may take a copy (the 1-to-n map is then what a
    /// read looks up; with multi-path reads off the index only counts content).
    pub fn cmt_groups(&self) -> bool {
        self.ftl.mapping == MapMode::Cached && self.multipath_reads()
    }
}

/// The refusals of the group records' keys, into `out`.
pub(super) fn validate(cfg: &SimConfig, out: &mut Vec<ConfigError>) {
    for (key, message) in refusals(cfg) {
        out.push(ConfigError::Invalid {
            key: key.into(),
            message,
        });
    }
}

fn refusals(cfg: &SimConfig) -> Vec<(&'static str, String)> {
    let mut errs = Vec::new();
    let c = &cfg.ftl.cmt;
    if cfg.ftl.mapping != MapMode::Cached {
        return errs;
    }
    if !cfg.cmt_groups() {
        if c.group_entries > 0 {
            errs.push((
                "ftl.cmt.group_entries",
                "sizes DS-FTL's group records, which the cached map charges only with the content index and multi-path reads (ftl.allocation = \"content-aware\", or dsftl.index with dsftl.multipath_read = \"always\"): it would be ignored".into(),
            ));
        }
        return errs;
    }
    let cost = u64::from(c.group_cost(cfg.geometry.chips()));
    let per = u64::from(c.per_tpage(cfg.geometry.page_size_bytes));
    let cap = c.capacity();
    if cost > per || cost > cap || cost > u64::from(u16::MAX) {
        errs.push((
            "ftl.cmt.group_entries",
            format!(
                "a group record of {cost} entries{} must fit a translation page ({per} entries) and the table ({cap} entries)",
                if c.group_entries == 0 { " (one per chip)" } else { "" }
            ),
        ));
    }
    if c.sharing == CmtSharing::Equal && cfg.host.tenant.len() > 1 {
        errs.push((
            "ftl.cmt.sharing",
            "\"equal\" partitions the table by tenant, and DS-FTL's group records belong to no tenant: use \"shared\" with the content index".into(),
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use crate::config::{ConfigBuilder, ConfigError};

    fn keys(sets: &[&str]) -> Vec<String> {
        let mut b = ConfigBuilder::new().preset("dsftl").unwrap();
        for s in sets {
            b = b.set(s).unwrap();
        }
        match b.build() {
            Ok(_) => Vec::new(),
            Err(e) => {
                e.0.iter()
                    .map(|e| match e {
                        ConfigError::Invalid { key, .. } => key.clone(),
                        other => format!("{other}"),
                    })
                    .collect()
            }
        }
    }

    #[test]
    fn the_cached_map_is_accepted_with_the_content_index() {
        let cached = ["ftl.mapping=\"cached\"", "ftl.cmt.entries=1000"];
        assert!(keys(&[&cached[..], &["ftl.allocation=\"content-aware\""]].concat()).is_empty());
        // The index without multi-path reads: groups are not charged, so their size is
        // refused as ignored.
        let index = [cached[0], cached[1], "dsftl.index=true"];
        assert!(keys(&index).is_empty());
        assert_eq!(
            keys(&[&index[..], &["ftl.cmt.group_entries=2"]].concat()),
            ["ftl.cmt.group_entries"]
        );
        let on = [cached[0], cached[1], "ftl.allocation=\"content-aware\""];
        assert!(keys(&[&on[..], &["ftl.cmt.group_entries=2"]].concat()).is_empty());
        assert_eq!(
            keys(&[&on[..], &["ftl.cmt.group_entries=5000"]].concat()),
            ["ftl.cmt.group_entries"]
        );
        assert_eq!(
            keys(&[
                cached[0],
                "ftl.cmt.entries=3",
                "ftl.allocation=\"content-aware\"",
                "ftl.cmt.group_entries=4"
            ]),
            ["ftl.cmt.group_entries"]
        );
    }
}
