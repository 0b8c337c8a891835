//! The secrets corpus: fake secrets of many kinds, generated here (never
//! literal in the source), embedded in Claude Code transcripts in the user's
//! own words, in a failing command's output and command line, and in a file
//! read by the agent.
//!
//! 1. The write path (`mem-transcript replay | mem-extract | mem-index write`,
//!    the real binaries) lets none of them into the memory directory.
//! 2. `mem-index check` finds every one of them planted directly into a topic
//!    file (one file per secret), exits 1 and names the file.
//!
//! A per-kind table (kind, planted, caught by the write path, caught by
//! check) is printed to stderr.

use std::collections::BTreeMap;
use std::path::Path;

use mem_tests::corpus::{Secret, corpus};
use mem_tests::{cmd, files_under, run, show};
use serde_json::{Value, json};

/// Claude Code transcript lines for one session that carries `s` in the
/// user's words, in a failing command line and its output, and in a file the
/// agent read. The failure → fix → success shape makes mem-extract write a
/// lesson from the error output; the user's sentences make it write feedback
/// and project memories.
fn transcript(n: usize, group: &[Secret]) -> String {
    let session = format!("00000000-0000-4000-8000-{n:012}");
    let mut lines: Vec<Value> = Vec::new();
    for (k, s) in group.iter().enumerate() {
        lines.extend(exchange(n * 100 + k, s));
    }
    // chain the exchanges into one branch
    let mut parent: Option<String> = None;
    let mut out = String::new();
    for mut l in lines {
        l["parentUuid"] = json!(parent);
        l["sessionId"] = json!(session);
        parent = l["uuid"].as_str().map(str::to_string);
        out.push_str(&serde_json::to_string(&l).unwrap());
        out.push('\n');
    }
    out
}

/// The entries of one exchange carrying `s` (see [`transcript`]).
fn exchange(n: usize, s: &Secret) -> Vec<Value> {
    let mut lines: Vec<Value> = Vec::new();
    let mut parent: Option<String> = None;
    let mut seq = 0usize;
    let mut node = |kind: &str, message: Value, extra: Option<(&str, Value)>| {
        seq += 1;
        let uuid = format!("11111111-2222-4333-8444-{n:06}{seq:06}");
        let mut e = json!({
            "type": kind,
            "uuid": uuid,
            "parentUuid": parent,
            "isSidechain": false,
            "userType": "external",
            "sessionId": "",
            "cwd": "/home/dev/proj",
            "version": "2.1.0",
            "timestamp": format!("2026-07-11T{:02}:{:02}:{:02}Z", n / 100 % 24, n % 100 % 60, seq % 60),
            "message": message,
        });
        if let Some((k, v)) = extra {
            e[k] = v;
        }
        parent = Some(uuid);
        e
    };
    let line = &s.line;
    let one_line = !line.contains('\n');
    let user = |t: String| json!({"role": "user", "content": t});
    let asst = |id: &str, c: Value| {
        json!({"id": format!("msg_{id}"), "type": "message", "role": "assistant",
               "model": "claude-x", "content": [c]})
    };
    let result = |id: &str, text: &str, err: bool| {
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id,
               "content": text, "is_error": err}]})
    };
    // the user's own words: project facts and feedback carrying the secret
    lines.push(node(
        "user",
        user(format!(
            "Remember that the staging deploy needs {line} because the mirror checks it.\n\
             Never paste {line} into the chat logs, always use the vault instead."
        )),
        None,
    ));
    lines.push(node(
        "user",
        user(format!(
            "FYI the release job requires this credential: {line}\nWe use the vault for secrets in this repo."
        )),
        None,
    ));
    // a file read by the agent (file contents)
    let tid = format!("toolu_read{n:04}");
    lines.push(node(
        "assistant",
        asst(
            &format!("r{n}"),
            json!({"type": "tool_use", "id": tid, "name": "Read",
                   "input": {"file_path": "/home/dev/proj/.env"}}),
        ),
        None,
    ));
    let file = format!("# local settings\nNODE_ENV=staging\n{line}\nLOG_LEVEL=debug\n");
    lines.push(node(
        "user",
        result(&tid, &file, false),
        Some((
            "toolUseResult",
            json!({"type": "text", "file": {"filePath": "/home/dev/proj/.env", "content": file}}),
        )),
    ));
    // a failing command whose output (and, when it fits one line, command line) carries it
    let cmd1 = if one_line {
        format!("env '{line}' npm run deploy")
    } else {
        "npm run deploy".to_string()
    };
    let t1 = format!("toolu_a{n:04}");
    lines.push(node(
        "assistant",
        asst(
            &format!("a{n}"),
            json!({"type": "tool_use", "id": t1, "name": "Bash", "input": {"command": cmd1}}),
        ),
        None,
    ));
    lines.push(node(
        "user",
        result(
            &t1,
            &format!("Error: authentication failed\n  credential in use: {line}\n  status 401\n"),
            true,
        ),
        None,
    ));
    let t2 = format!("toolu_b{n:04}");
    lines.push(node(
        "assistant",
        asst(
            &format!("b{n}"),
            json!({"type": "tool_use", "id": t2, "name": "Bash",
                   "input": {"command": "npm run login"}}),
        ),
        None,
    ));
    lines.push(node("user", result(&t2, "logged in\n", false), None));
    let t3 = format!("toolu_c{n:04}");
    lines.push(node(
        "assistant",
        asst(
            &format!("c{n}"),
            json!({"type": "tool_use", "id": t3, "name": "Bash", "input": {"command": cmd1}}),
        ),
        None,
    ));
    lines.push(node("user", result(&t3, "deployed\n", false), None));
    lines.push(node(
        "assistant",
        asst(
            &format!("d{n}"),
            json!({"type": "text", "text": "Deployed after logging in."}),
        ),
        None,
    ));
    lines
}

/// Every file under `dir`, read as lossy text.
fn all_text(dir: &Path) -> String {
    let mut out = String::new();
    for p in files_under(dir) {
        if let Ok(b) = std::fs::read(&p) {
            out.push_str(&String::from_utf8_lossy(&b));
            out.push('\n');
        }
    }
    out
}

/// Secrets per generated session.
const GROUP: usize = 5;

#[derive(Default)]
struct Row {
    planted: usize,
    write_ok: usize,
    check_ok: usize,
}

fn print_table(rows: &BTreeMap<&str, Row>) {
    eprintln!(
        "{:<24} {:>7} {:>16} {:>15}",
        "kind", "planted", "caught by write", "caught by check"
    );
    let (mut p, mut w, mut c) = (0, 0, 0);
    for (k, r) in rows {
        eprintln!(
            "{k:<24} {:>7} {:>16} {:>15}",
            r.planted, r.write_ok, r.check_ok
        );
        p += r.planted;
        w += r.write_ok;
        c += r.check_ok;
    }
    eprintln!("{:<24} {p:>7} {w:>16} {c:>15}", "TOTAL");
}

#[test]
fn corpus_has_enough_secrets_and_kinds() {
    let c = corpus();
    let kinds: std::collections::BTreeSet<_> = c.iter().map(|s| s.kind).collect();
    assert!(c.len() >= 30, "{} secrets", c.len());
    assert!(kinds.len() >= 15, "{} kinds", kinds.len());
    for s in &c {
        assert!(s.line.contains(&s.mark), "{}: mark not in line", s.kind);
        assert!(s.mark.len() >= 14, "{}: mark too short", s.kind);
    }
}

#[test]
fn secrets_never_reach_memory_and_check_finds_every_one() {
    let home = tempfile::tempdir().unwrap();
    let secrets = corpus();
    let mut rows: BTreeMap<&str, Row> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut memories = 0usize;

    // 1. the write path, one session per secret
    let memdir = home.path().join("memory");
    let tdir = home.path().join("transcripts");
    std::fs::create_dir_all(&tdir).unwrap();
    let mut leaked_in_extract = vec![false; secrets.len()];
    let mut refused = 0usize;
    for (g, group) in secrets.chunks(GROUP).enumerate() {
        let path = tdir.join(format!("00000000-0000-4000-8000-{g:012}.jsonl"));
        std::fs::write(&path, transcript(g, group)).unwrap();
        let mut replay = cmd("mem-transcript", home.path());
        replay.arg("replay").arg(&path);
        let r = run(replay, b"");
        assert!(r.status.success(), "replay session {g}: {}", show(&r));
        let mut extract = cmd("mem-extract", home.path());
        extract.arg("--explain").arg("--cwd").arg("/home/dev/proj");
        let x = run(extract, &r.stdout);
        assert!(x.status.success(), "extract session {g}: {}", show(&x));
        // --explain quotes the transcript on stderr: scrubbed too
        // compared in lower case: triggers are folded to it
        let xs = format!(
            "{}{}",
            String::from_utf8_lossy(&x.stdout),
            String::from_utf8_lossy(&x.stderr)
        )
        .to_lowercase();
        for (k, s) in group.iter().enumerate() {
            leaked_in_extract[g * GROUP + k] = xs.contains(&s.mark.to_lowercase());
        }
        memories += x.stdout.iter().filter(|&&b| b == b'\n').count();
        let write = |skip: bool| {
            let mut w = cmd("mem-index", home.path());
            w.args(["write", "--max-files", "0", "--memory-dir"])
                .arg(&memdir);
            if skip {
                w.arg("--skip-invalid");
            }
            run(w, &x.stdout)
        };
        let w = write(false);
        if !w.status.success() {
            let err = String::from_utf8_lossy(&w.stderr);
            // a record refused for carrying a secret means mem-extract let it
            // through; other refusals (a bad name) are reported, and the rest
            // of the batch is written so the check below still sees it
            if err.contains("secret") {
                failures.push(format!(
                    "write refused session {g} for a secret mem-extract left in: {}",
                    show(&w)
                ));
            }
            refused += err.lines().filter(|l| l.contains("<stdin>:")).count();
            eprintln!("NOTE: mem-index write refused records of session {g}:\n{err}");
            let w2 = write(true);
            assert!(
                w2.status.code() == Some(1) || w2.status.success(),
                "write --skip-invalid: {}",
                show(&w2)
            );
        }
    }
    // every secret sits in sentences the extractor keeps: the test is only
    // meaningful when memories were written
    assert!(
        memories >= secrets.len(),
        "only {memories} memories extracted for {} secrets",
        secrets.len()
    );
    let stored = all_text(&memdir);
    let redacted = stored.matches("[REDACTED]").count();
    let stored = stored.to_lowercase();
    // the secrets' sentences did reach memory, redacted
    assert!(
        redacted >= secrets.len() / 2,
        "only {redacted} redactions stored"
    );
    for (i, s) in secrets.iter().enumerate() {
        let row = rows.entry(s.kind).or_default();
        row.planted += 1;
        let in_store = stored.contains(&s.mark.to_lowercase());
        if in_store || leaked_in_extract[i] {
            failures.push(format!(
                "{} #{i} reached {} (extract output: {})",
                s.kind,
                if in_store {
                    "the memory directory"
                } else {
                    "mem-extract's output (stdout or --explain on stderr)"
                },
                leaked_in_extract[i]
            ));
        } else {
            row.write_ok += 1;
        }
    }

    // 2. mem-index check over planted topic files, one secret each
    let plant = home.path().join("planted");
    std::fs::create_dir_all(&plant).unwrap();
    for (i, s) in secrets.iter().enumerate() {
        let field = i % 3;
        let one_line = !s.line.contains('\n');
        let esc = s.line.replace('\\', "\\\\").replace('"', "\\\"");
        let desc = if field == 1 && one_line {
            format!("Staging deploy uses {esc}")
        } else {
            "Staging deploy credential".to_string()
        };
        let extra = if field == 2 && one_line {
            format!("owner_note: \"{esc}\"\n")
        } else {
            String::new()
        };
        let body = if (field == 1 || field == 2) && one_line {
            "Fact: The staging deploy needs a credential from the vault.\n".to_string()
        } else {
            format!(
                "Fact: The staging deploy needs this credential:\n{}\n",
                s.line
            )
        };
        std::fs::write(
            plant.join(format!("secret-{i:02}.md")),
            format!(
                "---\nname: \"Secret {i}\"\ndescription: \"{desc}\"\ntype: project\n{extra}---\n{body}"
            ),
        )
        .unwrap();
    }
    let mut check = cmd("mem-index", home.path());
    check
        .args(["check", "--format", "jsonl", "--memory-dir"])
        .arg(&plant);
    let c = run(check, b"");
    assert_eq!(c.status.code(), Some(1), "check: {}", show(&c));
    let out = String::from_utf8_lossy(&c.stdout).into_owned();
    let mut named: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for l in out.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("check line {l}: {e}"));
        let text = v.to_string();
        if text.contains("sensitive") && text.contains("secret") {
            let file = v["file"].as_str().unwrap_or("").to_string();
            named.entry(file).or_default().push(text);
        }
    }
    for (i, s) in secrets.iter().enumerate() {
        let f = format!("secret-{i:02}.md");
        if named.keys().any(|k| k.ends_with(&f)) {
            rows.get_mut(s.kind).unwrap().check_ok += 1;
        } else {
            failures.push(format!("check did not name {f} ({})", s.kind));
        }
    }
    assert!(
        String::from_utf8_lossy(&c.stdout).contains("secret-00.md"),
        "check names the file: {}",
        show(&c)
    );

    print_table(&rows);
    eprintln!(
        "{memories} memories extracted from {} sessions ({} secrets), {refused} refused by write, \
         {redacted} [REDACTED] marks stored",
        secrets.len().div_ceil(GROUP),
        secrets.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
