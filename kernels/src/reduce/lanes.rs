//! The virtual-lane reduction engine: `L` independent accumulators walked over `L`-element
//! rows, then folded pairwise (lane `j` with lane `j + L/2`, halving). The association order
//! is fixed by `L` alone, so every backend computes the same bits; LLVM maps the `L` lanes onto
//! however many registers of its width it needs. Inlined into the backend's target-feature
//! wrapper, it vectorises to one load and one vector op per register per row.

/// Reduces `xs` with `L` virtual lanes. Tail elements (fewer than `L`) go to lanes `0..tail`.
#[inline(always)]
pub(crate) fn lanes<const L: usize, X: Copy, A: Copy>(
    xs: &[X],
    init: A,
    step: impl Fn(A, X) -> A,
    merge: impl Fn(A, A) -> A,
) -> A {
    let mut acc = [init; L];
    let mut rows = xs.chunks_exact(L);
    for row in &mut rows {
        for j in 0..L {
            acc[j] = step(acc[j], row[j]);
        }
    }
    for (j, &x) in rows.remainder().iter().enumerate() {
        acc[j] = step(acc[j], x);
    }
    fold_lanes(acc, merge)
}

/// Like [`lanes`] over `xs` and a same-length mask: masked-off elements are replaced by
/// `fill` (the step's identity) before the step, so every lane sees the same sequence.
#[inline(always)]
pub(crate) fn lanes_masked<const L: usize, X: Copy, A: Copy>(
    xs: &[X],
    mask: &[bool],
    fill: X,
    init: A,
    step: impl Fn(A, X) -> A,
    merge: impl Fn(A, A) -> A,
) -> A {
    let n = xs.len().min(mask.len());
    let (xs, mask) = (&xs[..n], &mask[..n]);
    let mut acc = [init; L];
    let mut rows = xs.chunks_exact(L);
    let mut mrows = mask.chunks_exact(L);
    for (row, mrow) in (&mut rows).zip(&mut mrows) {
        for j in 0..L {
            acc[j] = step(acc[j], if mrow[j] { row[j] } else { fill });
        }
    }
    for (j, (&x, &m)) in rows.remainder().iter().zip(mrows.remainder()).enumerate() {
        acc[j] = step(acc[j], if m { x } else { fill });
    }
    fold_lanes(acc, merge)
}

/// Pairwise fold of the lanes: `L/2` merges of lane `j` with `j + L/2`, then `L/4`, … .
#[inline(always)]
fn fold_lanes<const L: usize, A: Copy>(mut acc: [A; L], merge: impl Fn(A, A) -> A) -> A {
    let mut width = L;
    while width > 1 {
        width /= 2;
        for j in 0..width {
            acc[j] = merge(acc[j], acc[j + width]);
        }
    }
    acc[0]
}
