//! The iteration engine shared by every elementwise kernel: contiguous slices go to a
//! vectorised map (split across threads in fixed chunks when large); other layouts go lane by
//! lane along the innermost axis, each lane vectorised when its stride is 1 (or 0: a broadcast
//! scalar).

use std::alloc::{Layout, handle_alloc_error};
use std::collections::TryReserveError;
use std::mem::MaybeUninit;

use crate::layout::normalize;
use crate::parallel::{self, PAR_CHUNK_ELEMS, advise_huge_pages, use_parallel_output};
use crate::simd::{Kernel, Simd, dispatch};
use ndarray::{ArrayD, ArrayView1, ArrayViewD, ArrayViewMut1, Axis, IxDyn, Zip};

/// Elements per unrolled block of the map kernels.
const UNROLL: usize = 64;

/// `dst[i] = f(src[i])`.
struct Map1<'a, T, U, F> {
    src: &'a [T],
    dst: &'a mut [MaybeUninit<U>],
    f: F,
}

impl<T: Copy, U, F: Fn(T) -> U> Kernel for Map1<'_, T, U, F> {
    type Output = ();
    #[inline(always)]
    fn run<S: Simd>(self) {
        let f = self.f;
        let n = self.dst.len().min(self.src.len());
        let (dst, src) = (&mut self.dst[..n], &self.src[..n]);
        // Blocks of 64 independent elements: the vectorised body has four registers in flight,
        // which hides the latency of long dependency chains (exp, sigmoid).
        let mut dst_blocks = dst.chunks_exact_mut(UNROLL);
        let mut src_blocks = src.chunks_exact(UNROLL);
        for (d, s) in (&mut dst_blocks).zip(&mut src_blocks) {
            for j in 0..UNROLL {
                d[j].write(f(s[j]));
            }
        }
        for (d, &s) in dst_blocks
            .into_remainder()
            .iter_mut()
            .zip(src_blocks.remainder())
        {
            d.write(f(s));
        }
    }
}

/// `dst[i] = f(a[i], b[i])`.
struct Map2<'a, A, B, U, F> {
    a: &'a [A],
    b: &'a [B],
    dst: &'a mut [MaybeUninit<U>],
    f: F,
}

impl<A: Copy, B: Copy, U, F: Fn(A, B) -> U> Kernel for Map2<'_, A, B, U, F> {
    type Output = ();
    #[inline(always)]
    fn run<S: Simd>(self) {
        let f = self.f;
        for ((d, &a), &b) in self.dst.iter_mut().zip(self.a).zip(self.b) {
            d.write(f(a, b));
        }
    }
}

/// `dst[i] = f(a[i], b[i], c[i])`.
struct Map3<'a, A, B, C, U, F> {
    a: &'a [A],
    b: &'a [B],
    c: &'a [C],
    dst: &'a mut [MaybeUninit<U>],
    f: F,
}

impl<A: Copy, B: Copy, C: Copy, U, F: Fn(A, B, C) -> U> Kernel for Map3<'_, A, B, C, U, F> {
    type Output = ();
    #[inline(always)]
    fn run<S: Simd>(self) {
        let f = self.f;
        for (((d, &a), &b), &c) in self.dst.iter_mut().zip(self.a).zip(self.b).zip(self.c) {
            d.write(f(a, b, c));
        }
    }
}

/// The result of a kernel step that allocates its output fallibly: `Err` when the allocator
/// refused the block or its byte size overflows; the kernel's entry point names the op and the
/// output shape ([`refused`](crate::layout::refused)).
pub(crate) type Alloc<T> = std::result::Result<T, TryReserveError>;

/// Outputs of at least this many bytes (256 MiB) are allocated fallibly: a size the machine
/// cannot provide is then an error, not an abort. Smaller ones take the plain allocation (a
/// refusal there means the process is out of memory anyway, as for any other `Vec`).
pub(crate) const FALLIBLE_BYTES: usize = 1 << 28;

/// An empty `Vec` with room for exactly `n` elements: allocated fallibly when it holds at least
/// [`FALLIBLE_BYTES`] (the refusal, or a byte size overflowing `usize`, is returned instead of
/// aborting the process), plainly below that (`Vec::with_capacity`, the cheaper call).
#[inline]
pub(crate) fn try_alloc<U>(n: usize) -> Alloc<Vec<U>> {
    if n < FALLIBLE_BYTES / size_of::<U>().max(1) {
        return Ok(Vec::with_capacity(n));
    }
    try_alloc_large(n)
}

/// Whether an output of `n` elements of `U` can be allocated now: outputs of at least
/// [`FALLIBLE_BYTES`] are asked for fallibly and freed at once, untouched; smaller ones pass. For
/// a kernel that must refuse an output before work proportional to it (e.g. scanning a huge
/// broadcast view).
pub(crate) fn probe<U>(n: usize) -> Alloc<()> {
    if n < FALLIBLE_BYTES / size_of::<U>().max(1) {
        return Ok(());
    }
    try_alloc_large::<U>(n).map(drop)
}

#[cold]
#[inline(never)]
fn try_alloc_large<U>(n: usize) -> Alloc<Vec<U>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)?;
    Ok(v)
}

/// `r`, or what `Vec::with_capacity(n)` does when it cannot allocate (the global allocation
/// error handler; a byte size overflowing `usize` panics with "capacity overflow"). For kernels
/// whose signature has no error: the runtime checks their output sizes before calling them.
#[inline]
pub(crate) fn or_alloc_error<T, U>(r: Alloc<T>, n: usize) -> T {
    match r {
        Ok(v) => v,
        Err(_) => alloc_error::<U>(n),
    }
}

#[cold]
fn alloc_error<U>(n: usize) -> ! {
    match Layout::array::<U>(n) {
        Ok(layout) => handle_alloc_error(layout),
        Err(_) => panic!("capacity overflow"),
    }
}

/// Builds a `Vec` of `n` outputs by calling `fill(start, chunk)` on disjoint chunks of the
/// uninitialised buffer (in parallel when the work is large). `fill` must write every element
/// of its chunk, and its result must not depend on how the output is chunked.
///
/// Parallel chunks end at 2 MiB-aligned addresses of the output, so that each transparent huge
/// page of a fresh output is faulted in (and zeroed by the kernel) by exactly one thread and
/// copied into right after, while it is still in cache.
pub(crate) fn build_vec<U: Send>(
    n: usize,
    bytes_touched: usize,
    fill: impl Fn(usize, &mut [MaybeUninit<U>]) + Sync,
) -> Alloc<Vec<U>> {
    const HUGE: usize = 2 << 20;
    let size = size_of::<U>();
    if size == 0 || !HUGE.is_multiple_of(size) {
        return build_vec_chunked(n, PAR_CHUNK_ELEMS, bytes_touched, fill);
    }
    let mut out: Vec<U> = try_alloc(n)?;
    let spare = &mut out.spare_capacity_mut()[..n];
    advise_huge_pages(spare);
    if use_parallel_output(bytes_touched) {
        let addr = spare.as_ptr() as usize;
        let head = ((addr.next_multiple_of(HUGE) - addr) / size).min(n);
        let (first, rest) = spare.split_at_mut(head);
        let per = HUGE / size;
        let mut parts: Vec<_> = rest.chunks_mut(per).collect();
        parallel::join(
            || fill(0, first),
            || parallel::for_each_mut(&mut parts, &|i, part| fill(head + i * per, part)),
        );
    } else {
        fill(0, spare);
    }
    // SAFETY: capacity is at least `n`, and `fill` wrote all `n` elements (the chunks tile
    // `0..n`, and every caller's `fill` writes each element of its chunk exactly once).
    unsafe { out.set_len(n) };
    Ok(out)
}

/// [`build_vec`] with parallel chunks of exactly `chunk` elements from the start (the last may
/// be shorter), for `fill`s that need chunk boundaries at multiples of `chunk`.
pub(crate) fn build_vec_chunked<U: Send>(
    n: usize,
    chunk: usize,
    bytes_touched: usize,
    fill: impl Fn(usize, &mut [MaybeUninit<U>]) + Sync,
) -> Alloc<Vec<U>> {
    let mut out: Vec<U> = try_alloc(n)?;
    let spare = &mut out.spare_capacity_mut()[..n];
    advise_huge_pages(spare);
    if use_parallel_output(bytes_touched) {
        let chunk = chunk.max(1);
        let mut parts: Vec<_> = spare.chunks_mut(chunk).collect();
        parallel::for_each_mut(&mut parts, &|i, part| fill(i * chunk, part));
    } else {
        fill(0, spare);
    }
    // SAFETY: capacity is at least `n`, and `fill` wrote all `n` elements (every caller's
    // `fill` maps each destination element of its chunk exactly once).
    unsafe { out.set_len(n) };
    Ok(out)
}

/// `f` over a contiguous slice into a new `Vec` (parallel in fixed chunks when large).
pub(crate) fn map_slice<T, U, F>(src: &[T], f: F) -> Alloc<Vec<U>>
where
    T: Copy + Sync,
    U: Send,
    F: Fn(T) -> U + Copy + Sync,
{
    let bytes = src.len() * (size_of::<T>() + size_of::<U>());
    build_vec(src.len(), bytes, |start, dst| {
        let src = &src[start..start + dst.len()];
        dispatch(Map1 { src, dst, f });
    })
}

/// `f` over two same-length contiguous slices into a new `Vec`.
pub(crate) fn zip_slices<A, B, U, F>(sa: &[A], sb: &[B], f: F) -> Alloc<Vec<U>>
where
    A: Copy + Sync,
    B: Copy + Sync,
    U: Send,
    F: Fn(A, B) -> U + Copy + Sync,
{
    let bytes = sa.len() * (size_of::<A>() + size_of::<B>() + size_of::<U>());
    build_vec(sa.len(), bytes, |start, dst| {
        let end = start + dst.len();
        dispatch(Map2 {
            a: &sa[start..end],
            b: &sb[start..end],
            dst,
            f,
        });
    })
}

/// `f` over three same-length contiguous slices into a new `Vec`.
fn zip3_slices<A, B, C, U, F>(sa: &[A], sb: &[B], sc: &[C], f: F) -> Alloc<Vec<U>>
where
    A: Copy + Sync,
    B: Copy + Sync,
    C: Copy + Sync,
    U: Send,
    F: Fn(A, B, C) -> U + Copy + Sync,
{
    let bytes = sa.len() * (size_of::<A>() + size_of::<B>() + size_of::<C>() + size_of::<U>());
    build_vec(sa.len(), bytes, |start, dst| {
        let end = start + dst.len();
        dispatch(Map3 {
            a: &sa[start..end],
            b: &sb[start..end],
            c: &sc[start..end],
            dst,
            f,
        });
    })
}

/// If `v` (broadcast to its shape) is a contiguous block of trailing axes repeated along
/// zero-stride leading axes — the common "bias" broadcast — returns that block.
fn repeated_block<'a, T>(v: &ArrayViewD<'a, T>) -> Option<&'a [T]> {
    let (shape, strides) = (v.shape(), v.strides());
    let mut expected = 1isize;
    let mut k = shape.len();
    // Walk trailing axes while they are standard-contiguous.
    while k > 0 && (shape[k - 1] == 1 || strides[k - 1] == expected) {
        expected *= shape[k - 1] as isize;
        k -= 1;
    }
    if k == shape.len() || !(0..k).all(|a| strides[a] == 0 || shape[a] == 1) {
        return None;
    }
    let len = expected as usize;
    // SAFETY: the trailing axes `k..` are standard-contiguous from `v`'s first element, so
    // `len` elements starting there belong to `v`'s data, borrowed for 'a.
    Some(unsafe { std::slice::from_raw_parts(v.as_ptr(), len) })
}

/// `dst[i] = f(a[i], block[i % block.len()])`; `a` starts at a block boundary.
struct MapRepeat<'a, A, B, U, F> {
    a: &'a [A],
    block: &'a [B],
    dst: &'a mut [MaybeUninit<U>],
    f: F,
}

impl<A: Copy, B: Copy, U, F: Fn(A, B) -> U> Kernel for MapRepeat<'_, A, B, U, F> {
    type Output = ();
    #[inline(always)]
    fn run<S: Simd>(self) {
        let f = self.f;
        let k = self.block.len();
        for (dst, a) in self.dst.chunks_mut(k).zip(self.a.chunks(k)) {
            for ((d, &a), &b) in dst.iter_mut().zip(a).zip(self.block) {
                d.write(f(a, b));
            }
        }
    }
}

/// `f(a[i], block[i % block.len()])` into a new `Vec` (`a.len()` a multiple of the non-empty
/// `block`'s length): the "bias" broadcast, one vectorised pass per block, parallel in chunks
/// of whole blocks when large.
pub(crate) fn zip_repeat<A, B, U, F>(sa: &[A], block: &[B], f: F) -> Alloc<Vec<U>>
where
    A: Copy + Sync,
    B: Copy + Sync,
    U: Send,
    F: Fn(A, B) -> U + Copy + Sync,
{
    let k = block.len().max(1);
    let chunk = (PAR_CHUNK_ELEMS / k).max(1) * k;
    let bytes = sa.len() * (size_of::<A>() + size_of::<U>());
    build_vec_chunked(sa.len(), chunk, bytes, |start, dst| {
        let a = &sa[start..start + dst.len()];
        dispatch(MapRepeat { a, block, dst, f });
    })
}

/// One lane of an input, classified for the vectorised lane kernels.
enum Lane<'a, T> {
    /// Stride 1 (or length ≤ 1).
    Slice(&'a [T]),
    /// Stride 0: one value broadcast along the lane.
    Splat(T),
    /// Anything else.
    Strided,
}

fn classify<T: Copy>(lane: ArrayView1<'_, T>) -> Lane<'_, T> {
    if lane.len() > 1 && lane.strides()[0] == 0 {
        return Lane::Splat(lane[0]);
    }
    match lane.to_slice() {
        Some(s) => Lane::Slice(s),
        None => Lane::Strided,
    }
}

/// Elementwise `f` over one array of any layout; the result has the input's memory order.
pub(crate) fn map1<T, U, F>(xs: ArrayViewD<'_, T>, f: F) -> Alloc<ArrayD<U>>
where
    T: Copy + Sync,
    U: Send,
    F: Fn(T) -> U + Copy + Sync,
{
    if let Some(src) = xs.as_slice() {
        // Standard layout (the common case): no normalisation needed.
        let v = map_slice(src, f)?;
        return Ok(ArrayD::from_shape_vec(xs.raw_dim(), v).expect("length matches the shape"));
    }
    let (xs, transform) = normalize(xs);
    let out = if let Some(src) = xs.as_slice() {
        let v = map_slice(src, f)?;
        ArrayD::from_shape_vec(xs.raw_dim(), v).expect("length matches the shape")
    } else {
        lanes_into(&xs.raw_dim(), |out| {
            let last = Axis(out.ndim() - 1);
            Zip::from(out.lanes_mut(last))
                .and(xs.lanes(last))
                .for_each(|mut o, x| match (o.as_slice_mut(), classify(x)) {
                    (Some(dst), Lane::Slice(src)) => dispatch(Map1 { src, dst, f }),
                    (Some(dst), _) => write_slice(dst, x.iter().map(|&x| f(x))),
                    (None, _) => write_lane(&mut o, x.iter().map(|&x| f(x))),
                });
        })?
    };
    Ok(transform.undo(out))
}

/// Elementwise `f` over two arrays already broadcast to one shape.
pub(crate) fn map2<A, B, U, F>(a: ArrayViewD<'_, A>, b: ArrayViewD<'_, B>, f: F) -> Alloc<ArrayD<U>>
where
    A: Copy + Sync,
    B: Copy + Sync,
    U: Send,
    F: Fn(A, B) -> U + Copy + Sync,
{
    if let (Some(sa), Some(sb)) = (a.as_slice(), b.as_slice()) {
        // Both standard layout (the common case): no normalisation needed.
        let v = zip_slices(sa, sb, f)?;
        return Ok(ArrayD::from_shape_vec(a.raw_dim(), v).expect("length matches the shape"));
    }
    // One side standard, the other a repeated contiguous block (e.g. `[n, k] + [k]`).
    if let (Some(sa), Some(block)) = (a.as_slice(), repeated_block(&b).filter(|bl| !bl.is_empty()))
    {
        let v = zip_repeat(sa, block, f)?;
        return Ok(ArrayD::from_shape_vec(a.raw_dim(), v).expect("length matches the shape"));
    }
    if let (Some(sb), Some(block)) = (b.as_slice(), repeated_block(&a).filter(|bl| !bl.is_empty()))
    {
        let v = zip_repeat(sb, block, move |y: B, x: A| f(x, y))?;
        return Ok(ArrayD::from_shape_vec(b.raw_dim(), v).expect("length matches the shape"));
    }
    // Same contiguous layout (any memory order): one flat map in memory order.
    let (an, transform) = normalize(a.view());
    let bn = transform.apply(b.view());
    if let (Some(sa), Some(sb)) = (an.as_slice(), bn.as_slice()) {
        let v = zip_slices(sa, sb, f)?;
        let out = ArrayD::from_shape_vec(an.raw_dim(), v).expect("length matches the shape");
        return Ok(transform.undo(out));
    }
    // General: standard-layout output, lane by lane along the last axis.
    if a.ndim() == 0 {
        return Ok(ArrayD::from_shape_vec(IxDyn(&[]), vec![f(a[[]], b[[]])])
            .expect("rank 0 holds one element"));
    }
    lanes_into(&a.raw_dim(), |out| {
        let last = Axis(out.ndim() - 1);
        Zip::from(out.lanes_mut(last))
            .and(a.lanes(last))
            .and(b.lanes(last))
            .for_each(|mut o, x, y| {
                let Some(dst) = o.as_slice_mut() else {
                    return write_lane(&mut o, x.iter().zip(y.iter()).map(|(&x, &y)| f(x, y)));
                };
                match (classify(x), classify(y)) {
                    (Lane::Slice(a), Lane::Slice(b)) => dispatch(Map2 { a, b, dst, f }),
                    (Lane::Slice(src), Lane::Splat(y)) => dispatch(Map1 {
                        src,
                        dst,
                        f: move |x| f(x, y),
                    }),
                    (Lane::Splat(x), Lane::Slice(src)) => dispatch(Map1 {
                        src,
                        dst,
                        f: move |y| f(x, y),
                    }),
                    _ => write_slice(dst, x.iter().zip(y.iter()).map(|(&x, &y)| f(x, y))),
                }
            });
    })
}

/// Elementwise `f` over three arrays already broadcast to one shape.
pub(crate) fn map3<A, B, C, U, F>(
    a: ArrayViewD<'_, A>,
    b: ArrayViewD<'_, B>,
    c: ArrayViewD<'_, C>,
    f: F,
) -> Alloc<ArrayD<U>>
where
    A: Copy + Sync,
    B: Copy + Sync,
    C: Copy + Sync,
    U: Send,
    F: Fn(A, B, C) -> U + Copy + Sync,
{
    if let (Some(sa), Some(sb), Some(sc)) = (a.as_slice(), b.as_slice(), c.as_slice()) {
        // All standard layout (the common case): no normalisation needed.
        let v = zip3_slices(sa, sb, sc, f)?;
        return Ok(ArrayD::from_shape_vec(a.raw_dim(), v).expect("length matches the shape"));
    }
    let (an, transform) = normalize(a.view());
    let (bn, cn) = (transform.apply(b.view()), transform.apply(c.view()));
    if let (Some(sa), Some(sb), Some(sc)) = (an.as_slice(), bn.as_slice(), cn.as_slice()) {
        let v = zip3_slices(sa, sb, sc, f)?;
        let out = ArrayD::from_shape_vec(an.raw_dim(), v).expect("length matches the shape");
        return Ok(transform.undo(out));
    }
    if a.ndim() == 0 {
        return Ok(
            ArrayD::from_shape_vec(IxDyn(&[]), vec![f(a[[]], b[[]], c[[]])])
                .expect("rank 0 holds one element"),
        );
    }
    lanes_into(&a.raw_dim(), |out| {
        let last = Axis(out.ndim() - 1);
        Zip::from(out.lanes_mut(last))
            .and(a.lanes(last))
            .and(b.lanes(last))
            .and(c.lanes(last))
            .for_each(|mut o, x, y, z| {
                let vals = x
                    .iter()
                    .zip(y.iter())
                    .zip(z.iter())
                    .map(|((&x, &y), &z)| f(x, y, z));
                let Some(dst) = o.as_slice_mut() else {
                    return write_lane(&mut o, vals);
                };
                match (
                    x.clone().to_slice(),
                    y.clone().to_slice(),
                    z.clone().to_slice(),
                ) {
                    (Some(a), Some(b), Some(c)) => dispatch(Map3 { a, b, c, dst, f }),
                    _ => write_slice(dst, vals),
                }
            });
    })
}

fn write_slice<U>(dst: &mut [MaybeUninit<U>], values: impl Iterator<Item = U>) {
    for (d, v) in dst.iter_mut().zip(values) {
        d.write(v);
    }
}

fn write_lane<U>(o: &mut ArrayViewMut1<'_, MaybeUninit<U>>, values: impl Iterator<Item = U>) {
    for (d, v) in o.iter_mut().zip(values) {
        d.write(v);
    }
}

/// Allocates (fallibly) an uninitialised standard-layout array of `dim`, lets `fill` write
/// every element (lane by lane), and returns it initialised.
fn lanes_into<U>(dim: &IxDyn, fill: impl FnOnce(&mut ArrayD<MaybeUninit<U>>)) -> Alloc<ArrayD<U>> {
    // Callers handle rank 0 first (a rank-0 view is always contiguous), so there is a last axis.
    assert!(
        ndarray::Dimension::ndim(dim) > 0,
        "lanes_into needs rank >= 1"
    );
    let n = ndarray::Dimension::size(dim);
    let mut buf: Vec<MaybeUninit<U>> = try_alloc(n)?;
    // SAFETY: the capacity is at least `n`, and `MaybeUninit` elements need no initialisation.
    unsafe { buf.set_len(n) };
    let mut out = ArrayD::from_shape_vec(dim.clone(), buf).expect("length matches the shape");
    fill(&mut out);
    // SAFETY: `fill` zips over every lane along the last axis of `out` and writes every
    // element of each lane (each lane kernel writes its whole destination lane).
    Ok(unsafe { out.assume_init() })
}
