//! One host I/O request and the content tokens of its pages.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Size of the unit in which content tokens, working sets and duplicates are counted.
pub const PAGE_BYTES: u64 = 4096;

/// What a host request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// Data flows from the device to the host.
    Read,
    /// Data flows from the host to the device.
    Write,
    /// Make every write completed before it durable (NVMe Flush, a block layer's
    /// pre-flush). Carries no data: its offset and size are 0.
    Flush,
    /// Deallocate a byte range (NVMe Dataset Management with the Deallocate attribute,
    /// a block layer's discard, ATA/SCSI TRIM/UNMAP): the device forgets the data of the
    /// pages the range covers whole; a later read of them returns the content of a page
    /// never written. Carries no data; its size is > 0.
    Trim,
}

impl Op {
    /// `true` for [`Op::Read`].
    #[inline]
    pub fn is_read(self) -> bool {
        matches!(self, Op::Read)
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Flush => "flush",
            Op::Trim => "trim",
        })
    }
}

/// The content of a request's 4 KiB pages, as far as the trace knows it.
///
/// Page `i` counts in 4 KiB units from the request's first page
/// ([`IoRequest::first_page`]); [`Content::page`] gives its token (never 0).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Content {
    /// One seed for the whole request: page `i` has token [`page_token`]`(seed, i)`.
    /// Synthetic writes, and FIU lines with one digest.
    Seed(u64),
    /// One token per page, in order (FIU lines with a digest per page or per sector).
    /// Pages past the end of the list (the tail page of a request that is not 4 KiB
    /// aligned) get a token derived from the last one, distinct from every listed token
    /// of the request.
    Pages(Box<[u64]>),
}

impl Content {
    /// The token of page `i` of the request (never 0).
    #[inline]
    pub fn page(&self, i: u32) -> u64 {
        match self {
            Content::Seed(seed) => page_token(*seed, i),
            Content::Pages(tokens) => match tokens.get(i as usize) {
                Some(&t) => t,
                None => {
                    let last = tokens.last().copied().unwrap_or(1);
                    let past = i + 1 - tokens.len() as u32;
                    page_token(mix64(last ^ PAST_END_SALT), past)
                }
            },
        }
    }
}

/// Salt of the tokens derived for pages past the end of a per-page list.
const PAST_END_SALT: u64 = 0x7f4a_7c15_9e37_79b9;

/// One host I/O as a trace or a generator delivers it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoRequest {
    /// Arrival time in ns, relative to the first record of the trace (the first request
    /// arrives at 0); never decreasing along a stream.
    pub arrival_ns: u64,
    /// Read, write, flush or trim.
    pub op: Op,
    /// A write that must be durable before it completes (Force Unit Access); false for
    /// reads and flushes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fua: bool,
    /// Byte address on the device.
    pub offset_bytes: u64,
    /// Length in bytes; > 0 for reads, writes and trims, 0 for a flush.
    pub size_bytes: u64,
    /// Content of the data's pages; `None` when the trace carries no content (and
    /// always for flushes and trims).
    pub content: Option<Content>,
    /// The stream of data the request belongs to, as its source names it: a trace's
    /// stream field (`TraceOptions::streams`, [`crate::TraceFormat::stream_field`]) or
    /// a synthetic workload's placement rule. `None` unless asked for; a simulator
    /// with placement handles from the workload takes it as the write's placement
    /// identifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<u32>,
}

impl IoRequest {
    /// Index of the first 4 KiB page the request touches.
    #[inline]
    pub fn first_page(&self) -> u64 {
        self.offset_bytes / PAGE_BYTES
    }

    /// A flush arriving at `arrival_ns`.
    pub fn flush(arrival_ns: u64) -> Self {
        IoRequest {
            arrival_ns,
            op: Op::Flush,
            fua: false,
            offset_bytes: 0,
            size_bytes: 0,
            content: None,
            stream: None,
        }
    }

    /// Number of 4 KiB pages the request touches (an unaligned request touches the
    /// partial pages at both ends). Not for a flush, which touches none.
    #[inline]
    pub fn page_count(&self) -> u64 {
        debug_assert!(self.size_bytes > 0, "a flush has no pages");
        let last = (self.offset_bytes.saturating_add(self.size_bytes - 1)) / PAGE_BYTES;
        last - self.first_page() + 1
    }
}

/// SplitMix64 finaliser: a bijection on `u64` that spreads every input bit over the
/// output; maps 0 to 0 and nothing else to 0.
#[inline]
pub(crate) fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// Token of page `page_index` (0-based, in units of 4 KiB) inside a request whose
/// content seed is `seed`.
///
/// Page 0's token is `seed` itself (a seed of 0 is read as 1). Other pages get
/// `mix64(seed + page_index · γ)` with the SplitMix64 finaliser and golden gamma γ:
/// for a fixed seed, `page_index ↦ token` is injective (an odd multiplier and a
/// bijective mix). Never returns 0.
#[inline]
pub fn page_token(seed: u64, page_index: u32) -> u64 {
    if page_index == 0 {
        return seed.max(1);
    }
    let x = seed.wrapping_add(u64::from(page_index).wrapping_mul(GOLDEN_GAMMA));
    let t = mix64(x);
    if t == 0 {
        // Only x == 0 mixes to 0; give that one index a fixed non-zero stand-in.
        mix64(GOLDEN_GAMMA)
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_zero_is_the_seed() {
        assert_eq!(page_token(77, 0), 77);
        assert_eq!(page_token(0, 0), 1);
        assert_ne!(page_token(77, 1), 77);
        assert_ne!(page_token(77, 1), page_token(77, 2));
    }

    #[test]
    fn zero_mix_input_gets_a_non_zero_token() {
        // seed + 1·γ == 0  ⇒  the mix input is 0.
        let seed = GOLDEN_GAMMA.wrapping_neg();
        assert_ne!(page_token(seed, 1), 0);
    }

    #[test]
    fn content_gives_each_page_its_token() {
        let seed = Content::Seed(77);
        assert_eq!(seed.page(0), 77);
        assert_eq!(seed.page(3), page_token(77, 3));
        let pages = Content::Pages(vec![5, 9, 5].into_boxed_slice());
        assert_eq!([pages.page(0), pages.page(1), pages.page(2)], [5, 9, 5]);
        let tail = pages.page(3);
        assert!(![0, 5, 9].contains(&tail), "a derived tail token {tail}");
        assert_ne!(pages.page(4), tail);
        let other = Content::Pages(vec![5, 9, 6].into_boxed_slice());
        assert_ne!(other.page(3), tail, "the tail depends on the listed tokens");
    }

    #[test]
    fn a_request_stays_within_a_cache_line() {
        // The stream identifier (8 bytes with its tag) keeps a request to 64 bytes.
        assert!(std::mem::size_of::<IoRequest>() <= 64);
    }

    #[test]
    fn page_span_of_unaligned_request() {
        let r = IoRequest {
            arrival_ns: 0,
            op: Op::Write,
            fua: false,
            offset_bytes: 4000,
            size_bytes: 200,
            content: None,
            stream: None,
        };
        assert_eq!(r.first_page(), 0);
        assert_eq!(r.page_count(), 2);
        let r = IoRequest {
            offset_bytes: 8192,
            size_bytes: 8192,
            ..r
        };
        assert_eq!(r.first_page(), 2);
        assert_eq!(r.page_count(), 2);
    }
}
