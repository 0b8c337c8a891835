//! Trigger-less memories, the expansion vocabulary and evictions that bear
//! on the task, through the real binary.

mod util;

use util::*;

fn recalled(out: &str) -> Vec<String> {
    out.lines()
        .map(|l| serde_json::from_str::<mem_core::RecallDecision>(l).unwrap())
        .filter_map(|d| match d {
            mem_core::RecallDecision::Recall(r) => Some(r.id),
            _ => None,
        })
        .collect()
}

const DB: &str = "---\nname: Real database in integration tests\ndescription: Integration tests must hit a real Postgres instance, not mocks\ntype: feedback\n---\n\nIntegration tests run against a real database, never mocks.\n";
const SUITE: &str = "---\nname: Testsuite isolation\ndescription: Each test needs its own temp dir; shared paths make the testsuite flaky\ntype: feedback\n---\n\nGive every test its own temporary directory.\n";

#[test]
fn a_synonym_recalls_a_memory_without_triggers_and_explain_says_via() {
    let env = Env::new();
    let mem = env.path().join("mem");
    write(&mem.join("real-db.md"), DB);
    write(&mem.join("suite.md"), SUITE);
    let m = mem.to_str().unwrap();
    let task = "write a spec against the datastore, no fakes";
    let args = ["--memory-dir", m, "--task", task, "--today", "2026-07-11"];
    let out = ok(&env.run(&[&args[..], &["--format", "jsonl"]].concat(), ""));
    assert_eq!(recalled(&out), ["real-db"]);
    let line = out.lines().next().unwrap();
    let d: mem_core::RecallDecision = serde_json::from_str(line).unwrap();
    let mem_core::RecallDecision::Recall(d) = d else {
        panic!("{d:?}")
    };
    assert_eq!(
        d.matched,
        [
            "test (via spec)",
            "database (via datastore)",
            "mock (via fakes)"
        ]
    );
    let text = ok(&env.run(
        &[&args[..], &["--format", "text", "--explain"]].concat(),
        "",
    ));
    assert!(
        text.starts_with("RECALL real-db [durable-lesson] — score "),
        "{text}"
    );
    assert!(text.contains("database (via datastore)"), "{text}");
    // Lexical only: nothing.
    let out = ok(&env.run(
        &[&args[..], &["--format", "jsonl", "--no-expand"]].concat(),
        "",
    ));
    assert!(recalled(&out).is_empty(), "{out}");
}

#[test]
fn split_and_compound_forms_meet_and_chinese_tasks_meet_english_memories() {
    let env = Env::new();
    let mem = env.path().join("mem");
    write(&mem.join("real-db.md"), DB);
    write(&mem.join("suite.md"), SUITE);
    let m = mem.to_str().unwrap();
    let run = |task: &str| {
        recalled(&ok(&env.run(
            &[
                "--memory-dir",
                m,
                "--task",
                task,
                "--today",
                "2026-07-11",
                "--format",
                "jsonl",
            ],
            "",
        )))
    };
    assert_eq!(run("the test suite is flaky again"), ["suite"]);
    assert_eq!(run("集成测试不要模拟数据库"), ["real-db"]);
    assert!(run("rename the variable foo").is_empty());
    assert!(run("把这个函数重命名").is_empty());
}

#[test]
fn a_users_vocabulary_file_extends_the_builtin_one() {
    let env = Env::new();
    let mem = env.path().join("mem");
    write(
        &mem.join("flob.md"),
        "---\nname: Widget cache\ndescription: the widget registry caches for an hour\ntype: project\n---\nRestart the widget registry after edits.\n",
    );
    let m = mem.to_str().unwrap();
    let args = [
        "--memory-dir",
        m,
        "--task",
        "the flob registry is stale",
        "--today",
        "2026-07-11",
        "--format",
        "jsonl",
    ];
    assert!(recalled(&ok(&env.run(&args, ""))).is_empty());
    let voc = env.path().join("home/.config/mem/vocabulary.txt");
    write(&voc, "# ours\nflob, widget\n");
    assert_eq!(recalled(&ok(&env.run(&args, ""))), ["flob"]);
    // MEM_VOCABULARY names another file; a bad line is an error naming it.
    let bad = env.path().join("bad.txt");
    write(&bad, "flob, widget\nlonely\n");
    let o = env.run_cmd(env.cmd().args(args).env("MEM_VOCABULARY", &bad), "");
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains(&format!(
            "{}:2: a group needs two terms or more",
            bad.display()
        )),
        "{err}"
    );
}

#[test]
fn an_expired_memory_is_evicted_only_when_the_task_bears_on_it() {
    let env = Env::new();
    let mem = env.path().join("mem");
    canonical(&mem);
    let m = mem.to_str().unwrap();
    let run = |task: &str, extra: &[&str]| {
        ok(&env.run(
            &[
                &[
                    "--memory-dir",
                    m,
                    "--task",
                    task,
                    "--today",
                    "2026-07-13",
                    "--format",
                    "text",
                ][..],
                extra,
            ]
            .concat(),
            "",
        ))
    };
    assert_eq!(
        run("fix the typo in the README", &[]),
        "summary: 0 recalled, 0 evicted\n"
    );
    assert_eq!(
        run("fix the typo in the README", &["--all"]),
        "EVICT  mirror-slow-on-0711 — expired (expires 2026-07-12 < 2026-07-13), not injected\nsummary: 0 recalled, 1 evicted\n"
    );
    assert!(
        run("fix the typo in the README", &["--explain"])
            .contains("SKIP   mirror-slow-on-0711 — expired\n")
    );
    assert_eq!(
        run("the package mirror is slow", &[]),
        "EVICT  mirror-slow-on-0711 — expired (expires 2026-07-12 < 2026-07-13), not injected\nsummary: 0 recalled, 1 evicted\n"
    );
}
