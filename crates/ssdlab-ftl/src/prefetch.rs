//! Cache hints for the page tables. The tables are far larger than the core's caches and a
//! host request touches them at scattered places: asking for a request's entries before
//! they are needed lets their misses overlap each other and the work in between, instead
//! of each access waiting for its own. A hint never changes what the program computes;
//! on targets other than x86_64 it does nothing.

/// What a hinted entry is about to be used for.
#[derive(Clone, Copy)]
pub enum Soon {
    /// To be read.
    Read,
    /// To be written.
    Written,
}

/// Asks for the cache line holding `v[i]` (nothing if `i` is out of range).
#[inline(always)]
pub fn ask<T>(v: &[T], i: usize, soon: Soon) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x) = v.get(i) {
        match soon {
            Soon::Read => safe_arch::prefetch_t0(x),
            Soon::Written => safe_arch::prefetch_et0(x),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (v, i, soon);
}
