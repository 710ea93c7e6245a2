//! The UTF-8 step of decoding: strict validation and `String::from_utf8_lossy`'s
//! replacement rule (each maximal invalid subsequence becomes one U+FFFD), without
//! allocating.

/// U+FFFD REPLACEMENT CHARACTER in UTF-8.
pub(crate) const REPLACEMENT: &[u8; 3] = b"\xEF\xBF\xBD";

/// Where `bytes` stop being valid UTF-8.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Utf8End {
    /// All valid.
    Valid,
    /// An invalid sequence starts at this index.
    Invalid(usize),
    /// Valid up to this index, then a sequence that more input could complete.
    Incomplete(usize),
}

/// Whether `bytes` are valid UTF-8, by the SIMD validator (the common case, so it is the
/// fast one).
#[inline]
pub(crate) fn is_valid(bytes: &[u8]) -> bool {
    simdutf8::basic::from_utf8(bytes).is_ok()
}

pub(crate) fn check(bytes: &[u8]) -> Utf8End {
    if is_valid(bytes) {
        return Utf8End::Valid;
    }
    // Invalid: the slower validator that says where and why.
    match simdutf8::compat::from_utf8(bytes) {
        Ok(_) => Utf8End::Valid,
        Err(e) if e.error_len().is_some() => Utf8End::Invalid(e.valid_up_to()),
        Err(e) => Utf8End::Incomplete(e.valid_up_to()),
    }
}

/// `String::from_utf8_lossy`, with the SIMD validator's fast answer for valid input.
#[cfg(feature = "alloc")]
pub(crate) fn lossy(bytes: &[u8]) -> alloc::borrow::Cow<'_, str> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(s) => alloc::borrow::Cow::Borrowed(s),
        Err(_) => alloc::string::String::from_utf8_lossy(bytes),
    }
}

/// The length of `bytes` after lossy replacement, and whether anything is replaced.
pub(crate) fn lossy_len(bytes: &[u8]) -> (Option<usize>, bool) {
    if is_valid(bytes) {
        return (Some(bytes.len()), false);
    }
    let mut len = Some(0usize);
    let mut replaced = false;
    for chunk in bytes.utf8_chunks() {
        let invalid = if chunk.invalid().is_empty() { 0 } else { REPLACEMENT.len() };
        replaced |= invalid != 0;
        len = len.and_then(|n| n.checked_add(chunk.valid().len())?.checked_add(invalid));
    }
    (len, replaced)
}

/// Replaces each maximal invalid subsequence of `buf[..len]` by U+FFFD, in place, using the
/// rest of `buf` as room to grow. Returns the new length, or `Err(needed)` when `buf` is too
/// small (then `buf[..len]` is unchanged).
pub(crate) fn lossy_in_place(buf: &mut [u8], len: usize) -> Result<usize, usize> {
    let (total, replaced) = lossy_len(&buf[..len]);
    if !replaced {
        return Ok(len);
    }
    let total = total.unwrap_or(usize::MAX);
    if total > buf.len() {
        return Err(total);
    }
    // Move the data to the end of `buf`, then rewrite it from the front. Each replacement
    // grows the data by at most two bytes, and all growth together is at most
    // `buf.len() - len`, so the write position never passes the read position.
    let shift = buf.len() - len;
    buf.copy_within(..len, shift);
    let (mut read, mut written) = (shift, 0);
    while read < buf.len() {
        let (valid, bad) = match core::str::from_utf8(&buf[read..]) {
            Ok(s) => (s.len(), 0),
            Err(e) => (e.valid_up_to(), e.error_len().unwrap_or(buf.len() - read - e.valid_up_to())),
        };
        buf.copy_within(read..read + valid, written);
        written += valid;
        read += valid + bad;
        if bad != 0 {
            buf[written..written + 3].copy_from_slice(REPLACEMENT);
            written += 3;
        }
    }
    debug_assert_eq!(written, total);
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lossy_in_place_matches_from_utf8_lossy() {
        let cases: &[&[u8]] = &[
            b"",
            b"abc",
            b"\xE2\x82",
            b"\xC0\xAF",
            b"\xED\xA0\x80",
            b"\xF4\x90\x80\x80",
            b"a\xFFb\xFF\xFFc",
            b"\xE2\x82\xAC\xE2\x82",
            b"\x80\x80\x80\x80\x80",
        ];
        for &case in cases {
            let want = String::from_utf8_lossy(case).into_owned().into_bytes();
            let mut buf = case.to_vec();
            buf.resize(case.len() * 3, 0xAA);
            let n = lossy_in_place(&mut buf, case.len()).unwrap();
            assert_eq!(&buf[..n], &want[..], "{case:?}");
            // Exactly enough room works, one byte less does not and leaves the input alone.
            let mut exact = case.to_vec();
            exact.resize(want.len().max(case.len()), 0);
            assert_eq!(lossy_in_place(&mut exact, case.len()), Ok(want.len()));
            if want.len() > case.len() {
                let mut short = case.to_vec();
                short.resize(want.len() - 1, 0);
                assert_eq!(lossy_in_place(&mut short, case.len()), Err(want.len()));
                assert_eq!(&short[..case.len()], case);
            }
        }
    }
}
