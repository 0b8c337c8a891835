//! The secrets corpus: fake secrets of many kinds, generated here (never
//! literal in the source), embedded in Claude Code transcripts in the user's
//! own words, in a failing command's output and command line, and in a file
//! read by the agent.
//!
//! 1. The write path (`mem-transcript replay | mem-extract | mem-index write`,
//!    the real binaries) lets none of them into the memory directory.
//! 2. `mem-index check` finds every one of them planted directly into a topic
//!    file (one file per secret), exits 1 and names the file.
//!
//! A per-kind table (kind, planted, caught by the write path, caught by
//! check) is printed to stderr.

use std::collections::BTreeMap;
use std::path::Path;

use mem_tests::{cmd, files_under, run, show};
use serde_json::{Value, json};

/// A deterministic generator (xorshift64*), so the corpus is the same on
/// every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn from(&mut self, alphabet: &str, n: usize) -> String {
        let a = alphabet.as_bytes();
        (0..n)
            .map(|_| a[(self.next() % a.len() as u64) as usize] as char)
            .collect()
    }
}

const UPPER_DIGIT: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URLSAFE: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const HEX: &str = "0123456789abcdef";
const DIGITS: &str = "0123456789";

/// One fake secret: its kind, the text as it appears in a file or a
/// message (`line`, may span lines), and the part that must never reach a
/// memory (`mark`).
struct Secret {
    kind: &'static str,
    line: String,
    mark: String,
}

fn corpus() -> Vec<Secret> {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let mut v = Vec::new();
    let mut add =
        |kind: &'static str, line: String, mark: String| v.push(Secret { kind, line, mark });
    // AWS access key ids (two prefixes)
    for p in ["AKIA", "ASIA"] {
        let t = r.from(UPPER_DIGIT, 16);
        add("aws-access-key-id", format!("{p}{t}"), format!("{p}{t}"));
    }
    // AWS secret keys: .env and JSON spellings
    let t = r.from(B64, 40);
    add(
        "aws-secret-access-key",
        format!("AWS_SECRET_ACCESS_KEY={t}"),
        t,
    );
    let t = r.from(B64, 40);
    add(
        "aws-secret-access-key",
        format!(
            "{{\"AccessKeyId\": \"AKIA{}\", \"SecretAccessKey\": \"{t}\"}}",
            r.from(UPPER_DIGIT, 16)
        ),
        t,
    );
    // GitHub classic tokens
    for p in ["ghp_", "gho_"] {
        let t = r.from(ALNUM, 36);
        add("github-token", format!("{p}{t}"), t);
    }
    // GitHub fine-grained
    let t = format!("{}_{}", r.from(ALNUM, 22), r.from(ALNUM, 59));
    add("github-fine-grained", format!("github_pat_{t}"), t);
    // Slack bot and user tokens
    for p in ["xoxb", "xoxp"] {
        let t = format!(
            "{}-{}-{}",
            r.from(DIGITS, 12),
            r.from(DIGITS, 13),
            r.from(ALNUM, 24)
        );
        add("slack-token", format!("{p}-{t}"), t);
    }
    // Slack webhook
    let t = r.from(ALNUM, 24);
    add(
        "slack-webhook",
        format!(
            "https://hooks.slack.com/services/T{}/B{}/{t}",
            r.from(UPPER_DIGIT, 8),
            r.from(UPPER_DIGIT, 10)
        ),
        t,
    );
    // Stripe live secret and restricted keys
    for p in ["sk_live_", "rk_live_"] {
        let t = r.from(ALNUM, 24);
        add("stripe-key", format!("{p}{t}"), t);
    }
    // Google API keys
    for _ in 0..2 {
        let t = r.from(URLSAFE, 35);
        add("google-api-key", format!("AIza{t}"), t);
    }
    // OpenAI: legacy and project keys
    let t = format!("{}T3BlbkFJ{}", r.from(ALNUM, 20), r.from(ALNUM, 20));
    add("openai-key", format!("sk-{t}"), t);
    let t = r.from(URLSAFE, 74);
    add("openai-key", format!("sk-proj-{t}"), t);
    // Anthropic
    let t = r.from(URLSAFE, 93);
    add("anthropic-key", format!("sk-ant-api03-{t}AA"), t);
    // Private key blocks
    for (label, n) in [
        ("RSA PRIVATE KEY", 5),
        ("OPENSSH PRIVATE KEY", 4),
        ("EC PRIVATE KEY", 3),
    ] {
        let body: Vec<String> = (0..n).map(|_| r.from(B64, 64)).collect();
        let mark = body[1].clone();
        add(
            "private-key",
            format!(
                "-----BEGIN {label}-----\n{}\n-----END {label}-----",
                body.join("\n")
            ),
            mark,
        );
    }
    // JWTs
    for _ in 0..2 {
        let sig = r.from(URLSAFE, 43);
        let payload = format!("eyJzdWIiOiIx{}", r.from(URLSAFE, 30));
        add(
            "jwt",
            format!("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.{payload}.{sig}"),
            sig,
        );
    }
    // Connection strings with passwords
    for (scheme, user, host) in [
        ("postgres", "app", "db.internal:5432/app"),
        ("mysql", "root", "mysql.internal:3306/shop"),
        (
            "mongodb+srv",
            "svc",
            "cluster0.example.net/prod?retryWrites=true",
        ),
        ("redis", "", "cache.internal:6379/0"),
        ("amqp", "rabbit", "mq.internal:5672/%2f"),
    ] {
        let pw = r.from(ALNUM, 18);
        add(
            "connection-string",
            format!("{scheme}://{user}:{pw}@{host}"),
            pw,
        );
    }
    // Basic auth in a URL
    let pw = r.from(ALNUM, 16);
    add(
        "basic-auth-url",
        format!("https://deploy:{pw}@git.example.com/team/app.git"),
        pw,
    );
    // Passwords in .env / YAML
    let pw = format!("{}!{}", r.from(ALNUM, 10), r.from(ALNUM, 6));
    add("env-password", format!("DB_PASSWORD={pw}"), pw);
    let pw = r.from(ALNUM, 14);
    add("env-password", format!("smtp_password: \"{pw}\""), pw);
    // High-entropy values after key names (.env and JSON)
    let t = r.from(ALNUM, 32);
    add("high-entropy-env", format!("API_KEY={t}"), t);
    let t = r.from(URLSAFE, 40);
    add(
        "high-entropy-json",
        format!("{{\"client_id\": \"web\", \"client_secret\": \"{t}\"}}"),
        t,
    );
    // Bearer token
    let t = r.from(URLSAFE, 40);
    add("bearer-token", format!("Authorization: Bearer {t}"), t);
    // npm tokens (bare and in .npmrc)
    let t = r.from(ALNUM, 36);
    add("npm-token", format!("npm_{t}"), t);
    let t = r.from(ALNUM, 36);
    add(
        "npm-token",
        format!("//registry.npmjs.org/:_authToken=npm_{t}"),
        t,
    );
    // SendGrid
    let t = r.from(URLSAFE, 43);
    add("sendgrid-key", format!("SG.{}.{t}", r.from(URLSAFE, 22)), t);
    // Twilio: API key SID (bare) and auth token (.env)
    let t = r.from(HEX, 32);
    add("twilio", format!("SK{t}"), t);
    let t = r.from(HEX, 32);
    add("twilio", format!("TWILIO_AUTH_TOKEN={t}"), t);
    // GitLab personal access token
    let t = r.from(URLSAFE, 20);
    add("gitlab-token", format!("glpat-{t}"), t);
    // Hugging Face
    let t = r.from(ALNUM, 34);
    add("huggingface-token", format!("hf_{t}"), t);
    // PyPI, DigitalOcean, Shopify
    let t = r.from(URLSAFE, 60);
    add("pypi-token", format!("pypi-AgEIcHlwaS5vcmc{t}"), t);
    let t = r.from(HEX, 64);
    add("digitalocean-token", format!("dop_v1_{t}"), t);
    let t = r.from(HEX, 32);
    add("shopify-token", format!("shpat_{t}"), t);
    // Azure storage connection string
    let t = format!("{}==", r.from(B64, 86));
    add(
        "azure-storage-key",
        format!(
            "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={t};EndpointSuffix=core.windows.net"
        ),
        t[..40].to_string(),
    );
    // Kinds the scrubber once missed: command-line passwords, auth
    // headers, cookies, docker auth, odd URL passwords, glued tokens, a bare
    // AWS secret key.
    let pw = r.from(ALNUM, 16);
    add(
        "cli-password-flag",
        format!("mysqladmin --password {pw} status"),
        pw,
    );
    let pw = r.from(ALNUM, 16);
    add("mysql-p-flag", format!("mysql -u root -p{pw} appdb"), pw);
    let pw = r.from(ALNUM, 16);
    add("sshpass", format!("sshpass -p {pw} ssh deploy@web1"), pw);
    let t = r.from(B64, 28);
    add(
        "basic-auth",
        format!("curl -H 'Authorization: Basic {t}' https://api.example.com/v1"),
        t,
    );
    let t = r.from(ALNUM, 32);
    add("cookie", format!("Cookie: session={t}; theme=dark"), t);
    let t = r.from(B64, 32);
    add(
        "docker-auth",
        format!("{{\"auths\": {{\"ghcr.io\": {{\"auth\": \"{t}\"}}}}}}"),
        t,
    );
    let (a, b) = (r.from(ALNUM, 8), r.from(ALNUM, 14));
    add(
        "url-password-at",
        format!("postgres://app:{a}@{b}@db.internal:5432/app"),
        format!("{a}@{b}"),
    );
    let (a, b) = (r.from(ALNUM, 8), r.from(ALNUM, 14));
    add(
        "url-password-slash",
        format!("https://deploy:{a}/{b}@git.example.com/team/app.git"),
        b,
    );
    let t = r.from(ALNUM, 36);
    add("glued-token", format!("exportedghp_{t} to the runner"), t);
    let t = r.from(ALNUM, 36);
    add(
        "token-after-%3D",
        format!("https://ci.example.com/cb?state=1&token%3Dghp_{t}"),
        t,
    );
    let t = loop {
        let t = r.from(B64, 40);
        let has = |f: fn(&u8) -> bool| t.as_bytes().iter().any(f);
        if has(u8::is_ascii_uppercase) && has(u8::is_ascii_lowercase) && has(u8::is_ascii_digit) {
            break t;
        }
    };
    add(
        "aws-secret-bare",
        format!("the prod secret is {t} (rotate monthly)"),
        t,
    );
    v
}

/// Claude Code transcript lines for one session that carries `s` in the
/// user's words, in a failing command line and its output, and in a file the
/// agent read. The failure → fix → success shape makes mem-extract write a
/// lesson from the error output; the user's sentences make it write feedback
/// and project memories.
fn transcript(n: usize, group: &[Secret]) -> String {
    let session = format!("00000000-0000-4000-8000-{n:012}");
    let mut lines: Vec<Value> = Vec::new();
    for (k, s) in group.iter().enumerate() {
        lines.extend(exchange(n * 100 + k, s));
    }
    // chain the exchanges into one branch
    let mut parent: Option<String> = None;
    let mut out = String::new();
    for mut l in lines {
        l["parentUuid"] = json!(parent);
        l["sessionId"] = json!(session);
        parent = l["uuid"].as_str().map(str::to_string);
        out.push_str(&serde_json::to_string(&l).unwrap());
        out.push('\n');
    }
    out
}

/// The entries of one exchange carrying `s` (see [`transcript`]).
fn exchange(n: usize, s: &Secret) -> Vec<Value> {
    let mut lines: Vec<Value> = Vec::new();
    let mut parent: Option<String> = None;
    let mut seq = 0usize;
    let mut node = |kind: &str, message: Value, extra: Option<(&str, Value)>| {
        seq += 1;
        let uuid = format!("11111111-2222-4333-8444-{n:06}{seq:06}");
        let mut e = json!({
            "type": kind,
            "uuid": uuid,
            "parentUuid": parent,
            "isSidechain": false,
            "userType": "external",
            "sessionId": "",
            "cwd": "/home/dev/proj",
            "version": "2.1.0",
            "timestamp": format!("2026-07-11T{:02}:{:02}:{:02}Z", n / 100 % 24, n % 100 % 60, seq % 60),
            "message": message,
        });
        if let Some((k, v)) = extra {
            e[k] = v;
        }
        parent = Some(uuid);
        e
    };
    let line = &s.line;
    let one_line = !line.contains('\n');
    let user = |t: String| json!({"role": "user", "content": t});
    let asst = |id: &str, c: Value| {
        json!({"id": format!("msg_{id}"), "type": "message", "role": "assistant",
               "model": "claude-x", "content": [c]})
    };
    let result = |id: &str, text: &str, err: bool| {
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id,
               "content": text, "is_error": err}]})
    };
    // the user's own words: project facts and feedback carrying the secret
    lines.push(node(
        "user",
        user(format!(
            "Remember that the staging deploy needs {line} because the mirror checks it.\n\
             Never paste {line} into the chat logs, always use the vault instead."
        )),
        None,
    ));
    lines.push(node(
        "user",
        user(format!(
            "FYI the release job requires this credential: {line}\nWe use the vault for secrets in this repo."
        )),
        None,
    ));
    // a file read by the agent (file contents)
    let tid = format!("toolu_read{n:04}");
    lines.push(node(
        "assistant",
        asst(
            &format!("r{n}"),
            json!({"type": "tool_use", "id": tid, "name": "Read",
                   "input": {"file_path": "/home/dev/proj/.env"}}),
        ),
        None,
    ));
    let file = format!("# local settings\nNODE_ENV=staging\n{line}\nLOG_LEVEL=debug\n");
    lines.push(node(
        "user",
        result(&tid, &file, false),
        Some((
            "toolUseResult",
            json!({"type": "text", "file": {"filePath": "/home/dev/proj/.env", "content": file}}),
        )),
    ));
    // a failing command whose output (and, when it fits one line, command line) carries it
    let cmd1 = if one_line {
        format!("env '{line}' npm run deploy")
    } else {
        "npm run deploy".to_string()
    };
    let t1 = format!("toolu_a{n:04}");
    lines.push(node(
        "assistant",
        asst(
            &format!("a{n}"),
            json!({"type": "tool_use", "id": t1, "name": "Bash", "input": {"command": cmd1}}),
        ),
        None,
    ));
    lines.push(node(
        "user",
        result(
            &t1,
            &format!("Error: authentication failed\n  credential in use: {line}\n  status 401\n"),
            true,
        ),
        None,
    ));
    let t2 = format!("toolu_b{n:04}");
    lines.push(node(
        "assistant",
        asst(
            &format!("b{n}"),
            json!({"type": "tool_use", "id": t2, "name": "Bash",
                   "input": {"command": "npm run login"}}),
        ),
        None,
    ));
    lines.push(node("user", result(&t2, "logged in\n", false), None));
    let t3 = format!("toolu_c{n:04}");
    lines.push(node(
        "assistant",
        asst(
            &format!("c{n}"),
            json!({"type": "tool_use", "id": t3, "name": "Bash", "input": {"command": cmd1}}),
        ),
        None,
    ));
    lines.push(node("user", result(&t3, "deployed\n", false), None));
    lines.push(node(
        "assistant",
        asst(
            &format!("d{n}"),
            json!({"type": "text", "text": "Deployed after logging in."}),
        ),
        None,
    ));
    lines
}

/// Every file under `dir`, read as lossy text.
fn all_text(dir: &Path) -> String {
    let mut out = String::new();
    for p in files_under(dir) {
        if let Ok(b) = std::fs::read(&p) {
            out.push_str(&String::from_utf8_lossy(&b));
            out.push('\n');
        }
    }
    out
}

/// Secrets per generated session.
const GROUP: usize = 5;

#[derive(Default)]
struct Row {
    planted: usize,
    write_ok: usize,
    check_ok: usize,
}

fn print_table(rows: &BTreeMap<&str, Row>) {
    eprintln!(
        "{:<24} {:>7} {:>16} {:>15}",
        "kind", "planted", "caught by write", "caught by check"
    );
    let (mut p, mut w, mut c) = (0, 0, 0);
    for (k, r) in rows {
        eprintln!(
            "{k:<24} {:>7} {:>16} {:>15}",
            r.planted, r.write_ok, r.check_ok
        );
        p += r.planted;
        w += r.write_ok;
        c += r.check_ok;
    }
    eprintln!("{:<24} {p:>7} {w:>16} {c:>15}", "TOTAL");
}

#[test]
fn corpus_has_enough_secrets_and_kinds() {
    let c = corpus();
    let kinds: std::collections::BTreeSet<_> = c.iter().map(|s| s.kind).collect();
    assert!(c.len() >= 30, "{} secrets", c.len());
    assert!(kinds.len() >= 15, "{} kinds", kinds.len());
    for s in &c {
        assert!(s.line.contains(&s.mark), "{}: mark not in line", s.kind);
        assert!(s.mark.len() >= 14, "{}: mark too short", s.kind);
    }
}

#[test]
fn secrets_never_reach_memory_and_check_finds_every_one() {
    let home = tempfile::tempdir().unwrap();
    let secrets = corpus();
    let mut rows: BTreeMap<&str, Row> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut memories = 0usize;

    // 1. the write path, one session per secret
    let memdir = home.path().join("memory");
    let tdir = home.path().join("transcripts");
    std::fs::create_dir_all(&tdir).unwrap();
    let mut leaked_in_extract = vec![false; secrets.len()];
    let mut refused = 0usize;
    for (g, group) in secrets.chunks(GROUP).enumerate() {
        let path = tdir.join(format!("00000000-0000-4000-8000-{g:012}.jsonl"));
        std::fs::write(&path, transcript(g, group)).unwrap();
        let mut replay = cmd("mem-transcript", home.path());
        replay.arg("replay").arg(&path);
        let r = run(replay, b"");
        assert!(r.status.success(), "replay session {g}: {}", show(&r));
        let mut extract = cmd("mem-extract", home.path());
        extract.arg("--explain").arg("--cwd").arg("/home/dev/proj");
        let x = run(extract, &r.stdout);
        assert!(x.status.success(), "extract session {g}: {}", show(&x));
        // --explain quotes the transcript on stderr: scrubbed too
        let xs = format!(
            "{}{}",
            String::from_utf8_lossy(&x.stdout),
            String::from_utf8_lossy(&x.stderr)
        );
        for (k, s) in group.iter().enumerate() {
            leaked_in_extract[g * GROUP + k] = xs.contains(&s.mark);
        }
        memories += x.stdout.iter().filter(|&&b| b == b'\n').count();
        let write = |skip: bool| {
            let mut w = cmd("mem-index", home.path());
            w.args(["write", "--max-files", "0", "--memory-dir"])
                .arg(&memdir);
            if skip {
                w.arg("--skip-invalid");
            }
            run(w, &x.stdout)
        };
        let w = write(false);
        if !w.status.success() {
            let err = String::from_utf8_lossy(&w.stderr);
            // a record refused for carrying a secret means mem-extract let it
            // through; other refusals (a bad name) are reported, and the rest
            // of the batch is written so the check below still sees it
            if err.contains("secret") {
                failures.push(format!(
                    "write refused session {g} for a secret mem-extract left in: {}",
                    show(&w)
                ));
            }
            refused += err.lines().filter(|l| l.contains("<stdin>:")).count();
            eprintln!("NOTE: mem-index write refused records of session {g}:\n{err}");
            let w2 = write(true);
            assert!(
                w2.status.code() == Some(1) || w2.status.success(),
                "write --skip-invalid: {}",
                show(&w2)
            );
        }
    }
    // every secret sits in sentences the extractor keeps: the test is only
    // meaningful when memories were written
    assert!(
        memories >= secrets.len(),
        "only {memories} memories extracted for {} secrets",
        secrets.len()
    );
    let stored = all_text(&memdir);
    let redacted = stored.matches("[REDACTED]").count();
    // the secrets' sentences did reach memory, redacted
    assert!(
        redacted >= secrets.len() / 2,
        "only {redacted} redactions stored"
    );
    for (i, s) in secrets.iter().enumerate() {
        let row = rows.entry(s.kind).or_default();
        row.planted += 1;
        if stored.contains(&s.mark) || leaked_in_extract[i] {
            failures.push(format!(
                "{} #{i} reached {} (extract output: {})",
                s.kind,
                if stored.contains(&s.mark) {
                    "the memory directory"
                } else {
                    "mem-extract's output (stdout or --explain on stderr)"
                },
                leaked_in_extract[i]
            ));
        } else {
            row.write_ok += 1;
        }
    }

    // 2. mem-index check over planted topic files, one secret each
    let plant = home.path().join("planted");
    std::fs::create_dir_all(&plant).unwrap();
    for (i, s) in secrets.iter().enumerate() {
        let field = i % 3;
        let one_line = !s.line.contains('\n');
        let esc = s.line.replace('\\', "\\\\").replace('"', "\\\"");
        let desc = if field == 1 && one_line {
            format!("Staging deploy uses {esc}")
        } else {
            "Staging deploy credential".to_string()
        };
        let extra = if field == 2 && one_line {
            format!("owner_note: \"{esc}\"\n")
        } else {
            String::new()
        };
        let body = if (field == 1 || field == 2) && one_line {
            "Fact: The staging deploy needs a credential from the vault.\n".to_string()
        } else {
            format!(
                "Fact: The staging deploy needs this credential:\n{}\n",
                s.line
            )
        };
        std::fs::write(
            plant.join(format!("secret-{i:02}.md")),
            format!(
                "---\nname: \"Secret {i}\"\ndescription: \"{desc}\"\ntype: project\n{extra}---\n{body}"
            ),
        )
        .unwrap();
    }
    let mut check = cmd("mem-index", home.path());
    check
        .args(["check", "--format", "jsonl", "--memory-dir"])
        .arg(&plant);
    let c = run(check, b"");
    assert_eq!(c.status.code(), Some(1), "check: {}", show(&c));
    let out = String::from_utf8_lossy(&c.stdout).into_owned();
    let mut named: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for l in out.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("check line {l}: {e}"));
        let text = v.to_string();
        if text.contains("sensitive") && text.contains("secret") {
            let file = v["file"].as_str().unwrap_or("").to_string();
            named.entry(file).or_default().push(text);
        }
    }
    for (i, s) in secrets.iter().enumerate() {
        let f = format!("secret-{i:02}.md");
        if named.keys().any(|k| k.ends_with(&f)) {
            rows.get_mut(s.kind).unwrap().check_ok += 1;
        } else {
            failures.push(format!("check did not name {f} ({})", s.kind));
        }
    }
    assert!(
        String::from_utf8_lossy(&c.stdout).contains("secret-00.md"),
        "check names the file: {}",
        show(&c)
    );

    print_table(&rows);
    eprintln!(
        "{memories} memories extracted from {} sessions ({} secrets), {refused} refused by write, \
         {redacted} [REDACTED] marks stored",
        secrets.len().div_ceil(GROUP),
        secrets.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
