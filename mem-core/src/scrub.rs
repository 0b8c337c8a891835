//! The one scrubber (docs/security.md "The scrubber"): secrets, session ids and
//! absolute paths, found in any text before it reaches a memory.
//!
//! - **Secrets**: rules are data ([`DEFAULT_RULES_YAML`], embedded from
//!   `scrub_rules.yaml`): cloud keys, GitHub / Slack / Stripe / Google
//!   tokens, private-key blocks, JWTs, passwords in URLs, high-entropy values
//!   after `key=` / `token:` / `secret=` / `password=` … → `[REDACTED]`.
//! - **Session ids**: any 8-4-4-4-12 hex UUID → removed.
//! - **Absolute paths**: a token starting `/`, `~/` or `X:\` with at least two
//!   segments, not inside a `scheme://` URL. Inside the project root → made
//!   project-relative; elsewhere → removed.
//!
//! Used by mem-extract (every candidate), mem-index (`write` refuses, `check`
//! reports) and mem-dream (`redact`). Regexes use ASCII classes only and run
//! only when one of the literals they need occurs in the text (read off each
//! pattern when the scrubber is made, [`crate::literals`]).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use aho_corasick::AhoCorasick;
use regex::Regex;
use serde::Deserialize;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::records::Memory;

/// The embedded secret rules (YAML), the default of [`Scrubber::new`].
pub const DEFAULT_RULES_YAML: &str = include_str!("scrub_rules.yaml");

/// What replaces a secret.
pub const REDACTED: &str = "[REDACTED]";

/// One secret rule as written in the rules file (see `scrub_rules.yaml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleSpec {
    /// Name shown in findings.
    pub name: String,
    /// Regex (Rust `regex` syntax).
    pub pattern: String,
    /// Capture group to redact (0 = whole match).
    #[serde(default)]
    pub group: usize,
    /// Minimum Shannon entropy (bits per byte) of the redacted value.
    #[serde(default)]
    pub min_entropy: f64,
    /// The match must not follow `[A-Za-z0-9_]` (a URL-encoded byte such as
    /// `%3D` right before it counts as a boundary).
    #[serde(default = "yes")]
    pub boundary: bool,
    /// How many character classes (upper case, lower case, digit, other) the
    /// redacted value must mix (0: any).
    #[serde(default)]
    pub min_classes: usize,
    /// With `min_run`: the bytes the value is made of, as ASCII characters
    /// and ranges (`A-Za-z0-9/+`; a `-` first or last stands for itself).
    /// The rule runs only on a text that holds `min_run` of them in a row: a
    /// test far cheaper than the regex, for a rule no literal announces.
    #[serde(default)]
    pub run_bytes: Option<String>,
    /// See `run_bytes` (0: no such test).
    #[serde(default)]
    pub min_run: usize,
}

fn yes() -> bool {
    true
}

/// The rules file: `secrets:` a list of [`RuleSpec`].
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesFile {
    /// Secret rules, applied in order.
    pub secrets: Vec<RuleSpec>,
}

#[derive(Debug, Clone)]
struct Rule {
    spec: RuleSpec,
    /// The regex, compiled the first time a text passes the prefilters
    /// (most rules never run on a given input); `None` when it does not
    /// compile or lacks the capture group (the rule then finds nothing).
    re: OnceLock<Option<Regex>>,
    /// From `run_bytes` and `min_run`: the bytes of the run and its length.
    run: Option<(Box<[bool; 256]>, usize)>,
    /// The literals every match of the regex holds one of, read off the
    /// pattern ([`crate::literals::required`]): the rule runs only on a
    /// text holding one. Empty: none found, the rule always runs.
    literals: Vec<String>,
    /// Match [`Rule::literals`] ASCII-case-insensitively.
    icase: bool,
}

impl Rule {
    fn regex(&self) -> Option<&Regex> {
        self.re
            .get_or_init(|| compile_regex(&self.spec).ok())
            .as_ref()
    }
}

/// The prefilter literals of every rule in one automaton, matched ASCII
/// case-insensitively (an exact literal's match is then compared byte for
/// byte): one pass over a text says which rules may match, instead of one
/// search per rule.
#[derive(Debug, Clone)]
struct Prefilters {
    /// Automaton and, per pattern, its rule's index and, when the literal
    /// must match exactly (same case), the literal.
    ac: Option<(AhoCorasick, Vec<Owner>)>,
    /// Per rule: it has no prefilter (always runs).
    always: Vec<bool>,
}

/// The rule a prefilter literal belongs to, and the literal when it must
/// match exactly (same case).
type Owner = (usize, Option<String>);

/// A rule without literals, or with an empty one (which occurs in every
/// text): it always runs.
fn unfiltered(r: &Rule) -> bool {
    r.literals.is_empty() || r.literals.iter().any(String::is_empty)
}

impl Prefilters {
    fn new(rules: &[Rule]) -> Prefilters {
        let mut pats = Vec::new();
        let mut owner = Vec::new();
        for (i, r) in rules.iter().enumerate() {
            if !unfiltered(r) {
                for l in &r.literals {
                    pats.push(l.as_str());
                    owner.push((i, (!r.icase).then(|| l.clone())));
                }
            }
        }
        // A literal set that does not build leaves its rules always run.
        let ac = (!pats.is_empty())
            .then(|| {
                AhoCorasick::builder()
                    .ascii_case_insensitive(true)
                    .build(&pats)
                    .ok()
                    .map(|ac| (ac, owner))
            })
            .flatten();
        let always = rules
            .iter()
            .map(|r| unfiltered(r) || ac.is_none())
            .collect();
        Prefilters { ac, always }
    }

    /// Per rule: one of its literals occurs in `text` (or it has none).
    fn candidates(&self, text: &str) -> Vec<bool> {
        let mut may = self.always.clone();
        if let Some((ac, owner)) = &self.ac {
            // Overlapping: a literal inside another (`sk-` in `sk-ant-`)
            // is found too.
            for m in ac.find_overlapping_iter(text) {
                let (rule, exact) = &owner[m.pattern().as_usize()];
                if may[*rule] {
                    continue;
                }
                if let Some(lit) = exact
                    && text.as_bytes()[m.start()..m.end()] != *lit.as_bytes()
                {
                    continue;
                }
                may[*rule] = true;
            }
        }
        may
    }

    /// [`Prefilters::candidates`] read the plain way, every literal
    /// searched on its own: what the one pass must agree with.
    #[cfg(test)]
    fn candidates_one_by_one(&self, rules: &[Rule], text: &str) -> Vec<bool> {
        rules
            .iter()
            .map(|r| {
                unfiltered(r)
                    || self.ac.is_none()
                    || r.literals.iter().any(|l| {
                        if r.icase {
                            text.to_ascii_lowercase().contains(&l.to_ascii_lowercase())
                        } else {
                            text.contains(l.as_str())
                        }
                    })
            })
            .collect()
    }
}

/// What a finding is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FindingKind {
    /// A secret, with the name of the rule that found it.
    Secret {
        /// Rule name (e.g. `aws-access-key-id`).
        rule: String,
    },
    /// An 8-4-4-4-12 UUID (session ids and the like).
    SessionId,
    /// An absolute path.
    AbsPath,
}

impl FindingKind {
    /// Short label: `secret`, `session-id`, `abs-path`.
    pub fn label(&self) -> &'static str {
        match self {
            FindingKind::Secret { .. } => "secret",
            FindingKind::SessionId => "session-id",
            FindingKind::AbsPath => "abs-path",
        }
    }
}

impl std::fmt::Display for FindingKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FindingKind::Secret { rule } => write!(f, "secret ({rule})"),
            k => f.write_str(k.label()),
        }
    }
}

/// One sensitive span: `text[start..end]` (byte offsets, on char boundaries).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What it is.
    pub kind: FindingKind,
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset one past the last byte.
    pub end: usize,
}

/// The result of [`Scrubber::scrub`]: the cleaned text and what was changed
/// (offsets refer to the input text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scrubbed {
    /// The text with secrets redacted, UUIDs removed, paths relativized or removed.
    pub text: String,
    /// What was found in the input.
    pub findings: Vec<Finding>,
}

/// Findings in one field of a memory (`field` is e.g. `description`,
/// `triggers[2]`, `extra.owner`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldFindings {
    /// The field's name.
    pub field: String,
    /// What it carries (offsets into that field's text).
    pub findings: Vec<Finding>,
}

/// The result of [`Scrubber::scrub_memory`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryScrub {
    /// Fields that were changed, with what was found in them.
    pub changed: Vec<FieldFindings>,
    /// Fields that still carry something after scrubbing (should be empty;
    /// a caller refuses or drops the memory when it is not).
    pub remaining: Vec<FieldFindings>,
}

/// The scrubber: secret rules plus the project root for path handling.
#[derive(Debug, Clone)]
pub struct Scrubber {
    rules: Vec<Rule>,
    pre: Prefilters,
    uuid: Regex,
    root: Option<String>,
    home: Option<String>,
}

impl Scrubber {
    /// A scrubber with the default rules; absolute paths inside
    /// `project_root` become relative to it (others are removed).
    pub fn new(project_root: Option<&Path>) -> Scrubber {
        Scrubber::with_rules(Scrubber::default_rules(), project_root)
    }

    /// The embedded default rules, parsed.
    pub fn default_rules() -> RulesFile {
        // Compiled once, by `with_rules`; the test `default_rules_compile`
        // checks that every embedded rule does.
        serde_norway::from_str(DEFAULT_RULES_YAML).expect("embedded scrub rules are valid")
    }

    /// Parse a rules file (YAML, see `scrub_rules.yaml`).
    ///
    /// Errors: [`Error::ScrubRules`] naming the YAML error or the rule whose regex
    /// does not compile.
    pub fn parse_rules(yaml: &str) -> Result<RulesFile> {
        let f: RulesFile = serde_norway::from_str(yaml).map_err(|e| Error::ScrubRules {
            rule: None,
            reason: e.to_string(),
        })?;
        for r in &f.secrets {
            compile(r)?;
        }
        Ok(f)
    }

    /// A scrubber with the given rules (already validated by
    /// [`Scrubber::parse_rules`]; a rule whose regex fails finds nothing).
    /// A rule's regex is compiled the first time a text passes its
    /// prefilters.
    pub fn with_rules(rules: RulesFile, project_root: Option<&Path>) -> Scrubber {
        let rules: Vec<Rule> = rules
            .secrets
            .iter()
            .filter_map(|r| lazy_rule(r).ok())
            .collect();
        let pre = Prefilters::new(&rules);
        let root = project_root.map(|p| {
            let s = p.to_string_lossy().into_owned();
            let t = s.trim_end_matches(['/', '\\']);
            if t.is_empty() { s } else { t.to_string() }
        });
        let home = std::env::var_os("HOME")
            .map(|h| {
                PathBuf::from(h)
                    .to_string_lossy()
                    .trim_end_matches('/')
                    .to_string()
            })
            .filter(|h| !h.is_empty());
        Scrubber {
            rules,
            pre,
            uuid: Regex::new(
                "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
            )
            .expect("uuid regex"),
            root,
            home,
        }
    }

    /// The project root paths are made relative to, if any.
    pub fn project_root(&self) -> Option<&str> {
        self.root.as_deref()
    }

    /// Every sensitive span in `text`, sorted by start, non-overlapping.
    pub fn find(&self, text: &str) -> Vec<Finding> {
        let mut all = Vec::new();
        self.push_secrets(text, &mut all);
        if text.contains('-') {
            for m in self.uuid.find_iter(text) {
                all.push(Finding {
                    kind: FindingKind::SessionId,
                    start: m.start(),
                    end: m.end(),
                });
            }
        }
        find_paths(text, &mut all);
        resolve_overlaps(all)
    }

    /// The secrets in `text` only (no session ids, no paths): in order,
    /// overlaps resolved as in [`Scrubber::find`]. Byte offsets into `text`.
    pub fn find_secrets(&self, text: &str) -> Vec<Finding> {
        let mut all = Vec::new();
        self.push_secrets(text, &mut all);
        resolve_overlaps(all)
    }

    /// Push the secret findings of `text` onto `all` (unordered).
    fn push_secrets(&self, text: &str, all: &mut Vec<Finding>) {
        let may = self.pre.candidates(text);
        for (r, _) in self.rules.iter().zip(may).filter(|(_, may)| *may) {
            if let Some((class, n)) = &r.run
                && !has_run(text.as_bytes(), class, *n)
            {
                continue;
            }
            let Some(re) = r.regex() else {
                continue;
            };
            for caps in re.captures_iter(text) {
                let (Some(whole), Some(m)) = (caps.get(0), caps.get(r.spec.group)) else {
                    continue;
                };
                if r.spec.boundary && !at_boundary(text.as_bytes(), whole.start()) {
                    continue;
                }
                if r.spec.min_classes > 0 && classes(m.as_str()) < r.spec.min_classes {
                    continue;
                }
                if r.spec.min_entropy > 0.0 && entropy(m.as_str()) < r.spec.min_entropy {
                    continue;
                }
                if m.as_str().starts_with(REDACTED) {
                    continue;
                }
                all.push(Finding {
                    kind: FindingKind::Secret {
                        rule: r.spec.name.clone(),
                    },
                    start: m.start(),
                    end: m.end(),
                });
            }
        }
    }

    /// Scrub `text`: secrets → `[REDACTED]`, UUIDs removed, absolute paths
    /// relativized (inside the project root) or removed.
    pub fn scrub(&self, text: &str) -> Scrubbed {
        let findings = self.find(text);
        if findings.is_empty() {
            return Scrubbed {
                text: text.to_string(),
                findings,
            };
        }
        let mut out = String::with_capacity(text.len());
        let mut pos = 0;
        for f in &findings {
            out.push_str(&text[pos..f.start]);
            let span = &text[f.start..f.end];
            let repl = match &f.kind {
                FindingKind::Secret { .. } => Some(REDACTED.to_string()),
                FindingKind::SessionId => None,
                FindingKind::AbsPath => self.relativize(span),
            };
            match repl {
                Some(r) => out.push_str(&r),
                None => {
                    // removed: do not leave a double space or a space before punctuation
                    let next = text[f.end..].chars().next();
                    if out.ends_with(' ') && next.is_none_or(|c| c == ' ' || ".,;:)!?".contains(c))
                    {
                        out.pop();
                    }
                }
            }
            pos = f.end;
        }
        out.push_str(&text[pos..]);
        Scrubbed {
            text: out,
            findings,
        }
    }

    /// `text` with every **secret** replaced by `[REDACTED]`; session ids and
    /// paths are kept. For what is shown to the person running a tool
    /// (`--explain` notes on stderr) and for the consolidation journal, where
    /// a path is useful and a secret never is.
    pub fn redact_secrets(&self, text: &str) -> String {
        let found: Vec<Finding> = self
            .find(text)
            .into_iter()
            .filter(|f| matches!(f.kind, FindingKind::Secret { .. }))
            .collect();
        if found.is_empty() {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut pos = 0;
        for f in &found {
            out.push_str(&text[pos..f.start]);
            out.push_str(REDACTED);
            pos = f.end;
        }
        out.push_str(&text[pos..]);
        out
    }

    /// True when `text` carries nothing sensitive.
    pub fn is_clean(&self, text: &str) -> bool {
        self.find(text).is_empty()
    }

    /// The project-relative form of an absolute path, or `None` when it lies
    /// outside the project (or there is no project root).
    fn relativize(&self, path: &str) -> Option<String> {
        let root = self.root.as_deref()?;
        let path = match path.get(..7) {
            Some(p) if p.eq_ignore_ascii_case("file://") => &path[7..],
            _ => path,
        };
        // `user@host:/…` lies on another machine: never inside the project
        let head = path.split(['/', '\\']).next().unwrap_or("");
        if head.contains(':') && !(head.len() == 2 && head.as_bytes()[0].is_ascii_alphabetic()) {
            return None;
        }
        let expanded;
        let p = match (path.strip_prefix("~/"), &self.home) {
            (Some(rest), Some(home)) => {
                expanded = format!("{home}/{rest}");
                expanded.as_str()
            }
            _ => path,
        };
        let norm = |s: &str| s.replace('\\', "/");
        let (p, r) = (norm(p), norm(root));
        if p == r {
            return Some(".".into());
        }
        let rest = p.strip_prefix(&r)?.strip_prefix('/')?;
        Some(if rest.is_empty() {
            ".".into()
        } else {
            rest.to_string()
        })
    }

    /// What the string field `name` of a memory (a name [`for_each_field`]
    /// gives) carries: [`Scrubber::find`] of its text, or, when that finds
    /// nothing and the field is a frontmatter key that names a secret
    /// (`password`, `db_password`, `api_token`, `private_key_id`, …; see
    /// [`secret_key_field`]), its whole value as a secret of the rule
    /// `secret-key-field`.
    pub fn find_field(&self, name: &str, text: &str) -> Vec<Finding> {
        let f = self.find(text);
        if f.is_empty() && secret_key_field(name, text) {
            return vec![Finding {
                kind: FindingKind::Secret {
                    rule: SECRET_KEY_FIELD.into(),
                },
                start: 0,
                end: text.len(),
            }];
        }
        f
    }

    /// Which string fields of `m` carry something (checked, not changed).
    pub fn check_memory(&self, m: &Memory) -> Vec<FieldFindings> {
        let mut out = Vec::new();
        for_each_field(&mut m.clone(), &mut |name, s| {
            let f = self.find_field(name, s);
            if !f.is_empty() {
                out.push(FieldFindings {
                    field: name.to_string(),
                    findings: f,
                });
            }
        });
        out
    }

    /// Scrub every string field of `m` in place (list entries that become
    /// empty are removed) and report what changed and what still carries
    /// something afterwards.
    pub fn scrub_memory(&self, m: &mut Memory) -> MemoryScrub {
        let mut res = MemoryScrub::default();
        for_each_field(m, &mut |name, s| {
            let mut sc = self.scrub(s);
            if sc.findings.is_empty() {
                let f = self.find_field(name, s);
                if !f.is_empty() {
                    sc = Scrubbed {
                        text: REDACTED.into(),
                        findings: f,
                    };
                }
            }
            if !sc.findings.is_empty() {
                res.changed.push(FieldFindings {
                    field: name.to_string(),
                    findings: sc.findings,
                });
                *s = sc.text.trim().to_string();
            }
        });
        for list in [
            &mut m.triggers,
            &mut m.paths,
            &mut m.evidence,
            &mut m.supersedes,
        ] {
            list.retain(|s| !s.trim().is_empty());
        }
        // A memory with no finding is unchanged: nothing can remain in it.
        if !res.changed.is_empty() {
            res.remaining = self.check_memory(m);
        }
        res
    }

    /// Scrub every string in a JSON value (keys kept), returning the findings count.
    pub fn scrub_json(&self, v: &mut Value) -> usize {
        match v {
            Value::String(s) => {
                let sc = self.scrub(s);
                let n = sc.findings.len();
                if n > 0 {
                    *s = sc.text;
                }
                n
            }
            Value::Array(a) => a.iter_mut().map(|x| self.scrub_json(x)).sum(),
            Value::Object(o) => o.values_mut().map(|x| self.scrub_json(x)).sum(),
            _ => 0,
        }
    }
}

impl Default for Scrubber {
    fn default() -> Self {
        Scrubber::new(None)
    }
}

/// A rule's regex, checked: it compiles and has the capture group.
fn compile_regex(r: &RuleSpec) -> Result<Regex> {
    let re = Regex::new(&r.pattern).map_err(|e| Error::ScrubRules {
        rule: Some(r.name.clone()),
        reason: format!("bad pattern: {e}"),
    })?;
    if r.group >= re.captures_len() {
        return Err(Error::ScrubRules {
            rule: Some(r.name.clone()),
            reason: format!("group {} does not exist", r.group),
        });
    }
    Ok(re)
}

/// A rule with its regex compiled now (to check a rules file).
fn compile(r: &RuleSpec) -> Result<Rule> {
    let re = compile_regex(r)?;
    let rule = lazy_rule(r)?;
    let _ = rule.re.set(Some(re));
    Ok(rule)
}

/// A rule whose regex is compiled when first needed; its run test checked.
fn lazy_rule(r: &RuleSpec) -> Result<Rule> {
    let run = match (&r.run_bytes, r.min_run) {
        (Some(b), n) if n > 0 => Some((
            byte_class(b).ok_or_else(|| Error::ScrubRules {
                rule: Some(r.name.clone()),
                reason: format!("bad run_bytes {b:?} (ASCII characters and ranges such as A-Z)"),
            })?,
            n,
        )),
        _ => None,
    };
    let (literals, icase) = crate::literals::required(&r.pattern)
        .map_or((Vec::new(), false), |q| (q.literals, q.icase));
    Ok(Rule {
        spec: r.clone(),
        re: OnceLock::new(),
        run,
        literals,
        icase,
    })
}

/// The bytes of a class written as ASCII characters and ranges (`A-Za-z/+`;
/// a `-` first or last is itself). `None` for a non-ASCII character or a
/// reversed range.
fn byte_class(spec: &str) -> Option<Box<[bool; 256]>> {
    let b = spec.as_bytes();
    if !spec.is_ascii() || b.is_empty() {
        return None;
    }
    let mut set = Box::new([false; 256]);
    let mut i = 0;
    while i < b.len() {
        if i + 2 < b.len() && b[i + 1] == b'-' {
            if b[i] > b[i + 2] {
                return None;
            }
            for c in b[i]..=b[i + 2] {
                set[c as usize] = true;
            }
            i += 3;
        } else {
            set[b[i] as usize] = true;
            i += 1;
        }
    }
    Some(set)
}

/// True when `b` holds at least `n` bytes of `class` in a row. Looks at
/// every `n`th byte: a run that long covers one of them.
fn has_run(b: &[u8], class: &[bool; 256], n: usize) -> bool {
    if n == 0 {
        return true;
    }
    let mut i = n - 1;
    while i < b.len() {
        if !class[b[i] as usize] {
            i += n;
            continue;
        }
        // the run through `i`: back to its start, at most `n` bytes
        let mut start = i;
        while start > 0 && i + 1 - start < n && class[b[start - 1] as usize] {
            start -= 1;
        }
        let mut j = i + 1;
        while j - start < n && j < b.len() && class[b[j] as usize] {
            j += 1;
        }
        if j - start >= n {
            return true;
        }
        // `b[j]` ends the run (or the text ends): the next run starts after it
        i = j + n;
    }
    false
}

/// True when a match may start at byte `i`: at the start, after a byte that
/// is not `[A-Za-z0-9_]`, or right after a URL-encoded byte (`%3D`).
fn at_boundary(b: &[u8], i: usize) -> bool {
    if i == 0 {
        return true;
    }
    let p = b[i - 1];
    if !(p.is_ascii_alphanumeric() || p == b'_') {
        return true;
    }
    i >= 3 && b[i - 3] == b'%' && b[i - 2].is_ascii_hexdigit() && b[i - 1].is_ascii_hexdigit()
}

/// How many of the classes upper case, lower case, digit, other `s` mixes.
fn classes(s: &str) -> usize {
    let b = s.as_bytes();
    [
        b.iter().any(u8::is_ascii_uppercase),
        b.iter().any(u8::is_ascii_lowercase),
        b.iter().any(u8::is_ascii_digit),
        b.iter().any(|c| !c.is_ascii_alphanumeric()),
    ]
    .iter()
    .filter(|&&x| x)
    .count()
}

/// Shannon entropy of `s` in bits per byte.
pub fn entropy(s: &str) -> f64 {
    if s.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for b in s.bytes() {
        counts[b as usize] += 1;
    }
    let n = s.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

/// Bytes that may precede the start of a path token.
fn path_lead(b: u8) -> bool {
    b.is_ascii_whitespace() || b"\"'`([{<=,;|>".contains(&b)
}

/// Bytes that end a path token.
fn path_stop(b: u8) -> bool {
    b.is_ascii_whitespace() || b"\"'`)]}<>,;|:*?".contains(&b)
}

/// True when byte offset `i` lies inside a `scheme://` URL token.
fn in_url(text: &[u8], i: usize) -> bool {
    let mut s = i;
    while s > 0 && !text[s - 1].is_ascii_whitespace() {
        s -= 1;
    }
    memchr::memmem::find(&text[s..i], b"://").is_some()
}

/// The start of `file://` when the `/` at `p` is the third slash of
/// `file:///…` (any case), else `None`.
fn file_url_start(b: &[u8], p: usize) -> Option<usize> {
    let s = p.checked_sub(7)?;
    b[s..p].eq_ignore_ascii_case(b"file://").then_some(s)
}

/// The start of the `user@host:` / `host:` token that ends with the `:` at
/// `colon` (scp and rsync remote paths): back over host-name bytes.
fn remote_start(b: &[u8], colon: usize) -> usize {
    let mut s = colon;
    while s > 0 && (b[s - 1].is_ascii_alphanumeric() || b"._@-".contains(&b[s - 1])) {
        s -= 1;
    }
    s
}

fn find_paths(text: &str, out: &mut Vec<Finding>) {
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(off) = memchr::memchr3(b'/', b'~', b'\\', &b[i..]) {
        let p = i + off;
        i = p + 1;
        // the start of the token: `/`, `~/`, `X:\`, `X:/`, `file:///`, or
        // the `/` of `user@host:/…` / `host:/…` (scp, rsync)
        let drive = p >= 2
            && b[p - 1] == b':'
            && b[p - 2].is_ascii_alphabetic()
            && (p == 2 || path_lead(b[p - 3]));
        let (start, body) = match b[p] {
            b'/' if drive => (p - 2, p + 1),
            b'/' if file_url_start(b, p).is_some() => (file_url_start(b, p).unwrap_or(p), p + 1),
            b'/' if p >= 1 && b[p - 1] == b':' && b.get(p + 1) != Some(&b'/') => {
                (remote_start(b, p - 1), p + 1)
            }
            b'/' => (p, p + 1),
            b'~' if b.get(p + 1) == Some(&b'/') => (p, p + 2),
            b'\\' if drive => (p - 2, p + 1),
            _ => continue,
        };
        if start > 0 && !path_lead(b[start - 1]) {
            continue;
        }
        if in_url(b, start) {
            continue;
        }
        let mut end = body;
        while end < b.len() && !path_stop(b[end]) {
            end += 1;
        }
        while end > body && b".!?".contains(&b[end - 1]) {
            end -= 1;
        }
        let segs = text[body..end]
            .split(['/', '\\'])
            .filter(|s| !s.is_empty())
            .count();
        if segs >= 2 {
            out.push(Finding {
                kind: FindingKind::AbsPath,
                start,
                end,
            });
            i = end.max(i);
        }
    }
}

fn resolve_overlaps(mut all: Vec<Finding>) -> Vec<Finding> {
    all.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    let mut out: Vec<Finding> = Vec::with_capacity(all.len());
    for f in all {
        if let Some(last) = out.last_mut().filter(|l| f.start < l.end) {
            // overlapping: a secret wins and absorbs the rest
            if matches!(f.kind, FindingKind::Secret { .. }) {
                if !matches!(last.kind, FindingKind::Secret { .. }) {
                    last.kind = f.kind.clone();
                }
                last.end = last.end.max(f.end);
            }
            continue;
        }
        out.push(f);
    }
    out
}

/// The rule name of a frontmatter value under a key that names a secret
/// ([`Scrubber::find_field`]).
pub const SECRET_KEY_FIELD: &str = "secret-key-field";

/// True when `name` (a field name of [`for_each_field`]) is a frontmatter
/// key of its own (`extra.…`) whose last word names a secret — `password`,
/// `passwd`, `pwd`, `passphrase`, `secret`, `token`, `api_key`, `apikey`,
/// `access_key`, `private_key`, `private_key_id`, `auth_key`,
/// `client_secret`, `credential(s)`, alone or after a prefix and `_`, `-`
/// or `.` (`db_password`, `api-token`, `github.token`; `dbpassword` too)
/// — and `value` reads
/// as one: at least 4 characters, no white space, not a `$VAR`, `${VAR}`,
/// `<placeholder>`, `[REDACTED]` or a run of `*`. `tokenizer`,
/// `max_tokens` and `password_policy` name no secret; a sentence is no
/// value.
pub fn secret_key_field(name: &str, value: &str) -> bool {
    let Some(path) = name.strip_prefix("extra.") else {
        return false;
    };
    // the last key of the path: `extra.db.password`, `extra.passwords[1]`
    let mut key = path.rsplit('.').next().unwrap_or(path);
    while let Some(k) = key.strip_suffix(']').and_then(|k| k.rsplit_once('[')) {
        key = k.0;
    }
    let key = key.to_ascii_lowercase();
    let last = key.rsplit(['_', '-']).next().unwrap_or(&key);
    let two = {
        let mut it = key.rsplit(['_', '-']);
        let b = it.next().unwrap_or("");
        let a = it.next().unwrap_or("");
        format!("{a}_{b}")
    };
    let three = {
        let mut it = key.rsplit(['_', '-']);
        let c = it.next().unwrap_or("");
        let b = it.next().unwrap_or("");
        let a = it.next().unwrap_or("");
        format!("{a}_{b}_{c}")
    };
    let named = matches!(
        last,
        "password"
            | "passwords"
            | "passwd"
            | "pwd"
            | "passphrase"
            | "secret"
            | "secrets"
            | "token"
            | "apikey"
            | "credential"
            | "credentials"
    ) || matches!(
        two.trim_end_matches('s'),
        "api_key" | "access_key" | "private_key" | "auth_key" | "secret_key"
    ) || three == "private_key_id"
        || ["password", "passwd", "passphrase"]
            .iter()
            .any(|w| key.trim_end_matches('s').ends_with(w));
    if !named {
        return false;
    }
    let v = value.trim();
    let placeholder = v.starts_with('$')
        || (v.starts_with('<') && v.ends_with('>'))
        || v.starts_with(REDACTED)
        || v.chars().all(|c| matches!(c, '*' | 'x' | 'X' | '.'));
    v.chars().count() >= 4 && !v.chars().any(char::is_whitespace) && !placeholder
}

/// Visit every string field of a memory with its name (`name`,
/// `description`, `body`, `triggers[2]`, `extra.owner`, …; the same names
/// [`Scrubber::check_memory`] reports), letting `visit` change it.
pub fn for_each_field(m: &mut Memory, visit: &mut dyn FnMut(&str, &mut String)) {
    if let Some(id) = m.id.as_mut() {
        visit("id", id);
    }
    visit("name", &mut m.name);
    visit("description", &mut m.description);
    for (name, v) in [
        ("project", &mut m.project),
        ("superseded_by", &mut m.superseded_by),
        ("retired_reason", &mut m.retired_reason),
        ("fact", &mut m.fact),
        ("why", &mut m.why),
        ("how", &mut m.how),
        ("body", &mut m.body),
    ] {
        if let Some(s) = v.as_mut() {
            visit(name, s);
        }
    }
    for (name, list) in [
        ("triggers", &mut m.triggers),
        ("paths", &mut m.paths),
        ("evidence", &mut m.evidence),
        ("supersedes", &mut m.supersedes),
    ] {
        for (i, s) in list.iter_mut().enumerate() {
            visit(&format!("{name}[{i}]"), s);
        }
    }
    for (k, v) in m.extra.iter_mut() {
        visit_json(&format!("extra.{k}"), v, visit);
    }
}

fn visit_json(name: &str, v: &mut Value, visit: &mut dyn FnMut(&str, &mut String)) {
    match v {
        // a number under a key naming a secret (`pin: 48213977`) is visited
        // as its text, so that it can be found and redacted like one
        Value::Number(n) if secret_key_field(name, &n.to_string()) => {
            let mut s = n.to_string();
            visit(name, &mut s);
            *v = Value::String(s);
        }
        Value::String(s) => visit(name, s),
        Value::Array(a) => {
            for (i, x) in a.iter_mut().enumerate() {
                visit_json(&format!("{name}[{i}]"), x, visit);
            }
        }
        Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                visit_json(&format!("{name}.{k}"), x, visit);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::MemoryType;

    fn s() -> Scrubber {
        Scrubber::new(Some(Path::new("/home/user/proj")))
    }

    fn redacts(text: &str, secret: &str, rule: &str) {
        let out = s().scrub(text);
        assert!(!out.text.contains(secret), "{rule}: {:?}", out.text);
        assert!(out.text.contains(REDACTED), "{rule}: {:?}", out.text);
        assert!(
            out.findings
                .iter()
                .any(|f| f.kind == FindingKind::Secret { rule: rule.into() }),
            "{rule}: {:?}",
            out.findings
        );
    }

    /// Regression: kinds the secrets corpus (tests/tests/secrets.rs) found
    /// missing — a URL password with an empty user, bare npm, SendGrid,
    /// Twilio, GitLab, Hugging Face, PyPI, DigitalOcean, Shopify tokens and
    /// Azure account keys.
    #[test]
    fn corpus_gaps_are_redacted() {
        let hex32 = "0123456789abcdef".repeat(2);
        let an36 = "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5".to_string();
        assert_eq!(an36.len(), 36);
        redacts(
            "REDIS_URL=redis://:Zq8wX3vB7nM2kL9pR4@cache.internal:6379/0",
            "Zq8wX3vB7nM2",
            "url-password",
        );
        redacts(&format!("token is npm_{an36} ok"), &an36, "npm-token");
        let sg = format!(
            "SG.{}.{}",
            &an36[..22],
            "x9Y8z7W6v5U4t3S2r1Q0p9O8n7M6l5K4j3I2h1G0f9E"
        );
        redacts(&format!("key {sg}"), &sg[3..20], "sendgrid-key");
        redacts(&format!("sid SK{hex32} here"), &hex32, "twilio-api-key");
        redacts(
            &format!("use glpat-{} now", &an36[..20]),
            &an36[..20],
            "gitlab-token",
        );
        redacts(
            &format!("hf_{}", &an36[..34]),
            &an36[..34],
            "huggingface-token",
        );
        let pypi = format!("pypi-AgEIcHlwaS5vcmc{an36}{an36}");
        redacts(&pypi, &an36, "pypi-token");
        let do64 = hex32.repeat(2);
        redacts(&format!("dop_v1_{do64}"), &do64, "digitalocean-token");
        redacts(&format!("shpat_{hex32}"), &hex32, "shopify-token");
        let azure = format!("{an36}{an36}Ab+/Cd==");
        redacts(
            &format!(
                "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={azure};EndpointSuffix=core.windows.net"
            ),
            &an36,
            "azure-key",
        );
        // a URL with a port but no credentials is left alone
        assert!(s().is_clean("see http://localhost:8080/api and https://example.com:443/x"));
    }

    #[test]
    fn every_secret_rule_fires() {
        redacts(
            "id AKIAPLACEHOLDER00000 here",
            "AKIAPLACEHOLDER",
            "aws-access-key-id",
        );
        redacts(
            "aws_secret_access_key = FAKEfakeFAKEfake0123456789abcdefFAKEfake",
            "FAKEfakeFAKE",
            "aws-secret-access-key",
        );
        redacts(
            "GITHUB_TOKEN=ghp_PLACEHOLDER0000000000000000000000000000",
            "ghp_",
            "github-token",
        );
        redacts("gho_FAKE0123456789abcdefFAKE0123", "gho_", "github-token");
        redacts(
            "token github_pat_11FAKE0000000000_abcdefghijklmnopqrstuvwxyz",
            "github_pat_",
            "github-fine-grained-token",
        );
        redacts("slack xoxb-000000000-FAKEFAKEFAKE", "xoxb-", "slack-token");
        redacts(
            "https://hooks.slack.com/services/T000/B000/FAKEFAKE",
            "T000/B000",
            "slack-webhook",
        );
        redacts(
            "key sk_live_PLACEHOLDER000000000000000000",
            "sk_live_",
            "stripe-key",
        );
        redacts("rk_live_FAKE00000000000000", "rk_live_", "stripe-key");
        redacts(
            "the signing secret is whsec_PLACEHOLDER0000000000000000",
            "whsec_",
            "stripe-webhook-secret",
        );
        redacts(
            "AIzaFAKE_fake-FAKE_fake-FAKE_fake-FAKE0",
            "AIzaFAKE",
            "google-api-key",
        );
        redacts(
            "-----BEGIN RSA PRIVATE KEY-----\nMIIFAKE\nFAKE==\n-----END RSA PRIVATE KEY-----",
            "MIIFAKE",
            "private-key-block",
        );
        redacts(
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEFAKE",
            "b3Blbn",
            "private-key-block",
        );
        redacts(
            "Authorization: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.FAKEsignatureFAKEsig",
            "eyJhbGci",
            "jwt",
        );
        redacts(
            "DATABASE_URL=postgres://app:Hunter2Secret@db.internal:5432/app",
            "Hunter2Secret",
            "url-password",
        );
        redacts("password=Hunter2Secret", "Hunter2", "password-assignment");
        redacts(
            "DB_PASSWORD: 'letmein99'",
            "letmein99",
            "password-assignment",
        );
        redacts(
            "API_TOKEN=Zx81kq0PmW4nB7tY2vLs",
            "Zx81kq0PmW4nB7tY2vLs",
            "key-value-secret",
        );
        redacts(
            "client_secret: \"a8f3K29xPq0Lm7ZwT4\"",
            "a8f3K29xPq0Lm7ZwT4",
            "key-value-secret",
        );
        redacts(
            "curl -H 'Authorization: Bearer Zx81kq0PmW4nB7tY2vLsQQ'",
            "Zx81kq0PmW4nB7tY2vLsQQ",
            "bearer-token",
        );
        redacts(
            "export ANTHROPIC_API_KEY=sk-ant-api03-FAKEFAKEFAKEFAKEFAKE00",
            "sk-ant-api03",
            "openai-anthropic-key",
        );
    }

    /// The harmless twins of the kinds above: the same words in prose or
    /// another command keep every byte.
    #[test]
    fn twins_of_the_newer_kinds_are_left_alone() {
        let sc = s();
        for t in [
            "the password is rotated weekly; ask ops for the machine login",
            "machine learning: the login page has a password reset link",
            "ls -a ~/proj and git commit -a -m 'fix'",
            "redis-cli -a $REDIS_PASSWORD ping",
            "the private_key_id field names which key signed it",
            "docker login registry.example.com reads ~/.docker/config.json \"auths\"",
            "AIza is the prefix of Google API keys",
        ] {
            let out = sc.scrub(t);
            assert!(
                out.findings
                    .iter()
                    .all(|f| !matches!(f.kind, FindingKind::Secret { .. })),
                "{t:?} -> {:?}",
                out.text
            );
        }
    }

    /// A frontmatter key naming a secret makes its value one; the same
    /// words as other keys, in prose, or a placeholder value do not.
    #[test]
    fn secret_keys_of_the_frontmatter() {
        for (name, v) in [
            ("extra.password", "Tr0ub4dor3x"),
            ("extra.db_password", "hunter22"),
            ("extra.DB-PASSWORD", "hunter22"),
            ("extra.api_token", "abcd1234"),
            ("extra.github.token", "abcd1234"),
            ("extra.private_key_id", "4f1c2b9e8d7a"),
            ("extra.client_secret", "s3cr3tv4lue"),
            ("extra.passwords[1]", "hunter22"),
            ("extra.dbpassword", "hunter22"),
        ] {
            assert!(secret_key_field(name, v), "{name}: {v}");
        }
        // a number under such a key is found and redacted too
        let mut m = Memory::new("n", "d", MemoryType::Project);
        m.extra
            .insert("db_password".into(), serde_json::json!(48213977));
        m.extra.insert("max_tokens".into(), serde_json::json!(4096));
        let found = s().check_memory(&m);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].field, "extra.db_password");
        s().scrub_memory(&mut m);
        assert_eq!(m.extra["db_password"], REDACTED);
        assert_eq!(m.extra["max_tokens"], 4096);
        for (name, v) in [
            ("description", "Tr0ub4dor3x"),
            ("extra.tokenizer", "cl100k_base"),
            ("extra.max_tokens", "4096x"),
            ("extra.password_policy", "rotate-90-days"),
            ("extra.password", "stored in the team vault"),
            ("extra.password", "$DB_PASSWORD"),
            ("extra.password", "<your-password>"),
            ("extra.password", "********"),
            ("extra.password", "[REDACTED]"),
            ("extra.token", "abc"),
        ] {
            assert!(!secret_key_field(name, v), "{name}: {v}");
        }
    }

    /// One row per kind the scrubber missed before (issue list of gaps):
    /// the input, the part that must go, and what must find it. Prints the
    /// per-kind table to stderr.
    #[test]
    fn gap_kinds_table() {
        let aws = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
        assert_eq!(aws.len(), 40);
        let cases: &[(&str, String, &str, &str)] = &[
            (
                "--password X",
                "mysqladmin --password Tr0ub4dor3x status".into(),
                "Tr0ub4dor3x",
                "cli-password-flag",
            ),
            (
                "--password=X",
                "psql --password=Tr0ub4dor3x -h db".into(),
                "Tr0ub4dor3x",
                "password-assignment",
            ),
            (
                "-pX (mysql)",
                "mysql -u root -pTr0ub4dor3x appdb".into(),
                "Tr0ub4dor3x",
                "mysql-password-flag",
            ),
            (
                "curl -u user:pass",
                "curl -u admin:Tr0ub4dor3x https://host/api".into(),
                "Tr0ub4dor3x",
                "curl-user-password",
            ),
            (
                "docker login -p X",
                "docker login -u me -p Tr0ub4dor3x registry.example.com".into(),
                "Tr0ub4dor3x",
                "login-password-flag",
            ),
            (
                "sshpass -p X",
                "sshpass -p 'Tr0ub4dor3x' ssh deploy@web1".into(),
                "Tr0ub4dor3x",
                "sshpass-password",
            ),
            (
                "Authorization: Basic",
                "curl -H 'Authorization: Basic ZGVwbG95OlRyMHViNGRvcjN4' https://api.example.com"
                    .into(),
                "ZGVwbG95OlRyMHViNGRvcjN4",
                "basic-auth-header",
            ),
            (
                "Cookie: session=",
                "Cookie: session=9f8e7d6c5b4a39281706; theme=dark".into(),
                "9f8e7d6c5b4a39281706",
                "cookie-header",
            ),
            (
                "docker \"auth\"",
                r#"{"auths": {"ghcr.io": {"auth": "ZGVwbG95OlRyMHViNGRvcjN4"}}}"#.into(),
                "ZGVwbG95OlRyMHViNGRvcjN4",
                "docker-config-auth",
            ),
            (
                "user:p@ss@host",
                "postgres://app:Tr0ub@4dor3x@db.internal:5432/app".into(),
                "4dor3x",
                "url-password",
            ),
            (
                "user:pa/ss@host",
                "https://app:Tr0ub/4dor3x@git.example.com/r.git".into(),
                "4dor3x",
                "url-password-slash",
            ),
            (
                "token glued to a letter",
                "exportedghp_Zx81kq0PmW4nB7tY2vLsQQa8f3K29xPq0Lm7 done".into(),
                "Zx81kq0PmW4nB7tY2vLsQQ",
                "github-token",
            ),
            (
                "token after %3D",
                "https://x.example.com/cb?token%3Dghp_Zx81kq0PmW4nB7tY2vLsQQa8f3K29xPq0Lm7".into(),
                "Zx81kq0PmW4nB7tY2vLsQQ",
                "github-token",
            ),
            (
                "bare AWS secret",
                format!("the key is {aws} for prod"),
                aws,
                "aws-secret-bare",
            ),
            (
                "alice@host:/home/alice/…",
                "scp alice@build1:/home/alice/keys/id.pem .".into(),
                "alice",
                "abs-path",
            ),
            (
                "file:///home/alice/…",
                "open file:///home/alice/notes/todo.md now".into(),
                "alice",
                "abs-path",
            ),
            (
                "C:/Users/alice/…",
                "saved to C:/Users/alice/Desktop/x.txt today".into(),
                "alice",
                "abs-path",
            ),
            (
                "netrc, one line",
                "machine api.example.com login deploy password Tr0ub4dor3x".into(),
                "Tr0ub4dor3x",
                "netrc-password",
            ),
            (
                "netrc, one entry a line",
                "machine git.example.com\n  login deploy\n  password Tr0ub4dor3x\n".into(),
                "Tr0ub4dor3x",
                "netrc-password",
            ),
            (
                "redis-cli -a X",
                "redis-cli -h cache.internal -p 6380 -a Tr0ub4dor3x ping".into(),
                "Tr0ub4dor3x",
                "redis-cli-password",
            ),
            (
                "GCP private_key_id",
                r#"{"type": "service_account", "private_key_id": "4f1c2b9e8d7a6c5b4a39281706f5e4d3c2b1a098"}"#.into(),
                "4f1c2b9e8d7a6c5b",
                "gcp-private-key-id",
            ),
            (
                "docker config.json, one line",
                r#"{"auths":{"registry.example.com":{"auth":"ZGVwbG95OlRyMHViNGRvcjN4"}}}"#.into(),
                "ZGVwbG95OlRyMHViNGRvcjN4",
                "docker-config-auth",
            ),
            (
                "Google API key, 39 chars",
                "maps key AIzaSyD3x9Kq0PmW4nB7tY2vLsQQa8f3K29xPq0 works".into(),
                "AIzaSyD3x9Kq0PmW4nB7tY2vLsQQa8f3K29xPq0",
                "google-api-key",
            ),
        ];
        let sc = s();
        let mut failed = Vec::new();
        eprintln!("{:<26} {:<22} {:<6} result", "kind", "found by", "gone");
        for (kind, text, secret, want) in cases {
            let out = sc.scrub(text);
            let rules: Vec<String> = out
                .findings
                .iter()
                .map(|f| match &f.kind {
                    FindingKind::Secret { rule } => rule.clone(),
                    k => k.label().to_string(),
                })
                .collect();
            let gone = !out.text.contains(secret);
            let ok = gone && rules.iter().any(|r| r == want);
            eprintln!(
                "{kind:<26} {:<22} {:<6} {}",
                rules.join(","),
                gone,
                if ok { "ok" } else { "MISSED" }
            );
            if !ok {
                failed.push(format!("{kind}: {:?} -> {:?} {rules:?}", text, out.text));
            }
        }
        assert!(failed.is_empty(), "{failed:#?}");
        // exact results of some of them
        assert_eq!(
            sc.scrub("postgres://app:Tr0ub@4dor3x@db.internal:5432/app")
                .text,
            "postgres://app:[REDACTED]@db.internal:5432/app"
        );
        assert_eq!(
            sc.scrub("mysql -u root -pTr0ub4dor3x appdb").text,
            "mysql -u root -p[REDACTED] appdb"
        );
        assert_eq!(
            sc.scrub("scp alice@build1:/home/alice/keys/id.pem .").text,
            "scp ."
        );
        assert_eq!(
            sc.scrub("see file:///home/user/proj/docs/a.md").text,
            "see docs/a.md"
        );
    }

    /// What the new kinds must leave alone.
    #[test]
    fn gap_kinds_spare_lookalikes() {
        for t in [
            // git SHAs (40 hex) and other 40-character runs
            "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it",
            "commit 3F786850E387550FDAB836ED7E6DC881DE23001B fixed it",
            "path src/components/HeaderNavigationSettings.tsx",
            "docker login --password-stdin ghcr.io",
            "psql --password $DB_PASSWORD",
            "mysql -p appdb",
            "mysql -u root -p",
            "see https://example.com:8443/api/v2/users and http://localhost:3000/a/b",
            "the Cookie header is stripped by the proxy",
            "Authorization: Basic auth is disabled",
            "the time was 12:30/45 on the chart",
            "git push -u origin main",
            "curl -u admin https://host/api",
            "docker login -u me registry.example.com",
            "git log -p --since=2.weeks",
        ] {
            let out = s().scrub(t);
            assert_eq!(out.text, t, "{:?}", out.findings);
        }
    }

    #[test]
    fn harmless_values_stay() {
        for t in [
            "LOG_LEVEL=debug",
            "max_tokens: 4096",
            "the secret: use tabs",
            "password reset flow is broken",
            "see https://example.com/docs/intro for details",
            "a/b and either/or, 1/2",
            "run make gen before make verify",
        ] {
            let out = s().scrub(t);
            assert_eq!(out.text, t, "{:?}", out.findings);
        }
    }

    #[test]
    fn session_ids_are_removed() {
        let out = s().scrub("Session 00000000-0000-4000-8000-000000000001 log ends.");
        assert_eq!(out.text, "Session log ends.");
        assert_eq!(out.findings[0].kind, FindingKind::SessionId);
        let out = s().scrub("agent-6F1C0000-AAAA-4bbb-8ccc-0123456789ab.");
        assert_eq!(out.text, "agent-.");
    }

    #[test]
    fn paths_inside_become_relative_others_are_dropped() {
        let out = s().scrub("log is in /home/user/proj/logs/deploy.log.");
        assert_eq!(out.text, "log is in logs/deploy.log.");
        let out = s().scrub("see /etc/nginx/nginx.conf and /home/user/proj");
        assert_eq!(out.text, "see and .");
        let out = s().scrub("cat \"/home/user/proj/.env\"");
        assert_eq!(out.text, "cat \".env\"");
        let out = s().scrub("at /home/user/proj/src/main.rs:42");
        assert_eq!(out.text, "at src/main.rs:42");
        let out = s().scrub(r"open C:\Users\me\notes.txt now");
        assert_eq!(out.text, "open now");
        // one segment is not a path; a URL's path is not a path
        for t in [
            "cd /tmp",
            "https://example.com/a/b/c",
            "x?p=https://e.com/a/b",
        ] {
            assert_eq!(s().scrub(t).text, t);
        }
        // no project root: every absolute path is dropped
        let out = Scrubber::new(None).scrub("in /home/user/proj/x.rs");
        assert_eq!(out.text, "in");
    }

    #[test]
    fn tilde_paths_expand_home() {
        let sc = Scrubber::new(None);
        assert_eq!(sc.scrub("in ~/work/x here").text, "in here");
        assert!(sc.is_clean("~/x"));
    }

    #[test]
    fn b22_env_file_is_scrubbed() {
        let env = "DATABASE_URL=postgres://app_user:PLACEHOLDER-Passw0rd@db.internal.example:5432/app\nPAYMENT_API_KEY=sk_live_PLACEHOLDER000000000000000000\nAWS_ACCESS_KEY_ID=AKIAPLACEHOLDER00000\nGITHUB_TOKEN=ghp_PLACEHOLDER0000000000000000000000000000\nLOG_LEVEL=debug\n";
        let out = s().scrub(env).text;
        for bad in ["Passw0rd", "sk_live_", "AKIA", "ghp_"] {
            assert!(!out.contains(bad), "{bad} in {out}");
        }
        assert!(out.contains("LOG_LEVEL=debug"));
        let msg = "Right, remember that deploys need the VPN because the DB is internal. Session 00000000-0000-4000-8000-000000000001 log is in /home/user/proj/logs/deploy.log.";
        let out = s().scrub(msg).text;
        assert!(!out.contains("00000000-0000-4000"));
        assert!(!out.contains("/home/user"));
        assert!(out.contains("logs/deploy.log"), "{out}");
    }

    #[test]
    fn scrubbing_is_idempotent_and_clean() {
        let t = "k AKIAPLACEHOLDER00000 /home/user/proj/a/b 00000000-0000-4000-8000-000000000001 postgres://u:pw12@h/x";
        let once = s().scrub(t).text;
        assert!(s().is_clean(&once), "{once}");
        assert_eq!(s().scrub(&once).text, once);
    }

    #[test]
    fn memory_fields_are_scrubbed_and_reported() {
        let mut m = Memory::new(
            "Deploy key",
            "uses AKIAPLACEHOLDER00000 from /etc/app/env",
            MemoryType::Project,
        );
        m.triggers = vec!["/opt/x/y".into(), "deploy".into()];
        m.why = Some("see /home/user/proj/docs/deploy.md".into());
        assert_eq!(s().check_memory(&m).len(), 3);
        let r = s().scrub_memory(&mut m);
        assert!(r.remaining.is_empty());
        let fields: Vec<_> = r.changed.iter().map(|f| f.field.as_str()).collect();
        assert_eq!(fields, ["description", "why", "triggers[0]"]);
        assert_eq!(m.description, "uses [REDACTED] from");
        assert_eq!(m.triggers, ["deploy"]);
        assert_eq!(m.why.as_deref(), Some("see docs/deploy.md"));
    }

    #[test]
    fn rules_file_errors_name_the_rule() {
        let err = Scrubber::parse_rules("secrets:\n  - name: bad\n    pattern: '('\n").unwrap_err();
        assert!(err.to_string().contains("bad"), "{err}");
        assert_eq!(Scrubber::default_rules().secrets.len(), 39);
        assert_eq!(s().rules.len(), 39);
    }

    /// The one-pass prefilter lets a rule run exactly when one of its own
    /// literals occurs (a literal inside another's, `sk-` in `sk-ant-`, and
    /// the case-insensitive ones included).
    #[test]
    fn one_pass_prefilter_picks_each_rule_whose_literal_occurs() {
        let sc = s();
        for text in [
            "key sk-ant-api03-x and SECRET and Bearer",
            "PASSWORD=x mysql -u root",
            "nothing at all",
            "xoxb- AKIA hooks.slack.com eyJ",
        ] {
            let may = sc.pre.candidates(text);
            for (r, got) in sc.rules.iter().zip(may) {
                let want = r.literals.is_empty()
                    || r.literals.iter().any(|l| {
                        if r.icase {
                            text.to_ascii_lowercase().contains(&l.to_ascii_lowercase())
                        } else {
                            text.contains(l.as_str())
                        }
                    });
                assert_eq!(got, want, "{} on {text:?}", r.spec.name);
            }
        }
        let found = sc.find("export K=sk-ant-api03-FAKEFAKEFAKEFAKEFAKE00");
        assert_eq!(found.len(), 1, "{found:?}");
    }

    /// On texts made of pieces of every rule's literals (cut, joined so that
    /// they overlap, letters' case flipped, between other bytes), the one
    /// pass picks exactly the rules that searching each literal on its own
    /// picks.
    #[test]
    fn one_pass_prefilter_agrees_with_each_literal_searched_alone() {
        let sc = s();
        let lits: Vec<&str> = sc
            .rules
            .iter()
            .flat_map(|r| r.literals.iter().map(String::as_str))
            .collect();
        assert!(lits.len() > 30, "{}", lits.len());
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let fillers = ["", " ", "x", "=", "_", "-", "é", "KEY", "\n"];
        let mut marked = 0;
        for _ in 0..6000 {
            let mut text = String::new();
            for _ in 0..1 + next(5) {
                let lit = lits[next(lits.len())];
                // A piece: the whole literal, or its head or tail (which
                // may be another literal, or overlap the next piece).
                let mut half = lit.len() / 2;
                while !lit.is_char_boundary(half) {
                    half -= 1;
                }
                let mut head = lit.len() - lit.len() / 2;
                while !lit.is_char_boundary(head) {
                    head += 1;
                }
                let piece = match next(4) {
                    0 => &lit[..head],
                    1 => &lit[half..],
                    _ => lit,
                };
                for c in piece.chars() {
                    if next(6) == 0 {
                        text.extend(c.to_uppercase());
                    } else if next(6) == 0 {
                        text.extend(c.to_lowercase());
                    } else {
                        text.push(c);
                    }
                }
                text.push_str(fillers[next(fillers.len())]);
            }
            let want = sc.pre.candidates_one_by_one(&sc.rules, &text);
            let got = sc.pre.candidates(&text);
            assert_eq!(got, want, "{text:?}");
            marked += want.iter().filter(|&&m| m).count();
        }
        // The texts do hold literals: thousands of rules picked.
        assert!(marked > 6000, "{marked}");
    }

    /// A random string of the language of `h` (classes: a random member
    /// of a random range; repetitions: up to 3 past their minimum; looks:
    /// nothing, the caller checks the regex matches).
    fn sample(h: &regex_syntax::hir::Hir, next: &mut impl FnMut(usize) -> usize, out: &mut String) {
        use regex_syntax::hir::{Class, HirKind};
        match h.kind() {
            HirKind::Empty | HirKind::Look(_) => {}
            HirKind::Literal(l) => out.push_str(&String::from_utf8_lossy(&l.0)),
            HirKind::Class(Class::Unicode(c)) => {
                let r = c.ranges()[next(c.ranges().len())];
                let span = u32::from(r.end()) - u32::from(r.start()) + 1;
                let ch = char::from_u32(u32::from(r.start()) + next(span as usize) as u32);
                out.push(ch.unwrap_or(r.start()));
            }
            HirKind::Class(Class::Bytes(c)) => {
                let r = c.ranges()[next(c.ranges().len())];
                let b = r.start() + next(usize::from(r.end() - r.start()) + 1) as u8;
                out.push(char::from(b));
            }
            HirKind::Capture(c) => sample(&c.sub, next, out),
            HirKind::Concat(hs) => hs.iter().for_each(|h| sample(h, next, out)),
            HirKind::Alternation(hs) => sample(&hs[next(hs.len())], next, out),
            HirKind::Repetition(r) => {
                let max = r.max.unwrap_or(r.min + 3).min(r.min + 3);
                for _ in 0..r.min + next((max - r.min) as usize + 1) as u32 {
                    sample(&r.sub, next, out);
                }
            }
        }
    }

    /// The literals read off each rule's pattern never keep the rule from
    /// a text its regex matches: on thousands of strings drawn from each
    /// pattern's own syntax (letters' case flipped in some, between other
    /// text), every match the regex finds passes the prefilter.
    #[test]
    fn derived_literals_never_hide_a_match() {
        let sc = s();
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n.max(1) as u64) as usize
        };
        let mut matched = vec![0usize; sc.rules.len()];
        for (i, r) in sc.rules.iter().enumerate() {
            let hir = crate::literals::parse(&r.spec.pattern).unwrap();
            let re = r.regex().unwrap();
            for k in 0..400 {
                let mut body = String::new();
                sample(&hir, &mut next, &mut body);
                if k % 3 == 1 {
                    body = body
                        .chars()
                        .map(|c| {
                            if next(2) == 0 {
                                c.to_ascii_uppercase()
                            } else {
                                c.to_ascii_lowercase()
                            }
                        })
                        .collect();
                }
                for text in [body.clone(), format!("x {body} y"), format!("key={body}\n")] {
                    if re.is_match(&text) {
                        matched[i] += 1;
                        assert!(
                            sc.pre.candidates(&text)[i],
                            "{} hides {text:?}",
                            r.spec.name
                        );
                    }
                }
            }
        }
        // every rule's regex matched many of the strings drawn from it
        for (r, n) in sc.rules.iter().zip(&matched) {
            assert!(*n >= 100, "{}: {n}", r.spec.name);
        }
        // the rules that name a token's prefix got it as a literal
        let lits = |name: &str| {
            sc.rules
                .iter()
                .find(|r| r.spec.name == name)
                .map(|r| (r.literals.clone(), r.icase))
        };
        assert_eq!(lits("npm-token"), Some((vec!["npm_".to_string()], false)));
        assert_eq!(lits("jwt"), Some((vec![".eyJ".to_string()], false)));
        assert_eq!(
            lits("bearer-token"),
            Some((vec!["bearer".to_string()], true))
        );
        assert_eq!(
            lits("url-password").map(|l| l.0),
            Some(vec!["://".to_string()])
        );
    }

    /// The run test finds a run of `n` class bytes wherever it lies, and
    /// only then; a bad class is refused by name.
    #[test]
    fn run_prefilter_finds_runs_of_the_class() {
        let class = byte_class("A-Za-z0-9/+").unwrap();
        let run = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
        assert_eq!(run.len(), 40);
        for (text, want) in [
            (run.to_string(), true),
            (format!("key {run}"), true),
            (format!("{run}."), true),
            (format!("a b {}-{}", &run[..20], &run[20..]), false),
            (run[..39].to_string(), false),
            (format!("{} {}", &run[..39], &run[..39]), false),
            (format!("{}xx {run} y", &run[..5]), true),
            (String::new(), false),
        ] {
            assert_eq!(has_run(text.as_bytes(), &class, 40), want, "{text:?}");
            let slow = text
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '/' || c == '+'))
                .any(|w| w.len() >= 40);
            assert_eq!(slow, want, "{text:?}");
        }
        assert!(byte_class("z-a").is_none());
        assert!(byte_class("é").is_none());
        let bad = "secrets:\n  - name: r\n    pattern: 'x'\n    run_bytes: 'z-a'\n    min_run: 3\n";
        let e = Scrubber::parse_rules(bad).unwrap_err().to_string();
        assert!(e.contains("r") && e.contains("run_bytes"), "{e}");
        // the bare key is still found, a shorter run is not even searched
        let sc = s();
        let found = sc.find_secrets(&format!("the key is {run} for prod"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            sc.find_secrets(&format!("the key is {} for prod", &run[..39]))
                .is_empty()
        );
    }

    #[test]
    fn json_strings_are_scrubbed() {
        let mut v = serde_json::json!({"a": ["ghp_FAKE0000000000000000000000"], "b": 1});
        assert_eq!(s().scrub_json(&mut v), 1);
        assert_eq!(v["a"][0], REDACTED);
    }
}
