//! "After editing `schema.graphql`, run `npm run codegen`": a build or a
//! test fails after a generator's input (a GraphQL schema, an OpenAPI
//! document, a `.proto`, `schema.prisma`) was edited, the generator runs,
//! and the build or test passes. The lesson is about the edited file, not
//! about every later build: it fires on the file's name.

use std::collections::BTreeSet;

use mem_core::records::{Kind, MemoryType};
use mem_core::time::local_day;

use super::lessons::{Call, Fail, Lessons};
use super::merge::{Cand, Parts};
use super::notes::note;
use super::origin::{At, base_memory};
use super::sentence::{cut, title_of};
use super::{Bucket, ExtractOptions, FastMap, specific_cmd};
use crate::command::{is_inspection, short_cmd};
use crate::triggers::is_stop;

/// What the session edited and generated, in order.
#[derive(Default)]
pub(super) struct Regen {
    /// Tool calls and edits so far.
    tick: u64,
    /// The last generator input edited (its file name) and when.
    input: Option<(String, u64)>,
    /// When a generator last ran successfully.
    last_gen: u64,
    /// Per generator command (normalized): the input edited before it ran,
    /// when one was edited since the generator before it.
    after: FastMap<String, String>,
}

/// True for a file a code generator reads: a GraphQL schema, a protobuf,
/// Thrift, Avro, FlatBuffers, Cap'n Proto or Smithy file, a Prisma schema,
/// an OpenAPI/Swagger document or another schema file (`schema.json`,
/// `api-schema.yaml`).
pub(crate) fn is_generator_input(path: &str) -> bool {
    let name = path
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(path)
        .to_lowercase();
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    matches!(
        ext,
        "graphql"
            | "graphqls"
            | "gql"
            | "proto"
            | "prisma"
            | "thrift"
            | "avsc"
            | "avdl"
            | "fbs"
            | "capnp"
            | "smithy"
    ) || (["openapi", "swagger", "schema"]
        .iter()
        .any(|w| stem.contains(w))
        && matches!(ext, "yaml" | "yml" | "json" | "sql"))
}

/// True for a command that generates code: a word (split at `:`, `-`,
/// `_`, `.`; paths and options left out) that is `gen`, `generate`, `codegen`, `regen`,
/// `protoc`, `sqlc` … (`npm run codegen`, `make gen`, `prisma generate`,
/// `buf generate`, `pnpm gen:api`, `go generate ./...`).
pub(crate) fn is_generator(cmd: &str) -> bool {
    if is_inspection(cmd) || cmd.starts_with("git ") {
        return false;
    }
    cmd.split_whitespace()
        .take_while(|w| !matches!(*w, "&&" | "||" | ";" | "|"))
        // options and paths (`gen/x.ts`) name no generator
        .filter(|w| !w.starts_with('-') && !w.contains('/'))
        .flat_map(|w| w.split([':', '-', '_', '/', '.']))
        .any(|p| {
            matches!(
                p.to_ascii_lowercase().as_str(),
                "gen"
                    | "generate"
                    | "codegen"
                    | "regen"
                    | "regenerate"
                    | "protoc"
                    | "sqlc"
                    | "orval"
            )
        })
}

impl Regen {
    /// A write tool edited `path`.
    pub(super) fn edited(&mut self, path: &str) {
        self.tick += 1;
        if is_generator_input(path) {
            let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
            self.input = Some((name.to_string(), self.tick));
        }
    }

    /// Command `cmd` (normalized) ran successfully.
    pub(super) fn ran(&mut self, cmd: &str) {
        self.tick += 1;
        if !is_generator(cmd) {
            return;
        }
        match &self.input {
            Some((name, at)) if *at > self.last_gen => {
                self.after.insert(cmd.to_string(), name.clone());
            }
            _ => {
                self.after.remove(cmd);
            }
        }
        self.last_gen = self.tick;
    }

    /// The input edited before generator `cmd` last ran, if any.
    pub(super) fn input_of(&self, cmd: &str) -> Option<&str> {
        self.after.get(cmd).map(String::as_str)
    }
}

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
        let out_l = super::lower(mem_core::truncate::floor_to_bytes(&f.output, 4096));
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
            for k in super::command_keywords(&sb) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generators_and_their_inputs() {
        for p in [
            "schema.graphql",
            "/x/api/openapi.yaml",
            "proto/user.proto",
            "prisma/schema.prisma",
            "api/swagger.json",
            "db/schema.sql",
            "idl/svc.thrift",
        ] {
            assert!(is_generator_input(p), "{p}");
        }
        for p in [
            "src/app.ts",
            "README.md",
            "package.json",
            "schema",
            "x.yaml",
        ] {
            assert!(!is_generator_input(p), "{p}");
        }
        for c in [
            "npm run codegen",
            "make gen",
            "npx prisma generate",
            "buf generate",
            "pnpm gen:api",
            "go generate ./...",
            "python -m grpc_tools.protoc -I. x.proto",
            "sqlc generate",
        ] {
            assert!(is_generator(c), "{c}");
        }
        for c in [
            "npm run build",
            "cat generated.ts",
            "git add gen/x.ts",
            "make test",
        ] {
            assert!(!is_generator(c), "{c}");
        }
    }
}
