//! Consolidation by meaning, scored on a labelled set of pairs through the
//! real `mem-dream` binary: paraphrased duplicates (merge), contradictions
//! on the same subject (the newer supersedes the older), and look-alikes
//! that share words but not a subject (kept apart).

use std::path::Path;
use std::process::Output;

/// What consolidation should do with a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    /// The same subject and value: one memory.
    Merge,
    /// The same subject, another value: the newer retires the older.
    Supersede,
    /// Different subjects: both stay.
    Apart,
}
use Want::*;

/// `(label, memory type, older description, newer description)`.
const PAIRS: &[(Want, &str, &str, &str)] = &[
    // paraphrased duplicates
    (
        Merge,
        "feedback",
        "Don't mock the database in tests",
        "Never use mocks for database tests",
    ),
    (
        Merge,
        "feedback",
        "Use 2-space indentation",
        "Indent with two spaces",
    ),
    (
        Merge,
        "feedback",
        "Never mock the database in integration tests",
        "Don't mock the database in integration tests",
    ),
    (
        Merge,
        "feedback",
        "Use pnpm for installing packages",
        "Install packages with pnpm",
    ),
    (
        Merge,
        "project",
        "The project uses Bun",
        "Bun is the project's runtime",
    ),
    (
        Merge,
        "feedback",
        "Use Node 20 for the api service",
        "The api service runs on Node 20",
    ),
    (
        Merge,
        "project",
        "Deploys go through GitHub Actions",
        "Deployment runs on GitHub Actions",
    ),
    (
        Merge,
        "feedback",
        "Always run the linter before committing",
        "Run the linter before every commit, always",
    ),
    (
        Merge,
        "feedback",
        "Use vitest instead of jest",
        "Prefer vitest over jest",
    ),
    (
        Merge,
        "feedback",
        "Use uv to manage Python dependencies",
        "Manage Python dependencies with uv",
    ),
    (
        Merge,
        "feedback",
        "Indent YAML files with 2 spaces",
        "Use two-space indentation in YAML files",
    ),
    (
        Merge,
        "project",
        "The database is Postgres",
        "We use PostgreSQL as the database",
    ),
    (
        Merge,
        "feedback",
        "Never commit directly to main",
        "Don't push commits straight to main",
    ),
    // contradictions: the newer supersedes the older
    (
        Supersede,
        "feedback",
        "Use Node 18 for the api service",
        "Use Node 20 for the api service",
    ),
    (
        Supersede,
        "project",
        "The project uses Bun",
        "The project uses Node, not Bun",
    ),
    (
        Supersede,
        "project",
        "Deploys go through GitHub Actions",
        "Deploys now go through Buildkite",
    ),
    (
        Supersede,
        "feedback",
        "Always run the linter before committing",
        "Don't run the linter before committing, CI does it",
    ),
    (
        Supersede,
        "feedback",
        "Use npm for installing packages",
        "Use pnpm for installing packages",
    ),
    (
        Supersede,
        "feedback",
        "Use 2-space indentation",
        "Use 4-space indentation",
    ),
    (
        Supersede,
        "feedback",
        "Indent with tabs",
        "Indent with two spaces",
    ),
    (
        Supersede,
        "feedback",
        "Use Python 3.11 for the scripts",
        "Use Python 3.12 for the scripts",
    ),
    (
        Supersede,
        "feedback",
        "Use jest for unit tests",
        "Use vitest for unit tests",
    ),
    (
        Supersede,
        "feedback",
        "Always squash commits before merging",
        "Never squash commits before merging",
    ),
    (
        Supersede,
        "feedback",
        "Use yarn instead of npm",
        "Use npm instead of yarn",
    ),
    (
        Supersede,
        "project",
        "The database is MySQL",
        "The database is Postgres",
    ),
    (
        Supersede,
        "feedback",
        "Mock the database in unit tests",
        "Never mock the database in unit tests",
    ),
    // look-alikes: shared words, another subject
    (
        Apart,
        "feedback",
        "Use Node 20 for the api service",
        "Use Node 20 for the web frontend",
    ),
    (
        Apart,
        "project",
        "Deploys go through GitHub Actions",
        "Tests run on GitHub Actions",
    ),
    (
        Apart,
        "feedback",
        "Don't mock the database in tests",
        "Don't mock the clock in tests",
    ),
    (
        Apart,
        "feedback",
        "Use 2-space indentation in YAML files",
        "Use 4-space indentation in Python files",
    ),
    (
        Apart,
        "feedback",
        "Always run the linter before committing",
        "Always run the tests before pushing",
    ),
    (
        Apart,
        "feedback",
        "Use pnpm for installing packages",
        "Use pnpm workspaces for the monorepo",
    ),
    (
        Apart,
        "project",
        "The project uses Bun",
        "The docs site uses Node",
    ),
    (
        Apart,
        "feedback",
        "Never push to main",
        "Never push to the release branch",
    ),
    (
        Apart,
        "feedback",
        "Use Python 3.12 for the scripts",
        "Use Node 20 for the scripts",
    ),
    (
        Apart,
        "feedback",
        "Run the linter before committing",
        "Run the formatter before committing",
    ),
    (
        Apart,
        "feedback",
        "Prefer small pull requests",
        "Prefer small functions",
    ),
    (
        Apart,
        "feedback",
        "Always use the staging database for migrations",
        "Never use the production database for migrations",
    ),
    (
        Apart,
        "feedback",
        "Use Node 18 for the api service",
        "Use Python 3.12 for the api service",
    ),
];

/// A topic file as mem writes it, verified on `day`.
fn topic(desc: &str, ty: &str, day: &str, line: usize) -> String {
    let q = |s: &str| serde_json::to_string(s).unwrap();
    format!(
        "---\nname: {}\ndescription: {}\ntype: {ty}\nsource: user\ntrust: normal\nverified_at: {day}\nevidence: [\"transcript:aaaaaaaaaaaa#{line}\"]\n---\nFact: {desc}\n",
        q(desc),
        q(desc)
    )
}

fn run(home: &mem_tests::Home, dir: &Path, extra: &[&str]) -> Output {
    let mut c = home.command(env!("CARGO_BIN_EXE_mem-dream"));
    c.args([
        "--memory-dir",
        dir.to_str().unwrap(),
        "--format",
        "jsonl",
        "--force",
    ])
    .args(extra)
    .env("MEM_TODAY", "2026-07-01");
    c.output().unwrap()
}

/// The plan of a successful run: its JSONL ops, and its stdout to show.
fn plan(home: &mem_tests::Home, dir: &Path, extra: &[&str]) -> (Vec<serde_json::Value>, String) {
    let o = run(home, dir, extra);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let ops = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (ops, out)
}

/// What a dry run plans for the pair `older`/`newer`.
fn judge(home: &mem_tests::Home, n: usize, ty: &str, older: &str, newer: &str) -> (Want, String) {
    let dir = home.path().join(format!("m{n}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("older.md"), topic(older, ty, "2026-06-01", 1)).unwrap();
    std::fs::write(dir.join("newer.md"), topic(newer, ty, "2026-06-20", 2)).unwrap();
    let (ops, out) = plan(home, &dir, &["--dry-run"]);
    let merged = ops.iter().any(|o| o["op"] == "merge");
    let superseded = ops
        .iter()
        .any(|o| o["op"] == "supersede" && o["id"] == "older" && o["superseded_by"] == "newer");
    let got = match (merged, superseded) {
        (true, false) => Merge,
        (false, true) => Supersede,
        (false, false) => Apart,
        _ => panic!("both merged and superseded: {out}"),
    };
    (got, out)
}

/// The labelled set, scored. Every look-alike stays apart (a wrong merge
/// loses a memory); the duplicates and contradictions are scored together.
#[test]
fn the_labelled_pairs_are_consolidated_by_meaning() {
    assert!(PAIRS.len() >= 30);
    let home = mem_tests::Home::new();
    let mut right = 0;
    let mut wrong = Vec::new();
    for (n, &(want, ty, older, newer)) in PAIRS.iter().enumerate() {
        let (got, out) = judge(&home, n, ty, older, newer);
        if got == want {
            right += 1;
        } else {
            wrong.push(format!(
                "{want:?} got {got:?}: {older:?} / {newer:?}\n{out}"
            ));
        }
    }
    let score = right as f64 / PAIRS.len() as f64;
    println!(
        "consolidation by meaning: {right} of {} pairs right ({:.0}%)",
        PAIRS.len(),
        score * 100.0
    );
    for w in &wrong {
        println!("MISS {w}");
    }
    let false_merges: Vec<&String> = wrong.iter().filter(|w| w.starts_with("Apart")).collect();
    assert!(
        false_merges.is_empty(),
        "look-alikes consolidated: {false_merges:#?}"
    );
    assert!(
        score >= MIN_SCORE,
        "score {score:.2} < {MIN_SCORE}: {wrong:#?}"
    );
}

/// The least share of the labelled set that must come out right (38 of
/// 39 today; before consolidation by meaning, 15: only the look-alikes and
/// the two mirror-form contradictions).
const MIN_SCORE: f64 = 0.95;

/// A real run: the older memory of a contradiction moves to `retired/`
/// with `superseded_by`, the plan says which and why, and `undo` brings it
/// back; a paraphrase merges into one file.
#[test]
fn a_run_supersedes_and_merges_by_meaning_and_undo_restores() {
    let home = mem_tests::Home::new();
    let dir = home.path().join("mem");
    std::fs::create_dir_all(&dir).unwrap();
    let files = [
        (
            "node-18",
            "Use Node 18 for the api service",
            "2026-06-01",
            1,
        ),
        (
            "node-20",
            "Use Node 20 for the api service",
            "2026-06-20",
            2,
        ),
        (
            "no-db-mocks",
            "Don't mock the database in tests",
            "2026-06-02",
            3,
        ),
        (
            "no-mocks-db",
            "Never use mocks for database tests",
            "2026-06-03",
            4,
        ),
        ("clock", "Don't mock the clock in tests", "2026-06-04", 5),
    ];
    for (id, desc, day, line) in files {
        std::fs::write(
            dir.join(format!("{id}.md")),
            topic(desc, "feedback", day, line),
        )
        .unwrap();
    }
    let before: Vec<(String, Vec<u8>)> = files
        .iter()
        .map(|(id, ..)| {
            (
                id.to_string(),
                std::fs::read(dir.join(format!("{id}.md"))).unwrap(),
            )
        })
        .collect();
    let (ops, out) = plan(&home, &dir, &[]);
    let sup = ops.iter().find(|o| o["op"] == "supersede").expect(&out);
    assert_eq!(
        (sup["id"].as_str(), sup["superseded_by"].as_str()),
        (Some("node-18"), Some("node-20"))
    );
    let why = sup["reason"].as_str().unwrap();
    assert!(
        why.contains("node version") && why.contains("20") && why.contains("newer"),
        "{why}"
    );
    let merge = ops.iter().find(|o| o["op"] == "merge").expect(&out);
    assert_eq!(merge["id"], "no-db-mocks");
    assert_eq!(merge["from"], serde_json::json!(["no-mocks-db"]));
    assert!(
        merge["reason"]
            .as_str()
            .unwrap()
            .starts_with("same meaning"),
        "{merge}"
    );
    let retired = std::fs::read_to_string(dir.join("retired/node-18.md")).unwrap();
    assert!(retired.contains("superseded_by: \"node-20\""), "{retired}");
    assert!(!dir.join("node-18.md").exists() && !dir.join("no-mocks-db.md").exists());
    assert!(dir.join("clock.md").exists(), "a look-alike stays");
    let kept = std::fs::read_to_string(dir.join("no-db-mocks.md")).unwrap();
    assert!(
        kept.contains("transcript:aaaaaaaaaaaa#4"),
        "evidence united: {kept}"
    );

    let o = home
        .command(env!("CARGO_BIN_EXE_mem-dream"))
        .args(["--memory-dir", dir.to_str().unwrap(), "undo"])
        .env("MEM_TODAY", "2026-07-01")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for (id, bytes) in before {
        assert_eq!(
            std::fs::read(dir.join(format!("{id}.md"))).unwrap(),
            bytes,
            "{id}"
        );
    }
}
