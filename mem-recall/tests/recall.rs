//! The recall gate through the real binary.

mod util;

use util::*;

#[test]
fn canonical_example_exact_lines() {
    let env = Env::new();
    let mem = env.path().join("mem");
    canonical(&mem);
    let m = mem.to_str().unwrap();
    // a recall of "build-token" on `today` in `format`
    let build_token = |today: &str, format: &str| {
        env.run(
            &[
                "--memory-dir",
                m,
                "--task",
                "build-token",
                "--today",
                today,
                "--format",
                format,
            ],
            "",
        )
    };
    let out = ok(&build_token("2026-07-11", "text"));
    assert_eq!(
        out,
        "RECALL fixture-before-verify [durable-lesson]\nRECALL mirror-slow-on-0711 [one-time-state]\nsummary: 2 recalled, 0 evicted\n"
    );
    let out = ok(&build_token("2026-07-13", "text"));
    assert_eq!(
        out,
        "RECALL fixture-before-verify [durable-lesson]\nEVICT  mirror-slow-on-0711 — expired (expires 2026-07-12 < 2026-07-13), not injected\nsummary: 1 recalled, 1 evicted\n"
    );
    // The same as JSONL decisions.
    let out = ok(&build_token("2026-07-13", "jsonl"));
    let recs: Vec<mem_core::RecallDecision> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(recs.len(), 3);
    use mem_core::RecallDecision as D;
    assert!(
        matches!(&recs[0], D::Recall(r) if r.matched == ["build-token"]),
        "{recs:?}"
    );
    let D::Evict(e) = &recs[1] else {
        panic!("{recs:?}")
    };
    assert_eq!(
        (e.expires.unwrap().to_string(), e.today.to_string()),
        ("2026-07-12".to_string(), "2026-07-13".to_string())
    );
    assert!(
        matches!(&recs[2], D::Summary(s) if (s.recalled, s.evicted, s.dropped) == (1, 1, 0)),
        "{recs:?}"
    );
    // Markdown: the lesson's content, never the evicted state.
    let o = build_token("2026-07-13", "markdown");
    let md = ok(&o);
    assert!(md.contains("Run setup before build-token"), "{md}");
    assert!(!md.contains("mirror"), "{md}");
    assert!(
        stderr(&o).contains("EVICT  mirror-slow-on-0711"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn eval_set_every_expected_recalled_none_forbidden() {
    let Some(shared) = shared("eval_set_every_expected_recalled_none_forbidden") else {
        return;
    };
    let env = Env::new();
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_mem-recall"));
    let out = mem_tests::scrub(&mut std::process::Command::new("python3"))
        .arg(shared.join("eval/score_recall.py"))
        .arg(shared.join("eval/recall/memory"))
        .arg(shared.join("eval/recall/tasks.jsonl"))
        .arg("-v")
        .env(
            "PATH",
            format!(
                "{}:{}",
                bin.parent().unwrap().display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("HOME", env.path().join("home"))
        .env("CLAUDE_CONFIG_DIR", env.claude())
        .env("XDG_CACHE_HOME", env.path().join("cache"))
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) => {
            println!("SKIPPED eval_set: python3 not runnable: {e}");
            eprintln!("SKIPPED eval_set: python3 not runnable: {e}");
            return;
        }
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("recall: hits 11/11 (1.00), forbidden recalled 0,")
            && last.ends_with("failed runs 0"),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn unseen_phrasings_of_the_same_needs() {
    let Some(shared) = shared("unseen_phrasings_of_the_same_needs") else {
        return;
    };
    let env = Env::new();
    let m = shared.join("eval/recall/memory");
    let m = m.to_str().unwrap();
    let cases: &[(&str, &[&str], &str, &str)] = &[
        // (task, paths, must recall, must not recall)
        (
            "verify the token build after a fresh clone",
            &[],
            "fixture-before-verify",
            "pnpm-not-npm",
        ),
        (
            "integration tests keep mocking postgres",
            &[],
            "no-db-mocks",
            "grafana-staging",
        ),
        (
            "install a new dependency for the docs site",
            &[],
            "pnpm-not-npm",
            "no-db-mocks",
        ),
        (
            "edit the manifest",
            &["package.json"],
            "pnpm-not-npm",
            "early-returns",
        ),
        (
            "tidy nested if blocks",
            &["src/app/mod.rs"],
            "early-returns",
            "tracing-logging",
        ),
        (
            "install the protobuf compiler",
            &[],
            "proto-gen",
            "pnpm-not-npm",
        ),
        (
            "hand edits to the source strings get lost",
            &[],
            "i18n-keys",
            "api-freeze",
        ),
        (
            "add logging to the order handler",
            &["server/src/orders.rs"],
            "tracing-logging",
            "early-returns",
        ),
        (
            "write a migration for the users table",
            &[],
            "api-freeze",
            "i18n-keys",
        ),
        ("deploying tonight", &[], "vpn-deploy", "release-branch"),
        ("run the test suite", &[], "nextest", "staging-down"),
    ];
    for (task, paths, want, not) in cases {
        let mut args = task_args(m, task);
        for p in *paths {
            args.extend(["--path", p]);
        }
        let out = ok(&env.run(&args, ""));
        let ids: Vec<String> = out
            .lines()
            .map(|l| serde_json::from_str::<mem_core::RecallDecision>(l).unwrap())
            .filter_map(|d| match d {
                mem_core::RecallDecision::Recall(r) => Some(r.id),
                _ => None,
            })
            .collect();
        assert!(
            ids.iter().any(|i| i == want),
            "{task}: {want} not in {ids:?}"
        );
        assert!(!ids.iter().any(|i| i == not), "{task}: {not} in {ids:?}");
    }
}

#[test]
fn budgets_drop_from_the_bottom_and_say_so() {
    let env = Env::new();
    let mem = env.path().join("mem");
    for i in 0..5 {
        write(
            &mem.join(format!("m{i}.md")),
            &format!(
                "---\nname: \"m{i}\"\ndescription: \"deploy note {i}\"\ntype: project\ntriggers: [\"deploy\"{}]\n---\n{}\n",
                if i == 0 { ", \"hotfix\"" } else { "" },
                "x".repeat(100 * (i + 1))
            ),
        );
    }
    let m = mem.to_str().unwrap();
    let out = ok(&env.run(
        &[
            "--memory-dir",
            m,
            "--task",
            "deploy the hotfix",
            "--max-items",
            "2",
            "--format",
            "text",
        ],
        "",
    ));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "RECALL m0 [durable-lesson]", "{out}");
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("DROP   ")).count(),
        3,
        "{out}"
    );
    assert_eq!(
        *lines.last().unwrap(),
        "summary: 2 recalled, 0 evicted, 3 dropped"
    );
    let out = ok(&env.run(
        &[
            "--memory-dir",
            m,
            "--task",
            "deploy",
            "--max-tokens",
            "100",
            "--format",
            "text",
        ],
        "",
    ));
    assert!(out.contains("DROP   "), "{out}");
    assert!(out.contains("max-tokens"), "{out}");
}

#[test]
fn triggers_stems_regex_cjk_and_paths() {
    let env = Env::new();
    let mem = env.path().join("mem");
    for (id, field) in [
        ("a", r#"triggers: ["test"]"#),
        ("b", r#"triggers: ["re:v[0-9]+\\.[0-9]+"]"#),
        ("c", r#"triggers: ["数据库"]"#),
        ("d", r#"paths: ["Cargo.toml"]"#),
        ("e", r#"paths: ["src/*.rs"]"#),
    ] {
        write(
            &mem.join(format!("{id}.md")),
            &format!("---\nname: {id}\ndescription: d\ntype: feedback\n{field}\n---\nx\n"),
        );
    }
    let m = mem.to_str().unwrap();
    let ids = |task: &str, extra: &[&str]| -> Vec<String> {
        let mut args = vec!["--memory-dir", m, "--task", task, "--format", "jsonl"];
        args.extend(extra);
        ok(&env.run(&args, ""))
            .lines()
            .map(|l| serde_json::from_str::<mem_core::RecallDecision>(l).unwrap())
            .filter_map(|d| match d {
                mem_core::RecallDecision::Recall(r) => Some(r.id),
                _ => None,
            })
            .collect()
    };
    assert_eq!(ids("fix the Tests", &[]), ["a"]);
    assert!(ids("attest this", &[]).is_empty());
    assert_eq!(ids("release V2.1 now", &[]), ["b"]);
    // 测试 is "test" in the glossary: a translation meets a trigger as the
    // English word would.
    assert_eq!(ids("不要mock数据库测试", &[]), ["c", "a"]);
    assert_eq!(ids("不要mock数据库测试", &["--no-expand"]), ["c"]);
    assert_eq!(ids("bump deps", &["--path", "crates/x/Cargo.toml"]), ["d"]);
    assert_eq!(ids("look at src/main.rs", &[]), ["e"]);
    assert!(ids("look at src/deep/main.rs", &[]).is_empty());
}

#[test]
fn explain_shows_skips_and_reasons() {
    let env = Env::new();
    let mem = env.path().join("mem");
    canonical(&mem);
    write(
        &mem.join("other.md"),
        "---\nname: other\ndescription: grafana\ntype: reference\n---\nx\n",
    );
    let out = ok(&env.run(
        &[
            "--memory-dir",
            mem.to_str().unwrap(),
            "--task",
            "build-token",
            "--today",
            "2026-07-11",
            "--format",
            "text",
            "--explain",
        ],
        "",
    ));
    assert!(
        out.contains("RECALL fixture-before-verify [durable-lesson] — trigger \"build-token\""),
        "{out}"
    );
    assert!(out.contains("SKIP   other — no-match"), "{out}");
}

/// A memory the task touches with one word only stays under the gate, and
/// --explain says which condition failed (it said "no-match" alone, with a
/// score above --min-score beside it).
#[test]
fn explain_says_why_a_scored_memory_stays_under_the_gate() {
    let env = Env::new();
    let mem = env.path().join("mem");
    write(
        &mem.join("deploy.md"),
        "---\nname: Deploying to production\ndescription: How to deploy a release to production safely\ntype: project\n---\nTo deploy to production, run `make release` and then `./scripts/deploy.sh prod`.\nAlways check the staging smoke tests pass before deploying.\n",
    );
    let run = |task: &str, min: &str| {
        ok(&env.run(
            &[
                "--memory-dir",
                mem.to_str().unwrap(),
                "--task",
                task,
                "--today",
                "2026-07-11",
                "--format",
                "text",
                "--explain",
                "--no-cache",
                "--min-score",
                min,
            ],
            "",
        ))
    };
    assert_eq!(
        run("deploy the hotfix", "5"),
        "SKIP   deploy — no-match (score 5.05: 1 distinct term matched, 2 needed)\nsummary: 0 recalled, 0 evicted\n"
    );
    let out = run("deploy the release", "50");
    assert!(
        out.starts_with("SKIP   deploy — no-match (score ")
            && out.contains(" under --min-score)\n"),
        "{out}"
    );
}

/// A task's generic verb ("add", "fix", "update") scores but never counts
/// as a word the task is about: "add a static analysis check" does not
/// recall `git add`'s lesson by "add" and "static", while the same lesson
/// is recalled by a task about what it names.
#[test]
fn a_task_verb_is_no_word_of_what_the_task_is_about() {
    let env = Env::new();
    let mem = env.path().join("mem");
    write(
        &mem.join("force-add-css.md"),
        "---\nname: Use `git add -f priv/static/app.css`\ndescription: the compiled stylesheet is ignored by git\ntype: feedback\n---\nRun `git add -f priv/static/app.css`, not `git add priv/static/app.css`.\n",
    );
    let run = |task: &str| {
        ok(&env.run(
            &[
                "--memory-dir",
                mem.to_str().unwrap(),
                "--task",
                task,
                "--today",
                "2026-07-11",
                "--format",
                "text",
                "--explain",
                "--no-cache",
            ],
            "",
        ))
    };
    for task in [
        "add a new static analysis check",
        "fix the static page title",
        "update the static assets path",
        "include the static pages in the sitemap",
        "handle a missing static directory",
        "improve the static file cache headers",
    ] {
        let out = run(task);
        assert!(
            out.starts_with("SKIP   force-add-css — no-match (score ")
                && out.contains("1 distinct term matched, 2 needed"),
            "{task}: {out}"
        );
    }
    let out = run("commit the compiled stylesheet");
    assert!(out.starts_with("RECALL force-add-css"), "{out}");
    // "include", "handle", "improve" name what to do as well
    write(
        &mem.join("tgz-alias.md"),
        "---\nname: Tar formats also take .tgz\ndescription: Include .tgz files as an alias for .tar.gz files\ntype: feedback\n---\nInclude .tgz files as an alias for .tar.gz files.\n",
    );
    for task in [
        "include hidden files in the listing",
        "handle files that are too large",
        "improve how files are sorted",
    ] {
        let out = run(task);
        assert!(
            out.contains("SKIP   tgz-alias — no-match (score ")
                && !out.contains("RECALL tgz-alias"),
            "{task}: {out}"
        );
    }
    let out = run("read .tgz files too");
    assert!(out.contains("RECALL tgz-alias"), "{out}");
}

#[test]
fn records_from_stdin_only_with_records_dash() {
    let env = Env::new();
    let rec = r#"{"id":"fixture-before-verify","name":"Run setup before build-token","description":"d","type":"feedback","triggers":["build-token"]}"#;
    let out = ok(&env.run(
        &[
            "--records",
            "-",
            "--task",
            "run build-token",
            "--format",
            "text",
            "--memory-dir",
            env.path().join("none").to_str().unwrap(),
        ],
        &format!("{rec}\n"),
    ));
    assert_eq!(
        out,
        "RECALL fixture-before-verify [durable-lesson]\nsummary: 1 recalled, 0 evicted\n"
    );
    let o = env.run(&["--records", "-", "--task", "x"], "{not json}\n");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("<stdin>:1"), "{}", stderr(&o));
    // two bad lines: the second on a line of its own, then the error with
    // the count and the first
    let o = env.run(&["--records", "-", "--task", "x"], "{not json}\n[]\n");
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[0].starts_with("mem-recall: <stdin>:2: "), "{err}");
    assert!(
        lines[1].starts_with("mem-recall: 2 bad record(s) on stdin: <stdin>:1: "),
        "{err}"
    );
    let o = env.run(&["--records", "file.jsonl", "--task", "x"], "");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "mem-recall: --records \"file.jsonl\": only \"-\" (stdin) is accepted; without it memories come from the memory directory\n"
    );
}

#[test]
fn cache_follows_changes_and_survives_corruption() {
    let env = Env::new();
    let mem = env.path().join("mem");
    canonical(&mem);
    let old = filetime::FileTime::from_unix_time(1_700_000_000, 0);
    for f in ["fixture-before-verify.md", "mirror-slow-on-0711.md"] {
        filetime::set_file_mtime(mem.join(f), old).unwrap();
    }
    let m = mem.to_str().unwrap();
    let args = [
        "--memory-dir",
        m,
        "--task",
        "build-token",
        "--today",
        "2026-07-11",
        "--format",
        "text",
    ];
    let first = ok(&env.run(&args, ""));
    let cache: Vec<_> = walk(&env.path().join("cache"));
    assert!(
        cache
            .iter()
            .any(|p| p.ends_with(mem_recall::load::CACHE_FILE)),
        "{cache:?}"
    );
    assert!(
        !walk(&mem)
            .iter()
            .any(|p| p.to_string_lossy().contains("recall"))
    );
    assert_eq!(ok(&env.run(&args, "")), first);
    // A changed file is read again.
    write(
        &mem.join("mirror-slow-on-0711.md"),
        &MIRROR.replace("build-token", "other"),
    );
    let out = ok(&env.run(&args, ""));
    assert!(!out.contains("mirror-slow"), "{out}");
    // A corrupt cache is ignored.
    for p in cache
        .iter()
        .filter(|p| p.ends_with(mem_recall::load::CACHE_FILE))
    {
        std::fs::write(p, b"{garbage").unwrap();
    }
    let out = ok(&env.run(&args, ""));
    assert!(out.starts_with("RECALL fixture-before-verify"), "{out}");
}

fn walk(d: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(d) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}
