//! The convenience API: sizing decoded output (`decoded_len`, `DecodeError::needed`), one-call
//! text decoding against the `percent-encoding` and `urlencoding` crates, sets by name, the
//! `Debug` form of `Decoder`, how sets are passed, lossy UTF-16 encoding, query
//! strings with a leading `?` (web-platform-tests' `URLSearchParams` constructor cases), and
//! the `keep` / `escape` set builders.
//!
//! `PROPTEST_CASES` sets the number of cases of every property (defaults below).

mod common;

use common::cases;
use pctenc::{Set, sets};
use proptest::prelude::*;

fn config(default: u32) -> ProptestConfig {
    ProptestConfig { cases: cases(default), failure_persistence: None, ..ProptestConfig::default() }
}

// ---------------------------------------------------------------------------------------
// Building sets: `Set::keep`, `Set::escape`

proptest! {
    #![proptest_config(config(500))]

    #[test]
    fn keep_and_escape_are_remove_and_add_byte_by_byte(set in common::any_set(), bytes in prop::collection::vec(any::<u8>(), 0..12)) {
        let kept = bytes.iter().fold(set, |s, &b| s.remove(b));
        let escaped = bytes.iter().fold(set, |s, &b| s.add(b));
        prop_assert_eq!(set.keep(&bytes), kept);
        prop_assert_eq!(set.escape(&bytes), escaped);
        for b in 0..=255u8 {
            let named = bytes.contains(&b) && b < 0x80;
            prop_assert_eq!(set.keep(&bytes).contains(b), if named { false } else { set.contains(b) });
            prop_assert_eq!(set.escape(&bytes).contains(b), if named { true } else { set.contains(b) });
        }
        // The rules are unchanged.
        prop_assert_eq!(set.escape(&bytes).is_iri(), set.is_iri());
    }
}

#[test]
fn keep_and_escape_build_constants() {
    const PATH_SEGMENTS: Set = sets::RFC3986.keep(b"/@:");
    const STRICT: Set = sets::COMPONENT.escape(b"!'()*");
    assert_eq!(PATH_SEGMENTS, Set::keeping(b"-._~/@:"));
    assert_eq!(STRICT, sets::RFC3986);
    assert_eq!(sets::C0_CONTROL.escape(b" \"<>`"), sets::FRAGMENT);
    assert_eq!(sets::NON_ALPHANUMERIC.keep(b"-._~"), sets::RFC3986);
    // Non-ASCII bytes change nothing, as with add and remove.
    assert_eq!(sets::RFC3986.keep(b"\xC3\xA9"), sets::RFC3986);
    assert_eq!(sets::RFC3986.with_iri(true).escape(b"\xFF"), sets::RFC3986.with_iri(true));
    assert_eq!(pctenc::encode("a b/c@d", &PATH_SEGMENTS), "a%20b/c@d");
}
