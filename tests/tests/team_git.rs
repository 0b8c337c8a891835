//! The team tier through real git (docs/team-memory.md): a bare origin and
//! two clones, each with the merge driver installed, each promoting and
//! editing memories, committing, pulling and pushing in both orders (merge
//! then rebase), with concurrent edits of the same topic file (triggers,
//! `verified_at`, an unknown key, the body) and concurrent additions.
//! Afterwards: no conflict markers anywhere, `check --tier team` passes in
//! both clones, both hold the same files, every memory is there, and the
//! merged fields have the values the rules give. A secret committed by
//! hand makes `check --tier team` fail with exit 3.

use std::path::{Path, PathBuf};
use std::process::Command;

use mem_tests::{cmd, files_under, run, show};
use serde_json::Value;

struct World {
    home: PathBuf,
}

impl World {
    fn git(&self, dir: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .current_dir(dir)
            .args(args)
            .env("HOME", &self.home)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Dev")
            .env("GIT_AUTHOR_EMAIL", "dev@example.com")
            .env("GIT_COMMITTER_NAME", "Dev")
            .env("GIT_COMMITTER_EMAIL", "dev@example.com")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .output()
            .expect("git runs");
        assert!(
            out.status.success(),
            "git {args:?} in {}: {}\n{}",
            dir.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        // the driver rebuilt MEMORY.md from the merged commits, never fell
        // back to merging its lines
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("line by line"), "git {args:?}: {err}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn mem(&self, dir: &Path, args: &[&str], stdin: &str) -> std::process::Output {
        let mut c = cmd("mem-index", &self.home);
        c.current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .args(args);
        run(c, stdin.as_bytes())
    }

    fn ok(&self, dir: &Path, args: &[&str], stdin: &str) -> String {
        let o = self.mem(dir, args, stdin);
        assert!(o.status.success(), "mem-index {args:?}: {}", show(&o));
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    /// Write a personal memory of `who` and promote it into `clone`'s team tier.
    fn promote(&self, clone: &Path, who: &str, record: &str, id: &str) {
        let personal = self.home.join(format!("personal-{who}"));
        let p = personal.to_string_lossy().into_owned();
        self.ok(clone, &["write", "--memory-dir", &p], record);
        self.ok(clone, &["promote", id, "--memory-dir", &p], "");
    }

    fn commit_all(&self, clone: &Path, msg: &str) {
        self.git(clone, &["add", "-A"]);
        self.git(clone, &["commit", "-q", "-m", msg]);
    }
}

fn team(clone: &Path) -> PathBuf {
    clone.join(".claude/team-memory")
}

/// Edit a topic file by hand, as a person would: replace `from` by `to`.
fn edit(path: &Path, pairs: &[(&str, &str)]) {
    let mut t = std::fs::read_to_string(path).unwrap();
    for (from, to) in pairs {
        assert!(t.contains(from), "{}: no {from:?} in\n{t}", path.display());
        t = t.replacen(from, to, 1);
    }
    std::fs::write(path, t).unwrap();
}

fn record(name: &str, desc: &str, triggers: &[&str], fact: &str) -> String {
    serde_json::json!({
        "name": name,
        "description": desc,
        "type": "project",
        "triggers": triggers,
        "verified_at": "2026-07-01",
        "evidence": ["transcript:0a1b2c3d4e5f#12"],
        "fact": fact,
    })
    .to_string()
        + "\n"
}

fn list_team(w: &World, clone: &Path) -> Vec<Value> {
    w.ok(clone, &["list", "--tier", "team", "--format", "jsonl"], "")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn assert_clean(w: &World, clone: &Path) {
    for f in files_under(clone) {
        if f.components().any(|c| c.as_os_str() == ".git") {
            continue;
        }
        let t = std::fs::read_to_string(&f).unwrap_or_default();
        for l in t.lines() {
            assert!(
                !(l.starts_with("<<<<<<<") || l.starts_with(">>>>>>>") || l == "======="),
                "conflict marker in {}:\n{t}",
                f.display()
            );
        }
    }
    let c = w.mem(clone, &["check", "--tier", "team", "--format", "jsonl"], "");
    assert_eq!(c.status.code(), Some(0), "check --tier team: {}", show(&c));
    let out = String::from_utf8_lossy(&c.stdout);
    assert!(!out.contains("\"level\":\"error\""), "{out}");
    let st = w.git(clone, &["status", "--porcelain"]);
    assert_eq!(st, "", "clean worktree in {}", clone.display());
}

fn team_files(clone: &Path) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = files_under(&team(clone))
        .into_iter()
        .filter(|p| !p.components().any(|c| c.as_os_str() == ".mem"))
        .map(|p| {
            (
                p.strip_prefix(clone).unwrap().display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn two_clones_merge_team_memory_without_conflicts_in_both_orders() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let w = World { home };
    let origin = tmp.path().join("origin.git");
    let a = tmp.path().join("a");
    let b = tmp.path().join("b");
    w.git(
        tmp.path(),
        &["init", "-q", "--bare", "-b", "main", "origin.git"],
    );
    w.git(tmp.path(), &["init", "-q", "-b", "main", "a"]);
    std::fs::write(a.join(".gitattributes"), "*.sh text eol=lf\n").unwrap();
    std::fs::write(a.join("README.md"), "# app\n").unwrap();
    w.git(&a, &["remote", "add", "origin", &origin.to_string_lossy()]);
    w.ok(&a, &["merge-driver", "--install"], "");
    // idempotent, keeps the existing line
    w.ok(&a, &["merge-driver", "--install"], "");
    let ga = std::fs::read_to_string(a.join(".gitattributes")).unwrap();
    assert!(ga.starts_with("*.sh text eol=lf\n"), "{ga}");
    assert_eq!(ga.matches("merge=mem").count(), 1, "{ga}");
    w.promote(
        &a,
        "a",
        &record(
            "Fixture before verify",
            "run the fixture before verify",
            &["verify"],
            "The fixture must run before verify.",
        ),
        "fixture-before-verify",
    );
    w.promote(
        &a,
        "a",
        &record(
            "Staging deploys on Fridays",
            "staging deploys only on Fridays",
            &["staging"],
            "Staging deploys happen on Fridays.",
        ),
        "staging-deploys-on-fridays",
    );
    // private evidence is not shared
    let promoted = std::fs::read_to_string(team(&a).join("fixture-before-verify.md")).unwrap();
    assert!(
        promoted.contains("evidence: [\"not shared\"]"),
        "{promoted}"
    );
    assert!(!promoted.contains("transcript:"), "{promoted}");
    w.commit_all(&a, "memory: two team memories");
    w.git(&a, &["push", "-q", "-u", "origin", "main"]);
    w.git(tmp.path(), &["clone", "-q", &origin.to_string_lossy(), "b"]);
    w.ok(&b, &["merge-driver", "--install"], "");
    assert_clean(&w, &a);
    assert_clean(&w, &b);

    // Round 1, A pushes first, B merges (git pull --no-rebase).
    let fa = team(&a).join("fixture-before-verify.md");
    let fb = team(&b).join("fixture-before-verify.md");
    edit(
        &fa,
        &[
            (
                "triggers: [\"verify\"]",
                "triggers: [\"verify\", \"fixture\"]",
            ),
            ("verified_at: 2026-07-01", "verified_at: 2026-07-05"),
            (
                "Fact: The fixture must run before verify.",
                "Fact: The fixture must run before verify, twice on CI.",
            ),
        ],
    );
    edit(
        &fb,
        &[
            (
                "triggers: [\"verify\"]",
                "triggers: [\"verify\", \"deploy\"]",
            ),
            (
                "verified_at: 2026-07-01",
                "verified_at: 2026-07-09\nowner: \"qa\"",
            ),
            (
                "Fact: The fixture must run before verify.",
                "Fact: The fixture must run before verify, with -v.",
            ),
        ],
    );
    w.promote(
        &a,
        "a",
        &record(
            "Use pnpm",
            "pnpm, not npm",
            &["pnpm"],
            "The repo uses pnpm.",
        ),
        "use-pnpm",
    );
    w.promote(
        &b,
        "b",
        &record(
            "Ports from env",
            "services read ports from PORT_*",
            &["port"],
            "Ports come from PORT_* variables.",
        ),
        "ports-from-env",
    );
    w.ok(&a, &["reindex", "--tier", "team"], "");
    w.ok(&b, &["reindex", "--tier", "team"], "");
    w.commit_all(&a, "memory: A edits");
    w.commit_all(&b, "memory: B edits");
    w.git(&a, &["push", "-q", "origin", "main"]);
    w.git(&b, &["pull", "-q", "--no-rebase", "origin", "main"]);
    w.git(&b, &["push", "-q", "origin", "main"]);
    w.git(&a, &["pull", "-q", "--no-rebase", "origin", "main"]);
    assert_clean(&w, &a);
    assert_clean(&w, &b);
    assert_eq!(team_files(&a), team_files(&b));
    let merged = std::fs::read_to_string(&fa).unwrap();
    let m: Value = list_team(&w, &a)
        .into_iter()
        .find(|m| m["id"] == "fixture-before-verify")
        .unwrap();
    assert_eq!(
        m["triggers"],
        serde_json::json!(["verify", "deploy", "fixture"]),
        "{merged}"
    );
    assert_eq!(m["verified_at"], "2026-07-09", "{merged}");
    assert_eq!(m["owner"], "qa", "{merged}");
    assert_eq!(m["evidence"], serde_json::json!(["not shared"]));
    let body = m["body"].as_str().unwrap();
    assert_eq!(
        body,
        "<!-- mem: merge conflict: both versions of the body are kept; keep one, delete the other and these mem lines -->\n\
         <!-- mem: version verified 2026-07-09 -->\n\
         Fact: The fixture must run before verify, with -v.\n\
         <!-- mem: version verified 2026-07-05 -->\n\
         Fact: The fixture must run before verify, twice on CI.\n\
         <!-- mem: end of merge conflict -->\n"
    );
    // the frontmatter itself is whole: it parses, no marker in it
    let fm = merged.split("\n---\n").next().unwrap();
    assert!(!fm.contains("<!--"), "{merged}");
    let c = w.ok(&a, &["check", "--tier", "team", "--format", "jsonl"], "");
    assert!(
        c.contains("\"code\":\"merge-conflict\"") && c.contains("fixture-before-verify.md"),
        "{c}"
    );

    // The person resolves the body; round 2, B pushes first, A rebases.
    edit(
        &fa,
        &[(
            body,
            "Fact: The fixture must run before verify, with -v, twice on CI.\n",
        )],
    );
    w.commit_all(&a, "memory: body resolved");
    w.git(&a, &["push", "-q", "origin", "main"]);
    w.git(&b, &["pull", "-q", "--no-rebase", "origin", "main"]);
    let sa = team(&a).join("staging-deploys-on-fridays.md");
    let sb = team(&b).join("staging-deploys-on-fridays.md");
    edit(
        &sb,
        &[
            (
                "triggers: [\"staging\"]",
                "triggers: [\"staging\", \"friday\"]",
            ),
            ("verified_at: 2026-07-01", "verified_at: 2026-07-03"),
        ],
    );
    edit(
        &sa,
        &[
            (
                "triggers: [\"staging\"]",
                "triggers: [\"release\", \"staging\"]",
            ),
            ("verified_at: 2026-07-01", "verified_at: 2026-07-11"),
            ("Fact: Staging", "Fact: Since July, staging"),
        ],
    );
    w.promote(
        &b,
        "b",
        &record(
            "Migrations need a lock",
            "take the migration lock first",
            &["migrate"],
            "Run migrations under the lock.",
        ),
        "migrations-need-a-lock",
    );
    w.promote(
        &a,
        "a",
        &record(
            "Logs in JSON",
            "services log JSON lines",
            &["logs"],
            "Every service logs JSON lines.",
        ),
        "logs-in-json",
    );
    w.commit_all(&b, "memory: B edits again");
    w.commit_all(&a, "memory: A edits again");
    w.git(&b, &["push", "-q", "origin", "main"]);
    w.git(&a, &["pull", "-q", "--rebase", "origin", "main"]);
    w.git(&a, &["push", "-q", "origin", "main"]);
    w.git(&b, &["pull", "-q", "--rebase", "origin", "main"]);
    assert_clean(&w, &a);
    assert_clean(&w, &b);
    assert_eq!(team_files(&a), team_files(&b));
    let all = list_team(&w, &b);
    let mut ids: Vec<&str> = all.iter().map(|m| m["id"].as_str().unwrap()).collect();
    ids.sort();
    assert_eq!(
        ids,
        vec![
            "fixture-before-verify",
            "logs-in-json",
            "migrations-need-a-lock",
            "ports-from-env",
            "staging-deploys-on-fridays",
            "use-pnpm",
        ]
    );
    let s = all
        .iter()
        .find(|m| m["id"] == "staging-deploys-on-fridays")
        .unwrap();
    assert_eq!(
        s["triggers"],
        serde_json::json!(["staging", "friday", "release"])
    );
    assert_eq!(s["verified_at"], "2026-07-11");
    assert_eq!(
        s["body"],
        "Fact: Since July, staging deploys happen on Fridays.\n"
    );
    let f = all
        .iter()
        .find(|m| m["id"] == "fixture-before-verify")
        .unwrap();
    assert_eq!(
        f["body"],
        "Fact: The fixture must run before verify, with -v, twice on CI.\n"
    );
    let idx = std::fs::read_to_string(team(&a).join("MEMORY.md")).unwrap();
    assert_eq!(idx.lines().count(), 6, "{idx}");

    // A secret committed by hand: check --tier team fails (exit 3), names
    // the file and the field, never the value.
    let token = format!("ghp_{}", "Zk3Qm9Xr2Lp7Vt5Wn8Bc4Hd6Jf1Gs0Ay3Ue7");
    std::fs::write(
        team(&a).join("ci-token.md"),
        format!(
            "---\nname: \"CI token\"\ndescription: \"the CI token\"\ntype: reference\n---\nThe CI uses {token}.\n"
        ),
    )
    .unwrap();
    w.ok(&a, &["reindex", "--tier", "team"], "");
    w.commit_all(&a, "memory: a token by hand");
    let c = w.mem(&a, &["check", "--tier", "team", "--format", "jsonl"], "");
    assert_eq!(c.status.code(), Some(3), "{}", show(&c));
    let out = String::from_utf8_lossy(&c.stdout);
    assert!(
        out.contains("\"code\":\"sensitive\"")
            && out.contains("ci-token.md")
            && out.contains("field `body` carries secret (github-token)"),
        "{out}"
    );
    assert!(!out.contains(&token), "{out}");
}

#[test]
fn demote_moves_a_memory_back_and_the_team_tier_refuses_other_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let w = World { home };
    let repo = tmp.path().join("repo");
    w.git(tmp.path(), &["init", "-q", "-b", "main", "repo"]);
    let rec = record(
        "Use pnpm",
        "pnpm, not npm",
        &["pnpm"],
        "The repo uses pnpm.",
    );
    w.promote(&repo, "a", &rec, "use-pnpm");
    w.promote(
        &repo,
        "b",
        &record("Logs in JSON", "services log JSON", &["logs"], "JSON logs."),
        "logs-in-json",
    );
    let personal_b = w.home.join("personal-b");
    let pb = personal_b.to_string_lossy().into_owned();
    // the personal copy of b goes; demote brings the team one back
    std::fs::remove_file(personal_b.join("logs-in-json.md")).unwrap();
    let out = w.ok(
        &repo,
        &[
            "demote",
            "logs-in-json",
            "--memory-dir",
            &pb,
            "--format",
            "jsonl",
        ],
        "",
    );
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["result"], "create", "{out}");
    assert!(!team(&repo).join("logs-in-json.md").exists());
    let back = std::fs::read_to_string(personal_b.join("logs-in-json.md")).unwrap();
    assert!(back.contains("name: \"Logs in JSON\""), "{back}");
    assert!(back.contains("evidence: [\"not shared\"]"), "{back}");
    let idx = std::fs::read_to_string(team(&repo).join("MEMORY.md")).unwrap();
    assert_eq!(idx, "- [Use pnpm](use-pnpm.md) - pnpm, not npm\n");
    // a personal memory with the same id is kept as it is
    let pa = w.home.join("personal-a").to_string_lossy().into_owned();
    let before = std::fs::read_to_string(w.home.join("personal-a/use-pnpm.md")).unwrap();
    let out = w.ok(
        &repo,
        &[
            "demote",
            "use-pnpm",
            "--memory-dir",
            &pa,
            "--format",
            "jsonl",
        ],
        "",
    );
    assert!(out.contains("\"result\":\"kept\""), "{out}");
    assert_eq!(
        std::fs::read_to_string(w.home.join("personal-a/use-pnpm.md")).unwrap(),
        before
    );
    assert_eq!(
        std::fs::read_to_string(team(&repo).join("MEMORY.md")).unwrap(),
        ""
    );
    let c = w.mem(&repo, &["check", "--tier", "team"], "");
    assert_eq!(c.status.code(), Some(0), "{}", show(&c));
    // the team tier is written by promote, by hand or by a merge only
    let o = w.mem(&repo, &["write", "--tier", "team"], &rec);
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("mem-index promote ID"),
        "{}",
        show(&o)
    );
    // an unknown id is named
    let o = w.mem(&repo, &["promote", "no-such", "--memory-dir", &pa], "");
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("no-such.md: no such memory"),
        "{}",
        show(&o)
    );
}
