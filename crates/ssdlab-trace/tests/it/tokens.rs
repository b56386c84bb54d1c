//! Content tokens of pages.

use proptest::prelude::*;
use ssdlab_trace::page_token;
use std::collections::HashSet;

proptest! {
    #[test]
    fn page_token_is_never_zero(seed in any::<u64>(), index in any::<u32>()) {
        prop_assert_ne!(page_token(seed, index), 0);
    }

    #[test]
    fn page_token_is_injective_over_indices(seed in any::<u64>(), start in any::<u32>()) {
        let end = start.saturating_add(512);
        let mut seen = HashSet::new();
        for i in start..end {
            prop_assert!(seen.insert(page_token(seed, i)), "index {} repeats a token", i);
        }
        // Page 0 (the seed itself) differs from the others too.
        prop_assert!(!seen.contains(&page_token(seed, 0)) || start == 0);
    }
}

#[test]
fn page_zero_is_the_seed() {
    assert_eq!(page_token(0xabc, 0), 0xabc);
}
