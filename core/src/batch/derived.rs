//! The default batch encoder of derived types (`#[extype(batchable)]`): the struct-level work,
//! written once over the struct's table ([`StructDesc`]) and a parallel table of each field
//! type's batching functions ([`BatchOps`]). Each generated `BatchField` method is one call here.

use std::marker::PhantomData;
use std::mem::MaybeUninit;

use super::field::{BatchField, BatchOps, FieldRef};
use crate::derived::{Derived, StructDesc, validated};
use crate::error::{BatchError, Result};
use crate::field::{Field, FieldPath};
use crate::spec::ExtensionType;

/// A derived struct with `#[extype(batchable)]`: the batching functions of its fields, in the
/// order of `DESC.fields`.
///
/// # Safety
///
/// `BATCH[i]` must be the [`BatchOps`] of the type of field `i` of [`Derived::DESC`], for every
/// field. `#[derive(ExtensionType)]` is the only intended implementor.
pub unsafe trait DerivedBatch: Derived + BatchField {
    /// One table per field, in declaration order.
    const BATCH: &'static [&'static BatchOps];
}

fn field_path<'p>(desc: &StructDesc, i: usize, parent: &'p FieldPath<'p>) -> FieldPath<'p> {
    let f = &desc.fields[i];
    match f.position {
        Some(p) => parent.tuple(p),
        None => parent.field(f.key),
    }
}

/// Drops fields `range` of `count` values laid out `stride` bytes apart from `base`.
///
/// # Safety
/// Those fields are initialised and not used afterwards.
unsafe fn drop_fields_of(
    desc: &StructDesc,
    fields: std::ops::Range<usize>,
    base: *mut u8,
    count: usize,
    stride: usize,
) {
    for j in 0..count {
        for f in &desc.fields[fields.clone()] {
            // SAFETY: the caller's contract.
            unsafe { (f.ops.drop_value)(base.add(j * stride + f.value_offset)) }
        }
    }
}

/// The spec of a batch of `n` values of spec `spec`, field by field.
pub fn batched_spec<T: DerivedBatch>(
    spec: &<T as Field>::Spec,
    n: Option<usize>,
) -> <T as Field>::Spec {
    let mut out = MaybeUninit::<<T as Field>::Spec>::uninit();
    let base = spec as *const <T as Field>::Spec as *const u8;
    let place = out.as_mut_ptr() as *mut u8;
    for (f, ops) in T::DESC.fields.iter().zip(T::BATCH) {
        // SAFETY: `DESC` and `BATCH` describe `T::Spec` (the `Derived` and `DerivedBatch`
        // contracts); each field of `out` is written once.
        unsafe { (ops.batched_spec)(base.add(f.spec_offset), n, place.add(f.spec_offset)) }
    }
    // SAFETY: every field was written.
    unsafe { out.assume_init() }
}

/// The spec of one item of a batch of spec `spec`; an error names the field without a batch
/// axis.
pub fn unbatched_spec<T: DerivedBatch>(
    spec: &<T as Field>::Spec,
    path: &FieldPath<'_>,
) -> Result<<T as Field>::Spec> {
    let desc = T::DESC;
    let mut out = MaybeUninit::<<T as Field>::Spec>::uninit();
    let base = spec as *const <T as Field>::Spec as *const u8;
    let place = out.as_mut_ptr() as *mut u8;
    for (i, (f, ops)) in desc.fields.iter().zip(T::BATCH).enumerate() {
        let p = field_path(desc, i, path);
        // SAFETY: as in `batched_spec`.
        let done =
            unsafe { (ops.unbatched_spec)(base.add(f.spec_offset), &p, place.add(f.spec_offset)) };
        if let Err(e) = done {
            for f in &desc.fields[..i] {
                // SAFETY: fields `..i` were written above.
                unsafe { (f.ops.drop_spec)(place.add(f.spec_offset)) }
            }
            return Err(e);
        }
    }
    // SAFETY: every field was written.
    Ok(unsafe { out.assume_init() })
}

/// The batch size of a value read as a batch: its first field that has one.
pub fn batch_len<T: DerivedBatch>(value: &T, path: &FieldPath<'_>) -> Result<Option<usize>> {
    let base = value as *const T as *const u8;
    for (i, (f, ops)) in T::DESC.fields.iter().zip(T::BATCH).enumerate() {
        // SAFETY: `DESC` and `BATCH` describe `T`.
        let n =
            unsafe { (ops.batch_len)(base.add(f.value_offset), &field_path(T::DESC, i, path)) }?;
        if n.is_some() {
            return Ok(n);
        }
    }
    Ok(None)
}

/// How many items each field's stacker takes at a time.
const CHUNK: usize = 16;

/// Stacks `items` (at least one), then validates the batch. The items are walked once, a chunk
/// at a time, each chunk feeding every field's stacker in turn (see `batch::rows`).
pub fn stack<T: DerivedBatch + ExtensionType>(items: &[&T], path: &FieldPath<'_>) -> Result<T> {
    let desc = T::DESC;
    let Some(&first) = items.first() else {
        return Err(BatchError::Argument {
            op: "stack",
            expected: format!("at least one {} to stack", desc.registered_name()),
            found: "none".into(),
        }
        .into());
    };
    let first = first as *const T as *const u8;
    // Each field's offset and stacker: the walk below touches nothing else.
    let mut stackers = Vec::with_capacity(desc.fields.len());
    for (i, (f, ops)) in desc.fields.iter().zip(T::BATCH).enumerate() {
        // SAFETY: `BATCH[i]` is the table of field `i`'s type, which lies at its offset in the
        // live item 0, borrowed (with every item) for this call.
        let field = FieldRef(unsafe { first.add(f.value_offset) }, PhantomData);
        let p = field_path(desc, i, path);
        // SAFETY: `field` is field `i` of the live item 0, and `ops` is the table of its type (`BATCH[i]`).
        stackers.push((f.value_offset, unsafe {
            (ops.stacker)(field, items.len(), &p)
        }?));
    }
    // SAFETY: a `&T` and a `*const u8` have one size and alignment (`T: Sized`).
    let bases: &[*const u8] =
        unsafe { std::slice::from_raw_parts(items.as_ptr().cast::<*const u8>(), items.len()) };
    for (c, chunk) in bases.chunks(CHUNK).enumerate() {
        for (i, (offset, stacker)) in stackers.iter_mut().enumerate() {
            // SAFETY: the stacker is of field `i`'s type, which lies at `offset` in each item.
            unsafe {
                let taken = stacker.push(chunk, *offset);
                if let Some(&item) = chunk.get(taken) {
                    let index = c * CHUNK + taken;
                    let field = item.add(*offset);
                    return Err(stacker.mismatch(index, field, &field_path(desc, i, path)));
                }
            }
        }
    }
    let mut out = MaybeUninit::<T>::uninit();
    let place = out.as_mut_ptr() as *mut u8;
    for (i, (offset, stacker)) in stackers.into_iter().enumerate() {
        // SAFETY: `out`'s field `i` is uninitialised and of the stacker's type.
        if let Err(e) = unsafe { stacker.finish(&field_path(desc, i, path), place.add(offset)) } {
            // SAFETY: fields `..i` of `out` were written above.
            unsafe { drop_fields_of(desc, 0..i, place, 1, 0) };
            return Err(e);
        }
    }
    for f in desc.skipped {
        // SAFETY: skipped fields are not in `desc.fields`: still uninitialised.
        unsafe { f.ops.default_into(place.add(f.value_offset)) };
    }
    // SAFETY: every field was written (the skipped ones with their default).
    let batch = unsafe { out.assume_init() };
    validated(batch, path)
}

/// Drops the skipped fields of the value at `value`, given up by the caller.
///
/// # Safety
/// `value` points to a value described by `desc` whose skipped fields are live and not used
/// afterwards.
unsafe fn drop_skipped(desc: &StructDesc, value: *mut u8) {
    for f in desc.skipped {
        // SAFETY: as the caller promises; each skipped field is dropped once.
        unsafe { f.ops.drop_value(value.add(f.value_offset)) };
    }
}

/// Splits a batch of `n` items field by field, then validates each item.
pub fn unstack<T: DerivedBatch + ExtensionType>(
    batch: T,
    n: usize,
    path: &FieldPath<'_>,
) -> Result<Vec<T>> {
    let desc = T::DESC;
    let mut items: Vec<MaybeUninit<T>> = super::field::item_vec(n, path)?;
    let batch = std::mem::ManuallyDrop::new(batch);
    let src = &*batch as *const T as *mut u8;
    // SAFETY: `MaybeUninit` needs no initialisation (`n` items are reserved).
    unsafe { items.set_len(n) };
    let base = items.as_mut_ptr() as *mut u8;
    let stride = std::mem::size_of::<T>();
    for (i, (f, ops)) in desc.fields.iter().zip(T::BATCH).enumerate() {
        let p = field_path(desc, i, path);
        // SAFETY: field `i` of the batch is moved out exactly once (the batch is never dropped:
        // `ManuallyDrop`); item `j`'s field `i` lies at `base + j * stride + offset`.
        let done = unsafe {
            (ops.unstack)(
                src.add(f.value_offset),
                n,
                &p,
                base.add(f.value_offset),
                stride,
            )
        };
        if let Err(e) = done {
            // SAFETY: fields `..i` of every item were written; fields `i + 1..` of the batch
            // were not moved out (field `i` was consumed by `unstack`).
            unsafe {
                drop_fields_of(desc, 0..i, base, n, stride);
                drop_fields_of(desc, i + 1..desc.fields.len(), src, 1, 0);
                drop_skipped(desc, src);
            }
            return Err(e);
        }
    }
    for f in desc.skipped {
        // SAFETY: the batch's skipped field is given up (the batch is never dropped); each
        // item's is still uninitialised and gets its default.
        unsafe {
            f.ops.drop_value(src.add(f.value_offset));
            for j in 0..n {
                f.ops.default_into(base.add(j * stride + f.value_offset));
            }
        }
    }
    // SAFETY: every field of every item was written; `MaybeUninit<T>` has `T`'s layout.
    let items: Vec<T> = unsafe {
        let mut items = std::mem::ManuallyDrop::new(items);
        Vec::from_raw_parts(items.as_mut_ptr() as *mut T, n, items.capacity())
    };
    // Each item is validated as `validate` does, the shape contract once per run of equal
    // shapes (items of a batch share them).
    let mut passed = Vec::new();
    for (j, item) in items.iter().enumerate() {
        // SAFETY: `item` is a live `T`, which `desc` (`T::DESC`) describes.
        let checked = unsafe { desc.check_all_reusing(item as *const T as *const u8, &mut passed) };
        if let Err(e) = checked {
            return Err(BatchError::Item {
                op: "unstack",
                index: j,
                source: Box::new(crate::derived::invalid(e, path, desc.registered_name())),
            }
            .into());
        }
    }
    Ok(items)
}
