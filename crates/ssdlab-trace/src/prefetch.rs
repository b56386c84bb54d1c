//! [`Prefetch`]: a [`RequestStream`] parsed ahead on its own thread.
//!
//! Parsing (and gunzipping) a trace is independent of the simulation that consumes it,
//! so it can run on a second core while the simulation runs on the first. The reader
//! thread sends requests in batches over a bounded channel; the consumer sees exactly
//! the stream the inner reader would have produced, in the same order, errors included
//! (a batch ends at an error, and nothing after it is read).
//!
//! The inner stream's counters (skipped, clamped and ignored lines) travel with each
//! batch. They are exact once the stream is exhausted (the only time the simulator and
//! `trace info` read them); mid-stream they may run ahead of the consumer by one batch.

use crate::error::TraceError;
use crate::request::IoRequest;
use crate::source::{RequestStream, StreamCounts};
use std::sync::mpsc::{sync_channel, Receiver};
use std::thread::JoinHandle;

/// Requests per batch: large enough that the channel costs nothing per request, small
/// enough that the first batch is ready at once.
const BATCH: usize = 2048;
/// Batches in flight: the reader stays at most this far ahead (bounded memory).
const IN_FLIGHT: usize = 4;

type Item = Result<IoRequest, TraceError>;

/// What the reader thread sends: some items and the inner stream's counters after them.
struct Batch {
    items: Vec<Item>,
    counters: StreamCounts,
}

/// A stream whose inner stream runs ahead on a reader thread.
pub struct Prefetch {
    rx: Option<Receiver<Batch>>,
    current: std::vec::IntoIter<Item>,
    counters: StreamCounts,
    format: &'static str,
    thread: Option<JoinHandle<()>>,
}

impl Prefetch {
    /// Starts reading `inner` on a new thread.
    pub fn new(mut inner: Box<dyn RequestStream>) -> Self {
        let format = inner.format_name();
        let (tx, rx) = sync_channel::<Batch>(IN_FLIGHT);
        let thread = std::thread::Builder::new()
            .name("ssdlab-trace-reader".into())
            .spawn(move || loop {
                let mut items = Vec::with_capacity(BATCH);
                let mut end = false;
                while items.len() < BATCH {
                    match inner.next() {
                        Some(item) => {
                            let failed = item.is_err();
                            items.push(item);
                            if failed {
                                // A stream stops at its first error: nothing after it
                                // is asked for.
                                end = true;
                                break;
                            }
                        }
                        None => {
                            end = true;
                            break;
                        }
                    }
                }
                let batch = Batch {
                    items,
                    counters: StreamCounts::of(inner.as_ref()),
                };
                // A closed channel means the consumer is gone: stop reading.
                if tx.send(batch).is_err() || end {
                    return;
                }
            })
            .expect("spawning the trace reader thread");
        Prefetch {
            rx: Some(rx),
            current: Vec::new().into_iter(),
            counters: StreamCounts::default(),
            format,
            thread: Some(thread),
        }
    }

    /// The next batch, or `None` at the end. A reader thread that panicked passes its
    /// panic on.
    #[cold]
    fn refill(&mut self) -> bool {
        let Some(rx) = &self.rx else { return false };
        match rx.recv() {
            Ok(batch) => {
                self.counters = batch.counters;
                self.current = batch.items.into_iter();
                true
            }
            Err(_) => {
                self.rx = None;
                self.join();
                false
            }
        }
    }

    fn join(&mut self) {
        if let Some(t) = self.thread.take() {
            if let Err(panic) = t.join() {
                std::panic::resume_unwind(panic);
            }
        }
    }
}

impl Iterator for Prefetch {
    type Item = Item;
    #[inline]
    fn next(&mut self) -> Option<Item> {
        loop {
            if let Some(item) = self.current.next() {
                return Some(item);
            }
            if !self.refill() {
                return None;
            }
        }
    }
}

impl RequestStream for Prefetch {
    fn skipped_lines(&self) -> u64 {
        self.counters.skipped
    }
    fn clamped_timestamps(&self) -> u64 {
        self.counters.clamped
    }
    fn format_name(&self) -> &'static str {
        self.format
    }
    fn ignored_lines(&self) -> u64 {
        self.counters.ignored
    }
    fn time_jumps(&self) -> crate::source::TimeJumps {
        self.counters.jumps
    }
}

impl Drop for Prefetch {
    fn drop(&mut self) {
        // Closing the channel ends the reader at its next send; wait for it so that no
        // thread outlives the stream. Its panic (if any) is not raised again in a drop.
        self.rx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::TraceErrorKind;
    use crate::request::Op;
    use std::path::Path;

    /// A stream of `n` requests that fails at request `fail_at` (if any), skipping one
    /// line before every tenth request.
    struct Counted {
        i: u64,
        n: u64,
        fail_at: Option<u64>,
        skipped: u64,
    }

    impl Iterator for Counted {
        type Item = Item;
        fn next(&mut self) -> Option<Item> {
            if self.i == self.n {
                return None;
            }
            let i = self.i;
            self.i += 1;
            if Some(i) == self.fail_at {
                let kind = TraceErrorKind::BadOption {
                    name: "test",
                    message: "failure".into(),
                };
                return Some(Err(TraceError::new(Path::new("t"), i + 1, kind)));
            }
            if i.is_multiple_of(10) {
                self.skipped += 1;
            }
            Some(Ok(IoRequest {
                arrival_ns: i,
                op: if i.is_multiple_of(3) {
                    Op::Read
                } else {
                    Op::Write
                },
                fua: false,
                offset_bytes: i * 4096,
                size_bytes: 4096,
                content: None,
                stream: None,
            }))
        }
    }

    impl RequestStream for Counted {
        fn skipped_lines(&self) -> u64 {
            self.skipped
        }
        fn clamped_timestamps(&self) -> u64 {
            self.i / 7
        }
        fn format_name(&self) -> &'static str {
            "counted"
        }
        fn ignored_lines(&self) -> u64 {
            3
        }
    }

    fn counted(n: u64, fail_at: Option<u64>) -> Counted {
        Counted {
            i: 0,
            n,
            fail_at,
            skipped: 0,
        }
    }

    #[test]
    fn the_stream_and_its_counters_are_the_inner_streams() {
        for n in [0, 1, BATCH as u64 - 1, BATCH as u64, 3 * BATCH as u64 + 17] {
            let mut direct = counted(n, None);
            let want: Vec<IoRequest> = direct.by_ref().map(Result::unwrap).collect();
            let mut p = Prefetch::new(Box::new(counted(n, None)));
            let got: Vec<IoRequest> = p.by_ref().map(Result::unwrap).collect();
            assert_eq!(got, want, "{n} requests");
            assert_eq!(p.skipped_lines(), direct.skipped_lines());
            assert_eq!(p.clamped_timestamps(), direct.clamped_timestamps());
            assert_eq!(p.ignored_lines(), 3);
            assert_eq!(p.format_name(), "counted");
            assert!(p.next().is_none(), "stays exhausted");
        }
    }

    #[test]
    fn an_error_ends_the_stream_where_it_happened() {
        let fail_at = BATCH as u64 + 5;
        let mut p = Prefetch::new(Box::new(counted(10 * BATCH as u64, Some(fail_at))));
        let mut ok = 0;
        let err = loop {
            match p.next().expect("the error comes before the end") {
                Ok(_) => ok += 1,
                Err(e) => break e,
            }
        };
        assert_eq!(ok, fail_at);
        assert_eq!(err.line, fail_at + 1);
        assert!(p.next().is_none(), "nothing is read past an error");
        // The counters are those of the inner stream when it failed.
        assert_eq!(p.clamped_timestamps(), (fail_at + 1) / 7);
    }

    #[test]
    fn dropping_a_stream_half_read_stops_its_reader() {
        let mut p = Prefetch::new(Box::new(counted(u64::MAX, None)));
        assert!(p.next().is_some());
        drop(p); // joins the reader: the test would hang if the reader kept going
    }
}
