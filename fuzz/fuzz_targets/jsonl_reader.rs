//! The JSONL line reader and its recovery rules: any bytes, split into
//! lines (small reads to cross chunk boundaries), sanitized and parsed with
//! recovery; never a panic, line numbers increase, lines never hold `\n`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mem_core::jsonl::{LineReader, parse_recovering, read_records, sanitize};

/// A reader that returns at most `step` bytes per read.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fuzz_target!(|data: &[u8]| {
    let step = data.first().map_or(1, |b| (*b as usize % 64) + 1);
    let mut rd = LineReader::new(Trickle { data, step });
    let mut last = 0;
    while let Ok(Some(line)) = rd.next_line() {
        assert!(line.no > last);
        last = line.no;
        assert!(!line.bytes.contains(&b'\n'));
        let clean = sanitize(line.bytes);
        if let Ok((v, at)) =
            parse_recovering(&clean, |b| serde_json::from_slice::<serde_json::Value>(b))
        {
            assert!(at < clean.len().max(1));
            let _ = v;
        }
    }
    let _ = read_records::<serde_json::Value>(data, "fuzz");
});
