//! `Display` of a [`RaggedTensor`]: its dtype and partial shape, then its rows nested by axis
//! (`f32[4, ?] [[1.0, 2.0, 3.0], [], [4.0, 5.0], [6.0]]`). As NumPy prints arrays: whole up to
//! 1000 elements in all; above that, summarised, each axis longer than six entries (rows, or
//! entries of a row) as its first and last three around `...`. The rows of the flat values are
//! written by core's [`write_nested_summarised`], shared with every tensor's `Display`.

use std::fmt;

use super::{RaggedTensor, splits_of};
use crate::TensorLike;
use crate::batch::slice_rows;
use crate::tensor::{EDGE_ITEMS, summarises, write_nested_summarised};

impl fmt::Display for RaggedTensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{} ", self.dtype(), TensorLike::shape(self))?;
        let levels: Vec<Vec<i64>> = self
            .nested_row_splits
            .iter()
            .map(|s| splits_of(s).into_owned())
            .collect();
        let nrows = self.nrows();
        let summarise = summarises(self.flat_values.len());
        write_rows(self, &levels, summarise, 0, 0, nrows, f)
    }
}

/// Rows `start..end` of partition `level`, as a list (summarised or whole, as `summarise`).
fn write_rows(
    r: &RaggedTensor,
    levels: &[Vec<i64>],
    summarise: bool,
    level: usize,
    start: usize,
    end: usize,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    let Some(splits) = levels.get(level) else {
        // Below the last partition: rows of the flat values.
        let Ok(rows) = slice_rows(&r.flat_values, start, end) else {
            return f.write_str("<invalid rows>");
        };
        return write_nested_summarised(&rows.view(), None, summarise, f);
    };
    f.write_str("[")?;
    let n = end - start;
    for (k, i) in (start..end).enumerate() {
        if summarise && n > 2 * EDGE_ITEMS && (EDGE_ITEMS..n - EDGE_ITEMS).contains(&k) {
            if k == EDGE_ITEMS {
                f.write_str(", ...")?;
            }
            continue;
        }
        if k > 0 {
            f.write_str(", ")?;
        }
        let (s, e) = (splits[i] as usize, splits[i + 1] as usize);
        write_rows(r, levels, summarise, level + 1, s, e, f)?;
    }
    f.write_str("]")
}
