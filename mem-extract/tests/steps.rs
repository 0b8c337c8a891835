//! Lessons whose fix is a step between the failed run and the passing one:
//! a package install or an environment step (`lesson/install-or-env-step`),
//! and a generator run after its input was edited
//! (`lesson/regenerate-after-edit`).

mod common;

use mem_core::Trust;
use mem_core::records::{Event, Memory};
use mem_extract::extract::{EventView, ExtractOptions, Extractor, extract};
use serde_json::json;

const S: &str = "00000000-0000-4000-8000-0000000000cc";

fn call(seq: u64, id: &str, tool: &str, input: serde_json::Value) -> Event {
    Event {
        tool: Some(tool.into()),
        tool_id: Some(id.into()),
        input: Some(input),
        ..common::event(S, seq, "assistant", "tool_use")
    }
}

fn bash(seq: u64, id: &str, cmd: &str) -> Event {
    call(seq, id, "Bash", json!({ "command": cmd }))
}

fn edit(seq: u64, id: &str, path: &str) -> Event {
    call(seq, id, "Edit", json!({ "file_path": path }))
}

fn result(seq: u64, id: &str, text: &str, bad: bool) -> Event {
    Event {
        tool_id: Some(id.into()),
        text: Some(text.into()),
        is_error: Some(bad),
        ..common::event(S, seq, "user", "tool_result")
    }
}

fn rule(m: &Memory) -> &str {
    m.extra.get("rule").and_then(|r| r.as_str()).unwrap_or("")
}

/// The notes `--explain` prints, as `rule: text`.
fn explain(evs: &[Event]) -> Vec<String> {
    let mut x = Extractor::new(ExtractOptions::default());
    for e in evs {
        x.push(&EventView::of(e));
    }
    x.finish()
        .notes
        .iter()
        .filter(|n| n.kept)
        .map(|n| format!("{}: {}", n.rule, n.text))
        .collect()
}

#[test]
fn an_install_or_environment_step_between_fail_and_pass_is_learnt() {
    for (run, error, step, together) in [
        (
            "pytest",
            "ModuleNotFoundError: No module named 'requests'",
            "pip install requests",
            false,
        ),
        (
            "pytest -q tests",
            "No module named 'httpx'",
            "uv add httpx",
            false,
        ),
        (
            "python -m pytest",
            "No module named 'app'",
            "export PYTHONPATH=src",
            false,
        ),
        (
            "npm test",
            "Error: Cannot find module 'zod'",
            "npm install zod",
            false,
        ),
        (
            "mix test",
            "could not find dependency :jason",
            "mix deps.get",
            false,
        ),
        (
            "pytest",
            "No module named 'yaml'",
            "pip install pyyaml",
            true,
        ),
        (
            "cargo test",
            "error: no such command: nextest",
            "cargo install cargo-nextest",
            true,
        ),
    ] {
        let line = format!("{step} && {run}");
        let mut evs = vec![bash(0, "a", run), result(1, "a", error, true)];
        if together {
            evs.extend([bash(2, "b", &line), result(3, "b", "ok", false)]);
        } else {
            evs.extend([
                bash(2, "b", step),
                result(3, "b", "done", false),
                bash(4, "c", run),
                result(5, "c", "3 passed", false),
            ]);
        }
        let ms = extract(&evs, &ExtractOptions::default()).memories;
        assert_eq!(
            ms.len(),
            1,
            "{line}: {:?}",
            ms.iter().map(|m| &m.name).collect::<Vec<_>>()
        );
        let m = &ms[0];
        assert_eq!(rule(m), "lesson/install-or-env-step", "{line}");
        assert_eq!(
            m.how.as_deref(),
            Some(format!("Before running `{run}`, run `{step}`.").as_str()),
            "{line}"
        );
        // an install is an ordinary command: trusted as the rule saw it
        assert_eq!(m.trust, Some(Trust::Normal), "{line}");
        assert!(
            explain(&evs)
                .iter()
                .any(|n| n.starts_with("lesson/install-or-env-step: ")),
            "{line}"
        );
    }
    // a step with privilege is a risky fix: low trust, the command kept out
    for step in [
        "sudo apt-get install -y libpq-dev",
        "sudo pip install psycopg2",
    ] {
        let evs = [
            bash(0, "a", "pytest"),
            result(1, "a", "Error: pg_config executable not found", true),
            bash(2, "b", step),
            result(3, "b", "done", false),
            bash(4, "c", "pytest"),
            result(5, "c", "ok", false),
        ];
        let ms = extract(&evs, &ExtractOptions::default()).memories;
        assert_eq!(ms.len(), 1, "{step}");
        assert_eq!(ms[0].trust, Some(Trust::Low), "{step}");
        assert!(ms[0].how.is_none() && !ms[0].name.contains(step), "{step}");
    }
}

#[test]
fn a_generator_run_after_its_input_was_edited_is_learnt_for_that_file() {
    for (input, build, error, generator, edit_first) in [
        (
            "/home/user/proj/schema.graphql",
            "npm run build",
            "error TS2339: Property 'email' does not exist",
            "npm run codegen",
            true,
        ),
        (
            "/home/user/proj/api/openapi.yaml",
            "pnpm test",
            "TypeError: client.listUsers is not a function",
            "pnpm gen:api",
            false,
        ),
        (
            "/home/user/proj/proto/billing.proto",
            "go build ./...",
            "undefined: pb.Invoice",
            "buf generate",
            true,
        ),
        (
            "/home/user/proj/prisma/schema.prisma",
            "npm test",
            "Property 'tags' does not exist on type PrismaClient",
            "npx prisma generate",
            false,
        ),
        (
            "/home/user/proj/db/schema.sql",
            "go test ./...",
            "undefined: db.ListOrders",
            "make gen",
            true,
        ),
    ] {
        let name = input.rsplit('/').next().unwrap();
        let mut evs = Vec::new();
        if edit_first {
            evs.extend([edit(0, "e", input), result(1, "e", "ok", false)]);
        }
        evs.extend([bash(2, "a", build), result(3, "a", error, true)]);
        if !edit_first {
            // the edit between the failure and the pass does not block it
            evs.extend([edit(4, "e", input), result(5, "e", "ok", false)]);
        }
        evs.extend([
            bash(6, "g", generator),
            result(7, "g", "generated", false),
            bash(8, "b", build),
            result(9, "b", "ok", false),
        ]);
        let ms = extract(&evs, &ExtractOptions::default()).memories;
        assert_eq!(
            ms.len(),
            1,
            "{name}: {:?}",
            ms.iter().map(|m| &m.name).collect::<Vec<_>>()
        );
        let m = &ms[0];
        assert_eq!(rule(m), "lesson/regenerate-after-edit");
        assert_eq!(m.name, format!("After editing `{name}`, run `{generator}`"));
        assert_eq!(
            m.fact.as_deref(),
            Some(format!("After editing `{name}`, run `{generator}`.").as_str())
        );
        assert_eq!(m.triggers[0], name.to_lowercase());
        // not a rule for every build: the hook reads no command pattern from it
        assert!(mem_core::lesson::rule_of(m).is_none(), "{:?}", m.how);
        assert_eq!(m.trust, Some(Trust::Normal));
        assert!(
            explain(&evs)
                .iter()
                .any(|n| n.starts_with("lesson/regenerate-after-edit: ")),
            "{name}"
        );
        // the same generator with no input edited: the plain fix
        let plain: Vec<Event> = evs
            .iter()
            .filter(|e| e.tool_id.as_deref() != Some("e"))
            .cloned()
            .collect();
        let ms = extract(&plain, &ExtractOptions::default()).memories;
        assert_eq!(ms.len(), 1, "{name}");
        assert_eq!(
            ms[0].how.as_deref(),
            Some(format!("Before running `{build}`, run `{generator}`.").as_str())
        );
    }
    // an edit of an ordinary file between still blocks the lesson
    let evs = [
        bash(0, "a", "npm run build"),
        result(1, "a", "error TS2339", true),
        bash(2, "g", "npm run codegen"),
        result(3, "g", "generated", false),
        edit(4, "e", "/home/user/proj/src/app.ts"),
        result(5, "e", "ok", false),
        bash(6, "b", "npm run build"),
        result(7, "b", "ok", false),
    ];
    assert!(
        extract(&evs, &ExtractOptions::default())
            .memories
            .is_empty()
    );
}
