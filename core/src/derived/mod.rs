//! Derived extension types as tables: what `#[derive(ExtensionType)]` generates calls into.
//!
//! A derived struct is described by a [`StructDesc`]: its name and, per field, the field's offset
//! in the value and in the spec, and a [`FieldOps`] table of what the field's type can do (one
//! table per field *type*, shared by every struct that has such a field). The struct-level work
//! (build the spec, walk the components, rebuild from components, (de)serialize, compare, relax,
//! clone, hash, print the spec) is written once, here, over those tables, instead of once per
//! derived type. A derived type's `Field` and `ExtensionType` impls write no method at all: they
//! name the table ([`StructField`] and [`ValueOps`] are implemented here for [`StructDesc`]), and
//! the traits' provided methods call it; the spec's std traits are one call each into this module.
//!
//! Why: the registry entry of every derived type forces its code to be compiled in the crate
//! that derives it (see the macros crate, "Compile-time cost"). Per-type code that walks the
//! fields, with its `?` chains, drop flags and unwinding paths, made a 50-type crate compile
//! several times slower than the same structs deriving serde's traits. And every generated impl
//! is bounded by the field types (one error per unsupported field type), which makes each
//! generated method body costlier to check. Through the tables, each derived type costs a
//! handful of one-line functions.
//!
//! Soundness rests on [`Derived`], an `unsafe` trait: its [`StructDesc`] must describe `Self` and
//! its spec exactly (the derive writes it with `offset_of!` and each field's own `FieldOps`).
//! Given that, every function here only touches memory through the offsets and types the
//! table states. No safe code can point the runtime at a wrong table: a `StructDesc` needs a
//! [`Vouched`], which only `unsafe` code makes; the per-field-type tables (`FieldOps`,
//! `ShapeOps`, [`SkipOps`], and the batch tables) are written by the derive for each field's own
//! type, not read from overridable trait constants; and the tables a derived type's `Field` and
//! `ExtensionType` impls name are typed by that type (`StructTable<Self>`, `ValueTable<Self>`),
//! so no impl can borrow another type's. `tests/ui/soundness/` holds one safe program per
//! attempt, each a compile error.
//!
//! Also here: the helpers generated code calls by name ([`validated`], and [`StructFields`],
//! which reads a serialized struct spec for derived and hand-written types alike). Not public
//! API: the module is reached only through `__private`.

mod erased;
mod probe;
mod struct_fields;

pub use erased::{ErasedSpec, TypeFns};
pub use probe::{NotDerived, Probe, ProbeDerived};
pub use struct_fields::StructFields;

use std::any::TypeId;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::mem::MaybeUninit;

use crate::contract::{ShapeContract, ShapeOps};
use crate::error::{Error, Result, SpecError};
use crate::field::{
    ComponentSpecs, Components, Field, FieldOps, FieldPath, PathSink, Sink, StructField,
    ValiditySink,
};
use crate::names::registered_name_of;
use crate::spec::{ExtensionType, SpecSource, TypeSpec, ValueOps, registered_name};
use crate::spec_tree::SpecTree;
use crate::tensor::{Tensor, TensorSpec, TensorView};
use crate::versioning::{Evolution, Stored};
use extype_shape::Shape;

/// One field of a derived struct.
#[derive(Debug)]
pub struct FieldDesc {
    /// Its key in the serialized spec, and its name in paths: the field name, or its position
    /// (`"0"`) in a tuple struct.
    pub key: &'static str,
    /// `Some(i)` for the `i`th field of a tuple struct (paths read `.i`).
    pub position: Option<usize>,
    /// `offset_of!(Foo, field)`.
    pub value_offset: usize,
    /// `offset_of!(FooSpec, field)`.
    pub spec_offset: usize,
    /// What the field's type can do.
    pub ops: &'static FieldOps,
    /// Its shape accessors, when the field has `#[extype(shape = "…")]`.
    pub shape: Option<&'static ShapeOps>,
}

impl FieldDesc {
    fn path<'p>(&self, parent: &'p FieldPath<'p>) -> FieldPath<'p> {
        match self.position {
            Some(i) => parent.tuple(i),
            None => parent.field(self.key),
        }
    }
}

/// A field marked `#[extype(skip)]`: neither a component nor in the spec; rebuilt with
/// `Default::default()`.
#[derive(Debug)]
pub struct SkippedDesc {
    /// `offset_of!(Foo, field)`.
    pub value_offset: usize,
    /// How to make and drop the field's value.
    pub ops: &'static SkipOps,
}

/// What a skipped field's type can do, behind untyped pointers.
pub struct SkipOps {
    default_into: unsafe fn(*mut u8),
    drop_value: unsafe fn(*mut u8),
}

impl SkipOps {
    /// Writes the type's `Default::default()` to `out`.
    ///
    /// # Safety
    /// `out` points to writable, uninitialised memory for one value of the type.
    pub(crate) unsafe fn default_into(&self, out: *mut u8) {
        // SAFETY: as the caller promises.
        unsafe { (self.default_into)(out) }
    }

    /// Drops the value at `value`.
    ///
    /// # Safety
    /// `value` points to a live value of the type, which the caller gives up.
    pub(crate) unsafe fn drop_value(&self, value: *mut u8) {
        // SAFETY: as the caller promises.
        unsafe { (self.drop_value)(value) }
    }
}

impl fmt::Debug for SkipOps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SkipOps")
    }
}

/// A field type `#[extype(skip)]` accepts: any `Default` type (every value rebuilt from
/// components or loaded gets `Default::default()` there).
#[diagnostic::on_unimplemented(
    message = "a field marked `#[extype(skip)]` is rebuilt with `Default::default()`, and `{Self}` does not implement `Default`",
    label = "`{Self}` is not `Default`",
    note = "implement or derive `Default` for it, or remove `#[extype(skip)]` so the field is part of the spec"
)]
pub trait SkippedField: Default {}

impl<T: Default> SkippedField for T {}

impl SkipOps {
    /// The table of skipped field type `T`, which the derive writes for the field's own type
    /// (no trait constant names it, so no impl can pass another type's off as its own:
    /// `tests/ui/soundness/skip_ops.rs`).
    pub const fn of<T: SkippedField>() -> &'static SkipOps {
        SkipOpsOf::<T>::OPS
    }
}

/// The table of `T` as an associated constant, evaluated once per type (an inherent constant of a
/// private type: nothing outside can override it).
struct SkipOpsOf<T>(std::marker::PhantomData<T>);

impl<T: SkippedField> SkipOpsOf<T> {
    const OPS: &'static SkipOps = &SkipOps {
        // SAFETY: the caller passes a pointer to writable memory for one `T`.
        default_into: |out| unsafe { out.cast::<T>().write(T::default()) },
        // SAFETY: the caller passes a pointer to a live `T` it gives up.
        drop_value: |value| unsafe { value.cast::<T>().drop_in_place() },
    };
}

/// A derived struct: its names and its fields, in declaration order.
#[derive(Debug)]
pub struct StructDesc {
    /// The default registered name (`ExtensionType::NAME`).
    pub name: &'static str,
    /// The value type's `TypeId`, to find the name it is registered under.
    pub type_id: TypeId,
    /// The spec type's name (`FooSpec`), for `Debug`.
    pub spec_name: &'static str,
    /// Whether the struct is a tuple struct (its spec prints as a tuple).
    pub tuple: bool,
    /// The fields, in declaration order (those marked `#[extype(skip)]` excepted).
    pub fields: &'static [FieldDesc],
    /// The fields marked `#[extype(skip)]`.
    pub skipped: &'static [SkippedDesc],
    /// The shape contract over the fields with `#[extype(shape = "…")]`, if any.
    pub contract: Option<&'static ShapeContract>,
    /// The functions of the value and spec types themselves (drop, clone, `Any`).
    pub types: &'static TypeFns,
    /// The type's own `validate = …` function, over a pointer to the value.
    pub validate: Option<unsafe fn(*const u8) -> Result<()>>,
    /// The fields declared as another's validity (`#[extype(validity_of = values)]` on a mask
    /// field): `(mask, values)` as indices into [`fields`](Self::fields).
    pub validity: &'static [(usize, usize)],
    /// Its version, old names, field defaults and migrations ([`Evolution::NONE`] for a type
    /// without versioning attributes).
    pub evolution: &'static Evolution,
    /// The word of whoever wrote the table that it is exact (see [`Vouched`]).
    pub vouched: Vouched,
}

/// The word of whoever writes a [`StructDesc`] that it describes its type (the one `type_id`
/// names, whose functions `types` holds) and that type's spec exactly: one [`FieldDesc`] per
/// field, in declaration order, with the field's offsets in both structs and the `FieldOps`
/// (and `ShapeOps`) of the field's own type, and one [`SkippedDesc`] per skipped field likewise.
///
/// The table's fields are public (the derive writes it as a literal), but a table needs this
/// field and only `unsafe` code makes one: safe code cannot forge a table and hand it to the
/// runtime that trusts tables (`ErasedSpec::deserialize`, a registry entry's decoder;
/// `tests/ui/soundness/struct_desc.rs`).
#[derive(Debug, Clone, Copy)]
pub struct Vouched(());

impl Vouched {
    /// The word; see the type.
    ///
    /// # Safety
    /// The [`StructDesc`] this goes into describes its type and spec exactly, as above (the
    /// derive writes it into `Derived::DESC` with `offset_of!` and each field's own tables).
    pub const unsafe fn new() -> Vouched {
        Vouched(())
    }
}

impl StructDesc {
    pub(crate) fn registered_name(&self) -> &'static str {
        registered_name_of(self.type_id, self.name)
    }

    /// The checks of the value at `value` beyond its nested values: the shape contract, then the
    /// type's own `validate = …` function.
    ///
    /// # Safety
    /// `value` points to a live value described by `self`.
    pub(crate) unsafe fn check_own(&self, value: *const u8) -> Result<()> {
        // SAFETY: the caller's contract.
        unsafe { check_contract(self, value) }?;
        match self.validate {
            // SAFETY: the function is the type's own, given a pointer to a value of the type.
            Some(validate) => unsafe { validate(value) },
            None => Ok(()),
        }
    }

    /// [`check_all`](Self::check_all) for one of many values in a row (the items of an
    /// unstacked batch): the shape contract, a pure function of the shapes of the fields it
    /// names, is not run again when those shapes equal the ones that passed for the value before
    /// (`passed`, kept up to date). Items of a batch share their shapes, so a batch of many
    /// small items costs one contract check, not one each.
    ///
    /// # Safety
    /// `value` points to a live value described by `self`.
    pub(crate) unsafe fn check_all_reusing(
        &self,
        value: *const u8,
        passed: &mut Vec<Vec<usize>>,
    ) -> Result<()> {
        // SAFETY: the caller's contract.
        unsafe { validate_fields(self, value) }?;
        if let Some(contract) = self.contract {
            // SAFETY: as for `write_field_spec` (each shape is read from a live field).
            let shape_of = |f: &FieldDesc| unsafe {
                f.shape
                    .map(|shape| &*(shape.concrete_shape)(value.add(f.value_offset)))
            };
            let mut shaped = self.fields.iter().filter_map(shape_of);
            let same = !passed.is_empty()
                && passed
                    .iter()
                    .all(|p| shaped.next().is_some_and(|s| s == p.as_slice()))
                && shaped.next().is_none();
            if !same {
                let shapes: Vec<&[usize]> = self.fields.iter().filter_map(shape_of).collect();
                contract.check(&FieldPath::Root, &shapes)?;
                *passed = shapes.iter().map(|s| s.to_vec()).collect();
            }
        }
        match self.validate {
            // SAFETY: the function is the type's own, given a pointer to a value of the type.
            Some(validate) => unsafe { validate(value) },
            None => Ok(()),
        }
    }

    /// The whole validation of the value at `value`: its nested values, then its own checks.
    ///
    /// # Safety
    /// `value` points to a live value described by `self`.
    unsafe fn check_all(&self, value: *const u8) -> Result<()> {
        // SAFETY: the caller's contract.
        unsafe { validate_fields(self, value) }?;
        // SAFETY: the caller's contract.
        unsafe { self.check_own(value) }
    }
}

/// The type's `validate = path` function as the table holds it (over an untyped pointer).
pub const fn erase_validate<T>(
    validate: fn(&T) -> Result<()>,
) -> unsafe fn(*const u8) -> Result<()> {
    // SAFETY: references and pointers to sized types are ABI-compatible (see the `fn` pointer
    // docs, "ABI compatibility"); the table only calls it with pointers to a live `T`.
    unsafe {
        std::mem::transmute::<fn(&T) -> Result<()>, unsafe fn(*const u8) -> Result<()>>(validate)
    }
}

/// A struct the derive describes with a [`StructDesc`].
///
/// # Safety
///
/// `DESC` must describe `Self` and `<Self as Field>::Spec` exactly: one [`FieldDesc`] per field,
/// in declaration order, each with the field's offsets in both structs and the `FieldOps` of the
/// field's own type. `#[derive(ExtensionType)]` is the only intended implementor.
pub unsafe trait Derived: Field {
    /// The table of this type.
    const DESC: &'static StructDesc;
}

/// The spec struct of a derived type (`FooSpec`). Its [`TypeSpec`] impl is the blanket one
/// below, through the value type's table, so the derive writes no `TypeSpec` methods at all.
///
/// # Safety
///
/// `Self` must be the spec type that `<Self::Value as Derived>::DESC` describes.
pub unsafe trait DerivedSpec:
    Clone + fmt::Debug + Eq + Hash + Send + Sync + 'static
{
    /// The value type.
    type Value: Derived + Field<Spec = Self>;
}

impl<S: DerivedSpec> TypeSpec for S
where
    S::Value: ExtensionType<Spec = S>,
{
    type Value = S::Value;

    // SAFETY (every `unsafe` block below): `self`, `other` and `value` are specs or values of
    // the type `DESC` describes (the `DerivedSpec` and `Derived` contracts).
    #[inline]
    fn component_specs(&self) -> Vec<TensorSpec> {
        // SAFETY: `self`, `other` and `value` are specs or values of the type `DESC` describes (the `DerivedSpec` and `Derived` contracts).
        unsafe { component_spec_list(S::Value::DESC, self as *const S as *const u8) }
    }
    #[inline]
    fn num_components(&self) -> usize {
        // SAFETY: `self`, `other` and `value` are specs or values of the type `DESC` describes (the `DerivedSpec` and `Derived` contracts).
        unsafe { num_components(S::Value::DESC, self as *const S as *const u8) }
    }
    #[inline]
    fn component_paths(&self) -> Vec<String> {
        // SAFETY: `self`, `other` and `value` are specs or values of the type `DESC` describes (the `DerivedSpec` and `Derived` contracts).
        unsafe { component_paths(S::Value::DESC, self as *const S as *const u8) }
    }
    #[inline]
    fn validity(&self) -> Vec<(String, String)> {
        // SAFETY: `self` is a spec of the type `DESC` describes (the `DerivedSpec` contract).
        unsafe { validity(S::Value::DESC, self as *const S as *const u8) }
    }
    #[inline]
    fn to_components<'a>(&self, value: &'a S::Value) -> Vec<TensorView<'a>> {
        // SAFETY: `self`, `other` and `value` are specs or values of the type `DESC` describes (the `DerivedSpec` and `Derived` contracts).
        unsafe { views(S::Value::DESC, value as *const S::Value as *const u8) }
    }
    #[inline]
    fn from_components(&self, components: Vec<Tensor>) -> Result<S::Value> {
        from_components::<S::Value>(self, components)
    }
    #[inline]
    fn with_component_specs(&self, specs: Vec<TensorSpec>) -> Result<Self> {
        with_component_specs::<S::Value>(self, specs)
    }
    #[inline]
    fn from_source(source: &mut dyn SpecSource) -> Result<Self> {
        spec_from_source::<S::Value>(source)
    }
    #[inline]
    fn serialize(&self) -> SpecTree {
        // SAFETY: `self`, `other` and `value` are specs or values of the type `DESC` describes (the `DerivedSpec` and `Derived` contracts).
        unsafe { spec_to_value(S::Value::DESC, self as *const S as *const u8) }
    }
    fn fmt_compact(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // SAFETY: `self`, `other` and `value` are specs or values of the type `DESC` describes (the `DerivedSpec` and `Derived` contracts).
        unsafe { spec_display(S::Value::DESC, self as *const S as *const u8, f) }
    }
    #[inline]
    fn deserialize(value: &SpecTree) -> Result<Self> {
        spec_from_value::<S::Value>(value, &FieldPath::Root)
    }
    #[inline]
    fn is_compatible_with(&self, other: &Self) -> bool {
        let (a, b) = (
            self as *const S as *const u8,
            other as *const S as *const u8,
        );
        // SAFETY: `self`, `other` and `value` are specs or values of the type `DESC` describes (the `DerivedSpec` and `Derived` contracts).
        unsafe { spec_is_compatible(S::Value::DESC, a, b) }
    }
    #[inline]
    fn most_specific_compatible(&self, other: &Self) -> Option<Self> {
        most_specific_compatible::<S::Value>(self, other)
    }
}

// ---------------------------------------------------------------------------------------------
// Walking the fields (non-generic: compiled once for every derived type)

/// Drops the first `count` fields of a partly initialised value (`spec == false`) or spec.
///
/// # Safety
/// Those fields at `base` are initialised and not used afterwards.
unsafe fn drop_fields(desc: &StructDesc, base: *mut u8, count: usize, spec: bool) {
    for field in &desc.fields[..count] {
        // SAFETY: the caller guarantees field `i < count` is initialised at its offset.
        unsafe {
            if spec {
                (field.ops.drop_spec)(base.add(field.spec_offset))
            } else {
                (field.ops.drop_value)(base.add(field.value_offset))
            }
        }
    }
}

/// # Safety
/// `value` points to a live value described by `desc`; `out` to an uninitialised spec of it.
unsafe fn write_field_spec(desc: &StructDesc, value: *const u8, out: *mut u8) {
    for f in desc.fields {
        // SAFETY: offsets and ops come from the `Derived` table of the pointees' type.
        unsafe { (f.ops.field_spec)(value.add(f.value_offset), out.add(f.spec_offset)) }
    }
}

/// The number of components of a spec.
///
/// # Safety
/// `spec` points to a live spec described by `desc`.
pub unsafe fn num_components(desc: &StructDesc, spec: *const u8) -> usize {
    let mut n = 0;
    for f in desc.fields {
        // SAFETY: as for `write_field_spec`.
        n += unsafe { (f.ops.num_components)(spec.add(f.spec_offset)) };
    }
    n
}

/// Pushes each component's spec.
///
/// # Safety
/// `spec` points to a live spec described by `desc`.
pub unsafe fn component_specs(
    desc: &StructDesc,
    spec: *const u8,
    path: &FieldPath<'_>,
    out: &mut dyn Sink<TensorSpec>,
) {
    for f in desc.fields {
        // SAFETY: as for `write_field_spec`.
        unsafe { (f.ops.component_specs)(spec.add(f.spec_offset), &f.path(path), out) }
    }
    for &(mask, values) in desc.validity {
        if let (Some(m), Some(v)) = (desc.fields.get(mask), desc.fields.get(values)) {
            out.validity(&m.path(path), &v.path(path));
        }
    }
}

/// The validity declarations of a spec and of the types nested in it: `(mask path, values
/// path)` in component-path terms (`signal.mask`, `items[1].mask`).
///
/// # Safety
/// `spec` points to a live spec described by `desc`.
pub unsafe fn validity(desc: &StructDesc, spec: *const u8) -> Vec<(String, String)> {
    let mut out = ValiditySink::default();
    // SAFETY: forwarded from the caller.
    unsafe { component_specs(desc, spec, &FieldPath::Root, &mut out) };
    out.0
}

/// The component specs, in component order.
///
/// # Safety
/// `spec` points to a live spec described by `desc`.
pub unsafe fn component_spec_list(desc: &StructDesc, spec: *const u8) -> Vec<TensorSpec> {
    // SAFETY: forwarded from the caller.
    let mut out = Vec::with_capacity(unsafe { num_components(desc, spec) });
    // SAFETY: forwarded from the caller.
    unsafe { component_specs(desc, spec, &FieldPath::Root, &mut out) };
    out
}

/// The component paths (`values`, `parts[1]`), in component order.
///
/// # Safety
/// `spec` points to a live spec described by `desc`.
pub unsafe fn component_paths(desc: &StructDesc, spec: *const u8) -> Vec<String> {
    let mut out = PathSink::default();
    // SAFETY: forwarded from the caller.
    unsafe { component_specs(desc, spec, &FieldPath::Root, &mut out) };
    out.0.into_iter().map(|(path, _)| path).collect()
}

/// Pushes a view of each component.
///
/// # Safety
/// `value` points to a live value described by `desc` that outlives `'a`.
pub unsafe fn push_views<'a>(
    desc: &StructDesc,
    value: *const u8,
    path: &FieldPath<'_>,
    out: &mut dyn Sink<TensorView<'a>>,
) {
    for f in desc.fields {
        // SAFETY: as for `write_field_spec`; the views borrow the value for `'a`.
        unsafe { (f.ops.push_views)(value.add(f.value_offset), &f.path(path), out) }
    }
}

/// Views of the components, in component order.
///
/// # Safety
/// `value` points to a live value described by `desc` that outlives `'a`.
pub unsafe fn views<'a>(desc: &StructDesc, value: *const u8) -> Vec<TensorView<'a>> {
    let mut out = Vec::with_capacity(desc.fields.len());
    // SAFETY: forwarded from the caller.
    unsafe { push_views(desc, value, &FieldPath::Root, &mut out) };
    out
}

/// Moves each component out of the value.
///
/// # Safety
/// `value` points to a live value described by `desc`, which the caller gives up: every field
/// is moved out, and the value must not be used or dropped afterwards.
unsafe fn push_components(
    desc: &StructDesc,
    value: *mut u8,
    path: &FieldPath<'_>,
    out: &mut dyn Sink<Tensor>,
) {
    for f in desc.fields {
        // SAFETY: each field is read (moved) exactly once.
        unsafe { (f.ops.push_components)(value.add(f.value_offset), &f.path(path), out) }
    }
    for f in desc.skipped {
        // SAFETY: each skipped field is dropped exactly once; the value is given up.
        unsafe { (f.ops.drop_value)(value.add(f.value_offset)) }
    }
}

/// The components wrapped for rebuilding, after checking their count against the spec.
///
/// # Safety
/// `spec` points to a live spec described by `desc`.
unsafe fn checked_components(
    desc: &StructDesc,
    spec: *const u8,
    components: Vec<Tensor>,
) -> Result<Components> {
    // SAFETY: forwarded from the caller.
    let expected = unsafe { num_components(desc, spec) };
    if components.len() == expected {
        Ok(Components::new(components))
    } else {
        Err(count_mismatch(desc, expected, components.len()))
    }
}

/// The components, moved out of the value at `value`, in component order.
///
/// # Safety
/// As for [`push_components`]: the value is given up.
unsafe fn components_moved(desc: &StructDesc, value: *mut u8) -> Vec<Tensor> {
    let mut out = Vec::with_capacity(desc.fields.len());
    // SAFETY: forwarded from the caller.
    unsafe { push_components(desc, value, &FieldPath::Root, &mut out) };
    out
}

/// # Safety
/// `spec` points to a live spec described by `desc`; `out` to an uninitialised value. On `Ok`
/// every field of `out` is initialised; on `Err` none is (what was built is dropped).
unsafe fn write_from_components(
    desc: &StructDesc,
    spec: *const u8,
    path: &FieldPath<'_>,
    components: &mut Components,
    out: *mut u8,
) -> Result<()> {
    for (i, f) in desc.fields.iter().enumerate() {
        // SAFETY: as for `write_field_spec`.
        let built = unsafe {
            (f.ops.from_components)(
                spec.add(f.spec_offset),
                &f.path(path),
                components,
                out.add(f.value_offset),
            )
        };
        if let Err(e) = built {
            // SAFETY: fields `..i` were written above.
            unsafe { drop_fields(desc, out, i, false) };
            return Err(e);
        }
    }
    for f in desc.skipped {
        // SAFETY: the skipped fields are the rest of the value, still uninitialised. (Should a
        // `default()` panic, what was written leaks: no double drop.)
        unsafe { (f.ops.default_into)(out.add(f.value_offset)) }
    }
    Ok(())
}

/// The serialized spec: `SpecTree::Spec` named by the registered name, its fields a map in
/// declaration order.
///
/// # Safety
/// `spec` points to a live spec described by `desc`.
pub unsafe fn spec_to_value(desc: &StructDesc, spec: *const u8) -> SpecTree {
    let mut fields = crate::spec_tree::Fields::new();
    for f in desc.fields {
        // SAFETY: as for `write_field_spec`.
        let value = unsafe { (f.ops.spec_to_value)(spec.add(f.spec_offset)) };
        fields.insert(f.key.to_string(), value);
    }
    SpecTree::versioned_spec(
        desc.registered_name(),
        desc.evolution.version,
        SpecTree::Map(fields),
    )
}

impl StructDesc {
    /// The current fields' keys, in declaration order.
    pub fn keys(&self) -> Vec<&'static str> {
        self.fields.iter().map(|f| f.key).collect()
    }

    /// Whether `named` (a stored spec of this type) needs no upgrade: the current version, the
    /// registered name and exactly the current fields.
    pub fn is_current(&self, named: &crate::spec_tree::NamedSpec) -> bool {
        if named.version != self.evolution.version {
            return false;
        }
        let SpecTree::Map(fields) = &named.value else {
            // Not a struct's fields: the reader's error.
            return true;
        };
        // No allocation: this runs on every read of a stored spec.
        (named.name == self.name || named.name == self.registered_name())
            && fields.len() == self.fields.len()
            && self.fields.iter().all(|f| fields.contains_key(f.key))
    }

    /// Upgrades `stored` to this type's current version and name (see
    /// [`Evolution::upgrade`]); the current spec tree.
    pub fn upgrade(&self, stored: &mut Stored) -> Result<SpecTree> {
        let name = self.registered_name();
        self.evolution.upgrade(name, &self.keys(), stored)?;
        Ok(self.tree_of(stored))
    }

    /// The spec tree of an upgraded stored value (its fields, under the current name and
    /// version).
    pub fn tree_of(&self, stored: &Stored) -> SpecTree {
        let mut fields = crate::spec_tree::Fields::new();
        for key in stored.keys() {
            if let Some(spec) = stored.spec(key) {
                fields.insert(key.to_string(), spec.clone());
            }
        }
        SpecTree::versioned_spec(
            self.registered_name(),
            self.evolution.version,
            SpecTree::Map(fields),
        )
    }
}

/// The stored spec `value` of the type `desc` describes, upgraded to the current version when
/// it is not current (a spec document alone: no data); `None` when it is current.
fn upgraded_spec(desc: &StructDesc, value: &SpecTree) -> Result<Option<SpecTree>> {
    let SpecTree::Spec(named) = value else {
        return Ok(None);
    };
    let known = named.name == desc.name
        || named.name == desc.registered_name()
        || desc.evolution.is_alias(&named.name);
    if !known || desc.is_current(named) {
        return Ok(None);
    }
    let SpecTree::Map(fields) = &named.value else {
        return Ok(None);
    };
    let mut stored = Stored::from_parts(&named.name, named.version, fields.clone(), None);
    desc.upgrade(&mut stored).map(Some)
}

/// # Safety
/// `out` points to an uninitialised spec described by `desc`. On `Ok` it is initialised; on
/// `Err` nothing in it is.
unsafe fn write_spec_from_value(
    desc: &StructDesc,
    value: &SpecTree,
    path: &FieldPath<'_>,
    out: *mut u8,
) -> Result<()> {
    let upgraded = upgraded_spec(desc, value)?;
    let value = upgraded.as_ref().unwrap_or(value);
    let keys: Vec<&'static str> = desc.fields.iter().map(|f| f.key).collect();
    let name = desc.registered_name();
    let fields = StructFields::open_named(value, path, name, desc.name, &keys)?;
    for (i, f) in desc.fields.iter().enumerate() {
        // Present: `open_named` checked every key.
        let field_value = fields.get(f.key)?;
        // SAFETY: as for `write_field_spec`.
        let decoded =
            unsafe { (f.ops.spec_from_value)(field_value, &f.path(path), out.add(f.spec_offset)) };
        if let Err(e) = decoded {
            // SAFETY: fields `..i` were written above.
            unsafe { drop_fields(desc, out, i, true) };
            return Err(e);
        }
    }
    // SAFETY: every field of `out` was written above.
    unsafe { refine_or_drop(desc, path, out) }
}

/// Refines the complete spec at `out` with the type's shape contract, if it has one; on an error
/// drops the spec (so nothing in `out` is initialised).
///
/// # Safety
/// `out` points to a complete spec described by `desc`.
unsafe fn refine_or_drop(desc: &StructDesc, path: &FieldPath<'_>, out: *mut u8) -> Result<()> {
    if let Some(contract) = desc.contract {
        // SAFETY: the spec is complete (the caller's contract); the shapes are disjoint fields.
        let refined = unsafe { refine_spec(desc, contract, path, out) };
        if let Err(e) = refined {
            // SAFETY: every field is initialised (the caller's contract).
            unsafe { drop_fields(desc, out, desc.fields.len(), true) };
            return Err(e);
        }
    }
    Ok(())
}

/// Writes to `out` the spec at `spec` with each field's component specs replaced by the next
/// ones of `specs` (static data kept), refined with the shape contract.
///
/// # Safety
/// `spec` points to a live spec described by `desc`; `out` to an uninitialised one. On `Ok` it
/// is initialised; on `Err` nothing in it is.
unsafe fn write_with_component_specs(
    desc: &StructDesc,
    spec: *const u8,
    path: &FieldPath<'_>,
    specs: &mut ComponentSpecs,
    out: *mut u8,
) -> Result<()> {
    for (i, f) in desc.fields.iter().enumerate() {
        let o = f.spec_offset;
        // SAFETY: as for `write_field_spec`.
        let built =
            unsafe { (f.ops.with_component_specs)(spec.add(o), &f.path(path), specs, out.add(o)) };
        if let Err(e) = built {
            // SAFETY: fields `..i` were written above.
            unsafe { drop_fields(desc, out, i, true) };
            return Err(e);
        }
    }
    // SAFETY: every field of `out` was written above.
    unsafe { refine_or_drop(desc, path, out) }
}

/// Writes to `out` the spec read from `source`, field by field, refined with the shape contract.
///
/// # Safety
/// `out` points to an uninitialised spec described by `desc`. On `Ok` it is initialised; on
/// `Err` nothing in it is.
unsafe fn write_spec_from_source(
    desc: &StructDesc,
    path: &FieldPath<'_>,
    source: &mut dyn SpecSource,
    out: *mut u8,
) -> Result<()> {
    for (i, f) in desc.fields.iter().enumerate() {
        // SAFETY: as for `write_field_spec`.
        let built =
            unsafe { (f.ops.spec_from_source)(&f.path(path), source, out.add(f.spec_offset)) };
        if let Err(e) = built {
            // SAFETY: fields `..i` were written above.
            unsafe { drop_fields(desc, out, i, true) };
            return Err(e);
        }
    }
    // SAFETY: every field of `out` was written above.
    unsafe { refine_or_drop(desc, path, out) }
}

/// The spec read from `source`: see [`TypeSpec::from_source`].
pub fn spec_from_source<T: Derived>(source: &mut dyn SpecSource) -> Result<<T as Field>::Spec> {
    source.derived_at(std::any::TypeId::of::<T>(), "");
    let mut out = MaybeUninit::<<T as Field>::Spec>::uninit();
    // SAFETY: `T::DESC` describes `T::Spec`; on `Ok` every field of `out` is written.
    unsafe {
        match write_spec_from_source(
            T::DESC,
            &FieldPath::Root,
            source,
            out.as_mut_ptr() as *mut u8,
        ) {
            Ok(()) => Ok(out.assume_init()),
            Err(e) => Err(e),
        }
    }
}

/// [`write_with_component_specs`] from the root, after checking that `specs` holds exactly
/// one spec per component of the spec at `spec`.
///
/// # Safety
/// As for [`write_with_component_specs`].
pub(crate) unsafe fn write_replaced_spec(
    desc: &StructDesc,
    spec: *const u8,
    specs: Vec<TensorSpec>,
    out: *mut u8,
) -> Result<()> {
    // SAFETY: forwarded from the caller.
    let expected = unsafe { num_components(desc, spec) };
    if specs.len() != expected {
        return Err(count_mismatch(desc, expected, specs.len()));
    }
    let mut specs = ComponentSpecs::new(specs);
    // SAFETY: forwarded from the caller.
    unsafe { write_with_component_specs(desc, spec, &FieldPath::Root, &mut specs, out) }
}

/// Refines the shapes of the contract's fields in place.
///
/// # Safety
/// `spec` points to a live, exclusively borrowed spec described by `desc`.
unsafe fn refine_spec(
    desc: &StructDesc,
    contract: &ShapeContract,
    path: &FieldPath<'_>,
    spec: *mut u8,
) -> Result<()> {
    let mut shapes: Vec<&mut Shape> = Vec::with_capacity(desc.fields.len());
    for f in desc.fields {
        if let Some(shape) = f.shape {
            // SAFETY: distinct fields, so the `&mut` borrows are disjoint.
            shapes.push(unsafe { &mut *(shape.spec_shape_mut)(spec.add(f.spec_offset)) });
        }
    }
    contract.refine(path, &mut shapes)
}

/// Checks a value against its type's shape contract.
///
/// # Safety
/// `value` points to a live value described by `desc`.
pub unsafe fn check_contract(desc: &StructDesc, value: *const u8) -> Result<()> {
    let Some(contract) = desc.contract else {
        return Ok(());
    };
    let mut shapes: Vec<&[usize]> = Vec::with_capacity(desc.fields.len());
    for f in desc.fields {
        if let Some(shape) = f.shape {
            // SAFETY: as for `write_field_spec`.
            shapes.push(unsafe { &*(shape.concrete_shape)(value.add(f.value_offset)) });
        }
    }
    contract.check(&FieldPath::Root, &shapes)
}

/// Loose compatibility, field by field.
///
/// # Safety
/// `a` and `b` point to live specs described by `desc`.
pub unsafe fn spec_is_compatible(desc: &StructDesc, a: *const u8, b: *const u8) -> bool {
    desc.fields.iter().all(|f| {
        // SAFETY: as for `write_field_spec`.
        unsafe { (f.ops.spec_is_compatible)(a.add(f.spec_offset), b.add(f.spec_offset)) }
    })
}

/// # Safety
/// `a` and `b` point to live specs described by `desc`, `out` to an uninitialised one. On
/// `true` `out` is initialised; on `false` nothing in it is.
unsafe fn write_most_specific_compatible(
    desc: &StructDesc,
    a: *const u8,
    b: *const u8,
    out: *mut u8,
) -> bool {
    for (i, f) in desc.fields.iter().enumerate() {
        let o = f.spec_offset;
        // SAFETY: as for `write_field_spec`.
        if !unsafe { (f.ops.spec_most_specific_compatible)(a.add(o), b.add(o), out.add(o)) } {
            // SAFETY: fields `..i` were written above.
            unsafe { drop_fields(desc, out, i, true) };
            return false;
        }
    }
    true
}

/// # Safety
/// `spec` points to a live spec described by `desc`, `out` to an uninitialised one, which is
/// initialised on return. A panicking clone leaks the fields cloned so far.
unsafe fn write_spec_clone(desc: &StructDesc, spec: *const u8, out: *mut u8) {
    for f in desc.fields {
        // SAFETY: as for `write_field_spec`.
        unsafe { (f.ops.spec_clone)(spec.add(f.spec_offset), out.add(f.spec_offset)) }
    }
}

/// Strict equality, field by field.
///
/// # Safety
/// `a` and `b` point to live specs described by `desc`.
pub unsafe fn spec_eq(desc: &StructDesc, a: *const u8, b: *const u8) -> bool {
    desc.fields.iter().all(|f| {
        // SAFETY: as for `write_field_spec`.
        unsafe { (f.ops.spec_eq)(a.add(f.spec_offset), b.add(f.spec_offset)) }
    })
}

/// Hashes each field's spec in declaration order (what a derived `Hash` does).
///
/// # Safety
/// `spec` points to a live spec described by `desc`.
pub unsafe fn spec_hash(desc: &StructDesc, spec: *const u8, state: &mut dyn Hasher) {
    for f in desc.fields {
        // SAFETY: as for `write_field_spec`.
        unsafe { (f.ops.spec_hash)(spec.add(f.spec_offset), state) }
    }
}

/// `FooSpec { values: …, mask: … }`, as a derived `Debug` prints it.
///
/// # Safety
/// `spec` points to a live spec described by `desc`.
pub unsafe fn spec_debug(
    desc: &StructDesc,
    spec: *const u8,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    if desc.tuple {
        let mut t = f.debug_tuple(desc.spec_name);
        for field in desc.fields {
            // SAFETY: as for `write_field_spec`.
            t.field(unsafe { &*(field.ops.spec_debug)(spec.add(field.spec_offset)) });
        }
        t.finish()
    } else {
        let mut s = f.debug_struct(desc.spec_name);
        for field in desc.fields {
            // SAFETY: as for `write_field_spec`.
            s.field(field.key, unsafe {
                &*(field.ops.spec_debug)(spec.add(field.spec_offset))
            });
        }
        s.finish()
    }
}

/// `pkg.Masked { values: f32[8, ?], mask: bool[8, ?] }`, fields in declaration order.
///
/// # Safety
/// `spec` points to a live spec described by `desc`.
pub unsafe fn spec_display(
    desc: &StructDesc,
    spec: *const u8,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    f.write_str(desc.registered_name())?;
    f.write_str(" {")?;
    for (i, field) in desc.fields.iter().enumerate() {
        f.write_str(if i == 0 { " " } else { ", " })?;
        write!(f, "{}: ", field.key)?;
        // SAFETY: as for `write_field_spec`.
        unsafe { (field.ops.spec_fmt)(spec.add(field.spec_offset), f) }?;
    }
    f.write_str(if desc.fields.is_empty() { "}" } else { " }" })
}

#[cold]
#[inline(never)]
fn count_mismatch(desc: &StructDesc, expected: usize, found: usize) -> Error {
    SpecError::ComponentCount {
        type_name: desc.registered_name().to_string(),
        expected,
        found,
    }
    .into()
}

// ---------------------------------------------------------------------------------------------
// A derived type as a field: its `Field` impl takes every method from its table

// SAFETY (every `unsafe` block below): the pointers point to values, specs or uninitialised
// memory of the type this table describes (the `StructField` contract, vouched for where the
// derive builds the type's `StructTable`).
impl StructField for StructDesc {
    unsafe fn write_field_spec(&self, value: *const u8, out: *mut u8) {
        // SAFETY: the pointers are of the type this table describes (the contract of this `StructField` method).
        unsafe { write_field_spec(self, value, out) }
    }
    unsafe fn num_components(&self, spec: *const u8) -> usize {
        // SAFETY: the pointers are of the type this table describes (the contract of this `StructField` method).
        unsafe { num_components(self, spec) }
    }
    unsafe fn component_specs(
        &self,
        spec: *const u8,
        path: &FieldPath<'_>,
        out: &mut dyn Sink<TensorSpec>,
    ) {
        // SAFETY: the pointers are of the type this table describes (the contract of this `StructField` method).
        unsafe { component_specs(self, spec, path, out) }
    }
    unsafe fn push_views<'a>(
        &self,
        value: *const u8,
        path: &FieldPath<'_>,
        out: &mut dyn Sink<TensorView<'a>>,
    ) {
        // SAFETY: the pointers are of the type this table describes (the contract of this `StructField` method).
        unsafe { push_views(self, value, path, out) }
    }
    unsafe fn push_components(
        &self,
        value: *mut u8,
        path: &FieldPath<'_>,
        out: &mut dyn Sink<Tensor>,
    ) {
        // SAFETY: the pointers are of the type this table describes (the contract of this `StructField` method).
        unsafe { push_components(self, value, path, out) }
    }
    unsafe fn write_from_components(
        &self,
        spec: *const u8,
        path: &FieldPath<'_>,
        components: &mut Components,
        out: *mut u8,
    ) -> Result<()> {
        // SAFETY: the pointers are of the type this table describes (the contract of this `StructField` method).
        unsafe { write_from_components(self, spec, path, components, out) }?;
        // The nested values were validated as they were rebuilt: what is left is the type's
        // own checks (contract, `validate = …`).
        // SAFETY: the pointers are of the type this table describes (the contract of this `StructField` method).
        match unsafe { self.check_own(out) } {
            Ok(()) => Ok(()),
            Err(e) => {
                // SAFETY: `write_from_components` initialised `out` above; it is given up here, its checks failed.
                unsafe { self.types.drop_value(out) };
                Err(invalid(e, path, self.registered_name()))
            }
        }
    }
    unsafe fn write_with_component_specs(
        &self,
        spec: *const u8,
        path: &FieldPath<'_>,
        specs: &mut ComponentSpecs,
        out: *mut u8,
    ) -> Result<()> {
        // SAFETY: the pointers are of the type this table describes (the contract of this `StructField` method).
        unsafe { write_with_component_specs(self, spec, path, specs, out) }
    }
    unsafe fn write_spec_from_source(
        &self,
        path: &FieldPath<'_>,
        source: &mut dyn SpecSource,
        out: *mut u8,
    ) -> Result<()> {
        // SAFETY: the pointers are of the type this table describes (the contract of this `StructField` method).
        unsafe { write_spec_from_source(self, path, source, out) }
    }
    unsafe fn spec_to_value(&self, spec: *const u8) -> SpecTree {
        // SAFETY: the pointers are of the type this table describes (the contract of this `StructField` method).
        unsafe { spec_to_value(self, spec) }
    }
    unsafe fn write_spec_from_value(
        &self,
        value: &SpecTree,
        path: &FieldPath<'_>,
        out: *mut u8,
    ) -> Result<()> {
        // SAFETY: the pointers are of the type this table describes (the contract of this `StructField` method).
        unsafe { write_spec_from_value(self, value, path, out) }
    }
    unsafe fn spec_is_compatible(&self, a: *const u8, b: *const u8) -> bool {
        // SAFETY: the pointers are of the type this table describes (the contract of this `StructField` method).
        unsafe { spec_is_compatible(self, a, b) }
    }
    unsafe fn write_most_specific_compatible(
        &self,
        a: *const u8,
        b: *const u8,
        out: *mut u8,
    ) -> bool {
        // SAFETY: the pointers are of the type this table describes (the contract of this `StructField` method).
        unsafe { write_most_specific_compatible(self, a, b, out) }
    }
    unsafe fn spec_fmt(&self, spec: *const u8, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // SAFETY: the pointers are of the type this table describes (the contract of this `StructField` method).
        unsafe { spec_display(self, spec, f) }
    }
    unsafe fn validate_nested(&self, value: *const u8, path: &FieldPath<'_>) -> Result<()> {
        // SAFETY: the pointers are of the type this table describes (the contract of this `StructField` method).
        match unsafe { self.check_all(value) } {
            Ok(()) => Ok(()),
            Err(e) => Err(invalid(e, path, self.registered_name())),
        }
    }
}

// SAFETY (every `unsafe` block below): as for `StructField`, vouched for where the derive builds
// the type's `ValueTable`.
impl ValueOps for StructDesc {
    unsafe fn write_spec(&self, value: *const u8, out: *mut u8) {
        // SAFETY: the pointers are of the type this table describes (the contract of this `ValueOps` method).
        unsafe { write_field_spec(self, value, out) }
    }
    unsafe fn components(&self, value: *mut u8) -> Vec<Tensor> {
        // SAFETY: the pointers are of the type this table describes (the contract of this `ValueOps` method).
        unsafe { components_moved(self, value) }
    }
    unsafe fn validate(&self, value: *const u8) -> Result<()> {
        // SAFETY: the pointers are of the type this table describes (the contract of this `ValueOps` method).
        unsafe { self.check_all(value) }
    }
}

// ---------------------------------------------------------------------------------------------
// Typed entry points (generic only where a value or spec is built, and then a few lines)

// The typed entry points below avoid `?`, closures and pointer methods: each of those would be
// compiled once more for every derived type.

/// Rebuilds a value from exactly its components (the count is checked first), through the
/// type's `Field::from_components` (written field by field: the typed API's hot path).
pub fn from_components<T: Derived>(
    spec: &<T as Field>::Spec,
    components: Vec<Tensor>,
) -> Result<T> {
    let erased = spec as *const <T as Field>::Spec as *const u8;
    // SAFETY: `T::DESC` describes `T::Spec`.
    match unsafe { checked_components(T::DESC, erased, components) } {
        Ok(mut components) => T::from_components(spec, &FieldPath::Root, &mut components),
        Err(e) => Err(e),
    }
}

/// Deserializes a spec, then refines it with the type's shape contract, if any.
pub fn spec_from_value<T: Derived>(
    value: &SpecTree,
    path: &FieldPath<'_>,
) -> Result<<T as Field>::Spec> {
    let mut out = MaybeUninit::<<T as Field>::Spec>::uninit();
    // SAFETY: `T::DESC` describes `T::Spec`; on `Ok` every field of `out` is written.
    unsafe {
        match write_spec_from_value(T::DESC, value, path, out.as_mut_ptr() as *mut u8) {
            Ok(()) => Ok(out.assume_init()),
            Err(e) => Err(e),
        }
    }
}

/// The spec with its component specs replaced, in component order (exactly one per
/// component), refined with the type's shape contract: see
/// [`TypeSpec::with_component_specs`].
pub fn with_component_specs<T: Derived>(
    spec: &<T as Field>::Spec,
    specs: Vec<TensorSpec>,
) -> Result<<T as Field>::Spec> {
    let mut out = MaybeUninit::<<T as Field>::Spec>::uninit();
    let spec = spec as *const <T as Field>::Spec as *const u8;
    // SAFETY: `T::DESC` describes `T::Spec`; on `Ok` every field of `out` is written.
    unsafe {
        match write_replaced_spec(T::DESC, spec, specs, out.as_mut_ptr() as *mut u8) {
            Ok(()) => Ok(out.assume_init()),
            Err(e) => Err(e),
        }
    }
}

/// Refines a spec in place with the type's shape contract (if it has none, there is nothing to
/// refine).
pub fn refine<T: Derived>(spec: &mut <T as Field>::Spec) -> Result<()> {
    let Some(contract) = T::DESC.contract else {
        return Ok(());
    };
    let spec = spec as *mut <T as Field>::Spec as *mut u8;
    // SAFETY: `T::DESC` describes `T::Spec`, which is exclusively borrowed.
    unsafe { refine_spec(T::DESC, contract, &FieldPath::Root, spec) }
}

/// The most specific spec compatible with both; `None` when a field has none.
pub fn most_specific_compatible<T: Derived>(
    a: &<T as Field>::Spec,
    b: &<T as Field>::Spec,
) -> Option<<T as Field>::Spec> {
    let mut out = MaybeUninit::<<T as Field>::Spec>::uninit();
    let a = a as *const <T as Field>::Spec as *const u8;
    let b = b as *const <T as Field>::Spec as *const u8;
    // SAFETY: `T::DESC` describes `T::Spec`; on `true` every field of `out` is written.
    unsafe {
        if write_most_specific_compatible(T::DESC, a, b, out.as_mut_ptr() as *mut u8) {
            Some(out.assume_init())
        } else {
            None
        }
    }
}

/// A field-by-field clone of a spec.
pub fn clone_spec<T: Derived>(spec: &<T as Field>::Spec) -> <T as Field>::Spec {
    let mut out = MaybeUninit::<<T as Field>::Spec>::uninit();
    let spec = spec as *const <T as Field>::Spec as *const u8;
    // SAFETY: `T::DESC` describes `T::Spec`; every field of `out` is written.
    unsafe {
        write_spec_clone(T::DESC, spec, out.as_mut_ptr() as *mut u8);
        out.assume_init()
    }
}

/// The error of a derived builder's `build` when a field of the spec was never set
/// (`Masked::builder(): field `mask` was never set; call `.mask(…)` before `build()``).
#[cold]
pub fn unset_field(type_name: &str, field: &str) -> Error {
    Error::invalid(format!(
        "{type_name}::builder(): field `{field}` was never set; call `.{field}(…)` before \
         `build()`"
    ))
}

/// Runs the value's validation; a failure names the type and the field path.
#[inline]
pub fn validated<T: ExtensionType>(value: T, path: &FieldPath<'_>) -> Result<T> {
    match value.validate() {
        Ok(()) => Ok(value),
        Err(e) => Err(invalid(e, path, registered_name::<T>())),
    }
}

/// Checks the extension values nested in the fields of a value (what a derived `validate`
/// runs before the type's own checks); paths are relative to the value.
///
/// # Safety
/// `value` points to a live value described by `desc`.
pub unsafe fn validate_fields(desc: &StructDesc, value: *const u8) -> Result<()> {
    for f in desc.fields {
        // SAFETY: the field lies at its offset in the value (the caller's contract).
        unsafe { (f.ops.validate_nested)(value.add(f.value_offset), &f.path(&FieldPath::Root)) }?;
    }
    Ok(())
}

/// A validation failure of the value at `path`, of the type named `type_name` (what
/// [`Error::invalid`] left blank filled in). A failure already located in a value nested
/// deeper keeps its type and gets `path` put in front of its own.
#[cold]
#[inline(never)]
pub(crate) fn invalid(error: Error, path: &FieldPath<'_>, type_name: &str) -> Error {
    let (inner_type, inner_path, message) = match error {
        Error::Spec(e) => match *e {
            SpecError::Invalid {
                type_name,
                path,
                message,
            } => (type_name, path, message),
            other => (String::new(), String::new(), other.to_string()),
        },
        other => (String::new(), String::new(), other.to_string()),
    };
    let outer = path.to_string();
    let (type_name, path) = if inner_type.is_empty() {
        (type_name.to_string(), outer)
    } else if outer.is_empty() || inner_path.is_empty() {
        (inner_type, outer + &inner_path)
    } else if inner_path.starts_with('[') {
        (inner_type, format!("{outer}{inner_path}"))
    } else {
        (inner_type, format!("{outer}.{inner_path}"))
    };
    SpecError::Invalid {
        type_name,
        path,
        message,
    }
    .into()
}
