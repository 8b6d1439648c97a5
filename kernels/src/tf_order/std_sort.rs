//! libstdc++'s `std::sort` (introsort), step for step: the order TensorFlow leaves equal keys in.
//!
//! TensorFlow sorts the entries of a SparseTensor with `std::sort` (`SparseTensor::Reorder`,
//! behind `tf.sparse.reorder`, `tf.sparse.transpose` and the sparse reductions). `std::sort` is
//! not stable: from 17 entries on, repeated indices come out in an order its partitioning
//! decides, and that order is visible (which value of a repeated index comes first, how a sum of
//! their values rounds). On random inputs with repeated indices (17 to 200 entries), a stable
//! sort gave other results than TensorFlow 2.21 for 99 of 100 `tf.sparse.reorder`s and 141 of
//! 150 `reduce_sum`s; this one gave TensorFlow's for all of them (libstdc++, the C++ library of
//! its Linux builds).
//!
//! The steps: while a range holds more than 16 elements, the median of its second, middle and
//! last elements moves to its front and the rest is partitioned around it (Hoare, unguarded),
//! the right part sorted first; after `2 × ⌊log₂ n⌋` levels a range is heap-sorted instead. Then
//! one insertion sort over the whole array. The loops that C++ leaves unguarded (they rely on a
//! sentinel) are bounded here by the slice as well, which changes nothing for a consistent
//! comparison.

/// Ranges of at most this many elements are left to the final insertion sort.
const THRESHOLD: usize = 16;

/// Sorts `a` by `less` exactly as libstdc++'s `std::sort` does.
pub fn std_sort<T: Copy>(a: &mut [T], less: impl Fn(&T, &T) -> bool) {
    let n = a.len();
    if n < 2 {
        return;
    }
    introsort(a, 0, n, 2 * n.ilog2() as usize, &less);
    if n > THRESHOLD {
        insertion_sort(a, 0, THRESHOLD, &less);
        for i in THRESHOLD..n {
            linear_insert(a, i, &less);
        }
    } else {
        insertion_sort(a, 0, n, &less);
    }
}

fn introsort<T: Copy>(
    a: &mut [T],
    first: usize,
    mut last: usize,
    mut depth: usize,
    less: &impl Fn(&T, &T) -> bool,
) {
    while last - first > THRESHOLD {
        if depth == 0 {
            heap_sort(&mut a[first..last], less);
            return;
        }
        depth -= 1;
        let mid = first + (last - first) / 2;
        median_to_first(a, first, first + 1, mid, last - 1, less);
        let cut = partition(a, first + 1, last, first, less);
        introsort(a, cut, last, depth, less);
        last = cut;
    }
}

/// Moves the median of `a[x]`, `a[y]`, `a[z]` to `a[result]` (swapping).
fn median_to_first<T: Copy>(
    a: &mut [T],
    result: usize,
    x: usize,
    y: usize,
    z: usize,
    less: &impl Fn(&T, &T) -> bool,
) {
    let pick = if less(&a[x], &a[y]) {
        if less(&a[y], &a[z]) {
            y
        } else if less(&a[x], &a[z]) {
            z
        } else {
            x
        }
    } else if less(&a[x], &a[z]) {
        x
    } else if less(&a[y], &a[z]) {
        z
    } else {
        y
    };
    a.swap(result, pick);
}

/// Partitions `a[first..last]` around the pivot at `a[pivot]`; returns the cut.
fn partition<T: Copy>(
    a: &mut [T],
    mut first: usize,
    mut last: usize,
    pivot: usize,
    less: &impl Fn(&T, &T) -> bool,
) -> usize {
    loop {
        while first + 1 < a.len() && less(&a[first], &a[pivot]) {
            first += 1;
        }
        last -= 1;
        while last > pivot && less(&a[pivot], &a[last]) {
            last -= 1;
        }
        if first >= last {
            return first;
        }
        a.swap(first, last);
        first += 1;
    }
}

fn insertion_sort<T: Copy>(a: &mut [T], first: usize, last: usize, less: &impl Fn(&T, &T) -> bool) {
    for i in first + 1..last {
        if less(&a[i], &a[first]) {
            let v = a[i];
            a.copy_within(first..i, first + 1);
            a[first] = v;
        } else {
            linear_insert(a, i, less);
        }
    }
}

/// Moves `a[last]` back past the elements greater than it.
fn linear_insert<T: Copy>(a: &mut [T], mut last: usize, less: &impl Fn(&T, &T) -> bool) {
    let v = a[last];
    while last > 0 && less(&v, &a[last - 1]) {
        a[last] = a[last - 1];
        last -= 1;
    }
    a[last] = v;
}

/// `std::make_heap` then `std::sort_heap`.
fn heap_sort<T: Copy>(a: &mut [T], less: &impl Fn(&T, &T) -> bool) {
    let n = a.len();
    if n >= 2 {
        let mut parent = (n - 2) / 2;
        loop {
            let v = a[parent];
            adjust_heap(a, parent, n, v, less);
            if parent == 0 {
                break;
            }
            parent -= 1;
        }
    }
    let mut last = n;
    while last > 1 {
        last -= 1;
        let v = a[last];
        a[last] = a[0];
        adjust_heap(a, 0, last, v, less);
    }
}

/// `std::__adjust_heap`: sifts the hole at `hole` down to a leaf, then `value` up from there.
fn adjust_heap<T: Copy>(
    a: &mut [T],
    mut hole: usize,
    len: usize,
    value: T,
    less: &impl Fn(&T, &T) -> bool,
) {
    let top = hole;
    let mut child = hole;
    while child < (len - 1) / 2 {
        child = 2 * (child + 1);
        if less(&a[child], &a[child - 1]) {
            child -= 1;
        }
        a[hole] = a[child];
        hole = child;
    }
    if len.is_multiple_of(2) && child == (len - 2) / 2 {
        child = 2 * (child + 1);
        a[hole] = a[child - 1];
        hole = child - 1;
    }
    while hole > top {
        let parent = (hole - 1) / 2;
        if !less(&a[parent], &value) {
            break;
        }
        a[hole] = a[parent];
        hole = parent;
    }
    a[hole] = value;
}

#[cfg(test)]
mod tests {
    use super::std_sort;

    fn xorshift(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    /// It sorts, at every size, on few distinct keys (where ties abound) and on many, and down
    /// the heap-sort path (a depth limit of 0 from the start is what a deep recursion reaches).
    #[test]
    fn sorts() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for n in 0..400 {
            for distinct in [3u64, 1 << 20] {
                let keys: Vec<u64> = (0..n).map(|_| xorshift(&mut state) % distinct).collect();
                let mut order: Vec<usize> = (0..n).collect();
                std_sort(&mut order, |&i, &j| keys[i] < keys[j]);
                assert!(
                    order.windows(2).all(|w| keys[w[0]] <= keys[w[1]]),
                    "n = {n}"
                );
                let mut seen = order.clone();
                seen.sort_unstable();
                assert_eq!(seen, (0..n).collect::<Vec<_>>());
                let mut heap = order.clone();
                heap.reverse();
                super::heap_sort(&mut heap, &|&i: &usize, &j: &usize| keys[i] < keys[j]);
                assert!(
                    heap.windows(2).all(|w| keys[w[0]] <= keys[w[1]]),
                    "heap, n = {n}"
                );
            }
        }
    }

    /// libstdc++'s order of equal keys (what GCC 12's `std::sort` of positions by these keys
    /// prints), as TensorFlow's `tf.sparse.reorder` leaves the values of repeated indices: up to
    /// 16 elements the sort is an insertion sort (stable), beyond it the partitions move equal
    /// keys.
    #[test]
    fn leaves_equal_keys_as_libstdcxx() {
        let keys = [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0];
        let mut order: Vec<usize> = (0..16).collect();
        std_sort(&mut order, |&i, &j| keys[i] < keys[j]);
        assert_eq!(
            order,
            [1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10, 12, 14]
        );
        let keys: Vec<usize> = (0..20).map(|k| k % 2).collect();
        let mut order: Vec<usize> = (0..20).collect();
        std_sort(&mut order, |&i, &j| keys[i] < keys[j]);
        let want = [
            0, 2, 18, 4, 6, 16, 8, 10, 14, 12, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1,
        ];
        assert_eq!(order, want);
        let keys: Vec<usize> = (0..40).map(|k| k * 7 % 3).collect();
        let mut order: Vec<usize> = (0..40).collect();
        std_sort(&mut order, |&i, &j| keys[i] < keys[j]);
        let want = [
            0, 21, 18, 24, 15, 27, 12, 30, 9, 33, 6, 36, 3, 39, 31, 34, 28, 37, 25, 22, 1, 19, 16,
            4, 13, 7, 10, 2, 20, 38, 5, 35, 8, 32, 11, 29, 14, 26, 17, 23,
        ];
        assert_eq!(order, want);
    }
}
