//! The lesson of a generator run after an edit (docs/extraction.md "The
//! rules' kinds": generator after an edit), written from what
//! [`super::regen::Regen`] saw.

use super::lessons::{Call, Fail, Lessons};
use super::merge::{Cand, Parts};
use super::notes::note;
use super::options::ExtractOptions;
use super::origin::{At, base_memory};
use super::sentence::{cut, title_of};
use crate::command::short_cmd;
use crate::command::specific_cmd;
use crate::note::Bucket;
use crate::triggers::is_stop;
use mem_core::records::{Kind, MemoryType};
use mem_core::time::local_day;
use std::collections::BTreeSet;

impl Lessons {
    /// Command `a` failed (`f`) after `input` was edited; generator `b`
    /// ran (at `b_at`) and `a` passed (`call`, result at `ev`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn regenerated(
        &mut self,
        a: &str,
        f: &Fail,
        input: &str,
        b: &str,
        b_at: &At,
        call: &Call,
        ev: &At,
        opts: &ExtractOptions,
    ) {
        let rule = "lesson/regenerate-after-edit";
        let (sa, sb) = (specific_cmd(&short_cmd(a)), specific_cmd(&short_cmd(b)));
        // trusted by what the generator does (docs/security.md "What a
        // command does"); a suspect one stays out of every field but `why`
        let out_l = super::sentence::lower(mem_core::truncate::floor_to_bytes(&f.output, 4096));
        let v = self.judge(&out_l, b, b, a);
        let (risk, hide) = (&v.risk, v.hide());
        let name = if hide {
            title_of(&format!(
                "After editing {input}, a generator must run (low trust)"
            ))
        } else {
            title_of(&format!("After editing `{input}`, run `{sb}`"))
        };
        note(
            &mut self.notes,
            true,
            Bucket::AutomaticMemory,
            rule,
            ev.line,
            &name,
        );
        let mut trig: Vec<String> = Vec::new();
        let mut add = |t: &str| {
            let t = t.to_lowercase();
            if t.len() >= 2 && !t.starts_with('<') && !is_stop(&t) && !trig.contains(&t) {
                trig.push(t);
            }
        };
        add(input);
        if let Some((_, ext)) = input.rsplit_once('.') {
            add(ext);
        }
        if !hide {
            for k in crate::command::command_keywords(&sb) {
                add(&k);
            }
        }
        let evidence = vec![f.result.evidence(), b_at.evidence(), ev.evidence()];
        let verified_at = [f.result.ts, b_at.ts, call.at.ts, ev.ts]
            .into_iter()
            .flatten()
            .max()
            .map(local_day)
            .or(ev.day());
        let key = format!("{rule}:{input}\u{0}{sb}");
        let parts = Parts::lesson(evidence, trig, verified_at);
        let Some(Parts {
            evidence,
            triggers: trig,
            ..
        }) = self
            .cands
            .repeat_lesson(&key, || name.clone(), parts, || None, || None)
        else {
            return;
        };
        let description = if hide {
            format!("`{sa}` failed after `{input}` was edited, until a generator ran (low trust)")
        } else {
            format!("`{sa}` failed after `{input}` was edited, until `{sb}` ran")
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
        m.why = Some(if hide {
            format!(
                "`{sa}` failed after `{input}` was edited; `{sb}` ran, then `{sa}` passed. {} \
                 (output: {}).",
                if risk.is_risky() {
                    format!("That command is risky ({}).", risk.summary())
                } else {
                    "The failing output named that command.".to_string()
                },
                f.result.evidence()
            )
        } else {
            format!(
                "`{sa}` failed after `{input}` was edited and passed once `{sb}` regenerated \
                 the code (output: {}).",
                f.result.evidence()
            )
        });
        if !hide {
            m.fact = Some(format!("After editing `{input}`, run `{sb}`."));
            m.how = Some(format!(
                "After editing `{input}`, run `{sb}` so the generated code follows it."
            ));
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
