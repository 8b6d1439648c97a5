//! Reading: a file's header, its tensors (copied into their own buffers, or viewed in a map),
//! and the value they make, checked as `from_components` checks.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use std::sync::Arc;

use super::bytes::{read_tensor, shared_tensor};
use super::format::{Record, TENSOR_NAME, TENSOR_TYPE, records};
use super::header::{self, Header};
use crate::error::{IoError, Result};
use crate::registry::{AnonymousExtension, registry};
use crate::spec::{AnySpec, ExtensionType, TypeSpec, Value, registered_name};
use crate::spec_tree::SpecTree;
use crate::tensor::{ExternalBytes, Tensor, TensorSpec};

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

/// Reads every tensor of the header, in header (offset) order.
pub(crate) fn read_all(file: &str, header: &Header, body: &mut Body<'_>) -> Result<Vec<Tensor>> {
    header
        .entries
        .iter()
        .map(|e| {
            let tensor = match body {
                Body::File(f) => read_tensor(e.dtype, &e.shape, e.byte_len(), &mut |out| {
                    f.read_exact(out)
                }),
                Body::Mapped(map) => {
                    let at = header.data_start as usize;
                    shared_tensor(map, at + e.start, e.byte_len(), e.dtype, &e.shape)
                }
            };
            tensor.map_err(|m| IoError::at(file, &e.name, m))
        })
        .collect()
}

/// How a record becomes a value.
pub(crate) enum Target {
    Tensor,
    Registered(Box<dyn AnySpec>),
    Anonymous(SpecTree),
}

/// Matches component paths (with `prefix`) to header entries, checking dtype and shape against
/// the component specs when known. Returns the entry index of each component.
pub(crate) fn match_components(
    file: &str,
    header: &Header,
    prefix: &str,
    type_label: &str,
    paths: &[String],
    specs: Option<&[TensorSpec]>,
) -> Result<Vec<usize>> {
    let mut indices = Vec::with_capacity(paths.len());
    for (i, path) in paths.iter().enumerate() {
        let name = format!("{prefix}{path}");
        let Some(at) = header.entries.iter().position(|e| e.name == name) else {
            let names: Vec<&str> = header.entries.iter().map(|e| e.name.as_str()).collect();
            return Err(IoError::at(
                file,
                &name,
                format!(
                    "missing: {type_label} has a component {path:?}, the file has no tensor of \
                     that name (tensors: [{}])",
                    names.join(", ")
                ),
            ));
        };
        let e = &header.entries[at];
        if let Some(spec) = specs.and_then(|s| s.get(i)) {
            if spec.dtype != e.dtype {
                return Err(IoError::at(
                    file,
                    &name,
                    format!(
                        "component {path} of {type_label}: expected dtype {} (spec {spec}), found {}",
                        spec.dtype, e.dtype
                    ),
                ));
            }
            if !spec.shape.admits(&e.shape) {
                return Err(IoError::at(
                    file,
                    &name,
                    format!(
                        "component {path} of {type_label}: shape {:?} is not admitted by spec {spec}",
                        e.shape
                    ),
                ));
            }
        }
        indices.push(at);
    }
    Ok(indices)
}

/// Errors on an entry no component used.
pub(crate) fn check_no_extra(
    file: &str,
    header: &Header,
    used: &[bool],
    type_label: &str,
    paths: &[String],
) -> Result<()> {
    if let Some((e, _)) = header.entries.iter().zip(used).find(|(_, u)| !**u) {
        return Err(IoError::at(
            file,
            &e.name,
            format!(
                "extra: not a component of {type_label} (components: [{}])",
                paths.join(", ")
            ),
        ));
    }
    Ok(())
}

/// How to rebuild `record`, by the registry: its spec, paths and component specs.
pub(crate) fn target(file: &str, record: &Record) -> Result<(Target, Option<Vec<TensorSpec>>)> {
    let wrap = |e: crate::error::Error| IoError::at(file, "", format!("metadata spec: {e}"));
    if record.type_name == TENSOR_TYPE {
        let spec: TensorSpec = record
            .spec
            .parse()
            .map_err(|e: crate::error::Error| wrap(e))?;
        if record.components != [TENSOR_NAME] {
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
    let tree = SpecTree::from_json(&record.spec).map_err(wrap)?;
    match &tree {
        SpecTree::Spec(named) if named.name == record.type_name => {}
        other => {
            return Err(IoError::at(
                file,
                "",
                format!(
                    "metadata: type {:?} but the spec is a {}",
                    record.type_name,
                    other.describe()
                ),
            ));
        }
    }
    let reg = registry();
    if reg.lookup(&record.type_name).is_none() {
        return Ok((Target::Anonymous(tree), None));
    }
    let spec = reg.deserialize_spec(&tree).map_err(wrap)?;
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
    let specs = spec.dyn_component_specs();
    Ok((Target::Registered(spec), Some(specs)))
}

/// Rebuilds a value from its target and components (in component order).
pub(crate) fn rebuild(file: &str, target: &Target, components: Vec<Tensor>) -> Result<Value> {
    let wrap = |e: crate::error::Error| IoError::at(file, "", e.to_string());
    match target {
        Target::Tensor => Ok(Value::Tensor(
            components
                .into_iter()
                .next()
                .ok_or_else(|| IoError::at(file, "", "no tensor"))?,
        )),
        Target::Registered(spec) => spec.dyn_from_components(components).map_err(wrap),
        Target::Anonymous(tree) => AnonymousExtension::new(tree.clone(), components)
            .map(Value::from_extension)
            .map_err(wrap),
    }
}

/// Takes the tensors at `indices` out of `all`.
pub(crate) fn take(all: &mut [Option<Tensor>], indices: &[usize]) -> Vec<Tensor> {
    indices.iter().filter_map(|&i| all[i].take()).collect()
}

/// The one record of a value file, or an error saying what the file is instead.
pub(crate) fn single_record(file: &str, header: &Header, what: &str) -> Result<Record> {
    match records(file, &header.metadata)? {
        Some((false, mut r)) => Ok(r.remove(0)),
        Some((true, _)) => Err(IoError::at(
            file,
            "",
            format!("is a shard of several values (read it with ShardReader), expected {what}"),
        )),
        None => Err(IoError::at(
            file,
            "",
            format!(
                "has no extype metadata (written by another program?); expected {what}: load it \
                 with load_components_as and a spec"
            ),
        )),
    }
}

pub(crate) fn value_from(file: &str, header: &Header, body: &mut Body<'_>) -> Result<Value> {
    let record = single_record(file, header, "an extype value")?;
    let (target, specs) = target(file, &record)?;
    let label = record.type_name.as_str();
    let indices = match_components(
        file,
        header,
        "",
        label,
        &record.components,
        specs.as_deref(),
    )?;
    let mut used = vec![false; header.entries.len()];
    indices.iter().for_each(|&i| used[i] = true);
    check_no_extra(file, header, &used, label, &record.components)?;
    let mut all: Vec<Option<Tensor>> = read_all(file, header, body)?
        .into_iter()
        .map(Some)
        .collect();
    rebuild(file, &target, take(&mut all, &indices))
}

pub(crate) fn type_from<T: ExtensionType>(
    file: &str,
    header: &Header,
    body: &mut Body<'_>,
) -> Result<T> {
    let expected = registered_name::<T>();
    let what = format!("{expected} ({})", std::any::type_name::<T>());
    let record = single_record(file, header, &what)?;
    if record.type_name != expected && record.type_name != T::NAME {
        return Err(IoError::at(
            file,
            "",
            format!("holds {}, expected {what}", record.type_name),
        ));
    }
    let tree = SpecTree::from_json(&record.spec)
        .map_err(|e| IoError::at(file, "", format!("metadata spec: {e}")))?;
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
    components_named(file, header, body, &spec, &record.components)
}

pub(crate) fn components_into<T: ExtensionType>(
    file: &str,
    header: &Header,
    body: &mut Body<'_>,
    spec: &T::Spec,
) -> Result<T> {
    components_named(file, header, body, spec, &spec.component_paths())
}

/// A `T` under `spec` from the tensors named `paths` (in component order).
fn components_named<T: ExtensionType>(
    file: &str,
    header: &Header,
    body: &mut Body<'_>,
    spec: &T::Spec,
    paths: &[String],
) -> Result<T> {
    let label = registered_name::<T>();
    let specs = spec.component_specs();
    let indices = match_components(file, header, "", label, paths, Some(&specs))?;
    let mut used = vec![false; header.entries.len()];
    indices.iter().for_each(|&i| used[i] = true);
    check_no_extra(file, header, &used, label, paths)?;
    let mut all: Vec<Option<Tensor>> = read_all(file, header, body)?
        .into_iter()
        .map(Some)
        .collect();
    let wrap = |e: crate::error::Error| IoError::at(file, "", e.to_string());
    let value = spec
        .from_components(take(&mut all, &indices))
        .map_err(wrap)?;
    value.validate().map_err(wrap)?;
    Ok(value)
}

/// Loads the value saved in `path`, by the registry: a registered type's value, a
/// [`Tensor`](crate::Tensor), or, for a type name not linked into this program, an
/// [`AnonymousExtension`] (turn it into its type later with [`Value::reinterpret`]).
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
