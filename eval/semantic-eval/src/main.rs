//! Embeds texts with the bundled MiniLM of `pocket-encoder` and times it.
//!
//! `semantic-eval embed < texts.jsonl > vectors.jsonl`: each input line
//! `{"id": .., "text": ..}` becomes `{"id": .., "vec": [384 floats]}`; stderr
//! gets the model load time and the mean time per text.
//!
//! `semantic-eval query VECTORS TASK`: what a hook would do per call with the
//! memory vectors cached at write time: load the model, embed the task, read
//! the cached vectors (384 little-endian f32 per memory, see `cache`) and
//! score them all by cosine. Prints one JSON line with the timings (ms).
//!
//! `semantic-eval distill TABLE`: a static model in the manner of
//! model2vec: every WordPiece token of the vocabulary (the `##` of a
//! continuation piece dropped) embedded alone by the MiniLM, 384 f32 each, in
//! token id order (special and unused tokens: zeros).
//!
//! `semantic-eval static-embed TABLE < texts.jsonl`: like `embed`, with the
//! mean of the static vectors of the text's tokens (normalized) in place of
//! the transformer: no model load, microseconds per text.
//!
//! `semantic-eval cache VECTORS N < texts.jsonl`: embeds the texts (repeating
//! them up to N memories) and writes the binary cache `query` reads.
use std::io::{BufRead, Read, Write};
use std::time::Instant;

fn texts() -> Vec<(serde_json::Value, String)> {
    std::io::stdin()
        .lock()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(&l.unwrap()).unwrap();
            (v["id"].clone(), v["text"].as_str().unwrap().to_string())
        })
        .collect()
}

/// The MiniLM's WordPiece tokenizer, from the `pocket-encoder` crate's
/// assets (`$POCKET_TOKENIZER`, else the cargo registry copy).
fn tokenizer() -> tokenizers::Tokenizer {
    let path = std::env::var("POCKET_TOKENIZER").unwrap_or_else(|_| {
        let home = std::env::var("CARGO_HOME")
            .unwrap_or_else(|_| format!("{}/.cargo", std::env::var("HOME").unwrap()));
        let src = std::path::Path::new(&home).join("registry/src");
        let reg = std::fs::read_dir(&src)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        reg.join("pocket-encoder-0.1.2/assets/tokenizer.json")
            .display()
            .to_string()
    });
    tokenizers::Tokenizer::from_file(path).unwrap()
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let t0 = Instant::now();
    match args.get(1).map(String::as_str) {
        Some("embed") => {
            let input = texts();
            let enc = pocket_encoder::Encoder::new().unwrap();
            let load = ms(t0);
            let t1 = Instant::now();
            let mut out = std::io::stdout().lock();
            for (id, text) in &input {
                let v = enc.embed(&[text.as_str()]).unwrap();
                writeln!(out, "{}", serde_json::json!({"id": id, "vec": v[0]})).unwrap();
            }
            eprintln!(
                "{{\"load_ms\": {load:.1}, \"texts\": {}, \"embed_ms_per_text\": {:.2}}}",
                input.len(),
                ms(t1) / input.len().max(1) as f64
            );
        }
        Some("cache") => {
            let input = texts();
            let n: usize = args[3].parse().unwrap();
            let enc = pocket_encoder::Encoder::new().unwrap();
            let mut bytes = Vec::with_capacity(n * 384 * 4);
            let t1 = Instant::now();
            for i in 0..n {
                let v = enc.embed(&[input[i % input.len()].1.as_str()]).unwrap();
                for x in &v[0] {
                    bytes.extend_from_slice(&x.to_le_bytes());
                }
            }
            std::fs::write(&args[2], bytes).unwrap();
            eprintln!(
                "{{\"memories\": {n}, \"write_time_embed_ms_per_memory\": {:.2}}}",
                ms(t1) / n as f64
            );
        }
        Some("query") => {
            let enc = pocket_encoder::Encoder::new().unwrap();
            let load = ms(t0);
            let t1 = Instant::now();
            let q = enc.embed(&[args[3].as_str()]).unwrap().remove(0);
            let embed = ms(t1);
            let t2 = Instant::now();
            let mut raw = Vec::new();
            std::fs::File::open(&args[2])
                .unwrap()
                .read_to_end(&mut raw)
                .unwrap();
            let best = raw
                .chunks_exact(384 * 4)
                .map(|m| {
                    m.chunks_exact(4)
                        .zip(&q)
                        .map(|(b, y)| f32::from_le_bytes(b.try_into().unwrap()) * y)
                        .sum::<f32>()
                })
                .fold(f32::MIN, f32::max);
            let score = ms(t2);
            println!(
                "{}",
                serde_json::json!({"load_ms": load, "embed_task_ms": embed,
                    "score_ms": score, "total_ms": ms(t0), "best": best})
            );
        }
        Some("distill") => {
            let tok = tokenizer();
            let enc = pocket_encoder::Encoder::new().unwrap();
            let n = tok.get_vocab_size(true);
            let mut bytes = Vec::with_capacity(n * 384 * 4);
            for id in 0..n as u32 {
                let t = tok.id_to_token(id).unwrap_or_default();
                let text = t.trim_start_matches("##");
                let v = if t.starts_with('[') || text.trim().is_empty() {
                    vec![0.0f32; 384]
                } else {
                    enc.embed(&[text]).unwrap().remove(0)
                };
                for x in &v {
                    bytes.extend_from_slice(&x.to_le_bytes());
                }
            }
            std::fs::write(&args[2], bytes).unwrap();
            eprintln!("{{\"tokens\": {n}, \"distill_ms\": {:.0}}}", ms(t0));
        }
        Some("static-embed") => {
            let input = texts();
            let tok = tokenizer();
            let raw = std::fs::read(&args[2]).unwrap();
            let table: Vec<f32> = raw
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                .collect();
            let load = ms(t0);
            let t1 = Instant::now();
            let mut out = std::io::stdout().lock();
            for (id, text) in &input {
                let ids = tok.encode(text.as_str(), false).unwrap().get_ids().to_vec();
                let mut v = vec![0.0f32; 384];
                for i in ids {
                    let row = &table[i as usize * 384..(i as usize + 1) * 384];
                    v.iter_mut().zip(row).for_each(|(a, b)| *a += b);
                }
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-9);
                v.iter_mut().for_each(|x| *x /= norm);
                writeln!(out, "{}", serde_json::json!({"id": id, "vec": v})).unwrap();
            }
            eprintln!(
                "{{\"load_ms\": {load:.1}, \"texts\": {}, \"embed_ms_per_text\": {:.3}}}",
                input.len(),
                ms(t1) / input.len().max(1) as f64
            );
        }
        _ => {
            eprintln!("usage: semantic-eval embed|cache VECTORS N|query VECTORS TASK");
            std::process::exit(2);
        }
    }
}
