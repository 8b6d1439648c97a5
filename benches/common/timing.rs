//! Interleaved timing for the benches' summaries: each function runs once per round, in turn,
//! so machine noise hits all alike, and the medians of one run compare.

use std::time::{Duration, Instant};

use criterion::Criterion;

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

/// A bench's `main`: criterion's report of `benches` (short warm-up and measurement: the
/// summary is the figure), then the interleaved `summary`.
pub fn run(benches: fn(&mut Criterion), summary: fn()) {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .configure_from_args();
    benches(&mut c);
    c.final_summary();
    summary();
}
