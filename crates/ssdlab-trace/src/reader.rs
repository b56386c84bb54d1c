//! [`TraceReader`]: a streaming reader over one trace file.

use crate::detect::{detect_format, infer_disksim_unit};
use crate::error::{TraceError, TraceErrorKind};
use crate::formats::{Parser, Record};
use crate::input::{LineInput, LineStatus, MAX_LINE_BYTES};
use crate::lex;
use crate::options::{Discards, SizeUnit, TraceFormat, TraceOptions};
use crate::request::{IoRequest, Op};
use crate::source::{TimeJumps, SUSPICIOUS_GAP_NS};
use std::path::{Path, PathBuf};

/// The latest arrival a trace may ask for (2^62 ns, about 146 years after its first
/// request), so that every simulated time derived from it stays clear of overflow.
pub const MAX_ARRIVAL_NS: u64 = 1 << 62;

/// Streams the requests of one trace file, in file order.
///
/// Times are rebased so that the first request of the trace arrives at 0; a timestamp
/// earlier than the previous one is raised to it and counted
/// ([`clamped_timestamps`](Self::clamped_timestamps)). With `repeat = N` the file is
/// read N times back to back (re-opened each pass); pass *k+1* starts one mean
/// inter-arrival gap after the last request of pass *k*. After an error the iterator
/// ends (unless bad lines are skipped, which then only counts them).
///
/// A gap between consecutive requests longer than [`SUSPICIOUS_GAP_NS`] is counted as a
/// jump of the trace's clock ([`time_jumps`](Self::time_jumps)); with
/// [`TraceOptions::max_gap_ns`] every longer gap is cut to that length.
///
/// A line with a flush before its request (blkparse's preflush) gives two requests at
/// the same time: a flush command, then the request.
///
/// Discards are passed over unless [`TraceOptions::discards`] keeps them as trims; a
/// kept trim that runs past [`TraceOptions::device_bytes`] is a bad line.
pub struct TraceReader {
    path: PathBuf,
    format: TraceFormat,
    size_unit: Option<SizeUnit>,
    skip_bad_lines: bool,
    max_request_bytes: u64,
    max_gap_ns: Option<u64>,
    repeat: u32,
    discards: Discards,
    device_bytes: Option<u64>,
    streams: bool,
    input: LineInput,
    parser: Parser,
    ns_per_tick: u64,
    line: Vec<u8>,
    line_no: u64,
    pass: u32,
    first_time: u64,
    prev_time: u64,
    pass_offset_ns: u64,
    pass_requests: u64,
    last_rel_ns: u64,
    /// Time cut from this pass's gaps so far (`max_gap_ns`).
    pass_cut_ns: u64,
    jumps: TimeJumps,
    requests: u64,
    skipped: u64,
    clamped: u64,
    lines_read: u64,
    ignored: u64,
    held: Held,
}

/// What [`TraceReader::next`] delivers before it reads another line.
#[derive(Debug)]
enum Held {
    /// Nothing: read on.
    Nothing,
    /// The request of a line whose preflush was just delivered.
    Request(IoRequest),
    /// The stream has ended.
    End,
}

impl TraceReader {
    /// Opens `path`, detecting its format from the content unless `opts.format` is set.
    /// Gzip is recognised by its magic bytes.
    pub fn open(path: &Path, opts: &TraceOptions) -> Result<TraceReader, TraceError> {
        if opts.repeat == 0 {
            let kind = TraceErrorKind::BadOption {
                name: "repeat",
                message: "must be at least 1".into(),
            };
            return Err(TraceError::new(path, 0, kind));
        }
        if opts.max_request_bytes == 0 {
            let kind = TraceErrorKind::BadOption {
                name: "max_request_bytes",
                message: "must be at least 1".into(),
            };
            return Err(TraceError::new(path, 0, kind));
        }
        let format = match opts.format {
            Some(f) => f,
            None => detect_format(path)?,
        };
        let size_unit = match (format, opts.disksim_size_unit) {
            (TraceFormat::Disksim, Some(u)) => Some(u),
            (TraceFormat::Disksim, None) => {
                Some(infer_disksim_unit(path)?.unwrap_or(SizeUnit::Sectors))
            }
            _ => None,
        };
        let parser = new_parser(format, size_unit, opts.discards);
        let input = LineInput::open(path).map_err(|e| TraceError::io(path, 0, &e))?;
        Ok(TraceReader {
            path: path.to_path_buf(),
            format,
            size_unit,
            skip_bad_lines: opts.skip_bad_lines,
            max_request_bytes: opts.max_request_bytes,
            max_gap_ns: opts.max_gap_ns,
            repeat: opts.repeat,
            discards: opts.discards,
            device_bytes: opts.device_bytes,
            streams: opts.streams,
            input,
            ns_per_tick: parser.ns_per_tick(),
            parser,
            line: Vec::with_capacity(256),
            line_no: 0,
            pass: 0,
            first_time: 0,
            prev_time: 0,
            pass_offset_ns: 0,
            pass_requests: 0,
            last_rel_ns: 0,
            pass_cut_ns: 0,
            jumps: TimeJumps::default(),
            requests: 0,
            skipped: 0,
            clamped: 0,
            lines_read: 0,
            ignored: 0,
            held: Held::Nothing,
        })
    }

    /// The format being read.
    pub fn format(&self) -> TraceFormat {
        self.format
    }

    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The unit applied to DiskSim's `size` column (`None` for other formats).
    pub fn disksim_size_unit(&self) -> Option<SizeUnit> {
        self.size_unit
    }

    /// Bad lines skipped so far (only when `skip_bad_lines`), over all passes.
    pub fn skipped_lines(&self) -> u64 {
        self.skipped
    }

    /// Records whose timestamp went backwards and was clamped to the previous one.
    pub fn clamped_timestamps(&self) -> u64 {
        self.clamped
    }

    /// Physical lines read so far, over all passes.
    pub fn lines_read(&self) -> u64 {
        self.lines_read
    }

    /// Legitimate non-request lines passed over (blkparse events other than `D`, the
    /// blkparse summary, header lines); blank and comment lines are not counted.
    pub fn ignored_lines(&self) -> u64 {
        self.ignored
    }

    /// Jumps of the trace's clock longer than [`SUSPICIOUS_GAP_NS`] and the gaps cut by
    /// `max_gap_ns`, in the first pass so far.
    pub fn time_jumps(&self) -> TimeJumps {
        self.jumps
    }

    /// Requests delivered so far.
    pub fn requests(&self) -> u64 {
        self.requests
    }

    fn fail(&mut self, line: u64, kind: TraceErrorKind) -> Option<Result<IoRequest, TraceError>> {
        self.held = Held::End;
        Some(Err(TraceError::new(&self.path, line, kind)))
    }

    /// Holds `io` back behind the flush that comes first on its line, and returns that
    /// flush.
    #[cold]
    fn hold(&mut self, io: IoRequest) -> IoRequest {
        self.requests += 1;
        let flush = IoRequest::flush(io.arrival_ns);
        self.held = Held::Request(io);
        flush
    }

    /// Delivers what is held: the request behind a preflush, or the end.
    #[cold]
    fn release(&mut self) -> Option<Result<IoRequest, TraceError>> {
        match std::mem::replace(&mut self.held, Held::Nothing) {
            Held::Request(io) => Some(Ok(io)),
            end => {
                self.held = end;
                None
            }
        }
    }

    /// Checks a record's size and byte range and rebases its time. A request larger than
    /// `max_request_bytes`, a byte range past 2^64, or a time too far after the first
    /// record (more than [`MAX_ARRIVAL_NS`] of simulated time) is an error; nothing of
    /// the reader's state changes then, so the line can be skipped.
    #[inline]
    fn rebase(&mut self, rec: Record) -> Result<IoRequest, TraceErrorKind> {
        if rec.size_bytes > self.max_request_bytes {
            return Err(TraceErrorKind::RequestTooLarge {
                size_bytes: rec.size_bytes,
                limit_bytes: self.max_request_bytes,
            });
        }
        if rec
            .offset_bytes
            .checked_add(rec.size_bytes.saturating_sub(1))
            .is_none()
        {
            return Err(TraceErrorKind::RangeOverflow {
                offset_bytes: rec.offset_bytes,
                size_bytes: rec.size_bytes,
            });
        }
        if rec.op == Op::Trim {
            self.check_trim(&rec)?;
        }
        let stream = if self.streams {
            Some(self.stream(&rec)?)
        } else {
            None
        };
        let (first_time, prev_time) = if self.pass_requests == 0 {
            (rec.time, rec.time)
        } else {
            (self.first_time, self.prev_time)
        };
        let clamped = rec.time < prev_time;
        let t = rec.time.max(prev_time);
        let (cut_before, last_rel) = if self.pass_requests == 0 {
            (0, 0)
        } else {
            (self.pass_cut_ns, self.last_rel_ns)
        };
        let out_of_range = || TraceErrorKind::OutOfRange {
            field: self.parser.time_field(),
            value: format!("{} (more than 2^62 ns after the first request)", rec.time),
        };
        let uncut_ns = (t - first_time)
            .checked_mul(self.ns_per_tick)
            .ok_or_else(out_of_range)?;
        // The gap to the previous request as the trace has it; a longer one than
        // max_gap_ns is cut to that length.
        let gap_ns = uncut_ns - cut_before - last_rel;
        let cut_now = match self.max_gap_ns {
            Some(max) if self.pass_requests > 0 => gap_ns.saturating_sub(max),
            _ => 0,
        };
        let rel_ns = uncut_ns - cut_before - cut_now;
        if rel_ns
            .checked_add(self.pass_offset_ns)
            .is_none_or(|ns| ns > MAX_ARRIVAL_NS)
        {
            return Err(out_of_range());
        }
        if self.pass == 0 && self.pass_requests > 0 {
            self.note_gap(gap_ns, cut_now);
        }
        self.pass_cut_ns = cut_before + cut_now;
        self.first_time = first_time;
        self.prev_time = t;
        self.clamped += u64::from(clamped);
        self.last_rel_ns = rel_ns;
        self.pass_requests += 1;
        self.requests += 1;
        Ok(IoRequest {
            arrival_ns: self.pass_offset_ns + rel_ns,
            op: rec.op,
            fua: rec.fua,
            offset_bytes: rec.offset_bytes,
            size_bytes: rec.size_bytes,
            content: rec.content,
            stream,
        })
    }

    /// The record's stream field, which must fit in 32 bits.
    #[cold]
    fn stream(&self, rec: &Record) -> Result<u32, TraceErrorKind> {
        u32::try_from(rec.stream).map_err(|_| TraceErrorKind::OutOfRange {
            field: self.format.stream_field(),
            value: format!("{} (a stream identifier must be below 2^32)", rec.stream),
        })
    }

    /// A trim must end inside the device, when its capacity is known.
    #[cold]
    fn check_trim(&self, rec: &Record) -> Result<(), TraceErrorKind> {
        match self.device_bytes {
            Some(capacity_bytes)
                if rec.offset_bytes.saturating_add(rec.size_bytes) > capacity_bytes =>
            {
                Err(TraceErrorKind::TrimPastEnd {
                    field: self.parser.address_field(),
                    offset_bytes: rec.offset_bytes,
                    size_bytes: rec.size_bytes,
                    capacity_bytes,
                })
            }
            _ => Ok(()),
        }
    }

    /// Counts a gap of the first pass: a jump when longer than [`SUSPICIOUS_GAP_NS`], a
    /// cut when `max_gap_ns` shortened it by `cut_ns`.
    fn note_gap(&mut self, gap_ns: u64, cut_ns: u64) {
        if gap_ns > SUSPICIOUS_GAP_NS {
            if self.jumps.count == 0 {
                self.jumps.first_line = self.line_no;
                self.jumps.first_gap_ns = gap_ns;
            }
            self.jumps.count += 1;
        }
        if cut_ns > 0 {
            self.jumps.cut += 1;
            self.jumps.cut_ns += cut_ns;
        }
    }

    /// At the end of a pass: `Ok(true)` when another pass has been opened.
    fn next_pass(&mut self) -> Result<bool, TraceError> {
        if self.pass_requests == 0 {
            return if self.requests == 0 {
                Err(TraceError::new(&self.path, 0, TraceErrorKind::Empty))
            } else {
                Ok(false)
            };
        }
        if self.pass + 1 >= self.repeat {
            return Ok(false);
        }
        let gap_ns = self.last_rel_ns / (self.pass_requests - 1).max(1);
        self.pass_offset_ns = self
            .pass_offset_ns
            .saturating_add(self.last_rel_ns)
            .saturating_add(gap_ns);
        self.input = LineInput::open(&self.path).map_err(|e| TraceError::io(&self.path, 0, &e))?;
        self.parser = new_parser(self.format, self.size_unit, self.discards);
        self.pass += 1;
        self.pass_requests = 0;
        self.last_rel_ns = 0;
        self.pass_cut_ns = 0;
        self.line_no = 0;
        Ok(true)
    }
}

impl Iterator for TraceReader {
    type Item = Result<IoRequest, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if !matches!(self.held, Held::Nothing) {
            return self.release();
        }
        loop {
            self.line.clear();
            let status = match self.input.next_line(&mut self.line) {
                Ok(s) => s,
                Err(e) => {
                    let kind = TraceErrorKind::Io(e.to_string());
                    return self.fail(self.line_no + 1, kind);
                }
            };
            if status == LineStatus::Eof {
                match self.next_pass() {
                    Ok(true) => continue,
                    Ok(false) => {
                        self.held = Held::End;
                        return None;
                    }
                    Err(e) => {
                        self.held = Held::End;
                        return Some(Err(e));
                    }
                }
            }
            self.line_no += 1;
            self.lines_read += 1;
            let parsed = if status == LineStatus::TooLong {
                Err(TraceErrorKind::LineTooLong {
                    limit_bytes: MAX_LINE_BYTES,
                })
            } else {
                let l = lex::trim(&self.line);
                if l.is_empty() || l[0] == b'#' {
                    continue;
                }
                self.parser.parse(l)
            };
            match parsed {
                Ok(Some(rec)) => {
                    let preflush = rec.preflush;
                    match self.rebase(rec) {
                        Ok(io) if preflush => return Some(Ok(self.hold(io))),
                        Ok(io) => return Some(Ok(io)),
                        Err(_) if self.skip_bad_lines => self.skipped += 1,
                        Err(kind) => return self.fail(self.line_no, kind),
                    }
                }
                Ok(None) => self.ignored += 1,
                Err(_) if self.skip_bad_lines => self.skipped += 1,
                Err(kind) => return self.fail(self.line_no, kind),
            }
        }
    }
}

/// A parser for `format` (DiskSim's `size_unit`, sectors by default) that keeps or
/// drops discards as `discards` says.
fn new_parser(format: TraceFormat, size_unit: Option<SizeUnit>, discards: Discards) -> Parser {
    let mut p = Parser::new(format, size_unit.unwrap_or(SizeUnit::Sectors));
    if discards == Discards::Trim {
        p.keep_discards();
    }
    p
}

impl std::fmt::Debug for TraceReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceReader")
            .field("path", &self.path)
            .field("format", &self.format)
            .field("pass", &self.pass)
            .field("line", &self.line_no)
            .field("requests", &self.requests)
            .finish_non_exhaustive()
    }
}
