//! A recall cache damaged in place (a postings record pointing past the
//! end of the file or at no entry's terms, a cached Markdown altered at
//! the same length) must not change what is recalled or injected: the
//! answer equals `--no-cache`, and the damaged cache is rebuilt.

mod util;

use std::path::{Path, PathBuf};

use filetime::FileTime;
use util::{Env, ok};

const DEPLOY: &str = "---\nname: Production deploy checklist\ndescription: Deploys go out through ops/deploy.sh after the smoke checks pass\ntype: project\n---\n\nProduction deploys use `ops/deploy.sh prod`, only after `make smoke` passes.\n";
const AUTH: &str = "---\nname: Auth middleware rewrite\ndescription: Session token storage is replaced for legal compliance\ntype: project\n---\n\nThe auth middleware rewrite is driven by legal requirements around session tokens.\n";

fn setup(env: &Env) -> PathBuf {
    let mem = env.path().join("mem");
    std::fs::create_dir_all(&mem).unwrap();
    for (name, text) in [("production-deploy.md", DEPLOY), ("auth-rewrite.md", AUTH)] {
        let p = mem.join(name);
        std::fs::write(&p, text).unwrap();
        // Outside the racy window, so the cache entries are trusted.
        filetime::set_file_mtime(&p, FileTime::from_unix_time(1_700_000_000, 0)).unwrap();
    }
    mem
}

fn recall(env: &Env, mem: &Path, no_cache: bool) -> String {
    let mut args = vec![
        "--memory-dir",
        mem.to_str().unwrap(),
        "--today",
        "2026-12-01",
        "--task",
        "deploy to production",
        "--explain",
        "--format",
        "jsonl",
    ];
    if no_cache {
        args.push("--no-cache");
    }
    ok(&env.run(&args, ""))
}

fn cache_file(env: &Env) -> PathBuf {
    let root = env.path().join("cache/mem");
    for d in std::fs::read_dir(&root).unwrap() {
        let p = d.unwrap().path().join("recall-v2.cache");
        if p.is_file() {
            return p;
        }
    }
    panic!("no recall cache under {}", root.display());
}

/// Replace the records of `stem` in the cache's postings by `records`:
/// the index names where they are in the section after it (`OFFSET;LEN;`
/// after the stem); the length there is set to the new one.
fn set_postings(cache: &Path, stem: &str, records: &str) {
    let text = std::fs::read_to_string(cache).unwrap();
    // The index's length: 16 hex digits after the magic line and `VERSION;`.
    let head = "mem-recall cache\n".len() + format!("{};", mem_recall::cache::CACHE_VERSION).len();
    let index_len = usize::from_str_radix(&text[head..head + 16], 16).unwrap();
    let key = format!("{}:{stem}", stem.len());
    let at = text[..index_len]
        .rfind(&key)
        .expect("the stem in the postings")
        + key.len();
    let semi = at + text[at..].find(';').unwrap();
    let off: usize = text[at..semi].parse().unwrap();
    let end = semi + 1 + text[semi + 1..].find(';').unwrap();
    let len: usize = text[semi + 1..end].parse().unwrap();
    let from = index_len + off;
    let out = format!(
        "{}{}{}{records}{}",
        &text[..semi + 1],
        records.len(),
        &text[end..from],
        &text[from + len..]
    );
    std::fs::write(cache, out).unwrap();
}

fn check(records: &str) {
    let env = Env::new();
    let mem = setup(&env);
    let fresh = recall(&env, &mem, true);
    assert!(
        fresh.contains(r#""action":"recall","id":"production-deploy""#),
        "{fresh}"
    );
    // Written, then read back once so the file is known to be used.
    assert_eq!(recall(&env, &mem, false), fresh);
    assert_eq!(recall(&env, &mem, false), fresh);
    let cache = cache_file(&env);
    set_postings(&cache, "deploy", records);
    let damaged = std::fs::read(&cache).unwrap();
    assert_eq!(recall(&env, &mem, false), fresh, "postings {records:?}");
    assert_ne!(
        std::fs::read(&cache).unwrap(),
        damaged,
        "the damaged cache is rebuilt"
    );
}

#[test]
fn a_posting_past_the_end_of_the_file_is_refused() {
    check("999999999,3;");
}

#[test]
fn a_posting_at_no_entrys_terms_is_refused() {
    check("1,3;");
}

/// The hook injects a cached memory's Markdown without reading its topic
/// file; a cache whose copy of the text was altered (same length, so it
/// still parses) must not put text in the context that no topic file holds.
#[test]
fn the_hook_never_injects_text_that_only_a_damaged_cache_holds() {
    let env = Env::new();
    let mem = setup(&env);
    recall(&env, &mem, false);
    recall(&env, &mem, false);
    let cache = cache_file(&env);
    let text = std::fs::read_to_string(&cache).unwrap();
    let good = "only after `make smoke` passes.";
    assert!(text.contains(good), "the cache holds the Markdown");
    std::fs::write(
        &cache,
        text.replace(good, "only after `make smoke` FAILED."),
    )
    .unwrap();
    let input = format!(
        r#"{{"session_id":"s1","transcript_path":null,"cwd":"{}","hook_event_name":"UserPromptSubmit","prompt":"deploy to production"}}"#,
        env.path().display()
    );
    let out = ok(&env.run(
        &[
            "--hook",
            "--memory-dir",
            mem.to_str().unwrap(),
            "--today",
            "2026-12-01",
        ],
        &input,
    ));
    assert!(out.contains("make smoke` passes."), "{out}");
    assert!(!out.contains("FAILED"), "{out}");
}
