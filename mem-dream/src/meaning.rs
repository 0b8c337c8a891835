//! What a memory says, for consolidation by meaning (docs/consolidation.md
//! "By meaning"): the *subject* it is about (the thing configured, chosen
//! or forbidden) and the *value* it gives that subject. Two memories with
//! the same subject and value say the same thing, whatever their words
//! ("Don't mock the database in tests" / "Never use mocks for database
//! tests"); the same subject with another value is a contradiction ("Use
//! Node 18 for the api service" / "Use Node 20 …"), settled by the newer.
//!
//! A claim is read in one of these frames, first match wins:
//!
//! 1. **version**: a versioned tool and its version (`Node 20`, `Python
//!    3.12`); the subject is the tool's version for what the rest of the
//!    sentence names (`for the api service`).
//! 2. **indentation**: `indent` with `N spaces` or `tabs`.
//! 3. **choice**: a tool of a known kind (runtime, package manager, CI,
//!    test framework, database, …) chosen, the others of its kind the
//!    sentence rejects (`not Bun`, `instead of npm`, `over jest`) left
//!    out; the subject is the kind for what the rest names (`deploys`).
//! 4. **pair**: `use X instead of Y` for tools outside the lexicon; the
//!    subject is the pair.
//! 5. **polarity**: an instruction (`always`, `never`, `don't`, or a plain
//!    imperative); the subject is the content words of its first clause,
//!    the value `+` or `-`.
//!
//! The subject keeps every content word that is not part of the frame, so
//! memories that only share words ("Deploys go through GitHub Actions" /
//! "Tests run on GitHub Actions") never meet. Words are stemmed
//! ([`mem_core::text`]), numbers written as words read as digits, and a
//! few spellings of one thing read as one (`PostgreSQL`, `Postgres`; `db`,
//! `database`; `linter`, `lint`).

use std::sync::LazyLock;

use mem_core::records::{Memory, MemoryType};
use mem_core::text;
use regex::Regex;

/// What a memory says: its subject and the value it gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The subject, hashed with the memory's type (memories meet on it).
    pub key: [u8; 16],
    /// The subject, readable (for the plan's reasons).
    pub subject: String,
    /// The value given to the subject (`20`, `pnpm`, `2 spaces`, `+`, `-`).
    pub value: String,
    /// Whether another memory with the same subject and value is the same
    /// memory. False for a plain statement (no frame, no "always" or
    /// "never"): it can only be superseded by, or supersede, an
    /// instruction that says the opposite.
    pub merges: bool,
}

/// Words that make an instruction negative (`t` is the end of "don't").
const NEG: &[&str] = &[
    "never", "don", "dont", "not", "no", "avoid", "stop", "without", "shouldn", "mustn", "t", "nor",
];
/// Words that make an instruction positive.
const POS: &[&str] = &["always", "must", "should", "do", "prefer", "require"];
/// Words before a tool that reject it ("not Bun", "instead of npm").
const REJECT: &[&str] = &[
    "not", "no", "never", "avoid", "instead", "over", "than", "t", "without", "stop", "nor",
];
/// Stems that say how a claim is put, not what it is about: choosing,
/// using, being, when, and where it applies in general.
const GENERIC: &[&str] = &[
    "use",
    "project",
    "now",
    "go",
    "through",
    "via",
    "run",
    "on",
    "with",
    "switch",
    "move",
    "migrat",
    "instead",
    "rather",
    "over",
    "prefer",
    "choos",
    "pick",
    "onli",
    "current",
    "anymor",
    "longer",
    "default",
    "s",
    "t",
    "everi",
    "alway",
    "must",
    "should",
    "requir",
    "we",
    "our",
    "us",
    "here",
    "repo",
    "repositori",
    "codebas",
];
/// Tools whose version a memory may pin (`Node 20`).
const VERSIONED: &[&str] = &[
    "node",
    "python",
    "java",
    "ruby",
    "go",
    "golang",
    "rust",
    "php",
    "postgres",
    "mysql",
    "terraform",
    "kotlin",
    "scala",
    "elixir",
    "erlang",
    "dotnet",
    "deno",
    "bun",
    "npm",
    "pnpm",
    "yarn",
    "gradle",
    "swift",
    "perl",
    "redis",
];
/// Tools by kind, and the words that name the kind itself.
const KINDS: &[(&str, &[&str], &[&str])] = &[
    (
        "runtime",
        &["node", "bun", "deno"],
        &["runtim", "javascript", "js"],
    ),
    (
        "package manager",
        &["npm", "pnpm", "yarn"],
        &["manag", "packag"],
    ),
    (
        "python packaging",
        &["pip", "poetry", "uv", "pipenv", "conda"],
        &["manag", "packag"],
    ),
    (
        "ci",
        &[
            "githubact",
            "buildkit",
            "circleci",
            "jenkin",
            "gitlabci",
            "travi",
            "drone",
            "teamciti",
        ],
        &["ci", "pipelin", "action"],
    ),
    (
        "test framework",
        &[
            "jest", "vitest", "mocha", "jasmin", "ava", "pytest", "unittest", "nose",
        ],
        &["framework", "runner"],
    ),
    (
        "database",
        &[
            "postgr", "mysql", "sqlite", "mongodb", "mariadb", "oracl", "mssql",
        ],
        &["databas", "db", "engin"],
    ),
    (
        "bundler",
        &[
            "webpack",
            "vite",
            "esbuild",
            "rollup",
            "parcel",
            "turbopack",
        ],
        &["bundler", "bundl", "build"],
    ),
    (
        "formatter",
        &["prettier", "black", "rustfmt", "gofmt", "biom"],
        &["formatt", "format"],
    ),
    (
        "linter",
        &["eslint", "ruff", "flake8", "pylint", "clippi", "golangci"],
        &["lint"],
    ),
];

/// Spellings of one thing, by stem.
const SAME: &[(&str, &str)] = &[
    ("linter", "lint"),
    ("db", "databas"),
    ("dep", "depend"),
    ("pkg", "packag"),
    ("config", "configur"),
    ("cfg", "configur"),
    ("repo", "repositori"),
    ("postgresql", "postgr"),
    ("postgr", "postgr"),
    ("postgre", "postgr"),
    ("nodej", "node"),
    ("golang", "go"),
    ("tab", "tab"),
];

static PHRASES: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        (r"\bnode\.js\b|\bnodejs\b", "node"),
        (r"\bgithub[ -]actions\b|\bgh actions\b", "githubactions"),
        (r"\bgitlab[ -]ci\b", "gitlabci"),
        (r"\bcircle[ -]ci\b", "circleci"),
        (r"\btravis[ -]ci\b", "travis"),
        (r"\bteam ?city\b", "teamcity"),
        (r"\bmongo ?db\b", "mongodb"),
        (r"\btwo\b", "2"),
        (r"\bthree\b", "3"),
        (r"\bfour\b", "4"),
        (r"\beight\b", "8"),
        (r"\bv(\d)", "$1"),
    ]
    .into_iter()
    .map(|(p, r)| (Regex::new(p).expect("regex"), r))
    .collect()
});

static PAIR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:use|prefer|choose|pick)\s+([A-Za-z0-9_.@/+-]+)\s+(?:instead\s+of|over|rather\s+than|not)\s+([A-Za-z0-9_.@/+-]+)")
        .expect("regex")
});

/// The words of `text`, lowercased, phrases joined, number words as digits;
/// a version (`3.12`) stays one word.
fn words(text: &str) -> Vec<String> {
    let mut t = text.to_lowercase();
    for (re, to) in PHRASES.iter() {
        if re.is_match(&t) {
            t = re.replace_all(&t, *to).into_owned();
        }
    }
    let cs: Vec<char> = t.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, &c) in cs.iter().enumerate() {
        let in_number = c == '.'
            && cur.chars().last().is_some_and(|p| p.is_ascii_digit())
            && cs.get(i + 1).is_some_and(char::is_ascii_digit);
        if c.is_alphanumeric() || in_number {
            cur.push(c);
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The stem of a word, spellings of one thing made one.
fn stem(w: &str) -> String {
    let s = text::stems().stem(w);
    match SAME.iter().find(|(a, _)| *a == s || *a == w) {
        Some((_, to)) => to.to_string(),
        None => s,
    }
}

fn is_number(w: &str) -> bool {
    w.starts_with(|c: char| c.is_ascii_digit()) && w.chars().all(|c| c.is_ascii_digit() || c == '.')
}

/// The first clause of a sentence: up to a comma, semicolon, colon, dash
/// or parenthesis.
fn first_clause(text: &str) -> &str {
    let end = text
        .find([',', ';', ':', '(', '—', '–'])
        .or_else(|| text.find(" - "))
        .unwrap_or(text.len());
    &text[..end]
}

/// The kind of a tool (by stem) and the tool's stem.
fn kind_of(stem: &str) -> Option<usize> {
    KINDS.iter().position(|(_, tools, _)| tools.contains(&stem))
}

/// Content words of a clause: their stems, sorted (what memories meet
/// on), and the words as written, in order (what the plan shows).
struct Context {
    stems: Vec<String>,
    words: Vec<String>,
}

/// The content words of `clause` without stop words, polarity words,
/// generic words and those `skip` says belong to the frame.
fn context(clause: &str, skip: impl Fn(&str, &str) -> bool) -> Context {
    let mut c = Context {
        stems: Vec::new(),
        words: Vec::new(),
    };
    for w in words(clause) {
        if NEG.contains(&w.as_str()) || POS.contains(&w.as_str()) || text::is_stop_word(&w) {
            continue;
        }
        let s = stem(&w);
        if GENERIC.contains(&s.as_str()) || GENERIC.contains(&w.as_str()) || skip(&w, &s) {
            continue;
        }
        if !c.stems.contains(&s) {
            c.stems.push(s);
            c.words.push(w);
        }
    }
    c.stems.sort();
    c
}

fn key(ty: MemoryType, frame: &str, subject: &[String]) -> [u8; 16] {
    let mut h = blake3::Hasher::new();
    h.update(ty.as_str().as_bytes());
    h.update(b"\0");
    h.update(frame.as_bytes());
    for w in subject {
        h.update(b"\0");
        h.update(w.as_bytes());
    }
    let mut out = [0u8; 16];
    out.copy_from_slice(&h.finalize().as_bytes()[..16]);
    out
}

fn readable(head: &str, ctx: &Context) -> String {
    if ctx.words.is_empty() {
        head.to_string()
    } else {
        format!("{head} for {}", ctx.words.join(" "))
    }
}

/// What `m` says (see the module docs), read from its description, else
/// its fact. `None` for a reference, or a sentence of no frame.
pub fn claim(m: &Memory) -> Option<Claim> {
    if m.mem_type == MemoryType::Reference {
        return None;
    }
    claim_of(m.mem_type, &m.description)
        .or_else(|| m.fact.as_deref().and_then(|f| claim_of(m.mem_type, f)))
}

/// The claim of one sentence.
pub fn claim_of(ty: MemoryType, sentence: &str) -> Option<Claim> {
    let clause = first_clause(sentence);
    let ws = words(clause);
    let stems: Vec<String> = ws.iter().map(|w| stem(w)).collect();

    // 1. version
    for (i, w) in ws.iter().enumerate() {
        if VERSIONED.contains(&w.as_str())
            && let Some(v) = ws.get(i + 1).filter(|v| is_number(v))
        {
            let tool = stem(w);
            let ctx = context(clause, |x, s| s == tool || x == v || x == w);
            let mut subject = vec![tool.clone()];
            subject.extend(ctx.stems.iter().cloned());
            return Some(Claim {
                key: key(ty, "version", &subject),
                subject: readable(&format!("{w} version"), &ctx),
                value: v.clone(),
                merges: true,
            });
        }
    }

    // 2. indentation
    if stems.iter().any(|s| s == "indent") {
        let value = if stems.iter().any(|s| s == "tab") {
            Some("tabs".to_string())
        } else {
            stems
                .iter()
                .position(|s| s == "space")
                .and_then(|i| i.checked_sub(1))
                .filter(|&i| is_number(&ws[i]))
                .map(|i| format!("{} spaces", ws[i]))
        };
        if let Some(value) = value {
            let ctx = context(clause, |x, s| {
                matches!(s, "indent" | "space" | "tab") || is_number(x)
            });
            return Some(Claim {
                key: key(ty, "indent", &ctx.stems),
                subject: readable("indentation", &ctx),
                value,
                merges: true,
            });
        }
    }

    // 3. choice of a tool of a known kind (rejections read from the whole
    // sentence: "uses Node, not Bun")
    let all = words(sentence);
    let mut kind: Option<usize> = None;
    let mut chosen: Option<String> = None;
    let mut mixed = false;
    for (i, w) in all.iter().enumerate() {
        let s = stem(w);
        let Some(k) = kind_of(&s) else { continue };
        if kind.is_some_and(|x| x != k) {
            mixed = true;
        }
        kind.get_or_insert(k);
        let before = &all[i.saturating_sub(3)..i];
        let rejected = before.iter().any(|b| REJECT.contains(&b.as_str()));
        if !rejected && chosen.is_none() {
            chosen = Some(s);
        }
    }
    if let (Some(k), Some(tool), false) = (kind, chosen, mixed) {
        let (name, tools, kind_words) = KINDS[k];
        let ctx = context(clause, |_, s| tools.contains(&s) || kind_words.contains(&s));
        return Some(Claim {
            key: key(ty, &format!("choice:{name}"), &ctx.stems),
            subject: readable(name, &ctx),
            value: tool,
            merges: true,
        });
    }

    // 4. a pair of tools outside the lexicon
    if let Some(c) = PAIR.captures(sentence) {
        let name = |s: &str| s.trim_end_matches(['.', '/', '-', '+']).to_lowercase();
        let (x, y) = (name(&c[1]), name(&c[2]));
        let mut pair = [x.clone(), y];
        pair.sort();
        return Some(Claim {
            key: key(ty, "pair", &pair),
            subject: pair.join(" or "),
            value: x,
            merges: true,
        });
    }

    // 5. polarity (the subject's words in their order: "writer 1 record
    // 2" is not "writer 2 record 1")
    let (mut neg, mut pos) = (false, false);
    for w in words(sentence) {
        neg |= NEG.contains(&w.as_str());
        pos |= POS.contains(&w.as_str());
    }
    let ctx = context(clause, |_, _| false);
    if ctx.stems.len() < 2 {
        return None;
    }
    let ordered: Vec<String> = ctx.words.iter().map(|w| stem(w)).collect();
    Some(Claim {
        key: key(ty, "polar", &ordered),
        subject: ctx.words.join(" "),
        value: if neg { "-".into() } else { "+".into() },
        merges: neg || pos,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> Claim {
        claim_of(MemoryType::Feedback, s).unwrap_or_else(|| panic!("no claim: {s}"))
    }

    #[test]
    fn frames_read_subject_and_value() {
        let a = c("Use Node 18 for the api service");
        let b = c("Use Node 20 for the api service");
        assert_eq!(a.key, b.key);
        assert_eq!((a.value.as_str(), b.value.as_str()), ("18", "20"));
        assert_eq!(a.subject, "node version for api service");
        let a = c("Use 2-space indentation");
        let b = c("Indent with two spaces");
        assert_eq!((a.key, a.value.as_str()), (b.key, "2 spaces"));
        let a = c("The project uses Node, not Bun");
        assert_eq!(a.value, "node");
        assert_eq!(a.key, c("The project uses Bun").key);
        let a = c("Don't mock the database in tests");
        let b = c("Never use mocks for database tests");
        assert_eq!((a.key, a.value.as_str()), (b.key, "-"));
        assert_ne!(
            c("Deploys go through GitHub Actions").key,
            c("Tests run on GitHub Actions").key
        );
        assert_eq!(words("Python 3.12, v20"), ["python", "3.12", "20"]);
        // a plain statement: no merge on its words alone, and its numbers
        // keep their places
        let a = c("Writer 1 record 2: endpoint listens on port 11002");
        let b = c("Writer 2 record 1: endpoint listens on port 12001");
        assert!(!a.merges);
        assert_ne!(a.key, b.key);
    }
}
