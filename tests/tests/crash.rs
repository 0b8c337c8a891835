//! Crash safety: kill `mem-index write`, `mem-index reindex`,
//! `mem-transcript append` and `mem-dream --force` with SIGKILL at
//! pseudo-random moments (a seeded xorshift, so every run kills at the same
//! fractions of the pilot run's duration) and check after every kill that
//! every file parses, acknowledged records are on disk, the transcript has at
//! most one torn line and the next append starts on a new line, the next run
//! completes and leaves no temp file, and the consolidation lock is
//! reclaimable; then write failures under `prlimit --fsize` and on a
//! read-only directory give a clear error and leave the old files intact.
//!
//! The heavy tier kills 6 times per writer (twice for the dream); the default
//! tier kills `reindex` twice and runs the write failures. `dev/crash.sh
//! 200` is the same check as a tool, with 200 kills per writer.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime};

use mem_tests::{Home, bin, files_under};

/// A small xorshift64 generator: the kill moments, the same on every run.
struct Rng(u64);

impl Rng {
    /// A number in `0..n` (`n` > 0).
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// `n` memory records of batch `tag` as JSONL (`mem-index write` input).
fn records(tag: &str, n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "{{\"name\":\"Crash {tag} {i}\",\"description\":\"record {i} of batch {tag}, written under kills\",\"type\":\"feedback\",\"triggers\":[\"crash-{tag}\",\"deploy\"],\"verified_at\":\"2026-07-{:02}\",\"fact\":\"Run the check before deploy {i} of batch {tag}.\",\"why\":\"batch {tag}\",\"how\":\"Run it.\"}}\n",
                i % 28 + 1
            )
        })
        .collect()
}

/// One `mem-transcript append` input entry.
fn entry(id: &str, text: &str) -> String {
    format!(
        "{{\"type\":\"user\",\"uuid\":\"a{id}\",\"parentUuid\":null,\"isSidechain\":false,\"sessionId\":\"app\",\"timestamp\":\"2026-07-11T11:00:00Z\",\"message\":{{\"role\":\"user\",\"content\":\"appended entry {id} {text}\"}}}}\n"
    )
}

/// Every file under `dir` but `.mem/` with its content, sorted by path.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = mem_tests::snapshot(dir);
    files.retain(|(p, _)| !p.starts_with(dir.join(".mem")));
    files
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// One crash run: a throwaway home with a memory directory and transcripts.
struct Crash {
    home: Home,
    m: PathBuf,
    t: PathBuf,
    rng: Rng,
    summary: Vec<String>,
}

impl Crash {
    fn new() -> Crash {
        let home = Home::new();
        let m = home.path().join("memory");
        let t = home.path().join("transcripts");
        fs::create_dir_all(home.home()).expect("home");
        fs::create_dir_all(&m).expect("memory dir");
        fs::create_dir_all(&t).expect("transcripts dir");
        Crash {
            home,
            m,
            t,
            rng: Rng(0x9e37_79b9_7f4a_7c15),
            summary: Vec::new(),
        }
    }

    fn w(&self, name: &str) -> PathBuf {
        self.home.path().join(name)
    }

    fn cmd(&self, tool: &str, args: &[&str]) -> Command {
        let mut c = self.home.command(bin(tool));
        c.args(args);
        c
    }

    fn run(&self, tool: &str, args: &[&str], stdin: Option<&Path>) -> Output {
        let mut c = self.cmd(tool, args);
        c.stdin(match stdin {
            Some(f) => Stdio::from(fs::File::open(f).expect("open stdin file")),
            None => Stdio::null(),
        });
        c.output().expect("spawn")
    }

    fn md(&self) -> String {
        self.m.display().to_string()
    }

    /// A Claude Code transcript with `n` exchanges in `f`.
    fn transcript(&self, f: &Path, n: usize) {
        let cwd = self.w("proj").display().to_string();
        let mut s = String::new();
        let mut parent = "null".to_string();
        for i in 1..=n {
            s.push_str(&format!(
                "{{\"type\":\"user\",\"uuid\":\"u{i}\",\"parentUuid\":{parent},\"isSidechain\":false,\"sessionId\":\"s{}\",\"cwd\":\"{cwd}\",\"entrypoint\":\"cli\",\"timestamp\":\"2026-07-11T10:{:02}:{:02}Z\",\"message\":{{\"role\":\"user\",\"content\":\"Never run the deploy twice in a row ({i}). Always run make check before make deploy because the fixtures are generated.\"}}}}\n",
                f.display(),
                i / 60 % 60,
                i % 60
            ));
            parent = format!("\"u{i}\"");
        }
        fs::write(f, s).expect("write transcript");
    }

    /// A fresh memory directory with `n` records, and 6 transcripts.
    fn populate(&self, n: usize) {
        let _ = fs::remove_dir_all(&self.m);
        fs::create_dir_all(&self.m).expect("memory dir");
        let batch = self.w("populate.jsonl");
        fs::write(&batch, records("base", n)).expect("write batch");
        let md = self.md();
        let out = self.run(
            "mem-index",
            &["write", "--max-files", "0", "--memory-dir", &md],
            Some(&batch),
        );
        assert!(out.status.success(), "populate: {}", text(&out.stderr));
        for i in 1..=6 {
            self.transcript(&self.t.join(format!("s{i}.jsonl")), 40);
        }
    }

    /// Every topic file and MEMORY.md parses; `mem-index list` succeeds.
    fn check_memdir(&self, ctx: &str) {
        let md = self.md();
        let out = self.run(
            "mem-index",
            &[
                "check",
                "--max-files",
                "0",
                "--format",
                "jsonl",
                "--memory-dir",
                &md,
            ],
            None,
        );
        let all = text(&out.stdout) + &text(&out.stderr);
        let parse: Vec<&str> = all
            .lines()
            .filter(|l| l.contains("\"code\":\"parse\""))
            .take(3)
            .collect();
        assert!(parse.is_empty(), "{ctx}: a file does not parse: {parse:?}");
        let out = self.run(
            "mem-index",
            &["list", "--format", "jsonl", "--memory-dir", &md],
            None,
        );
        assert!(
            out.status.success(),
            "{ctx}: mem-index list failed: {}",
            text(&out.stderr)
        );
        if let Ok(index) = fs::read(self.m.join("MEMORY.md")) {
            let index = text(&index);
            let odd: Vec<&str> = index
                .lines()
                .filter(|l| !(l.is_empty() || l.starts_with("- [") || l.starts_with("WARNING")))
                .take(2)
                .collect();
            assert!(
                odd.is_empty(),
                "{ctx}: MEMORY.md has a line that is not an entry: {odd:?}"
            );
        }
    }

    /// Every record acknowledged on `stdout` (a complete JSONL line) names a
    /// file that exists (for a duplicate: the file already holding the fact).
    fn check_acked(&self, stdout: &str, ctx: &str) {
        for line in stdout.lines().filter(|l| l.ends_with('}')) {
            let Some(at) = line.find("\"path\":\"") else {
                continue;
            };
            let rest = &line[at + 8..];
            let path = &rest[..rest.find('"').unwrap_or(rest.len())];
            assert!(
                Path::new(path).is_file(),
                "{ctx}: acknowledged record's file {path} is missing"
            );
        }
    }

    /// No `.mem-*.tmp` or `.consolidate-lock.*.tmp` is left.
    fn check_no_temp(&self, ctx: &str) {
        let left: Vec<PathBuf> = files_under(&self.m)
            .into_iter()
            .filter(|p| {
                let n = p.file_name().unwrap_or_default().to_string_lossy();
                n.ends_with(".tmp")
                    && (n.starts_with(".mem-") || n.starts_with(".consolidate-lock."))
            })
            .take(5)
            .collect();
        assert!(
            left.is_empty(),
            "{ctx}: temp files remain after the next run: {left:?}"
        );
    }

    /// The consolidation lock can be acquired and released.
    fn check_lock(&self, ctx: &str) {
        let lock = self.m.join(".consolidate-lock").display().to_string();
        let out = self.run("mem-lock", &["acquire", &lock], None);
        assert!(
            out.status.success(),
            "{ctx}: the consolidation lock is not reclaimable: {}",
            text(&out.stderr)
        );
        let out = self.run("mem-lock", &["release", &lock], None);
        assert!(out.status.success(), "{ctx}: mem-lock release failed");
    }

    /// The duration of one run in ms (a pilot run, to pick kill moments).
    fn duration_ms(&self, tool: &str, args: &[&str], stdin: Option<&Path>) -> u64 {
        let t0 = Instant::now();
        let _ = self.run(tool, args, stdin);
        t0.elapsed().as_millis() as u64 + 1
    }

    /// Start the tool (stdout to a file), SIGKILL it at a pseudo-random
    /// moment within 1.2 x `dur` ms; whether it was still running, and what
    /// it printed on stdout.
    fn kill_at_random(
        &mut self,
        dur: u64,
        tool: &str,
        args: &[&str],
        stdin: Option<&Path>,
    ) -> (bool, String) {
        let delay = self.rng.below(dur * 12 / 10 + 1);
        let out = self.w("out");
        let mut c = self.cmd(tool, args);
        c.stdin(match stdin {
            Some(f) => Stdio::from(fs::File::open(f).expect("open stdin file")),
            None => Stdio::null(),
        })
        .stdout(fs::File::create(&out).expect("create out"))
        .stderr(Stdio::null());
        let mut child = c.spawn().expect("spawn");
        std::thread::sleep(Duration::from_millis(delay));
        let killed = match child.try_wait().expect("try_wait") {
            Some(_) => false,
            None => child.kill().is_ok(),
        };
        let _ = child.wait();
        (killed, text(&fs::read(&out).expect("read out")))
    }

    fn crash_write(&mut self, kills: usize) {
        self.populate(150);
        let batch = self.w("batch.jsonl");
        let b = batch.display().to_string();
        let md = self.md();
        let args = [
            "write",
            "--line-buffered",
            "--format",
            "jsonl",
            "--max-files",
            "0",
            "--memory-dir",
            &md,
            &b,
        ];
        fs::write(&batch, records("pilot", 200)).expect("write batch");
        let dur = self.duration_ms("mem-index", &args, None);
        let (mut killed, mut acked) = (0, 0);
        for k in 0..kills {
            let ctx = format!("write kill {k}");
            fs::write(&batch, records(&format!("k{k}"), 200)).expect("write batch");
            let (was, out) = self.kill_at_random(dur, "mem-index", &args, None);
            killed += usize::from(was);
            acked += out.lines().filter(|l| l.contains("\"id\"")).count();
            self.check_memdir(&ctx);
            self.check_acked(&out, &ctx);
            let again = self.run("mem-index", &args, None);
            assert!(
                again.status.success(),
                "{ctx}: the next run failed: {}",
                text(&again.stderr)
            );
            let ids = text(&again.stdout)
                .lines()
                .filter(|l| l.contains("\"id\""))
                .count();
            assert!(ids >= 200, "{ctx}: the next run did not write the batch");
            self.check_no_temp(&ctx);
            self.check_memdir(&format!("{ctx} (after rerun)"));
            self.check_lock(&ctx);
            // back to the populated baseline, so every kill meets the same directory
            let prefix = format!("crash-k{k}-");
            for e in fs::read_dir(&self.m).expect("read memory dir").flatten() {
                let n = e.file_name().to_string_lossy().into_owned();
                if n.starts_with(&prefix) && n.ends_with(".md") {
                    fs::remove_file(e.path()).expect("remove");
                }
            }
        }
        self.summary.push(format!("write: {kills} runs, {killed} killed mid-run (pilot {dur} ms), {acked} records acknowledged before a kill, all on disk"));
    }

    fn crash_reindex(&mut self, kills: usize) {
        self.populate(150);
        let md = self.md();
        let args = ["reindex", "--memory-dir", &md];
        let dur = self.duration_ms("mem-index", &args, None);
        let mut killed = 0;
        for k in 0..kills {
            let ctx = format!("reindex kill {k}");
            let index = self.m.join("MEMORY.md");
            let _ = fs::remove_file(&index);
            if k % 2 == 0 {
                fs::write(&index, format!("- [Stale](stale.md) - stale entry {k}\n"))
                    .expect("write MEMORY.md");
            }
            let (was, _) = self.kill_at_random(dur, "mem-index", &args, None);
            killed += usize::from(was);
            self.check_memdir(&ctx);
            let again = self.run("mem-index", &args, None);
            assert!(
                again.status.success(),
                "{ctx}: the next run failed: {}",
                text(&again.stderr)
            );
            self.check_no_temp(&ctx);
            self.check_lock(&ctx);
        }
        self.summary.push(format!(
            "reindex: {kills} runs, {killed} killed mid-run (pilot {dur} ms)"
        ));
    }

    fn crash_dream(&mut self, kills: usize) {
        self.populate(40);
        let (md, td) = (self.md(), self.t.display().to_string());
        let args = [
            "--force",
            "--now",
            "2026-07-13T12:00:00Z",
            "--transcripts",
            &td,
            "--max-files",
            "0",
            "--memory-dir",
            &md,
        ];
        let mut dur = self.duration_ms("mem-dream", &args, None);
        let pilot = dur;
        let mut killed = 0;
        let fresh = self.w("fresh.jsonl");
        for k in 0..kills {
            let ctx = format!("dream kill {k}");
            // fresh material for every run: new duplicates and a new session
            fs::write(&fresh, records(&format!("d{}", k % 7), 20)).expect("write batch");
            let _ = self.run(
                "mem-index",
                &["write", "--max-files", "0", "--memory-dir", &md],
                Some(&fresh),
            );
            for e in fs::read_dir(&self.t).expect("read transcripts").flatten() {
                fs::File::options()
                    .write(true)
                    .open(e.path())
                    .and_then(|f| f.set_modified(SystemTime::now()))
                    .expect("touch transcript");
            }
            let (was, _) = self.kill_at_random(dur, "mem-dream", &args, None);
            killed += usize::from(was);
            self.check_memdir(&ctx);
            self.check_lock(&format!("{ctx} (before the next run)"));
            let t0 = Instant::now();
            let again = self.run("mem-dream", &args, None);
            assert!(
                again.status.success(),
                "{ctx}: the next run failed ({:?}): {}",
                again.status,
                text(&again.stderr)
            );
            // aim the next kill within a run like this one
            dur = t0.elapsed().as_millis() as u64 + 1;
            self.check_no_temp(&ctx);
            self.check_memdir(&format!("{ctx} (after rerun)"));
            self.check_lock(&ctx);
            let _ = self.run("mem-dream", &["undo", "--memory-dir", &md], None);
            self.check_memdir(&format!("{ctx} (after undo)"));
        }
        self.summary.push(format!(
            "dream: {kills} runs, {killed} killed mid-run (pilot {pilot} ms)"
        ));
    }

    fn crash_append(&mut self, kills: usize) {
        let f = self.w("append.jsonl");
        let fp = f.display().to_string();
        self.transcript(&f, 20);
        let entries = self.w("entries.jsonl");
        let pad = "x".repeat(200);
        let all: String = (0..20000).map(|i| entry(&i.to_string(), &pad)).collect();
        fs::write(&entries, all).expect("write entries");
        let dur = self.duration_ms("mem-transcript", &["append", &fp], Some(&entries));
        let (mut killed, mut torn) = (0, 0);
        let next = self.w("next.jsonl");
        for k in 0..kills {
            let ctx = format!("append kill {k}");
            let (was, _) =
                self.kill_at_random(dur, "mem-transcript", &["append", &fp], Some(&entries));
            killed += usize::from(was);
            let verify = self.run("mem-transcript", &["verify", &fp], None);
            let err = text(&verify.stderr);
            let bad: Vec<&str> = err
                .lines()
                .filter(|l| {
                    l.split("append.jsonl:").skip(1).any(|r| {
                        let d = r.bytes().take_while(u8::is_ascii_digit).count();
                        r[d..].starts_with(':')
                    })
                })
                .collect();
            assert!(
                bad.len() <= 1,
                "{ctx}: {} bad lines (at most one torn line allowed): {:?}",
                bad.len(),
                &bad[..3.min(bad.len())]
            );
            torn += bad.len();
            let replay = self.run("mem-transcript", &["replay", &fp], None);
            assert!(replay.status.success(), "{ctx}: replay failed");
            fs::write(&next, entry(&format!("next{k}"), "y")).expect("write entry");
            let again = self.run("mem-transcript", &["append", &fp], Some(&next));
            assert!(
                again.status.success(),
                "{ctx}: the next append failed: {}",
                text(&again.stderr)
            );
            let body = text(&fs::read(&f).expect("read transcript"));
            let last = body.lines().last().unwrap_or("");
            assert!(
                last.starts_with(&format!("{{\"type\":\"user\",\"uuid\":\"anext{k}\"")),
                "{ctx}: the next append did not start on its own line: {}",
                &body[body.len().saturating_sub(300)..]
            );
            // keep the file from growing without bound
            if fs::metadata(&f).expect("stat").len() > 20_000_000 {
                self.transcript(&f, 20);
            }
        }
        self.summary.push(format!("append: {kills} runs, {killed} killed mid-run (pilot {dur} ms), {torn} kills left a torn line (each healed by the next append)"));
    }

    /// Writes under `prlimit --fsize` and on a read-only directory fail with
    /// a clear error and leave the old files intact.
    fn write_failures(&mut self) {
        self.populate(150);
        let md = self.md();
        let out = self.run("mem-index", &["reindex", "--memory-dir", &md], None);
        assert!(out.status.success(), "reindex: {}", text(&out.stderr));
        let before = snapshot(&self.m);
        self.fsize(&before);
        self.read_only(&before);
    }

    fn fsize(&mut self, before: &[(PathBuf, Vec<u8>)]) {
        if Command::new("prlimit").arg("--version").output().is_err() {
            eprintln!("SKIPPED crash_fsize: prlimit is not installed");
            println!("SKIPPED crash_fsize: prlimit is not installed");
            self.summary
                .push("fsize: prlimit is not installed (skipped)".into());
            return;
        }
        let md = self.md();
        let mut last_err = String::new();
        for (input, tag, n, pad) in [("big", "big", 50, 'y'), ("rewrite", "base", 150, 'z')] {
            let fill = pad.to_string().repeat(3000);
            let body = records(tag, n).replace("\"fact\":\"", &format!("\"fact\":\"{fill}"));
            let file = self.w(&format!("{input}.jsonl"));
            fs::write(&file, body).expect("write batch");
            let mut c = self.home.command("prlimit");
            c.arg("--fsize=2048")
                .arg(bin("mem-index"))
                .args(["write", "--max-files", "0", "--memory-dir", &md])
                .arg(&file)
                .stdin(Stdio::null());
            let out = c.output().expect("spawn prlimit");
            let err = text(&out.stderr);
            assert!(
                !out.status.success(),
                "write under --fsize=2048 ({input}) succeeded"
            );
            assert!(
                err.to_lowercase().contains("too large"),
                "write under --fsize ({input}): unclear error: {err}"
            );
            last_err = err;
        }
        // the index is smaller than the limit: success is fine
        let _ = self
            .home
            .command("prlimit")
            .arg("--fsize=2048")
            .arg(bin("mem-index"))
            .args(["reindex", "--memory-dir", &md])
            .stdin(Stdio::null())
            .output();
        assert!(
            snapshot(&self.m) == before,
            "write under --fsize changed old files"
        );
        self.check_no_temp("fsize");
        let head: String = last_err.chars().take(160).collect();
        self.summary.push(format!(
            "fsize: write (new and rewritten topics) under prlimit --fsize=2048 fails with: {}",
            head.replace('\n', " ")
        ));
    }

    fn read_only(&mut self, before: &[(PathBuf, Vec<u8>)]) {
        let Some(ro) = ReadOnly::new(&self.m, &self.w("ro")) else {
            eprintln!(
                "SKIPPED crash_read_only: neither a read-only bind mount nor chattr +i is available here"
            );
            println!("SKIPPED crash_read_only: no read-only bind mount nor chattr +i");
            self.summary.push("read-only: neither a read-only bind mount nor chattr +i is available here (skipped)".into());
            return;
        };
        let rd = ro.dir.display().to_string();
        let td = self.t.display().to_string();
        let batch = self.w("ro.jsonl");
        fs::write(&batch, records("ro", 3)).expect("write batch");
        let b = batch.display().to_string();
        let write = self.run(
            "mem-index",
            &["write", "--max-files", "0", "--memory-dir", &rd, &b],
            None,
        );
        let reindex = self.run("mem-index", &["reindex", "--memory-dir", &rd], None);
        let dream = self.run(
            "mem-dream",
            &[
                "--force",
                "--now",
                "2026-07-13T12:00:00Z",
                "--transcripts",
                &td,
                "--memory-dir",
                &rd,
            ],
            None,
        );
        let how = ro.how;
        drop(ro);
        let err = text(&write.stderr);
        assert!(
            !write.status.success(),
            "write on a read-only dir ({how}) succeeded"
        );
        let low = err.to_lowercase();
        assert!(
            low.contains("read-only")
                || low.contains("permission")
                || low.contains("not permitted"),
            "write on a read-only dir: unclear error: {err}"
        );
        assert!(
            snapshot(&self.m) == before,
            "write on a read-only dir changed old files"
        );
        let head = |s: &str, n: usize| s.chars().take(n).collect::<String>().replace('\n', " ");
        self.summary.push(format!(
            "read-only ({how}): write exit {:?}: {}; reindex exit {:?}; dream --force exit {:?}: {}",
            write.status.code(),
            head(&err, 200),
            reindex.status.code(),
            dream.status.code(),
            head(&text(&dream.stderr), 160)
        ));
    }
}

/// The memory directory made read-only (a read-only bind mount when we may
/// mount, else `chattr +i`), undone when dropped.
struct ReadOnly {
    dir: PathBuf,
    how: &'static str,
    mount: Option<PathBuf>,
    immutable: Option<PathBuf>,
}

impl ReadOnly {
    fn new(m: &Path, mnt: &Path) -> Option<ReadOnly> {
        let ok = |c: &mut Command| {
            c.stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        fs::create_dir_all(mnt).expect("mount point");
        if ok(Command::new("mount").arg("--bind").arg(m).arg(mnt)) {
            if ok(Command::new("mount")
                .args(["-o", "remount,bind,ro"])
                .arg(mnt))
            {
                return Some(ReadOnly {
                    dir: mnt.to_path_buf(),
                    how: "read-only bind mount",
                    mount: Some(mnt.to_path_buf()),
                    immutable: None,
                });
            }
            ok(Command::new("umount").arg(mnt));
        }
        if ok(Command::new("chattr").arg("+i").arg(m)) {
            return Some(ReadOnly {
                dir: m.to_path_buf(),
                how: "chattr +i",
                mount: None,
                immutable: Some(m.to_path_buf()),
            });
        }
        None
    }
}

impl Drop for ReadOnly {
    fn drop(&mut self) {
        if let Some(p) = &self.mount {
            let _ = Command::new("umount").arg(p).status();
        }
        if let Some(p) = &self.immutable {
            let _ = Command::new("chattr").arg("-i").arg(p).status();
        }
    }
}

/// Run the kills for each `(tool, kills)`, then the write failures; print
/// the summary.
fn crash(tools: &[(&str, usize)]) {
    let mut c = Crash::new();
    for &(tool, kills) in tools {
        match tool {
            "write" => c.crash_write(kills),
            "reindex" => c.crash_reindex(kills),
            "dream" => c.crash_dream(kills),
            "append" => c.crash_append(kills),
            _ => panic!("unknown tool {tool}"),
        }
    }
    c.write_failures();
    for s in &c.summary {
        println!("{s}");
    }
}

#[test]
fn reindex_survives_sigkill_and_write_failures() {
    crash(&[("reindex", 2)]);
}

#[test]
#[ignore = "heavy tier: scripts/test.sh --heavy runs it (CI does)"]
fn writers_survive_sigkill_and_write_failures() {
    crash(&[("write", 6), ("reindex", 6), ("append", 6)]);
}

#[test]
#[ignore = "heavy tier: scripts/test.sh --heavy runs it (CI does)"]
fn dream_survives_sigkill() {
    crash(&[("dream", 2)]);
}
