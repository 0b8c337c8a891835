//! Promotion into the team tier refuses every kind of the secrets corpus
//! (mem_tests::corpus) planted in a personal memory — in the description,
//! the body, a trigger or an unknown frontmatter key — naming the memory and
//! the field and never printing the secret; one refused memory refuses the
//! whole promotion (nothing is written). A token no rule knows is refused by
//! the high-entropy check.

use std::collections::BTreeMap;
use std::path::PathBuf;

use mem_tests::corpus::corpus;
use mem_tests::{cmd, run, show};

/// A throwaway folder (kept while the test runs) holding a home, a personal
/// memory directory and a git checkout whose team tier the personal
/// memories are promoted into.
fn places() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let [home, personal, repo] = ["home", "personal", "repo"].map(|d| tmp.path().join(d));
    for d in [&home, &personal, &repo.join(".git")] {
        std::fs::create_dir_all(d).unwrap();
    }
    (tmp, home, personal, repo)
}

/// Where each secret is planted: the field's name as the refusal gives it.
const FIELDS: [&str; 4] = ["description", "body", "triggers[0]", "extra.note"];

#[test]
fn every_kind_of_the_secrets_corpus_is_refused_at_promotion() {
    let (_tmp, home, personal, repo) = places();
    let secrets = corpus();
    let mut ids = Vec::new();
    let mut expect: BTreeMap<String, (&str, &str)> = BTreeMap::new();
    for (i, s) in secrets.iter().enumerate() {
        let one_line = !s.line.contains('\n');
        let field = if one_line { FIELDS[i % 4] } else { "body" };
        let esc = s.line.replace('\\', "\\\\").replace('"', "\\\"");
        let desc = if field == "description" {
            format!("Staging deploy uses {esc}")
        } else {
            "Staging deploy credential".to_string()
        };
        let trig = if field == "triggers[0]" {
            format!("triggers: [\"{esc}\"]\n")
        } else {
            String::new()
        };
        let note = if field == "extra.note" {
            format!("note: \"{esc}\"\n")
        } else {
            String::new()
        };
        let body = if field == "body" {
            format!("The staging deploy needs this credential:\n{}\n", s.line)
        } else {
            "The staging deploy needs a credential from the vault.\n".to_string()
        };
        let id = format!("secret-{i:02}");
        std::fs::write(
            personal.join(format!("{id}.md")),
            format!(
                "---\nname: \"Secret {i}\"\ndescription: \"{desc}\"\ntype: project\n{trig}{note}---\n{body}"
            ),
        )
        .unwrap();
        expect.insert(id.clone(), (s.kind, field));
        ids.push(id);
    }
    // a clean memory in the same batch: all or nothing
    std::fs::write(
        personal.join("clean.md"),
        "---\nname: \"Clean\"\ndescription: \"nothing to hide\"\ntype: project\n---\nFact: nothing.\n",
    )
    .unwrap();
    // a token no rule knows: the high-entropy check
    std::fs::write(
        personal.join("entropy.md"),
        "---\nname: \"Entropy\"\ndescription: \"the staging key\"\ntype: project\n---\nIt is Zx81kQ0pLm3vB7nR2tY6wE4uH5sJ in the vault.\n",
    )
    .unwrap();
    ids.push("clean".into());
    ids.push("entropy".into());

    let mut c = cmd("mem-index", &home);
    c.current_dir(&repo)
        .arg("promote")
        .args(&ids)
        .arg("--memory-dir")
        .arg(&personal);
    let o = run(c, b"");
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let mut missed = Vec::new();
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for (id, (kind, field)) in &expect {
        let want = format!("promote refused: {id}: field `{field}` carries ");
        if err.contains(&want) {
            *kinds.entry(kind).or_default() += 1;
        } else {
            missed.push(format!("{id} ({kind}) in {field}"));
        }
    }
    assert!(missed.is_empty(), "not refused: {missed:?}\n{err}");
    for s in &secrets {
        assert!(!err.contains(&s.mark), "{} printed:\n{err}", s.kind);
    }
    assert!(
        err.contains("promote refused: entropy: field `body` carries high-entropy token"),
        "{err}"
    );
    assert!(!err.contains("Zx81kQ0p"), "{err}");
    assert!(!err.contains("promote refused: clean"), "{err}");
    assert!(
        !repo.join(".claude/team-memory").exists(),
        "nothing written when refused"
    );
    let distinct: std::collections::BTreeSet<&str> = secrets.iter().map(|s| s.kind).collect();
    assert_eq!(kinds.len(), distinct.len(), "{kinds:?}");
    eprintln!(
        "{} secrets of {} kinds refused at promotion",
        expect.len(),
        kinds.len()
    );

    // the clean one alone goes through
    let mut c = cmd("mem-index", &home);
    c.current_dir(&repo)
        .args(["promote", "clean", "--memory-dir"])
        .arg(&personal);
    let o = run(c, b"");
    assert!(o.status.success(), "{}", show(&o));
    assert!(repo.join(".claude/team-memory/clean.md").is_file());
}

/// A secret under a frontmatter key of its own (`password: X`,
/// `db_password`, `api_token`, `private_key_id`): `promote` refuses it
/// naming the field, `check --tier team` exits 3 on it, `mem-index write`
/// refuses it; the harmless twins (`password_policy`, `tokenizer`,
/// `max_tokens`, a `$VAR` or a sentence under `password`, the word in
/// prose) are promoted and checked clean.
#[test]
fn a_secret_under_its_own_frontmatter_key_is_refused_and_its_twins_pass() {
    let (_tmp, home, personal, repo) = places();
    let attacks = [
        (
            "pw",
            "password: \"Tr0ub4dor3xQ\"\n",
            "extra.password",
            "Tr0ub4dor3xQ",
        ),
        (
            "db",
            "db_password: hunter2hunter\n",
            "extra.db_password",
            "hunter2hunter",
        ),
        (
            "tok",
            "api_token: 'qq81kq0pmw4n'\n",
            "extra.api_token",
            "qq81kq0pmw4n",
        ),
        (
            "gcp",
            "private_key_id: 4f1c2b9e8d7a6c5b4a39\n",
            "extra.private_key_id",
            "4f1c2b9e8d7a6c5b4a39",
        ),
        (
            "number",
            "db_password: 48213977\n",
            "extra.db_password",
            "48213977",
        ),
        (
            "nested",
            "database:\n  host: db.internal\n  password: Zorro-Blanco-77\n",
            "extra.database.password",
            "Zorro-Blanco-77",
        ),
    ];
    let twins = "password_policy: \"rotate-90-days\"\ntokenizer: cl100k_base\nmax_tokens: \"4096\"\npassword: \"$DB_PASSWORD\"\nsecret: \"kept in the team vault\"\n";
    let memory = |id: &str, extra: &str| {
        std::fs::write(
            personal.join(format!("{id}.md")),
            format!(
                "---\nname: \"Deploy {id}\"\ndescription: \"the staging deploy\"\ntype: project\n{extra}---\nThe password reset page is under account settings; run ls -a first.\n"
            ),
        )
        .unwrap();
    };
    for (id, extra, _, _) in &attacks {
        memory(id, extra);
    }
    memory("twin", twins);
    let mi = || {
        let mut c = cmd("mem-index", &home);
        c.current_dir(&repo).env("MEM_MEMORY_DIR", &personal);
        c
    };
    for (id, _, field, value) in &attacks {
        let mut c = mi();
        c.args(["promote", id]);
        let o = run(c, b"");
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(1), "{id}: {}", show(&o));
        assert!(
            err.contains(&format!(
                "promote refused: {id}: field `{field}` carries secret"
            )),
            "{id}: {err}"
        );
        assert!(!err.contains(value), "{id}: the value printed: {err}");
        assert!(!repo.join(".claude/team-memory").exists(), "{id}: written");
    }
    let mut c = mi();
    c.args(["promote", "twin"]);
    let o = run(c, b"");
    assert!(o.status.success(), "the twin is promoted: {}", show(&o));
    let team = repo.join(".claude/team-memory");
    let promoted = std::fs::read_to_string(team.join("twin.md")).unwrap();
    assert!(
        promoted.contains("cl100k_base") && promoted.contains("$DB_PASSWORD"),
        "{promoted}"
    );
    let check = || {
        let mut c = mi();
        c.args(["check", "--tier", "team", "--format", "jsonl"]);
        run(c, b"")
    };
    let o = check();
    assert_ne!(o.status.code(), Some(3), "the twin is clean: {}", show(&o));
    // planted straight into the team tier (a commit that skipped promote)
    for (id, extra, _, value) in &attacks {
        std::fs::write(
            team.join(format!("{id}.md")),
            format!("---\nname: \"Deploy {id}\"\ndescription: \"the staging deploy\"\ntype: project\n{extra}---\nbody\n"),
        )
        .unwrap();
        let o = check();
        let all = format!("{}{}", show(&o), String::new());
        assert_eq!(o.status.code(), Some(3), "{id}: {all}");
        assert!(all.contains(&format!("{id}.md")), "{id}: {all}");
        assert!(!all.contains(value), "{id}: the value printed: {all}");
        std::fs::remove_file(team.join(format!("{id}.md"))).unwrap();
    }
    // the newer text forms in a team memory's body: check exits 3
    for (kind, line, mark) in [
        (
            "netrc",
            "machine api.example.com login deploy password Qw81kq0PmW4nB7tY",
            "Qw81kq0PmW4nB7tY",
        ),
        (
            "redis",
            "redis-cli -h cache.internal -a Qw81kq0PmW4nB7tY ping",
            "Qw81kq0PmW4nB7tY",
        ),
        (
            "gcp",
            "\"private_key_id\": \"4f1c2b9e8d7a6c5b4a39281706f5e4d3c2b1a098\"",
            "4f1c2b9e8d7a",
        ),
        (
            "docker",
            "{\"auths\":{\"r.example.com\":{\"auth\":\"ZGVwbG95OlRyMHViNGRvcjN4\"}}}",
            "ZGVwbG95OlRy",
        ),
    ] {
        std::fs::write(
            team.join(format!("{kind}.md")),
            format!("---\nname: \"Deploy {kind}\"\ndescription: \"the staging deploy\"\ntype: project\n---\nThe staging deploy uses:\n{line}\n"),
        )
        .unwrap();
        let o = check();
        let all = show(&o);
        assert_eq!(o.status.code(), Some(3), "{kind}: {all}");
        assert!(
            all.contains(&format!("{kind}.md")) && !all.contains(mark),
            "{kind}: {all}"
        );
        std::fs::remove_file(team.join(format!("{kind}.md"))).unwrap();
    }
    // the personal write path refuses the record too, and writes the twin
    let mut c = mi();
    c.arg("write");
    let o = run(
        c,
        b"{\"name\":\"Db\",\"description\":\"the db\",\"type\":\"project\",\"db_password\":\"hunter2hunter\"}\n",
    );
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("hunter2hunter"),
        "{}",
        show(&o)
    );
    let mut c = mi();
    c.arg("write");
    let o = run(
        c,
        b"{\"name\":\"Tokenizer\",\"description\":\"the tokenizer\",\"type\":\"project\",\"tokenizer\":\"cl100k_base\"}\n",
    );
    assert!(o.status.success(), "{}", show(&o));
}

/// The newer text forms (netrc, `redis-cli -a`, `private_key_id`, a
/// one-line docker `config.json`, a Google API key of its real length) are
/// scrubbed by mem-extract; their twins (the word `password` in prose,
/// `-a` of other commands, `$VAR` after `-a`) keep every word.
#[test]
fn mem_extract_scrubs_the_newer_forms_and_keeps_their_twins() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let ev = |n: usize, text: &str| {
        serde_json::json!({"session":"00000000-0000-4000-8000-000000000001","source":"claude","line":n,"seq":0,
            "uuid":format!("11111111-1111-4111-8111-{n:012}"),"block":0,"ts":"2026-01-10T09:00:00Z",
            "role":"user","kind":"text","text":text,"sidechain":false,"cwd":"/home/user/proj"})
        .to_string()
    };
    let attacks = [
        (
            "Remember: the netrc entry is machine api.example.com login deploy password Qw81kq0PmW4nB7tYx.",
            "Qw81kq0PmW4nB7tYx",
        ),
        (
            "Remember: redis-cli -h cache.internal -a Qw81kq0PmW4nB7tYy ping checks the cache.",
            "Qw81kq0PmW4nB7tYy",
        ),
        (
            "Remember: the service account has \"private_key_id\": \"4f1c2b9e8d7a6c5b4a39281706f5e4d3c2b1a098\" in it.",
            "4f1c2b9e8d7a6c5b4a39",
        ),
        (
            "Remember: the registry login is {\"auths\":{\"r.example.com\":{\"auth\":\"ZGVwbG95OlRyMHViNGRvcjN4\"}}} on CI.",
            "ZGVwbG95OlRyMHViNGRvcjN4",
        ),
        (
            "Remember: the maps key is AIzaSyD3x9Kq0PmW4nB7tY2vLsQQa8f3K29xPq0 for staging.",
            "AIzaSyD3x9Kq0PmW4nB7tY2vLsQQa8f3K29xPq0",
        ),
    ];
    let twin = "Remember: always run ls -a and git commit -a, then redis-cli -a $REDIS_PASSWORD ping; the password reset page is under account settings.";
    let mut input = String::new();
    for (i, (t, _)) in attacks.iter().enumerate() {
        input.push_str(&ev(i + 1, t));
        input.push('\n');
    }
    input.push_str(&ev(9, twin));
    input.push('\n');
    let mut c = cmd("mem-extract", home);
    c.args(["--cwd", "/home/user/proj"]);
    let o = run(c, input.as_bytes());
    assert!(o.status.success(), "{}", show(&o));
    let out = String::from_utf8_lossy(&o.stdout).to_lowercase();
    for (t, mark) in &attacks {
        assert!(!out.contains(&mark.to_lowercase()), "{t}\n{out}");
    }
    assert!(out.matches("[redacted]").count() >= attacks.len(), "{out}");
    for word in [
        "ls -a",
        "git commit -a",
        "redis-cli -a $redis_password",
        "the password reset page",
    ] {
        assert!(out.contains(word), "the twin keeps {word:?}\n{out}");
    }
}
