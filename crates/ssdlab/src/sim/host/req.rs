//! Host requests in the device and the slab that holds them.

use super::super::txn::ReqId;
use ssdlab_trace::IoRequest;

/// One host request in the device. Its content is taken out when it is admitted.
#[derive(Clone, Debug)]
pub(crate) struct Req {
    pub id: u64,
    pub io: IoRequest,
    pub arrival_ns: u64,
    pub admitted_ns: u64,
    pub first_lpn: u64,
    pub pages: u32,
    /// Pages admitted so far: all of them, unless the request is larger than
    /// [`ADMIT_CHUNK_PAGES`] (then admitted a chunk at a time).
    pub admitted_pages: u32,
    pub pending: u32,
    pub service_ns: u64,
    /// Service of the pre-reads behind the last-completing sub-request (RAID parity).
    pub pre_read_ns: u64,
    pub gc_wait_ns: u64,
    pub flash_txns: u32,
    pub buffer_hits: u32,
}

impl Req {
    /// An internal request (a DRAM destage) of `pages` pages with `io`'s content.
    pub(in crate::sim) fn internal(io: IoRequest, now: u64, first_lpn: u64, pages: u32) -> Self {
        Req {
            id: u64::MAX,
            arrival_ns: now,
            admitted_ns: now,
            first_lpn,
            pages,
            admitted_pages: 0,
            pending: 0,
            service_ns: 0,
            pre_read_ns: 0,
            gc_wait_ns: 0,
            flash_txns: 0,
            buffer_hits: 0,
            io,
        }
    }
}

/// Slab of in-flight requests.
#[derive(Default)]
pub(crate) struct ReqSlab {
    slots: Vec<Req>,
    free: Vec<ReqId>,
    /// Requests admitted in part (larger than a chunk), still admitting.
    pub(in crate::sim) partial: u32,
}

impl ReqSlab {
    #[inline(always)]
    pub(in crate::sim) fn insert(&mut self, r: Req) -> ReqId {
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = r;
            id
        } else {
            self.slots.push(r);
            (self.slots.len() - 1) as ReqId
        }
    }
    #[inline(always)]
    pub(in crate::sim) fn remove(&mut self, id: ReqId) {
        self.free.push(id);
    }
}

impl std::ops::Index<ReqId> for ReqSlab {
    type Output = Req;
    #[inline(always)]
    fn index(&self, id: ReqId) -> &Req {
        &self.slots[id as usize]
    }
}
impl std::ops::IndexMut<ReqId> for ReqSlab {
    #[inline(always)]
    fn index_mut(&mut self, id: ReqId) -> &mut Req {
        &mut self.slots[id as usize]
    }
}
