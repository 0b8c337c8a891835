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

use mem_tests::{cmd, show, snapshot};

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

/// `inner` run under `/usr/bin/time`, its max RSS (KB) written to `rss`.
fn with_rss(inner: Command, rss: &Path) -> Command {
    let mut c = Command::new("/usr/bin/time");
    c.arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(rss)
        .arg(inner.get_program())
        .args(inner.get_args());
    for (k, v) in inner.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    if let Some(d) = inner.get_current_dir() {
        c.current_dir(d);
    }
    c
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
        ("bomb.md", alias_bomb(9, 80_000)),
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
        ("mem-hook", vec![], hook_in),
        (
            "mem-dream",
            vec!["--dry-run", "--force", "--now", "2026-07-13T12:00:00Z", "--transcripts", "empty"],
            String::new(),
        ),
    ];
    std::fs::create_dir_all(s.proj().join("empty")).unwrap();
    let mut times = Vec::new();
    let rss_file = s.root().join("rss");
    for (tool, args, stdin) in &runs {
        let mut c = s.cmd(tool);
        c.args(args);
        let what = format!("{tool} {}", args.join(" "));
        let (out, took) = timed(
            with_rss(c, &rss_file),
            stdin.as_bytes(),
            Duration::from_secs(60),
            &what,
        );
        let rss_kb: u64 = std::fs::read_to_string(&rss_file)
            .ok()
            .and_then(|t| t.trim().lines().last()?.trim().parse().ok())
            .unwrap_or(0);
        times.push(format!("{what}: {took:?}, {} MB", rss_kb / 1024));
        assert!(took < limit, "{what} took {took:?}\n{}", show(&out));
        assert!(
            rss_kb < 64 * 1024,
            "{what}: max RSS {rss_kb} KB\n{}",
            show(&out)
        );
        // `/usr/bin/time` adds a line when the tool exits non-zero
        let err = text(&out.stderr);
        assert!(!err.contains("panicked"), "{what}\n{}", show(&out));
        let all = format!("{err}{}", text(&out.stdout));
        for (name, _) in &bombs {
            if *tool == "mem-hook" {
                // nothing of the bomb is injected
                assert!(
                    !text(&out.stdout).contains("Bomb"),
                    "{what}\n{}",
                    show(&out)
                );
            }
            assert!(
                all.contains(name) && all.contains("YAML aliases"),
                "{what}: no warning naming {name}\n{}",
                show(&out)
            );
        }
        match (*tool, args.first().copied().unwrap_or_default()) {
            ("mem-index", "list") => {
                assert!(text(&out.stdout).contains("\"good\""), "{}", show(&out))
            }
            ("mem-recall", "--task") => assert!(
                text(&out.stdout).contains("\"id\":\"good\""),
                "{what}: the good memory is recalled\n{}",
                show(&out)
            ),
            ("mem-hook", "") => assert!(
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
    std::fs::write(&b, alias_bomb(9, 80_000)).unwrap();
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

fn symlink(target: &Path, link: &Path) {
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, link).unwrap();
}

fn mkfifo(p: &Path) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    let st = Command::new("mkfifo").arg(p).status().expect("mkfifo");
    assert!(st.success());
}

/// A personal memory `deploy` that may be promoted.
fn personal_memory(s: &Setup) {
    std::fs::write(
        s.mem().join("deploy.md"),
        "---\nname: \"Deploy with pnpm\"\ndescription: \"deploy the app with pnpm\"\ntype: feedback\n---\nAlways deploy with pnpm.\n",
    )
    .unwrap();
}

/// One refused write: non-zero exit, the link named on stderr, the
/// outside folder unchanged, the link still a link.
fn refused(s: &Setup, tool: &str, args: &[&str], link: &Path, outside: &Path) {
    let before = snapshot(outside);
    let mut c = s.cmd(tool);
    c.args(args);
    let what = format!("{tool} {}", args.join(" "));
    let (out, _) = timed(c, b"", Duration::from_secs(60), &what);
    let err = text(&out.stderr);
    assert!(
        !out.status.success() && out.status.code() != Some(0),
        "{what}: must refuse {}\n{}",
        link.display(),
        show(&out)
    );
    let name = link.strip_prefix(s.proj()).unwrap().display().to_string();
    assert!(
        err.contains(&name) && err.contains("symbolic link"),
        "{what}: names {name}\n{}",
        show(&out)
    );
    assert_eq!(
        snapshot(outside),
        before,
        "{what}: the link's target changed"
    );
    assert!(
        std::fs::symlink_metadata(link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "{what}: the link was replaced"
    );
}

#[test]
fn merge_driver_install_refuses_a_linked_gitattributes_or_git_config() {
    // .gitattributes -> a file outside the repository
    let s = Setup::new();
    s.git_init();
    let outside = s.root().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("victim"), "private line\n").unwrap();
    let install_refused = |link: &Path| {
        refused(
            &s,
            "mem-index",
            &["merge-driver", "--install"],
            link,
            &outside,
        )
    };
    let ga = s.proj().join(".gitattributes");
    symlink(&outside.join("victim"), &ga);
    install_refused(&ga);
    // the same to a file that does not exist yet (a dangling link)
    std::fs::remove_file(&ga).unwrap();
    symlink(&outside.join("new-file"), &ga);
    install_refused(&ga);
    assert!(!outside.join("new-file").exists());
    std::fs::remove_file(&ga).unwrap();
    // .git/config -> outside (git writes a config through its link)
    let cfg = s.proj().join(".git/config");
    std::fs::copy(&cfg, outside.join("config")).unwrap();
    std::fs::remove_file(&cfg).unwrap();
    symlink(&outside.join("config"), &cfg);
    install_refused(&cfg);
    // .claude -> outside: the team tier it would create
    std::fs::remove_file(&cfg).unwrap();
    std::fs::copy(outside.join("config"), &cfg).unwrap();
    let dot = s.proj().join(".claude");
    std::fs::create_dir_all(outside.join("dotclaude")).unwrap();
    symlink(&outside.join("dotclaude"), &dot);
    install_refused(&dot);
    assert!(!outside.join("dotclaude/team-memory").exists());
    std::fs::remove_file(&dot).unwrap();
    // the twin: a regular .gitattributes gets the line
    std::fs::write(&ga, "*.png binary\n").unwrap();
    let mut c = s.cmd("mem-index");
    c.args(["merge-driver", "--install"]);
    let (out, _) = timed(c, b"", Duration::from_secs(60), "install");
    assert!(out.status.success(), "{}", show(&out));
    let t = std::fs::read_to_string(&ga).unwrap();
    assert!(
        t.starts_with("*.png binary\n") && t.contains("merge=mem"),
        "{t}"
    );
}

#[test]
fn promote_and_team_reindex_refuse_a_linked_claude_or_team_folder() {
    for linked in [".claude", ".claude/team-memory"] {
        let s = Setup::new();
        s.git_init();
        personal_memory(&s);
        let outside = s.root().join("outside");
        let target = outside.join("dir");
        std::fs::create_dir_all(&target).unwrap();
        std::fs::write(target.join("keep.txt"), "mine\n").unwrap();
        let link = s.proj().join(linked);
        symlink(&target, &link);
        for args in [
            &["promote", "deploy"][..],
            &["reindex", "--tier", "team"],
            &["demote", "deploy"],
        ] {
            refused(&s, "mem-index", args, &link, &outside);
        }
        assert_eq!(std::fs::read_dir(&target).unwrap().count(), 1, "{linked}");
    }
    // the twin: real folders
    let s = Setup::new();
    s.git_init();
    personal_memory(&s);
    for args in [&["promote", "deploy"][..], &["reindex", "--tier", "team"]] {
        let mut c = s.cmd("mem-index");
        c.args(args);
        let (out, _) = timed(c, b"", Duration::from_secs(60), "promote");
        assert!(out.status.success(), "{args:?}: {}", show(&out));
    }
    assert!(s.proj().join(".claude/team-memory/deploy.md").is_file());
}

#[test]
fn hooks_install_refuses_a_linked_project_settings_file() {
    let cases = [
        (".claude/settings.json", false, ".claude/settings.json"),
        (".claude", false, ".claude"),
        (".codex/hooks.json", true, ".codex/hooks.json"),
    ];
    for (linked, codex, named) in cases {
        let s = Setup::new();
        s.git_init();
        let outside = s.root().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        let link = s.proj().join(linked);
        let target = if linked.ends_with(".json") {
            std::fs::write(outside.join("victim.json"), "{\"theme\": \"dark\"}\n").unwrap();
            outside.join("victim.json")
        } else {
            std::fs::create_dir_all(outside.join("dir")).unwrap();
            std::fs::write(outside.join("dir/settings.json"), "{}\n").unwrap();
            outside.join("dir")
        };
        symlink(&target, &link);
        let mut args = vec!["install", "--project"];
        if codex {
            args.push("--codex");
        }
        refused(&s, "mem-hook", &args, &s.proj().join(named), &outside);
        // uninstall too
        args[0] = "uninstall";
        refused(&s, "mem-hook", &args, &s.proj().join(named), &outside);
    }
    // the twins: a regular project file is written; the user's own
    // settings file linked from a dotfiles folder is still followed
    let s = Setup::new();
    s.git_init();
    std::fs::create_dir_all(s.proj().join(".claude")).unwrap();
    std::fs::write(
        s.proj().join(".claude/settings.json"),
        "{\"theme\": \"dark\"}\n",
    )
    .unwrap();
    let mut c = s.cmd("mem-hook");
    c.args(["install", "--project"]);
    let (out, _) = timed(c, b"", Duration::from_secs(60), "install --project");
    assert!(out.status.success(), "{}", show(&out));
    let t = std::fs::read_to_string(s.proj().join(".claude/settings.json")).unwrap();
    assert!(t.contains("UserPromptSubmit") && t.contains("dark"), "{t}");
    let dotfiles = s.root().join("dotfiles");
    std::fs::create_dir_all(&dotfiles).unwrap();
    std::fs::write(dotfiles.join("settings.json"), "{}\n").unwrap();
    symlink(
        &dotfiles.join("settings.json"),
        &s.home().join(".claude/settings.json"),
    );
    let mut c = s.cmd("mem-hook");
    c.args(["install"]);
    let (out, _) = timed(c, b"", Duration::from_secs(60), "install");
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        std::fs::read_to_string(dotfiles.join("settings.json"))
            .unwrap()
            .contains("UserPromptSubmit")
    );
}

#[test]
fn hooks_install_never_waits_on_a_fifo() {
    let cases: [(&str, &[&str]); 4] = [
        ("proj/.claude/settings.json", &["--project"]),
        ("home/.claude/settings.json", &[]),
        ("home/.codex/hooks.json", &["--codex"]),
        ("proj/.codex/hooks.json", &["--codex", "--project"]),
    ];
    for (fifo, extra) in cases {
        let s = Setup::new();
        s.git_init();
        let p = s.root().join(fifo);
        mkfifo(&p);
        for action in ["install", "uninstall", "show"] {
            let mut c = s.cmd("mem-hook");
            c.arg(action).args(extra);
            let what = format!("hooks {action} {extra:?} with a FIFO at {fifo}");
            let (out, _) = timed(c, b"", Duration::from_secs(20), &what);
            assert_eq!(out.status.code(), Some(1), "{what}: {}", show(&out));
            let err = text(&out.stderr);
            assert!(
                err.contains(fifo) && err.contains("FIFO"),
                "{what}: {}",
                show(&out)
            );
        }
    }
    // a FIFO where Codex's config.toml is read for a note: named, not waited on
    let s = Setup::new();
    mkfifo(&s.home().join(".codex/config.toml"));
    let mut c = s.cmd("mem-hook");
    c.args(["install", "--codex"]);
    let (out, _) = timed(
        c,
        b"",
        Duration::from_secs(20),
        "install --codex with a FIFO config.toml",
    );
    assert!(out.status.success(), "{}", show(&out));
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(
        all.contains("config.toml") && all.contains("FIFO"),
        "{}",
        show(&out)
    );
    assert!(
        std::fs::read_to_string(s.home().join(".codex/hooks.json"))
            .unwrap()
            .contains("mem-hook")
    );
}

fn slug(p: &Path) -> String {
    p.to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// `replay --project` over a project folder and a Codex sessions tree
/// holding a FIFO and a link to `/dev/zero` where session files belong:
/// each is skipped with a warning naming it, within a fixed time, and the
/// real session next to them is still read.
#[test]
fn replay_project_never_blocks_on_a_fifo_or_a_device() {
    let s = Setup::new();
    s.git_init();
    let proj = s.proj().canonicalize().unwrap();
    let folder = s.home().join(".claude/projects").join(slug(&proj));
    std::fs::create_dir_all(&folder).unwrap();
    let sid = "0a0b0c0d-1111-4222-8333-444455556666";
    let line = serde_json::json!({
        "type": "user", "uuid": "11111111-2222-4333-8444-000000000001", "parentUuid": null,
        "sessionId": sid, "cwd": proj, "timestamp": "2026-07-11T10:00:00Z",
        "message": {"role": "user", "content": "Never deploy on Fridays, always use pnpm."}
    });
    std::fs::write(folder.join(format!("{sid}.jsonl")), format!("{line}\n")).unwrap();
    let fifo = folder.join("1a1b1c1d-1111-4222-8333-444455556666.jsonl");
    mkfifo(&fifo);
    let zero = folder.join("2a2b2c2d-1111-4222-8333-444455556666.jsonl");
    symlink(Path::new("/dev/zero"), &zero);
    let codex = s.home().join(".codex/sessions/2026/07/11");
    let cfifo =
        codex.join("rollout-2026-07-11T10-00-00-0199a0b0-0000-7000-8000-000000000009.jsonl");
    mkfifo(&cfifo);
    let czero =
        codex.join("rollout-2026-07-11T10-00-01-0199a0b0-0000-7000-8000-00000000000a.jsonl");
    symlink(Path::new("/dev/zero"), &czero);
    for extra in [&[][..], &["--since-last"]] {
        let mut c = s.cmd("mem-transcript");
        c.args(["replay", "--project", "."]).args(extra);
        let (out, took) = timed(c, b"", Duration::from_secs(20), "replay --project");
        assert!(out.status.success(), "{}", show(&out));
        assert!(took < Duration::from_secs(5), "took {took:?}");
        let err = text(&out.stderr);
        for p in [&fifo, &zero, &cfifo, &czero] {
            assert!(
                err.contains(&p.display().to_string()),
                "{} not named\n{}",
                p.display(),
                show(&out)
            );
        }
        assert!(
            err.contains("a FIFO") && err.contains("a device"),
            "{}",
            show(&out)
        );
        assert!(err.contains("1 session read"), "{}", show(&out));
        assert!(
            text(&out.stdout).contains("Never deploy on Fridays"),
            "{}",
            show(&out)
        );
    }
}

/// The temp files (`.tmp`) anywhere below `dir`.
fn temps_under(dir: &Path) -> Vec<PathBuf> {
    mem_tests::files_under(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "tmp"))
        .collect()
}

/// The hook cut off by its time budget at many points of its work leaves
/// temp files at most until the next hook: that one removes every temp
/// file of a dead writer in the cache folder and the session's folder,
/// whether or not it writes, and keeps a live writer's.
#[test]
fn the_hook_cut_by_its_budget_leaves_no_temp_file_behind() {
    let s = Setup::new();
    s.git_init();
    for i in 0..400 {
        std::fs::write(
            s.mem().join(format!("m{i:03}.md")),
            format!("---\nname: \"Deploy rule {i}\"\ndescription: \"deploy the app with pnpm, step {i}\"\ntype: feedback\ntriggers: [\"deploy\", \"pnpm\", \"step{i}\"]\n---\nAlways deploy step {i} with pnpm.\n"),
        )
        .unwrap();
    }
    let cache = s.home().join(".cache");
    let hook = |budget_ms: Option<u64>, session: &str| {
        let mut c = s.cmd("mem-hook");
        if let Some(ms) = budget_ms {
            c.env("MEM_HOOK_BUDGET_MS", ms.to_string());
        }
        let input = serde_json::json!({"hook_event_name":"UserPromptSubmit","session_id":session,"prompt":"deploy the app with pnpm"}).to_string();
        let (out, _) = timed(c, input.as_bytes(), Duration::from_secs(30), "hook");
        assert!(out.status.success(), "{}", show(&out));
        out
    };
    let mut cut = 0;
    for (i, ms) in [1u64, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 60]
        .iter()
        .enumerate()
    {
        // a fresh cache and a new session each time: every run writes
        let _ = std::fs::remove_dir_all(&cache);
        let out = hook(Some(*ms), &format!("s{i}"));
        if text(&out.stderr).contains("past its time budget") {
            cut += 1;
        }
        // the next run (no budget pressure) leaves no temp file
        hook(None, &format!("s{i}"));
        let left = temps_under(&cache);
        assert!(left.is_empty(), "after a run cut at {ms} ms: {left:?}");
    }
    assert!(cut > 0, "no run was cut by its budget");
    // planted: a dead writer's temp files (fresh) in the cache folder and a
    // session's folder, and a live writer's; a hook that writes nothing
    // (the cache is fresh, the session has nothing new) still sweeps
    hook(None, "planted");
    hook(None, "planted");
    let cache_dir = std::fs::read_dir(cache.join("mem"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.join("sessions/planted").is_dir())
        .expect("the memory directory's cache folder");
    let dead = mem_tests::dead_pid();
    let live = mem_tests::LiveProcess::new();
    let planted = [
        cache_dir.join(format!(".mem-{dead}.aB3xYz.tmp")),
        cache_dir.join(format!("sessions/planted/.mem-{dead}.cD4wQe.tmp")),
    ];
    let kept = cache_dir.join(format!(".mem-{}.eF5rTy.tmp", live.pid()));
    for p in planted.iter().chain([&kept]) {
        std::fs::write(p, b"half a cache").unwrap();
    }
    hook(None, "planted");
    for p in &planted {
        assert!(!p.exists(), "{} left", p.display());
    }
    assert!(kept.exists(), "a live writer's temp file was removed");
}

/// Kill `c` after `after`; returns whether it was still running then.
fn kill_after(mut c: Command, after: Duration) -> bool {
    c.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = c.spawn().expect("spawn");
    std::thread::sleep(after);
    let running = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    let _ = child.wait();
    running
}

fn git_untracked(dir: &Path) -> Vec<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["status", "--porcelain", "--untracked-files=all"])
        .output()
        .unwrap();
    text(&out.stdout)
        .lines()
        .map(|l| l[3..].to_string())
        .collect()
}

/// `promote` and `demote` killed at many moments: after `check --repair`
/// (or the next promotion), each tier is whole — every memory of the cut
/// batch in the tier it was going to, each indexed, or none moved — and no
/// temp file is where git would commit it.
#[test]
fn a_killed_promote_or_demote_is_made_whole_by_repair() {
    kill_promote_and_demote(120, &[1, 3, 5], 7);
}

/// The same at twelve moments of each.
#[test]
#[ignore = "heavy tier: scripts/test.sh --heavy runs it (CI does)"]
fn a_promote_or_demote_killed_at_twelve_moments_is_made_whole() {
    let ks: Vec<u32> = (1..=12).collect();
    // within the 200 lines of an index: each memory must be listed
    kill_promote_and_demote(150, &ks, 13);
}

/// Promote and demote `n` memories, each killed at `k/parts` of a whole
/// run's time for every `k` of `ks`, then repaired and checked.
fn kill_promote_and_demote(n: usize, ks: &[u32], parts: u32) {
    let s = Setup::new();
    s.git_init();
    let ids: Vec<String> = (0..n).map(|i| format!("rule-{i:03}")).collect();
    for (i, id) in ids.iter().enumerate() {
        std::fs::write(
            s.mem().join(format!("{id}.md")),
            format!("---\nname: \"Rule {i}\"\ndescription: \"deploy step {i} with pnpm\"\ntype: feedback\n---\nRun step {i} before the deploy.\n"),
        )
        .unwrap();
    }
    let team = s.proj().join(".claude/team-memory");
    let run_ok = |args: &[&str]| {
        let mut c = s.cmd("mem-index");
        c.args(args);
        let (out, _) = timed(c, b"", Duration::from_secs(120), &args.join(" "));
        out
    };
    // the pilots: how long a whole promotion and demotion take
    let mut promote: Vec<&str> = vec!["promote"];
    promote.extend(ids.iter().map(String::as_str));
    let mut demote: Vec<&str> = vec!["demote"];
    demote.extend(ids.iter().map(String::as_str));
    let t = Instant::now();
    assert!(run_ok(&promote).status.success());
    let p_dur = t.elapsed();
    let t = Instant::now();
    let out = run_ok(&demote);
    assert!(out.status.success(), "{}", show(&out));
    let d_dur = t.elapsed();
    let indexed = |dir: &Path, id: &str| {
        std::fs::read_to_string(dir.join("MEMORY.md"))
            .is_ok_and(|t| t.contains(&format!("({id}.md)")))
    };
    let mut cut = 0;
    for &k in ks {
        // promote, killed at k/parts of its run
        let mut c = s.cmd("mem-index");
        c.args(&promote);
        cut += kill_after(c, p_dur * k / parts) as usize;
        let out = run_ok(&["check", "--tier", "team", "--repair"]);
        let in_team: Vec<bool> = ids
            .iter()
            .map(|id| team.join(format!("{id}.md")).is_file())
            .collect();
        assert!(
            in_team.iter().all(|&b| b) || in_team.iter().all(|&b| !b),
            "promote cut at {k}/{parts}: a partial team tier after repair ({} of {n})\n{}",
            in_team.iter().filter(|&&b| b).count(),
            show(&out)
        );
        for id in ids
            .iter()
            .filter(|id| team.join(format!("{id}.md")).is_file())
        {
            assert!(
                indexed(&team, id),
                "promote cut at {k}/{parts}: {id} not in the team index"
            );
        }
        let stray: Vec<String> = git_untracked(&s.proj())
            .into_iter()
            .filter(|p| p.contains(".tmp") || p.contains(".mem/"))
            .collect();
        assert!(
            stray.is_empty(),
            "promote cut at {k}/{parts}: git would commit {stray:?}"
        );
        // the whole promotion, then a demotion killed at k/7
        assert!(run_ok(&promote).status.success());
        let mut c = s.cmd("mem-index");
        c.args(&demote);
        cut += kill_after(c, d_dur * k / parts) as usize;
        let out = run_ok(&["check", "--repair"]);
        for id in &ids {
            assert!(
                s.mem().join(format!("{id}.md")).is_file(),
                "demote cut at {k}/{parts}: {id} lost"
            );
            assert!(
                indexed(&s.mem(), id),
                "demote cut at {k}/{parts}: {id} missing from the personal index\n{}",
                show(&out)
            );
        }
        let left = ids
            .iter()
            .filter(|id| team.join(format!("{id}.md")).is_file())
            .count();
        assert!(
            left == 0 || left == n,
            "demote cut at {k}/{parts}: {left} of {n} left in the team tier"
        );
        let out = run_ok(&["check", "--tier", "team"]);
        assert!(
            out.status.success(),
            "demote cut at {k}/{parts}: {}",
            show(&out)
        );
        // back to the start: nothing in the team tier
        if left == n {
            assert!(run_ok(&demote).status.success());
        }
        let out = run_ok(&["check"]);
        assert!(!text(&out.stdout).contains("not-indexed"), "{}", show(&out));
    }
    assert!(cut > 0, "no run was killed mid-way");
    assert!(temps_under(&team).is_empty() && temps_under(&s.mem()).is_empty());
}
