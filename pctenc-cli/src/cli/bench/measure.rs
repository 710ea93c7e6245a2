//! Timing several ways of doing the same work, round by round.
//!
//! Each way (a backend, `memcpy`, the parallel path) is timed once per round, in an order
//! that turns by one place each round, so that a slow moment of a shared machine (another
//! build, a frequency change) falls on every way alike instead of on whichever ran then. The
//! figure of a way is the median of its rounds, and the spread of the rounds (their median
//! absolute deviation, which one round cut short by the scheduler does not move) says how
//! much to trust it.

use std::time::{Duration, Instant};

/// Rounds at most: more only shrinks each round below what the clock measures well.
const MAX_ROUNDS: usize = 15;
/// Rounds at least, whatever the budget: a median of fewer is one sample.
const MIN_ROUNDS: usize = 3;
/// How long the first estimate of a call's time runs at least, per way.
const CALIBRATION: Duration = Duration::from_micros(50);

/// One way of doing the work: each call does it once.
pub type Work<'a> = Box<dyn FnMut() + 'a>;

/// What the rounds of one way gave: the time of one call, in nanoseconds.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    pub rounds: usize,
    /// Calls per round.
    pub calls: u64,
    pub median_ns: f64,
    /// The median absolute deviation of the rounds from their median.
    pub deviation_ns: f64,
    pub min_ns: f64,
    pub max_ns: f64,
}

impl Timing {
    /// Throughput of the median in GB/s (10^9 bytes per second) for `bytes` per call.
    pub fn gbps(&self, bytes: usize) -> f64 {
        bytes as f64 / self.median_ns.max(f64::MIN_POSITIVE)
    }

    /// The slowest and fastest rounds' throughput in GB/s.
    pub fn gbps_range(&self, bytes: usize) -> (f64, f64) {
        (bytes as f64 / self.max_ns.max(f64::MIN_POSITIVE), bytes as f64 / self.min_ns.max(f64::MIN_POSITIVE))
    }

    /// The median absolute deviation of the rounds, relative to the median: 0.03 is "±3%".
    pub fn spread(&self) -> f64 {
        self.deviation_ns / self.median_ns.max(f64::MIN_POSITIVE)
    }
}

/// Times every way of `ways` in about `budget` (at least [`MIN_ROUNDS`] calls of each),
/// interleaved round by round; the timings are in the order of `ways`.
pub fn interleaved(ways: &mut [Work<'_>], budget: Duration) -> Vec<Timing> {
    if ways.is_empty() {
        return Vec::new();
    }
    // A first estimate of each call's time, which warms the caches and the branch
    // predictors too.
    let per_call: Vec<f64> = ways.iter_mut().map(|work| estimate(work)).collect();
    let one_each: f64 = per_call.iter().sum();
    let budget_ns = budget.as_nanos() as f64;
    let rounds = ((budget_ns / one_each) as usize).clamp(MIN_ROUNDS, MAX_ROUNDS);
    // Each way gets the same share of each round, in as many calls as fill it.
    let share = budget_ns / (rounds * ways.len()) as f64;
    let calls: Vec<u64> = per_call.iter().map(|&t| ((share / t) as u64).max(1)).collect();
    let mut samples = vec![Vec::with_capacity(rounds); ways.len()];
    for round in 0..rounds {
        for k in 0..ways.len() {
            let i = (k + round) % ways.len();
            let start = Instant::now();
            for _ in 0..calls[i] {
                (ways[i])();
            }
            samples[i].push(start.elapsed().as_nanos() as f64 / calls[i] as f64);
        }
    }
    samples
        .into_iter()
        .zip(calls)
        .map(|(mut times, calls)| {
            let n = times.len();
            let middle = median(&mut times);
            let mut deviations: Vec<f64> = times.iter().map(|t| (t - middle).abs()).collect();
            let deviation = median(&mut deviations);
            Timing {
                rounds: n,
                calls,
                median_ns: middle,
                deviation_ns: deviation,
                min_ns: times[0],
                max_ns: times[n - 1],
            }
        })
        .collect()
}

/// The median of `values` (not empty), which it leaves sorted.
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 { values[n / 2] } else { (values[n / 2 - 1] + values[n / 2]) / 2.0 }
}

/// The time of one call, in nanoseconds: calls doubled until they take [`CALIBRATION`].
fn estimate(work: &mut Work<'_>) -> f64 {
    let mut calls: u64 = 1;
    loop {
        let start = Instant::now();
        for _ in 0..calls {
            work();
        }
        let elapsed = start.elapsed();
        if elapsed >= CALIBRATION || calls >= 1 << 24 {
            return (elapsed.as_nanos() as f64 / calls as f64).max(1.0);
        }
        calls *= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_slow_round_does_not_move_the_spread() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        let mut deviations = [0.0, 1.0, 1.0, 100.0, 0.0];
        assert_eq!(median(&mut deviations), 1.0);
    }

    #[test]
    fn every_way_runs_every_round() {
        let counts = [std::cell::Cell::new(0u64), std::cell::Cell::new(0u64)];
        let mut ways: Vec<Work<'_>> =
            counts.iter().map(|count| Box::new(move || count.set(count.get() + 1)) as Work<'_>).collect();
        let timings = interleaved(&mut ways, Duration::from_millis(2));
        drop(ways);
        assert_eq!(timings.len(), 2);
        for (timing, count) in timings.iter().zip(&counts) {
            assert!((MIN_ROUNDS..=MAX_ROUNDS).contains(&timing.rounds));
            assert!(timing.min_ns <= timing.median_ns && timing.median_ns <= timing.max_ns);
            // The estimate's calls, then the rounds'.
            assert!(count.get() >= timing.rounds as u64 * timing.calls);
        }
    }
}
