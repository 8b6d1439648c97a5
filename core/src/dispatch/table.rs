//! The dispatch table: built once from the registered entries; a call indexes its op's handlers
//! by catalog slot and compares argument types with the few exact handlers (hashed past eight).

use std::any::TypeId;
use std::cell::Cell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::OnceLock;

use smallvec::SmallVec;

use super::entry::{Call, DispatchEntry, Handled, ParamKind, Target};
use crate::error::{DispatchError, Error, Result};
use extype_shape::signature::OpKind;

use crate::op_model::args::OpArgs;
use crate::op_model::catalog::ALL;
use crate::op_model::dense;
use crate::op_model::infer::{self, Inferred};
use crate::op_model::op::Op;
use crate::op_model::operand::Operand;
use crate::registry::{AnonymousExtension, registry};
use crate::spec::TensorSpec;
use crate::spec::value::{Value, ValueSpec};
use crate::tensor::Tensor;
use extype_shape::signature::arguments;

/// The most arguments an exact key holds; handlers with more dispatched arguments are refused
/// when the table is built. The same constant as the leaf crate's
/// [`MAX_DISPATCH_ARGS`](extype_shape::signature::MAX_DISPATCH_ARGS), which `#[dispatch]` checks.
pub const MAX_KEY: usize = extype_shape::signature::MAX_DISPATCH_ARGS;

/// A fast hasher for short keys (`TypeId`s and op names), FxHash's mixing step.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(word));
        }
        for &b in chunks.remainder() {
            self.write_u64(u64::from(b));
        }
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(SEED);
    }
    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }
    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

type Fx = BuildHasherDefault<FxHasher>;

/// An op or a group, by identity (for duplicate detection).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum TargetKey {
    Op(&'static str),
    Group(OpKind),
}

impl TargetKey {
    fn of(target: &Target) -> TargetKey {
        match target {
            Target::Op(op) => TargetKey::Op(op.name()),
            Target::Group(kind) => TargetKey::Group(*kind),
        }
    }
}

/// An op by identity (its name), hashed by the key the op carries (a hash of its name computed
/// at compile time), so a lookup never hashes a string.
#[derive(Debug, Clone, Copy)]
struct OpKey {
    key: u64,
    name: &'static str,
}

impl OpKey {
    #[inline]
    fn of(op: &Op) -> OpKey {
        OpKey {
            key: op.key(),
            name: op.name(),
        }
    }
}

impl PartialEq for OpKey {
    #[inline]
    fn eq(&self, other: &OpKey) -> bool {
        self.key == other.key && (std::ptr::eq(self.name, other.name) || self.name == other.name)
    }
}

impl Eq for OpKey {}

impl Hash for OpKey {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.key);
    }
}

/// The argument types of an exact lookup. Fixed size: building one never allocates.
#[derive(Debug, Clone, Copy)]
struct Ids {
    len: u8,
    ids: [TypeId; MAX_KEY],
}

impl Ids {
    /// The argument types (`None` if there are more than [`MAX_KEY`]: no exact handler takes
    /// that many).
    #[inline]
    fn new(ids: impl ExactSizeIterator<Item = TypeId>) -> Option<Ids> {
        let len = ids.len();
        if len > MAX_KEY {
            return None;
        }
        let mut out = Ids {
            len: len as u8,
            ids: [filler(); MAX_KEY],
        };
        for (slot, id) in out.ids.iter_mut().zip(ids) {
            *slot = id;
        }
        Some(out)
    }

    #[inline]
    fn as_slice(&self) -> &[TypeId] {
        &self.ids[..usize::from(self.len)]
    }
}

impl PartialEq for Ids {
    /// The used slots only (an element loop: no `memcmp` call for two or three ids).
    #[inline]
    fn eq(&self, other: &Ids) -> bool {
        self.len == other.len
            && self
                .as_slice()
                .iter()
                .zip(other.as_slice())
                .all(|(a, b)| a == b)
    }
}

impl Eq for Ids {}

impl Hash for Ids {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u8(self.len);
        for id in self.as_slice() {
            id.hash(state);
        }
    }
}

/// Up to this many exact handlers of one op are found by comparing ids in turn; more, by hash.
const LINEAR_EXACT: usize = 8;

/// The exact handlers of one op, by argument types: few in a list compared in turn (cheaper
/// than hashing), many in a hash map.
#[derive(Debug, Default)]
struct Exact {
    handlers: Vec<(Ids, Resolved)>,
    /// Positions in `handlers`, built when there are more than [`LINEAR_EXACT`].
    index: Option<HashMap<Ids, usize, Fx>>,
}

impl Exact {
    fn insert(&mut self, ids: Ids, resolved: Resolved) {
        let i = self.handlers.len();
        self.handlers.push((ids, resolved));
        match &mut self.index {
            Some(index) => {
                index.insert(ids, i);
            }
            None if self.handlers.len() > LINEAR_EXACT => {
                let all = self.handlers.iter().enumerate();
                self.index = Some(all.map(|(i, (ids, _))| (*ids, i)).collect());
            }
            None => {}
        }
    }

    /// The handler for arguments of exactly these operands' types.
    #[inline]
    fn find(&self, operands: &[Operand<'_>]) -> Option<&Resolved> {
        match &self.index {
            None => self
                .handlers
                .iter()
                .find(|(ids, _)| {
                    usize::from(ids.len) == operands.len()
                        && ids
                            .as_slice()
                            .iter()
                            .zip(operands)
                            .all(|(id, o)| *id == o.type_id())
                })
                .map(|(_, r)| r),
            Some(_) => self.get(&Ids::new(operands.iter().map(Operand::type_id))?),
        }
    }

    /// The handler for arguments of exactly these types.
    #[inline]
    fn get(&self, ids: &Ids) -> Option<&Resolved> {
        match &self.index {
            None => self.handlers.iter().find(|(k, _)| k == ids).map(|(_, r)| r),
            Some(index) => index.get(ids).map(|&i| &self.handlers[i].1),
        }
    }
}

/// The handlers registered for one op.
#[derive(Debug, Default)]
struct OpHandlers {
    /// By exact argument types (no wildcard).
    exact: Exact,
    /// With a wildcard in some position; fewer wildcards first, then source order.
    wildcard: Vec<Resolved>,
    /// Whether some handler here can take a call on dense arguments only.
    takes_dense: bool,
}

/// The group handlers of one kind.
#[derive(Debug, Default)]
struct Group {
    /// Fewer wildcards first, then source order.
    handlers: Vec<Resolved>,
    /// Whether some handler here can take a call on dense arguments only.
    takes_dense: bool,
}

fn filler() -> TypeId {
    TypeId::of::<()>()
}

/// Group handlers without wildcards join the exact handlers of each catalog op of their kind
/// that has no handler of its own for those argument types (exact, or a wildcard one that would
/// match): a call then finds them with the exact lookup, as fast as an op's own handler.
/// Precedence is unchanged — such a handler was the call's first candidate anyway (the op's
/// own handlers come first, and a group's handlers without wildcards lead its list) — and one
/// that declines is not tried again among the group's (see [`DispatchTable::rest`]).
fn promote_group_handlers(catalog: &mut [OpHandlers], groups: &[Group; 3]) {
    for (op, handlers) in ALL.iter().zip(catalog.iter_mut()) {
        let Some(group) = group_index(op.kind()).map(|i| &groups[i]) else {
            continue;
        };
        for resolved in group.handlers.iter().filter(|r| r.wildcards() == 0) {
            let Some(ids) = Ids::new(resolved.kinds.iter().map(|k| k.unwrap_or_else(filler)))
            else {
                continue;
            };
            let taken = handlers.exact.get(&ids).is_some()
                || handlers.wildcard.iter().any(|w| w.matches(ids.as_slice()));
            if !taken {
                handlers.takes_dense |= resolved.takes_dense();
                handlers.exact.insert(ids, resolved.clone());
            }
        }
    }
}

/// A handler's parameter types in one key (`None`: wildcard).
type Key = SmallVec<[Option<TypeId>; 4]>;

/// A handler's target and key while the table is built, and the kind of its last parameter
/// when it takes the remaining arguments: `Some(false)` for `&[&T]`, `Some(true)` for
/// `&[OrDense<T>]`.
type SeenKey = (TargetKey, Vec<Option<TypeId>>, Option<bool>);

/// One entry with its parameter kinds resolved to `TypeId`s (`None`: wildcard).
#[derive(Debug, Clone)]
struct Resolved {
    entry: &'static DispatchEntry,
    kinds: SmallVec<[Option<TypeId>; 4]>,
    /// Whether the last kind takes every remaining argument (`&[&T]`, `&[OrDense<T>]`).
    variadic: bool,
    /// Whether the remaining arguments may also be dense (`&[OrDense<T>]`; a call whose
    /// arguments are all dense is not matched).
    rest_dense: bool,
    /// When another handler has the same key: its index in [`DispatchTable::conflicts`], the
    /// error a call that reaches this handler returns.
    conflict: Option<u32>,
}

impl Resolved {
    fn wildcards(&self) -> usize {
        self.kinds.iter().filter(|k| k.is_none()).count()
    }

    /// Whether the handler can take a call whose arguments are all dense (every parameter takes
    /// `&Tensor` or is a wildcard).
    fn takes_dense(&self) -> bool {
        let tensor = TypeId::of::<Tensor>();
        self.kinds.iter().all(|k| k.is_none_or(|k| k == tensor))
    }

    #[inline]
    fn matches(&self, ids: &[TypeId]) -> bool {
        let fits = |(k, id): (&Option<TypeId>, &TypeId)| k.is_none_or(|k| k == *id);
        if !self.variadic {
            return self.kinds.len() == ids.len() && self.kinds.iter().zip(ids).all(fits);
        }
        // The last kind repeats over every remaining argument (one or more).
        let Some((last, fixed)) = self.kinds.split_last() else {
            return false;
        };
        let tensor = TypeId::of::<Tensor>();
        let dense_ok = |id: &TypeId| self.rest_dense && *id == tensor;
        ids.len() >= self.kinds.len()
            && fixed.iter().zip(ids).all(fits)
            && ids[fixed.len()..]
                .iter()
                .all(|id| fits((last, id)) || dense_ok(id))
            // `&[OrDense<T>]` as `&OrDense<T>`: never every argument dense.
            && !(self.rest_dense && ids.iter().all(|id| *id == tensor))
    }
}

/// The built, validated dispatch table.
///
/// Every call goes through [`DispatchTable::call`]; see the [module docs](super) for the
/// precedence rules.
#[derive(Debug)]
pub struct DispatchTable {
    /// The handlers of each catalog op, at its [`Op::catalog_slot`] (no hashing on a call).
    catalog: Box<[OpHandlers]>,
    /// The handlers of user-declared ops whose names the catalog does not have.
    user: HashMap<OpKey, OpHandlers, Fx>,
    groups: [Group; 3],
    len: usize,
    /// Keys given to two handlers, each error naming both; only calls that reach the key fail.
    conflicts: Vec<Error>,
}

/// The handlers of `op` while a table is built.
fn handlers_mut<'t>(
    catalog: &'t mut [OpHandlers],
    user: &'t mut HashMap<OpKey, OpHandlers, Fx>,
    op: &Op,
) -> &'t mut OpHandlers {
    match op.catalog_slot() {
        Some(i) => &mut catalog[i],
        None => user.entry(OpKey::of(op)).or_default(),
    }
}

fn group_index(kind: OpKind) -> Option<usize> {
    match kind {
        OpKind::UnaryElementwise => Some(0),
        OpKind::BinaryElementwise => Some(1),
        OpKind::Reduction => Some(2),
        OpKind::Other => None,
    }
}

fn target_name(target: &Target) -> String {
    target.to_string()
}

fn bad_handler(entry: &DispatchEntry, message: String) -> Error {
    DispatchError::BadHandler {
        target: target_name(&entry.target),
        handler: entry.name.to_string(),
        at: entry.location(),
        message,
    }
    .into()
}

static TABLE: OnceLock<Result<DispatchTable>> = OnceLock::new();

thread_local! {
    /// How many times this thread has consulted a dispatch table (calls and inferences).
    static CONSULTED: Cell<u64> = const { Cell::new(0) };
}

/// How many times this thread has consulted a dispatch table: each [`DispatchTable::call`]
/// and [`DispatchTable::infer`] (so each `ops::…` call and each [`ops::infer_spec`]) counts
/// once. A diagnostic: a handler that runs its dense parts on the op model directly (the group
/// ops' `apply` on dense operands, [`Tensor::dense_op`]) adds nothing to it, so a test can check
/// that one call of an op on an extension value consults the table once.
///
/// ```
/// use extype_core::{dispatch, ops};
/// let x = ndarray::array![1.0f32, 2.0];
/// let before = dispatch::consultations();
/// ops::add(&x, &x).unwrap();
/// assert_eq!(dispatch::consultations() - before, 1);
/// ```
///
/// [`ops::infer_spec`]: crate::ops::infer_spec
/// [`Tensor::dense_op`]: crate::tensor::Tensor::dense_op
pub fn consultations() -> u64 {
    CONSULTED.with(Cell::get)
}

#[inline(always)]
fn consulted() {
    CONSULTED.with(|c| c.set(c.get().wrapping_add(1)));
}

/// The global dispatch table: built on first use from every `#[dispatch]` handler linked into the
/// program. A key given to two handlers is an error naming both, returned by the calls that
/// reach that key only ([`DispatchTable::check`] lists every such conflict); a handler whose
/// argument count does not fit its op (possible only for entries made by hand) fails the build,
/// and that error is returned on every call.
#[inline]
pub fn table() -> Result<&'static DispatchTable> {
    TABLE
        .get_or_init(|| DispatchTable::build(inventory::iter::<DispatchEntry>))
        .as_ref()
        .map_err(Clone::clone)
}

impl DispatchTable {
    /// Builds and validates a table from entries (the inventory, or an explicit list).
    ///
    /// Errors: an entry whose number of arguments does not fit its op or group; more than
    /// [`MAX_KEY`] dispatched arguments. Two entries with the same target and parameter kinds are
    /// not a build error: the key is marked, and calls that reach it return the error naming both
    /// (file and line); see [`check`](Self::check).
    pub fn build(
        entries: impl IntoIterator<Item = &'static DispatchEntry>,
    ) -> Result<DispatchTable> {
        let mut entries: Vec<&'static DispatchEntry> = entries.into_iter().collect();
        // Sorted so that errors and the order of equal-rank candidates do not depend on link order.
        entries.sort_by(|a, b| (a.file, a.line, a.name).cmp(&(b.file, b.line, b.name)));
        let mut catalog: Box<[OpHandlers]> = ALL.iter().map(|_| OpHandlers::default()).collect();
        let mut user: HashMap<OpKey, OpHandlers, Fx> = HashMap::default();
        let mut groups: [Group; 3] = Default::default();
        // First pass: every entry checked, and the first of each key found.
        let mut seen: HashMap<SeenKey, usize> = HashMap::new();
        let mut conflicts: Vec<Error> = Vec::new();
        // The first handler of each key: its entry, the key, and its conflict if another
        // handler has the same key.
        let mut firsts: Vec<(usize, Key, Option<u32>)> = Vec::new();
        for (index, &entry) in entries.iter().enumerate() {
            let n = entry.params.len();
            if n > MAX_KEY {
                return Err(bad_handler(
                    entry,
                    format!("takes {n} dispatched arguments; at most {MAX_KEY} are supported"),
                ));
            }
            match entry.target {
                Target::Op(op) if !op.arity().admits(n) => {
                    return Err(bad_handler(
                        entry,
                        format!(
                            "takes {} but the op takes {}",
                            arguments(n),
                            op.arity().arguments()
                        ),
                    ));
                }
                Target::Group(kind) => {
                    let want = match kind {
                        OpKind::BinaryElementwise => 2,
                        OpKind::UnaryElementwise | OpKind::Reduction => 1,
                        OpKind::Other => {
                            return Err(bad_handler(
                                entry,
                                "`other` is not a group; register handlers for each op".into(),
                            ));
                        }
                    };
                    if n != want {
                        return Err(bad_handler(
                            entry,
                            format!(
                                "takes {} but a {kind} handler takes {}",
                                arguments(n),
                                arguments(want)
                            ),
                        ));
                    }
                }
                Target::Op(_) => {}
            }
            let variadic = entry.params.iter().any(ParamKind::is_rest);
            if variadic {
                let last = entry.params.iter().rposition(ParamKind::is_rest);
                if last != Some(n - 1) || entry.params[..n - 1].iter().any(ParamKind::is_rest) {
                    return Err(bad_handler(
                        entry,
                        "a `&[&T]` parameter takes the remaining arguments: it must be the last \
                         dispatched parameter, and the only one"
                            .into(),
                    ));
                }
                if let Target::Group(kind) = entry.target {
                    return Err(bad_handler(
                        entry,
                        format!("a {kind} handler takes a fixed number of arguments, not `&[&T]`"),
                    ));
                }
            }
            let target = TargetKey::of(&entry.target);
            let rest = variadic.then(|| entry.params.iter().any(ParamKind::is_rest_or_dense));
            for kinds in keys_of(entry.params) {
                if let Some(&first) = seen.get(&(target, kinds.to_vec(), rest)) {
                    // The first handler with this key stays, marked: a call that reaches it gets
                    // this error; the later ones are left out.
                    let (first_index, _, conflict) = &mut firsts[first];
                    if conflict.is_none() {
                        *conflict = Some(conflicts.len() as u32);
                        conflicts.push(
                            DispatchError::Duplicate {
                                target: target_name(&entry.target),
                                args: describe_key(&kinds, entry.params),
                                first: entries[*first_index].name.to_string(),
                                first_at: entries[*first_index].location(),
                                second: entry.name.to_string(),
                                second_at: entry.location(),
                            }
                            .into(),
                        );
                    }
                    continue;
                }
                seen.insert((target, kinds.to_vec(), rest), firsts.len());
                firsts.push((index, kinds, None));
            }
        }
        // Second pass: the first handler of each key, with its conflict if it has one.
        for (index, kinds, conflict) in firsts {
            let entry = entries[index];
            let resolved = Resolved {
                entry,
                kinds,
                variadic: entry.params.last().is_some_and(ParamKind::is_rest),
                rest_dense: entry.params.last().is_some_and(ParamKind::is_rest_or_dense),
                conflict,
            };
            // A variadic handler matches calls of many lengths: no exact key finds it.
            let inexact = resolved.wildcards() + usize::from(resolved.variadic);
            match (entry.target, inexact) {
                (Target::Group(kind), _) => {
                    // `Other` was refused above.
                    if let Some(i) = group_index(kind) {
                        groups[i].takes_dense |= resolved.takes_dense();
                        groups[i].handlers.push(resolved);
                    }
                }
                (Target::Op(op), 0) => {
                    // No wildcard here (counted above), and at most `MAX_KEY` (checked above).
                    let ids = Ids::new(resolved.kinds.iter().map(|k| k.unwrap_or_else(filler)));
                    if let Some(ids) = ids {
                        let handlers = handlers_mut(&mut catalog, &mut user, op);
                        handlers.takes_dense |= resolved.takes_dense();
                        handlers.exact.insert(ids, resolved);
                    }
                }
                (Target::Op(op), _) => {
                    let handlers = handlers_mut(&mut catalog, &mut user, op);
                    handlers.takes_dense |= resolved.takes_dense();
                    handlers.wildcard.push(resolved);
                }
            }
        }
        // Fewer wildcards first, `&[&T]` before `&[OrDense<T>]` (the narrower first, as exact
        // keys before `&OrDense<T>`'s dense mixes); then source order (file, line), which
        // `entries` already has and a stable sort keeps.
        for list in catalog
            .iter_mut()
            .chain(user.values_mut())
            .map(|h| &mut h.wildcard)
            .chain(groups.iter_mut().map(|g| &mut g.handlers))
        {
            list.sort_by_key(|r| (r.wildcards(), r.rest_dense));
        }
        promote_group_handlers(&mut catalog, &groups);
        Ok(DispatchTable {
            catalog,
            user,
            groups,
            len: entries.len(),
            conflicts,
        })
    }

    /// Every key given to two handlers (each error naming both); `Ok` when there is none. Calls
    /// that never reach such a key work regardless; [`crate::check()`] runs this with the
    /// registry's check, for a program or test that wants to fail fast.
    pub fn check(&self) -> Result<()> {
        match Error::all(self.conflicts.clone()) {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }

    /// The keys given to two handlers, each error naming both (empty when there is none).
    pub fn conflicts(&self) -> &[Error] {
        &self.conflicts
    }

    /// The error of a handler whose key another handler also has (see [`check`](Self::check)).
    #[cold]
    fn conflict(&self, index: u32) -> Error {
        self.conflicts[index as usize].clone()
    }

    /// The number of registered handlers.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no handler is registered.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The handlers registered for `op` and for its kind's group.
    #[inline]
    fn handlers(&self, op: &Op) -> (Option<&OpHandlers>, Option<&Group>) {
        let handlers = match op.catalog_slot() {
            Some(i) => self.catalog.get(i),
            None => self.user.get(&OpKey::of(op)),
        };
        let group = group_index(op.kind()).map(|i| &self.groups[i]);
        (handlers, group)
    }

    /// The candidates for a call on arguments of these types, in precedence order (exact, then
    /// wildcard, then group).
    fn candidates<'t>(
        handlers: Option<&'t OpHandlers>,
        group: Option<&'t Group>,
        ids: &'t [TypeId],
    ) -> impl Iterator<Item = &'t Resolved> + 't {
        // More arguments than `MAX_KEY`: no exact key, only variadic handlers can match.
        let exact =
            Ids::new(ids.iter().copied()).and_then(|key| handlers.and_then(|h| h.exact.get(&key)));
        let first = exact.map(|r| r.entry);
        exact
            .into_iter()
            .chain(Self::rest(handlers, group, ids, first))
    }

    /// The candidates after the exact one: wildcard handlers, then group handlers, that match.
    /// `exact` is the handler the exact lookup found, if any: a group handler promoted to the
    /// exact list is not tried twice.
    fn rest<'t>(
        handlers: Option<&'t OpHandlers>,
        group: Option<&'t Group>,
        ids: &'t [TypeId],
        exact: Option<&'static DispatchEntry>,
    ) -> impl Iterator<Item = &'t Resolved> + 't {
        let wildcard = handlers.map_or(&[][..], |h| h.wildcard.as_slice());
        let groups = group.map_or(&[][..], |g| g.handlers.as_slice());
        wildcard
            .iter()
            .chain(groups)
            .filter(move |r| r.matches(ids) && !exact.is_some_and(|e| std::ptr::eq(e, r.entry)))
    }

    /// The handlers a call of `op` on these operands would try, in precedence order (each as
    /// `name(&A, &B) at file:line`), then `dense default` if every operand is dense and the op
    /// has one, or `fallback` if some operand is not and the op's catalog entry has a fallback
    /// for extension values (tried last; it applies or not by the call's arguments). Nothing is
    /// called: this explains a dispatch decision.
    pub fn explain(&self, op: &'static Op, operands: &[Operand<'_>]) -> Vec<String> {
        let (handlers, group) = self.handlers(op);
        let ids: SmallVec<[TypeId; 8]> = operands.iter().map(Operand::type_id).collect();
        let mut out: Vec<String> = Self::candidates(handlers, group, &ids)
            .map(|r| r.entry.describe())
            .collect();
        if operands.iter().all(Operand::is_dense) {
            if op.has_dense() {
                out.push("dense default".into());
            }
        } else if op.has_fallback() {
            out.push("fallback".into());
        }
        out
    }

    /// Calls `op` on `operands` with `args`: the first handler (in precedence order) that does not
    /// decline produces the result; if all decline or none matches, the dense default runs when
    /// every argument is dense; otherwise the error names the op, the argument types and every
    /// candidate tried.
    ///
    /// The fast path (inlined into the caller): when no handler of the op or its kind takes dense
    /// arguments only (each wants an extension type somewhere) and every argument is dense, no
    /// candidate can match, and the dense default runs at once.
    ///
    /// The op's arity is checked before anything runs, except before an exact handler: its
    /// parameter count was checked against the arity when the table was built.
    #[inline]
    pub fn call(&self, op: &'static Op, operands: &[Operand<'_>], args: &OpArgs) -> Result<Value> {
        consulted();
        let (handlers, group) = self.handlers(op);
        let takes_dense =
            handlers.is_some_and(|h| h.takes_dense) || group.is_some_and(|g| g.takes_dense);
        if !takes_dense && operands.iter().all(Operand::is_dense) {
            op.check_arity(operands.len())?;
            return dense_default(op, operands, args, &[]);
        }
        // The exact handler first (compared in turn, or one hash lookup), then the rest.
        // One match on the handler's result (no `?`): the value moves once. An extension result
        // moves as its one-word handle: moving the whole `Value` would read the word back in
        // 16-byte loads straddling the handler's 8-byte stores, which stalls the CPU's store
        // forwarding (`SharedExtension`'s docs).
        let declined = match handlers.and_then(|h| h.exact.find(operands)) {
            Some(Resolved {
                conflict: Some(i), ..
            }) => return Err(self.conflict(*i)),
            Some(exact) => match (exact.entry.handler)(&Call { op, args }, operands) {
                Ok(Handled::Done(Value::Extension(e))) => return Ok(Value::Extension(e)),
                Ok(Handled::Done(value)) => return Ok(value),
                Ok(Handled::Declined) => Some(exact.entry),
                Err(e) => return Err(in_handler(op, exact.entry, false, e)),
            },
            None => None,
        };
        self.call_rest(op, operands, args, handlers, group, declined)
    }

    /// [`call`](Self::call) past the exact handler: the wildcard and group candidates in
    /// precedence order, then the dense default.
    #[inline(never)]
    fn call_rest(
        &self,
        op: &'static Op,
        operands: &[Operand<'_>],
        args: &OpArgs,
        handlers: Option<&OpHandlers>,
        group: Option<&Group>,
        declined: Option<&'static DispatchEntry>,
    ) -> Result<Value> {
        op.check_arity(operands.len())?;
        let mut tried: SmallVec<[&'static DispatchEntry; 4]> = declined.into_iter().collect();
        // Any number of arguments: a variadic handler takes more than `MAX_KEY`.
        let ids: SmallVec<[TypeId; 8]> = operands.iter().map(Operand::type_id).collect();
        let call = Call { op, args };
        for candidate in Self::rest(handlers, group, &ids, declined) {
            if let Some(i) = candidate.conflict {
                return Err(self.conflict(i));
            }
            match (candidate.entry.handler)(&call, operands) {
                Ok(Handled::Done(value)) => return Ok(value),
                Ok(Handled::Declined) => tried.push(candidate.entry),
                Err(e) => return Err(in_handler(op, candidate.entry, false, e)),
            }
        }
        if let Some(values) = reinterpreted(operands)? {
            // Anonymous values of types this program has registered: the call again, on the
            // concrete values (which are not anonymous, so this happens once).
            let again: SmallVec<[Operand<'_>; 4]> = operands
                .iter()
                .zip(&values)
                .map(|(o, v)| v.as_ref().map_or_else(|| o.reborrow(), Operand::value))
                .collect();
            return self.call(op, &again, args);
        }
        dense_default(op, operands, args, &tried)
    }

    /// Infers the output spec of `op` on inputs of these specs: the first matching handler (in
    /// call precedence) that registered an inference runs it; for dense inputs without one, the
    /// op's own inference ([`infer::dense`]).
    pub fn infer(&self, op: &'static Op, specs: &[&ValueSpec], args: &OpArgs) -> Result<Inferred> {
        consulted();
        op.check_arity(specs.len())?;
        let ids: SmallVec<[TypeId; 8]> = specs.iter().map(|s| spec_type_id(s)).collect();
        let (handlers, group) = self.handlers(op);
        let call = Call { op, args };
        let mut tried: SmallVec<[(&'static DispatchEntry, bool); 4]> = SmallVec::new();
        let candidates = Self::candidates(handlers, group, &ids);
        for candidate in candidates {
            if let Some(i) = candidate.conflict {
                return Err(self.conflict(i));
            }
            match candidate.entry.infer {
                Some(f) => match f(&call, specs) {
                    Ok(Some(inferred)) => return Ok(inferred),
                    // A declined default: the handler has no inference for these specs.
                    Ok(None) => tried.push((candidate.entry, !candidate.entry.infer_is_default)),
                    Err(e) => return Err(in_handler(op, candidate.entry, true, e)),
                },
                None => tried.push((candidate.entry, false)),
            }
        }
        let dense: Option<SmallVec<[&TensorSpec; 3]>> = specs
            .iter()
            .map(|s| match s {
                ValueSpec::Tensor(t) => Some(t),
                ValueSpec::Extension(_) => None,
            })
            .collect();
        if let Some(dense) = dense {
            return infer::dense_unchecked(op, &dense, args);
        }
        if let Some(inferred) = op.fallback_infer().and_then(|f| f(op, specs, args)) {
            return inferred.map(Inferred::from);
        }
        let entries: SmallVec<[&'static DispatchEntry; 4]> = tried.iter().map(|t| t.0).collect();
        let mut err = no_match(
            op,
            specs.iter().map(|s| describe_spec(s)),
            &entries,
            "no spec inference; add `infer = …` to its #[dispatch]",
            |i| matches!(specs.get(i), Some(ValueSpec::Tensor(_))),
        );
        // Say which inferences ran and declined.
        if let Error::Dispatch(e) = &mut err
            && let DispatchError::NoMatch { tried: lines, .. } = &mut **e
        {
            for (line, (_, declined)) in lines.iter_mut().zip(&tried) {
                if *declined {
                    *line = line.replace(
                        "(no spec inference; add `infer = …` to its #[dispatch])",
                        "(its inference declined)",
                    );
                }
            }
        }
        Err(err)
    }
}

/// The keys a handler is registered under: one, its parameters' types (`None`: wildcard); for
/// each `&OrDense<T>` parameter, both `T` and the dense key in that position — every mix, but
/// not the one where every argument is dense (that call stays with the dense default, and dense
/// calls keep their fast path).
fn keys_of(params: &[ParamKind]) -> SmallVec<[Key; 2]> {
    let base: Key = params.iter().map(ParamKind::type_id).collect();
    let either: SmallVec<[usize; 4]> = (0..params.len())
        .filter(|&i| params[i].dense_alternative())
        .collect();
    if either.is_empty() {
        return smallvec::smallvec![base];
    }
    let tensor = Some(TypeId::of::<Tensor>());
    // `MAX_KEY` (checked before) bounds the number of mixes.
    (0u32..1 << either.len())
        .map(|mix| {
            let mut key = base.clone();
            for (bit, &i) in either.iter().enumerate() {
                if mix & (1 << bit) != 0 {
                    key[i] = tensor;
                }
            }
            key
        })
        .filter(|key| !key.iter().all(|k| *k == tensor))
        .collect()
}

/// One key's parameter types as written, for errors (`&OrDense<T>` as `&T` or `&Tensor`).
fn describe_key(key: &[Option<TypeId>], params: &[ParamKind]) -> Vec<String> {
    let tensor = Some(TypeId::of::<Tensor>());
    key.iter()
        .zip(params)
        .map(|(k, p)| match p {
            ParamKind::OrDense { type_name, .. } if *k != tensor => format!("&{}", type_name()),
            ParamKind::OrDense { .. } => "&Tensor".into(),
            other => other.describe(),
        })
        .collect()
}

fn spec_type_id(spec: &ValueSpec) -> TypeId {
    match spec {
        ValueSpec::Tensor(_) => TypeId::of::<Tensor>(),
        ValueSpec::Extension(s) => s.value_type_id(),
    }
}

fn describe_spec(spec: &ValueSpec) -> String {
    match spec {
        ValueSpec::Tensor(t) => format!("Tensor({t})"),
        ValueSpec::Extension(s) => s.name().to_string(),
    }
}

/// The last candidate of a call: the op's dense default when every argument is dense and the op
/// has one (arity checked), else the op's fallback for extension values when it has one that
/// applies ([`dense::run_default`]); otherwise the error naming the op, the arguments and what
/// was tried.
#[inline(always)]
fn dense_default(
    op: &Op,
    operands: &[Operand<'_>],
    args: &OpArgs,
    tried: &[&'static DispatchEntry],
) -> Result<Value> {
    dense::run_default(op, operands, args, || no_dense_default(op, operands, tried))
}

/// For a call no handler took: the operands that are anonymous values (rebuilt from a spec whose
/// type was not known when they were made) of a type the registry knows, as values of that
/// type; `None` when there is none. An anonymous value of a name registered twice is the
/// conflict's error.
#[cold]
fn reinterpreted<'a>(operands: &[Operand<'a>]) -> Result<Option<SmallVec<[Option<Value>; 4]>>> {
    fn anonymous<'a>(o: &Operand<'a>) -> Result<Option<&'a AnonymousExtension>> {
        match o
            .as_extension()
            .and_then(|e| e.as_any().downcast_ref::<AnonymousExtension>())
        {
            Some(a) if registry().resolve(&a.name)?.is_some() => Ok(Some(a)),
            _ => Ok(None),
        }
    }
    let mut found = false;
    for o in operands {
        found |= anonymous(o)?.is_some();
    }
    if !found {
        return Ok(None);
    }
    operands
        .iter()
        .map(|o| {
            anonymous(o)?
                .map(|a| registry().rebuild(&a.spec, a.components.clone()))
                .transpose()
        })
        .collect::<Result<_>>()
        .map(Some)
}

/// An error a handler (or its spec inference, `inference`) returned, with the op, the handler
/// and its registration ([`DispatchError::Handler`]); as is when it already carries that same
/// handler and op outermost (a nested call that reached the same handler again).
#[cold]
#[inline(never)]
fn in_handler(op: &Op, entry: &'static DispatchEntry, inference: bool, error: Error) -> Error {
    if let Error::Dispatch(d) = &error
        && let DispatchError::Handler {
            op: o,
            handler,
            file,
            line,
            inference: i,
            ..
        } = &**d
        && (*o, *handler, *file, *line, *i)
            == (op.name(), entry.name, entry.file, entry.line, inference)
    {
        return error;
    }
    DispatchError::Handler {
        op: op.name(),
        handler: entry.name,
        file: entry.file,
        line: entry.line,
        inference,
        source: Box::new(error),
    }
    .into()
}

/// The error of a call nothing took.
#[cold]
#[inline(never)]
pub(super) fn no_dense_default(
    op: &Op,
    operands: &[Operand<'_>],
    tried: &[&'static DispatchEntry],
) -> Error {
    no_match(
        op,
        operands.iter().map(Operand::describe),
        tried,
        "declined",
        |i| operands.get(i).is_some_and(Operand::is_dense),
    )
}

fn no_match(
    op: &Op,
    args: impl Iterator<Item = String>,
    tried: &[&'static DispatchEntry],
    outcome: &str,
    is_dense: impl Fn(usize) -> bool,
) -> Error {
    let args: Vec<String> = args.collect();
    let mut tried: Vec<String> = tried
        .iter()
        .map(|e| format!("{} ({outcome})", e.describe()))
        .collect();
    let first_ext = (0..args.len()).find(|&i| !is_dense(i));
    let dense = match first_ext {
        Some(i) => format!(
            "dense default (not applicable: argument {i} is {}, not a tensor)",
            args[i]
        ),
        None => format!("dense default (none: {} has no dense default)", op.name()),
    };
    tried.push(dense);
    DispatchError::NoMatch {
        op: op.name().to_string(),
        args,
        tried,
    }
    .into()
}

// What `ops::supported` lists (kept apart from the call path above: nothing here runs on a call).
impl DispatchTable {
    /// The ops that have a candidate for an argument of dispatch type `type_id`
    /// ([`Operand::type_id`]: `TypeId::of::<Tensor>()` for a dense argument, the extension type's
    /// otherwise), whose tensor-like view, if it has one, is `like`: the catalog ops in catalog
    /// order, then the user-declared ops this table has handlers for, by name. What
    /// [`ops::supported`](crate::ops::supported) lists; nothing is called.
    ///
    /// An op is listed when a call with this argument in one or more positions and dense tensors
    /// in the others (ops of a fixed arity up to [`MAX_KEY`]; `stack` and `concat` with two such
    /// arguments) has a candidate that matches by type and is not a conflicting key: an exact or
    /// wildcard handler, a group handler of the op's kind, the dense default when the argument is
    /// dense and the op takes its dtype, or, with the argument in every position, the op's
    /// fallback when it applies to the type (`stack`/`concat`: batchable; `shape`: tensor-like).
    /// A tensor-like extension value does not list the catalog's elementwise ops and reductions
    /// that do not take the dtype it shows (its group handlers apply them to that dtype).
    /// For a dense argument a handler counts only when it takes `&Tensor` somewhere: one with
    /// wildcards only (`&Operand`, `&Value`) serves extension values, and the dense default
    /// decides for tensors.
    pub fn supported(
        &self,
        type_id: TypeId,
        like: Option<&dyn crate::tensor::TensorLike>,
    ) -> Vec<&'static Op> {
        let mut user: Vec<&'static Op> = self
            .user
            .values()
            .filter_map(|h| {
                let r = h.exact.handlers.first().map(|(_, r)| r);
                match r.or(h.wildcard.first())?.entry.target {
                    Target::Op(op) => Some(op),
                    Target::Group(_) => None,
                }
            })
            .collect();
        user.sort_by_key(|op| op.name());
        ALL.iter()
            .copied()
            .chain(user)
            .filter(|op| self.has_candidate(op, type_id, like))
            .collect()
    }

    /// Whether `op` has a candidate for an argument of type `subject` (see
    /// [`supported`](Self::supported)).
    fn has_candidate(
        &self,
        op: &'static Op,
        subject: TypeId,
        like: Option<&dyn crate::tensor::TensorLike>,
    ) -> bool {
        use extype_shape::signature::Arity;
        let tensor = TypeId::of::<Tensor>();
        let dense = subject == tensor;
        if dense && op.has_dense() && like.is_none_or(|l| op.dtypes().contains(l.dtype())) {
            return true;
        }
        // A tensor-like extension value shows a dtype: an elementwise op or a reduction of the
        // catalog that does not take it is not run by group handlers either (they apply the op
        // to what the value shows: `exp` of integer values fails).
        if !dense
            && op.is_builtin()
            && group_index(op.kind()).is_some()
            && like.is_some_and(|l| !op.dtypes().contains(l.dtype()))
        {
            return false;
        }
        // Positions: bit `i` of a mask puts the subject at argument `i`, a dense tensor
        // otherwise; a variadic op takes the subject in every position.
        let (n, every) = match op.arity() {
            Arity::Exactly(n) => (n, false),
            Arity::AtLeast(k) => (k.max(2), true),
        };
        if n == 0 || n > MAX_KEY {
            return false;
        }
        let all = (1u32 << n) - 1;
        let first = if every { all } else { 1 };
        let (handlers, group) = self.handlers(op);
        let matched = (first..=all).any(|mask| {
            let ids: SmallVec<[TypeId; 8]> = (0..n)
                .map(|i| if mask >> i & 1 == 1 { subject } else { tensor })
                .collect();
            // A handler with only wildcards serves extension values: for a dense argument the
            // dense default decides, and only handlers that name `&Tensor` add to it. The first
            // candidate is the one a call runs first: a conflicting key fails it.
            Self::candidates(handlers, group, &ids)
                .find(|r| !dense || r.kinds.contains(&Some(tensor)))
                .is_some_and(|r| r.conflict.is_none())
        });
        matched || (!dense && op.fallback_applies(subject, like.is_some()))
    }
}
