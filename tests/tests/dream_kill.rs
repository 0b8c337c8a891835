//! Consolidation and `mem-index write` batches survive a kill at any step
//! (docs/consolidation.md "Journal and recovery").
//!
//! A directory of 168 memories (mem's own: they carry `kind`) is built with every kind of change planned:
//! merges (the same fact worded differently), supersessions (the opposite
//! instruction, newer), expiries, contaminated memories, and redactions
//! (secrets in bodies). A reference run of `mem-dream` says how many
//! file-system steps a run takes; then 30 runs are aborted at a step drawn
//! from a fixed seed (`MEM_TEST_CRASH_AT`: the process aborts there as
//! `kill -9` would leave it), and 4 more are killed with a real SIGKILL after
//! a seeded delay. After each kill, ONE recovery run — in turn `mem-dream`,
//! `mem-index check --repair`, `mem-index write` and `mem-dream undo` — must
//! leave: no memory lost, none both live and retired, the index consistent
//! with the files, no secret in the journal, no temp file; and a full
//! `mem-dream` after it (every third kill) gives the reference result.

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mem_tests::{cmd, run, show};

const TODAY: &str = "2026-07-15";
const NOW: &str = "2026-07-15T12:00:00Z";
/// Secrets planted in memory bodies; none may ever reach the journal.
const SECRETS: [&str; 3] = [
    "Hunter2SecretPw",
    "AKIAQWERTYUIOPASDFGH",
    "ghp_Zx81kq0PmW4nB7tY2vLsQQa8f3K29xPq0Lm7",
];

/// A small deterministic generator (64-bit LCG, Knuth's constants).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn topic(dir: &Path, id: &str, desc: &str, body: &str, day: u32, trigger: &str, extra: &str) {
    std::fs::write(
        dir.join(format!("{id}.md")),
        format!(
            "---\nname: \"{id}\"\ndescription: \"{desc}\"\ntype: feedback\nkind: durable-lesson\ntriggers: [\"{trigger}\"]\nverified_at: 2026-06-{day:02}\n{extra}---\n{body}\n"
        ),
    )
    .unwrap();
}

/// The memory directory before the run: 168 topic files and a MEMORY.md
/// naming each (the index matches the files before the run, as after it).
fn populate(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let nouns = [
        "build", "deploy", "cache", "fixture", "token", "schema", "index", "queue", "worker",
        "mirror", "proxy", "lint",
    ];
    let mut facts = Vec::new();
    let mut n = 0;
    for i in 0..120 {
        let (a, b, c) = (
            nouns[i % 12],
            nouns[(i / 12 + 1 + i) % 12],
            nouns[(i + 5) % 12],
        );
        let desc = format!("Always run {a} {i} before {b} in {c}");
        let body = format!(
            "Fact: the {a} step {i} must precede {b} because {c} reads its output.\nWhy: seen in run {i}."
        );
        topic(
            dir,
            &format!("m{n:04}"),
            &desc,
            &body,
            1 + (i % 20) as u32,
            a,
            "",
        );
        facts.push((desc, body, a));
        n += 1;
    }
    // duplicates: same fact, other wording
    for k in 0..20 {
        let (desc, body, a) = &facts[(k * 7) % 120];
        let body = body.replace('.', " .");
        topic(
            dir,
            &format!("m{n:04}"),
            &format!("{}.", desc.to_uppercase()),
            &body,
            21 + (k % 5) as u32,
            &format!("{a}-dup"),
            "",
        );
        n += 1;
    }
    // contradictions: the opposite instruction, newer
    for k in 0..10 {
        let (desc, _, a) = &facts[(k * 11 + 3) % 120];
        let never = desc.replace("Always", "Never");
        topic(
            dir,
            &format!("m{n:04}"),
            &never,
            &format!("Fact: {never}."),
            28,
            a,
            "",
        );
        n += 1;
    }
    // expired
    for k in 0..6 {
        topic(
            dir,
            &format!("m{n:04}"),
            &format!("Use the staging proxy {k} until the migration"),
            "Fact: the staging proxy is temporary.",
            2,
            "proxy",
            "expires: 2026-07-01\n",
        );
        n += 1;
    }
    // contaminated (task state / one-off)
    for k in 0..6 {
        topic(
            dir,
            &format!("m{n:04}"),
            &format!("The tests passed this time only for shard {k}"),
            "Fact: it went green once.",
            3,
            "shard",
            "",
        );
        n += 1;
    }
    // secrets to redact
    for k in 0..6 {
        let s = SECRETS[k % 3];
        let body = match k % 3 {
            0 => format!("Fact: connect with password={s} to the replica {k}."),
            _ => format!("Fact: the deploy {k} uses {s} from the vault."),
        };
        topic(
            dir,
            &format!("m{n:04}"),
            &format!("How deploy {k} authenticates to the replica"),
            &body,
            4,
            "replica",
            "",
        );
        n += 1;
    }
    assert_eq!(n, 168);
    let lines: Vec<String> = (0..168)
        .map(|j| format!("- [m{j:04}](m{j:04}.md) - x"))
        .collect();
    std::fs::write(dir.join("MEMORY.md"), lines.join("\n") + "\n").unwrap();
}

fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// Every `.md` file of the memory directory and of `retired/`, by relative path.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut m = BTreeMap::new();
    for sub in ["", "retired"] {
        let Ok(rd) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if name.ends_with(".md") && e.file_type().unwrap().is_file() {
                let rel = if sub.is_empty() {
                    name
                } else {
                    format!("{sub}/{name}")
                };
                m.insert(rel, std::fs::read(e.path()).unwrap());
            }
        }
    }
    m
}

/// A snapshot compared across runs: topic files without trailing
/// whitespace (a redaction rolled back keeps the file's own final newline
/// where a rewrite has none), MEMORY.md as its sorted lines (entries of equal
/// rank are ordered by mtime).
fn normalized(s: &BTreeMap<String, Vec<u8>>) -> BTreeMap<String, String> {
    s.iter()
        .map(|(k, v)| {
            let t = String::from_utf8_lossy(v);
            let t = if k == "MEMORY.md" {
                let mut l: Vec<&str> = t.lines().collect();
                l.sort_unstable();
                l.join("\n")
            } else {
                t.trim_end().to_string()
            };
            (k.clone(), t)
        })
        .collect()
}

fn live_ids(s: &BTreeMap<String, Vec<u8>>) -> BTreeSet<String> {
    s.keys()
        .filter(|k| !k.contains('/') && *k != "MEMORY.md")
        .map(|k| k.trim_end_matches(".md").to_string())
        .collect()
}

/// The id a retired file was retired from: its frontmatter `name` (the ids
/// here are their names).
fn retired_ids(s: &BTreeMap<String, Vec<u8>>) -> BTreeSet<String> {
    s.iter()
        .filter(|(k, _)| k.starts_with("retired/"))
        .map(|(_, v)| {
            let t = String::from_utf8_lossy(v);
            t.lines()
                .find_map(|l| l.strip_prefix("name: "))
                .unwrap_or_default()
                .trim_matches('"')
                .to_string()
        })
        .collect()
}

struct Env {
    home: PathBuf,
    transcripts: PathBuf,
}

impl Env {
    /// `home/` (created) and `transcripts/` (not) in `dir`.
    fn in_dir(dir: &Path) -> Env {
        let env = Env {
            home: dir.join("home"),
            transcripts: dir.join("transcripts"),
        };
        std::fs::create_dir_all(&env.home).unwrap();
        env
    }

    /// The next writer after a kill, in `dir`: `check --repair` (with
    /// `repair`) or a `write` of nothing; it says it rolled forward.
    fn roll_forward(&self, dir: &Path, repair: bool, what: &str) {
        let mut c = self.tool("mem-index", dir);
        if repair {
            c.args(["check", "--repair", "--max-files", "0", "--format", "jsonl"]);
        } else {
            c.args(["write", "--max-files", "0"]);
        }
        let out = run(c, b"");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("rolled forward"), "{what}: {}", show(&out));
    }

    fn tool(&self, name: &str, dir: &Path) -> Command {
        let mut c = cmd(name, &self.home);
        c.env("MEM_MEMORY_DIR", dir)
            .env("MEM_TODAY", TODAY)
            .env("MEM_NOW", NOW);
        c
    }
    fn dream(&self, dir: &Path) -> Command {
        let mut c = self.tool("mem-dream", dir);
        c.args([
            "--force",
            "--max-files",
            "0",
            "--format",
            "jsonl",
            "--transcripts",
        ])
        .arg(&self.transcripts);
        c
    }
}

/// The invariants after one recovery run.
fn check_after_recovery(env: &Env, dir: &Path, before: &BTreeSet<String>, what: &str) {
    let s = snapshot(dir);
    let live = live_ids(&s);
    let retired = retired_ids(&s);
    // no memory lost: every id before is live or retired
    let lost: Vec<_> = before
        .iter()
        .filter(|id| !live.contains(*id) && !retired.contains(*id))
        .collect();
    assert!(lost.is_empty(), "{what}: memories lost: {lost:?}");
    // none both live and retired
    let both: Vec<_> = live.intersection(&retired).collect();
    assert!(both.is_empty(), "{what}: live and retired: {both:?}");
    // the index matches the files
    let out = run(
        {
            let mut c = env.tool("mem-index", dir);
            c.args(["check", "--max-files", "0", "--format", "jsonl"]);
            c
        },
        b"",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    for code in ["missing-file", "not-indexed", "unfinished", "parse"] {
        assert!(
            !text.contains(&format!("\"code\":\"{code}\"")),
            "{what}: check finds {code}:\n{text}"
        );
    }
    // no secret in the journal
    for f in mem_tests::files_under(&dir.join(".mem/journal")) {
        let t = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).to_string();
        for sec in SECRETS {
            assert!(!t.contains(sec), "{what}: {} keeps a secret", f.display());
        }
    }
    assert!(
        !mem_tests::files_under(dir)
            .iter()
            .any(|p| p.to_string_lossy().ends_with(".tmp")),
        "{what}: a temp file is left"
    );
}

fn recovery(env: &Env, dir: &Path, k: usize) -> (String, Output) {
    match k % 4 {
        0 => ("mem-dream".into(), run(env.dream(dir), b"")),
        1 => {
            let mut c = env.tool("mem-index", dir);
            c.args(["check", "--repair", "--max-files", "0", "--format", "jsonl"]);
            ("mem-index check --repair".into(), run(c, b""))
        }
        2 => {
            let mut c = env.tool("mem-index", dir);
            c.args(["write", "--max-files", "0"]);
            ("mem-index write".into(), run(c, b""))
        }
        _ => {
            let mut c = env.tool("mem-dream", dir);
            c.arg("undo");
            ("mem-dream undo".into(), run(c, b""))
        }
    }
}

fn unfinished_journal(dir: &Path) -> bool {
    std::fs::read_dir(dir.join(".mem/journal"))
        .map(|rd| {
            rd.flatten().any(|e| {
                let p = e.path();
                !p.join("done").exists() && !p.join("rolledback").exists()
            })
        })
        .unwrap_or(false)
}

#[test]
#[ignore = "heavy tier: scripts/test.sh --heavy runs it (CI does)"]
fn dream_killed_at_any_step_loses_nothing() {
    let t = tempfile::tempdir().unwrap();
    let env = Env::in_dir(t.path());
    std::fs::create_dir_all(&env.transcripts).unwrap();
    let template = t.path().join("template");
    populate(&template);
    let before = live_ids(&snapshot(&template));

    // The reference run, counting its steps.
    let refdir = t.path().join("ref");
    copy_dir(&template, &refdir);
    let mut c = env.dream(&refdir);
    c.env("MEM_TEST_CRASH_AT", "1000000000");
    let out = run(c, b"");
    assert!(out.status.success(), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    let steps: u64 = err
        .lines()
        .find_map(|l| l.strip_prefix("mem: test: "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no step count: {err}"));
    let plan = String::from_utf8_lossy(&out.stdout);
    for op in ["merge", "supersede", "retire", "redact"] {
        assert!(
            plan.contains(&format!("\"op\":\"{op}\"")),
            "no {op} planned:\n{plan}"
        );
    }
    assert!(steps > 100, "{steps} steps");
    let reference = normalized(&snapshot(&refdir));
    check_after_recovery(&env, &refdir, &before, "reference");

    let mut rng = Lcg(0x6d65_6d2d_6b69_6c6c);
    let work = t.path().join("work");
    let mut recovered = 0;
    let mut sigkilled = 0;
    for k in 0..34usize {
        copy_dir(&template, &work);
        let what;
        if k < 30 {
            // deterministic: abort at step `at`
            let at = 1 + rng.below(steps);
            what = format!("kill {k} at step {at}/{steps}");
            let mut c = env.dream(&work);
            c.env("MEM_TEST_CRASH_AT", at.to_string());
            let out = run(c, b"");
            assert_eq!(
                out.status.signal(),
                Some(6),
                "{what}: not aborted: {}",
                show(&out)
            );
        } else {
            // a real SIGKILL after a seeded delay (0–400 ms)
            let ms = rng.below(400);
            what = format!("SIGKILL {k} after {ms} ms");
            let mut c = env.dream(&work);
            c.stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            let mut child = c.spawn().unwrap();
            std::thread::sleep(std::time::Duration::from_millis(ms));
            let _ = child.kill();
            let st = child.wait().unwrap();
            if st.signal() == Some(9) {
                sigkilled += 1;
            }
        }
        let pending = unfinished_journal(&work);
        let (how, out) = recovery(&env, &work, k);
        let what = format!("{what}, recovered by {how} (journal left: {pending})");
        let err = String::from_utf8_lossy(&out.stderr);
        if pending {
            recovered += 1;
            assert!(
                err.contains("recovered:"),
                "{what}: recovery not said:\n{err}"
            );
        }
        // undo after a complete run (a SIGKILL that came too late) undoes it
        let nothing_to_undo = how == "mem-dream undo" && !work.join(".mem/journal").exists();
        if !(how == "mem-index write" || how.starts_with("mem-index check") || nothing_to_undo) {
            assert!(out.status.success(), "{what}: {}", show(&out));
        }
        check_after_recovery(&env, &work, &before, &what);
        if how != "mem-dream" {
            let live = live_ids(&snapshot(&work));
            if pending {
                // a rollback: the live memories are those before the run
                assert_eq!(live, before, "{what}");
            } else {
                // no journal left: the kill came before the run began or
                // after it ended (a fast run ends within the delay)
                assert!(
                    live == before || live == live_ids(&snapshot(&refdir)),
                    "{what}: neither the state before nor the finished run: {live:?}"
                );
            }
        }
        // and a full run converges on the reference result (a recovery by
        // mem-dream was one; after the others, every third kill, to keep the
        // test short)
        if how != "mem-dream" {
            if k % 3 != 0 {
                continue;
            }
            let out = run(env.dream(&work), b"");
            assert!(out.status.success(), "{what}: rerun: {}", show(&out));
        }
        let got = normalized(&snapshot(&work));
        let diff: Vec<_> = reference
            .keys()
            .chain(got.keys())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .filter(|k| reference.get(*k) != got.get(*k))
            .collect();
        assert!(
            diff.is_empty(),
            "{what}: differs from the reference: {diff:?}"
        );
    }
    eprintln!(
        "dream kill: {steps} steps a run; 30 aborts + 4 SIGKILLs ({sigkilled} landed mid-run); {recovered} unfinished runs recovered"
    );
    assert!(
        recovered >= 25,
        "only {recovered} kills left an unfinished run"
    );
}

/// A `mem-index write` batch aborted at a seeded step is rolled forward by
/// the next `mem-index check --repair` or `mem-index write`: the index then
/// names exactly the topic files on disk.
#[test]
fn write_batch_killed_at_any_step_is_rolled_forward() {
    let t = tempfile::tempdir().unwrap();
    let env = Env::in_dir(t.path());
    let records: String = (0..60)
        .map(|i| {
            format!(
                "{{\"name\":\"Batch {i}\",\"description\":\"record {i} of a batch written under kills\",\"type\":\"feedback\",\"triggers\":[\"batch\"],\"verified_at\":\"2026-07-{:02}\",\"fact\":\"Run check {i} before deploy.\"}}\n",
                i % 28 + 1
            )
        })
        .collect();
    let mut rng = Lcg(0x7772_6974_6562_6174);
    let dir = t.path().join("mem");
    let mut rolled = 0;
    for k in 0..10 {
        let _ = std::fs::remove_dir_all(&dir);
        let at = 1 + rng.below(61);
        let what = format!("write kill {k} at step {at}/61");
        let mut c = env.tool("mem-index", &dir);
        c.args(["write", "--max-files", "0"])
            .env("MEM_TEST_CRASH_AT", at.to_string());
        let out = run(c, records.as_bytes());
        assert_eq!(out.status.signal(), Some(6), "{what}: {}", show(&out));
        assert!(dir.join(".mem/write-pending").exists(), "{what}: no marker");
        env.roll_forward(&dir, k % 2 == 0, &what);
        rolled += 1;
        assert!(!dir.join(".mem/write-pending").exists(), "{what}");
        let live = live_ids(&snapshot(&dir));
        let index = std::fs::read_to_string(dir.join("MEMORY.md")).unwrap_or_default();
        let indexed: BTreeSet<String> = index
            .lines()
            .filter_map(|l| l.split("](").nth(1)?.split(".md)").next())
            .map(str::to_string)
            .collect();
        assert_eq!(indexed, live, "{what}: index and files differ");
        check_after_recovery(&env, &dir, &BTreeSet::new(), &what);
    }
    assert_eq!(rolled, 10);
}

/// `from` copied to `to` with its sub-folders (`.mem/` left out).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let ty = e.file_type().unwrap();
        if ty.is_dir() && e.file_name() != ".mem" {
            copy_tree(&e.path(), &to.join(e.file_name()));
        } else if ty.is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// Stems of the topic files live in `dir` and in its `retired/`.
fn live_and_retired(dir: &Path) -> (BTreeSet<String>, BTreeSet<String>) {
    let s = snapshot(dir);
    let stem = |k: &str| k.trim_end_matches(".md").to_string();
    let live = live_ids(&s);
    let retired = s
        .keys()
        .filter_map(|k| k.strip_prefix("retired/"))
        .map(stem)
        .collect();
    (live, retired)
}

/// `mem-index retire` and `restore` aborted at each of their steps (the new
/// copy written, the old file removed, the index written) are rolled
/// forward by the next writer: the memory is then live or retired, never
/// both nor neither, and the index names exactly the live files.
#[test]
fn retire_and_restore_killed_at_any_step_are_rolled_forward() {
    let t = tempfile::tempdir().unwrap();
    let env = Env::in_dir(t.path());
    let records: String = (0..6)
        .map(|i| {
            format!(
                "{{\"id\":\"move-{i}\",\"name\":\"Move {i}\",\"description\":\"record {i} moved under kills\",\"type\":\"feedback\",\"triggers\":[\"move\"],\"verified_at\":\"2026-07-0{}\",\"fact\":\"Run check {i} before deploy.\"}}\n",
                i + 1
            )
        })
        .collect();
    let live = t.path().join("live");
    let mut c = env.tool("mem-index", &live);
    c.args(["write", "--max-files", "0"]);
    let out = run(c, records.as_bytes());
    assert!(out.status.success(), "{}", show(&out));
    // The same directory with move-3 retired, for the restores.
    let retired = t.path().join("retired");
    copy_tree(&live, &retired);
    let mut c = env.tool("mem-index", &retired);
    c.args(["retire", "move-3", "--reason", "test"]);
    let out = run(c, b"");
    assert!(out.status.success(), "{}", show(&out));

    let id = "move-3";
    let dir = t.path().join("mem");
    let mut aborted = 0;
    for (op, from) in [("retire", &live), ("restore", &retired)] {
        for at in 1..=4 {
            let what = format!("{op} aborted at step {at}");
            let _ = std::fs::remove_dir_all(&dir);
            copy_tree(from, &dir);
            let mut c = env.tool("mem-index", &dir);
            c.arg(op).arg(id).env("MEM_TEST_CRASH_AT", at.to_string());
            if op == "retire" {
                c.args(["--reason", "test"]);
            }
            let out = run(c, b"");
            if out.status.signal() == Some(6) {
                aborted += 1;
                assert!(dir.join(".mem/write-pending").exists(), "{what}: no marker");
                env.roll_forward(&dir, at % 2 == 0, &what);
            } else {
                assert!(out.status.success(), "{what}: {}", show(&out));
            }
            assert!(!dir.join(".mem/write-pending").exists(), "{what}");
            let (live_now, retired_now) = live_and_retired(&dir);
            // Aborted before the new copy was written: nothing moved; after
            // it: the move is finished.
            let moved = at > 1;
            let want_live = (op == "restore") == moved;
            assert_eq!(live_now.contains(id), want_live, "{what}: {live_now:?}");
            assert_eq!(
                retired_now.contains(id),
                !want_live,
                "{what}: {retired_now:?}"
            );
            assert_eq!(live_now.len() + retired_now.len(), 6, "{what}");
            let index = std::fs::read_to_string(dir.join("MEMORY.md")).unwrap_or_default();
            let indexed: BTreeSet<String> = index
                .lines()
                .filter_map(|l| l.split("](").nth(1)?.split(".md)").next())
                .map(str::to_string)
                .collect();
            assert_eq!(indexed, live_now, "{what}: index and files differ");
            let mut c = env.tool("mem-index", &dir);
            c.args(["check", "--max-files", "0", "--format", "jsonl"]);
            let text = String::from_utf8_lossy(&run(c, b"").stdout).to_string();
            for code in ["missing-file", "not-indexed", "unfinished", "parse"] {
                assert!(
                    !text.contains(&format!("\"code\":\"{code}\"")),
                    "{what}: check finds {code}:\n{text}"
                );
            }
        }
    }
    // Three steps each: the new copy, the removal, the index.
    assert_eq!(aborted, 6);
}
