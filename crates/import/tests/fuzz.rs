//! Property tests: the PGN importer takes any bytes (real games cut, spliced and mangled)
//! without panicking. `PROPTEST_CASES=10000 cargo test --release --test fuzz` runs it
//! longer than CI does.

use proptest::prelude::*;
use texel_import::{import_pgn, ImportOptions};

/// The shipped test games.
const GAMES: &str = include_str!("games.pgn");

/// Real PGN text cut at a byte, with a run of bytes replaced and another game's text after.
fn mangled() -> impl Strategy<Value = Vec<u8>> {
    let n = GAMES.len();
    (0..n, 0..n, any::<Vec<u8>>(), 0..n).prop_map(|(cut, at, noise, from)| {
        let mut bytes = GAMES.as_bytes()[..cut].to_vec();
        let at = at.min(bytes.len());
        let end = (at + noise.len()).min(bytes.len());
        bytes.splice(at..end, noise);
        bytes.extend_from_slice(&GAMES.as_bytes()[from..]);
        bytes
    })
}

/// Imports `bytes` as a PGN file; any outcome but a panic is fine.
fn import(bytes: &[u8]) {
    let dir = tempfile::tempdir().unwrap();
    let (input, out) = (dir.path().join("in.pgn"), dir.path().join("out.epd"));
    std::fs::write(&input, bytes).unwrap();
    let options = ImportOptions {
        per_game: 2,
        ..ImportOptions::default()
    };
    let _ = import_pgn(&input, &out, &options, &|_| {});
}

proptest! {
    #![proptest_config(ProptestConfig { cases: ProptestConfig::default().cases / 8, ..ProptestConfig::default() })]

    #[test]
    fn mangled_games_import_or_fail_cleanly(bytes in mangled()) {
        import(&bytes);
    }

    #[test]
    fn any_bytes_import_or_fail_cleanly(bytes in any::<Vec<u8>>()) {
        import(&bytes);
    }
}
