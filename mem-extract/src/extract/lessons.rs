//! Lessons from tool calls: a command fails, another runs, the first passes.

use std::borrow::Cow;
use std::collections::BTreeSet;

use mem_core::records::{Kind, MemoryType, Source, Trust};
use mem_core::scrub::Scrubber;
use mem_core::time::local_day;
use mem_core::truncate::floor_to_bytes;

use super::merge::{Cand, Merged, Parts};
use super::notes::{Notes, note};
use super::options::{ExtractOptions, FastMap};
use super::origin::{At, base_memory};
use super::sentence::{cut, lower, title_of};
use super::view::{EventView, min_text_window};
use crate::command::{
    MAX_RETRY_GAP, core_of, error_line, failing_step, head_of, is_inspection, is_script,
    lesson_form, looks_failed, named_in_output, named_loosely, norm_cmd, segments, short_cmd,
};
use crate::command::{command_keywords, general_cmd, retry_of, specific_cmd};
use crate::note::Bucket;
use crate::triggers::is_stop;
use mem_core::risk::Class;

/// Lessons from failure → other command → success, one event at a time.
///
/// Holds the open tool calls (command and origin), the failed commands not
/// yet fixed (with a window of their output) and the successful commands
/// since the oldest open failure; nothing else of the events.
#[derive(Default)]
pub(super) struct Lessons {
    pub(super) calls: FastMap<String, Call>,
    /// File edits (write tools) so far.
    pub(super) edits: u64,
    // successful commands since the oldest open failure, in order
    pub(super) ok: Vec<(String, At)>,
    pub(super) failed: Vec<(String, Fail)>,
    pub(super) cands: Merged,
    pub(super) notes: Notes,
    /// The last [`SEEN_BYTES`] of what tool results showed the agent
    /// (lowercased, the first [`SEEN_PER_RESULT`] bytes of each): a fix
    /// found there came from a file, page or output the agent read.
    pub(super) seen: String,
    /// Per lesson key (written with placeholders): the commands as the
    /// first evidence showed them, and whether a later one showed other
    /// values (the lesson is then written for the general case).
    pub(super) forms: FastMap<String, Forms>,
    /// The session of the events so far: calls, failures and edits are
    /// one session's (a stream may hold several, oldest first).
    pub(super) session: String,
    /// The checks the project runs, session by session.
    pub(super) repeats: super::repeats::Repeats,
    /// Generated code: the inputs edited and the generators run (see
    /// [`super::regen`]).
    pub(super) regen: super::regen::Regen,
}

/// The check a commit or push was refused on: `a` (its failing step) is
/// `git commit` or `git push`, refused by a hook of the checkout (the
/// output, a remote's lines left out, says "pre-commit hook", "pre-push
/// hook", "hook failed", "pre-commit validation", husky, lefthook or
/// overcommit), and a project check (tests, lint, format,
/// type check, build: [`super::repeats::family_of`]) the refusal's output
/// `out_l` names by its tool ran successfully among `between` (the
/// commands after the failure). The check as its family says it (`mix
/// dialyzer`, `mix credo --strict`), the last such one.
fn gate_check(a: &str, between: &[&(String, At)], out_l: &str) -> Option<(String, At)> {
    let step = failing_step(&short_cmd(a), out_l).unwrap_or_else(|| short_cmd(a));
    let mut w = step.split_whitespace();
    if w.next() != Some("git") || !matches!(w.next(), Some("commit" | "push")) {
        return None;
    }
    // the refusal is a hook's of this checkout: a remote's words (`remote:`
    // lines, a server's pre-receive hook) are another party's
    let own: String = out_l
        .lines()
        .filter(|l| {
            let l = l.trim_start();
            !l.starts_with("remote:")
                && !l.starts_with("! [remote rejected]")
                && !l.contains("pre-receive")
                && !l.starts_with("on branch")
        })
        .collect::<Vec<_>>()
        .join("\n");
    let out_l = own.as_str();
    // a hook's own words, not "hook" in a branch's name
    let hook = [
        "pre-commit hook",
        "pre-push hook",
        "commit-msg hook",
        "hook failed",
        "hook exited",
        "hook declined",
        "pre-commit validation",
        "pre-commit:",
        "pre-push:",
        "pre-push validation",
        "husky -",
        "husky >",
        "lefthook",
        "overcommit",
    ];
    if !hook.iter().any(|h| out_l.contains(h)) {
        return None;
    }
    let said = |word: &str| {
        out_l.match_indices(word).any(|(i, m)| {
            let before = out_l[..i].chars().next_back();
            let after = out_l[i + m.len()..].chars().next();
            !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
        })
    };
    between.iter().rev().find_map(|(c, at)| {
        let (_, head, rest) = super::repeats::family_of(&short_cmd(c))?;
        // the check's own words (`dialyzer`, `credo`, `lint`, `pytest`), not a
        // runner's or "check" (a hook says "Checking 88 files")
        let named = head
            .rsplit(" && ")
            .next()
            .unwrap_or(&head)
            .split_whitespace()
            .map(|w| w.rsplit('/').next().unwrap_or(w).to_lowercase())
            .filter(|w| {
                w.len() >= 4
                    && !matches!(
                        w.as_str(),
                        "python"
                            | "python3"
                            | "poetry"
                            | "bundle"
                            | "cargo"
                            | "check"
                            | "pnpm"
                            | "yarn"
                            | "make"
                            | "just"
                            | "exec"
                    )
            })
            .any(|w| said(&w));
        if !named {
            return None;
        }
        let flags: Vec<&String> = rest.iter().take_while(|w| w.starts_with('-')).collect();
        let cmd = if flags.len() == rest.len() && rest.len() <= 3 {
            std::iter::once(&head)
                .chain(flags)
                .cloned()
                .collect::<Vec<_>>()
                .join(" ")
        } else {
            head.clone()
        };
        Some((cmd, at.clone()))
    })
}

/// The commands of a lesson as its evidence showed them (see
/// [`Lessons::forms`]).
pub(super) struct Forms {
    /// The specific forms (failing command, fix or retry).
    spec: [String; 2],
    /// The lesson's name before it was cut to length.
    name: String,
    /// A repeat showed other values: the lesson names the general forms.
    generalised: bool,
    /// The first failing command whole (the specific form is cut to
    /// length): what [`one_fix_value`] looks for the fix's words in.
    failed: String,
}

/// What a lesson's command does and who chose it (docs/security.md "What
/// a command does"): a risky command is never a normal-trust lesson; a
/// project-local, harmless one is, whoever named it; another that text the
/// agent was shown named came from whoever wrote that text.
pub(super) struct Verdict {
    /// What the command does.
    pub(super) risk: mem_core::risk::Assessment,
    /// Text the agent was shown named it (and it is not project-local).
    pub(super) suggested: bool,
}

impl Verdict {
    /// A suspect command stays out of every field of the lesson but `why`.
    pub(super) fn hide(&self) -> bool {
        self.suggested || self.risk.is_risky()
    }

    /// The lesson's provenance: `source` (the tool's when text named the
    /// command), `trust` (low when suspect), `confidence`, and `risk:`.
    pub(super) fn mark(&self, m: &mut mem_core::records::Memory) {
        m.source = Some(if self.suggested {
            Source::Tool
        } else {
            Source::Assistant
        });
        m.trust = Some(if self.hide() {
            Trust::Low
        } else {
            Trust::Normal
        });
        m.confidence = Some(if self.hide() { 0.3 } else { 0.7 });
        if self.risk.is_risky() {
            m.extra.insert(
                mem_core::lesson::RISK_KEY.into(),
                self.risk.summary().into(),
            );
        }
    }
}

/// Bytes of tool results kept in [`Lessons::seen`].
const SEEN_BYTES: usize = 512 << 10;
/// Bytes of one tool result added to [`Lessons::seen`].
const SEEN_PER_RESULT: usize = crate::held::SHOWN_BYTES;

pub(super) struct Call {
    pub(super) cmd: String,
    /// The command as run (a leading `cd DIR &&` kept), display form.
    pub(super) raw: String,
    pub(super) at: At,
}

pub(super) struct Fail {
    pub(super) call: At,
    pub(super) result: At,
    pub(super) output: String,
    pub(super) since: usize,
    /// The command as run, display form.
    pub(super) raw: String,
    /// Files edited before this failure (a change after it, not a command,
    /// may be what fixed it).
    pub(super) edits: u64,
}

impl Lessons {
    pub(super) fn step(
        &mut self,
        ev: &EventView<'_>,
        at: impl FnOnce() -> At,
        opts: &ExtractOptions,
        scrubber: &Scrubber,
    ) {
        if *ev.session != *self.session {
            // a failure is fixed in its own session only
            self.session = ev.session.to_string();
            self.calls.clear();
            self.failed.clear();
            self.ok.clear();
            self.regen = super::regen::Regen::default();
        }
        match &*ev.kind {
            "tool_use" => {
                if let (Some(id), Some(cmd)) = (ev.tool_id.as_deref(), ev.command.as_deref()) {
                    self.calls.insert(
                        id.to_string(),
                        Call {
                            cmd: norm_cmd(cmd),
                            raw: short_cmd(cmd),
                            at: at(),
                        },
                    );
                } else if let Some(path) = ev.path.as_deref() {
                    self.regen.edited(path);
                    if !self.failed.is_empty() {
                        self.edits += 1;
                    }
                }
            }
            "tool_result" => {
                // A hook's refusal (mem's own when a lesson stopped the
                // command): the command never ran, so it neither failed nor
                // passed, and the lesson quoted in the refusal is not output
                // the agent found a fix in.
                if ev
                    .text
                    .as_ref()
                    .is_some_and(|t| mem_core::lesson::is_hook_refusal(&t.prefix(4096)))
                {
                    if let Some(id) = ev.tool_id.as_deref() {
                        self.calls.remove(id);
                    }
                    return;
                }
                if let Some(t) = &ev.text {
                    self.saw(&t.prefix(SEEN_PER_RESULT));
                }
                let Some(call) = ev.tool_id.as_deref().and_then(|id| self.calls.remove(id)) else {
                    return;
                };
                // the output is decoded only when read, and only its first
                // `min_text_window` bytes: a 7 MB output is never read in full
                let decode = || match &ev.text {
                    Some(t) => t.prefix(min_text_window(opts.max_quote_bytes)),
                    None => Cow::Borrowed(""),
                };
                let mut window = None;
                let bad = match ev.is_error {
                    Some(b) => b,
                    None => looks_failed(window.insert(decode())),
                };
                if bad {
                    let window = window.unwrap_or_else(decode);
                    let keep = opts.max_quote_bytes * 4 + 1024;
                    let fail = Fail {
                        call: call.at,
                        result: at(),
                        output: floor_to_bytes(&window, keep).to_string(),
                        since: self.ok.len(),
                        raw: call.raw,
                        edits: self.edits,
                    };
                    match self.failed.iter_mut().find(|(c, _)| *c == call.cmd) {
                        // failed again: what ran before did not fix it
                        Some((_, f)) => *f = fail,
                        None => self.failed.push((call.cmd, fail)),
                    }
                    return;
                }
                self.repeats
                    .ran(&call.raw, &call.at, opts.project_root.as_deref(), false);
                self.regen.ran(&call.cmd);
                if let Some(pos) = self.failed.iter().position(|(c, _)| *c == call.cmd) {
                    let (a, f) = self.failed.remove(pos);
                    self.fixed(&a, f, &call, &at(), opts, scrubber);
                } else if let Some(pos) = self.failed.iter().rposition(|(_, f)| {
                    // a retry comes soon after the failure
                    self.ok.len() - f.since <= MAX_RETRY_GAP
                        && retry_of(&f.raw, &call.raw).is_some()
                }) {
                    let (a, f) = self.failed.remove(pos);
                    self.retried(&a, f, &call, &at(), opts);
                } else if let Some((pos, step)) =
                    self.failed
                        .iter()
                        .enumerate()
                        .rev()
                        .find_map(|(i, (c, f))| {
                            // a step and the failed command again on one line:
                            // `pip install requests && pytest`
                            (self.ok.len() - f.since <= MAX_RETRY_GAP)
                                .then(|| step_then_rerun(c, &call.cmd))
                                .flatten()
                                .map(|s| (i, s))
                        })
                {
                    let (a, f) = self.failed.remove(pos);
                    self.ok.push((step, call.at.clone()));
                    self.fixed(&a, f, &call, &at(), opts, scrubber);
                }
                if self.failed.is_empty() {
                    // no open failure looks back at these
                    self.ok.clear();
                } else {
                    self.ok.push((call.cmd, call.at));
                }
            }
            _ => {}
        }
    }

    /// Keep `text` (lowercased) as read by the agent, within [`SEEN_BYTES`].
    fn saw(&mut self, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        self.seen
            .push_str(&lower(&mem_core::instruction::normalize(floor_to_bytes(
                text,
                SEEN_PER_RESULT,
            ))));
        self.seen.push('\n');
        if self.seen.len() > SEEN_BYTES {
            let mut cut = self.seen.len() - SEEN_BYTES;
            while !self.seen.is_char_boundary(cut) {
                cut += 1;
            }
            self.seen.drain(..cut);
        }
    }

    /// The [`Verdict`] on a lesson's command: `cmd` is assessed as it ran,
    /// `named` (its display form) looked for in the failing output `out_l`
    /// and in what the agent was shown; `failed` is the failing command.
    pub(super) fn judge(&self, out_l: &str, cmd: &str, named: &str, failed: &str) -> Verdict {
        let risk = mem_core::risk::assess(cmd);
        let suggested = risk.class != Class::Local && self.suggested(out_l, named, failed);
        Verdict { risk, suggested }
    }

    /// True when `cmd` came from text the agent was shown: named by the
    /// failing output `out_l` (exactly, or with other flags, or run another
    /// way), or found in what a tool showed it earlier (a README, a page).
    /// `failed` is the command that failed.
    pub(super) fn suggested(&self, out_l: &str, cmd: &str, failed: &str) -> bool {
        // as a reader sees it: colours, invisible characters, Unicode
        // hyphens and look-alike letters do not hide a command
        let out_l = &lower(&mem_core::instruction::normalize(out_l));
        named_in_output(out_l, cmd)
            || named_loosely(out_l, cmd, failed)
            || named_loosely(&self.seen, cmd, failed)
    }

    /// Command `a` failed (`f`), then succeeded (`call`, result at `ev`).
    pub(super) fn fixed(
        &mut self,
        a: &str,
        f: Fail,
        call: &Call,
        ev: &At,
        opts: &ExtractOptions,
        scrubber: &Scrubber,
    ) {
        let between: Vec<&(String, At)> = self.ok[f.since..]
            .iter()
            .filter(|(c, _)| c != a && !is_inspection(c) && !is_script(c))
            .collect();
        let out_l = lower(floor_to_bytes(&f.output, 4096));
        let program = |c: &str| c.split_whitespace().next().unwrap_or("").to_string();
        // the fix the error names, else the last one of the same program
        let fix = between
            .iter()
            .rev()
            // (memmem: the output is long, the command short)
            .find(|(c, _)| {
                memchr::memmem::find(out_l.as_bytes(), lower(&short_cmd(c)).as_bytes()).is_some()
            })
            .or_else(|| {
                between
                    .iter()
                    .rev()
                    .find(|(c, _)| program(c) == program(a) && !program(a).starts_with('('))
            })
            // else the last command between that changes something (reads
            // and listings were left out above), when no file was edited:
            // an edit after the failure is the likelier fix
            // else a generator run after its input was edited
            .or_else(|| {
                between
                    .iter()
                    .rev()
                    .find(|(c, _)| self.regen.input_of(c).is_some())
            })
            .or_else(|| between.last().filter(|_| self.edits == f.edits))
            .map(|(c, at)| (c.clone(), at.clone()));
        // a commit or push its hook refused on a check: the check that then
        // passed, whatever edits fixed the code, is the step to run first
        let gate = (fix.is_none() || self.edits != f.edits)
            .then(|| gate_check(a, &between, &out_l))
            .flatten();
        let fix = gate.clone().or(fix);
        let fix = fix.as_ref();
        if let Some((b, b_at)) = fix
            && let Some(input) = self.regen.input_of(b)
        {
            // "after editing `schema.graphql`, run `npm run codegen`": the
            // edit is what made the generator needed, not a fix of its own
            let (b, b_at, input) = (b.clone(), b_at.clone(), input.to_string());
            self.regenerated(a, &f, &input, &b, &b_at, call, ev, opts);
            return;
        }
        if gate.is_none() && fix.is_some() && self.edits != f.edits {
            note(
                &mut self.notes,
                false,
                Bucket::RawEvidence,
                "lesson/edited-between",
                ev.line,
                a,
            );
            return;
        }
        let Some((b, b_at)) = fix else {
            note(
                &mut self.notes,
                false,
                Bucket::RawEvidence,
                "lesson/no-command-between",
                ev.line,
                a,
            );
            return;
        };
        // of a chain (`git add -A && git commit`), the step that failed
        let a_step = failing_step(&short_cmd(a), &out_l).unwrap_or_else(|| short_cmd(a));
        let (mut sa, sb) = (specific_cmd(&a_step), specific_cmd(&short_cmd(b)));
        if gate.is_some() {
            // the hook checks every commit or push, whatever its arguments
            sa = a_step
                .split_whitespace()
                .take(2)
                .collect::<Vec<_>>()
                .join(" ");
        }
        let (ga, gb) = (general_cmd(&a_step), general_cmd(&short_cmd(b)));
        // What the fix does decides its trust (docs/security.md "What a
        // command does"): a risky fix is never a normal-trust lesson; a
        // project-local, harmless one is, whoever named it; another named
        // by text the agent was shown came from whoever wrote that text.
        let v = self.judge(&out_l, b, b, a);
        let (risk, suggested, hide) = (&v.risk, v.suggested, v.hide());
        let newest = [f.call.ts, f.result.ts, b_at.ts, call.at.ts, ev.ts]
            .into_iter()
            .flatten()
            .max();
        let mut trig = Vec::new();
        let fixes: &[&String] = if hide { &[&sa] } else { &[&sa, &sb] };
        for c in fixes {
            let words: Vec<&str> = c
                .split_whitespace()
                .filter(|w| !w.starts_with(['-', '<']))
                .take(2)
                .collect();
            trig.push(words.join(" "));
        }
        // The failing command's own names (`node src/build-token.mjs` →
        // `build-token`) so a task that names it recalls the lesson.
        for k in command_keywords(&sa) {
            if !trig.contains(&k) {
                trig.push(k);
            }
        }
        trig.dedup();
        trig.retain(|t| !is_stop(t) && t != "git");
        let output_at = f.result.evidence();
        let mut evidence = vec![output_at.clone(), b_at.evidence(), ev.evidence()];
        evidence.dedup();
        let rule = if suggested {
            "lesson/fix-named-by-output"
        } else if gate.is_some() {
            "lesson/gate-check"
        } else if is_install_or_env_step(b) {
            "lesson/install-or-env-step"
        } else {
            "lesson/fail-fix-succeed"
        };
        note(
            &mut self.notes,
            true,
            Bucket::AutomaticMemory,
            rule,
            ev.line,
            &format!("run {sb} before {sa}"),
        );
        let key = format!(
            "{rule}:{gb}\u{0}{}",
            ga.split_whitespace().take(2).collect::<Vec<_>>().join(" ")
        );
        let verified_at = newest.map(local_day).or(ev.day());
        let quote = || error_line(&f.output, opts.max_quote_bytes, scrubber);
        let why = |quote: Result<Option<String>, &'static str>| {
            if suggested {
                return format!(
                    "`{sa}` failed and its own output named `{sb}`; that ran, then `{sa}` passed. \
                     The fix came from the tool's output (output: {output_at})."
                );
            }
            if risk.is_risky() {
                return format!(
                    "`{sa}` failed; `{sb}` ran, then `{sa}` passed. That fix is risky ({}) \
                     (output: {output_at}).",
                    risk.summary()
                );
            }
            if gate.is_some() {
                return format!(
                    "`{sa}` was refused on what `{sb}` checks; after edits `{sb}` passed, \
                     then `{sa}` did (output: {output_at})."
                );
            }
            match quote {
                Ok(Some(line)) => {
                    format!("`{sa}` failed with \"{line}\" (output: {output_at}).")
                }
                Ok(None) => format!("`{sa}` failed (output: {output_at})."),
                Err(pattern) => {
                    format!("`{sa}` failed (output: {output_at}; not quoted: {pattern}).")
                }
            }
        };
        let how = || format!("Before running `{sa}`, run `{sb}`.");
        let full_name = || {
            if suggested {
                format!("Fix for {sa} named by its own output")
            } else if hide {
                format!("Risky fix for {sa}")
            } else {
                format!("Run {sb} before {sa}")
            }
        };
        let name = || title_of(&full_name());
        // a repeated lesson: its quote is made only when the kept one lacks one
        let parts = Parts::lesson(evidence, trig, verified_at);
        let Some(Parts {
            evidence,
            triggers: trig,
            ..
        }) = self.cands.repeat_lesson(
            &key,
            name,
            parts,
            || Some(why(quote())),
            || (!hide).then(how),
        )
        else {
            self.seen_form(&key, [sa, sb], [ga, gb], a, ev.line);
            return;
        };
        self.first_form(&key, [sa.clone(), sb.clone()], full_name(), a);
        let quoted = if suggested { Ok(None) } else { quote() };
        if let Err(pattern) = quoted {
            note(
                &mut self.notes,
                false,
                Bucket::RawEvidence,
                "lesson/quote-instruction-shaped",
                f.result.line,
                pattern,
            );
        }
        let description = if suggested {
            format!("{sa} failed until a command its own output named ran (low trust)")
        } else if hide {
            format!("{sa} failed until a risky command ran (low trust)")
        } else {
            // the lesson first, then what taught it
            if gate.is_some() {
                format!("Run {sb} before {sa}: {sa} was refused on what it checks")
            } else {
                format!("Run {sb} before {sa}: {sa} failed until {sb} ran")
            }
        };
        let mut m = base_memory(
            name(),
            cut(&description, 150),
            MemoryType::Feedback,
            Kind::DurableLesson,
            ev,
            opts,
        );
        m.verified_at = verified_at;
        m.why = Some(why(quoted));
        if !hide {
            m.fact = Some(format!("Run `{sb}` before `{sa}`."));
            m.how = Some(how());
        }
        v.mark(&mut m);
        m.triggers = trig;
        m.evidence = evidence;
        m.extra.insert("rule".into(), rule.into());
        self.cands.v.push(Cand {
            key: Some(key),
            mem: m,
            tokens: BTreeSet::new(),
        });
    }
}

impl Lessons {
    /// Command `f.raw` failed, then a modified form of it (`call`) passed:
    /// "use X′ instead of X", written for the general case.
    pub(super) fn retried(
        &mut self,
        a: &str,
        f: Fail,
        call: &Call,
        ev: &At,
        opts: &ExtractOptions,
    ) {
        let Some(how) = retry_of(&f.raw, &call.raw) else {
            return;
        };
        // the lesson names the retried command only (what ran after it on
        // the same line is not part of it), the failing one by its head
        let (sa, sb) = (
            specific_cmd(&lesson_form(&f.raw)),
            specific_cmd(&lesson_form(&call.raw)),
        );
        let (ga, gb) = (
            general_cmd(&lesson_form(&f.raw)),
            general_cmd(&lesson_form(&call.raw)),
        );
        if sa == sb || ga == gb || sa.is_empty() || sb.is_empty() {
            return;
        }
        let ha = head_of(&sa);
        // What the retry does decides its trust (see `fixed`); a suspect
        // one's command stays out of every field but `why`.
        let out_l = lower(floor_to_bytes(&f.output, 4096));
        let v = self.judge(&out_l, &call.cmd, &call.raw, &f.raw);
        let (risk, suggested, hide) = (&v.risk, v.suggested, v.hide());
        let full_name = if suggested {
            format!("Retry of `{ha}` named by its own output")
        } else if hide {
            format!("Risky retry of `{ha}`")
        } else {
            format!("Use `{sb}` instead of `{sa}`")
        };
        let name = title_of(&full_name);
        note(
            &mut self.notes,
            true,
            Bucket::AutomaticMemory,
            "lesson/modified-retry",
            ev.line,
            &name,
        );
        // triggers: the command family (`git push`, `pytest`), the programs
        // and the names the commands carry, never `cd`/`git` alone
        let mut trig: Vec<String> = Vec::new();
        let mut add = |t: String| {
            if t.len() >= 2 && !t.starts_with('<') && !is_stop(&t) && !trig.contains(&t) {
                trig.push(t);
            }
        };
        let cmds: &[&String] = if hide { &[&sa] } else { &[&sb, &sa] };
        for c in cmds {
            let segs = segments(c);
            let Some(core) = core_of(&segs) else {
                continue;
            };
            let words: Vec<&str> = core
                .iter()
                .copied()
                .filter(|w| !w.starts_with(['-', '<']))
                .collect();
            add(words.iter().take(2).copied().collect::<Vec<_>>().join(" "));
            for w in words.iter().take(2) {
                if !matches!(*w, "git" | "sh" | "bash" | "env" | "sudo" | "run" | "exec")
                    && !w.contains('/')
                {
                    add(w.to_string());
                }
            }
            for s in &segs {
                if matches!(s[0], "source" | ".") {
                    add("activate".into());
                }
            }
            for k in command_keywords(&core.join(" ")) {
                if !matches!(k.as_str(), "git" | "sudo") {
                    add(k);
                }
            }
        }
        trig.truncate(6);
        let evidence = vec![f.result.evidence(), ev.evidence()];
        let key = format!("retry:{gb}\u{0}{}", head_of(&ga));
        let verified_at = [f.result.ts, call.at.ts, ev.ts]
            .into_iter()
            .flatten()
            .max()
            .map(local_day)
            .or(ev.day());
        let parts = Parts::lesson(evidence, trig, verified_at);
        let Some(Parts {
            evidence,
            triggers: trig,
            ..
        }) = self
            .cands
            .repeat_lesson(&key, || name.clone(), parts, || None, || None)
        else {
            self.seen_form(&key, [sa, sb], [ga, gb], a, ev.line);
            return;
        };
        self.first_form(&key, [sa.clone(), sb.clone()], full_name.clone(), a);
        let description = if hide {
            format!("`{sa}` fails here; a retry {how} passed (low trust)")
        } else {
            format!("`{sa}` fails here; `{sb}` ({how}) works")
        };
        let mut m = base_memory(
            name,
            cut(&description, 150),
            MemoryType::Feedback,
            Kind::DurableLesson,
            ev,
            opts,
        );
        m.verified_at = verified_at;
        if hide {
            m.why = Some(format!(
                "`{sa}` failed and passed when run again {how}, as `{sb}`{}.",
                if risk.is_risky() {
                    format!(", which is risky ({})", risk.summary())
                } else {
                    ", as its own output said".to_string()
                }
            ));
        } else {
            m.fact = Some(format!("Run `{sb}`, not `{sa}`."));
            m.why = Some(format!("`{sa}` failed and passed when run again {how}."));
            m.how = Some(format!("Where you would run `{sa}`, run `{sb}`."));
        }
        v.mark(&mut m);
        m.triggers = trig;
        m.evidence = evidence;
        m.extra
            .insert("rule".into(), "lesson/modified-retry".into());
        self.cands.v.push(Cand {
            key: Some(key),
            mem: m,
            tokens: BTreeSet::new(),
        });
    }
}

/// The failing form a lesson keeps when two pieces of evidence show the
/// same fix after different failing commands (`failed`, whole): the fix's
/// words that every failing command holds (`git add -f a.css` after `git
/// add a b a.css` and `git add c a.css` → `git add a.css`), or `None` when
/// the fixes differ, the form keeps no argument of the fix's, or nothing
/// of the fix was cut.
fn one_fix_value(first: &str, now: &str, failed: [&str; 2]) -> Option<String> {
    if first != now {
        return None;
    }
    let fix: Vec<&str> = first.split_whitespace().collect();
    let has = |cmd: &str, w: &str| cmd.split_whitespace().any(|x| x == w);
    let kept: Vec<&str> = fix
        .iter()
        .copied()
        .filter(|w| failed.iter().all(|c| has(c, w)))
        .collect();
    // the program and at least one argument that is no flag
    let args = kept.iter().skip(1).filter(|w| !w.starts_with('-')).count();
    if kept.first() != fix.first() || args < 2 || kept.len() >= fix.len() {
        return None;
    }
    Some(kept.join(" "))
}

impl Lessons {
    /// A new lesson under `key`: its commands as this evidence shows them.
    fn first_form(&mut self, key: &str, spec: [String; 2], name: String, failed: &str) {
        self.forms.insert(
            key.to_string(),
            Forms {
                spec,
                name,
                generalised: false,
                failed: lesson_form(failed),
            },
        );
    }

    /// The lesson under `key` is seen again with commands `spec`: when they
    /// hold other values than the first evidence (another branch, file or
    /// id), the lesson is written for the general case from now on.
    fn seen_form(
        &mut self,
        key: &str,
        spec: [String; 2],
        general: [String; 2],
        failed: &str,
        line: u64,
    ) {
        let Some(f) = self.forms.get_mut(key) else {
            return;
        };
        if f.generalised || f.spec == spec {
            return;
        }
        let mut general = general;
        let (old, new) = (&f.spec[0], &spec[0]);
        let extends = |long: &str, short: &str| {
            short.len() < long.len()
                && long
                    .split_whitespace()
                    .zip(short.split_whitespace())
                    .all(|(a, b)| a == b)
        };
        if f.spec[1] == spec[1] && (extends(old, new) || extends(new, old)) {
            // the same fix or retry after a longer form of the failing
            // command (more files staged with the one that failed): its
            // values are still one, so the lesson stays specific, named by
            // the shorter form (the hook matches a prefix)
            if extends(new, old) {
                return;
            }
            general = [new.clone(), f.spec[1].clone()];
        } else if let Some(common) =
            one_fix_value(&f.spec[1], &spec[1], [&f.failed, &lesson_form(failed)])
        {
            // the same fix after failing commands that differ (other files
            // staged beside the one that failed): the fix holds one value,
            // so the lesson stays specific, the failing form cut to what
            // the fix names (`git add x.css`, not `git add <files>`)
            if f.spec[0] == common {
                return;
            }
            general = [common, f.spec[1].clone()];
        } else {
            f.generalised = true;
        }
        let rule = if f.generalised {
            "lesson/generalised"
        } else {
            "lesson/shorter-form"
        };
        let mut pairs: Vec<(String, String)> =
            f.spec.iter().cloned().zip(general.clone()).collect();
        // the longer command first: a retry often contains the command it retries
        pairs.sort_by_key(|(s, _)| std::cmp::Reverse(s.len()));
        let Some(c) = self
            .cands
            .v
            .iter_mut()
            .find(|c| c.key.as_deref() == Some(key))
        else {
            return;
        };
        let m = &mut c.mem;
        let texts = [
            Some(&mut f.name),
            Some(&mut m.description),
            m.fact.as_mut(),
            m.how.as_mut(),
            m.why.as_mut(),
        ];
        for t in texts.into_iter().flatten() {
            for (s, g) in &pairs {
                if s != g {
                    *t = t.replace(&format!("`{s}`"), &format!("`{g}`"));
                }
            }
            for (s, g) in &pairs {
                if s != g && !t.contains(&format!("`{g}`")) {
                    *t = t.replace(s.as_str(), g);
                }
            }
        }
        m.name = title_of(&f.name);
        if !f.generalised {
            f.spec = general;
        }
        note(
            &mut self.notes,
            true,
            Bucket::AutomaticMemory,
            rule,
            line,
            &m.name,
        );
    }
}

/// The steps before the failed command `tried` when `line` runs them and
/// then `tried` again (`pip install requests && pytest` after `pytest`
/// failed → `pip install requests`); `None` when `line` does not end with
/// `tried`, or when its steps only set up (`cd`, `source`, `export`: a
/// modified retry, see [`retry_of`]).
fn step_then_rerun(tried: &str, line: &str) -> Option<String> {
    use mem_core::shell::Op;
    let t = segments(tried);
    let l = crate::command::segments_ops(line);
    if t.is_empty() || l.len() <= t.len() {
        return None;
    }
    let (steps, tail) = l.split_at(l.len() - t.len());
    if tail.iter().map(|(w, _)| w).ne(t.iter()) {
        return None;
    }
    // the steps ran to completion before the rerun (`&&` or `;`)
    if steps.iter().any(|(_, op)| !matches!(op, Op::And | Op::Seq)) {
        return None;
    }
    let setup = |w: &[&str]| {
        let i = w
            .iter()
            .position(|x| !x.contains('=') || x.starts_with('-'));
        i.is_none_or(|i| matches!(w[i], "cd" | "pushd" | "source" | "." | "export" | "set"))
    };
    if steps.iter().all(|(w, _)| setup(w)) {
        return None;
    }
    Some(
        steps
            .iter()
            .map(|(w, _)| w.join(" "))
            .collect::<Vec<_>>()
            .join(" && "),
    )
}

/// True when `c` installs a package or sets up the environment: `pip
/// install requests`, `uv add requests`, `npm install zod`, `export
/// PYTHONPATH=src`, `source .venv/bin/activate` (every step of the line).
fn is_install_or_env_step(c: &str) -> bool {
    let segs = segments(c);
    !segs.is_empty()
        && segs.iter().all(|s| {
            let i = s.iter().position(|w| {
                (!w.contains('=') || w.starts_with('-')) && !matches!(*w, "sudo" | "doas")
            });
            let Some(i) = i else {
                return true; // `PYTHONPATH=src`
            };
            let prog = s[i].rsplit('/').next().unwrap_or(s[i]);
            let sub = s[i + 1..].iter().find(|w| !w.starts_with('-')).copied();
            match prog {
                "export" | "source" | "." | "set" | "cd" | "pushd" => true,
                "pip" | "pip3" | "npm" | "pnpm" | "yarn" | "bun" | "bundle" | "gem"
                | "composer" | "poetry" | "pdm" | "pipenv" | "uv" | "cargo" | "go" | "mix"
                | "brew" | "apt" | "apt-get" | "dnf" | "yum" | "apk" | "conda" | "mamba" => {
                    matches!(
                        sub,
                        Some("install" | "i" | "add" | "sync" | "get" | "deps.get" | "ci")
                    )
                }
                p if p.starts_with("python") => {
                    s.get(i + 1) == Some(&"-m") && matches!(s.get(i + 2), Some(&"pip" | &"venv"))
                }
                _ => false,
            }
        })
}
