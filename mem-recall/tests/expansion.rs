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
    let run = |task: &str| recalled(&ok(&env.run(&task_args(m, task), "")));
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
    let args = task_args(m, "the flob registry is stale");
    assert!(recalled(&ok(&env.run(&args, ""))).is_empty());
    let voc = env.path().join("home/.config/mem/vocabulary.txt");
    write(&voc, "# ours\nflob, widget\n");
    assert_eq!(recalled(&ok(&env.run(&args, ""))), ["flob"]);
    // MEM_VOCABULARY names another file; a bad line is an error naming it.
    let bad = env.path().join("bad.txt");
    write(&bad, "flob, widget\nlonely\n");
    let o = env.run_cmd(env.cmd().args(&args).env("MEM_VOCABULARY", &bad), "");
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

/// A user's vocabulary file is read like every other file mem does not
/// own: only a regular file, never waiting on it, at most 1 MiB.
#[test]
fn a_users_vocabulary_file_that_is_not_a_small_regular_file_is_refused() {
    let env = Env::new();
    let mem = env.path().join("mem");
    write(&mem.join("real-db.md"), DB);
    let m = mem.to_str().unwrap();
    let args = [
        "--memory-dir",
        m,
        "--task",
        "the database",
        "--today",
        "2026-07-11",
    ];
    let refused = |voc: &std::path::Path, why: &str| {
        let o = env.run_cmd(env.cmd().args(args).env("MEM_VOCABULARY", voc), "");
        assert_eq!(o.status.code(), Some(1), "{}", voc.display());
        let err = stderr(&o);
        assert!(err.contains(&format!("{}: {why}", voc.display())), "{err}");
        assert!(o.stdout.is_empty());
    };
    // a device that never ends: refused at once, nothing read
    refused(
        std::path::Path::new("/dev/zero"),
        "is a device, not a regular file",
    );
    // a FIFO nobody writes to: refused, never waited on
    let fifo = env.path().join("voc.fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    refused(&fifo, "is a FIFO, not a regular file");
    // larger than 1 MiB: refused with its size
    let big = env.path().join("big.txt");
    write(&big, &"flob, widget\n".repeat(90_000));
    refused(&big, "is larger than 1048576 bytes (1170000 bytes)");
}

/// A user's group of thousands of terms costs time linear in its size (each
/// term's alternatives were collected with a scan of the list so far: a
/// group of 10,000 took 30 s) and scores as a small group does.
#[test]
fn a_users_very_large_group_scores_as_a_small_one() {
    let env = Env::new();
    let mem = env.path().join("mem");
    write(
        &mem.join("gizmo.md"),
        "---\nname: zzbuild9999 toolchain\ndescription: zzbuild9999 needs the gizmo toolchain\ntype: project\n---\nInstall the zzbuild9999 toolchain first.\n",
    );
    let terms: Vec<String> = (0..10_000).map(|i| format!("zzbuild{i}")).collect();
    let large = env.path().join("large.txt");
    write(&large, &format!("{}\n", terms.join(", ")));
    let small = env.path().join("small.txt");
    write(&small, "zzbuild0, zzbuild9999\n");
    let m = mem.to_str().unwrap();
    let mut args = task_args(m, "run zzbuild0 again");
    args.extend(["--explain", "--no-cache"]);
    let run = |voc: &std::path::Path| {
        ok(&env.run_cmd(env.cmd().args(&args).env("MEM_VOCABULARY", voc), ""))
    };
    let out = run(&large);
    assert!(
        out.starts_with(r#"{"action":"skip","id":"gizmo","reason":"no-match","score":3.39,"#),
        "{out}"
    );
    assert_eq!(out, run(&small));
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
