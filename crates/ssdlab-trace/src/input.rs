//! Opening trace files (plain or gzip, by magic bytes) and reading bounded lines.

use flate2::read::MultiGzDecoder;
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

/// Buffer size of the file reader and of the decompressed stream.
const BUF_BYTES: usize = 256 * 1024;
/// The longest line accepted; longer ones are reported (and skipped in skip mode).
pub(crate) const MAX_LINE_BYTES: usize = 64 * 1024;
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
const UTF8_BOM: [u8; 3] = [0xef, 0xbb, 0xbf];

/// What [`LineInput::next_line`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LineStatus {
    /// A line (with its terminator, if any) is in the buffer.
    Line,
    /// A line longer than [`MAX_LINE_BYTES`] was consumed and dropped.
    TooLong,
    /// End of input.
    Eof,
}

/// A buffered byte stream of a trace file, decompressed when it is gzip.
pub(crate) struct LineInput {
    inner: Box<dyn BufRead + Send>,
}

impl LineInput {
    /// Opens `path`; gzip (also several concatenated members) is recognised by its magic
    /// bytes, whatever the file is called.
    pub(crate) fn open(path: &Path) -> io::Result<LineInput> {
        let mut file = BufReader::with_capacity(BUF_BYTES, File::open(path)?);
        let head = file.fill_buf()?;
        let mut inner: Box<dyn BufRead + Send> = if head.starts_with(&GZIP_MAGIC) {
            Box::new(BufReader::with_capacity(
                BUF_BYTES,
                MultiGzDecoder::new(file),
            ))
        } else {
            Box::new(file)
        };
        // A UTF-8 byte-order mark (as some Windows tools write) is not part of line 1.
        if inner.fill_buf()?.starts_with(&UTF8_BOM) {
            inner.consume(UTF8_BOM.len());
        }
        Ok(LineInput { inner })
    }

    /// Appends the next line to `buf` (which the caller clears).
    #[inline]
    pub(crate) fn next_line(&mut self, buf: &mut Vec<u8>) -> io::Result<LineStatus> {
        loop {
            let avail = self.inner.fill_buf()?;
            if avail.is_empty() {
                return Ok(if buf.is_empty() {
                    LineStatus::Eof
                } else {
                    LineStatus::Line
                });
            }
            if let Some(i) = avail.iter().position(|b| *b == b'\n') {
                let too_long = buf.len() + i > MAX_LINE_BYTES;
                if !too_long {
                    buf.extend_from_slice(&avail[..i]);
                }
                self.inner.consume(i + 1);
                if too_long {
                    buf.clear();
                    return Ok(LineStatus::TooLong);
                }
                return Ok(LineStatus::Line);
            }
            let n = avail.len();
            buf.extend_from_slice(avail);
            self.inner.consume(n);
            if buf.len() > MAX_LINE_BYTES {
                self.skip_rest_of_line()?;
                buf.clear();
                return Ok(LineStatus::TooLong);
            }
        }
    }

    fn skip_rest_of_line(&mut self) -> io::Result<()> {
        loop {
            let avail = self.inner.fill_buf()?;
            if avail.is_empty() {
                return Ok(());
            }
            if let Some(i) = avail.iter().position(|b| *b == b'\n') {
                self.inner.consume(i + 1);
                return Ok(());
            }
            let n = avail.len();
            self.inner.consume(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn temp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("ssdlab-trace-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }

    fn lines(path: &Path) -> Vec<(LineStatus, String)> {
        let mut input = LineInput::open(path).unwrap();
        let mut out = Vec::new();
        loop {
            let mut buf = Vec::new();
            let st = input.next_line(&mut buf).unwrap();
            if st == LineStatus::Eof {
                return out;
            }
            out.push((st, String::from_utf8(buf).unwrap()));
        }
    }

    #[test]
    fn plain_and_gzip_by_magic_not_name() {
        let plain = temp("plain.gz", b"a\nb\r\nc");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(b"a\nb\r\n").unwrap();
        let mut gz = enc.finish().unwrap();
        // A second gzip member holds the last line.
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(b"c").unwrap();
        gz.extend(enc.finish().unwrap());
        let gz = temp("compressed.txt", &gz);
        for p in [plain, gz] {
            let got: Vec<String> = lines(&p).into_iter().map(|(_, l)| l).collect();
            assert_eq!(got, ["a", "b\r", "c"]);
        }
    }

    #[test]
    fn overlong_lines_are_dropped_whole() {
        let mut bytes = vec![b'x'; MAX_LINE_BYTES * 5];
        bytes.extend_from_slice(b"\nok\n");
        bytes.extend(vec![b'y'; MAX_LINE_BYTES + 1]);
        bytes.extend_from_slice(b"\nend");
        let p = temp("long.txt", &bytes);
        let got = lines(&p);
        assert_eq!(got[0].0, LineStatus::TooLong);
        assert_eq!(got[1], (LineStatus::Line, "ok".to_string()));
        assert_eq!(got[2].0, LineStatus::TooLong);
        assert_eq!(got[3], (LineStatus::Line, "end".to_string()));
        assert_eq!(got.len(), 4);
    }
}
