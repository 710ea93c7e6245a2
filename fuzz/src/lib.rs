//! Differential fuzzing of pctenc: [`input`] turns the fuzzer's bytes into cases (sets,
//! options, split points, inputs), and [`checks`] runs pctenc on them two ways that must
//! agree. The targets in `fuzz_targets/` join the two.

pub mod checks;
pub mod input;
