//! Storage of one page table: zeroed memory from the OS, committed page by page as it is
//! first written (a device's untouched pages cost nothing), or, for a table about to be
//! written all over (a device aged by replay), an anonymous mapping the kernel is asked
//! to back with transparent huge pages.
//!
//! Aging touches nearly every entry of the forward map, the reverse map and the token
//! table. In 4 KiB pages that is one page fault per 4 KiB, and the faults of two
//! simulations of one process (parallel points of `reproduce`) contend in the kernel.
//! With huge pages a table faults once per 2 MiB. A sparse table stays in base pages:
//! there, huge pages would commit 2 MiB for each scattered entry (docs/PERFORMANCE.md).
//!
//! Where the mapping cannot be made, or the kernel declines the advice, the table is
//! ordinary zeroed memory: the choice changes speed and memory, never content.

use bytemuck::Pod;
use std::ops::{Deref, DerefMut};

/// Tables smaller than this stay on the heap (a few huge pages would be mostly empty).
const MIN_MAPPED_BYTES: usize = 8 << 20;

/// How a table's memory is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Layout {
    /// Committed as written, in base pages: memory follows the entries touched.
    Sparse,
    /// About to be written all over: huge pages where the OS gives them.
    Dense,
}

/// A zero-initialised table of `T`, dereferencing to a slice.
pub(crate) struct Table<T: Pod> {
    mem: Mem<T>,
}

enum Mem<T> {
    Heap(Vec<T>),
    Mapped { map: memmap2::MmapMut, len: usize },
}

impl<T: Pod> Table<T> {
    /// `len` zero entries laid out as `layout` asks.
    pub fn zeroed(len: usize, layout: Layout) -> Self {
        let bytes = len * std::mem::size_of::<T>();
        if layout == Layout::Dense && bytes >= MIN_MAPPED_BYTES {
            // An anonymous mapping is zero-filled by the OS.
            if let Ok(map) = memmap2::MmapOptions::new().len(bytes).map_anon() {
                #[cfg(target_os = "linux")]
                {
                    // Advice only: declined (THP off), the mapping works in base pages.
                    let _ = map.advise(memmap2::Advice::HugePage);
                }
                return Table {
                    mem: Mem::Mapped { map, len },
                };
            }
        }
        Table {
            mem: Mem::Heap(vec![T::zeroed(); len]),
        }
    }

    /// How the table is laid out.
    pub fn layout(&self) -> Layout {
        match self.mem {
            Mem::Heap(_) => Layout::Sparse,
            Mem::Mapped { .. } => Layout::Dense,
        }
    }

    /// Bytes of address space the table holds (committed or not).
    pub fn reserved_bytes(&self) -> usize {
        match &self.mem {
            Mem::Heap(v) => v.capacity() * std::mem::size_of::<T>(),
            Mem::Mapped { map, .. } => map.len(),
        }
    }
}

impl<T: Pod> Deref for Table<T> {
    type Target = [T];
    #[inline(always)]
    fn deref(&self) -> &[T] {
        match &self.mem {
            Mem::Heap(v) => v,
            Mem::Mapped { map, len } => &bytemuck::cast_slice(map)[..*len],
        }
    }
}

impl<T: Pod> DerefMut for Table<T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.mem {
            Mem::Heap(v) => v,
            Mem::Mapped { map, len } => &mut bytemuck::cast_slice_mut(map)[..*len],
        }
    }
}

impl<T: Pod> Clone for Table<T> {
    fn clone(&self) -> Self {
        let mut t = Table::zeroed(self.len(), self.layout());
        t.copy_from_slice(self);
        t
    }
}

impl<T: Pod> std::fmt::Debug for Table<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("len", &self.len())
            .field("layout", &self.layout())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_layouts_start_zeroed_and_hold_what_is_written() {
        let n = (MIN_MAPPED_BYTES / 4) + 3;
        for layout in [Layout::Sparse, Layout::Dense] {
            let mut t: Table<u32> = Table::zeroed(n, layout);
            assert_eq!(t.len(), n);
            assert!(t.iter().all(|&x| x == 0));
            t[0] = 7;
            t[n - 1] = 9;
            let c = t.clone();
            assert_eq!((c[0], c[n - 1], c.len()), (7, 9, n));
            assert_eq!(c.layout(), t.layout());
            assert!(t.reserved_bytes() >= n * 4);
        }
    }

    #[test]
    fn a_small_table_stays_on_the_heap() {
        let t: Table<u64> = Table::zeroed(1000, Layout::Dense);
        assert_eq!(t.layout(), Layout::Sparse);
        assert_eq!(t.len(), 1000);
        let e: Table<u64> = Table::zeroed(0, Layout::Dense);
        assert!(e.is_empty());
    }
}
