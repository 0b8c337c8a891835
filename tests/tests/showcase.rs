//! The showcase end to end (what `scripts/showcase.sh` shows a person): the
//! real binaries on transcripts written in Claude Code's format, in five
//! phases, on a tiny project whose verification needs a generated,
//! git-ignored fixture that only its setup command creates.
//!
//! 1. two runs without memory each fail the verification; their sessions
//!    are written as transcripts (the second with a dated note);
//! 2. the pipeline (`mem-transcript replay | mem-extract | mem-index write`)
//!    writes the lesson and the one-time-state note;
//! 3. a fresh run recalls before acting, follows the lesson, and passes;
//! 4. past the note's expiry the note is evicted and the lesson stays;
//! 5. a run with the memory on disk that skips recall fails again.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mem_tests::{cmd, run, show};
use serde_json::{Value, json};

/// The scratch world: the project template, the sessions, the memory dir.
struct Showcase {
    _tmp: tempfile::TempDir,
    work: PathBuf,
}

/// How an agent run goes: without memory, recalling first, or with the
/// memory on disk but recall skipped.
#[derive(PartialEq)]
enum Mode {
    NoMemory,
    Recall,
    SkipRecall,
}

impl Showcase {
    fn new() -> Showcase {
        let tmp = tempfile::tempdir().unwrap();
        let work = tmp.path().canonicalize().unwrap();
        let t = work.join("template");
        std::fs::create_dir_all(&t).unwrap();
        std::fs::write(
            t.join("setup.sh"),
            "mkdir -p data && echo '{\"token\":\"fixture\"}' > data/fixture.json && echo \"setup: wrote data/fixture.json\"\n",
        )
        .unwrap();
        std::fs::write(
            t.join("build-token.sh"),
            "if [ ! -f data/fixture.json ]; then\n  echo \"error: data/fixture.json not found (it is generated and git-ignored)\" >&2\n  exit 1\nfi\necho \"build-token: ok\"\n",
        )
        .unwrap();
        std::fs::write(t.join(".gitignore"), "data/\n").unwrap();
        std::fs::create_dir_all(work.join("sessions")).unwrap();
        Showcase { _tmp: tmp, work }
    }

    fn memdir(&self) -> PathBuf {
        self.work.join("memory")
    }

    /// A mem tool in this world's home, `args`, `stdin`.
    fn mem(&self, tool: &str, args: &[&str], stdin: &[u8]) -> Output {
        let mut c = cmd(tool, &self.work);
        c.args(args);
        run(c, stdin)
    }

    /// `mem-recall` for the verification task on `day`.
    fn recall(&self, day: &str, extra: &[&str]) -> Output {
        let m = self.memdir();
        let mut args = vec![
            "--memory-dir",
            m.to_str().unwrap(),
            "--task",
            "run the build-token verification",
            "--today",
            day,
            "--no-cache",
        ];
        args.extend_from_slice(extra);
        let o = self.mem("mem-recall", &args, b"");
        assert!(o.status.success(), "{}", show(&o));
        o
    }

    /// One agent run: returns (passed, the verification's first output line
    /// or `ok`, the command it ran first). Writes the session transcript.
    fn run_agent(&self, n: u32, mode: Mode, day: &str, note: Option<&str>) -> (bool, String) {
        let proj = self.work.join(format!("run{n}"));
        mem_tests::copy_dir(&self.work.join("template"), &proj);
        let sid = format!("0000000{n}-0000-4000-8000-00000000000{n}");
        let file = self.work.join(format!("sessions/{sid}.jsonl"));
        let mut t = Transcript {
            file: &file,
            sid: &sid,
            cwd: &proj,
            n,
            u: 0,
            prev: None,
            show: self,
        };
        let at = |s: u32| format!("{day}T09:00:0{s}Z");
        t.entry(
            "user",
            &at(0),
            json!({"role":"user","content":"Run the build-token verification."}),
        );
        let mut followed = None;
        if mode == Mode::Recall {
            let md = self.recall(day, &["--format", "markdown"]);
            let md = String::from_utf8_lossy(&md.stdout).to_string();
            followed = md
                .split("Run `")
                .nth(1)
                .and_then(|r| r.split_once("` before"))
                .map(|(c, _)| c.to_string());
            assert!(followed.is_some(), "no lesson to follow in:\n{md}");
        }
        if let Some(c) = &followed {
            sh(&proj, c);
        }
        let (ok, out) = sh(&proj, "sh build-token.sh");
        let tool = format!("toolu_run{n}_verify");
        t.call(&at(1), &at(2), &tool, "sh build-token.sh", &out, !ok);
        if !ok && mode == Mode::NoMemory {
            // The session goes on: the agent finds the fix by trial.
            let (_, o2) = sh(&proj, "sh setup.sh");
            t.call(
                &at(3),
                &at(4),
                &format!("toolu_run{n}_setup"),
                "sh setup.sh",
                &o2,
                false,
            );
            let (_, o3) = sh(&proj, "sh build-token.sh");
            let again = format!("toolu_run{n}_again");
            t.call(&at(5), &at(6), &again, "sh build-token.sh", &o3, false);
        }
        if let Some(note) = note {
            t.entry("user", &at(7), json!({"role":"user","content":note}));
        }
        (ok, out.lines().next().unwrap_or_default().to_string())
    }
}

/// Run `command` with `sh -c` in `dir`: (exit 0, stdout and stderr).
fn sh(dir: &Path, command: &str) -> (bool, String) {
    let o = Command::new("sh")
        .args(["-c", command])
        .current_dir(dir)
        .output()
        .unwrap();
    let mut text = String::from_utf8_lossy(&o.stdout).to_string();
    text.push_str(&String::from_utf8_lossy(&o.stderr));
    (o.status.success(), text.trim_end().to_string())
}

/// A session transcript written entry by entry with `mem-transcript append`.
struct Transcript<'a> {
    file: &'a Path,
    sid: &'a str,
    cwd: &'a Path,
    n: u32,
    u: u32,
    prev: Option<String>,
    show: &'a Showcase,
}

impl Transcript<'_> {
    fn entry(&mut self, ty: &str, ts: &str, message: Value) {
        self.u += 1;
        let uuid = format!("1111111{}-1111-4111-8111-0000000000{:02}", self.n, self.u);
        let e = json!({
            "parentUuid": self.prev, "isSidechain": false, "userType": "external",
            "cwd": self.cwd, "sessionId": self.sid, "version": "2.1.39", "type": ty,
            "uuid": uuid, "timestamp": ts, "message": message,
        });
        let o = self.show.mem(
            "mem-transcript",
            &["append", self.file.to_str().unwrap()],
            (e.to_string() + "\n").as_bytes(),
        );
        assert!(o.status.success(), "{}", show(&o));
        self.prev = Some(uuid);
    }

    /// A Bash call and its result.
    fn call(&mut self, at: &str, at2: &str, id: &str, command: &str, out: &str, is_error: bool) {
        let msg = format!("msg_{}_{}", self.n, self.u + 1);
        self.entry(
            "assistant",
            at,
            json!({"id": msg, "role": "assistant", "content": [
                {"type": "tool_use", "id": id, "name": "Bash", "input": {"command": command}}]}),
        );
        self.entry(
            "user",
            at2,
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": id, "content": out, "is_error": is_error}]}),
        );
    }
}

fn lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn showcase_five_phases() {
    let s = Showcase::new();
    let mem = s.memdir();
    let m = mem.to_str().unwrap();

    // 1. Two runs without memory fail the same way.
    for (n, note) in [
        (1, None),
        (
            2,
            Some(
                "Heads up: the package mirror is slow until 2026-07-12, so the setup before the build-token verification may take a few minutes.",
            ),
        ),
    ] {
        let (ok, first) = s.run_agent(n, Mode::NoMemory, "2026-07-11", note);
        assert!(!ok, "run {n} passed without memory");
        assert!(
            first.starts_with("error: data/fixture.json not found"),
            "{first}"
        );
    }

    // 2. The pipeline writes the lesson and the dated note.
    let run1 = s.work.join("run1");
    for e in std::fs::read_dir(s.work.join("sessions")).unwrap() {
        let f = e.unwrap().path();
        let o = s.mem("mem-transcript", &["replay", f.to_str().unwrap()], b"");
        assert!(o.status.success(), "{}", show(&o));
        let x = s.mem("mem-extract", &["--cwd", run1.to_str().unwrap()], &o.stdout);
        assert!(x.status.success(), "{}", show(&x));
        let w = s.mem("mem-index", &["write", "--memory-dir", m], &x.stdout);
        assert!(w.status.success(), "{}", show(&w));
    }
    let list = s.mem(
        "mem-index",
        &["list", "--memory-dir", m, "--format", "jsonl"],
        b"",
    );
    let kinds: Vec<String> = lines(&list)
        .iter()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["kind"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .collect();
    assert!(kinds.iter().any(|k| k == "durable-lesson"), "{kinds:?}");
    assert!(kinds.iter().any(|k| k == "one-time-state"), "{kinds:?}");
    let files: Vec<String> = mem_tests::files_under(&mem)
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_default())
        .collect();
    let lesson = files
        .iter()
        .find(|t| t.contains("kind: durable-lesson"))
        .expect("a lesson topic file");
    assert!(
        lesson.contains("Run `sh setup.sh` before `sh build-token.sh`"),
        "{lesson}"
    );
    // the description states the lesson first, then what taught it
    assert!(
        lesson.contains(
            "description: \"Run sh setup.sh before sh build-token.sh: sh build-token.sh failed until sh setup.sh ran\""
        ),
        "{lesson}"
    );
    let note = files
        .iter()
        .find(|t| t.contains("one-time-state"))
        .expect("a one-time-state topic file");
    assert!(note.contains("expires: 2026-07-12"), "{note}");

    // 3. Recall before acting, follow the lesson, pass.
    let p3 = lines(&s.recall("2026-07-11", &["--format", "text"]));
    assert!(
        p3.iter()
            .any(|l| l.starts_with("RECALL ") && l.ends_with("[durable-lesson]")),
        "{p3:?}"
    );
    // the note bears on the task (the setup before the verification)
    assert!(
        p3.iter()
            .any(|l| l.starts_with("RECALL ") && l.ends_with("[one-time-state]")),
        "{p3:?}"
    );
    assert!(
        p3.iter().any(|l| l == "summary: 2 recalled, 0 evicted"),
        "{p3:?}"
    );
    let (ok, first) = s.run_agent(3, Mode::Recall, "2026-07-11", None);
    assert!(ok, "run 3 failed after recall: {first}");

    // 4. Past the expiry: the note is evicted, the lesson stays.
    // The task bears on the note: EVICT without --all.
    let p4 = lines(&s.recall("2026-07-13", &["--format", "text"]));
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
    let (ok, first) = s.run_agent(4, Mode::Recall, "2026-07-13", None);
    assert!(ok, "run 4 failed after recall: {first}");

    // 5. Memory on disk but recall skipped: fails again.
    let (ok, first) = s.run_agent(5, Mode::SkipRecall, "2026-07-13", None);
    assert!(!ok, "run 5 passed without recall");
    assert!(
        first.starts_with("error: data/fixture.json not found"),
        "{first}"
    );
}

/// `scripts/showcase.sh` itself, without flags, on the built binaries: it
/// prints the lines its walk-through (the script's header) promises.
#[test]
fn showcase_script_prints_its_walk_through() {
    let home = mem_tests::Home::new();
    let script = mem_tests::workspace_root().join("scripts/showcase.sh");
    let bins = mem_tests::bin("mem-recall");
    let mut c = home.command("bash");
    c.arg(&script)
        .env("MEM_BIN_DIR", bins.parent().unwrap())
        .env("PATH", std::env::var_os("PATH").unwrap_or_default());
    let o = run(c, b"");
    assert!(o.status.success(), "{}", show(&o));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let phase = |n: u32| -> Vec<&str> {
        let head = format!("== phase {n}:");
        out.lines()
            .skip_while(|l| !l.starts_with(&head))
            .skip(1)
            .take_while(|l| !l.starts_with("== phase"))
            .collect()
    };
    let p1 = phase(1);
    assert_eq!(
        p1.iter().filter(|l| **l == "result: exit=1").count(),
        2,
        "{out}"
    );
    assert_eq!(
        p1.iter()
            .filter(|l| l.starts_with("FAIL run ")
                && l.contains("exit=1: error: data/fixture.json not found"))
            .count(),
        2,
        "{out}"
    );
    let p2 = phase(2);
    assert!(
        p2.contains(
            &"  memory run-sh-setup-sh-before-sh-build-token-sh [durable-lesson]: Run sh setup.sh before sh build-token.sh: sh build-token.sh failed until sh setup.sh ran"
        ),
        "{out}"
    );
    let p3 = phase(3);
    assert!(p3.contains(&"summary: 2 recalled, 0 evicted"), "{out}");
    assert!(
        p3.contains(&"PASS run 3 (recall, ran `sh setup.sh` first): sh build-token.sh exit=0"),
        "{out}"
    );
    assert!(p3.contains(&"result: exit=0"), "{out}");
    let p4 = phase(4);
    assert!(
        p4.contains(&"EVICT  the-package-mirror-is-slow-until-2026-07 — expired (expires 2026-07-12 < 2026-07-13), not injected"),
        "{out}"
    );
    assert!(p4.contains(&"summary: 1 recalled, 1 evicted"), "{out}");
    assert!(p4.contains(&"result: exit=0"), "{out}");
    let p5 = phase(5);
    assert!(p5.contains(&"result: exit=1"), "{out}");
}
