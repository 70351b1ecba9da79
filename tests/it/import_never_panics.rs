//! Every import parser takes arbitrary bytes, and mutated tool outputs, without panicking:
//! bad input is an error or a skipped line, never a crash.
//!
//! The seeds are every fixture file `optics import` recognises, and the parsers tried are
//! every format recognised among them: a parser lands with its cited fixture, so it is here
//! without a list to keep in step.

use optics::source::import::walk::parse_bytes;
use optics::source::import::{recognize, Format};
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Larger fixtures (captures, sysfs trees' big files) add time, not parser paths.
const SEED_MAX_BYTES: u64 = 64 << 10;

struct Corpus {
    seeds: Vec<Vec<u8>>,
    formats: Vec<Format>,
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let (path, kind) = (e.path(), e.file_type());
        match kind {
            Ok(k) if k.is_dir() => files(&path, out),
            Ok(k) if k.is_file() => out.push(path),
            _ => {}
        }
    }
}

fn corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let mut paths = Vec::new();
        files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"), &mut paths);
        paths.sort();
        let mut corpus = Corpus { seeds: Vec::new(), formats: Vec::new() };
        for p in paths {
            if std::fs::metadata(&p).map_or(true, |m| m.len() > SEED_MAX_BYTES) {
                continue;
            }
            let bytes = std::fs::read(&p).unwrap();
            if let Some(f) = recognize(&bytes) {
                if !corpus.formats.contains(&f) {
                    corpus.formats.push(f);
                }
                corpus.seeds.push(bytes);
            }
        }
        corpus
    })
}

fn all_parsers(bytes: &[u8]) {
    let _ = recognize(bytes);
    for f in &corpus().formats {
        let _ = parse_bytes(*f, bytes);
    }
}

#[test]
fn the_corpus_reaches_the_parsers() {
    // Decoded `ethtool -m` and the InfiniBand tools among them, which a hand-kept list missed.
    let c = corpus();
    for f in [Format::EthtoolModuleText, Format::Ibstat, Format::Perfquery, Format::SfputilHexdump, Format::MlxlinkAmber] {
        assert!(c.formats.contains(&f), "no fixture recognised as {f:?}");
    }
    assert!(c.formats.len() >= 30, "{} formats", c.formats.len());
}

proptest! {
    #[test]
    fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        all_parsers(&bytes);
    }

    #[test]
    fn mutated_tool_outputs(seed in any::<prop::sample::Index>(), at in any::<prop::sample::Index>(), insert in proptest::collection::vec(any::<u8>(), 0..24), text_insert in "[0-9:,/\\[\\]\\.A-Za-z\\-| ]{0,24}", cut in 0usize..40) {
        let seeds = &corpus().seeds;
        let text = &seeds[seed.index(seeds.len())];
        let i = at.index(text.len() + 1);
        let end = (i + cut).min(text.len());
        // Half the cases insert text a parser reads as tokens, half raw bytes (a truncated or
        // corrupted paste).
        let insert = if cut % 2 == 0 { text_insert.as_bytes() } else { &insert[..] };
        let mutated = [&text[..i], insert, &text[end..]].concat();
        all_parsers(&mutated);
    }
}
