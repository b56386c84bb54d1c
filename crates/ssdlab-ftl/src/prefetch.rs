//! Cache hints for the page tables. The tables are far larger than the core's caches and a
//! host request touches them at scattered places: asking for a request's entries before
//! they are needed lets their misses overlap each other and the work in between, instead
//! of each access waiting for its own. A hint never changes what the program computes.

/// Asks for the cache line holding `v[i]`, to be read soon (nothing if `i` is out of range).
#[inline(always)]
pub(crate) fn read<T>(v: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x) = v.get(i) {
        safe_arch::prefetch_t0(x);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (v, i);
}

/// Asks for the cache line holding `v[i]`, to be written soon.
#[inline(always)]
pub(crate) fn write<T>(v: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x) = v.get(i) {
        safe_arch::prefetch_et0(x);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (v, i);
}
