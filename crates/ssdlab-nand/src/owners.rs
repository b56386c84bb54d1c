//! [`LpnOwners`]: which tenant a logical page belongs to, from the first LPN of each
//! tenant's namespace (docs/HOST.md §1). The cached map's and the DRAM stage's tenant
//! shares (`ftl.cmt.sharing`, `cache.sharing`) both partition by it.

/// The tenants' namespaces as their first LPNs: an LPN belongs to the tenant whose
/// namespace starts at or below it, the nearest. Namespaces do not overlap, so that is
/// its own namespace's tenant; a page between namespaces (page alignment leaves a few)
/// belongs to the tenant below it, and a page before every namespace to the tenant of
/// the first one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LpnOwners {
    /// First LPN of each tenant's namespace, ascending, with the tenant.
    starts: Vec<(u32, usize)>,
}

impl LpnOwners {
    /// The owners of tenants whose namespaces start at `namespaces` (first LPN, in
    /// tenant order: tenant `i` starts at `namespaces[i]`).
    ///
    /// # Panics
    /// If `namespaces` is empty.
    pub fn new(namespaces: &[u32]) -> Self {
        assert!(!namespaces.is_empty(), "owners of no tenant");
        let mut starts: Vec<(u32, usize)> = namespaces
            .iter()
            .enumerate()
            .map(|(i, &s)| (s, i))
            .collect();
        starts.sort_unstable();
        LpnOwners { starts }
    }

    /// The tenant `lpn` belongs to.
    #[inline]
    pub fn owner(&self, lpn: u32) -> usize {
        let i = self.starts.partition_point(|&(s, _)| s <= lpn);
        self.starts[i.saturating_sub(1)].1
    }

    /// The number of tenants.
    pub fn tenants(&self) -> usize {
        self.starts.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_lpn_belongs_to_the_namespace_at_or_below_it() {
        // Namespaces listed out of address order: tenant 0 at 32, tenant 1 at 8.
        let o = LpnOwners::new(&[32, 8]);
        assert_eq!(o.tenants(), 2);
        assert_eq!(o.owner(8), 1);
        assert_eq!(o.owner(31), 1);
        assert_eq!(o.owner(32), 0);
        assert_eq!(o.owner(63), 0);
        assert_eq!(
            o.owner(3),
            1,
            "before every namespace: the first one's tenant"
        );
    }
}
