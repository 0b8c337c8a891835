//! The write path end to end over the real corpus (`../shared/corpus`):
//! `mem-transcript replay S | mem-extract | mem-index write`, then the
//! invariants: every record valid, no secret or absolute path in a memory,
//! the index within its limits, and a second run changes nothing.

use std::path::{Path, PathBuf};

use mem_tests::{cmd, run, shared_or_skip, show};

fn corpus_sessions(shared: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![shared.join("corpus")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Run the write path on one session into `memdir`; returns write's stdout.
fn write_path(home: &Path, memdir: &Path, session: &Path) -> String {
    let mut replay = cmd("mem-transcript", home);
    replay.arg("replay").arg(session);
    let r = run(replay, b"");
    assert!(
        r.status.success(),
        "replay {}: {}",
        session.display(),
        show(&r)
    );
    let extract = cmd("mem-extract", home);
    let x = run(extract, &r.stdout);
    assert!(
        x.status.success(),
        "extract {}: {}",
        session.display(),
        show(&x)
    );
    let mut write = cmd("mem-index", home);
    write
        .arg("write")
        .arg("--memory-dir")
        .arg(memdir)
        .arg("--max-files")
        .arg("0");
    let w = run(write, &x.stdout);
    assert!(
        w.status.success(),
        "write {}: {}",
        session.display(),
        show(&w)
    );
    String::from_utf8(w.stdout).unwrap()
}

#[test]
#[ignore = "heavy tier: scripts/test.sh --heavy runs it (CI does)"]
fn corpus_write_path_keeps_its_invariants() {
    let Some(shared) = shared_or_skip("corpus_write_path_keeps_its_invariants") else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let memdir = home.path().join("memory");
    let sessions = corpus_sessions(&shared);
    assert!(
        sessions.len() > 50,
        "corpus has {} sessions",
        sessions.len()
    );
    for s in &sessions {
        write_path(home.path(), &memdir, s);
    }

    // Every topic file lists back as a valid record.
    let mut list = cmd("mem-index", home.path());
    list.args(["list", "--format", "jsonl", "--memory-dir"])
        .arg(&memdir);
    let l = run(list, b"");
    assert!(l.status.success(), "{}", show(&l));
    let text = String::from_utf8(l.stdout).unwrap();
    let n = text.lines().count();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        for key in ["name", "description", "type"] {
            assert!(v.get(key).is_some(), "record without {key}: {line}");
        }
    }

    // No secret, session id or absolute path reached a memory.
    let mut check = cmd("mem-index", home.path());
    check
        .args(["check", "--format", "jsonl", "--memory-dir"])
        .arg(&memdir);
    let c = run(check, b"");
    assert!(c.status.success(), "check found problems:\n{}", show(&c));
    for entry in std::fs::read_dir(&memdir).unwrap().flatten() {
        let body = std::fs::read_to_string(entry.path()).unwrap_or_default();
        for bad in ["/home/user/", "/Users/user/"] {
            assert!(
                !body.contains(bad),
                "{} carries {bad}",
                entry.path().display()
            );
        }
    }

    // The index stays within 200 lines and 25,000 bytes.
    let index = std::fs::read_to_string(memdir.join("MEMORY.md")).unwrap_or_default();
    assert!(
        index.lines().count() <= 200,
        "{} index lines",
        index.lines().count()
    );
    assert!(index.len() <= 25_000, "{} index bytes", index.len());
    eprintln!("corpus: {} sessions -> {n} memories", sessions.len());

    // A second run of the write path changes nothing.
    let before = snapshot(&memdir);
    for s in &sessions {
        let out = write_path(home.path(), &memdir, s);
        for line in out.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let op = v["op"].as_str().unwrap_or("");
            assert!(
                op == "unchanged" || op == "duplicate",
                "second run of {}: {line}",
                s.display()
            );
        }
    }
    assert_eq!(
        before,
        snapshot(&memdir),
        "second run changed the memory directory"
    );
}

fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}
