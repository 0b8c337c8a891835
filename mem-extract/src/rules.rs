//! The extraction rules: data (YAML), embedded as [`DEFAULT_RULES_YAML`] and
//! replaceable with `--rules FILE`. Format: the comments of `rules.yaml`.

use std::sync::OnceLock;

use regex::Regex;
use serde::Deserialize;

use crate::error::ExtractError as Error;

use crate::set::{AsciiFirstSet, SetHits};

/// The default rules shipped with the tool.
pub const DEFAULT_RULES_YAML: &str = include_str!("rules.yaml");

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleSpec {
    name: String,
    pattern: String,
    #[serde(default)]
    unless: Option<String>,
    #[serde(default)]
    bucket: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesSpec {
    #[serde(default)]
    drop: Vec<RuleSpec>,
    #[serde(default)]
    user: Vec<RuleSpec>,
    #[serde(default)]
    feedback: Vec<RuleSpec>,
    #[serde(default)]
    project: Vec<RuleSpec>,
    #[serde(default)]
    request: Vec<RuleSpec>,
    #[serde(default)]
    why: Vec<String>,
    #[serde(default)]
    reference_words: Vec<String>,
    #[serde(default)]
    reference_skip_hosts: Vec<String>,
}

/// One compiled sentence rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// The rule's name (shown by `--explain`).
    pub name: String,
    /// Lifecycle bucket for `drop` rules (`current-context`, `task-state`).
    pub bucket: Option<String>,
    /// `<group>/<name>` (`drop/question`), as notes and candidates name it.
    label: String,
    /// The pattern, compiled on first use by [`Rule::fires`] (classifying
    /// uses the rule set's compiled copy).
    pattern: String,
    re: OnceLock<Regex>,
    /// The `unless` pattern, compiled on first use ([`Rule::unless_matches`];
    /// when the rules were checked, at parse time).
    unless: Option<String>,
    unless_re: OnceLock<Regex>,
}

impl Rule {
    /// `<group>/<name>`, e.g. `feedback/negative-imperative`.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Where the rule's pattern first matches the lowercased sentence `s`
    /// (byte offset), whether or not its `unless` matches.
    pub fn match_start(&self, s: &str) -> Option<usize> {
        let re = self
            .re
            .get_or_init(|| Regex::new(&self.pattern).expect("checked when parsed"));
        re.find(s).map(|m| m.start())
    }

    /// True when the rule fires on a lowercased sentence.
    pub fn fires(&self, s: &str) -> bool {
        let re = self
            .re
            .get_or_init(|| Regex::new(&self.pattern).expect("checked when parsed"));
        re.is_match(s) && !self.unless_matches(s)
    }

    /// True when the rule's `unless` pattern matches the lowercased sentence
    /// `s` (false without one).
    fn unless_matches(&self, s: &str) -> bool {
        self.unless.as_deref().is_some_and(|u| {
            self.unless_re
                .get_or_init(|| Regex::new(u).expect("checked when parsed"))
                .is_match(s)
        })
    }
}

/// The compiled rule set.
#[derive(Debug, Clone)]
pub struct Rules {
    /// Sentences never kept (questions, chatter, task state, wrappers).
    pub drop: Vec<Rule>,
    /// Facts about the user.
    pub user: Vec<Rule>,
    /// Instructions and corrections.
    pub feedback: Vec<Rule>,
    /// Declarative project facts.
    pub project: Vec<Rule>,
    /// Requests for this session only (dropped).
    pub request: Vec<Rule>,
    /// Reason extractors (capture group 1).
    pub why: Vec<Regex>,
    /// Words that make a URL a reference (lowercase).
    pub reference_words: Vec<String>,
    /// Hosts never kept as references.
    pub reference_skip_hosts: Vec<String>,
    /// The patterns of `drop`, `user`, `feedback`, `project`, `request` in
    /// that order, searched in one pass by [`Rules::matching`].
    set: AsciiFirstSet,
    /// The ASCII one-word `reference_words`, sorted.
    reference_single: Vec<String>,
}

/// Which sentence rules' patterns match a sentence (from [`Rules::matching`]).
pub struct Matching {
    m: SetHits,
}

impl Rules {
    /// Search a lowercased sentence for every sentence rule's pattern at once.
    pub fn matching(&self, s: &str) -> Matching {
        Matching {
            m: self.set.matches(s),
        }
    }

    /// The first rule of group `g` (0 drop, 1 user, 2 feedback, 3 project,
    /// 4 request) that fires on the lowercased sentence `s`, given its
    /// [`Rules::matching`]; the same as the first whose [`Rule::fires`].
    pub fn first_firing<'r>(&'r self, m: &Matching, g: usize, s: &str) -> Option<&'r Rule> {
        let groups: [&[Rule]; 5] = [
            &self.drop,
            &self.user,
            &self.feedback,
            &self.project,
            &self.request,
        ];
        let base: usize = groups[..g].iter().map(|x| x.len()).sum();
        groups[g]
            .iter()
            .enumerate()
            .find(|(i, r)| m.m.matched(base + i) && !r.unless_matches(s))
            .map(|(_, r)| r)
    }

    /// True when `w` is one of the ASCII one-word `reference_words`.
    pub fn is_reference_word(&self, w: &str) -> bool {
        self.reference_single
            .binary_search_by(|x| x.as_str().cmp(w))
            .is_ok()
    }

    /// The `reference_words` that are phrases or not ASCII (found as
    /// substrings rather than as words).
    pub fn reference_phrases(&self) -> impl Iterator<Item = &str> {
        self.reference_words
            .iter()
            .filter(|w| w.contains(' ') || !w.is_ascii())
            .map(String::as_str)
    }

    /// The embedded default rules.
    pub fn default_rules() -> Rules {
        // the test `default_rules_compile` checks every pattern compiles
        Rules::parse_checked(DEFAULT_RULES_YAML, "<default rules>", false)
            .expect("embedded rules are valid")
    }

    /// Parse a rules file.
    ///
    /// Errors: [`crate::ExtractError::RulesYaml`] naming `label` and the
    /// YAML error, [`crate::ExtractError::BadRule`] naming the rule whose
    /// pattern does not compile, [`crate::ExtractError::BadWhy`],
    /// [`crate::ExtractError::RuleSet`].
    pub fn parse(yaml: &str, label: &str) -> Result<Rules, Error> {
        Rules::parse_checked(yaml, label, true)
    }

    /// [`Rules::parse`]; with `check`, the rule set is compiled for any
    /// text now (else the first time a sentence that is not ASCII comes),
    /// and each rule's `unless` (else the first time it is needed).
    fn parse_checked(yaml: &str, label: &str, check: bool) -> Result<Rules, Error> {
        let spec: RulesSpec = serde_norway::from_str(yaml).map_err(|e| Error::RulesYaml {
            file: label.into(),
            reason: e.to_string(),
        })?;
        let patterns: Vec<&str> = [
            &spec.drop,
            &spec.user,
            &spec.feedback,
            &spec.project,
            &spec.request,
        ]
        .iter()
        .flat_map(|g| g.iter().map(|r| r.pattern.as_str()))
        .collect();
        let set = AsciiFirstSet::new(&patterns, false, false);
        let set_result = if check { set.check() } else { Ok(()) };
        // a pattern is compiled alone only to name the bad one when the set
        // fails (a set compiles exactly when each of its patterns does,
        // size limits aside)
        let set_failed = set_result.is_err();
        let comp = |v: Vec<RuleSpec>, group: &str| -> Result<Vec<Rule>, Error> {
            v.into_iter()
                .map(|r| {
                    if set_failed {
                        Regex::new(&r.pattern).map_err(|err| Error::BadRule {
                            file: label.into(),
                            rule: r.name.clone(),
                            what: "pattern",
                            err,
                        })?;
                    }
                    // checked rules: `unless` compiled now, to name a bad one
                    let unless_re = OnceLock::new();
                    if let Some(u) = r.unless.as_deref().filter(|_| check) {
                        let re = Regex::new(u).map_err(|err| Error::BadRule {
                            file: label.into(),
                            rule: r.name.clone(),
                            what: "unless",
                            err,
                        })?;
                        let _ = unless_re.set(re);
                    }
                    Ok(Rule {
                        label: format!("{group}/{}", r.name),
                        name: r.name,
                        bucket: r.bucket,
                        pattern: r.pattern,
                        re: OnceLock::new(),
                        unless: r.unless,
                        unless_re,
                    })
                })
                .collect()
        };
        let why = spec
            .why
            .iter()
            .map(|p| {
                Regex::new(p).map_err(|err| Error::BadWhy {
                    file: label.into(),
                    pattern: p.clone(),
                    err,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let drop = comp(spec.drop, "drop")?;
        let user = comp(spec.user, "user")?;
        let feedback = comp(spec.feedback, "feedback")?;
        let project = comp(spec.project, "project")?;
        let request = comp(spec.request, "request")?;
        // every pattern compiled alone above, so the set compiles too
        set_result.map_err(|err| Error::RuleSet {
            file: label.into(),
            err,
        })?;
        let reference_words: Vec<String> = spec
            .reference_words
            .into_iter()
            .map(|w| w.to_lowercase())
            .collect();
        let mut reference_single: Vec<String> = reference_words
            .iter()
            .filter(|w| !w.contains(' ') && w.is_ascii())
            .cloned()
            .collect();
        reference_single.sort_unstable();
        Ok(Rules {
            set,
            reference_single,
            drop,
            user,
            feedback,
            project,
            request,
            why,
            reference_words,
            reference_skip_hosts: spec.reference_skip_hosts,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_rules_compile() {
        let r = Rules::default_rules();
        assert!(!r.feedback.is_empty() && !r.drop.is_empty());
        r.set.check().expect("the rule set compiles for any text");
        // every `unless` compiles (the embedded rules are not checked when
        // parsed: each `unless` is compiled on first use)
        let groups = [&r.drop, &r.user, &r.feedback, &r.project, &r.request];
        let mut n = 0;
        for rule in groups.into_iter().flatten() {
            if let Some(u) = rule.unless.as_deref() {
                Regex::new(u).unwrap_or_else(|e| panic!("{}: {e}", rule.label));
                n += 1;
            }
        }
        assert!(n >= 7, "{n}");
    }

    /// A rules file's `unless` is checked when parsed; one that matches
    /// keeps its rule from firing.
    #[test]
    fn unless_is_checked_and_applied() {
        let e = Rules::parse(
            "feedback:\n  - name: broken\n    pattern: 'x'\n    unless: '('\n",
            "x.yaml",
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("x.yaml: rule broken: bad unless"),
            "{e}"
        );
        let r = Rules::parse(
            "feedback:\n  - name: push\n    pattern: 'push'\n    unless: 'not'\n",
            "x.yaml",
        )
        .unwrap();
        let rule = &r.feedback[0];
        assert!(rule.fires("push to main"));
        assert!(!rule.fires("do not push"));
        let m = r.matching("do not push");
        assert!(r.first_firing(&m, 2, "do not push").is_none());
        let m = r.matching("push it");
        assert_eq!(
            r.first_firing(&m, 2, "push it").map(Rule::label),
            Some("feedback/push")
        );
    }

    #[test]
    fn bad_pattern_names_the_rule() {
        let e =
            Rules::parse("feedback:\n  - name: broken\n    pattern: '('\n", "x.yaml").unwrap_err();
        assert!(e.to_string().contains("x.yaml: rule broken"), "{e}");
    }
}
