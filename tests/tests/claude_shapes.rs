//! Claude Code's two shapes of memory file live side by side with mem's:
//! a directory of the current shape (tests/fixtures/claude-memory-current:
//! slug names, the type under `metadata:`, `modified` stamps, `[[name]]`
//! links, index lines with ` — `) gets files of that shape from mem, a
//! directory of the older shape (tests/fixtures/claude-memory) keeps its
//! shape, an empty one takes the shape of the Claude Code version of the
//! project's newest session, and Claude Code's own team memory directory is
//! never written. Index lines of long lessons stay short and say something
//! after the title.

use std::path::{Path, PathBuf};
use std::process::Output;

use mem_tests::{cmd, run, stderr, stdout, workspace_root};

/// Run a mem binary with `HOME` in `home` and a pinned clock.
fn mem(name: &str, home: &Path, args: &[&str], stdin: &str) -> Output {
    let mut c = cmd(name, home);
    c.args(args)
        .env("MEM_TODAY", "2026-12-01")
        .env("MEM_NOW", "2026-12-01T10:00:00Z");
    let mut input = stdin.to_string();
    if !input.is_empty() && !input.ends_with('\n') {
        input.push('\n');
    }
    run(c, input.as_bytes())
}

fn ok(o: &Output, what: &str) -> String {
    assert!(o.status.success(), "{what}: {}\n{}", stdout(o), stderr(o));
    stdout(o)
}

/// `mem-index --memory-dir D ARGS` with `stdin`: its stdout, after asserting
/// that it succeeded (`what` names the step).
fn mem_index(home: &Path, d: &str, args: &[&str], stdin: &str, what: &str) -> String {
    let args: Vec<&str> = ["--memory-dir", d].iter().chain(args).copied().collect();
    ok(&mem("mem-index", home, &args, stdin), what)
}

/// Copy fixture `name` into `dir`.
fn copy_fixture(name: &str, dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    for e in std::fs::read_dir(workspace_root().join("tests/fixtures").join(name)).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
    }
}

fn read(p: PathBuf) -> String {
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A lesson as `mem-extract` writes it: a long name, the description the
/// same text again.
const LONG_LESSON: &str = r#"{"name":"Run scripts/setup.sh before the integration tests because data/fixture.json is generated","description":"Run scripts/setup.sh before the integration tests because data/fixture.json is generated","type":"feedback","kind":"durable-lesson","why":"a fresh clone lacks the git-ignored fixture","evidence":["transcript:0123456789ab#4"],"verified_at":"2026-11-30"}"#;

#[test]
fn a_directory_of_the_current_shape_gets_files_of_that_shape() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("memory");
    copy_fixture("claude-memory-current", &dir);
    let d = dir.to_str().unwrap();
    let claude_db = read(dir.join("real-database-tests.md"));
    let claude_vpn = read(dir.join("staging-vpn.md"));

    mem_index(home.path(), d, &["write"], LONG_LESSON, "write");
    let id = "run-scripts-setup-sh-before-the";
    let file = read(dir.join(format!("{id}.md")));
    assert!(
        file.starts_with(&format!(
            "---\nname: {id}\ndescription: \"Run scripts/setup.sh before the integration tests because data/fixture.json is generated\"\nmetadata:\n  type: feedback\nkind: durable-lesson\n"
        )),
        "{file}"
    );
    assert!(
        file.contains("\nmodified: \"2026-12-01T10:00:00.000Z\"\n"),
        "{file}"
    );
    assert!(!file.contains("\ntype: "), "{file}");
    // Claude Code's files are untouched; its lines too; mem's line is in
    // Claude Code's form, with a description that adds to the title
    assert_eq!(read(dir.join("real-database-tests.md")), claude_db);
    assert_eq!(read(dir.join("staging-vpn.md")), claude_vpn);
    let index = read(dir.join("MEMORY.md"));
    // the title is cut (the link never is) to stay under 150 characters
    let line = format!(
        "- [Run scripts/setup.sh before the integration tests because data…]({id}.md) — a fresh clone lacks the git-ignored fixture"
    );
    assert_eq!(line.chars().count(), 149);
    assert_eq!(
        index,
        format!(
            "- [Integration tests hit a real database](real-database-tests.md) — a mocked migration passed while prod broke\n- [Staging deploys go through the VPN](staging-vpn.md) — deploy.sh times out off the VPN; see the runbook\n{line}\n"
        )
    );
    // the hook shows the title, not the slug
    let mut c = cmd("mem-hook", home.path());
    c.env("MEM_MEMORY_DIR", d);
    let hook = stdout(&run(
        c,
        br#"{"hook_event_name":"UserPromptSubmit","prompt":"run setup.sh before the integration tests","cwd":"/tmp","session_id":"s1"}"#,
    ));
    assert!(
        hook.contains(&format!("\\n## Run scripts/setup.sh before the integration tests because data/fixture.json is generated ({id})\\n")),
        "{hook}"
    );
    // a reindex keeps the title the file's slug name does not hold
    mem_index(home.path(), d, &["reindex"], "", "reindex");
    assert_eq!(read(dir.join("MEMORY.md")), index);
    // the same lesson again changes nothing (no new stamp either)
    let again = mem_index(
        home.path(),
        d,
        &["write", "--format", "jsonl"],
        LONG_LESSON,
        "write again",
    );
    assert!(
        again.starts_with(&format!("{{\"op\":\"unchanged\",\"id\":\"{id}\"")),
        "{again}"
    );
    assert_eq!(read(dir.join(format!("{id}.md"))), file);

    // list and show expose the links; a link's name recalls the memory
    let list = mem_index(home.path(), d, &["list", "--format", "jsonl"], "", "list");
    let vpn: serde_json::Value = list
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["id"] == "staging-vpn")
        .unwrap();
    assert_eq!(vpn["links"], serde_json::json!(["real-database-tests"]));
    assert_eq!(vpn["type"], "project");
    assert_eq!(vpn["metadata"]["scope"], "team-wide");
    let show = ok(
        &mem(
            "mem-index",
            home.path(),
            &[
                "--memory-dir",
                d,
                "show",
                "real-database-tests",
                "--format",
                "jsonl",
            ],
            "",
        ),
        "show",
    );
    let v: serde_json::Value = serde_json::from_str(show.trim()).unwrap();
    assert_eq!(v["links"], serde_json::json!(["staging-vpn"]));
    assert_eq!(v["name"], "real-database-tests");

    // a record merged into Claude Code's file keeps its shape, its unknown
    // keys byte for byte and its links
    let rec = r#"{"id":"staging-vpn","name":"Staging deploys go through the VPN","description":"Deploys to staging need the VPN up; deploy.sh hangs without it","type":"project","kind":"durable-lesson","verified_at":"2026-12-01","evidence":["transcript:0123456789ab#9"],"body":"Run `vpn up` before `./deploy.sh staging`.\n"}"#;
    ok(
        &mem("mem-index", home.path(), &["--memory-dir", d, "write"], rec),
        "merge",
    );
    let merged = read(dir.join("staging-vpn.md"));
    assert!(
        merged.starts_with("---\nname: staging-vpn\ndescription: Deploys to staging need the VPN up; deploy.sh hangs without it\nmetadata:\n  type: project\n  scope: team-wide\nkind: durable-lesson\n"),
        "{merged}"
    );
    assert!(
        merged.contains("\nx-origin:\n  session: 6f1c2e0a\n  tools: [Bash, Edit]\n"),
        "{merged}"
    );
    assert!(
        merged.contains("\nmodified: \"2026-12-01T10:00:00.000Z\"\n"),
        "{merged}"
    );
    assert!(
        merged.ends_with(
            "---\nRun `vpn up` before `./deploy.sh staging`.\nRelated: [[real-database-tests]]\n"
        ),
        "{merged}"
    );
    // its line is now mem's, still in Claude Code's form, title kept
    let index = read(dir.join("MEMORY.md"));
    assert!(
        index.contains("\n- [Staging deploys go through the VPN](staging-vpn.md) — Deploys to staging need the VPN up; deploy.sh hangs without it\n"),
        "{index}"
    );
    let recall = ok(
        &mem(
            "mem-recall",
            home.path(),
            &[
                "--memory-dir",
                d,
                "--task",
                "the real-database-tests schema",
                "--format",
                "jsonl",
            ],
            "",
        ),
        "recall",
    );
    assert!(recall.contains("\"id\":\"staging-vpn\""), "{recall}");
}

#[test]
fn a_directory_of_the_older_shape_keeps_it() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("memory");
    copy_fixture("claude-memory", &dir);
    let d = dir.to_str().unwrap();
    mem_index(home.path(), d, &["write"], LONG_LESSON, "write");
    let file = read(dir.join("run-scripts-setup-sh-before-the.md"));
    assert!(
        file.starts_with("---\nname: \"Run scripts/setup.sh before the integration tests because data/fixture.json is generated\"\ndescription: \"Run scripts/setup.sh before the integration tests because data/fixture.json is generated\"\ntype: feedback\n"),
        "{file}"
    );
    assert!(
        !file.contains("metadata:") && !file.contains("modified:"),
        "{file}"
    );
    let index = read(dir.join("MEMORY.md"));
    assert!(
        index.contains("\n- [Run scripts/setup.sh before the integration tests because data…](run-scripts-setup-sh-before-the.md) - a fresh clone lacks the git-ignored fixture\n"),
        "{index}"
    );
}

/// An id an earlier mem gave a long name (cut at 64 bytes) stays that
/// memory's file: the same lesson again updates it, no second file.
#[test]
fn an_existing_long_id_stays_stable() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("memory");
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.to_str().unwrap();
    let old_id = "run-scripts-setup-sh-before-the-integration-tests-because-data-f";
    std::fs::write(
        dir.join(format!("{old_id}.md")),
        "---\nname: \"Run scripts/setup.sh before the integration tests because data/fixture.json is generated\"\ndescription: \"Run scripts/setup.sh before the integration tests because data/fixture.json is generated\"\ntype: feedback\nkind: durable-lesson\nsource: assistant\ntrust: normal\nverified_at: 2026-11-01\nevidence: [\"transcript:aaaaaaaaaaaa#1\"]\n---\nFact: Run setup first.\n",
    )
    .unwrap();
    let out = mem_index(
        home.path(),
        d,
        &["write", "--format", "jsonl"],
        LONG_LESSON,
        "write",
    );
    assert!(
        out.contains(&format!("\"op\":\"update\",\"id\":\"{old_id}\"")),
        "{out}"
    );
    let files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .collect();
    assert_eq!(files.len(), 2, "{files:?}"); // the topic and MEMORY.md
    let index = read(dir.join("MEMORY.md"));
    for l in index.lines() {
        assert!(l.chars().count() < 150, "{l}");
    }
    // a different long lesson with the same first words gets its own short id
    let other = LONG_LESSON
        .replace("is generated", "is generated by setup.sh only")
        .replace(
            "\"name\":\"Run scripts/setup.sh before the integration tests",
            "\"name\":\"Run scripts/setup.sh before the integration tests, then seed the cache,",
        );
    let out = mem_index(
        home.path(),
        d,
        &["write", "--format", "jsonl"],
        &other,
        "write other",
    );
    assert!(
        out.contains("\"op\":\"create\",\"id\":\"run-scripts-setup-sh-before-the\""),
        "{out}"
    );
    let third = other.replace("seed the cache", "warm the cache");
    let out = mem_index(
        home.path(),
        d,
        &["write", "--format", "jsonl"],
        &third,
        "write third",
    );
    assert!(
        out.contains("\"op\":\"create\",\"id\":\"run-scripts-setup-sh-before-the-2\""),
        "{out}"
    );
}

/// An empty project memory directory takes the shape of the Claude Code
/// version that wrote the project's newest session.
#[test]
fn an_empty_directory_takes_the_shape_of_the_newest_session() {
    for (version, current) in [("2.1.314", true), ("2.1.39", false)] {
        let home = tempfile::tempdir().unwrap();
        let project = home.path().join(".claude/projects/-home-u-proj");
        let dir = project.join("memory");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            project.join("6f1c2e0a-0000-4000-8000-000000000001.jsonl"),
            format!("{{\"type\":\"user\",\"sessionId\":\"6f1c2e0a-0000-4000-8000-000000000001\",\"version\":\"{version}\",\"message\":{{\"role\":\"user\",\"content\":\"hi\"}}}}\n"),
        )
        .unwrap();
        let d = dir.to_str().unwrap();
        mem_index(home.path(), d, &["write"], LONG_LESSON, version);
        let file = read(dir.join("run-scripts-setup-sh-before-the.md"));
        assert_eq!(
            file.contains("\nmetadata:\n  type: feedback\n"),
            current,
            "{version}: {file}"
        );
        assert_eq!(
            file.contains("\ntype: feedback\n"),
            !current,
            "{version}: {file}"
        );
        let index = read(dir.join("MEMORY.md"));
        assert_eq!(index.contains(".md) — "), current, "{version}: {index}");
    }
}

/// Claude Code's own team memory directory is never written.
#[test]
fn claude_codes_team_memory_directory_is_refused() {
    let home = tempfile::tempdir().unwrap();
    let team = home
        .path()
        .join(".claude/projects/-home-u-proj/memory/team");
    std::fs::create_dir_all(&team).unwrap();
    let t = team.to_str().unwrap();
    for args in [
        vec!["--memory-dir", t, "write"],
        vec!["--memory-dir", t, "reindex"],
    ] {
        let o = mem("mem-index", home.path(), &args, LONG_LESSON);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert_eq!(
            stderr(&o).lines().next().unwrap_or(""),
            format!(
                "mem-index: {t}: Claude Code's own team memory directory (synced with its server at session start); mem never writes there: use the memory directory above it, or `mem-index promote` for the repository's team tier"
            )
        );
    }
    assert_eq!(std::fs::read_dir(&team).unwrap().count(), 0);
}

/// A real Claude Code session of the corpus (2.1.39) beside an empty
/// memory directory: its version is read from its lines, and an older
/// version means the legacy shape. Skipped without ../shared.
#[test]
fn a_real_session_tells_its_version() {
    let Some(shared) = mem_tests::shared_or_skip("a_real_session_tells_its_version") else {
        return;
    };
    let src = shared.join(
        "corpus/marot__spotter/test/fixtures/transcripts/4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
    );
    if !src.is_file() {
        println!("SKIPPED: {} is not in the corpus", src.display());
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".claude/projects/-home-u-proj");
    let dir = project.join("memory");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(&src, project.join(src.file_name().unwrap())).unwrap();
    let (file, version) = mem_core::shape::newest_transcript_version(&project).unwrap();
    assert_eq!(version, "2.1.39", "{}", file.display());
    let d = dir.to_str().unwrap();
    mem_index(home.path(), d, &["write"], LONG_LESSON, "write");
    let file = read(dir.join("run-scripts-setup-sh-before-the.md"));
    assert!(
        file.contains("\ntype: feedback\n") && !file.contains("metadata:"),
        "{file}"
    );
}
