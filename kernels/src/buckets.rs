//! A counting sort: positions grouped by a small integer key (a bucket), in their order within
//! a bucket, in `O(n + buckets)`. What sparse values use to group their entries by row, item or
//! output element.

use crate::error::{KernelError, Result};

/// Positions grouped by bucket: bucket `b` holds `order[starts[b]..starts[b + 1]]`, in the
/// order the positions came.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buckets {
    /// Where each bucket starts in `order` (`buckets + 1` entries, the last `order.len()`).
    pub starts: Vec<usize>,
    /// The positions, bucket by bucket.
    pub order: Vec<usize>,
}

impl Buckets {
    /// The positions of bucket `b` (empty for a bucket past the last).
    pub fn of(&self, b: usize) -> &[usize] {
        match (self.starts.get(b), self.starts.get(b + 1)) {
            (Some(&s), Some(&e)) => &self.order[s..e],
            _ => &[],
        }
    }
}

/// Groups the positions `0..` of `keys()` by key (`None`: a position left out), for keys below
/// `buckets`: [`starts`], then [`place`]. `keys` is called twice and must give the same keys
/// both times.
///
/// ```
/// use extype_kernels::buckets::group;
/// let keys = [Some(2), None, Some(0), Some(2)];
/// let b = group("demo", || keys.iter().copied(), 3).unwrap();
/// assert_eq!(b.starts, [0, 1, 1, 3]);
/// assert_eq!(b.order, [2, 0, 3]);
/// assert_eq!(b.of(2), [0, 3]);
/// assert!(group("demo", || [Some(3)].into_iter(), 3).is_err());
/// ```
pub fn group<I: Iterator<Item = Option<usize>>>(
    op: &'static str,
    keys: impl Fn() -> I,
    buckets: usize,
) -> Result<Buckets> {
    let starts = starts(op, keys(), buckets)?;
    let order = place(op, keys(), &starts)?;
    Ok(Buckets { starts, order })
}

/// Where each bucket starts when the positions of `keys` are grouped by key (the counting
/// pass): `buckets + 1` entries. A key at or above `buckets`, or starts that cannot be
/// allocated, is an error of `op`.
pub fn starts(
    op: &'static str,
    keys: impl Iterator<Item = Option<usize>>,
    buckets: usize,
) -> Result<Vec<usize>> {
    let too_large = || KernelError::Argument {
        op,
        arg: "buckets",
        expected: "bucket starts that fit in memory".into(),
        found: format!("{buckets} buckets"),
    };
    let len = buckets.checked_add(1).ok_or_else(too_large)?;
    let mut starts = Vec::new();
    starts.try_reserve_exact(len).map_err(|_| too_large())?;
    starts.resize(len, 0usize);
    for (k, b) in keys.enumerate() {
        match b {
            Some(b) if b < buckets => starts[b + 1] += 1,
            Some(b) => {
                return Err(KernelError::Argument {
                    op,
                    arg: "keys",
                    expected: format!("keys below {buckets}"),
                    found: format!("key {b} at position {k}"),
                });
            }
            None => {}
        }
    }
    for b in 0..buckets {
        starts[b + 1] += starts[b];
    }
    Ok(starts)
}

/// The positions of `keys` grouped by key, in their order within a key (the placing pass), by
/// `starts` made from the same keys. Keys that do not fit `starts` are an error of `op`.
pub fn place(
    op: &'static str,
    keys: impl Iterator<Item = Option<usize>>,
    starts: &[usize],
) -> Result<Vec<usize>> {
    let mismatch = || KernelError::Argument {
        op,
        arg: "keys",
        expected: "the keys the bucket starts were counted from".into(),
        found: "other keys".into(),
    };
    let mut next = starts.to_vec();
    let mut order = vec![0usize; starts.last().copied().unwrap_or(0)];
    for (k, b) in keys.enumerate() {
        if let Some(b) = b {
            let bucket_end = *starts.get(b + 1).ok_or_else(mismatch)?;
            let slot = next.get_mut(b).ok_or_else(mismatch)?;
            if *slot >= bucket_end {
                return Err(mismatch());
            }
            order[*slot] = k;
            *slot += 1;
        }
    }
    Ok(order)
}
