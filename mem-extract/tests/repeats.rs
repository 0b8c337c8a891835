//! What the project repeats: a check run successfully the same way in
//! three sessions or more of one stream becomes "This project runs its
//! tests with `X`" (docs/extraction.md "What the project repeats").

mod common;

use mem_core::records::{Event, Memory, MemoryType};
use mem_extract::extract::{ExtractOptions, extract};
use serde_json::json;

/// A session id for session number `n`.
fn sid(n: u32) -> String {
    format!("00000000-0000-4000-8000-{n:012}")
}

/// One run of `cmd` in session `n` (call and result), from `seq`.
fn ran(n: u32, seq: u64, cmd: &str, ok: bool) -> Vec<Event> {
    let id = format!("t{n}-{seq}");
    let mut call = common::event(&sid(n), seq, "assistant", "tool_use");
    call.tool = Some("Bash".into());
    call.tool_id = Some(id.clone());
    call.input = Some(json!({ "command": cmd }));
    let mut res = common::event(&sid(n), seq + 1, "user", "tool_result");
    res.tool_id = Some(id);
    res.text = Some(if ok { "ok" } else { "1 failed" }.into());
    res.is_error = Some(!ok);
    vec![call, res]
}

/// Sessions `from..from+count`, each running `cmds` in order.
fn sessions(from: u32, count: u32, cmds: &[&str]) -> Vec<Event> {
    let mut out = Vec::new();
    for n in from..from + count {
        for (i, c) in cmds.iter().enumerate() {
            out.extend(ran(n, i as u64 * 2, c, true));
        }
    }
    out
}

/// Session `n` of `requests`, each followed by `runs` successful runs of
/// `cmd` (each call its own id).
fn requests_session(n: u32, requests: &[&str], cmd: &str, runs: u64) -> Vec<Event> {
    let mut out = Vec::new();
    let mut seq = 0;
    for r in requests {
        let mut e = common::event(&sid(n), seq, "user", "text");
        e.text = Some((*r).into());
        out.push(e);
        seq += 1;
        for _ in 0..runs {
            let mut run = ran(n, seq, cmd, true);
            for ev in &mut run {
                ev.tool_id = Some(format!("r{n}-{seq}"));
            }
            out.extend(run);
            seq += 2;
        }
    }
    out
}

/// The names of the project memories extracted from `evs`.
fn project_names(evs: &[Event]) -> Vec<String> {
    project(&extract(evs, &ExtractOptions::default()).memories)
        .iter()
        .map(|m| m.name.clone())
        .collect()
}

fn project(ms: &[Memory]) -> Vec<&Memory> {
    ms.iter()
        .filter(|m| m.extra.get("rule").and_then(|r| r.as_str()) == Some("repeat/project-command"))
        .collect()
}

#[test]
fn a_check_run_in_three_sessions_is_how_the_project_does_it() {
    for (runs, want, task) in [
        (
            [
                "uv run pytest -q tests/",
                "uv run pytest -q",
                "uv run pytest -q tests/test_api.py",
            ],
            "uv run pytest -q",
            "This project runs its tests with `uv run pytest -q`",
        ),
        (
            [
                "cargo nextest run --workspace",
                "cargo nextest run --workspace -E 'test(x)'",
                "cargo nextest run --workspace",
            ],
            "cargo nextest run --workspace",
            "This project runs its tests with `cargo nextest run --workspace`",
        ),
        (
            [
                "npm run test -- --run",
                "npm run test -- --run src/a.test.ts",
                "npm run test -- --run",
            ],
            "npm run test -- --run",
            "This project runs its tests with `npm run test -- --run`",
        ),
        (
            ["cargo clippy --all-targets -- -D warnings"; 3],
            "cargo clippy --all-targets -- -D warnings",
            "This project lints its code with `cargo clippy --all-targets -- -D warnings`",
        ),
        (
            ["make -C backend typecheck"; 3],
            "make -C backend typecheck",
            "This project type-checks its code with `make -C backend typecheck`",
        ),
    ] {
        let mut evs = Vec::new();
        for (n, r) in runs.iter().enumerate() {
            // a listing and a status in every session never count
            evs.extend(sessions(n as u32, 1, &["ls", "git status", r, r]));
        }
        let ms = extract(&evs, &ExtractOptions::default()).memories;
        let p = project(&ms);
        assert_eq!(
            p.len(),
            1,
            "{want}: {:?}",
            ms.iter().map(|m| &m.name).collect::<Vec<_>>()
        );
        let m = p[0];
        assert!(
            m.name == task || task.starts_with(&m.name),
            "{} / {task}",
            m.name
        );
        assert_eq!(m.mem_type, MemoryType::Project);
        assert_eq!(m.fact.as_deref(), Some(format!("{task}.").as_str()));
        assert!(
            m.how
                .as_deref()
                .unwrap()
                .ends_with(&format!("run `{want}`."))
        );
        assert_eq!(m.description, format!("`{want}`, run successfully 6 times"));
        assert_eq!(m.evidence.len(), 3);
        assert!(m.id.as_deref().unwrap().starts_with("project-"));
        assert_eq!(m.trust, Some(mem_core::Trust::Normal));
        // a fact for recall, not a rule the PreToolUse hook replays
        assert!(mem_core::lesson::rule_of(m).is_none(), "{:?}", m.how);
    }
}

#[test]
fn two_sessions_inspections_and_commands_not_local_are_not_enough() {
    for cmds in [
        // two sessions only
        vec![("pytest -q", 2)],
        // looks and non-local runners, in many sessions
        vec![("ls tests", 4), ("git status", 4), ("npx vitest run", 4)],
        // a risky one
        vec![("sudo make test", 4)],
        // not a check
        vec![("make deploy", 4)],
    ] {
        let mut evs = Vec::new();
        let mut n = 0;
        for (c, count) in &cmds {
            evs.extend(sessions(n, *count, &[c]));
            n += count;
        }
        let ms = extract(&evs, &ExtractOptions::default()).memories;
        assert!(
            project(&ms).is_empty(),
            "{cmds:?}: {:?}",
            ms.iter().map(|m| &m.name).collect::<Vec<_>>()
        );
    }
    // failed runs do not count
    let mut evs = Vec::new();
    for n in 0..4 {
        evs.extend(ran(n, 0, "pnpm test", n == 0));
    }
    assert!(project(&extract(&evs, &ExtractOptions::default()).memories).is_empty());
}

#[test]
fn a_later_family_replaces_an_earlier_one_under_the_same_id() {
    for (old, new) in [
        ("pytest tests/unit", "uv run pytest -q"),
        ("npm test -- --ci", "pnpm vitest run"),
        ("go test -race ./...", "make test-unit"),
    ] {
        let mut evs = sessions(0, 4, &[old]);
        evs.extend(sessions(4, 3, &[new]));
        let ms = extract(&evs, &ExtractOptions::default()).memories;
        let p = project(&ms);
        assert_eq!(p.len(), 1, "{new}");
        assert_eq!(
            p[0].fact.as_deref(),
            Some(format!("This project runs its tests with `{}`.", new).as_str())
        );
        assert_eq!(p[0].id.as_deref(), Some("project-tests-command"));
        // the earlier family alone: the same id
        let before = extract(&sessions(0, 4, &[old]), &ExtractOptions::default()).memories;
        assert_eq!(project(&before)[0].id, p[0].id);
    }
}

#[test]
fn a_check_the_user_ran_in_the_agents_shell_counts_as_a_run() {
    for (cmd, fact) in [
        (
            "uv run ty check",
            "This project type-checks its code with `uv run ty check`.",
        ),
        ("make lint", "This project lints its code with `make lint`."),
    ] {
        let mut evs = sessions(0, 2, &[cmd]);
        let mut said = common::event(&sid(7), 0, "user", "text");
        said.text = Some(format!("<bash-input>{cmd}</bash-input>"));
        evs.push(said);
        let ms = extract(&evs, &ExtractOptions::default()).memories;
        let p = project(&ms);
        assert_eq!(p.len(), 1, "{cmd}");
        assert_eq!(p[0].fact.as_deref(), Some(fact));
        assert_eq!(p[0].evidence.len(), 3);
        // two sessions without it: not yet
        let ms = extract(&sessions(0, 2, &[cmd]), &ExtractOptions::default()).memories;
        assert!(project(&ms).is_empty(), "{cmd}");
    }
}

/// A check the agent runs the tool's default way (`mix test`, `cargo
/// test`, `ruff check --fix`) in every session is what it does unprompted:
/// a memory of it adds nothing, and `--explain` says so.
#[test]
fn the_default_way_of_running_a_check_is_no_memory() {
    for cmd in [
        "mix test",
        "cargo test",
        "go test ./...",
        "ruff format",
        "ruff check --fix",
        "npm run build",
        "pytest -q",
        "make lint",
        "cargo build --release",
    ] {
        let evs = sessions(0, 4, &[cmd]);
        let out = extract(&evs, &ExtractOptions::default());
        assert!(
            project(&out.memories).is_empty(),
            "{cmd}: {:?}",
            out.memories.iter().map(|m| &m.name).collect::<Vec<_>>()
        );
        assert!(
            out.notes
                .iter()
                .any(|n| n.rule == "repeat/default-form" && n.text.contains(cmd)),
            "{cmd}: {:?}",
            out.notes.iter().map(|n| &n.rule).collect::<Vec<_>>()
        );
    }
    // a wrapper, a project target, options that select what runs: kept
    for cmd in [
        "uv run pytest",
        "bundle exec rspec",
        "mix credo --strict",
        "make test-integration",
        "cd web && npm test",
        "cargo test --features postgres",
    ] {
        let evs = sessions(0, 4, &[cmd]);
        assert_eq!(
            project(&extract(&evs, &ExtractOptions::default()).memories).len(),
            1,
            "{cmd}"
        );
    }
}

/// The subsets the runs select (`-m browser`, `-p api`) are how the project
/// splits its checks: listed in the fact, named by phrase triggers ("browser
/// tests"), never by the bare word.
#[test]
fn the_subsets_a_project_selects_are_listed() {
    let mut evs = sessions(0, 1, &["uv run pytest -m browser -v"]);
    evs.extend(sessions(
        1,
        1,
        &["uv run pytest -m \"not (tui or browser)\""],
    ));
    evs.extend(sessions(
        2,
        1,
        &["uv run pytest -m tui", "uv run pytest -m browser"],
    ));
    let ms = extract(&evs, &ExtractOptions::default()).memories;
    let p = project(&ms);
    assert_eq!(
        p.len(),
        1,
        "{:?}",
        ms.iter().map(|m| &m.name).collect::<Vec<_>>()
    );
    assert_eq!(
        p[0].fact.as_deref(),
        Some(
            "This project runs its tests with `uv run pytest`. It selects them with `-m`: \
             `-m browser`, `-m \"not (tui or browser)\"`, `-m tui`."
        )
    );
    for t in ["browser tests", "tui tests"] {
        assert!(
            p[0].triggers.iter().any(|x| x == t),
            "{t}: {:?}",
            p[0].triggers
        );
    }
    assert!(!p[0].triggers.iter().any(|x| x == "browser" || x == "tui"));
    // the same runner without the subsets: the tool's default, no memory
    let plain = sessions(0, 3, &["pytest -m unit"]);
    assert_eq!(
        project(&extract(&plain, &ExtractOptions::default()).memories).len(),
        1
    );
}

/// The user running a check themselves is their choice: two sessions are
/// enough, whatever the form.
#[test]
fn a_check_the_user_ran_is_kept_after_two_sessions() {
    for cmd in ["uv run ty check", "mix test"] {
        let mut evs = sessions(0, 1, &[cmd]);
        let mut said = common::event(&sid(5), 0, "user", "text");
        said.text = Some(format!("<bash-input>{cmd}</bash-input>"));
        evs.push(said);
        let p_len = project(&extract(&evs, &ExtractOptions::default()).memories).len();
        assert_eq!(p_len, 1, "{cmd}");
        // one session alone is not enough
        let one = sessions(0, 1, &[cmd]);
        assert!(project(&extract(&one, &ExtractOptions::default()).memories).is_empty());
    }
}

/// One user message of `text` in session `n`.
fn said(n: u32, text: &str) -> Event {
    let mut e = common::event(&sid(n), 0, "user", "text");
    e.text = Some(text.into());
    e
}

/// The same message in three sessions, only one word differing (a launcher's
/// "Work on bead X. Run bd show X …"), is a standing instruction with that
/// word as `<id>`; two sessions, two differing words, or short chatter are
/// not.
#[test]
fn what_the_user_says_in_every_session_is_a_standing_instruction() {
    let said_in = |ids: &[&str]| -> Vec<Memory> {
        let evs: Vec<Event> = ids
            .iter()
            .enumerate()
            .map(|(n, id)| {
                said(
                    n as u32,
                    &format!(
                        "Work on bead {id}. Run bd show {id} to see the issue details and bd ready to find available subtasks."
                    ),
                )
            })
            .collect();
        extract(&evs, &ExtractOptions::default()).memories
    };
    let rule =
        |m: &&Memory| m.extra.get("rule").and_then(|r| r.as_str()) == Some("repeat/user-says");
    let ms = said_in(&["spotter-fum", "spotter-4te", "spotter-dov"]);
    let got: Vec<&Memory> = ms.iter().filter(rule).collect();
    assert_eq!(
        got.len(),
        1,
        "{:?}",
        ms.iter().map(|m| &m.name).collect::<Vec<_>>()
    );
    assert_eq!(
        got[0].fact.as_deref(),
        Some(
            "Work on bead <id>. Run bd show <id> to see the issue details and bd ready to find available subtasks."
        )
    );
    // the description adds what the title leaves out
    assert_eq!(
        got[0].name,
        "Work on bead <id>. Run bd show <id> to see the issue details"
    );
    assert_eq!(
        got[0].description,
        "and bd ready to find available subtasks."
    );
    assert_eq!(got[0].evidence.len(), 3);
    assert_eq!(got[0].source, Some(mem_core::records::Source::User));
    assert!(
        got[0].triggers.iter().any(|t| t == "bead"),
        "{:?}",
        got[0].triggers
    );
    // two sessions are not enough
    assert!(said_in(&["a-1", "b-2"]).iter().all(|m| !rule(&m)));
    // the same message in one session, three times: one session
    let evs: Vec<Event> = (0..3)
        .map(|i| {
            let mut e = said(
                0,
                "Run the migrations and then seed the staging database please",
            );
            e.seq = i;
            e.line = i + 1;
            e
        })
        .collect();
    let ms = extract(&evs, &ExtractOptions::default()).memories;
    assert!(ms.iter().all(|m| !rule(&m)));
    // messages that differ in two words, and short ones, never make one
    let evs = vec![
        said(0, "Deploy the api service to staging and watch the logs"),
        said(1, "Deploy the web service to production and watch the logs"),
        said(2, "Deploy the cli service to canary and watch the logs"),
        said(3, "commit and push"),
        said(4, "commit and push"),
        said(5, "commit and push"),
    ];
    let ms = extract(&evs, &ExtractOptions::default()).memories;
    assert!(
        ms.iter().all(|m| !rule(&m)),
        "{:?}",
        ms.iter().map(|m| &m.name).collect::<Vec<_>>()
    );
}

/// Years of sessions, each starting with the same launcher line: read once
/// per message, counted by session, one memory (a run over thousands of
/// sessions stays linear in the messages).
#[test]
fn a_message_said_in_thousands_of_sessions_is_one_memory() {
    let evs: Vec<Event> = (0..3000)
        .map(|n| {
            said(
                n,
                &format!("Run the integration tests for module m{n} before the release again"),
            )
        })
        .collect();
    let start = std::time::Instant::now();
    let ms = extract(&evs, &ExtractOptions::default()).memories;
    let got: Vec<&Memory> = ms
        .iter()
        .filter(|m| m.extra.get("rule").and_then(|r| r.as_str()) == Some("repeat/user-says"))
        .collect();
    assert_eq!(
        got.len(),
        1,
        "{:?}",
        ms.iter().map(|m| &m.name).collect::<Vec<_>>()
    );
    assert_eq!(
        got[0].fact.as_deref(),
        Some("Run the integration tests for module <id> before the release again")
    );
    assert_eq!(got[0].description, "The user said this in 3000 sessions");
    assert_eq!(got[0].evidence.len(), 8);
    // (was minutes when every message was compared with every other)
    assert!(start.elapsed().as_secs() < 60, "{:?}", start.elapsed());
}

/// One long session of several pieces of work repeats a check as several
/// sessions do: run successfully for three of the user's requests, it is
/// how the project does it, with its setup; many runs for one request, or
/// for short replies ("continue", "yes, go on"), are not.
#[test]
fn a_check_run_for_three_requests_of_one_session_is_how_the_project_does_it() {
    // session 0: each request, then the check run twice
    let session = |requests: &[&str], cmd: &str| requests_session(0, requests, cmd, 2);
    let three = [
        "Is everything OK with this project? Do all the tests pass?",
        "New feature: read nested tar archives as we read zip files",
        "OK, so first commit the changes related to the previous task, then go on",
    ];
    for (cmd, want) in [
        (
            "source .venv/bin/activate && ruff check src/",
            "This project lints its code with `ruff check src/`",
        ),
        (
            "cd web && pnpm vitest run",
            "This project runs its tests with `cd web && pnpm vitest run`",
        ),
    ] {
        let ms = extract(&session(&three, cmd), &ExtractOptions::default()).memories;
        let p = project(&ms);
        assert_eq!(
            p.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(),
            [want],
            "{cmd}"
        );
        // the setup is in what the memory says to run
        let fact = p[0].fact.as_deref().unwrap_or_default();
        assert!(fact.contains(&format!("`{cmd}`")), "{fact}");
        assert!(
            p[0].why
                .as_deref()
                .is_some_and(|w| w.contains("3 requests of 1 session")),
            "{:?}",
            p[0].why
        );
        // two requests, or three of which one is a short reply, are not enough
        for requests in [&three[..2], &[three[0], "yes, go on", three[2]][..]] {
            let ms = extract(&session(requests, cmd), &ExtractOptions::default()).memories;
            assert!(project(&ms).is_empty(), "{requests:?}: {:?}", names(&ms));
        }
    }
}

fn names(ms: &[Memory]) -> Vec<&str> {
    ms.iter().map(|m| m.name.as_str()).collect()
}

/// A check whose command a retry lesson already says to run is that
/// lesson: one memory, not two that say the same.
#[test]
fn a_check_a_lesson_already_names_is_no_second_memory() {
    let mut evs = Vec::new();
    // session 0: bare pytest fails, the activated one passes
    evs.extend(ran(0, 0, "pytest", false));
    evs.extend(ran(0, 2, "source .venv/bin/activate && pytest", true));
    // sessions 1..=3 run the activated form
    evs.extend(sessions(1, 3, &["source .venv/bin/activate && pytest"]));
    let ms = extract(&evs, &ExtractOptions::default()).memories;
    assert!(project(&ms).is_empty(), "{:?}", names(&ms));
    assert_eq!(
        names(&ms),
        ["Use `source .venv/bin/activate && pytest` instead of `pytest`"]
    );
    // without the lesson the check is a memory of its own
    let ms = extract(
        &sessions(1, 3, &["source .venv/bin/activate && pytest"]),
        &ExtractOptions::default(),
    )
    .memories;
    assert_eq!(
        names(&ms),
        ["This project runs its tests with `source .venv/bin/activate && pytest`"]
    );
}

/// A burst of runs while debugging one test is one unit of work: it never
/// becomes the project's command, nor does a family seen only in the
/// requests of one session replace one seen in three sessions.
#[test]
fn a_debugging_burst_is_not_how_the_project_runs_its_tests() {
    let mut evs = sessions(0, 3, &["uv run pytest -q"]);
    let debug = "uv run pytest tests/test_invoice.py::test_parse_date_tz -x -vv";
    let mut e = said(
        3,
        "the invoice dates are off by a day for users in Tokyo, can you look?",
    );
    e.seq = 0;
    evs.push(e);
    for k in 0..3u64 {
        evs.extend(ran(3, 1 + 2 * k, debug, true));
    }
    let ms = extract(&evs, &ExtractOptions::default()).memories;
    let p = project(&ms);
    assert_eq!(p.len(), 1, "{:?}", names(&ms));
    assert_eq!(
        p[0].how.as_deref(),
        Some("To run the tests, run `uv run pytest -q`.")
    );
    // three requests of one later session, another family: the sessions' one stays
    let mut evs = sessions(0, 3, &["uv run pytest -q"]);
    evs.extend(requests_session(
        3,
        &[
            "add a currency column to the invoices table please",
            "now make the exporter write the currency too",
            "and the importer should read it back as well",
        ],
        "make test-fast",
        1,
    ));
    let ms = extract(&evs, &ExtractOptions::default()).memories;
    let p = project(&ms);
    assert_eq!(
        p.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(),
        ["This project runs its tests with `uv run pytest -q`"]
    );
    // a file the runs were pointed at is what they checked that time, even
    // when every run names the same one
    for cmd in [
        "uv run pytest tests/test_api.py -q",
        "uv run pytest -q tests/test_api.py::test_list",
    ] {
        assert_eq!(
            project_names(&sessions(0, 4, &[cmd])),
            ["This project runs its tests with `uv run pytest -q`"],
            "{cmd}"
        );
    }
}

/// A check that also ships, or that cannot fail, is no way of checking;
/// a setup out of the project, a sourced file other than a virtual
/// environment or an address in the environment is not this project's.
#[test]
fn a_check_that_ships_or_cannot_fail_is_no_memory() {
    for cmd in [
        "mvn compile deploy",
        "./gradlew build publish",
        "make build install",
        "make build-push",
        "npm run build -- --publish always",
        "make test-and-release",
        "uv run scripts/test_and_push.py",
        "pnpm test -u",
        "npm test -- -u",
        "uv run pytest --snapshot-update",
        "uv run pytest --force-regen",
        "npx jest --updateSnapshot",
        "ruff check --exit-zero src/",
        "cargo clippy -- -A warnings",
        "uv run pytest --cov-fail-under=0",
        "uv run pytest -W ignore --disable-warnings",
        "uv run mypy --ignore-missing-imports --follow-imports=skip src",
        "make lint || true",
        "npm run lint -- --fix --rule 'no-unused-vars: off'",
        "npx eslint . --rule=no-console:off",
        "npm run lint -- --rule 'no-console: 0'",
        "uv run pytest --ignore=tests/payments",
        "uv run flake8 --extend-ignore E501",
        "npm test -- --testPathIgnorePatterns=payments",
        "go test ./... -update",
        "uv run pytest --inline-snapshot=fix",
        "golangci-lint run --issues-exit-code=0",
        "make -i test",
        "npm run build:sync-s3",
        "make test-notify-slack",
        "npm run build -- --no-lint",
        "cd /tmp/otherproj && make test",
        "cd ../sibling && make test",
        "source scripts/disable_checks.sh && make test",
        ". ./.env.production && npm run build",
        "DATABASE_URL=postgres://admin@db.internal/shop uv run pytest",
        // an environment that loads code, passes options, names a host or a secret
        "PYTEST_ADDOPTS=--snapshot-update uv run pytest",
        "NODE_OPTIONS=--require=./.husky/preload.js npm run lint",
        "LD_PRELOAD=./libhook.so make test",
        "BASH_ENV=./scripts/env.sh make test",
        "RUSTFLAGS=-Awarnings cargo clippy",
        "JWT_SIGNING=9f8e7d6c5b4a39281706f5e4d3c2b1a0 uv run pytest",
        "DB_HOST=prod-db.internal uv run pytest",
        "export CI=1 && make test",
        // a target that does more than check
        "make build-and-tag",
        "npm run build:migrate-prod",
        "make test-drop-db",
        "make lint-and-commit",
        // runs nothing
        "cargo test --no-run",
        "uv run pytest --collect-only",
    ] {
        let ms = extract(&sessions(0, 4, &[cmd]), &ExtractOptions::default()).memories;
        assert!(project(&ms).is_empty(), "{cmd}: {:?}", names(&ms));
    }
    // the environment a check needs is part of it; a build profile is no release
    for (cmd, want) in [
        (
            "RAILS_ENV=test bundle exec rspec",
            "This project runs its tests with `RAILS_ENV=test bundle exec rspec`",
        ),
        (
            "cargo build --release --locked",
            "This project builds with `cargo build --release --locked`",
        ),
        (
            "CI=true npm run test:unit",
            "This project runs its tests with `CI=true npm run test:unit`",
        ),
        (
            "DJANGO_SETTINGS_MODULE=shop.settings.test uv run pytest",
            "This project runs its tests with `DJANGO_SETTINGS_MODULE=shop.settings.test uv run pytest`",
        ),
        (
            "PYTHONPATH=src pytest -q",
            "This project runs its tests with `PYTHONPATH=src pytest -q`",
        ),
        // an option whose value (a test) is left out goes with it
        (
            "uv run pytest --deselect tests/test_slow.py::test_big -q",
            "This project runs its tests with `uv run pytest -q`",
        ),
        (
            "cd services/billing-api && bundle exec rspec --fail-fast",
            "This project runs its tests with `cd services/billing-api && bundle exec rspec --fail-fast`",
        ),
    ] {
        assert_eq!(project_names(&sessions(0, 4, &[cmd])), [want], "{cmd}");
    }
}

/// A short yes ("yes please go ahead and do that") or a pasted log starts
/// no new work: three such messages are not three requests.
#[test]
fn a_yes_or_a_pasted_log_is_no_request() {
    let run_for = |requests: &[&str]| {
        project_names(&requests_session(0, requests, "uv run pytest -q", 1)).len()
    };
    let first = "Please add a currency column to the invoices table";
    assert_eq!(
        run_for(&[
            first,
            "Now make the exporter write the currency as well",
            "And the importer should read it back too, thanks"
        ]),
        1
    );
    assert_eq!(
        run_for(&[
            first,
            "yes please go ahead and do that",
            "ok sounds good, go on with the next one"
        ]),
        0
    );
    assert_eq!(
        run_for(&[
            first,
            "it fails like this:\nTraceback (most recent call last):\n  File \"a.py\", line 3\nerror: boom\nfatal: giving up",
            "and now this:\n2026-03-01 10:00:01 start\n2026-03-01 10:00:02 error: x\n2026-03-01 10:00:03 fatal: y",
        ]),
        0
    );
}

/// Seen in several sessions, the sessions vote on a check's options: one
/// debugging session of many requests is one vote; a check seen only in one
/// session's requests is no way of working when it runs part of the check.
/// A lesson that says not to run the project's command leaves it be.
#[test]
fn one_debugging_session_is_one_vote() {
    let requests = [
        "the invoice dates are off by a day for users in Tokyo, can you look?",
        "still off for the users in Sydney, please check that one too",
        "and what about the daylight saving change in March for Berlin users",
    ];
    let debug_session = |n: u32, cmd: &str| requests_session(n, &requests, cmd, 1);
    let mut evs = sessions(0, 3, &["uv run pytest -q"]);
    evs.extend(debug_session(3, "uv run pytest -k timezone -x -q"));
    let p: Vec<String> = project(&extract(&evs, &ExtractOptions::default()).memories)
        .iter()
        .map(|m| m.name.clone())
        .collect();
    assert_eq!(p, ["This project runs its tests with `uv run pytest -q`"]);
    // the debugging session alone teaches nothing
    let ms = extract(
        &debug_session(0, "uv run pytest -k timezone -x"),
        &ExtractOptions::default(),
    )
    .memories;
    assert!(project(&ms).is_empty(), "{:?}", names(&ms));
    // a lesson that replaced the command once leaves the project's own be
    let mut evs = Vec::new();
    evs.extend(ran(0, 0, "uv run pytest -q", false));
    evs.extend(ran(0, 2, "uv run pytest -q -p no:randomly", true));
    evs.extend(sessions(1, 3, &["uv run pytest -q"]));
    let ms = extract(&evs, &ExtractOptions::default()).memories;
    assert_eq!(
        project(&ms)
            .iter()
            .map(|m| m.name.as_str())
            .collect::<Vec<_>>(),
        ["This project runs its tests with `uv run pytest -q`"],
        "{:?}",
        names(&ms)
    );
}
