//! The lossy-overflow model, shared by `tests/common` and `fuzz/src/checks.rs`.

/// The index, in the decoded bytes, of the first byte whose lossy output does not fit in
/// `room` bytes (`None` when all fits). The bytes of a valid character count one by one; a
/// maximal invalid subsequence counts as one unit of three bytes, charged to its first byte.
pub fn lossy_overflow(bytes: &[u8], room: usize) -> Option<usize> {
    let (mut index, mut written) = (0, 0);
    for chunk in bytes.utf8_chunks() {
        for _ in chunk.valid().bytes() {
            if written + 1 > room {
                return Some(index);
            }
            written += 1;
            index += 1;
        }
        if !chunk.invalid().is_empty() {
            if written + 3 > room {
                return Some(index);
            }
            written += 3;
            index += chunk.invalid().len();
        }
    }
    None
}
