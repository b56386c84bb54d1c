//! Parsed traces kept in memory for the life of the process, so that a sweep's worker
//! reads each trace file once however many points it runs on it. The key is the file's
//! path, size and modification time plus the reading options, so an edited file is
//! read again.

use crate::errors::RunError;
use ssdlab_trace::{IoRequest, RequestStream, StreamCounts, TraceError, TraceOptions, TraceSource};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::SystemTime;

/// A trace read to the end: its requests and the reader's counters.
pub struct Cached {
    reqs: Vec<IoRequest>,
    counts: StreamCounts,
    format: &'static str,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    path: PathBuf,
    len: u64,
    modified: Option<SystemTime>,
    options: String,
}

type Map = HashMap<Key, Arc<Cached>>;

fn map() -> MutexGuard<'static, Map> {
    static MAP: OnceLock<Mutex<Map>> = OnceLock::new();
    let m = MAP.get_or_init(|| Mutex::new(Map::new()));
    // A panic while the lock was held left at worst a missing entry: carry on.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The parsed trace at `path`, reading it on first use.
pub fn load(path: &Path, options: &TraceOptions) -> Result<Arc<Cached>, RunError> {
    let meta = std::fs::metadata(path)
        .map_err(|e| TraceError::new(path, 0, ssdlab_trace::TraceErrorKind::Io(e.to_string())))?;
    let key = Key {
        path: std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
        len: meta.len(),
        modified: meta.modified().ok(),
        options: format!("{options:?}"),
    };
    if let Some(c) = map().get(&key) {
        return Ok(Arc::clone(c));
    }
    // Read outside the lock: other threads may read other traces meanwhile.
    let src = TraceSource::File {
        path: path.to_path_buf(),
        options: options.clone(),
    };
    let mut stream = src.open()?;
    let mut reqs = Vec::new();
    for r in stream.by_ref() {
        reqs.push(r?);
    }
    let cached = Arc::new(Cached {
        reqs,
        counts: StreamCounts::of(stream.as_ref()),
        format: stream.format_name(),
    });
    map().insert(key, Arc::clone(&cached));
    Ok(cached)
}

/// Drops every cached trace; returns how many there were.
pub fn clear() -> usize {
    let mut m = map();
    let n = m.len();
    m.clear();
    n
}

/// Cached traces.
pub fn len() -> usize {
    map().len()
}

/// Replays a cached trace, reporting the counters its reader had.
pub struct CachedStream {
    trace: Arc<Cached>,
    next: usize,
}

impl CachedStream {
    /// A stream from the first request.
    pub fn new(trace: Arc<Cached>) -> Self {
        CachedStream { trace, next: 0 }
    }
}

impl Iterator for CachedStream {
    type Item = Result<IoRequest, TraceError>;
    fn next(&mut self) -> Option<Self::Item> {
        let r = self.trace.reqs.get(self.next).cloned()?;
        self.next += 1;
        Some(Ok(r))
    }
}

impl RequestStream for CachedStream {
    fn skipped_lines(&self) -> u64 {
        self.trace.counts.skipped
    }
    fn clamped_timestamps(&self) -> u64 {
        self.trace.counts.clamped
    }
    fn format_name(&self) -> &'static str {
        self.trace.format
    }
    fn ignored_lines(&self) -> u64 {
        self.trace.counts.ignored
    }
    fn time_jumps(&self) -> ssdlab_trace::TimeJumps {
        self.trace.counts.jumps
    }
}
