//! End-to-end tests of the `mem-index` binary in throwaway directories.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use mem_tests::{show, topic_files};

const BIN: &str = env!("CARGO_BIN_EXE_mem-index");

/// The field cases written for the project (`tests/fixtures/cases/`).
fn cases() -> PathBuf {
    mem_tests::fixtures().join("cases")
}

/// Run mem-index with `args` and `stdin`, HOME pointed into `home`.
fn run(home: &Path, args: &[&str], stdin: &str) -> Output {
    let mut c = Command::new(BIN);
    mem_tests::scrub(&mut c)
        .args(args)
        .env("HOME", home)
        .env("MEM_TODAY", "2026-07-13");
    mem_tests::run(c, stdin.as_bytes())
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn jsonl(o: &Output) -> Vec<serde_json::Value> {
    text(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// A body written with CRLF line ends reads back with LF: writing the same
/// record again is `unchanged`, not an update that changes nothing.
#[test]
fn crlf_body_written_twice_is_unchanged() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("mem");
    let d = dir.to_str().unwrap();
    let rec = r#"{"name":"crl","description":"d","type":"user","body":"Run setup first.\r\nThen test.\r\n"}"#;
    let ops: Vec<String> = (0..2)
        .map(|_| {
            let o = run(t.path(), &["--memory-dir", d, "write"], &format!("{rec}\n"));
            assert!(o.status.success(), "{}", show(&o));
            jsonl(&o)[0]["op"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(ops, ["create", "unchanged"]);
}

#[test]
fn write_creates_updates_and_reports_unchanged() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("mem");
    let d = dir.to_str().unwrap();
    let rec = r#"{"id":"use-pnpm","name":"Use pnpm","description":"pnpm, not npm","type":"feedback","triggers":["npm"],"verified_at":"2026-07-01","fact":"Use pnpm.","evidence":["transcript:aaaaaaaaaaaa#1"]}"#;
    let o = run(t.path(), &["--memory-dir", d, "write"], &format!("{rec}\n"));
    assert!(o.status.success(), "{}", show(&o));
    assert_eq!(jsonl(&o)[0]["op"], "create");
    let o = run(t.path(), &["--memory-dir", d, "add"], &format!("{rec}\n"));
    assert_eq!(jsonl(&o)[0]["op"], "unchanged", "{}", show(&o));
    // newer candidate (with evidence): merged, triggers unioned
    let newer = r#"{"id":"use-pnpm","name":"Use pnpm","description":"pnpm only","type":"feedback","triggers":["pnpm"],"verified_at":"2026-07-10","evidence":["transcript:bbbbbbbbbbbb#2"]}"#;
    let o = run(
        t.path(),
        &["--memory-dir", d, "write"],
        &format!("{newer}\n"),
    );
    assert_eq!(jsonl(&o)[0]["op"], "update", "{}", show(&o));
    let file = std::fs::read_to_string(dir.join("use-pnpm.md")).unwrap();
    assert!(file.contains(r#"triggers: ["npm", "pnpm"]"#), "{file}");
    assert!(file.contains(r#"description: "pnpm only""#), "{file}");
    assert!(file.contains("Fact: Use pnpm."), "{file}");
    // older record: loses field by field
    let older = r#"{"id":"use-pnpm","name":"Use pnpm","description":"old text","type":"feedback","verified_at":"2026-01-01","evidence":["transcript:cccccccccccc#3"]}"#;
    run(
        t.path(),
        &["--memory-dir", d, "write"],
        &format!("{older}\n"),
    );
    let file = std::fs::read_to_string(dir.join("use-pnpm.md")).unwrap();
    assert!(file.contains(r#"description: "pnpm only""#), "{file}");
    // same fact under another id: duplicate, no file
    let dup = r#"{"id":"pnpm-again","name":"pnpm again","description":"x","type":"feedback","fact":"use   PNPM."}"#;
    let o = run(t.path(), &["--memory-dir", d, "write"], &format!("{dup}\n"));
    let r = &jsonl(&o)[0];
    assert_eq!(
        (r["op"].as_str(), r["duplicate_of"].as_str()),
        (Some("duplicate"), Some("use-pnpm"))
    );
    assert!(!dir.join("pnpm-again.md").exists());
    let idx = std::fs::read_to_string(dir.join("MEMORY.md")).unwrap();
    assert_eq!(idx, "- [Use pnpm](use-pnpm.md) - pnpm only\n");
}

#[test]
fn if_match_refuses_a_stale_update() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("m");
    let d = d.to_str().unwrap();
    let rec = |desc: &str| {
        format!(r#"{{"id":"a","name":"A","description":"{desc}","type":"user"}}"#) + "\n"
    };
    run(t.path(), &["--memory-dir", d, "write"], &rec("one"));
    let o = run(t.path(), &["--memory-dir", d, "list"], "");
    let hash = jsonl(&o)[0]["hash"].as_str().unwrap().to_string();
    let o = run(
        t.path(),
        &["--memory-dir", d, "write", "--if-match", &hash],
        &rec("two"),
    );
    assert!(o.status.success(), "{}", show(&o));
    let o = run(
        t.path(),
        &["--memory-dir", d, "write", "--if-match", &hash],
        &rec("three"),
    );
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    assert!(
        text(&o.stderr).contains("changed since it was read"),
        "{}",
        show(&o)
    );
    let f = std::fs::read_to_string(Path::new(d).join("a.md")).unwrap();
    assert!(f.contains("two"));
}

/// The records `list` prints for `dir`, by id.
fn listed(home: &Path, d: &str) -> Vec<serde_json::Value> {
    let o = run(home, &["--memory-dir", d, "list"], "");
    assert!(o.status.success(), "{}", show(&o));
    jsonl(&o)
}

fn one_line(v: &serde_json::Value) -> String {
    format!("{v}\n")
}

/// `list | edit | write`: a record carrying the memory's `hash` says what
/// the memory now is. A description edit, a trigger removal and `expires:
/// never` → a date each apply (the record has evidence and the same
/// `verified_at`, which a merge would answer `unchanged`); a stale
/// snapshot is refused naming the file, and nothing is written.
#[test]
fn an_edit_from_list_applies_and_a_stale_one_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("mem");
    let d = dir.to_str().unwrap();
    let rec = r#"{"name":"Run gen before verify","description":"gen first","type":"feedback","triggers":["verify","gen","make"],"verified_at":"2026-07-01","expires":"never","evidence":["transcript:aaaaaaaaaaaa#4"],"source":"user","fact":"Run make gen before make verify."}"#;
    let o = run(t.path(), &["--memory-dir", d, "write"], &format!("{rec}\n"));
    assert!(o.status.success(), "{}", show(&o));
    let path = dir.join("run-gen-before-verify.md");
    let snapshot = listed(t.path(), d).remove(0);

    // a description edit
    let mut e = snapshot.clone();
    e["description"] = "run gen before verify, every time".into();
    let o = run(t.path(), &["--memory-dir", d, "write"], &one_line(&e));
    assert!(o.status.success(), "{}", show(&o));
    assert_eq!(jsonl(&o)[0]["op"], "update", "{}", show(&o));
    let file = std::fs::read_to_string(&path).unwrap();
    assert!(file.contains("run gen before verify, every time"), "{file}");
    assert!(
        file.contains("Fact: Run make gen before make verify."),
        "{file}"
    );
    assert!(file.contains("transcript:aaaaaaaaaaaa#4"), "{file}");

    // the old snapshot again: stale, refused, the file untouched
    let mut stale = snapshot.clone();
    stale["description"] = "gen first (stale)".into();
    let o = run(t.path(), &["--memory-dir", d, "write"], &one_line(&stale));
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    let err = text(&o.stderr);
    assert!(err.contains(path.to_str().unwrap()), "{err}");
    assert!(err.contains(snapshot["hash"].as_str().unwrap()), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), file);

    // a trigger removed, then `expires: never` → a date, each from a
    // fresh snapshot
    let mut e = listed(t.path(), d).remove(0);
    e["triggers"] = serde_json::json!(["verify", "gen"]);
    let o = run(t.path(), &["--memory-dir", d, "write"], &one_line(&e));
    assert_eq!(jsonl(&o)[0]["op"], "update", "{}", show(&o));
    let file = std::fs::read_to_string(&path).unwrap();
    assert!(file.contains(r#"triggers: ["verify", "gen"]"#), "{file}");
    let mut e = listed(t.path(), d).remove(0);
    e["expires"] = "2026-12-31".into();
    let o = run(t.path(), &["--memory-dir", d, "write"], &one_line(&e));
    assert_eq!(jsonl(&o)[0]["op"], "update", "{}", show(&o));
    let file = std::fs::read_to_string(&path).unwrap();
    assert!(file.contains("expires: 2026-12-31"), "{file}");
    // the same snapshot written back as it is: unchanged
    let e = listed(t.path(), d).remove(0);
    let o = run(t.path(), &["--memory-dir", d, "write"], &one_line(&e));
    assert_eq!(jsonl(&o)[0]["op"], "unchanged", "{}", show(&o));

    // a fact edited with the body left as it was: the body follows it
    let mut e = listed(t.path(), d).remove(0);
    e["fact"] = "Run make gen, then make verify.".into();
    let o = run(t.path(), &["--memory-dir", d, "write"], &one_line(&e));
    assert_eq!(jsonl(&o)[0]["op"], "update", "{}", show(&o));
    let file = std::fs::read_to_string(&path).unwrap();
    assert!(
        file.contains("Fact: Run make gen, then make verify."),
        "{file}"
    );

    // a candidate (no hash) still merges: triggers grow, never shrink
    let cand = r#"{"name":"Run gen before verify","description":"gen first","type":"feedback","triggers":["codegen"],"verified_at":"2026-07-01","evidence":["transcript:bbbbbbbbbbbb#9"],"source":"user"}"#;
    let o = run(
        t.path(),
        &["--memory-dir", d, "write"],
        &format!("{cand}\n"),
    );
    assert_eq!(jsonl(&o)[0]["op"], "update", "{}", show(&o));
    let file = std::fs::read_to_string(&path).unwrap();
    assert!(
        file.contains(r#"triggers: ["verify", "gen", "codegen"]"#),
        "{file}"
    );
}

/// A record without `hash` that names an existing memory by `id`, carries
/// no evidence and no source but `manual` is a hand edit: it replaces the
/// memory as written. An edit keeps the trust gate: a memory not from the
/// user whose lesson runs a risky command stays `trust: low`.
#[test]
fn a_hand_edit_by_id_replaces_and_the_trust_gate_holds() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("mem");
    let d = dir.to_str().unwrap();
    let rec = r#"{"id":"db","name":"No DB mocks","description":"never mock the db","type":"feedback","triggers":["mock","db"],"verified_at":"2026-07-01"}"#;
    run(t.path(), &["--memory-dir", d, "write"], &format!("{rec}\n"));
    let hand = r#"{"id":"db","name":"No DB mocks","description":"use the real database in tests","type":"feedback","triggers":["db"]}"#;
    let o = run(
        t.path(),
        &["--memory-dir", d, "write"],
        &format!("{hand}\n"),
    );
    assert_eq!(jsonl(&o)[0]["op"], "update", "{}", show(&o));
    let file = std::fs::read_to_string(dir.join("db.md")).unwrap();
    assert!(file.contains("use the real database in tests"), "{file}");
    assert!(file.contains(r#"triggers: ["db"]"#), "{file}");
    assert!(!file.contains("verified_at"), "{file}");

    // the gate, through an edit of a record the assistant wrote
    let risky = r#"{"name":"Commit past hooks","description":"hooks fail","type":"feedback","source":"assistant","verified_at":"2026-07-01","evidence":["transcript:aaaaaaaaaaaa#2"],"how":"Run `make gen` before `git commit`."}"#;
    let o = run(
        t.path(),
        &["--memory-dir", d, "write"],
        &format!("{risky}\n"),
    );
    assert!(o.status.success(), "{}", show(&o));
    let mut e = listed(t.path(), d)
        .into_iter()
        .find(|r| r["id"] == "commit-past-hooks")
        .unwrap();
    assert_eq!(e["trust"], "normal");
    e["how"] =
        "Use `git commit --no-verify -m <message>` instead of `git commit -m <message>`.".into();
    let o = run(t.path(), &["--memory-dir", d, "write"], &one_line(&e));
    assert_eq!(jsonl(&o)[0]["op"], "update", "{}", show(&o));
    let file = std::fs::read_to_string(dir.join("commit-past-hooks.md")).unwrap();
    assert!(file.contains("trust: low"), "{file}");
    assert!(file.contains("--no-verify"), "{file}");
}

/// Round trip: `list | write --memory-dir OTHER` reproduces every topic file.
#[test]
fn list_then_write_reproduces_every_file() {
    let t = tempfile::tempdir().unwrap();
    let a = t.path().join("a");
    let b = t.path().join("b");
    let recs = [
        r#"{"name":"Run setup before build-token","description":"build-token needs data/fixture.json: only setup creates it","type":"feedback","kind":"durable-lesson","triggers":["build-token","re:^verify"],"paths":["src/**"],"verified_at":"2026-07-11","expires":"never","fact":"Run setup before build-token.","why":"fixture is \"generated\"","how":"Run node src/setup.mjs.","evidence":["transcript:3f9a0c1d2e4b#17"],"confidence":0.9,"owner":{"team":"x"}}"#,
        r##"{"name":"Mirror slow","description":"mirror is slow until Friday","type":"project","expires":"2026-07-17","body":"# Notes\n\n- a: b\n- ünïcödé 🔥\n"}"##,
        r#"{"name":"Grafana","description":"dashboards","type":"reference","body":"url:https://grafana.example.invalid/d/x\n"}"#,
    ];
    let input = recs.join("\n") + "\n";
    let o = run(
        t.path(),
        &["--memory-dir", a.to_str().unwrap(), "write"],
        &input,
    );
    assert!(o.status.success(), "{}", show(&o));
    let listed = run(t.path(), &["--memory-dir", a.to_str().unwrap(), "list"], "");
    assert_eq!(jsonl(&listed).len(), 3);
    for v in jsonl(&listed) {
        assert!(v.get("body").is_some(), "list always emits body: {v}");
    }
    let o = run(
        t.path(),
        &["--memory-dir", b.to_str().unwrap(), "write"],
        &text(&listed.stdout),
    );
    assert!(o.status.success(), "{}", show(&o));
    assert_eq!(topic_files(&a), topic_files(&b));
    for f in topic_files(&a) {
        assert_eq!(
            std::fs::read(a.join(&f)).unwrap(),
            std::fs::read(b.join(&f)).unwrap(),
            "{f} differs"
        );
    }
    assert_eq!(
        std::fs::read(a.join("MEMORY.md")).unwrap(),
        std::fs::read(b.join("MEMORY.md")).unwrap()
    );
}

/// A directory Claude Code wrote (only name/description/type, ` — ` index)
/// lists and rewrites without loss.
#[test]
fn claude_code_directory_lists_and_rewrites_without_loss() {
    let t = tempfile::tempdir().unwrap();
    let a = t.path().join("a");
    std::fs::create_dir(&a).unwrap();
    std::fs::write(
        a.join("feedback_testing.md"),
        "---\nname: testing\ndescription: Integration tests must hit a real database, not mocks\ntype: feedback\n---\n\nDon't mock the database.\n\n**Why:** a mocked migration passed while prod broke.\n**How to apply:** use the test container.\n",
    )
    .unwrap();
    std::fs::write(
        a.join("user_role.md"),
        "---\nname: user role\ndescription: Senior Go engineer, new to React\ntype: user\n---\n\nFrame frontend answers in backend terms.\n",
    )
    .unwrap();
    std::fs::write(
        a.join("MEMORY.md"),
        "- [testing](feedback_testing.md) — Integration tests must hit a real database, not mocks\n- [user role](user_role.md) — Senior Go engineer, new to React\n",
    )
    .unwrap();
    let listed = run(t.path(), &["--memory-dir", a.to_str().unwrap(), "list"], "");
    assert!(listed.status.success(), "{}", show(&listed));
    let recs = jsonl(&listed);
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[0]["id"], "feedback_testing");
    assert_eq!(
        recs[0]["why"],
        "a mocked migration passed while prod broke."
    );
    let b = t.path().join("b");
    let o = run(
        t.path(),
        &["--memory-dir", b.to_str().unwrap(), "write"],
        &text(&listed.stdout),
    );
    assert!(o.status.success(), "{}", show(&o));
    // Same meaning: the rewritten files list to the same records (hash aside).
    let again = run(t.path(), &["--memory-dir", b.to_str().unwrap(), "list"], "");
    let strip = |mut v: serde_json::Value| {
        v.as_object_mut().unwrap().remove("hash");
        v
    };
    let x: Vec<_> = jsonl(&listed).into_iter().map(strip).collect();
    let y: Vec<_> = jsonl(&again).into_iter().map(strip).collect();
    assert_eq!(x, y);
    // bodies byte-identical
    for f in topic_files(&a) {
        let body = |p: PathBuf| {
            let s = std::fs::read_to_string(p).unwrap();
            s.splitn(3, "---\n").nth(2).unwrap().to_string()
        };
        assert_eq!(body(a.join(&f)), body(b.join(&f)));
    }
    // the original directory, rewritten in place, keeps its meaning too
    let o = run(
        t.path(),
        &["--memory-dir", a.to_str().unwrap(), "write"],
        &text(&listed.stdout),
    );
    assert!(o.status.success(), "{}", show(&o));
    let third = run(t.path(), &["--memory-dir", a.to_str().unwrap(), "list"], "");
    let z: Vec<_> = jsonl(&third).into_iter().map(strip).collect();
    assert_eq!(x, z);
}

/// B19: 20 writers at once → 20 files, 20 index lines, no temp files.
#[test]
fn b19_twenty_concurrent_writers() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("race");
    let d = dir.to_str().unwrap().to_string();
    let handles: Vec<_> = (1..=20)
        .map(|i| {
            let d = d.clone();
            let home = t.path().to_path_buf();
            std::thread::spawn(move || {
                let rec = format!(
                    r#"{{"name":"race-{i:02}","type":"project","description":"Race fact {i:02}","body":"Body {i:02}"}}"#
                ) + "\n";
                run(&home, &["--memory-dir", &d, "add"], &rec)
            })
        })
        .collect();
    for h in handles {
        let o = h.join().unwrap();
        assert!(o.status.success(), "{}", show(&o));
    }
    let files = topic_files(&dir);
    assert_eq!(files.len(), 20, "{files:?}");
    let idx = std::fs::read_to_string(dir.join("MEMORY.md")).unwrap();
    assert_eq!(
        idx.lines().filter(|l| l.contains("race-")).count(),
        20,
        "{idx}"
    );
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp") || n.ends_with('~'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// B14: 205 topics → 199 entries + a WARNING naming the 6, t205 present,
/// t010 (superseded) dropped; reported on stderr, exit 0.
#[test]
fn b14_index_over_200_lines() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("memory");
    let ok = Command::new("python3")
        .arg(cases().join("B14/gen_memory_dir.py"))
        .arg(&dir)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("SKIPPED b14_index_over_200_lines: python3 not available");
        println!("SKIPPED b14_index_over_200_lines: python3 not available");
        return;
    }
    let o = run(
        t.path(),
        &["--memory-dir", dir.to_str().unwrap(), "reindex"],
        "",
    );
    assert!(o.status.success(), "{}", show(&o));
    assert!(
        text(&o.stderr).contains("6 entries left out"),
        "{}",
        show(&o)
    );
    let idx = std::fs::read_to_string(dir.join("MEMORY.md")).unwrap();
    let lines: Vec<&str> = idx.lines().collect();
    assert_eq!(lines.len(), 200);
    assert!(idx.len() <= 25_000);
    assert!(lines[..199].iter().all(|l| l.starts_with("- [")));
    let w = lines[199];
    assert!(w.starts_with("WARNING: 6 of 205"), "{w}");
    for id in ["t001", "t002", "t003", "t004", "t005", "t010"] {
        assert!(w.contains(id), "{w}");
    }
    assert!(idx.contains("(t205.md)"));
    assert!(!lines[..199].iter().any(|l| l.contains("(t010.md)")));
    // a write reports the cut too
    let rec = r#"{"name":"t206","description":"one more","type":"project"}"#.to_string() + "\n";
    let o = run(
        t.path(),
        &[
            "--memory-dir",
            dir.to_str().unwrap(),
            "write",
            "--max-files",
            "0",
        ],
        &rec,
    );
    assert!(o.status.success(), "{}", show(&o));
    assert!(text(&o.stderr).contains("left out"), "{}", show(&o));
}

/// B16: the broken file stays byte-identical, a warning names it and line 3,
/// the index keeps its entry (no lint text in it); db-tests is processed normally.
#[test]
fn b16_broken_frontmatter_left_alone_and_flagged() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("memory");
    std::fs::create_dir(&dir).unwrap();
    for f in ["quote-style.md", "db-tests.md", "MEMORY.md"] {
        std::fs::write(
            dir.join(f),
            std::fs::read(cases().join("B16/memory").join(f)).unwrap(),
        )
        .unwrap();
    }
    let before = std::fs::read(dir.join("quote-style.md")).unwrap();
    let d = dir.to_str().unwrap();
    for args in [vec!["reindex"], vec!["list"], vec!["write"]] {
        let mut a = vec!["--memory-dir", d];
        a.extend(args.iter());
        let input = r#"{"id":"db-tests","name":"db-tests","description":"Integration tests hit a real database","type":"feedback","triggers":["test"]}"#.to_string() + "\n";
        let o = run(t.path(), &a, &input);
        assert!(o.status.success(), "{}", show(&o));
        let err = text(&o.stderr);
        assert!(err.contains("quote-style.md:3"), "{}", show(&o));
        assert_eq!(std::fs::read(dir.join("quote-style.md")).unwrap(), before);
    }
    let idx = std::fs::read_to_string(dir.join("MEMORY.md")).unwrap();
    let line = idx
        .lines()
        .find(|l| l.contains("(quote-style.md)"))
        .expect("entry kept");
    assert!(!line.contains("does not parse"), "no lint text: {line}");
    assert!(line.contains("Quote style for docs and code"), "{line}");
    let db = std::fs::read_to_string(dir.join("db-tests.md")).unwrap();
    assert!(db.contains(r#"triggers: ["test"]"#), "{db}");
    // a record for the broken id is refused, the file untouched
    let o = run(
        t.path(),
        &["--memory-dir", d, "write"],
        &(r#"{"id":"quote-style","name":"q","description":"d","type":"feedback"}"#.to_string()
            + "\n"),
    );
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    assert_eq!(std::fs::read(dir.join("quote-style.md")).unwrap(), before);
    let o = run(t.path(), &["--memory-dir", d, "check"], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        jsonl(&o)
            .iter()
            .any(|f| f["code"] == "parse" && f["line"] == 3),
        "{}",
        show(&o)
    );
}

/// No lint text goes into the index: a broken topic file keeps an entry
/// from its file name, a line an older mem wrote with a flag is cleaned
/// (its description kept), and the index does not change on a rebuild.
#[test]
fn broken_file_gets_no_lint_text_in_the_index() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("memory");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("broken.md"), "no frontmatter here\n").unwrap();
    std::fs::write(dir.join("wip.md"), "---\nname: wip\n").unwrap();
    std::fs::write(
        dir.join("ok.md"),
        "---\nname: ok\ndescription: fine\ntype: user\nkind: preference\n---\n\nbody\n",
    )
    .unwrap();
    // the index an older mem wrote, with lint text
    std::fs::write(
        dir.join("MEMORY.md"),
        "- [ok](ok.md) - fine\n- [wip](wip.md) - [frontmatter does not parse (line 1)] [WIP] draft rules\n",
    )
    .unwrap();
    let d = dir.to_str().unwrap();
    for _ in 0..3 {
        let o = run(t.path(), &["--memory-dir", d, "reindex"], "");
        assert!(o.status.success(), "{}", show(&o));
        assert!(text(&o.stderr).contains("wip.md:1"), "{}", show(&o));
        let idx = std::fs::read_to_string(dir.join("MEMORY.md")).unwrap();
        assert_eq!(
            idx,
            "- [ok](ok.md) - fine\n- [wip](wip.md) - [WIP] draft rules\n- [broken](broken.md)\n"
        );
    }
    // the problems are check's
    let o = run(t.path(), &["--memory-dir", d, "check"], "");
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    let found = jsonl(&o);
    assert!(
        found
            .iter()
            .any(|f| f["code"] == "parse" && f["file"].as_str().unwrap().ends_with("wip.md")),
        "{}",
        show(&o)
    );
}

/// B17: a name and values with `: ` round-trip; the handwritten file with an
/// unquoted `: ` is reported, unchanged.
#[test]
fn b17_colons() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("memory");
    let cand: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(cases().join("B17/candidate.json")).unwrap())
            .unwrap();
    let d = dir.to_str().unwrap();
    let o = run(
        t.path(),
        &["--memory-dir", d, "write"],
        &format!("{cand}\n"),
    );
    assert!(o.status.success(), "{}", show(&o));
    assert!(dir.join("build-release-profile.md").is_file());
    let hand = std::fs::read(cases().join("B17/memory/handwritten-colon.md")).unwrap();
    std::fs::write(dir.join("handwritten-colon.md"), &hand).unwrap();
    let o = run(t.path(), &["--memory-dir", d, "list"], "");
    assert!(o.status.success(), "{}", show(&o));
    assert!(
        text(&o.stderr).contains("handwritten-colon.md:3"),
        "{}",
        show(&o)
    );
    let recs = jsonl(&o);
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["name"], cand["name"]);
    assert_eq!(recs[0]["description"], cand["description"]);
    assert_eq!(recs[0]["triggers"], cand["triggers"]);
    assert_eq!(
        std::fs::read(dir.join("handwritten-colon.md")).unwrap(),
        hand
    );
}

/// B25: nothing written without --skip-invalid; with it only ok-name.md;
/// each bad line named; nothing outside the directory.
#[test]
fn b25_traversal_names() {
    let t = tempfile::tempdir().unwrap();
    let parent = t.path().join("p");
    let dir = parent.join("memory");
    std::fs::create_dir_all(&parent).unwrap();
    let input = std::fs::read_to_string(cases().join("B25/candidates.jsonl")).unwrap();
    let d = dir.to_str().unwrap();
    let o = run(t.path(), &["--memory-dir", d, "write"], &input);
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    assert!(!dir.exists(), "nothing may be created");
    let err = text(&o.stderr);
    for line in [1, 2, 3, 4, 5, 7, 8] {
        assert!(
            err.contains(&format!("<stdin>:{line}: ")),
            "line {line}: {err}"
        );
    }
    let o = run(
        t.path(),
        &["--memory-dir", d, "write", "--skip-invalid"],
        &input,
    );
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    assert_eq!(topic_files(&dir), ["ok-name.md"]);
    let outside: Vec<_> = std::fs::read_dir(&parent)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(outside, vec![std::ffi::OsString::from("memory")]);
    for p in [
        "/tmp/absolute-escape.md",
        "/tmp/escape.md",
        "/tmp/escape2.md",
    ] {
        assert!(!Path::new(p).exists(), "{p}");
    }
}

/// B22 (refusal side): a record carrying a secret, a session id or an
/// absolute path is refused with the field named; --allow-sensitive accepts.
#[test]
fn b22_sensitive_records_are_refused() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("m");
    let d = d.to_str().unwrap();
    let cases = [
        (
            "description",
            r#"{"name":"a","type":"project","description":"key sk_live_4eC39HqLyjWDarjtT1zdp7dc"}"#,
        ),
        (
            "body",
            r#"{"name":"b","type":"project","description":"x","body":"session 00000000-0000-4000-8000-000000000022 broke"}"#,
        ),
        (
            "triggers[0]",
            r#"{"name":"c","type":"project","description":"x","triggers":["/home/user/proj/logs/deploy.log"]}"#,
        ),
        (
            "how",
            r#"{"name":"d","type":"project","description":"x","how":"use AKIAIOSFODNN7EXAMPLE"}"#,
        ),
    ];
    for (field, rec) in cases {
        let o = run(t.path(), &["--memory-dir", d, "write"], &format!("{rec}\n"));
        assert_eq!(o.status.code(), Some(1), "{}", show(&o));
        let err = text(&o.stderr);
        assert!(err.contains(&format!("field `{field}`")), "{field}: {err}");
        assert!(topic_files(Path::new(d)).is_empty());
    }
    let o = run(
        t.path(),
        &["--memory-dir", d, "write", "--allow-sensitive"],
        &format!("{}\n", cases[0].1),
    );
    assert!(o.status.success(), "{}", show(&o));
    let o = run(t.path(), &["--memory-dir", d, "check"], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        jsonl(&o).iter().any(|f| f["code"] == "sensitive"),
        "{}",
        show(&o)
    );
}

/// B24: from a linked worktree, the memory dir is the main checkout's;
/// --per-worktree isolates.
#[test]
fn b24_worktree_shares_the_main_memory_dir() {
    let t = tempfile::tempdir().unwrap();
    let ok = Command::new("bash")
        .arg(cases().join("B24/setup.sh"))
        .arg(t.path())
        .env("HOME", t.path())
        .stdout(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("SKIPPED b24: git not available");
        println!("SKIPPED b24: git not available");
        return;
    }
    let main = t.path().join("proj");
    let wt = main.join(".worktrees/feat-a");
    let path = |cwd: &Path, extra: &[&str]| {
        let mut a = vec!["path", "--format", "text", "--cwd", cwd.to_str().unwrap()];
        a.extend_from_slice(extra);
        let o = run(t.path(), &a, "");
        assert!(o.status.success(), "{}", show(&o));
        text(&o.stdout).trim().to_string()
    };
    let from_main = path(&main, &[]);
    let from_wt = path(&wt, &[]);
    assert_eq!(from_main, from_wt);
    assert!(from_main.ends_with("/memory"), "{from_main}");
    assert_ne!(path(&wt, &["--per-worktree"]), from_main);
    // a memory added from the main checkout is listed from the worktree
    let rec = r#"{"name":"shared fact","description":"d","type":"project"}"#.to_string() + "\n";
    let o = run(t.path(), &["write", "--cwd", main.to_str().unwrap()], &rec);
    assert!(o.status.success(), "{}", show(&o));
    let o = run(t.path(), &["list", "--cwd", wt.to_str().unwrap()], "");
    assert_eq!(jsonl(&o).len(), 1, "{}", show(&o));
    let o = run(
        t.path(),
        &[
            "path",
            "--explain",
            "--format",
            "text",
            "--cwd",
            wt.to_str().unwrap(),
        ],
        "",
    );
    assert!(text(&o.stdout).contains("rule: "), "{}", show(&o));
}

#[test]
fn bad_input_is_named_and_nothing_is_half_written() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("m");
    let d = dir.to_str().unwrap();
    let good = r#"{"name":"good","description":"d","type":"user"}"#;
    // not JSON
    let o = run(
        t.path(),
        &["--memory-dir", d, "write"],
        &format!("{good}\nnot json\n"),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("<stdin>:2:"), "{}", show(&o));
    assert!(!dir.exists());
    // wrong type
    let o = run(
        t.path(),
        &["--memory-dir", d, "write"],
        "{\"name\":\"x\",\"description\":\"d\",\"type\":5}\n",
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("<stdin>:1:"), "{}", show(&o));
    // missing field
    let o = run(
        t.path(),
        &["--memory-dir", d, "write"],
        "{\"name\":\"x\",\"type\":\"user\"}\n",
    );
    assert!(text(&o.stderr).contains("description"), "{}", show(&o));
    // truncated last line
    let o = run(t.path(), &["--memory-dir", d, "write"], good);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("no newline"), "{}", show(&o));
    assert!(!dir.exists());
    // unwritable directory (a file where a directory should be)
    let file = t.path().join("file");
    std::fs::write(&file, "x").unwrap();
    let under = file.join("mem");
    let o = run(
        t.path(),
        &["--memory-dir", under.to_str().unwrap(), "write"],
        &format!("{good}\n"),
    );
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    assert!(
        text(&o.stderr).contains(file.to_str().unwrap()),
        "{}",
        show(&o)
    );
    // full directory: refused without --evict, room made with it
    let batch: String = (0..3)
        .map(|i| format!(r#"{{"name":"f{i}","description":"d{i}","type":"project","kind":"durable-lesson","verified_at":"2026-07-0{}"}}"#, i + 1) + "\n")
        .collect();
    let o = run(
        t.path(),
        &["--memory-dir", d, "write", "--max-files", "3"],
        &batch,
    );
    assert!(o.status.success(), "{}", show(&o));
    let more = r#"{"name":"f9","description":"d9","type":"user"}"#.to_string() + "\n";
    let o = run(
        t.path(),
        &["--memory-dir", d, "write", "--max-files", "3"],
        &more,
    );
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    assert!(text(&o.stderr).contains("--max-files"), "{}", show(&o));
    assert_eq!(topic_files(&dir).len(), 3);
    let o = run(
        t.path(),
        &["--memory-dir", d, "write", "--max-files", "3", "--evict"],
        &more,
    );
    assert!(o.status.success(), "{}", show(&o));
    assert!(text(&o.stderr).contains("f0 retired"), "{}", show(&o));
    assert_eq!(topic_files(&dir), ["f1.md", "f2.md", "f9.md"]);
    assert!(dir.join("retired/f0.md").is_file());
}

#[test]
fn retire_restore_list_filters_show_and_disable() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("m");
    let d = dir.to_str().unwrap();
    let batch = [
        r#"{"name":"old state","description":"mirror slow","type":"project","expires":"2026-07-12","verified_at":"2026-07-11"}"#,
        r#"{"name":"pref","description":"terse answers","type":"user","verified_at":"2026-07-01"}"#,
    ]
    .join("\n")
        + "\n";
    run(t.path(), &["--memory-dir", d, "write"], &batch);
    let ids = |args: &[&str]| {
        let mut a = vec!["--memory-dir", d, "list"];
        a.extend_from_slice(args);
        jsonl(&run(t.path(), &a, ""))
            .iter()
            .map(|v| v["id"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&["--expired"]), ["old-state"]);
    assert_eq!(ids(&["--kind", "one-time-state"]), ["old-state"]);
    assert_eq!(ids(&["--type", "user"]), ["pref"]);
    assert_eq!(ids(&["--since", "2026-07-05"]), ["old-state"]);
    let o = run(
        t.path(),
        &["--memory-dir", d, "check", "--format", "jsonl"],
        "",
    );
    assert!(
        jsonl(&o).iter().any(|f| f["code"] == "expired-indexed"),
        "{}",
        show(&o)
    );
    let o = run(t.path(), &["--memory-dir", d, "show", "pref"], "");
    assert_eq!(jsonl(&o)[0]["description"], "terse answers");
    let o = run(
        t.path(),
        &[
            "--memory-dir",
            d,
            "retire",
            "old-state",
            "--reason",
            "expired",
        ],
        "",
    );
    assert!(o.status.success(), "{}", show(&o));
    let r = std::fs::read_to_string(dir.join("retired/old-state.md")).unwrap();
    assert!(
        r.contains("retired_at: 2026-07-13") && r.contains(r#"retired_reason: "expired""#),
        "{r}"
    );
    assert!(
        !std::fs::read_to_string(dir.join("MEMORY.md"))
            .unwrap()
            .contains("old-state")
    );
    assert_eq!(ids(&[]), ["pref"]);
    let o = run(t.path(), &["--memory-dir", d, "restore", "old-state"], "");
    assert!(o.status.success(), "{}", show(&o));
    let f = std::fs::read_to_string(dir.join("old-state.md")).unwrap();
    assert!(!f.contains("retired_at"), "{f}");
    assert!(
        std::fs::read_to_string(dir.join("MEMORY.md"))
            .unwrap()
            .contains("old-state")
    );
    let o = run(
        t.path(),
        &[
            "--memory-dir",
            d,
            "retire",
            "old-state",
            "--reason",
            "x",
            "--purge",
        ],
        "",
    );
    assert!(o.status.success());
    assert!(!dir.join("old-state.md").exists());
    let o = run(t.path(), &["--memory-dir", d, "show", "nope"], "");
    assert_eq!(o.status.code(), Some(1));
    // MEM_DISABLE: nothing written, exit 0 with a note
    let mut c = Command::new(BIN);
    let o = mem_tests::scrub(&mut c)
        .args(["--memory-dir", d, "write"])
        .env("MEM_DISABLE", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(text(&o.stderr).contains("off"), "{}", show(&o));
}

#[test]
fn daily_log_appends_by_day() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("m");
    let d = dir.to_str().unwrap();
    let recs = r#"{"name":"a","description":"first","type":"project","verified_at":"2026-07-01","body":"x --> y"}
{"name":"b","description":"second","type":"feedback"}
"#;
    let o = run(t.path(), &["--memory-dir", d, "log"], recs);
    assert!(o.status.success(), "{}", show(&o));
    run(t.path(), &["--memory-dir", d, "log"], recs);
    let f1 = dir.join("logs/2026/07/2026-07-01.md");
    let f2 = dir.join("logs/2026/07/2026-07-13.md");
    let t1 = std::fs::read_to_string(&f1).unwrap();
    assert!(t1.ends_with('\n'));
    let (ms, errs) = mem_index::daily_log::parse_log("x", &t1);
    assert!(errs.is_empty(), "{errs:?}");
    assert_eq!(ms.len(), 2);
    assert_eq!(ms[0].body.as_deref(), Some("x --> y"));
    assert!(f2.is_file());
    assert!(topic_files(&dir).is_empty(), "log writes no topics");
}

#[test]
fn agent_scopes_and_snapshots() {
    let t = tempfile::tempdir().unwrap();
    let proj = t.path().join("proj");
    std::fs::create_dir_all(proj.join(".git")).ok();
    let p = proj.to_str().unwrap();
    let rec = r#"{"name":"review style","description":"point to lines","type":"feedback"}"#
        .to_string()
        + "\n";
    let o = run(
        t.path(),
        &[
            "--cwd", p, "--agent", "reviewer", "--scope", "project", "write",
        ],
        &rec,
    );
    assert!(o.status.success(), "{}", show(&o));
    assert!(
        proj.join(".claude/agent-memory/reviewer/review-style.md")
            .is_file()
    );
    let o = run(
        t.path(),
        &[
            "--cwd",
            p,
            "--agent",
            "reviewer",
            "--now",
            "2026-07-13T00:00:00Z",
            "snapshot",
            "save",
        ],
        "",
    );
    assert!(o.status.success(), "{}", show(&o));
    let snap = proj.join(".claude/agent-memory-snapshot/reviewer");
    assert!(snap.join("review-style.md").is_file());
    assert!(
        std::fs::read_to_string(snap.join("snapshot.json"))
            .unwrap()
            .contains("updatedAt")
    );
    let o = run(
        t.path(),
        &[
            "--cwd",
            p,
            "--agent",
            "reviewer",
            "snapshot",
            "sync",
            "--strategy",
            "initialize",
        ],
        "",
    );
    assert!(o.status.success(), "{}", show(&o));
    let local = proj.join(".claude/agent-memory-local/reviewer");
    assert!(local.join("review-style.md").is_file(), "{}", show(&o));
    // prompt-update proposes, never overwrites
    std::fs::write(
        local.join("review-style.md"),
        "---\nname: \"review style\"\ndescription: \"local edit\"\ntype: feedback\n---\n",
    )
    .unwrap();
    let before = std::fs::read(local.join("review-style.md")).unwrap();
    let later = r#"{"name":"review style","description":"point to lines and files","type":"feedback","verified_at":"2026-07-13"}"#.to_string() + "\n";
    run(
        t.path(),
        &[
            "--cwd", p, "--agent", "reviewer", "--scope", "project", "write",
        ],
        &later,
    );
    let o = run(
        t.path(),
        &[
            "--cwd",
            p,
            "--agent",
            "reviewer",
            "--now",
            "2026-07-14T00:00:00Z",
            "snapshot",
            "save",
        ],
        "",
    );
    assert!(o.status.success(), "{}", show(&o));
    let o = run(
        t.path(),
        &[
            "--cwd",
            p,
            "--agent",
            "reviewer",
            "snapshot",
            "sync",
            "--strategy",
            "prompt-update",
        ],
        "",
    );
    assert!(o.status.success(), "{}", show(&o));
    let props = jsonl(&o);
    assert_eq!(props.len(), 1, "{}", show(&o));
    assert_eq!(props[0]["description"], "point to lines and files");
    assert_eq!(
        std::fs::read(local.join("review-style.md")).unwrap(),
        before
    );
}

/// A cut index carries a long WARNING line naming what was left out; `check`
/// holds only entries to the 150-character rule, so the index that `write`
/// made passes its own lint.
#[test]
fn check_accepts_the_warning_line_write_makes() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("mem");
    let d = dir.to_str().unwrap();
    let recs: String = (1..=300)
        .map(|i| {
            format!(
                "{{\"name\":\"Note {i}\",\"description\":\"note {i}\",\"type\":\"feedback\"}}\n"
            )
        })
        .collect();
    let w = run(
        t.path(),
        &["write", "--max-files", "0", "--memory-dir", d],
        &recs,
    );
    assert!(w.status.success(), "{}", show(&w));
    let index = std::fs::read_to_string(dir.join("MEMORY.md")).unwrap();
    let last = index.lines().last().unwrap();
    assert!(
        last.starts_with("WARNING") && last.chars().count() > 150,
        "{last}"
    );
    let c = run(
        t.path(),
        &[
            "check",
            "--max-files",
            "0",
            "--format",
            "jsonl",
            "--memory-dir",
            d,
        ],
        "",
    );
    assert!(c.status.success(), "{}", show(&c));
    assert!(
        !text(&c.stdout).contains("\"level\":\"error\""),
        "{}",
        show(&c)
    );
}

/// `mem-index path` into a pipe is the plain path (`cat "$(mem-index
/// path)/MEMORY.md"`); JSON only with `--format jsonl`.
#[test]
fn path_is_plain_when_piped() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("mem");
    std::fs::create_dir(&d).unwrap();
    let d = d.to_str().unwrap();
    let o = run(t.path(), &["--memory-dir", d, "path"], "");
    assert!(o.status.success(), "{}", show(&o));
    assert_eq!(text(&o.stdout), format!("{d}\n"));
    let o = run(
        t.path(),
        &["--memory-dir", d, "path", "--format", "jsonl"],
        "",
    );
    assert_eq!(jsonl(&o), [serde_json::json!({"dir": d})]);
}

/// A `--memory-dir` that does not exist is an error for the readers and
/// `path` (a typo read as "no memories", or printed as if it were the
/// memory directory, before), named, exit 1; `write` creates it.
#[test]
fn a_missing_memory_dir_is_an_error_for_readers() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("no-such-dir");
    let ds = d.to_str().unwrap();
    for args in [&["list"][..], &["show", "x"], &["check"], &["path"]] {
        let mut a = vec!["--memory-dir", ds];
        a.extend_from_slice(args);
        let o = run(t.path(), &a, "");
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", show(&o));
        assert_eq!(
            text(&o.stderr),
            format!("mem-index: --memory-dir {ds}: no such directory\n"),
            "{args:?}"
        );
        assert!(o.stdout.is_empty());
    }
    assert!(!d.exists());
}

/// `show` of an unknown id names the nearest ids.
#[test]
fn show_of_an_unknown_id_suggests_the_nearest() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("mem");
    let d = dir.to_str().unwrap();
    let recs = [
        r#"{"name":"Don't overcomplicate","description":"keep it simple","type":"feedback"}"#,
        r#"{"name":"Use pnpm","description":"pnpm, not npm","type":"feedback"}"#,
    ];
    let o = run(
        t.path(),
        &["--memory-dir", d, "write"],
        &(recs.join("\n") + "\n"),
    );
    assert!(o.status.success(), "{}", show(&o));
    assert_eq!(
        topic_files(&dir),
        ["don-t-overcomplicate.md", "use-pnpm.md"]
    );
    let o = run(
        t.path(),
        &["--memory-dir", d, "show", "dont-overcomplicate"],
        "",
    );
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    assert_eq!(
        text(&o.stderr),
        format!(
            "mem-index: {}: no such memory (did you mean: don-t-overcomplicate?)\n",
            dir.join("dont-overcomplicate.md").display()
        )
    );
    let o = run(t.path(), &["--memory-dir", d, "show", "zzzzzzzz"], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(!text(&o.stderr).contains("did you mean"), "{}", show(&o));
}

/// The `list` table keeps its columns aligned with wide characters.
#[test]
fn list_table_is_aligned_with_wide_characters() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("mem");
    let d = dir.to_str().unwrap();
    let recs = [
        r#"{"id":"build-cache","name":"Build cache","description":"the cache lives in target/","type":"project","verified_at":"2026-07-01"}"#,
        r#"{"id":"zh-note","name":"中文说明","description":"用 pnpm 而不是 npm","type":"feedback"}"#,
    ];
    let o = run(
        t.path(),
        &["--memory-dir", d, "write"],
        &(recs.join("\n") + "\n"),
    );
    assert!(o.status.success(), "{}", show(&o));
    let o = run(
        t.path(),
        &["--memory-dir", d, "list", "--format", "text"],
        "",
    );
    assert!(o.status.success(), "{}", show(&o));
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    // DESCRIPTION starts in the same terminal column on every line.
    let col = |l: &str, needle: &str| {
        let i = l.find(needle).unwrap_or_else(|| panic!("{needle} in {l}"));
        unicode_width::UnicodeWidthStr::width(&l[..i])
    };
    let c0 = col(lines[0], "DESCRIPTION");
    assert_eq!(col(lines[1], "the cache"), c0, "{out}");
    assert_eq!(col(lines[2], "用 pnpm"), c0, "{out}");
    assert_eq!(
        lines[0],
        "ID          TYPE     KIND           SOURCE TRUST  VERIFIED   EXPIRES DESCRIPTION"
    );
}

/// A bad flag value is a usage error (2) naming the flag.
#[test]
fn a_bad_flag_value_is_a_usage_error() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().to_str().unwrap();
    for args in [
        &["--memory-dir", d, "list", "--since", "last week"][..],
        &["--memory-dir", d, "--today", "2026-13-01", "list"],
        &["--memory-dir", d, "--now", "noon", "list"],
    ] {
        let o = run(t.path(), args, "");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", show(&o));
        assert!(text(&o.stderr).contains("invalid value"), "{}", show(&o));
    }
}

/// A name with `/` or `%` as ordinary text gets a safe id; the rest of the
/// batch is written (the whole batch was refused).
#[test]
fn a_name_with_a_slash_gets_a_safe_id() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("mem");
    let d = dir.to_str().unwrap();
    let recs = [
        r#"{"name":"Run scripts/setup.sh before tests","description":"setup creates the fixture","type":"feedback"}"#,
        r#"{"name":"100% of CI runs use the cache","description":"CI restores target/","type":"project"}"#,
        r#"{"name":"Use pnpm","description":"pnpm, not npm","type":"feedback"}"#,
    ];
    let o = run(
        t.path(),
        &["--memory-dir", d, "write"],
        &(recs.join("\n") + "\n"),
    );
    assert!(o.status.success(), "{}", show(&o));
    assert_eq!(
        topic_files(&dir),
        [
            "100-of-ci-runs-use-the-cache.md",
            "run-scripts-setup-sh-before-tests.md",
            "use-pnpm.md"
        ]
    );
}

/// Every file `write` makes says who it came from: a record without `source`
/// is `manual`, without `trust` is `normal`; the keys follow `project`; a
/// suspect record stays low when merged into a trusted one; `list` and
/// `show` print both.
#[test]
fn write_keeps_source_and_trust_and_list_shows_them() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("mem");
    let d = dir.to_str().unwrap();
    let recs = concat!(
        r#"{"id":"hand","name":"Hand","description":"by hand","type":"user","scope":"this-repo","project":"3b1f0c9a2d4e","triggers":["x"]}"#,
        "\n",
        r#"{"id":"lesson","name":"Lesson","description":"from a tool","type":"feedback","source":"tool","trust":"low","fact":"f"}"#,
        "\n",
    );
    let o = run(t.path(), &["--memory-dir", d, "write"], recs);
    assert!(o.status.success(), "{}", show(&o));
    let hand = std::fs::read_to_string(dir.join("hand.md")).unwrap();
    assert!(
        hand.contains(
            "scope: this-repo\nproject: \"3b1f0c9a2d4e\"\nsource: manual\ntrust: normal\ntriggers: [\"x\"]\n"
        ),
        "{hand}"
    );
    // a trusted record landing on the low one: still low, source kept
    let o = run(
        t.path(),
        &["--memory-dir", d, "write"],
        concat!(
            r#"{"id":"lesson","name":"Lesson","description":"from a tool","type":"feedback","trust":"normal","verified_at":"2026-07-12","fact":"f"}"#,
            "\n"
        ),
    );
    assert!(o.status.success(), "{}", show(&o));
    let lesson = std::fs::read_to_string(dir.join("lesson.md")).unwrap();
    assert!(lesson.contains("source: tool\ntrust: low\n"), "{lesson}");

    let o = run(
        t.path(),
        &["--memory-dir", d, "--format", "text", "list"],
        "",
    );
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>(),
        [
            "ID",
            "TYPE",
            "KIND",
            "SOURCE",
            "TRUST",
            "VERIFIED",
            "EXPIRES",
            "DESCRIPTION"
        ],
        "{out}"
    );
    let row = |id: &str| -> Vec<&str> {
        lines
            .iter()
            .find(|l| l.starts_with(id))
            .unwrap()
            .split_whitespace()
            .collect()
    };
    assert_eq!(row("hand")[3..5], ["manual", "normal"], "{out}");
    assert_eq!(row("lesson")[3..5], ["tool", "low"], "{out}");
    let o = run(
        t.path(),
        &["--memory-dir", d, "--format", "jsonl", "list"],
        "",
    );
    let recs = jsonl(&o);
    let l = recs.iter().find(|r| r["id"] == "lesson").unwrap();
    assert_eq!((&l["source"], &l["trust"]), (&"tool".into(), &"low".into()));
    let o = run(
        t.path(),
        &["--memory-dir", d, "--format", "text", "show", "lesson"],
        "",
    );
    assert!(
        text(&o.stdout).contains("source: tool\ntrust: low\n"),
        "{}",
        show(&o)
    );
}
