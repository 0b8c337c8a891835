//! Load: concurrent `mem-index write` processes (each a sequence of batches;
//! every batch after the first also updates the last record of the one
//! before, so existing topic files are rewritten), a `mem-dream --force`
//! loop and 2 reader loops (`mem-recall`, `mem-index list`) on one memory
//! directory at the same time; then no acknowledged record is lost or
//! duplicated, the readers never failed or saw a file that does not parse,
//! every dream run applied, found nothing, or stepped back from a file that
//! changed, the index matches the files (`mem-index check`) and no temp file
//! is left.
//!
//! The heavy tier runs 4 writers x 50 records in batches of 10 (at least 2
//! dream runs); the default tier 2 writers x 10 records in batches of 5.
//! `dev/load.sh 8 500` is the same check as a tool, at full size.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use mem_tests::{Home, bin, run};
use serde_json::Value;

/// The sizes of one load run.
struct Load {
    writers: usize,
    records: usize,
    batch: usize,
    dreams: usize,
}

/// The fact of record `r` of writer `w`.
fn fact_of(w: usize, r: usize) -> String {
    format!(
        "Port {} serves the w{w}r{r} endpoint.",
        10000 + w * 1000 + r
    )
}

/// Record `r` of writer `w` (id `load-w<w>-r<r>`), verified on day `day`;
/// description, fact and triggers are distinct per record, with nothing for
/// a dream to merge, supersede, absolutize or retire.
fn record(w: usize, r: usize, day: usize) -> String {
    format!(
        "{{\"name\":\"Load w{w} r{r}\",\"description\":\"Writer {w} record {r}: endpoint w{w}r{r} listens on port {}\",\"type\":\"feedback\",\"fact\":\"{}\",\"triggers\":[\"load\",\"w{w}\",\"w{w}r{r}\"],\"verified_at\":\"2026-07-{day:02}\"}}\n",
        10000 + w * 1000 + r,
        fact_of(w, r)
    )
}

/// Records `first..=last` of writer `w`, preceded (after the first batch)
/// by the last record of the previous batch with a newer `verified_at`.
fn batch(w: usize, first: usize, last: usize) -> String {
    let mut s = String::new();
    if first > 1 {
        s.push_str(&record(w, first - 1, 29));
    }
    for r in first..=last {
        s.push_str(&record(w, r, r % 28 + 1));
    }
    s
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Every line of `s` parses as JSON.
fn json_ok(s: &str) -> bool {
    s.lines().all(|l| serde_json::from_str::<Value>(l).is_ok())
}

fn command(home: &Path, cache: &Path, tool: &str) -> Command {
    let mut c = Command::new(bin(tool));
    mem_tests::scrub(&mut c);
    c.env("HOME", home)
        .env("TZ", "UTC")
        .env("XDG_CACHE_HOME", cache)
        .env("MEM_TODAY", "2026-08-01");
    c
}

fn load(size: Load) {
    let h = Home::new();
    let home = h.home();
    let cache = home.join(".cache");
    let m = h.path().join("memory");
    let t = h.path().join("transcripts");
    for d in [&home, &m, &t] {
        fs::create_dir_all(d).expect("create dir");
    }
    let md = m.display().to_string();
    let td = t.display().to_string();
    let cmd = |tool: &str| command(&home, &cache, tool);
    let Load {
        writers,
        records,
        batch: per,
        dreams,
    } = size;

    let start = Instant::now();
    let writers_done = AtomicBool::new(false);
    let stop = Arc::new(AtomicBool::new(false));
    let dream_once = || -> Output {
        cmd("mem-dream")
            .args(["--force", "--memory-dir", &md, "--transcripts", &td])
            .args(["--max-files", "0", "--format", "jsonl"])
            .output()
            .expect("spawn mem-dream")
    };
    let (acks, dream_runs, reader_logs, wall_writers) = std::thread::scope(|s| {
        let wh: Vec<_> = (1..=writers)
            .map(|w| {
                let (cmd, md) = (&cmd, &md);
                s.spawn(move || {
                    // (acknowledgement lines, (batch, exit code, stderr))
                    let mut acks = String::new();
                    let mut batches = Vec::new();
                    let mut i = 1;
                    while i <= records {
                        let last = (i + per - 1).min(records);
                        let out = run(
                            cmd("mem-index").args([
                                "write",
                                "--max-files",
                                "0",
                                "--format",
                                "jsonl",
                                "--memory-dir",
                                md,
                            ]),
                            batch(w, i, last).as_bytes(),
                        );
                        acks.push_str(&text(&out.stdout));
                        batches.push((
                            format!("w{w} {i}-{last}"),
                            out.status.code(),
                            text(&out.stderr),
                        ));
                        i = last + 1;
                    }
                    (acks, batches)
                })
            })
            .collect();
        let rh: Vec<_> = (1..=2usize)
            .map(|k| {
                let (cmd, md, stop) = (&cmd, &md, stop.clone());
                s.spawn(move || {
                    // (kind, failure or None)
                    let mut log: Vec<(&str, Option<String>)> = Vec::new();
                    let mut n = 0usize;
                    while !stop.load(Ordering::SeqCst) {
                        n += 1;
                        let kind = if n % 2 == 1 { "recall" } else { "list" };
                        let out = if kind == "recall" {
                            let task =
                                format!("load the w{} endpoint settings", (n / 2) % writers + 1);
                            cmd("mem-recall")
                                .args(["--memory-dir", md, "--task", &task])
                                .args(["--format", "jsonl", "--no-cache"])
                                .output()
                        } else {
                            cmd("mem-index")
                                .args(["list", "--memory-dir", md, "--format", "jsonl"])
                                .output()
                        }
                        .expect("spawn reader");
                        let (o, e) = (text(&out.stdout), text(&out.stderr));
                        let why = if !out.status.success() {
                            Some(format!("exit {:?}", out.status))
                        } else if !e.is_empty() {
                            Some(format!("stderr: {}", &e[..e.len().min(300)]))
                        } else if kind == "recall" && !o.contains("\"action\":\"summary\"") {
                            Some("no summary line".into())
                        } else if !json_ok(&o) {
                            Some("output does not parse".into())
                        } else {
                            None
                        };
                        log.push((kind, why.map(|w| format!("reader {k} run {n}: {w}"))));
                    }
                    log
                })
            })
            .collect();
        let dh = s.spawn(|| {
            let mut runs = Vec::new();
            loop {
                runs.push(dream_once());
                if writers_done.load(Ordering::SeqCst) && runs.len() >= dreams {
                    break runs;
                }
                // a second between runs, cut short when the writers are done
                for _ in 0..20 {
                    if writers_done.load(Ordering::SeqCst) {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        });
        let acks: Vec<_> = wh.into_iter().map(|h| h.join().expect("writer")).collect();
        let wall_writers = start.elapsed();
        writers_done.store(true, Ordering::SeqCst);
        let mut runs = dh.join().expect("dreamer");
        stop.store(true, Ordering::SeqCst);
        let logs: Vec<_> = rh
            .into_iter()
            .flat_map(|h| h.join().expect("reader"))
            .collect();
        // one last dream on the quiet directory
        runs.push(dream_once());
        (acks, runs, logs, wall_writers)
    });

    let mut problems: Vec<String> = Vec::new();

    // writers
    let all_batches: Vec<_> = acks.iter().flat_map(|(_, b)| b).collect();
    let bad: Vec<_> = all_batches.iter().filter(|b| b.1 != Some(0)).collect();
    if !bad.is_empty() {
        problems.push(format!(
            "{} writer batches failed: {:?}",
            bad.len(),
            &bad[..bad.len().min(3)]
        ));
    }
    let ack_lines: Vec<Value> = acks
        .iter()
        .flat_map(|(a, _)| a.lines())
        .filter_map(|l| match serde_json::from_str(l) {
            Ok(v) => Some(v),
            Err(_) => {
                problems.push(format!("an acknowledgement does not parse: {l}"));
                None
            }
        })
        .collect();
    let op = |o: &str| ack_lines.iter().filter(|v| v["op"] == o).count();
    let (n_create, n_update, n_unchanged) = (op("create"), op("update"), op("unchanged"));
    let acked: BTreeSet<String> = ack_lines
        .iter()
        .filter_map(|v| v["id"].as_str().map(str::to_string))
        .collect();
    if acked.len() != writers * records {
        problems.push(format!(
            "{} distinct ids acknowledged, expected {}",
            acked.len(),
            writers * records
        ));
    }

    // dreams
    let (mut d_applied, mut d_nothing, mut d_conflict, mut d_failed) = (0, 0, 0, 0);
    let mut plans: Vec<Value> = Vec::new();
    for (n, out) in dream_runs.iter().enumerate() {
        let err = text(&out.stderr);
        match out.status.code() {
            Some(0) if err.contains("nothing to change") => d_nothing += 1,
            Some(0) => {
                d_applied += 1;
                for l in text(&out.stdout).lines() {
                    match serde_json::from_str(l) {
                        Ok(v) => plans.push(v),
                        Err(_) => problems.push(format!("a dream plan line does not parse: {l}")),
                    }
                }
            }
            Some(1) if err.contains("changed while consolidating") => d_conflict += 1,
            _ => {
                d_failed += 1;
                problems.push(format!(
                    "dream run {} exited {:?}: {}",
                    n + 1,
                    out.status,
                    &err[..err.len().min(300)]
                ));
            }
        }
    }
    // merged id -> survivor; retired ids
    let mut survivor: HashMap<String, String> = HashMap::new();
    let mut retired: BTreeSet<String> = BTreeSet::new();
    for p in &plans {
        let id = p["id"].as_str().unwrap_or_default().to_string();
        if p["op"] == "merge" {
            for f in p["from"].as_array().into_iter().flatten() {
                if let Some(f) = f.as_str() {
                    survivor.insert(f.to_string(), id.clone());
                }
            }
        } else if p["op"] == "retire" {
            retired.insert(id);
        }
    }

    // on disk
    let list = cmd("mem-index")
        .args(["list", "--memory-dir", &md, "--format", "jsonl"])
        .output()
        .expect("spawn mem-index list");
    if !list.status.success() {
        problems.push(format!(
            "final mem-index list failed: {}",
            text(&list.stderr)
        ));
    }
    let fact: HashMap<String, String> = text(&list.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|v| {
            (
                v["id"].as_str().unwrap_or_default().to_string(),
                v["fact"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let (mut on_disk, mut merged, mut retired_n, mut wrong) = (0, 0, 0, 0);
    let mut lost: Vec<&str> = Vec::new();
    let exists = |id: &str| m.join(format!("{id}.md")).is_file();
    for id in &acked {
        if exists(id) {
            on_disk += 1;
            let wr = id
                .strip_prefix("load-w")
                .and_then(|r| r.split_once("-r"))
                .and_then(|(w, r)| Some((w.parse().ok()?, r.parse().ok()?)));
            if let (None, Some((w, r))) = (survivor.get(id), wr) {
                let got = fact.get(id).map(String::as_str).unwrap_or("<not listed>");
                if got != fact_of(w, r) {
                    wrong += 1;
                    if wrong <= 3 {
                        problems.push(format!("{id}.md does not hold its fact: '{got}'"));
                    }
                }
            }
            continue;
        }
        let mut s = id.as_str();
        let mut hops = 0;
        while let Some(next) = survivor.get(s) {
            if exists(s) || hops >= 50 {
                break;
            }
            s = next;
            hops += 1;
        }
        let in_retired = || {
            fs::read_dir(m.join("retired"))
                .into_iter()
                .flatten()
                .flatten()
                .any(|e| {
                    let n = e.file_name().to_string_lossy().into_owned();
                    n.starts_with(id.as_str()) && n.ends_with(".md")
                })
        };
        if s != id && exists(s) {
            merged += 1;
        } else if retired.contains(id) && in_retired() {
            retired_n += 1;
        } else {
            lost.push(id);
        }
    }
    if !lost.is_empty() {
        problems.push(format!(
            "{} acknowledged records lost: {:?}",
            lost.len(),
            &lost[..lost.len().min(10)]
        ));
    }

    // readers
    let r_fail: Vec<&String> = reader_logs.iter().filter_map(|(_, w)| w.as_ref()).collect();
    let ok = |k: &str| {
        reader_logs
            .iter()
            .filter(|(kind, w)| *kind == k && w.is_none())
            .count()
    };
    let (r_recall, r_list) = (ok("recall"), ok("list"));
    if !r_fail.is_empty() {
        problems.push(format!(
            "{} reader runs failed: {:?}",
            r_fail.len(),
            &r_fail[..r_fail.len().min(3)]
        ));
    }
    if r_recall == 0 || r_list == 0 {
        problems.push("the readers did not complete a run of each kind".into());
    }

    // index
    let topics: Vec<PathBuf> = fs::read_dir(&m)
        .expect("read memory dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.is_file()
                && p.extension().is_some_and(|x| x == "md")
                && p.file_name().is_some_and(|n| n != "MEMORY.md")
        })
        .collect();
    let check = cmd("mem-index")
        .args([
            "check",
            "--max-files",
            "0",
            "--memory-dir",
            &md,
            "--format",
            "jsonl",
        ])
        .output()
        .expect("spawn mem-index check");
    if !check.status.success() {
        problems.push(format!("mem-index check exited {:?}", check.status));
    }
    let check_out = text(&check.stdout);
    let check_err: Vec<&str> = check_out
        .lines()
        .filter(|l| l.contains("\"level\":\"error\""))
        .collect();
    let check_warn = check_out
        .lines()
        .filter(|l| l.contains("\"level\":\"warning\""))
        .count();
    if !check_err.is_empty() {
        problems.push(format!(
            "mem-index check: {} errors: {:?}",
            check_err.len(),
            &check_err[..check_err.len().min(3)]
        ));
    }
    let (mut idx_lines, mut idx_bytes, mut entries, mut left, mut of, mut missing) =
        (0, 0, 0, 0, topics.len(), 0);
    match fs::read(m.join("MEMORY.md")) {
        Ok(b) => {
            let index = text(&b);
            idx_lines = index.lines().count();
            idx_bytes = b.len();
            for l in index.lines() {
                if let Some(target) = l
                    .strip_prefix("- [")
                    .and_then(|r| r.rfind("](").map(|at| &r[at + 2..]))
                    .and_then(|r| r.find(')').map(|end| &r[..end]))
                {
                    entries += 1;
                    if !m.join(target).is_file() {
                        missing += 1;
                        if missing <= 3 {
                            problems
                                .push(format!("MEMORY.md names {target}, which does not exist"));
                        }
                    }
                }
            }
            if let Some(w) = index.lines().find_map(|l| l.strip_prefix("WARNING: ")) {
                let mut it = w.split(' ');
                if let (Some(a), Some("of"), Some(b)) = (it.next(), it.next(), it.next()) {
                    left = a.parse().unwrap_or(0);
                    of = b.parse().unwrap_or(0);
                }
            }
        }
        Err(_) => {
            if !topics.is_empty() {
                problems.push(format!("no MEMORY.md for {} topic files", topics.len()));
            }
        }
    }
    if idx_lines > 200 || idx_bytes > 25000 {
        problems.push(format!(
            "MEMORY.md over the limits: {idx_lines} lines, {idx_bytes} bytes"
        ));
    }
    if entries + left != topics.len() || of != topics.len() {
        problems.push(format!(
            "index inconsistent with the files: {entries} entries + {left} left out (of {of}) != {} topic files",
            topics.len()
        ));
    }
    let temps: Vec<PathBuf> = mem_tests::files_under(&m)
        .into_iter()
        .filter(|p| {
            let n = p.file_name().unwrap_or_default().to_string_lossy();
            n.starts_with(".mem-") && n.ends_with(".tmp")
        })
        .collect();
    if !temps.is_empty() {
        problems.push(format!(
            "{} temp files remain: {:?}",
            temps.len(),
            &temps[..temps.len().min(3)]
        ));
    }

    println!(
        "load: {writers} writers x {records} records (batches of {per}: {} invocations, {} failed) in {:.1} s",
        all_batches.len(),
        bad.len(),
        wall_writers.as_secs_f64()
    );
    println!(
        "load: acknowledged {} ({n_create} create, {n_update} update, {n_unchanged} unchanged; {} distinct ids)",
        ack_lines.len(),
        acked.len()
    );
    println!(
        "load: on disk {on_disk} (fact checked, {wrong} wrong), merged by dream {merged}, retired by dream {retired_n}, lost {}",
        lost.len()
    );
    println!(
        "load: readers: {} runs ({r_recall} recall, {r_list} list ok), {} failures",
        reader_logs.len(),
        r_fail.len()
    );
    println!(
        "load: dream: {} runs ({d_applied} applied, {d_nothing} nothing to change, {d_conflict} conflict: file changed while consolidating, {d_failed} failed)",
        dream_runs.len()
    );
    println!(
        "load: index: {} topic files, MEMORY.md {idx_lines} lines / {idx_bytes} bytes, {entries} entries + {left} left out, {missing} missing; check: {} errors, {check_warn} warnings; temp files: {}",
        topics.len(),
        check_err.len(),
        temps.len()
    );
    println!("load: wall time {:.1} s", start.elapsed().as_secs_f64());
    assert!(problems.is_empty(), "load failed:\n{}", problems.join("\n"));
    // every record once: created once, and the re-sent ones updated once
    assert_eq!(n_create, writers * records);
    assert_eq!(
        n_update + n_unchanged,
        writers * (records.div_ceil(per) - 1)
    );
    assert_eq!(on_disk + merged + retired_n, writers * records);
}

#[test]
fn two_writers_dream_and_readers_lose_nothing() {
    load(Load {
        writers: 2,
        records: 10,
        batch: 5,
        dreams: 1,
    });
}

#[test]
#[ignore = "heavy tier: scripts/test.sh --heavy runs it (CI does)"]
fn concurrent_writers_dream_and_readers_lose_nothing() {
    load(Load {
        writers: 4,
        records: 50,
        batch: 10,
        dreams: 2,
    });
}
