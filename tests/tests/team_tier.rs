//! The team tier, read side: recall, `context` and the hook read the
//! personal memory directory and `<project root>/.claude/team-memory/`, name
//! each memory's tier, let the personal memory win a conflict (and `check`
//! warn of it), and `mem-dream --tier team` plans without writing.
//!
//! Fixtures: tests/fixtures/team/{personal,team}/ (copied into a throwaway
//! project; the project is outside git, so its root is its own folder).

use std::path::{Path, PathBuf};
use std::process::Command;

use mem_tests::{cmd, copy_dir, files_under, run, show, snapshot, workspace_root};

const TODAY: &str = "2026-07-13";
const TASK: &str = "install the package and deploy, then push";

/// A throwaway home with `proj/.claude/team-memory/` and a personal `mem/`
/// filled from the fixtures.
struct Setup {
    home: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let home = tempfile::tempdir().unwrap();
        let fx = workspace_root().join("tests/fixtures/team");
        let s = Setup { home };
        copy_dir(&fx.join("team"), &s.team());
        copy_dir(&fx.join("personal"), &s.mem());
        // the team tier is recalled only once trusted (tests/tests/team_trust.rs)
        s.trust(&s.proj());
        s
    }
    /// `mem-index team trust` in the checkout at `dir`.
    fn trust(&self, dir: &Path) {
        let mut c = self.cmd("mem-index");
        c.current_dir(dir).args(["team", "trust"]);
        let out = run(c, b"");
        assert!(out.status.success(), "{}", show(&out));
    }
    fn proj(&self) -> PathBuf {
        self.home.path().join("proj")
    }
    fn team(&self) -> PathBuf {
        self.proj().join(".claude/team-memory")
    }
    fn mem(&self) -> PathBuf {
        self.home.path().join("mem")
    }
    fn cmd(&self, bin: &str) -> Command {
        let mut c = cmd(bin, self.home.path());
        c.current_dir(self.proj())
            .env("MEM_MEMORY_DIR", self.mem())
            .env("MEM_TODAY", TODAY);
        c
    }
    fn recall(&self, args: &[&str]) -> String {
        let mut c = self.cmd("mem-recall");
        c.args(args);
        let out = run(c, b"");
        assert!(out.status.success(), "{}", show(&out));
        String::from_utf8(out.stdout).unwrap()
    }
}

fn records(jsonl: &str) -> Vec<serde_json::Value> {
    jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn find<'a>(rs: &'a [serde_json::Value], id: &str, tier: &str) -> &'a serde_json::Value {
    rs.iter()
        .find(|r| r["id"] == id && r["tier"] == tier)
        .unwrap_or_else(|| panic!("no record for {id} ({tier}) in {rs:#?}"))
}

#[test]
fn both_tiers_are_recalled_and_each_memory_names_its_tier() {
    let s = Setup::new();
    let rs = records(&s.recall(&["--task", TASK, "--format", "jsonl", "--explain"]));
    assert_eq!(find(&rs, "use-pnpm", "personal")["action"], "recall");
    assert_eq!(
        find(&rs, "lint-before-push", "personal")["action"],
        "recall"
    );
    assert_eq!(find(&rs, "smoke-before-deploy", "team")["action"], "recall");
    // expiry and low trust hold for team memories too
    let frozen = find(&rs, "staging-frozen", "team");
    assert_eq!(frozen["action"], "evict");
    assert_eq!(frozen["expires"], "2026-07-01");
    let low = find(&rs, "pasted-advice", "team");
    assert_eq!(
        (&low["action"], &low["reason"]),
        (&"skip".into(), &"low-trust".into())
    );
    // the personal memory wins: same id, and one it supersedes
    let same = find(&rs, "use-pnpm", "team");
    assert_eq!(same["action"], "skip");
    assert_eq!(same["reason"], "overridden");
    assert_eq!(same["by"], "use-pnpm");
    assert_eq!(same["conflict"], "same-id");
    let sup = find(&rs, "use-npm", "team");
    assert_eq!(
        (&sup["reason"], &sup["by"]),
        (&"overridden".into(), &"use-pnpm".into())
    );
    assert_eq!(sup["conflict"], "supersedes");
    assert_eq!(find(&rs, "lint-before-push", "team")["conflict"], "same-id");
    // a team memory's `supersedes` never hides a personal memory
    assert_eq!(find(&rs, "commit-style", "personal")["action"], "recall");
    assert_eq!(find(&rs, "commit-style-v2", "team")["action"], "recall");
    let summary = rs.last().unwrap();
    assert_eq!(summary["recalled"], 6, "{rs:#?}");

    let text = s.recall(&["--task", TASK, "--format", "text", "--explain"]);
    assert!(
        text.lines()
            .any(|l| l.starts_with("RECALL smoke-before-deploy ") && l.ends_with("; tier: team")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("RECALL use-pnpm ") && l.ends_with("; tier: personal")),
        "{text}"
    );
    assert!(
        text.contains("SKIP   use-npm — overridden (supersedes): team memory use-npm is superseded by your personal memory use-pnpm"),
        "{text}"
    );
    let plain = s.recall(&["--task", TASK, "--format", "text"]);
    assert!(
        plain.contains("RECALL smoke-before-deploy [durable-lesson] (team)\n"),
        "{plain}"
    );
    assert!(
        plain.contains("RECALL use-pnpm [durable-lesson]\n"),
        "{plain}"
    );

    let md = s.recall(&["--task", TASK, "--format", "markdown"]);
    assert!(
        md.contains("## Smoke test before deploy (smoke-before-deploy, team)\n"),
        "{md}"
    );
    assert!(md.contains("## Use pnpm (use-pnpm)\n"), "{md}");
    assert!(
        md.contains("Notes marked `team` come from the project's team memory"),
        "{md}"
    );
    assert!(!md.contains("TEAM-COPY-OF-USE-PNPM"), "{md}");
    assert!(!md.contains("npm ci"), "{md}");
}

#[test]
fn tier_option_picks_one_tier() {
    let s = Setup::new();
    let team = s.recall(&["--task", TASK, "--format", "text", "--tier", "team"]);
    // alone, the team tier has no conflict to lose
    assert!(
        team.contains("RECALL use-npm [durable-lesson] (team)\n"),
        "{team}"
    );
    assert!(
        team.contains("RECALL use-pnpm [durable-lesson] (team)\n"),
        "{team}"
    );
    assert!(
        !team.contains("lint-before-push [durable-lesson]\n"),
        "{team}"
    );
    let personal = s.recall(&["--task", TASK, "--format", "jsonl", "--tier", "personal"]);
    let rs = records(&personal);
    assert!(rs.iter().all(|r| r["tier"] != "team"), "{personal}");
    assert_eq!(rs.last().unwrap()["recalled"], 3, "{personal}");
    // the team folder given as the memory directory is read once, as personal
    let mut c = s.cmd("mem-recall");
    c.env("MEM_MEMORY_DIR", s.team())
        .args(["--task", TASK, "--format", "jsonl"]);
    let out = run(c, b"");
    assert!(out.status.success(), "{}", show(&out));
    let rs = records(&String::from_utf8(out.stdout).unwrap());
    assert!(rs.iter().all(|r| r["tier"] != "team"), "{rs:#?}");
    assert_eq!(
        rs.iter().filter(|r| r["id"] == "use-pnpm").count(),
        1,
        "{rs:#?}"
    );
    // and without a team folder, nothing changes: no tier words in text
    std::fs::remove_dir_all(s.team()).unwrap();
    let text = s.recall(&["--task", TASK, "--format", "text", "--explain"]);
    assert!(!text.contains("tier"), "{text}");
}

#[test]
fn the_team_folder_as_the_memory_directory_reports_a_broken_file_once() {
    let s = Setup::new();
    std::fs::write(
        s.team().join("broken.md"),
        "---\nname: \"unclosed\ndescription: d\n---\nbody\n",
    )
    .unwrap();
    let warning = format!(
        "mem-recall: warning: {}:4: frontmatter: found unexpected end of stream (left out)\n",
        s.team().join("broken.md").display()
    );
    let mut c = s.cmd("mem-recall");
    c.env("MEM_MEMORY_DIR", s.team())
        .args(["--task", TASK, "--format", "text"]);
    let out = run(c, b"");
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(String::from_utf8(out.stderr).unwrap(), warning);
    let input = serde_json::json!({
        "session_id": "0b1c2d3e-0000-4000-8000-000000000003",
        "cwd": s.proj(),
        "hook_event_name": "UserPromptSubmit",
        "prompt": TASK,
    })
    .to_string();
    let mut c = s.cmd("mem-hook");
    c.env("MEM_MEMORY_DIR", s.team());
    let out = run(c, input.as_bytes());
    assert!(out.status.success(), "{}", show(&out));
    assert!(!out.stdout.is_empty(), "{}", show(&out));
    assert_eq!(String::from_utf8(out.stderr).unwrap(), warning);
}

#[test]
fn check_warns_of_each_conflict_that_matters() {
    let s = Setup::new();
    let mut c = s.cmd("mem-index");
    c.arg("reindex");
    let out = run(c, b"");
    assert!(out.status.success(), "{}", show(&out));
    let mut c = s.cmd("mem-index");
    c.args(["check", "--format", "jsonl"]);
    let out = run(c, b"");
    // warnings only: the run passes
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let rs = records(&String::from_utf8(out.stdout).unwrap());
    let conflicts: Vec<_> = rs.iter().filter(|r| r["code"] == "tier-conflict").collect();
    let got: Vec<(String, String, String)> = conflicts
        .iter()
        .map(|r| {
            assert_eq!(r["level"], "warning");
            (
                r["file"].as_str().unwrap().to_string(),
                r["team_file"].as_str().unwrap().to_string(),
                r["conflict"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    // lint-before-push is the same memory in both tiers: no warning
    assert_eq!(
        got,
        [
            (
                "use-pnpm.md".to_string(),
                ".claude/team-memory/use-npm.md".to_string(),
                "supersedes".to_string()
            ),
            (
                "use-pnpm.md".to_string(),
                ".claude/team-memory/use-pnpm.md".to_string(),
                "same-id".to_string()
            ),
        ]
    );
}

fn hook(s: &Setup, event: &str, prompt: &str) -> String {
    let input = serde_json::json!({
        "session_id": "0b1c2d3e-0000-4000-8000-000000000002",
        "transcript_path": s.proj().join("t.jsonl"),
        "cwd": s.proj(),
        "hook_event_name": event,
        "prompt": prompt,
        "source": "startup",
    })
    .to_string();
    let c = s.cmd("mem-hook");
    let out = run(c, input.as_bytes());
    assert!(out.status.success(), "{}", show(&out));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_hook_labels_team_memories_and_never_writes_the_team_tier() {
    let s = Setup::new();
    let before = snapshot(&s.proj());
    let out = hook(&s, "UserPromptSubmit", TASK);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let ctx = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(ctx.starts_with("# Recalled memories\n"), "{ctx}");
    assert!(
        ctx.contains("Notes marked `team` come from the project's team memory"),
        "{ctx}"
    );
    assert!(
        ctx.contains("## Smoke test before deploy (smoke-before-deploy, team)\n"),
        "{ctx}"
    );
    assert!(ctx.contains("## Use pnpm (use-pnpm)\n"), "{ctx}");
    // the team's memory inside the same data fence as a personal one
    let at = ctx.find("(smoke-before-deploy, team)").unwrap();
    assert!(ctx[at..].contains("~~~text\nrun scripts/smoke.sh"), "{ctx}");
    for left_out in ["TEAM-COPY-OF-USE-PNPM", "npm ci", "curl", "Staging frozen"] {
        assert!(!ctx.contains(left_out), "{left_out}: {ctx}");
    }
    // again (the team tier's cache is then used; the memories were injected
    // once in this session already)
    let _ = hook(&s, "UserPromptSubmit", TASK);
    let _ = hook(&s, "SessionStart", "");
    assert_eq!(snapshot(&s.proj()), before, "the hook changed the project");
}

#[test]
fn the_team_cache_has_its_own_key_and_sees_edits() {
    let s = Setup::new();
    let task = ["--task", "rotate the signing key", "--format", "text"];
    assert_eq!(s.recall(&task), "summary: 0 recalled, 0 evicted\n");
    let caches = files_under(&s.home.path().join(".cache/mem"));
    let caches: Vec<_> = caches
        .iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("recall"))
        })
        .collect();
    assert_eq!(caches.len(), 2, "one cache per tier: {caches:?}");
    // an edit of a team file is seen at once (same size, same second)
    let f = s.team().join("smoke-before-deploy.md");
    let text = std::fs::read_to_string(&f).unwrap();
    let edited = text.replace("[\"deploy\", \"install\"]", "[\"signing\", \"key\"]   ");
    assert_eq!(edited.len(), text.len());
    std::fs::write(&f, edited).unwrap();
    // changed: left out until trusted again
    assert_eq!(s.recall(&task), "summary: 0 recalled, 0 evicted\n");
    s.trust(&s.proj());
    assert_eq!(
        s.recall(&task),
        "RECALL smoke-before-deploy [durable-lesson] (team)\nsummary: 1 recalled, 0 evicted\n"
    );
}

#[test]
fn context_reads_the_team_index_and_memories() {
    let s = Setup::new();
    std::fs::write(
        s.team().join("MEMORY.md"),
        "- [Smoke test before deploy](smoke-before-deploy.md) - run scripts/smoke.sh before every deploy\n",
    )
    .unwrap();
    s.trust(&s.proj());
    let mut c = s.cmd("mem-recall");
    c.args(["context", "--task", TASK]);
    let out = run(c, b"");
    assert!(out.status.success(), "{}", show(&out));
    let doc = String::from_utf8(out.stdout).unwrap();
    assert!(
        doc.contains("# Team memory index (.claude/team-memory/MEMORY.md)\n\n- [Smoke test before deploy](smoke-before-deploy.md)"),
        "{doc}"
    );
    assert!(doc.contains("(smoke-before-deploy, team)"), "{doc}");
    assert!(!doc.contains("TEAM-COPY-OF-USE-PNPM"), "{doc}");
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {}", show(&out));
}

#[test]
fn dream_plans_the_team_tier_and_writes_nothing() {
    let s = Setup::new();
    let before = snapshot(s.home.path());
    let dream = |args: &[&str]| {
        let mut c = s.cmd("mem-dream");
        c.args(["--tier", "team"]).args(args);
        run(c, b"")
    };
    // a plain run (which would apply for the personal tier), a dry run, a diff
    let out = dream(&["--format", "jsonl"]);
    assert!(out.status.success(), "{}", show(&out));
    let ops = records(&String::from_utf8(out.stdout.clone()).unwrap());
    let has = |op: &str, id: &str| ops.iter().any(|o| o["op"] == op && o["id"] == id);
    assert!(
        ops.iter().any(|o| o["op"] == "merge"
            && o["id"] == "smoke-before-deploy"
            && o["from"] == serde_json::json!(["smoke-before-deploy-2"])),
        "{ops:#?}"
    );
    assert!(has("retire", "staging-frozen"), "{ops:#?}");
    assert!(ops.iter().any(|o| o["op"] == "index"), "{ops:#?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nothing written"), "{err}");
    assert!(err.contains("git apply team.diff"), "{err}");
    assert!(dream(&["--dry-run"]).status.success());
    let out = dream(&["--diff"]);
    assert!(out.status.success(), "{}", show(&out));
    let diff = String::from_utf8(out.stdout).unwrap();
    assert!(
        diff.contains("+++ b/.claude/team-memory/MEMORY.md\n"),
        "{diff}"
    );
    assert!(
        diff.contains("--- a/.claude/team-memory/staging-frozen.md\n+++ /dev/null\n"),
        "{diff}"
    );
    // undo and sessions are refused; nothing is written either way
    let out = dream(&["undo"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("never writes the team tier"));
    let out = dream(&["--transcripts", "."]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    // byte-identical: the team folder, the personal folder, the cache
    assert_eq!(snapshot(s.home.path()), before);

    // The documented apply path: `git apply` from the repository root.
    git(&s.proj(), &["init", "-q"]);
    git(&s.proj(), &["add", "-A"]);
    git(&s.proj(), &["commit", "-qm", "team tier"]);
    let plan = s.home.path().join("team.diff");
    std::fs::write(&plan, &diff).unwrap();
    git(&s.proj(), &["apply", plan.to_str().unwrap()]);
    assert!(s.team().join("MEMORY.md").is_file());
    assert!(s.team().join("retired/staging-frozen.md").is_file());
    assert!(!s.team().join("staging-frozen.md").exists());
    // the applied index is the team tier's derived one: check passes
    let mut c = s.cmd("mem-index");
    c.args(["check", "--tier", "team", "--format", "jsonl"]);
    let out = run(c, b"");
    let found = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(!found.contains("\"level\":\"error\""), "{}", show(&out));
    assert!(
        std::fs::read_to_string(s.team().join("MEMORY.md"))
            .unwrap()
            .contains("(smoke-before-deploy.md)"),
    );
    // once applied, nothing is left to plan but the index op
    let out = dream(&["--diff"]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert!(String::from_utf8_lossy(&out.stderr).contains("0 file change(s) planned"));
}

#[test]
fn no_hook_runs_the_team_tier_consolidation() {
    for h in mem_core::hooks::HOOKS {
        assert!(!h.command.contains("--tier"), "{h:?}");
    }
}

#[test]
fn the_team_tier_is_read_from_the_checkout_of_the_working_directory() {
    // The team tier is committed: a linked worktree reads its own checkout
    // (the one `mem-index promote` writes to there), whatever the worktree
    // setting of the personal directory says.
    let s = Setup::new();
    let main = s.proj();
    git(&main, &["init", "-q", "-b", "main"]);
    git(&main, &["add", "-A"]);
    git(&main, &["commit", "-qm", "team tier"]);
    let wt = s.home.path().join("wt");
    git(
        &main,
        &["worktree", "add", "-q", "-b", "other", wt.to_str().unwrap()],
    );
    // the linked worktree's own copy says something else
    std::fs::write(
        wt.join(".claude/team-memory/use-npm.md"),
        "---\nname: \"Worktree rule\"\ndescription: \"WORKTREE-COPY\"\ntype: project\ntriggers: [\"install\"]\n---\nx\n",
    )
    .unwrap();
    // each checkout is trusted on its own
    s.trust(&wt);
    let recall = |dir: &std::path::Path, per_worktree: bool| {
        let mut c = s.cmd("mem-recall");
        c.current_dir(dir).args([
            "--task", "install", "--tier", "team", "--format", "markdown",
        ]);
        if per_worktree {
            c.env("MEM_PER_WORKTREE", "1");
        }
        let out = run(c, b"");
        assert!(out.status.success(), "{}", show(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    for per_worktree in [false, true] {
        let own = recall(&wt, per_worktree);
        assert!(own.contains("WORKTREE-COPY"), "{own}");
        assert!(!own.contains("packages are installed with npm"), "{own}");
        let at_main = recall(&main, per_worktree);
        assert!(
            at_main.contains("packages are installed with npm"),
            "{at_main}"
        );
        assert!(!at_main.contains("WORKTREE-COPY"), "{at_main}");
    }
}
