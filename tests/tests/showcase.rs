//! The showcase end to end (`scripts/showcase.sh`): the real binaries on
//! transcripts written in Claude Code's format, five phases, exact lines.

use mem_tests::{bin, show, workspace_root};

#[test]
fn showcase_five_phases() {
    let bindir = bin("mem-recall").parent().unwrap().to_path_buf();
    for tool in ["mem-transcript", "mem-extract", "mem-index"] {
        bin(tool);
    }
    let work = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("bash")
        .arg(workspace_root().join("scripts/showcase.sh"))
        .arg(work.path())
        .env("MEM_BIN_DIR", &bindir)
        .env("HOME", work.path())
        .env("XDG_CACHE_HOME", work.path().join(".cache"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{}", show(&out));
    let lines: Vec<&str> = text.lines().collect();
    let phase = |name: &str| -> Vec<&str> {
        let start = lines
            .iter()
            .position(|l| l.starts_with(&format!("== phase {name}")))
            .unwrap();
        lines[start + 1..]
            .iter()
            .take_while(|l| !l.starts_with("== "))
            .copied()
            .collect()
    };

    // 1. Two runs without memory fail the same way.
    let p1 = phase("1");
    assert_eq!(p1.len(), 2, "{text}");
    for l in &p1 {
        assert!(
            l.starts_with("FAIL run ") && l.contains("exit=1: error: data/fixture.json not found"),
            "{l}"
        );
    }
    // 2. The pipeline wrote the lesson and the dated note.
    let p2 = phase("2").join("\n");
    assert!(p2.contains("[durable-lesson]"), "{p2}");
    assert!(p2.contains("[one-time-state]"), "{p2}");
    let lesson = std::fs::read_dir(work.path().join("memory"))
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .find(|t| t.contains("kind: durable-lesson"))
        .expect("a lesson topic file");
    assert!(
        lesson.contains("Run `sh setup.sh` before `sh build-token.sh`"),
        "{lesson}"
    );
    let note = std::fs::read_dir(work.path().join("memory"))
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .find(|t| t.contains("one-time-state"))
        .expect("a one-time-state topic file");
    assert!(note.contains("expires: 2026-07-12"), "{note}");

    // 3. Recall before acting, follow the lesson, pass.
    let p3 = phase("3");
    assert!(
        p3.iter()
            .any(|l| l.starts_with("RECALL ") && l.ends_with("[durable-lesson]")),
        "{p3:?}"
    );
    assert!(p3.iter().any(|l| l.starts_with("PASS run 3")), "{p3:?}");
    assert!(p3.contains(&"result: exit=0"), "{p3:?}");

    // 4. Past the expiry: the note is evicted, the lesson stays.
    let p4 = phase("4");
    assert!(
        p4.iter().any(|l| l.starts_with("EVICT  ")
            && l.contains("expired (expires 2026-07-12 < 2026-07-13), not injected")),
        "{p4:?}"
    );
    assert!(
        p4.iter()
            .any(|l| l.starts_with("RECALL ") && l.ends_with("[durable-lesson]")),
        "{p4:?}"
    );
    assert!(
        p4.iter()
            .any(|l| l.starts_with("summary: 1 recalled, 1 evicted")),
        "{p4:?}"
    );
    assert!(p4.contains(&"result: exit=0"), "{p4:?}");

    // 5. Memory on disk but recall skipped: fails again.
    let p5 = phase("5");
    assert!(p5.iter().any(|l| l.starts_with("FAIL run 5")), "{p5:?}");
    assert!(p5.contains(&"result: exit=1"), "{p5:?}");
}
