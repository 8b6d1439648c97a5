//! Interleaved timing for the benches' summaries: each function runs once per round, in turn,
//! so machine noise hits all alike, and the medians of one run compare.

use std::time::Instant;

/// Median time of one call of each of `fs`, over `rounds` rounds that run them in turn (so
/// machine noise hits all alike).
pub fn medians(rounds: usize, fs: &mut [&mut dyn FnMut()]) -> Vec<f64> {
    let mut times: Vec<Vec<f64>> = fs.iter().map(|_| Vec::with_capacity(rounds)).collect();
    for _ in 0..rounds {
        for (f, t) in fs.iter_mut().zip(times.iter_mut()) {
            let start = Instant::now();
            f();
            t.push(start.elapsed().as_secs_f64() * 1e9);
        }
    }
    for t in &mut times {
        t.sort_by(f64::total_cmp);
    }
    times.iter().map(|t| t[rounds / 2]).collect()
}
