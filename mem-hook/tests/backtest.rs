//! `mem-hook backtest` through the real binary on three small sessions:
//! the first learns "never npm, always pnpm", the second and third repeat
//! the correction; the second's first prompt names npm (recall finds the
//! lesson, and says which word matched), the third's does not (and says
//! why: `no-match`).

mod util;

use mem_hook::backtest::{BacktestSummary, Repeat};
use util::*;

fn fixtures() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/backtest")
}

const LESSON: &str = "no-never-use-npm-in-this-repo-always-use";

#[test]
fn sessions_replay_in_time_order_and_repeats_are_reported() {
    let env = Env::new();
    let f = fixtures();
    let out = ok(&env.hook(&["backtest", f.to_str().unwrap()], ""));
    assert_eq!(
        out,
        format!(
            "| session | date | lesson | kind | op | learned in | recalled |\n\
             |---|---|---|---|---|---|---|\n\
             | 22222222 | 2026-07-05 | {LESSON} | preference | update | 11111111 | yes (npm) |\n\
             | 03333333 | 2026-07-09 | {LESSON} | preference | update | 11111111 | no (no-match) |\n\
             3 sessions, 1 memory written; 2 lessons repeated, 1 would have been recalled\n"
        )
    );
    let out = ok(&env.hook(&["backtest", f.to_str().unwrap(), "--format", "jsonl"], ""));
    // Every line read back into its type and written again byte for byte.
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3);
    let recs: Vec<Repeat> = lines[..2]
        .iter()
        .map(|l| {
            let r: Repeat = serde_json::from_str(l).unwrap();
            assert_eq!(serde_json::to_string(&r).unwrap(), *l);
            r
        })
        .collect();
    assert_eq!(recs[0].session, "22222222-bbbb-4bbb-8bbb-000000000002");
    assert_eq!(recs[0].learned_in, "11111111-aaaa-4aaa-8aaa-000000000001");
    assert!(recs[0].recalled);
    assert_eq!(recs[0].matched, ["npm"]);
    assert!(!lines[0].contains("why_not"));
    assert!(!recs[1].recalled);
    assert_eq!(recs[1].why_not, "no-match");
    assert!(!lines[1].contains("matched"));
    let sum: BacktestSummary = serde_json::from_str(lines[2]).unwrap();
    assert_eq!(serde_json::to_string(&sum).unwrap(), lines[2]);
    assert_eq!(
        sum,
        BacktestSummary {
            summary: "2 lessons repeated, 1 would have been recalled".into(),
            sessions: 3,
            created: 1,
            repeated: 2,
            recalled: 1
        }
    );
}

#[test]
fn keep_writes_the_memory_dir_and_refuses_a_full_one() {
    let env = Env::new();
    let f = fixtures();
    let keep = env.path().join("kept");
    ok(&env.hook(
        &[
            "backtest",
            f.to_str().unwrap(),
            "--keep",
            keep.to_str().unwrap(),
        ],
        "",
    ));
    assert!(keep.join(format!("{LESSON}.md")).is_file());
    assert!(keep.join("MEMORY.md").is_file());
    let o = env.hook(
        &[
            "backtest",
            f.to_str().unwrap(),
            "--keep",
            keep.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("the folder is not empty"),
        "{}",
        stderr(&o)
    );
    let o = env.hook(&["backtest", env.path().join("none").to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no such file or folder"),
        "{}",
        stderr(&o)
    );
}
