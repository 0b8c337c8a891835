//! "After editing `schema.graphql`, run `npm run codegen`": a build or a
//! test fails after a generator's input (a GraphQL schema, an OpenAPI
//! document, a `.proto`, `schema.prisma`) was edited, the generator runs,
//! and the build or test passes. The lesson is about the edited file, not
//! about every later build: it fires on the file's name.

use super::options::FastMap;
use crate::command::is_inspection;

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
