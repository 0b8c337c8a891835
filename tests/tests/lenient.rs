//! Memories Claude Code or a person wrote by hand are read leniently and
//! recalled; `mem-index check` says what was read leniently.

use mem_tests::{cmd, run, show};
use serde_json::Value;

const ZH_LESSON: &str = "---\nname: 先运行 setup\ndescription: build-token 需要 fixture，先运行 setup\nscope: project\ntrigger: build-token\nexpires: \"never\"\n---\n事实：先运行 setup 再运行 build-token。\n为什么：data/fixture.json 由 setup 生成。\n怎么用：验证前运行 node src/setup.mjs。\n";
const UNKNOWN_KIND: &str = "---\nname: Deploy from main\ndescription: Deploy only from the main branch\ntype: feedback\nkind: habit\ntriggers: [deploy]\n---\nFact: Deploy from main.\nWhy: CI only builds main.\nHow to apply: git switch main first.\n";

/// Run `tool ARGS --format jsonl --memory-dir M --cwd HOME`.
fn jsonl(tool: &str, home: &std::path::Path, args: &[&str]) -> std::process::Output {
    let mut c = cmd(tool, home);
    c.args(args)
        .args(["--format", "jsonl", "--memory-dir"])
        .arg(home.join("memory"))
        .arg("--cwd")
        .arg(home);
    run(c, b"")
}

fn lines(out: &std::process::Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Regression: both files were left out of recall with a stderr warning.
#[test]
fn hand_written_memories_are_recalled_and_checked() {
    let home = tempfile::tempdir().unwrap();
    let m = home.path().join("memory");
    std::fs::create_dir_all(&m).unwrap();
    std::fs::write(m.join("setup-first.md"), ZH_LESSON).unwrap();
    std::fs::write(m.join("deploy-main.md"), UNKNOWN_KIND).unwrap();
    let recall = |task: &str| {
        let out = jsonl("mem-recall", home.path(), &["--task", task]);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        assert!(out.stderr.is_empty(), "{}", show(&out));
        lines(&out)
            .into_iter()
            .filter(|d| d["action"] == "recall")
            .map(|d| d["id"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(recall("run build-token"), ["setup-first"]);
    assert_eq!(recall("deploy the app"), ["deploy-main"]);

    let out = jsonl("mem-index", home.path(), &["check"]);
    let lenient: Vec<(String, String)> = lines(&out)
        .into_iter()
        .filter(|f| f["code"] == "lenient")
        .map(|f| {
            assert_eq!(f["level"], "warning");
            (
                f["file"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        lenient,
        [
            (
                "deploy-main.md".to_string(),
                "unknown kind \"habit\": kept as written, read with the type's default".to_string()
            ),
            (
                "setup-first.md".to_string(),
                "unknown scope \"project\": kept as written".to_string()
            ),
            (
                "setup-first.md".to_string(),
                "missing `type`: read as feedback (write it to make it explicit)".to_string()
            ),
        ]
    );

    // the unknown kind is shown as written
    let out = jsonl("mem-index", home.path(), &["list"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let deploy = lines(&out)
        .into_iter()
        .find(|r| r["id"] == "deploy-main")
        .unwrap();
    assert_eq!(deploy["kind"], "habit");
}
