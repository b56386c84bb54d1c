//! [`TraceStats`]: what the papers tabulate about a trace (`ssdlab trace info`).

use crate::error::TraceError;
use crate::request::{page_token, Content, Op, PAGE_BYTES};
use crate::source::RequestStream;
use serde::Serialize;
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};

/// Summary of a request stream. Pages are 4 KiB.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceStats {
    /// Requests in the stream.
    pub requests: u64,
    /// Read requests.
    pub reads: u64,
    /// Write requests.
    pub writes: u64,
    /// `reads / requests` (0 for an empty stream).
    pub read_ratio: f64,
    /// Mean request size.
    pub avg_size_bytes: f64,
    /// Mean read size (0 without reads).
    pub avg_read_size_bytes: f64,
    /// Mean write size (0 without writes).
    pub avg_write_size_bytes: f64,
    /// Arrival of the last request minus that of the first.
    pub duration_ns: u64,
    /// Highest byte address touched plus one (the smallest device that holds the trace).
    pub max_end_bytes: u64,
    /// Distinct pages touched, in bytes.
    pub working_set_bytes: u64,
    /// Distinct pages written, in bytes.
    pub unique_write_bytes: u64,
    /// Whether every write carries a content seed (and there is at least one write).
    pub content_known: bool,
    /// Written pages whose content token was already written before, over all written
    /// pages; `None` unless `content_known`.
    pub duplicate_write_ratio: Option<f64>,
    /// Bad lines skipped.
    pub skipped_lines: u64,
    /// Timestamps clamped because they went backwards.
    pub clamped_timestamps: u64,
    /// Flush commands (not requests of the read or write classes).
    pub flushes: u64,
    /// Writes that must be durable before they complete (FUA).
    pub fua_writes: u64,
    /// Trim (deallocate) commands (not requests of the read or write classes); listed
    /// only when there are some.
    #[serde(skip_serializing_if = "is_zero")]
    pub trims: u64,
    /// Bytes those trims cover.
    #[serde(skip_serializing_if = "is_zero")]
    pub trimmed_bytes: u64,
    /// Gaps of more than 30 days between consecutive requests ([`crate::TimeJumps`]).
    pub time_jumps: u64,
    /// The line of the request after the first such gap (0 if none).
    pub first_jump_line: u64,
    /// Gaps cut by [`crate::TraceOptions::max_gap_ns`], and the time they removed.
    pub gaps_cut: u64,
    /// Time removed by those cuts, ns.
    pub gap_cut_ns: u64,
    /// Format name of the stream.
    pub format: String,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// A hasher for page numbers and content tokens: one SplitMix64 round.
#[derive(Default)]
struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = crate::request::mix64(self.0 ^ u64::from(b));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = crate::request::mix64(self.0 ^ v);
    }
}

type U64Map = HashMap<u64, u64, BuildHasherDefault<MixHasher>>;

/// Page ranges `[first, end)`; their union is counted once, at the end. Memory and time
/// follow the number of requests, not the bytes they address.
#[derive(Default)]
struct PageRanges(Vec<(u64, u64)>);

impl PageRanges {
    fn add(&mut self, first: u64, count: u64) {
        if count > 0 {
            self.0.push((first, first.saturating_add(count)));
        }
    }

    /// Pages covered by the union of the ranges.
    fn union_len(&mut self) -> u64 {
        self.0.sort_unstable();
        let (mut total, mut cur) = (0u64, None::<(u64, u64)>);
        for &(a, b) in &self.0 {
            cur = match cur {
                Some((ca, cb)) if a <= cb => Some((ca, cb.max(b))),
                Some((ca, cb)) => {
                    total += cb - ca;
                    Some((a, b))
                }
                None => Some((a, b)),
            };
        }
        total + cur.map_or(0, |(a, b)| b - a)
    }
}

/// Reads `stream` to its end and summarises it. Time and memory follow the number of
/// requests: page sets are kept as ranges, and repeated content is counted per content
/// seed (page `i` of a request with seed `s` carries `page_token(s, i)`, so a page's
/// content was written before exactly when an earlier write with the same seed covered
/// index `i`), or per token for requests that list one token per page. Nothing depends
/// on hash order.
pub fn analyze(stream: &mut dyn RequestStream) -> Result<TraceStats, TraceError> {
    let (mut reads, mut writes, mut read_bytes, mut write_bytes) = (0u64, 0u64, 0u128, 0u128);
    let (mut first_ns, mut last_ns, mut max_end) = (None, 0u64, 0u64);
    let mut pages = PageRanges::default();
    let mut written_pages = PageRanges::default();
    // Content seed -> pages (indices 0..n) written with it so far; a listed page token
    // counts as a seed covering one page.
    let mut seeds = U64Map::default();
    let (mut with_content, mut writes_without_content) = (0u64, 0u64);
    let (mut written_page_count, mut duplicate_pages) = (0u64, 0u64);
    let mut note = |key: u64, count: u64| {
        let seen = seeds.entry(key).or_insert(0);
        let dup = count.min(*seen);
        *seen = (*seen).max(count);
        dup
    };
    let (mut flushes, mut fua_writes) = (0u64, 0u64);
    let (mut trims, mut trimmed_bytes) = (0u64, 0u64);
    for req in &mut *stream {
        let req = req?;
        first_ns.get_or_insert(req.arrival_ns);
        last_ns = req.arrival_ns;
        if req.op == Op::Flush {
            flushes += 1;
            continue;
        }
        if req.op == Op::Trim {
            trims += 1;
            trimmed_bytes = trimmed_bytes.saturating_add(req.size_bytes);
            max_end = max_end.max(req.offset_bytes.saturating_add(req.size_bytes));
            continue;
        }
        fua_writes += u64::from(req.fua);
        max_end = max_end.max(req.offset_bytes.saturating_add(req.size_bytes));
        let first = req.first_page();
        let count = req.page_count();
        pages.add(first, count);
        with_content += u64::from(req.content.is_some());
        match req.op {
            Op::Read => {
                reads += 1;
                read_bytes += u128::from(req.size_bytes);
            }
            Op::Write => {
                writes += 1;
                write_bytes += u128::from(req.size_bytes);
                written_pages.add(first, count);
                match &req.content {
                    None => writes_without_content += 1,
                    Some(content) => {
                        written_page_count += count;
                        duplicate_pages += match content {
                            // Page 0 carries the seed itself (`page_token`), so seeds
                            // are keyed as page 0's token is.
                            Content::Seed(seed) => note(page_token(*seed, 0), count),
                            Content::Pages(_) => {
                                (0..count).map(|i| note(content.page(i as u32), 1)).sum()
                            }
                        };
                    }
                }
            }
            Op::Flush | Op::Trim => unreachable!("flushes and trims are counted above"),
        }
    }
    let requests = reads + writes;
    let mean = |bytes: u128, n: u64| if n == 0 { 0.0 } else { bytes as f64 / n as f64 };
    let content_known = writes > 0 && writes_without_content == 0 && with_content > 0;
    let jumps = stream.time_jumps();
    Ok(TraceStats {
        requests,
        reads,
        writes,
        read_ratio: if requests == 0 {
            0.0
        } else {
            reads as f64 / requests as f64
        },
        avg_size_bytes: mean(read_bytes + write_bytes, requests),
        avg_read_size_bytes: mean(read_bytes, reads),
        avg_write_size_bytes: mean(write_bytes, writes),
        duration_ns: last_ns - first_ns.unwrap_or(0),
        max_end_bytes: max_end,
        working_set_bytes: pages.union_len() * PAGE_BYTES,
        unique_write_bytes: written_pages.union_len() * PAGE_BYTES,
        content_known,
        duplicate_write_ratio: content_known
            .then(|| duplicate_pages as f64 / written_page_count.max(1) as f64),
        skipped_lines: stream.skipped_lines(),
        clamped_timestamps: stream.clamped_timestamps(),
        flushes,
        fua_writes,
        trims,
        trimmed_bytes,
        time_jumps: jumps.count,
        first_jump_line: jumps.first_line,
        gaps_cut: jumps.cut,
        gap_cut_ns: jumps.cut_ns,
        format: stream.format_name().to_string(),
    })
}

impl fmt::Display for TraceStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "format: {}", self.format)?;
        writeln!(f, "requests: {}", self.requests)?;
        writeln!(f, "reads: {}", self.reads)?;
        writeln!(f, "writes: {}", self.writes)?;
        writeln!(f, "read_ratio: {:.4}", self.read_ratio)?;
        writeln!(f, "avg_size_bytes: {:.1}", self.avg_size_bytes)?;
        writeln!(f, "avg_read_size_bytes: {:.1}", self.avg_read_size_bytes)?;
        writeln!(f, "avg_write_size_bytes: {:.1}", self.avg_write_size_bytes)?;
        writeln!(f, "duration_ns: {}", self.duration_ns)?;
        writeln!(f, "max_end_bytes: {}", self.max_end_bytes)?;
        writeln!(f, "working_set_bytes: {}", self.working_set_bytes)?;
        writeln!(f, "unique_write_bytes: {}", self.unique_write_bytes)?;
        writeln!(f, "content_known: {}", self.content_known)?;
        match self.duplicate_write_ratio {
            Some(r) => writeln!(f, "duplicate_write_ratio: {r:.4}")?,
            None => writeln!(f, "duplicate_write_ratio: n/a")?,
        }
        writeln!(f, "skipped_lines: {}", self.skipped_lines)?;
        writeln!(f, "clamped_timestamps: {}", self.clamped_timestamps)?;
        writeln!(f, "flushes: {}", self.flushes)?;
        writeln!(f, "fua_writes: {}", self.fua_writes)?;
        if self.trims > 0 {
            writeln!(f, "trims: {}", self.trims)?;
            writeln!(f, "trimmed_bytes: {}", self.trimmed_bytes)?;
        }
        writeln!(f, "time_jumps: {}", self.time_jumps)?;
        if self.time_jumps > 0 {
            writeln!(f, "first_jump_line: {}", self.first_jump_line)?;
        }
        writeln!(f, "gaps_cut: {}", self.gaps_cut)?;
        writeln!(f, "gap_cut_ns: {}", self.gap_cut_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{IoRequest, TraceSource};

    struct Fixed(std::vec::IntoIter<IoRequest>);
    impl Iterator for Fixed {
        type Item = Result<IoRequest, TraceError>;
        fn next(&mut self) -> Option<Self::Item> {
            self.0.next().map(Ok)
        }
    }
    impl RequestStream for Fixed {
        fn skipped_lines(&self) -> u64 {
            2
        }
        fn clamped_timestamps(&self) -> u64 {
            1
        }
        fn format_name(&self) -> &'static str {
            "fixed"
        }
    }

    fn req(t: u64, op: Op, page: u64, pages: u64, content: Option<u64>) -> IoRequest {
        IoRequest {
            arrival_ns: t,
            op,
            fua: false,
            offset_bytes: page * 4096,
            size_bytes: pages * 4096,
            content: content.map(Content::Seed),
            stream: None,
        }
    }

    #[test]
    fn counts_pages_and_duplicates() {
        let reqs = vec![
            req(10, Op::Write, 0, 2, Some(7)), // tokens t(7,0), t(7,1)
            req(20, Op::Write, 5, 1, Some(7)), // t(7,0) again: duplicate
            req(30, Op::Read, 1, 3, None),     // pages 1,2,3
            req(40, Op::Write, 0, 1, Some(9)), // fresh
        ];
        let s = analyze(&mut Fixed(reqs.into_iter())).unwrap();
        assert_eq!((s.requests, s.reads, s.writes), (4, 1, 3));
        assert_eq!(s.read_ratio, 0.25);
        assert_eq!(s.avg_size_bytes, 7.0 * 4096.0 / 4.0);
        assert_eq!(s.avg_read_size_bytes, 3.0 * 4096.0);
        assert_eq!(s.duration_ns, 30);
        assert_eq!(s.max_end_bytes, 6 * 4096);
        assert_eq!(s.working_set_bytes, 5 * 4096); // pages 0,1,2,3,5
        assert_eq!(s.unique_write_bytes, 3 * 4096); // pages 0,1,5
        assert!(s.content_known);
        assert_eq!(s.duplicate_write_ratio, Some(0.25));
        assert_eq!((s.skipped_lines, s.clamped_timestamps), (2, 1));
        let text = s.to_string();
        assert!(text.contains("\nduplicate_write_ratio: 0.2500\n"), "{text}");
        assert!(text.lines().all(|l| l.contains(": ")));
    }

    #[test]
    fn listed_page_tokens_count_one_by_one_and_meet_seeds() {
        let listed = |t, page, tokens: &[u64]| IoRequest {
            content: Some(Content::Pages(tokens.into())),
            ..req(t, Op::Write, page, tokens.len() as u64, None)
        };
        let reqs = vec![
            listed(0, 0, &[4, 5, 4]),          // the second 4 repeats the first
            req(10, Op::Write, 9, 1, Some(5)), // seed 5 is page token 5: a duplicate
            listed(20, 3, &[6, 7]),            // fresh
        ];
        let s = analyze(&mut Fixed(reqs.into_iter())).unwrap();
        assert_eq!(s.duplicate_write_ratio, Some(2.0 / 6.0));
    }

    #[test]
    fn content_unknown_without_seeds() {
        let reqs = vec![
            req(0, Op::Write, 0, 1, None),
            req(5, Op::Write, 1, 1, Some(3)),
        ];
        let s = analyze(&mut Fixed(reqs.into_iter())).unwrap();
        assert!(!s.content_known);
        assert_eq!(s.duplicate_write_ratio, None);
        assert!(s.to_string().contains("duplicate_write_ratio: n/a"));
    }

    #[test]
    fn synthetic_duplicates_show_up() {
        let cfg = crate::SyntheticConfig {
            requests: 20_000,
            read_ratio: 0.0,
            size: crate::SizeDist::Fixed { bytes: 4096 },
            duplicate_ratio: 0.3,
            ..crate::SyntheticConfig::default()
        };
        let mut s = TraceSource::Synthetic(cfg).open().unwrap();
        let st = analyze(s.as_mut()).unwrap();
        let r = st.duplicate_write_ratio.unwrap();
        assert!((r - 0.3).abs() < 0.02, "{r}");
        assert_eq!(st.format, "synthetic");
    }

    #[test]
    fn cost_follows_requests_not_bytes_addressed() {
        // 1 TiB of pages in two overlapping requests: counted from their ranges.
        let tib = 1u64 << 28; // pages of 4 KiB
        let reqs = vec![
            req(0, Op::Write, 0, tib, Some(5)),
            req(1, Op::Write, tib / 2, tib, Some(5)),
            req(2, Op::Read, 3 * tib, 1, None),
        ];
        let s = analyze(&mut Fixed(reqs.into_iter())).unwrap();
        assert_eq!(s.working_set_bytes, (tib + tib / 2 + 1) * 4096);
        assert_eq!(s.unique_write_bytes, (tib + tib / 2) * 4096);
        // The second write repeats the seed's first `tib` pages: all duplicates.
        assert_eq!(s.duplicate_write_ratio, Some(0.5));
    }

    #[test]
    fn page_ranges_merge_overlaps_and_neighbours() {
        let mut r = PageRanges::default();
        for (a, n) in [(10, 5), (0, 3), (12, 10), (3, 1), (40, 0), (30, 2)] {
            r.add(a, n);
        }
        // [0,4) [10,22) [30,32)
        assert_eq!(r.union_len(), 4 + 12 + 2);
    }
}
