//! Reading: a file's header, its tensors (copied into their own buffers, or viewed in a map),
//! and the value they make, checked as `from_components` checks.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use std::sync::Arc;

use super::bytes::{read_tensor, shared_tensor};
use super::format::{Record, Records, TENSOR_NAME, TENSOR_TYPE, records};
use super::header::{self, Header};
use super::source::{FileSource, Statics};
use crate::error::{IoError, Result};
use crate::registry::{StoredSpec, Upgrade, registry};
use crate::spec::{ExtensionType, TypeSpec, Value, registered_name};
use crate::spec_tree::SpecTree;
use crate::tensor::{ExternalBytes, Tensor, TensorSpec};
use crate::versioning::NamedTensors;

/// Where the tensor bytes come from.
pub(crate) enum Body<'a> {
    /// An open file positioned just after the header.
    File(&'a mut File),
    /// The whole file, mapped: tensors view it in place where they can.
    Mapped(&'a Arc<dyn ExternalBytes>),
}

/// Opens `path`, checks it is a regular, non-empty file and reads and checks its header; the
/// file is left positioned at the data section.
pub(crate) fn open(path: &Path) -> Result<(File, Header)> {
    let file = path.display();
    let (mut f, len) = open_file(path, &file.to_string())?;
    let mut first = [0u8; 8];
    let got = (len as usize).min(8);
    f.read_exact(&mut first[..got])
        .map_err(|e| IoError::at(&file, "", format!("cannot read: {e}")))?;
    let n = header::header_len(&file.to_string(), &first[..got], len)?;
    let mut text = vec![0u8; n];
    f.read_exact(&mut text)
        .map_err(|e| IoError::at(&file, "", format!("cannot read the header: {e}")))?;
    let header = header::parse(&file.to_string(), &text, n, len - 8 - n as u64)?;
    Ok((f, header))
}

/// Opens `path` (named `file` in errors) for reading and returns it with its length; a
/// directory is an error.
pub(crate) fn open_file(path: &Path, file: &str) -> Result<(File, u64)> {
    let f = File::open(path).map_err(|e| IoError::at(file, "", format!("cannot open: {e}")))?;
    let meta = f
        .metadata()
        .map_err(|e| IoError::at(file, "", format!("cannot read its metadata: {e}")))?;
    if meta.is_dir() {
        return Err(IoError::at(
            file,
            "",
            "is a directory, expected a safetensors file",
        ));
    }
    Ok((f, meta.len()))
}

/// How a record becomes a value.
#[derive(Clone)]
pub(crate) enum Target {
    Tensor,
    /// A registered type's spec, or an anonymous value's tree ([`Registry::stored_spec`]).
    Stored(StoredSpec),
    /// A registered derived type's value stored by an older version or under an old name: its
    /// components are read by the names the file gives (listed here), then upgraded
    /// (`versioning`).
    Upgrade(Upgrade, Vec<String>),
}

/// The upgrade a stored spec needs ([`Registry::upgrade_of`](crate::registry::Registry::upgrade_of)),
/// a version newer than the program's an error naming the file.
fn upgrade_of(file: &str, type_name: &str, tree: &SpecTree) -> Result<Option<Upgrade>> {
    // A name registered twice is the conflict's error, named as the metadata's type.
    registry()
        .resolve(type_name)
        .map_err(|e| IoError::at(file, "", format!("metadata type: {e}")))?;
    registry()
        .upgrade_of(type_name, tree)
        .map_err(|e| IoError::at(file, "", e.to_string()))
}

/// The components the file lists, by the names it gives them.
fn named(paths: &[impl AsRef<str>], components: Vec<Tensor>) -> NamedTensors {
    paths
        .iter()
        .map(|p| p.as_ref().to_string())
        .zip(components)
        .collect()
}

/// One value to find in a file: its tensors are named `prefix + path`, in component order, and
/// must meet `specs` (dtype, shape) when the type is known.
pub(crate) struct Wanted<'w> {
    pub prefix: String,
    pub label: &'w str,
    pub paths: Vec<&'w str>,
    pub specs: Option<Vec<TensorSpec>>,
}

/// The first half of the one read path: matches each value's component names to the header's
/// tensors (checking dtype and shape against the specs), then refuses any tensor no value uses.
/// Returns, per value, the entry index of each component. Linear in the header (each name is a
/// binary search).
pub(crate) fn matched(
    file: &str,
    header: &Header,
    wanted: &[Wanted<'_>],
) -> Result<Vec<Vec<usize>>> {
    matched_within(file, header, wanted, "")
}

/// [`matched`], where only the tensors whose names start with `scope` must be components: the
/// others are left unread (a model checkpoint's other weights).
pub(crate) fn matched_within(
    file: &str,
    header: &Header,
    wanted: &[Wanted<'_>],
    scope: &str,
) -> Result<Vec<Vec<usize>>> {
    let mut used = vec![false; header.entries.len()];
    let mut out = Vec::with_capacity(wanted.len());
    for w in wanted {
        let indices = match_components(file, header, w)?;
        indices.iter().for_each(|&i| used[i] = true);
        out.push(indices);
    }
    if let Some((e, _)) = header
        .entries
        .iter()
        .zip(&used)
        .find(|(e, u)| !**u && e.name.starts_with(scope))
    {
        let message = match wanted {
            [one] => format!(
                "extra: not a component of {} (components: [{}])",
                one.label,
                one.paths.join(", ")
            ),
            _ => "extra: not a component of any value of the shard (components: [])".to_string(),
        };
        return Err(IoError::at(file, e.name, message));
    }
    Ok(out)
}

/// The second half of the one read path: reads every tensor once, in file order (each into its
/// own buffer, or viewing the map), and gives each value its components in component order.
pub(crate) fn read(
    file: &str,
    header: &Header,
    body: &mut Body<'_>,
    matched: &[Vec<usize>],
) -> Result<Vec<Vec<Tensor>>> {
    let mut needed = vec![false; header.entries.len()];
    matched.iter().flatten().for_each(|&i| needed[i] = true);
    let mut all: Vec<Option<Tensor>> = Vec::with_capacity(header.entries.len());
    for (e, &needed) in header.entries.iter().zip(&needed) {
        if !needed {
            // A tensor outside the value's prefix (`matched_within`): skipped, never read.
            if let Body::File(f) = body {
                let skip = i64::try_from(e.byte_len()).unwrap_or(i64::MAX);
                std::io::Seek::seek(*f, std::io::SeekFrom::Current(skip))
                    .map_err(|err| IoError::at(file, e.name, format!("cannot skip: {err}")))?;
            }
            all.push(None);
            continue;
        }
        // Every other entry is a component here (`matched` refuses the others), checked
        // readable.
        let dtype = e
            .dtype
            .readable()
            .map_err(|m| IoError::at(file, e.name, m))?;
        let tensor = match body {
            Body::File(f) => {
                read_tensor(dtype, &e.shape, e.byte_len(), &mut |out| f.read_exact(out))
            }
            Body::Mapped(map) => {
                let at = header.data_start as usize;
                shared_tensor(map, at + e.start, e.byte_len(), dtype, &e.shape)
            }
        };
        all.push(Some(tensor.map_err(|m| IoError::at(file, e.name, m))?));
    }
    // `matched` uses each entry once (names are unique and components are checked distinct).
    Ok(matched
        .iter()
        .map(|indices| indices.iter().filter_map(|&i| all[i].take()).collect())
        .collect())
}

/// Finds the components of `w` in the header.
fn match_components(file: &str, header: &Header, w: &Wanted<'_>) -> Result<Vec<usize>> {
    let mut indices = Vec::with_capacity(w.paths.len());
    let mut name = String::new();
    for (i, path) in w.paths.iter().enumerate() {
        name.clear();
        name.push_str(&w.prefix);
        name.push_str(path);
        let Some(at) = header.index(&name) else {
            const SHOWN: usize = 16;
            let mut names: Vec<&str> = header.entries.iter().take(SHOWN).map(|e| e.name).collect();
            if header.entries.len() > SHOWN {
                names.push("…");
            }
            return Err(IoError::at(
                file,
                &name,
                format!(
                    "missing: {} has a component {path:?}, the file has no tensor of that name \
                     (tensors: [{}])",
                    w.label,
                    names.join(", ")
                ),
            ));
        };
        let e = header.entries.at(at);
        let dtype = e.dtype.readable().map_err(|m| {
            IoError::at(file, &name, format!("component {path} of {}: {m}", w.label))
        })?;
        if let Some(spec) = w.specs.as_ref().and_then(|s| s.get(i)) {
            if spec.dtype != dtype {
                return Err(IoError::at(
                    file,
                    &name,
                    format!(
                        "component {path} of {}: expected dtype {} (spec {spec}), found {}",
                        w.label, spec.dtype, dtype
                    ),
                ));
            }
            if !spec.shape.admits(&e.shape) {
                return Err(IoError::at(
                    file,
                    &name,
                    format!(
                        "component {path} of {}: shape {:?} is not admitted by spec {spec}",
                        w.label, e.shape
                    ),
                ));
            }
        }
        indices.push(at);
    }
    Ok(indices)
}

/// Reads a spec document from file metadata (within the memory budget of
/// [`SpecTree::from_json`]: the text's length plus a constant).
fn spec_tree(file: &str, text: &str) -> Result<SpecTree> {
    SpecTree::from_json(text).map_err(|e| IoError::at(file, "", format!("metadata spec: {e}")))
}

/// How to rebuild `record`, by the registry: its target and component specs.
pub(crate) fn target(file: &str, record: &Record<'_>) -> Result<(Target, Option<Vec<TensorSpec>>)> {
    let wrap = |e: crate::error::Error| IoError::at(file, "", format!("metadata spec: {e}"));
    if record.type_name == TENSOR_TYPE {
        let spec: TensorSpec = record
            .spec
            .parse()
            .map_err(|e: crate::error::Error| wrap(e))?;
        if record.components.len() != 1 || record.components[0] != TENSOR_NAME {
            return Err(IoError::at(
                file,
                "",
                format!(
                    "metadata: a Tensor has the one component {TENSOR_NAME:?}, found {:?}",
                    record.components
                ),
            ));
        }
        return Ok((Target::Tensor, Some(vec![spec])));
    }
    let tree = spec_tree(file, &record.spec)?;
    if let Some(upgrade) = upgrade_of(file, &record.type_name, &tree)? {
        // Read by the names the file gives; checked once upgraded (`from_components`).
        return Ok((
            Target::Upgrade(
                upgrade,
                record.components.iter().map(|c| c.to_string()).collect(),
            ),
            None,
        ));
    }
    // A name registered twice is the conflict's error, not an unknown name.
    let spec = match registry()
        .stored_spec(&record.type_name, tree)
        .map_err(wrap)?
    {
        StoredSpec::Registered(spec) => spec,
        anonymous => return Ok((Target::Stored(anonymous), None)),
    };
    // The tensors are found by the names the file gives (the field paths, or an anonymous
    // value's own paths when it was saved anonymous) and checked by position.
    let paths = spec.dyn_component_paths();
    if paths.len() != record.components.len() {
        return Err(IoError::at(
            file,
            "",
            format!(
                "metadata lists components [{}], the spec of {} has [{}]",
                record.components.join(", "),
                record.type_name,
                paths.join(", ")
            ),
        ));
    }
    check_names(file, &record.type_name, &record.components, &paths)?;
    let specs = spec.dyn_component_specs();
    Ok((Target::Stored(StoredSpec::Registered(spec)), Some(specs)))
}

/// The tensors a file lists for a registered type must be named by its field paths, in
/// component order (or by position, `0`, `1`, …, as an anonymous value of the type is saved):
/// tensor `i` is read as component `i`, so a file whose names are swapped (and its list
/// reordered to match) would otherwise load each tensor as another field, while readers by
/// name (Python's `safetensors`) see the swap.
fn check_names(
    file: &str,
    type_name: &str,
    listed: &[impl AsRef<str>],
    paths: &[String],
) -> Result<()> {
    let by_path = listed.iter().zip(paths).all(|(l, p)| l.as_ref() == p);
    let by_position = listed
        .iter()
        .enumerate()
        .all(|(i, l)| l.as_ref() == i.to_string());
    if by_path || by_position {
        return Ok(());
    }
    let (i, (found, expected)) = listed
        .iter()
        .zip(paths)
        .enumerate()
        .find(|(_, (l, p))| l.as_ref() != p.as_str())
        .expect("some name differs");
    Err(IoError::at(
        file,
        found.as_ref(),
        format!(
            "component {i} of {type_name} is the field {expected:?}, but the file names it \
             {:?} (components must be named by their field paths, in order)",
            found.as_ref()
        ),
    ))
}

/// Rebuilds a value from its target and components (in component order): `from_components`
/// checks and validates, once.
pub(crate) fn rebuild(file: &str, target: Target, components: Vec<Tensor>) -> Result<Value> {
    let wrap = |e: crate::error::Error| IoError::at(file, "", e.to_string());
    match target {
        Target::Tensor => Ok(Value::Tensor(
            components
                .into_iter()
                .next()
                .ok_or_else(|| IoError::at(file, "", "no tensor"))?,
        )),
        Target::Stored(stored) => stored.rebuild(components).map_err(wrap),
        Target::Upgrade(upgrade, paths) => upgrade.rebuild(named(&paths, components)).map_err(wrap),
    }
}

/// A file's values planned from its header alone: each value's target and the entry index of
/// each of its components (every check that needs no tensor byte is done).
#[derive(Clone)]
pub(crate) struct Plan {
    pub values: Vec<Target>,
    pub matched: Vec<Vec<usize>>,
}

/// Plans the values `records` describe (one for a value file, several for a shard).
pub(crate) fn plan(file: &str, header: &Header, records: &Records<'_>) -> Result<Plan> {
    let (shard, list) = match records {
        Records::Value(r) => (false, std::slice::from_ref(r)),
        Records::Shard(list) => (true, list.as_slice()),
    };
    let mut values = Vec::with_capacity(list.len());
    let mut wanted = Vec::with_capacity(list.len());
    for (i, record) in list.iter().enumerate() {
        let (target, specs) = target(file, record)?;
        values.push(target);
        wanted.push(Wanted {
            prefix: if shard {
                format!("{i}/")
            } else {
                String::new()
            },
            label: &record.type_name,
            paths: record.components.iter().map(|c| &**c).collect(),
            specs,
        });
    }
    let matched = matched(file, header, &wanted)?;
    Ok(Plan { values, matched })
}

/// Reads the planned values' tensors and rebuilds the values.
pub(crate) fn read_plan(
    file: &str,
    header: &Header,
    body: &mut Body<'_>,
    plan: Plan,
) -> Result<Vec<Value>> {
    let components = read(file, header, body, &plan.matched)?;
    plan.values
        .into_iter()
        .zip(components)
        .map(|(target, c)| rebuild(file, target, c))
        .collect()
}

/// The one record of a value file, or an error saying what the file is instead.
pub(crate) fn single_record<'h>(file: &str, header: &'h Header, what: &str) -> Result<Records<'h>> {
    match records(file, &header.metadata, header.entries.len())? {
        Some(r @ Records::Value(_)) => Ok(r),
        Some(Records::Shard(_)) => Err(IoError::at(
            file,
            "",
            format!("is a shard of several values (read it with ShardReader), expected {what}"),
        )),
        None => Err(IoError::at(
            file,
            "",
            format!(
                "has no extype metadata (written by another program?); expected {what}: load it \
                 with load_components_inferred (dtypes and shapes from the file) or \
                 load_components_as and a spec"
            ),
        )),
    }
}

/// The value a value file holds, by the registry.
pub(crate) fn value_from(file: &str, header: &Header, body: &mut Body<'_>) -> Result<Value> {
    let records = single_record(file, header, "an extype value")?;
    let plan = plan(file, header, &records)?;
    drop(records);
    one(file, read_plan(file, header, body, plan)?)
}

/// The one value of a value file's plan.
pub(crate) fn one(file: &str, values: Vec<Value>) -> Result<Value> {
    values
        .into_iter()
        .next()
        .ok_or_else(|| IoError::at(file, "", "no value"))
}

pub(crate) fn type_from<T: ExtensionType>(
    file: &str,
    header: &Header,
    body: &mut Body<'_>,
) -> Result<T> {
    let expected = registered_name::<T>();
    let what = format!("{expected} ({})", std::any::type_name::<T>());
    let Records::Value(record) = single_record(file, header, &what)? else {
        return Err(IoError::at(file, "", format!("expected {what}")));
    };
    // The name is `T`'s (or one of its old names), but when two types are registered under it
    // the file may hold the other's: the conflict's error.
    let entry = registry()
        .resolve(&record.type_name)
        .map_err(|e| IoError::at(file, "", format!("metadata type: {e}")))?;
    let old_name = entry.is_some_and(|e| e.type_id == std::any::TypeId::of::<T>());
    if record.type_name != expected && record.type_name != T::NAME && !old_name {
        return Err(IoError::at(
            file,
            "",
            format!("holds {}, expected {what}", record.type_name),
        ));
    }
    let tree = spec_tree(file, &record.spec)?;
    if let Some(upgrade) = upgrade_of(file, &record.type_name, &tree)? {
        let paths: Vec<&str> = record.components.iter().map(|c| &**c).collect();
        let wanted = [Wanted {
            prefix: String::new(),
            label: &record.type_name,
            paths,
            specs: None,
        }];
        let matched = matched(file, header, &wanted)?;
        let components = read(file, header, body, &matched)?
            .pop()
            .unwrap_or_default();
        return upgrade
            .rebuild_as::<T>(named(&record.components, components))
            .map_err(|e| IoError::at(file, "", e.to_string()));
    }
    let spec = T::Spec::deserialize(&tree)
        .map_err(|e| IoError::at(file, "", format!("metadata spec: {e}")))?;
    if record.components.len() != spec.num_components() {
        return Err(IoError::at(
            file,
            "",
            format!(
                "metadata lists {} components, the spec of {expected} has {}",
                record.components.len(),
                spec.num_components()
            ),
        ));
    }
    check_names(
        file,
        &record.type_name,
        &record.components,
        &spec.component_paths(),
    )?;
    let paths: Vec<&str> = record.components.iter().map(|c| &**c).collect();
    components_named(file, header, body, &spec, paths)
}

pub(crate) fn components_into<T: ExtensionType>(
    file: &str,
    header: &Header,
    body: &mut Body<'_>,
    spec: &T::Spec,
) -> Result<T> {
    components_under::<T>(file, header, body, spec, "")
}

/// [`components_into`] from the tensors named `prefix` + component path; tensors whose names
/// do not start with `prefix` are skipped (every tensor is in scope for an empty prefix).
pub(crate) fn components_under<T: ExtensionType>(
    file: &str,
    header: &Header,
    body: &mut Body<'_>,
    spec: &T::Spec,
    prefix: &str,
) -> Result<T> {
    let paths = spec.component_paths();
    components_named_under(
        file,
        header,
        body,
        spec,
        paths.iter().map(String::as_str).collect(),
        prefix,
    )
}

/// A `T` under `spec` from the tensors named `paths` (in component order): the one read path,
/// then `from_components` (which checks and validates, once).
fn components_named<T: ExtensionType>(
    file: &str,
    header: &Header,
    body: &mut Body<'_>,
    spec: &T::Spec,
    paths: Vec<&str>,
) -> Result<T> {
    components_named_under(file, header, body, spec, paths, "")
}

/// [`components_named`] from the tensors named `prefix` + path.
fn components_named_under<T: ExtensionType>(
    file: &str,
    header: &Header,
    body: &mut Body<'_>,
    spec: &T::Spec,
    paths: Vec<&str>,
    prefix: &str,
) -> Result<T> {
    let wanted = [Wanted {
        prefix: prefix.to_string(),
        label: registered_name::<T>(),
        paths,
        specs: Some(spec.component_specs()),
    }];
    let matched = matched_within(file, header, &wanted, prefix)?;
    let components = read(file, header, body, &matched)?
        .pop()
        .unwrap_or_default();
    spec.from_components(components)
        .map_err(|e| IoError::at(file, "", e.to_string()))
}

/// Loads the value saved in `path`, by the registry: a registered type's value, a
/// [`Tensor`](crate::Tensor), or, for a type name not linked into this program, an
/// [`AnonymousExtension`](crate::AnonymousExtension) (turn it into its type later with
/// [`Value::reinterpret`]).
///
/// The tensors are read straight into their own buffers (one read per tensor, no intermediate
/// copy). The header is checked as untrusted input, then each tensor's dtype and shape against
/// the spec the file carries, then the value is rebuilt as `from_components` does (validation
/// and shape contracts included). Errors name the file and the tensor. An anonymous value's
/// components are checked against its type when it is reinterpreted (this program does not know
/// the type).
pub fn load(path: impl AsRef<Path>) -> Result<Value> {
    let path = path.as_ref();
    let (mut f, header) = open(path)?;
    value_from(
        &path.display().to_string(),
        &header,
        &mut Body::File(&mut f),
    )
}

/// Loads a value of type `T` from `path`. A file of another type is an error naming both types.
///
/// ```
/// use extype_core::{Tensor, io};
/// let dir = std::env::temp_dir().join(format!("extype-doc-load-as-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("t.safetensors");
/// io::save(&path, &Tensor::from(ndarray::array![1i64, 2]))?;
/// // A tensor file is not an extension value:
/// let err = io::load_as::<extype_core::AnonymousExtension>(&path).unwrap_err();
/// assert!(err.to_string().contains("holds Tensor, expected extype.Anonymous"), "{err}");
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load_as<T: ExtensionType>(path: impl AsRef<Path>) -> Result<T> {
    let path = path.as_ref();
    let (mut f, header) = open(path)?;
    type_from::<T>(
        &path.display().to_string(),
        &header,
        &mut Body::File(&mut f),
    )
}

/// Loads a `T` from a safetensors file whose tensors are named by `T`'s field paths (`values`,
/// `items[1].mask`), such as one written by Python's `safetensors` (`save_file` of numpy arrays
/// or torch tensors): `spec` gives the dtypes and shapes to expect (partial shapes are fine) and
/// the component paths. A missing or extra tensor is an error naming it; any `__metadata__` is
/// ignored.
pub fn load_components_as<T: ExtensionType>(path: impl AsRef<Path>, spec: &T::Spec) -> Result<T> {
    let path = path.as_ref();
    let (mut f, header) = open(path)?;
    components_into::<T>(
        &path.display().to_string(),
        &header,
        &mut Body::File(&mut f),
        spec,
    )
}

/// Loads a `T` from a safetensors file whose tensors are named by `T`'s field paths, taking
/// every dtype and shape from the file: no spec to write. For a type without static fields
/// (those are what a file cannot say; give them with [`load_components_inferred_with`]).
///
/// The spec is built from the file ([`TypeSpec::from_source`]): each tensor field takes the
/// dtype and shape of the tensor at its path, checked against the field's Rust type (an
/// `Array2<f32>` takes only an `F32` tensor of rank 2); an `Option` field is `Some` when a
/// tensor lies under its path; a `Vec` has one element per index `[0]`, `[1]`, … found; a map
/// has the keys found. Then the file is read as [`load_components_as`] reads it under that
/// spec: a missing or extra tensor is an error naming it, and the value is checked and
/// validated as `from_components` does (shape contracts, the type's `validate`).
///
/// ```
/// use extype_core::{Tensor, io};
/// # let dir = std::env::temp_dir().join(format!("extype-doc-inferred-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("t.safetensors");
/// io::save(&path, &Tensor::from(ndarray::array![1i64, 2]))?;
/// // An anonymous value has no field types to build its spec from.
/// let err = io::load_components_inferred::<extype_core::AnonymousExtension>(&path).unwrap_err();
/// assert!(err.to_string().contains("TypeSpec::from_source"), "{err}");
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load_components_inferred<T: ExtensionType>(path: impl AsRef<Path>) -> Result<T> {
    load_components_inferred_with::<T>(path, Statics::new())
}

/// [`load_components_inferred`] for a type with static fields: `statics` gives their values by
/// field path ([`Statics::with`]); dtypes and shapes come from the file. A static field without
/// a value, or a value for a path that is no static field, is an error naming the path.
pub fn load_components_inferred_with<T: ExtensionType>(
    path: impl AsRef<Path>,
    statics: Statics,
) -> Result<T> {
    load_inferred::<T>(path.as_ref(), "", statics)
}

/// [`load_components_inferred_with`] for a value stored among other tensors, such as a model
/// checkpoint holding a type's tensors beside other weights: `T`'s tensors are those named
/// `prefix.` + field path (`encoder.tokens.flat_values` for the prefix `encoder.tokens`; a
/// prefix ending in `.` is taken as it is, and an empty one is the file's top level). Tensors
/// outside the prefix are neither read nor checked; a tensor under it that is no component
/// of `T` is an error naming it, as for a whole file.
///
/// ```
/// use extype_core::{Tensor, io};
/// # let dir = std::env::temp_dir().join(format!("extype-doc-prefixed-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("t.safetensors");
/// io::save(&path, &Tensor::from(ndarray::array![1i64, 2]))?;
/// // An anonymous value has no field types to build its spec from.
/// let err = io::load_components_inferred_prefixed::<extype_core::AnonymousExtension>(
///     &path, "encoder", io::Statics::new()).unwrap_err();
/// assert!(err.to_string().contains("TypeSpec::from_source"), "{err}");
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load_components_inferred_prefixed<T: ExtensionType>(
    path: impl AsRef<Path>,
    prefix: &str,
    statics: Statics,
) -> Result<T> {
    let prefix = match prefix {
        "" => String::new(),
        p if p.ends_with('.') => p.to_string(),
        p => format!("{p}."),
    };
    load_inferred::<T>(path.as_ref(), &prefix, statics)
}

/// The inferred loaders: the spec from the tensors named `prefix` + path, then the value.
fn load_inferred<T: ExtensionType>(path: &Path, prefix: &str, statics: Statics) -> Result<T> {
    let file = path.display().to_string();
    let (mut f, header) = open(path)?;
    let label = registered_name::<T>();
    let from = match prefix {
        "" => "the file".to_string(),
        p => format!("the file's tensors named {p:?} + field path"),
    };
    let wrap = |e: crate::error::Error| {
        IoError::at(&file, "", format!("the spec of {label} from {from}: {e}"))
    };
    let mut source = FileSource::new(&header, prefix, statics);
    let spec = T::Spec::from_source(&mut source).map_err(wrap)?;
    source.finish(label).map_err(wrap)?;
    components_under::<T>(&file, &header, &mut Body::File(&mut f), &spec, prefix)
}
