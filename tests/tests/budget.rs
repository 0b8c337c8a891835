//! Every read has a budget, no write follows a link out of where it
//! belongs, nothing blocks on a FIFO or device, and a run cut short leaves
//! nothing half done — each through the real binaries, each attack next to
//! a harmless twin that must keep working:
//!
//! - a topic file whose YAML aliases fan out ("billion laughs") under the
//!   size cap is skipped by every reader within a fixed time, named in a
//!   warning, while the good file next to it is still read; a frontmatter
//!   with one harmless alias still reads;
//! - `merge-driver --install`, `promote`, `reindex --tier team` and
//!   `hooks install --project` refuse a link where the repository's file
//!   or folder should be, leaving its target byte-identical;
//! - `replay --project` and the hook installer never wait on a FIFO.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use mem_tests::{cmd, show};

/// A throwaway home with a project (`proj/`, a git repository) and a
/// personal memory directory (`mem/`).
struct Setup {
    tmp: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let s = Setup {
            tmp: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(s.proj()).unwrap();
        std::fs::create_dir_all(s.mem()).unwrap();
        std::fs::create_dir_all(s.home()).unwrap();
        s
    }
    fn root(&self) -> &Path {
        self.tmp.path()
    }
    fn home(&self) -> PathBuf {
        self.root().join("home")
    }
    fn proj(&self) -> PathBuf {
        self.root().join("proj")
    }
    fn mem(&self) -> PathBuf {
        self.root().join("mem")
    }
    fn git_init(&self) {
        git(&self.proj(), &["init", "-q"]);
    }
    fn cmd(&self, tool: &str) -> Command {
        let mut c = cmd(tool, &self.home());
        c.current_dir(self.proj())
            .env("MEM_MEMORY_DIR", self.mem())
            .env("MEM_TODAY", "2026-07-13");
        c
    }
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {}", show(&out));
}

/// Run `c` with `stdin`, killed after `limit`; returns the output and the
/// wall time. A run that had to be killed fails the test, naming `what`.
fn timed(mut c: Command, stdin: &[u8], limit: Duration, what: &str) -> (Output, Duration) {
    use std::io::Write;
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let t = Instant::now();
    let mut child = c.spawn().expect("spawn");
    let mut sin = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    std::thread::spawn(move || {
        let _ = sin.write_all(&data);
    });
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => (out.expect("wait"), t.elapsed()),
        Err(_) => {
            let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
            panic!("{what}: still running after {limit:?} (killed)");
        }
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A billion-laughs frontmatter under the 1 MiB topic cap: nine levels of
/// ten aliases each (10^9 values once expanded), padded with plain values
/// so that the YAML library's own repetition limit (100 times the events of
/// the file) does not stop it early. Before the budget it took minutes and
/// gigabytes.
fn alias_bomb(levels: usize, pad: usize) -> String {
    let mut y =
        String::from("---\nname: \"Bomb\"\ndescription: \"deploy with pnpm\"\ntype: feedback\n");
    y.push_str("l0: &l0 [\"deploy\",\"deploy\",\"deploy\",\"deploy\",\"deploy\",\"deploy\",\"deploy\",\"deploy\",\"deploy\",\"deploy\"]\n");
    for i in 1..levels {
        let refs = vec![format!("*l{}", i - 1); 10].join(",");
        y.push_str(&format!("l{i}: &l{i} [{refs}]\n"));
    }
    y.push_str("pad: [");
    y.push_str(&vec!["0"; pad].join(","));
    y.push_str("]\n---\nAlways deploy with pnpm.\n");
    y
}

/// The same attack written differently: one long string repeated through
/// aliases (bytes, not values), and aliases as mapping values (block
/// style) behind a tag.
fn string_bomb() -> String {
    let mut y = String::from("---\nname: \"Strings\"\ndescription: \"deploy\"\ntype: feedback\n");
    y.push_str(&format!("s: &s \"{}\"\n", "x".repeat(200_000)));
    y.push_str("t: !big\n");
    for i in 0..60 {
        y.push_str(&format!("  k{i}: *s\n"));
    }
    y.push_str("---\nbody\n");
    y
}

#[test]
fn an_alias_bomb_is_skipped_by_every_reader_fast_and_the_rest_still_works() {
    let s = Setup::new();
    s.git_init();
    let bombs = [
        ("bomb.md", alias_bomb(9, 150_000)),
        ("strings.md", string_bomb()),
    ];
    for (name, y) in &bombs {
        assert!(y.len() < 1 << 20, "{name} is under the topic file cap");
        std::fs::write(s.mem().join(name), y).unwrap();
    }
    // the harmless twin: one small alias, as YAML allows
    std::fs::write(
        s.mem().join("good.md"),
        "---\nname: \"Deploy with pnpm\"\ndescription: \"deploy the app with pnpm\"\ntype: feedback\ntriggers: &t [\"deploy\", \"pnpm\"]\nx_also: *t\n---\nAlways deploy with pnpm, never npm.\n",
    )
    .unwrap();
    let before: Vec<(String, Vec<u8>)> = bombs
        .iter()
        .map(|(n, _)| (n.to_string(), std::fs::read(s.mem().join(n)).unwrap()))
        .collect();
    let limit = Duration::from_secs(2);
    let hook_in = serde_json::json!({"hook_event_name":"UserPromptSubmit","session_id":"s1","prompt":"deploy the app with pnpm"}).to_string();
    let runs: Vec<(&str, Vec<&str>, String)> = vec![
        ("mem-index", vec!["list"], String::new()),
        ("mem-index", vec!["check"], String::new()),
        ("mem-index", vec!["reindex"], String::new()),
        (
            "mem-index",
            vec!["write"],
            "{\"name\":\"Run setup first\",\"description\":\"setup creates the fixture\",\"type\":\"feedback\"}\n".into(),
        ),
        ("mem-recall", vec!["--task", "deploy the app with pnpm"], String::new()),
        ("mem-recall", vec!["--hook"], hook_in),
        (
            "mem-dream",
            vec!["--dry-run", "--force", "--now", "2026-07-13T12:00:00Z", "--transcripts", "empty"],
            String::new(),
        ),
    ];
    std::fs::create_dir_all(s.proj().join("empty")).unwrap();
    let mut times = Vec::new();
    for (tool, args, stdin) in &runs {
        let mut c = s.cmd(tool);
        c.args(args);
        let what = format!("{tool} {}", args.join(" "));
        let (out, took) = timed(c, stdin.as_bytes(), Duration::from_secs(60), &what);
        times.push(format!("{what}: {took:?}"));
        assert!(took < limit, "{what} took {took:?}\n{}", show(&out));
        let err = text(&out.stderr);
        assert!(!err.contains("panicked"), "{what}\n{}", show(&out));
        let all = format!("{err}{}", text(&out.stdout));
        for (name, _) in &bombs {
            if *tool == "mem-recall" && args[0] == "--hook" {
                // the hook stays quiet on stderr about files; it must not
                // inject the bomb
                assert!(!all.contains("l0"), "{what}\n{}", show(&out));
                continue;
            }
            assert!(
                all.contains(name) && all.contains("YAML aliases"),
                "{what}: no warning naming {name}\n{}",
                show(&out)
            );
        }
        match (*tool, args[0]) {
            ("mem-index", "list") => {
                assert!(text(&out.stdout).contains("\"good\""), "{}", show(&out))
            }
            ("mem-recall", "--task") => assert!(
                text(&out.stdout).contains("\"id\":\"good\""),
                "{what}: the good memory is recalled\n{}",
                show(&out)
            ),
            ("mem-recall", "--hook") => assert!(
                text(&out.stdout).contains("Deploy with pnpm"),
                "{what}: the good memory is injected\n{}",
                show(&out)
            ),
            ("mem-index", "write") => assert!(out.status.success(), "{}", show(&out)),
            _ => {}
        }
    }
    eprintln!("alias bomb, wall time per run: {}", times.join("; "));
    for (n, b) in &before {
        assert_eq!(
            &std::fs::read(s.mem().join(n)).unwrap(),
            b,
            "{n} left unchanged"
        );
    }
    // MEMORY.md was written and names the good memory and the new one
    let index = std::fs::read_to_string(s.mem().join("MEMORY.md")).unwrap();
    assert!(
        index.contains("good.md") && index.contains("run-setup-first.md"),
        "{index}"
    );
}

/// The git merge driver on an alias bomb: refuses within the budget,
/// naming the file, and git keeps the conflict; a harmless merge of the
/// same repository still merges.
#[test]
fn the_merge_driver_refuses_an_alias_bomb_fast() {
    let s = Setup::new();
    let dir = s.root().join("m");
    std::fs::create_dir_all(&dir).unwrap();
    let good = "---\nname: \"Deploy\"\ndescription: \"deploy\"\ntype: feedback\ntriggers: [\"deploy\"]\n---\nDeploy with pnpm.\n";
    let (o, a, b) = (dir.join("o.md"), dir.join("a.md"), dir.join("b.md"));
    std::fs::write(&o, good).unwrap();
    std::fs::write(&a, good.replace("[\"deploy\"]", "[\"deploy\", \"ship\"]")).unwrap();
    std::fs::write(&b, alias_bomb(9, 150_000)).unwrap();
    let mut c = cmd("mem-index", &s.home());
    c.arg("merge-driver")
        .args([&o, &a, &b])
        .arg(".claude/team-memory/deploy.md");
    let (out, took) = timed(c, b"", Duration::from_secs(60), "merge-driver");
    assert!(
        took < Duration::from_secs(2),
        "took {took:?}\n{}",
        show(&out)
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(text(&out.stderr).contains("YAML aliases"), "{}", show(&out));
    assert!(text(&out.stderr).contains("deploy.md"), "{}", show(&out));
    // the twin: both sides good
    std::fs::write(
        &b,
        good.replace("[\"deploy\"]", "[\"deploy\", \"release\"]"),
    )
    .unwrap();
    let mut c = cmd("mem-index", &s.home());
    c.arg("merge-driver")
        .args([&o, &a, &b])
        .arg(".claude/team-memory/deploy.md");
    let (out, _) = timed(c, b"", Duration::from_secs(60), "merge-driver");
    assert!(out.status.success(), "{}", show(&out));
    let merged = std::fs::read_to_string(&a).unwrap();
    assert!(
        merged.contains("ship") && merged.contains("release"),
        "{merged}"
    );
}
