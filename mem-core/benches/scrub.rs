//! The scrubber's secret search on the texts extraction feeds it (a user
//! message, a command, a message holding a 40-character token), and the
//! making of a scrubber: run with `cargo bench -p mem-core --bench scrub`.

use divan::{Bencher, black_box};
use mem_core::scrub::Scrubber;

fn main() {
    divan::main();
}

/// A user message of the usual shape and length, no secret in it.
const MESSAGE: &str = "Please don't mock the database in integration tests, the key \
    point is that the migrations run against the real schema. context context context \
    context context context context context context context context context context";

/// A command the agent runs.
const COMMAND: &str = "cargo nextest run -p mem-extract --no-fail-fast";

/// A message with a bare 40-character key in it.
const TOKEN: &str = "the key is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY for the staging bucket";

#[divan::bench(args = [MESSAGE, COMMAND, TOKEN])]
fn find_secrets(b: Bencher, text: &str) {
    let sc = Scrubber::new(None);
    b.bench(|| sc.find_secrets(black_box(text)));
}

#[divan::bench(args = [MESSAGE, COMMAND, TOKEN])]
fn scrub(b: Bencher, text: &str) {
    let sc = Scrubber::new(None);
    b.bench(|| sc.scrub(black_box(text)));
}

/// A scrubber with the default rules (regexes compiled when first needed).
#[divan::bench]
fn new_scrubber() -> Scrubber {
    Scrubber::new(black_box(None))
}
