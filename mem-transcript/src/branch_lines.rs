//! Pass 2's reads: the lines of a branch, read in file regions of about a
//! megabyte, by a second thread ahead of their use or in place.
//!
//! Memory: at most `DEPTH` (2) + 2 regions of `max(REGION, longest line)`
//! bytes at once.

use std::fs::File;
use std::io;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use crate::input::read_at_full;

/// Bytes a region holds at least (when lines are shorter).
pub const REGION: usize = 1 << 20;

/// Regions read ahead and waiting in the channel.
const DEPTH: usize = 2;

/// A byte range of the file, read at once.
#[derive(Debug)]
pub struct Region {
    /// Offset of the first byte in the file.
    start: u64,
    /// The bytes.
    data: Vec<u8>,
}

impl Region {
    fn contains(&self, off: u64, len: usize) -> bool {
        off >= self.start && off + len as u64 <= self.start + self.data.len() as u64
    }

    /// Bytes held.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// True when the region holds no byte.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The region's buffer, to read the next region into.
    pub fn into_buf(self) -> Vec<u8> {
        self.data
    }
}

/// The byte spans `(offset, len)` of the lines to read, in the order they
/// are read: a list, or computed from the index on demand (no copy of a
/// branch of millions of lines).
pub trait Spans: Sync {
    /// How many spans.
    fn count(&self) -> usize;
    /// Span `k` (`k < count()`): byte offset and length.
    fn span(&self, k: usize) -> (u64, usize);
}

impl Spans for [(u64, usize)] {
    fn count(&self) -> usize {
        self.len()
    }
    fn span(&self, k: usize) -> (u64, usize) {
        self[k]
    }
}

impl Spans for Vec<(u64, usize)> {
    fn count(&self) -> usize {
        self.len()
    }
    fn span(&self, k: usize) -> (u64, usize) {
        self[k]
    }
}

/// Cut the spans `(offset, len)` into regions, in their order: a region
/// starts at a span and takes the following spans while they lie inside
/// `[start, start + max(REGION, first len))`, so spans in file order cost
/// one read a megabyte. Returns ranges of span indices.
pub fn plan_regions(spans: &(impl Spans + ?Sized)) -> Vec<std::ops::Range<usize>> {
    let mut plan = Vec::new();
    let mut i = 0;
    let count = spans.count();
    while i < count {
        let (start, len) = spans.span(i);
        let limit = start + len.max(REGION) as u64;
        let mut j = i + 1;
        while j < count {
            let (o, l) = spans.span(j);
            if o < start || o + l as u64 > limit {
                break;
            }
            j += 1;
        }
        plan.push(i..j);
        i = j;
    }
    plan
}

/// Read the region that holds the spans `range` of `spans` (one region of
/// [`plan_regions`]) into `buf` (its old bytes are overwritten, its
/// allocation kept).
/// Errors: the read error; [`crate::input::shrank`] when the file ends
/// before the region does.
pub fn read_region(
    file: &File,
    spans: &(impl Spans + ?Sized),
    range: std::ops::Range<usize>,
    mut buf: Vec<u8>,
) -> io::Result<Region> {
    let start = range.clone().map(|k| spans.span(k).0).min().unwrap_or(0);
    let end = range
        .map(|k| {
            let (o, l) = spans.span(k);
            o + l as u64
        })
        .max()
        .unwrap_or(start);
    let len = (end - start) as usize;
    if buf.len() < len {
        buf.resize(len, 0);
    }
    let n = read_at_full(file, &mut buf[..len], start)?;
    if n < len {
        return Err(crate::input::shrank());
    }
    buf.truncate(n);
    Ok(Region { start, data: buf })
}

impl Region {
    /// The bytes `[off, off + len)` of the file, which the region holds
    /// (clipped to what it holds).
    pub fn slice(&self, off: u64, len: usize) -> &[u8] {
        let all = self.data.len();
        let s = (off.saturating_sub(self.start) as usize).min(all);
        let e = (s + len).min(all);
        &self.data[s..e]
    }
}

/// Regions in order, read here or by a thread ahead.
enum Source<'f> {
    Here {
        file: &'f File,
        spans: &'f dyn Spans,
        plan: std::vec::IntoIter<std::ops::Range<usize>>,
    },
    Ahead(Receiver<io::Result<Region>>),
}

/// The lines of a branch in order, by [`BranchLines::get`].
pub struct BranchLines<'f> {
    source: Source<'f>,
    current: Option<Region>,
}

impl<'f> BranchLines<'f> {
    /// Read the spans `(offset, len)` in this thread, a region at a time.
    pub fn here(file: &'f File, spans: &'f dyn Spans) -> BranchLines<'f> {
        let plan = plan_regions(spans).into_iter();
        BranchLines {
            source: Source::Here { file, spans, plan },
            current: None,
        }
    }

    /// Read the spans on a thread of `scope`, two regions ahead.
    pub fn ahead<'s>(
        scope: &'s std::thread::Scope<'s, '_>,
        file: &'f File,
        spans: &'f dyn Spans,
    ) -> BranchLines<'f>
    where
        'f: 's,
    {
        let (tx, rx): (SyncSender<io::Result<Region>>, _) = sync_channel(DEPTH);
        scope.spawn(move || {
            for r in plan_regions(spans) {
                let region = read_region(file, spans, r, Vec::new());
                let stop = region.is_err();
                // The receiver is gone when pass 2 ended early (an error).
                if tx.send(region).is_err() || stop {
                    break;
                }
            }
        });
        BranchLines {
            source: Source::Ahead(rx),
            current: None,
        }
    }

    /// The bytes `[off, off + len)` — the next span in the order given (the
    /// spans must be asked for in that order).
    ///
    /// Errors: the read error; `UnexpectedEof` when asked out of order or
    /// when the file became shorter ([`crate::input::shrank`]).
    pub fn get(&mut self, off: u64, len: usize) -> io::Result<&[u8]> {
        let stale = self.current.as_ref().is_none_or(|r| !r.contains(off, len));
        if stale {
            let next = match &mut self.source {
                Source::Here { file, spans, plan } => plan.next().map(|r| {
                    let buf = self
                        .current
                        .take()
                        .map(Region::into_buf)
                        .unwrap_or_default();
                    read_region(file, *spans, r, buf)
                }),
                Source::Ahead(rx) => rx.recv().ok(),
            };
            self.current = Some(next.ok_or_else(|| {
                io::Error::new(io::ErrorKind::UnexpectedEof, "branch read out of order")
            })??);
        }
        let r = self.current.as_ref().expect("a region is current");
        if off < r.start || off > r.start + r.data.len() as u64 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "branch read out of order",
            ));
        }
        Ok(r.slice(off, len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file(bytes: &[u8]) -> File {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(bytes).unwrap();
        f
    }

    fn collect(lines: &mut BranchLines<'_>, spans: &[(u64, usize)]) -> Vec<Vec<u8>> {
        spans
            .iter()
            .map(|&(o, l)| lines.get(o, l).unwrap().to_vec())
            .collect()
    }

    /// Spans in and out of file order (a fork jumps back), region
    /// boundaries, a line longer than a region: both readers give the bytes
    /// the file holds, and the plan reads file-order spans a megabyte at once.
    #[test]
    fn reads_every_span_in_order_here_and_ahead() {
        let mut data = Vec::new();
        let mut spans = Vec::new();
        for i in 0..3000u64 {
            let start = data.len() as u64;
            let pad = if i == 1500 { 3 * REGION / 2 } else { 300 };
            data.extend_from_slice(
                format!("{{\"n\":{i},\"pad\":\"{}\"}}\n", "é".repeat(pad / 2)).as_bytes(),
            );
            spans.push((start, data.len() - start as usize));
        }
        let mut order: Vec<(u64, usize)> = spans[..2000].to_vec();
        order.extend_from_slice(&spans[10..20]);
        order.extend_from_slice(&spans[2500..]);
        let plan = plan_regions(&order[..]);
        // 1500 lines of ~330 bytes a region before the long line, which
        // makes one region of its own with the lines that fit after it
        assert_eq!(plan[0], 0..1500);
        assert_eq!(plan[1].start, 1500);
        assert!(plan.contains(&(2000..2010)), "{plan:?}");
        assert!(plan.len() < 8, "{plan:?}");
        let f = file(&data);
        let want: Vec<Vec<u8>> = order
            .iter()
            .map(|&(o, l)| data[o as usize..o as usize + l].to_vec())
            .collect();
        assert_eq!(collect(&mut BranchLines::here(&f, &order), &order), want);
        let ahead = std::thread::scope(|s| collect(&mut BranchLines::ahead(s, &f, &order), &order));
        assert_eq!(ahead, want);
        // asked out of order: an error, not a wrong line
        let first_two = spans[..2].to_vec();
        let mut l = BranchLines::here(&f, &first_two);
        assert!(l.get(spans[5].0, spans[5].1).is_err());
    }

    /// A file cut shorter after the index was made: an error saying so, in
    /// this thread and ahead, never a shorter line.
    #[test]
    fn a_file_that_shrank_is_an_error() {
        let data = b"{\"a\":1}\n{\"b\":2}\n".repeat(1000);
        let f = file(&data);
        let spans: Vec<(u64, usize)> = (0..2000).map(|i| (i * 8, 8)).collect();
        f.set_len(5000).unwrap();
        let e = read_region(&f, &spans[..], 0..spans.len(), Vec::new()).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        assert!(e.to_string().contains("shorter"), "{e}");
        let got = std::thread::scope(|s| {
            let mut l = BranchLines::ahead(s, &f, &spans);
            l.get(0, 8).map(<[u8]>::to_vec)
        });
        assert!(got.unwrap_err().to_string().contains("shorter"));
    }
}
