//! `extype::io`: safetensors files — round trips of every kind of value, wrong types, files of
//! other programs, every kind of untrusted file, atomic saves, shards, and a seeded fuzz test
//! that holds extype's header reader to the `safetensors` crate's verdicts.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use common::{Batch, MaskedTensor, MaskedTensorSpec, TempDir};
use extype::io::{self, ShardReader, ShardWriter};
use extype::{DType, ExtensionType, Tensor, TypeSpec, Value};
use ndarray::{Array1, ArrayD, IxDyn, array};

/// A value with a shape contract: `values` and `mask` share their length.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.io.Contracted")]
pub struct Contracted {
    #[extype(shape = "n")]
    pub values: Array1<f32>,
    #[extype(shape = "n")]
    pub mask: Array1<bool>,
}

/// How many times `Checked`'s validation ran.
static VALIDATIONS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn count_validation(_: &Checked) -> extype::Result<()> {
    VALIDATIONS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    Ok(())
}

/// A value whose validation counts its runs.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.io.Checked", validate = count_validation)]
pub struct Checked {
    pub values: Array1<f32>,
}

#[test]
fn a_read_value_is_validated_once() {
    let dir = TempDir::new("io-validated-once");
    let path = dir.path("c.safetensors");
    let value = Checked {
        values: array![1.0f32, 2.0],
    };
    io::save(&path, &value).unwrap();
    let runs = |read: &dyn Fn()| {
        let before = VALIDATIONS.load(std::sync::atomic::Ordering::SeqCst);
        read();
        VALIDATIONS.load(std::sync::atomic::Ordering::SeqCst) - before
    };
    assert_eq!(
        runs(&|| assert_eq!(io::load_as::<Checked>(&path).unwrap(), value)),
        1
    );
    assert_eq!(runs(&|| drop(io::load(&path).unwrap())), 1);
    let spec = value.spec();
    assert_eq!(
        runs(&|| drop(io::load_components_as::<Checked>(&path, &spec).unwrap())),
        1
    );
    let mapped = map(&path).unwrap();
    assert_eq!(runs(&|| drop(mapped.to_type::<Checked>().unwrap())), 1);
    assert_eq!(runs(&|| drop(mapped.to_value().unwrap())), 1);
}

fn masked() -> MaskedTensor {
    MaskedTensor {
        values: array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]].into_dyn(),
        mask: array![[true, false, true], [false, true, true]].into_dyn(),
    }
}

fn batch() -> Batch {
    let mut attrs = BTreeMap::new();
    attrs.insert("height".to_string(), array![1.0f32, 2.0]);
    attrs.insert("width".to_string(), array![3.0f32]);
    Batch {
        children: vec![
            masked(),
            MaskedTensor {
                values: ArrayD::zeros(IxDyn(&[0, 4])),
                mask: ArrayD::from_elem(IxDyn(&[0, 4]), false),
            },
        ],
        attrs,
        weights: Some((array![0.5f64, 0.25], Tensor::from(array![7u16, 8, 9]))),
        label: "batch".into(),
        scale: 2.5,
        kind: DType::I32,
    }
}

/// `io::map` for this file's tests.
fn map(path: &Path) -> extype::Result<io::Mapped> {
    // SAFETY: every file these tests map is their own, written before it is mapped and not
    // written while mapped (saves rename a new file over the old one, leaving the map intact).
    unsafe { io::map(path) }
}

fn err_text<T: std::fmt::Debug>(r: extype::Result<T>) -> String {
    r.unwrap_err().to_string()
}

/// Every tensor of a file starts at an offset aligned for its dtype.
fn assert_aligned(path: &Path) {
    for t in io::inspect(path).unwrap().tensors {
        assert!(
            t.offset
                .is_multiple_of(t.dtype.known().unwrap().size_of() as u64),
            "{}: {} at {}",
            path.display(),
            t.path,
            t.offset
        );
    }
}

#[test]
fn masked_round_trip_by_registry_by_type_and_mapped() {
    let dir = TempDir::new("io-masked");
    let path = dir.path("m.safetensors");
    let value = masked();
    io::save(&path, &value).unwrap();
    assert_aligned(&path);

    let loaded = io::load(&path).unwrap();
    assert_eq!(loaded.type_name(), "test.MaskedTensor");
    assert_eq!(loaded.downcast_ref::<MaskedTensor>().unwrap(), &value);
    assert_eq!(io::load_as::<MaskedTensor>(&path).unwrap(), value);

    let mapped = map(&path).unwrap();
    assert_eq!(mapped.type_name(), Some("test.MaskedTensor"));
    assert_eq!(mapped.names(), vec!["values", "mask"]);
    let view = mapped.view("values").unwrap();
    let typed = view.into_array::<f32, IxDyn>().unwrap();
    assert_eq!(typed, value.values.view());
    // Zero-copy: the view points into the map.
    let base = mapped.header().data_start as usize;
    let entry = mapped.header().entry("values").unwrap();
    assert_eq!(entry.start + base, {
        let p = typed.as_ptr() as usize;
        let first = mapped.view("mask").unwrap();
        let q = first.into_array::<bool, IxDyn>().unwrap().as_ptr() as usize;
        let mask = mapped.header().entry("mask").unwrap();
        p - (q - (mask.start + base))
    });
    assert_eq!(mapped.to_type::<MaskedTensor>().unwrap(), value);
    assert_eq!(
        mapped
            .to_value()
            .unwrap()
            .downcast::<MaskedTensor>()
            .unwrap(),
        value
    );
    assert_eq!(
        mapped.tensor("mask").unwrap(),
        Tensor::from(value.mask.clone())
    );
    // Tensors from the map view it in place (no copy) and keep it mapped after the `Mapped` is
    // gone, even once the file is replaced on disk.
    let values_at = mapped
        .view("values")
        .unwrap()
        .into_array::<f32, IxDyn>()
        .unwrap()
        .as_ptr();
    let tensor = mapped.tensor("values").unwrap();
    assert!(matches!(tensor, Tensor::External(_)));
    assert_eq!(tensor.as_array::<f32, IxDyn>().unwrap().as_ptr(), values_at);
    let mask = mapped.tensor("mask").unwrap();
    assert!(matches!(mask, Tensor::External(_)));
    drop(mapped);
    io::save(&path, &Tensor::from(array![0u8])).unwrap();
    assert_eq!(tensor, Tensor::from(value.values.clone()));
    assert_eq!(tensor.clone().view().shape(), &[2, 3]);
    assert!(!tensor.is_unique());
    assert_eq!(mask, Tensor::from(value.mask.clone()));
    // An ndarray array owns its buffer: out of a mapped tensor it is a copy; the shared array
    // inside cannot be borrowed.
    let copied: ndarray::ArrayD<f32> = tensor.clone().into_array().unwrap();
    assert_ne!(copied.as_ptr(), values_at);
    assert_eq!(copied, value.values);
    let text = tensor.as_arc_array::<f32>().unwrap_err().to_string();
    assert!(
        text.contains("as_arc_array") && text.contains("owned elsewhere"),
        "{text}"
    );
}

/// A type whose tensor fields are `Tensor`s keeps a mapped file's bytes: nothing is copied.
#[derive(Debug, Clone, PartialEq, ExtensionType)]
#[extype(name = "test.io.Shared")]
struct SharedFields {
    values: Tensor,
    mask: Tensor,
}

#[test]
fn mapped_values_view_the_file() {
    let dir = TempDir::new("io-mapped_values");
    let path = dir.path("shared.safetensors");
    let value = SharedFields {
        values: Tensor::from(array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]]),
        mask: Tensor::from(array![[true, false, true], [false, true, true]]),
    };
    io::save(&path, &value).unwrap();
    let mapped = map(&path).unwrap();
    let at = |name: &str| {
        let e = mapped.header().entry(name).unwrap();
        mapped.view(name).unwrap();
        mapped.header().data_start as usize + e.start
    };
    let (values_at, mask_at) = (at("values"), at("mask"));
    let loaded = mapped.to_type::<SharedFields>().unwrap();
    drop(mapped);
    assert_eq!(loaded, value);
    for (t, offset) in [(&loaded.values, values_at), (&loaded.mask, mask_at)] {
        let Tensor::External(e) = t else {
            panic!("expected a tensor viewing the map, found {t:?}")
        };
        // The tensor's bytes are the file's bytes at the header's offset.
        assert_eq!(
            e.bytes(),
            &std::fs::read(&path).unwrap()[offset..offset + e.bytes().len()]
        );
    }
    // Ops read mapped tensors like any other.
    let doubled = extype::ops::add(&loaded.values, &loaded.values).unwrap();
    assert_eq!(
        doubled.into_tensor().unwrap(),
        Tensor::from(array![[2.0f32, 4.0, 6.0], [8.0, 10.0, 12.0]])
    );
    // Saving a mapped value writes the same file again.
    let again = dir.path("again.safetensors");
    io::save(&again, &loaded).unwrap();
    assert_eq!(io::load_as::<SharedFields>(&again).unwrap(), value);
}

#[test]
fn nested_values_use_field_paths_and_round_trip() {
    let dir = TempDir::new("io-nested");
    let path = dir.path("b.safetensors");
    let value = batch();
    io::save(&path, &value).unwrap();
    assert_aligned(&path);
    let info = io::inspect(&path).unwrap();
    assert_eq!(info.types, vec!["test.Batch"]);
    let names: Vec<&str> = info.tensors.iter().map(|t| &*t.path).collect();
    assert_eq!(names, value.spec().component_paths());
    assert!(names.contains(&"children[1].mask"), "{names:?}");
    // A registered type's spec prints as the spec itself does: fields in declaration order.
    assert_eq!(info.specs[0], value.spec().to_string());
    assert_eq!(io::load_as::<Batch>(&path).unwrap(), value);
    assert_eq!(io::load(&path).unwrap().downcast::<Batch>().unwrap(), value);
    // Through a `Value`, too.
    let path2 = dir.path("b2.safetensors");
    io::save(&path2, &Value::from_extension(value.clone())).unwrap();
    assert_eq!(io::load_as::<Batch>(&path2).unwrap(), value);
}

#[test]
fn tensors_of_every_dtype_rank_zero_and_zero_size() {
    use extype::half::{bf16, f16};
    let dir = TempDir::new("io-dtypes");
    let tensors = vec![
        Tensor::from(array![true, false, true]),
        Tensor::from(array![-1i8, 2]),
        Tensor::from(array![-300i16, 2]),
        Tensor::from(array![[i32::MIN, 2], [3, i32::MAX]]),
        Tensor::from(array![i64::MIN, i64::MAX]),
        Tensor::from(array![255u8, 0]),
        Tensor::from(array![65535u16]),
        Tensor::from(array![u32::MAX]),
        Tensor::from(array![u64::MAX, 1]),
        Tensor::from(array![1.5f32, f32::NEG_INFINITY, -0.0]),
        Tensor::from(array![std::f64::consts::PI, f64::MIN_POSITIVE]),
        Tensor::from(ndarray::arr0(42.0f64).into_dyn()),
        Tensor::from(ArrayD::<f32>::zeros(IxDyn(&[3, 0, 2]))),
        Tensor::from(ArrayD::<bool>::from_elem(IxDyn(&[0]), false)),
        // Not in standard layout: saved in row-major order.
        Tensor::from(array![[1i32, 2, 3], [4, 5, 6]].reversed_axes()),
        // Half precision: a subnormal, the largest finite, -inf, -0.
        Tensor::from(array![
            f16::from_bits(0x0001),
            f16::MAX,
            f16::NEG_INFINITY,
            f16::NEG_ZERO
        ]),
        Tensor::from(array![
            [bf16::from_bits(0x0001), bf16::MAX],
            [bf16::INFINITY, bf16::from_f32(-1.5)]
        ]),
        Tensor::from(ndarray::arr0(bf16::from_f32(3.0)).into_dyn()),
        Tensor::from(array![[f16::ONE, f16::MIN], [f16::EPSILON, f16::ZERO]].reversed_axes()),
    ];
    let mut seen = std::collections::BTreeSet::new();
    for (i, t) in tensors.into_iter().enumerate() {
        seen.insert(t.dtype());
        let path = dir.path(&format!("t{i}.safetensors"));
        io::save(&path, &t).unwrap();
        assert_aligned(&path);
        let back = io::load(&path).unwrap().into_tensor().unwrap();
        assert_eq!(back, t, "{i}");
        assert_eq!(
            map(&path)
                .unwrap()
                .to_value()
                .unwrap()
                .into_tensor()
                .unwrap(),
            t
        );
        let view = map(&path).unwrap().view("tensor").unwrap().to_tensor();
        assert_eq!(view, t, "{i}");
        let value = Value::from(t.clone());
        io::save(&path, &value).unwrap();
        assert_eq!(io::load(&path).unwrap().into_tensor().unwrap(), t);
    }
    assert_eq!(seen.len(), DType::ALL.len());
}

#[test]
fn wrong_type_names_both() {
    let dir = TempDir::new("io-wrong");
    let path = dir.path("m.safetensors");
    io::save(&path, &masked()).unwrap();
    let text = err_text(io::load_as::<Batch>(&path));
    assert!(
        text.contains("test.MaskedTensor")
            && text.contains("test.Batch")
            && text.contains("m.safetensors"),
        "{text}"
    );
    let tpath = dir.path("t.safetensors");
    io::save(&tpath, &Tensor::from(array![1.0f32])).unwrap();
    let text = err_text(io::load_as::<MaskedTensor>(&tpath));
    assert!(
        text.contains("holds Tensor") && text.contains("test.MaskedTensor"),
        "{text}"
    );
}

/// A safetensors file written by the crate (as Python's `safetensors` writes them).
fn write_raw(
    path: &Path,
    tensors: Vec<(&str, DType, Vec<usize>, Vec<u8>)>,
    meta: Option<HashMap<String, String>>,
) {
    let views: Vec<(String, safetensors::tensor::TensorView<'_>)> = tensors
        .iter()
        .map(|(n, d, s, b)| {
            let dtype = match d {
                DType::Bool => safetensors::Dtype::BOOL,
                DType::F32 => safetensors::Dtype::F32,
                DType::I32 => safetensors::Dtype::I32,
                DType::I64 => safetensors::Dtype::I64,
                DType::F64 => safetensors::Dtype::F64,
                other => panic!("{other}"),
            };
            (
                n.to_string(),
                safetensors::tensor::TensorView::new(dtype, s.clone(), b).unwrap(),
            )
        })
        .collect();
    safetensors::serialize_to_file(views, meta, path).unwrap();
}

/// A masked-tensor spec with the given partial shape for both fields.
fn masked_spec(shape: &str) -> MaskedTensorSpec {
    MaskedTensorSpec {
        values: format!("f32{shape}").parse().unwrap(),
        mask: format!("bool{shape}").parse().unwrap(),
    }
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn foreign_files_load_under_a_given_spec_naming_missing_and_extra_tensors() {
    let dir = TempDir::new("io-foreign");
    let path = dir.path("py.safetensors");
    write_raw(
        &path,
        vec![
            (
                "values",
                DType::F32,
                vec![2, 2],
                f32_bytes(&[1.0, 2.0, 3.0, 4.0]),
            ),
            ("mask", DType::Bool, vec![2, 2], vec![1, 0, 0, 1]),
        ],
        None,
    );
    let relaxed = masked_spec("[?, ?]");
    let loaded = io::load_components_as::<MaskedTensor>(&path, &relaxed).unwrap();
    assert_eq!(loaded.values, array![[1.0f32, 2.0], [3.0, 4.0]].into_dyn());
    assert_eq!(loaded.mask, array![[true, false], [false, true]].into_dyn());
    // Without extype metadata, `load` says what to do.
    let text = err_text(io::load(&path));
    assert!(
        text.contains("no extype metadata") && text.contains("load_components_as"),
        "{text}"
    );

    let missing = dir.path("missing.safetensors");
    write_raw(
        &missing,
        vec![("values", DType::F32, vec![1], f32_bytes(&[1.0]))],
        None,
    );
    let text = err_text(io::load_components_as::<MaskedTensor>(
        &missing,
        &masked_spec("[?]"),
    ));
    assert!(
        text.contains("\"mask\"") && text.contains("missing"),
        "{text}"
    );

    let extra = dir.path("extra.safetensors");
    write_raw(
        &extra,
        vec![
            ("values", DType::F32, vec![1], f32_bytes(&[1.0])),
            ("mask", DType::Bool, vec![1], vec![1]),
            ("bias", DType::F32, vec![1], f32_bytes(&[1.0])),
        ],
        None,
    );
    let text = err_text(io::load_components_as::<MaskedTensor>(
        &extra,
        &masked_spec("[?]"),
    ));
    assert!(
        text.contains("\"bias\"") && text.contains("extra"),
        "{text}"
    );

    // Validation runs: values and mask of different shapes.
    let invalid = dir.path("invalid.safetensors");
    write_raw(
        &invalid,
        vec![
            ("values", DType::F32, vec![2], f32_bytes(&[1.0, 2.0])),
            ("mask", DType::Bool, vec![1], vec![1]),
        ],
        None,
    );
    let text = err_text(io::load_components_as::<MaskedTensor>(
        &invalid,
        &masked_spec("[?]"),
    ));
    assert!(
        text.contains("invalid value of test.MaskedTensor"),
        "{text}"
    );

    // Shape contracts run: `n` differs between the fields.
    let relaxed = ContractedSpec {
        values: "f32[?]".parse().unwrap(),
        mask: "bool[?]".parse().unwrap(),
    };
    let text = err_text(io::load_components_as::<Contracted>(&invalid, &relaxed));
    assert!(text.contains("invalid.safetensors"), "{text}");
    let ok = dir.path("ok.safetensors");
    write_raw(
        &ok,
        vec![
            ("values", DType::F32, vec![2], f32_bytes(&[1.0, 2.0])),
            ("mask", DType::Bool, vec![2], vec![1, 0]),
        ],
        None,
    );
    assert_eq!(
        io::load_components_as::<Contracted>(&ok, &relaxed)
            .unwrap()
            .values,
        array![1.0f32, 2.0]
    );
    // Wrong dtype against the spec names the tensor.
    let text = err_text(io::load_components_as::<MaskedTensor>(
        &ok,
        &masked_spec("[?, ?]"),
    ));
    assert!(
        text.contains("\"values\"") && text.contains("not admitted"),
        "{text}"
    );
}

#[test]
fn unregistered_types_load_as_anonymous_values() {
    let dir = TempDir::new("io-anon");
    let path = dir.path("m.safetensors");
    io::save(&path, &masked()).unwrap();
    // Rename the type inside the file's metadata: a type this program does not link.
    let (meta, tensors) = read_back(&path);
    let mut meta = meta;
    for v in meta.values_mut() {
        *v = v.replace("test.MaskedTensor", "other.Unknown");
    }
    let other = dir.path("other.safetensors");
    write_raw(
        &other,
        tensors
            .iter()
            .map(|(n, d, s, b)| (n.as_str(), *d, s.clone(), b.clone()))
            .collect(),
        Some(meta),
    );
    let value = io::load(&other).unwrap();
    assert_eq!(value.type_name(), "other.Unknown");
    let anon = value.downcast_ref::<extype::AnonymousExtension>().unwrap();
    assert_eq!(anon.components.len(), 2);
    // Metadata listing a component twice is an error naming it (it used to load with one
    // component fewer).
    let (meta, _) = read_back(&other);
    let mut twice = meta.clone();
    let components = twice.get_mut("components").unwrap();
    assert_eq!(components, r#"["values","mask"]"#);
    *components = r#"["values","values"]"#.into();
    let dup = dir.path("dup.safetensors");
    write_raw(
        &dup,
        tensors
            .iter()
            .map(|(n, d, s, b)| (n.as_str(), *d, s.clone(), b.clone()))
            .collect(),
        Some(twice),
    );
    for text in [
        err_text(io::load(&dup)),
        err_text(map(&dup)),
        err_text(io::inspect(&dup)),
    ] {
        assert!(
            text.contains("\"values\"") && text.contains("twice"),
            "{text}"
        );
    }
    assert_eq!(anon.components[0], Tensor::from(masked().values));
    // The anonymous value saves and loads again.
    let again = dir.path("again.safetensors");
    io::save(&again, &value).unwrap();
    let back = io::load(&again).unwrap();
    assert_eq!(back.type_name(), "other.Unknown");

    // An anonymous value of a type this program does link saves and loads as that type.
    let tree = masked().spec().serialize();
    let anon = extype::AnonymousExtension::new(tree, masked().into_components()).unwrap();
    let known = dir.path("known.safetensors");
    io::save(&known, &anon).unwrap();
    assert_eq!(io::load_as::<MaskedTensor>(&known).unwrap(), masked());
    assert_eq!(
        io::load(&known)
            .unwrap()
            .downcast::<MaskedTensor>()
            .unwrap(),
        masked()
    );
}

type RawTensor = (String, DType, Vec<usize>, Vec<u8>);

fn read_back(path: &Path) -> (HashMap<String, String>, Vec<RawTensor>) {
    let bytes = std::fs::read(path).unwrap();
    let (_, meta) = safetensors::SafeTensors::read_metadata(&bytes).unwrap();
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let tensors = st
        .tensors()
        .into_iter()
        .map(|(n, v)| {
            let d = match v.dtype() {
                safetensors::Dtype::BOOL => DType::Bool,
                safetensors::Dtype::F32 => DType::F32,
                safetensors::Dtype::F64 => DType::F64,
                safetensors::Dtype::I32 => DType::I32,
                safetensors::Dtype::I64 => DType::I64,
                other => panic!("{other:?}"),
            };
            (n, d, v.shape().to_vec(), v.data().to_vec())
        })
        .collect();
    (meta.metadata().clone().unwrap_or_default(), tensors)
}

/// A file from its header JSON and data bytes.
fn file_bytes(header: &str, data: &[u8]) -> Vec<u8> {
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

#[test]
fn untrusted_files_are_clear_errors() {
    let dir = TempDir::new("io-untrusted");
    let check = |name: &str, bytes: &[u8], expect: &[&str]| {
        let path = dir.path(name);
        std::fs::write(&path, bytes).unwrap();
        for text in [
            err_text(io::load(&path)),
            err_text(map(&path)),
            err_text(io::inspect(&path)),
        ] {
            assert!(text.contains(name), "{name}: {text}");
            for e in expect {
                assert!(text.contains(e), "{name}: expected {e:?} in {text}");
            }
        }
    };
    let good = r#"{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#;
    let data = f32_bytes(&[1.0, 2.0]);

    check("empty.st", b"", &["empty"]);
    check("short.st", b"\x05\x00", &["truncated"]);
    let mut lying = file_bytes(good, &data);
    lying[..8].copy_from_slice(&1000u64.to_le_bytes());
    check("lying.st", &lying, &["header length 1000 runs past"]);
    let mut huge = file_bytes(good, &data);
    huge[..8].copy_from_slice(&u64::MAX.to_le_bytes());
    check("huge.st", &huge, &["over the limit"]);
    check(
        "json.st",
        &file_bytes("{\"a\":", &data),
        &["not a valid safetensors table"],
    );
    check(
        "utf8.st",
        &file_bytes("\u{0}\u{ff}", &data)
            .iter()
            .map(|&b| if b == 0xc3 { 0xff } else { b })
            .collect::<Vec<_>>(),
        &[],
    );
    check(
        "range.st",
        &file_bytes(
            r#"{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#,
            &data[..4],
        ),
        &["cover 8 bytes", "holds 4"],
    );
    check(
        "overlap.st",
        &file_bytes(
            r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[2,6]}}"#,
            &data,
        ),
        &["\"b\"", "overlaps"],
    );
    check(
        "gap.st",
        &file_bytes(
            r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}"#,
            &data,
        ),
        &["\"a\"", "gap"],
    );
    check(
        "cover.st",
        &file_bytes(
            r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#,
            &data,
        ),
        &["cover 4 bytes", "holds 8"],
    );
    check(
        "dtype.st",
        &file_bytes(
            r#"{"a":{"dtype":"Q7","shape":[2],"data_offsets":[0,8]}}"#,
            &data,
        ),
        &["\"a\"", "unknown dtype \"Q7\""],
    );
    check(
        "f8.st",
        &file_bytes(
            r#"{"a":{"dtype":"F8_E4M3","shape":[9],"data_offsets":[0,8]}}"#,
            &data,
        ),
        &["\"a\"", "takes 9 bytes", "hold 8"],
    );
    check(
        "bf16.st",
        &file_bytes(
            r#"{"a":{"dtype":"BF16","shape":[5],"data_offsets":[0,8]}}"#,
            &data,
        ),
        &["\"a\"", "takes 10 bytes", "hold 8"],
    );
    check(
        "shape.st",
        &file_bytes(
            r#"{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}"#,
            &data,
        ),
        &["\"a\"", "takes 12 bytes", "hold 8"],
    );
    check(
        "overflow.st",
        &file_bytes(
            r#"{"a":{"dtype":"F64","shape":[4294967296,4294967296,4],"data_offsets":[0,8]}}"#,
            &data,
        ),
        &["\"a\"", "overflows"],
    );
    // Zero elements, but an axis no array can have: refused by load, map and inspect alike (map
    // used to accept it, then `Mapped::view` / `Mapped::tensor` hit an `unreachable!`).
    check(
        "huge_empty.st",
        &file_bytes(
            r#"{"a":{"dtype":"U8","shape":[0,9223372036854775808],"data_offsets":[0,0]}}"#,
            &[],
        ),
        &["\"a\"", "too many bytes", "[0, 9223372036854775808]"],
    );
    check(
        "rank.st",
        &file_bytes(
            &format!(
                r#"{{"a":{{"dtype":"F32","shape":[{}2],"data_offsets":[0,8]}}}}"#,
                "1,".repeat(70)
            ),
            &data,
        ),
        &["more than 64 dimensions"],
    );
    // Bytes that are not bools: the header is fine (inspect and map succeed), the data is not.
    let bools = dir.path("bool.st");
    std::fs::write(
        &bools,
        file_bytes(
            r#"{"a":{"dtype":"BOOL","shape":[8],"data_offsets":[0,8]}}"#,
            &data,
        ),
    )
    .unwrap();
    let bools2 = dir.path("bool2.st");
    std::fs::write(&bools2, file_bytes(r#"{"values":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"mask":{"dtype":"BOOL","shape":[1],"data_offsets":[4,5]}}"#, &[0, 0, 0, 0, 2])).unwrap();
    let mapped = map(&bools).unwrap();
    for text in [
        err_text(io::load_components_as::<Contracted>(
            &bools2,
            &ContractedSpec {
                values: "f32[?]".parse().unwrap(),
                mask: "bool[?]".parse().unwrap(),
            },
        )),
        err_text(mapped.view("a")),
        err_text(mapped.tensor("a")),
    ] {
        assert!(
            text.contains("bool") && text.contains("expected 0 or 1"),
            "{text}"
        );
    }
    // The metadata's spec does not match the tensors: values saved as i32.
    let spec_json = extype::serial::spec_to_json(&masked().spec()).unwrap();
    let meta = |spec: &str| {
        let mut m = HashMap::new();
        m.insert("format".to_string(), "extype".to_string());
        m.insert("format_version".to_string(), "1".to_string());
        m.insert("type".to_string(), "test.MaskedTensor".to_string());
        m.insert("spec".to_string(), spec.to_string());
        m.insert("components".to_string(), r#"["values","mask"]"#.to_string());
        m
    };
    let mismatch = dir.path("mismatch.st");
    write_raw(
        &mismatch,
        vec![
            ("values", DType::I32, vec![2, 3], vec![0; 24]),
            ("mask", DType::Bool, vec![2, 3], vec![0; 6]),
        ],
        Some(meta(&spec_json)),
    );
    for text in [err_text(io::load(&mismatch)), err_text(map(&mismatch))] {
        assert!(
            text.contains("mismatch.st")
                && text.contains("\"values\"")
                && text.contains("expected dtype f32"),
            "{text}"
        );
    }
    let shape = dir.path("spec_shape.st");
    write_raw(
        &shape,
        vec![
            ("values", DType::F32, vec![3, 2], vec![0; 24]),
            ("mask", DType::Bool, vec![3, 2], vec![0; 6]),
        ],
        Some(meta(&spec_json)),
    );
    let text = err_text(io::load(&shape));
    assert!(
        text.contains("\"values\"") && text.contains("not admitted"),
        "{text}"
    );
    let bad_spec = dir.path("bad_spec.st");
    write_raw(
        &bad_spec,
        vec![("values", DType::F32, vec![1], vec![0; 4])],
        Some(meta("{\"not\": \"a spec\"}")),
    );
    let text = err_text(io::load(&bad_spec));
    assert!(
        text.contains("bad_spec.st") && text.contains("metadata spec"),
        "{text}"
    );

    // A directory.
    let sub = dir.path("sub.st");
    std::fs::create_dir_all(&sub).unwrap();
    for text in [err_text(io::load(&sub)), err_text(map(&sub))] {
        assert!(text.contains("is a directory"), "{text}");
    }
    let text = err_text(io::load(dir.path("absent.st")));
    assert!(
        text.contains("absent.st") && text.contains("cannot open"),
        "{text}"
    );
}

#[test]
fn misaligned_tensors_copy_where_views_cannot_borrow() {
    let dir = TempDir::new("io-misaligned");
    // The data starts 8-aligned, a 1-byte tensor first: the f32 tensor after it is misaligned.
    let mut header = r#"{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"b":{"dtype":"F32","shape":[2],"data_offsets":[1,9]}}"#.to_string();
    while !(8 + header.len()).is_multiple_of(8) {
        header.push(' ');
    }
    let mut data = vec![7u8];
    data.extend(f32_bytes(&[1.0, 2.0]));
    let path = dir.path("m.st");
    std::fs::write(&path, file_bytes(&header, &data)).unwrap();
    let mapped = map(&path).unwrap();
    let text = err_text(mapped.view("b"));
    assert!(
        text.contains("not aligned") && text.contains("Mapped::tensor"),
        "{text}"
    );
    assert_eq!(
        mapped.tensor("b").unwrap(),
        Tensor::from(array![1.0f32, 2.0])
    );
    assert_eq!(
        mapped.view("a").unwrap().to_tensor(),
        Tensor::from(array![7u8])
    );
}

#[test]
fn saves_are_atomic() {
    let dir = TempDir::new("io-atomic");
    let path = dir.path("v.safetensors");
    io::save(&path, &masked()).unwrap();
    let before = std::fs::read(&path).unwrap();
    // A failed save (the target is a non-empty directory): nothing changes, no temp file stays.
    let blocked = dir.path("blocked.safetensors");
    std::fs::create_dir_all(blocked.join("inside")).unwrap();
    assert!(io::save(&blocked, &batch()).is_err());
    assert!(blocked.join("inside").is_dir());
    // A failed save into a missing directory.
    let text = err_text(io::save(dir.path("missing/v.safetensors"), &masked()));
    assert!(text.contains("missing/v.safetensors"), "{text}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
    let names: Vec<String> = std::fs::read_dir(&dir.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
    // Overwriting replaces the file; a map of the old file still reads the old bytes.
    let old = map(&path).unwrap();
    io::save(&path, &batch()).unwrap();
    assert_eq!(old.to_type::<MaskedTensor>().unwrap(), masked());
    assert_eq!(io::load_as::<Batch>(&path).unwrap(), batch());
}

/// The names of the files in `dir`.
fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn invalid_values_are_not_written_and_leave_the_file_intact() {
    let dir = TempDir::new("io-invalid-save");
    let path = dir.path("v.safetensors");
    let good = Contracted {
        values: array![1.0f32, 2.0],
        mask: array![true, false],
    };
    io::save(&path, &good).unwrap();
    let before = std::fs::read(&path).unwrap();
    // A struct literal breaking the shape contract: refused, by value and as a `Value`.
    let broken = Contracted {
        values: array![1.0f32, 2.0],
        mask: array![true, false, true],
    };
    for text in [
        err_text(io::save(&path, &broken)),
        err_text(io::save(&path, &Value::from_extension(broken.clone()))),
    ] {
        assert!(
            text.starts_with(&format!("{}: not written: ", path.display())),
            "{text}"
        );
        assert!(
            text.contains(
                "invalid value of tests.io.Contracted: shape contract {values: \"n\", mask: \"n\"}"
            ),
            "{text}"
        );
    }
    assert_eq!(std::fs::read(&path).unwrap(), before);
    // The type's own `validate`, and a nested value's (named with its path).
    let mut negative = batch();
    negative.scale = -1.0;
    let text = err_text(io::save(&path, &negative));
    assert!(
        text.contains("invalid value of test.Batch: scale must be positive, found -1"),
        "{text}"
    );
    let mut nested = batch();
    nested.children[1].mask = ArrayD::from_elem(IxDyn(&[3]), true);
    let text = err_text(io::save(&path, &nested));
    assert!(
        text.contains("invalid value of test.MaskedTensor at children[1]: values shape [0, 4]"),
        "{text}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert_eq!(file_names(&dir.0), ["v.safetensors"]);
    // A valid value still saves, over the old file.
    io::save(&path, &batch()).unwrap();
    assert_eq!(io::load_as::<Batch>(&path).unwrap(), batch());
}

#[test]
fn shard_writers_refuse_invalid_values() {
    let dir = TempDir::new("io-invalid-shard");
    let mut writer = ShardWriter::new(&dir.0, "part", 1 << 20).unwrap();
    writer.append(&masked()).unwrap();
    let broken = MaskedTensor {
        values: ArrayD::from_elem(IxDyn(&[2]), 1.0f32),
        mask: ArrayD::from_elem(IxDyn(&[3]), true),
    };
    let text = err_text(writer.append(&broken));
    assert!(
        text.contains(
            "part-00000.safetensors: value 1 of the stream not appended: invalid value \
             of test.MaskedTensor: values shape [2] differs from mask shape [3]"
        ),
        "{text}"
    );
    let text = err_text(writer.append(&Value::from_extension(broken)));
    assert!(
        text.contains("value 1 of the stream not appended"),
        "{text}"
    );
    // Nothing was written for it; the values around it are.
    assert_eq!(file_names(&dir.0), Vec::<String>::new());
    writer.append(&Tensor::from(array![1i64, 2])).unwrap();
    let shards = writer.finish().unwrap();
    assert_eq!(shards.len(), 1);
    let values: Vec<Value> = ShardReader::open(&dir.0, "part")
        .unwrap()
        .collect::<extype::Result<_>>()
        .unwrap();
    assert_eq!(values.len(), 2);
    assert_eq!(values[0].downcast_ref::<MaskedTensor>().unwrap(), &masked());
}

#[test]
fn shards_stream_values_in_order_within_a_size_bound() {
    let dir = TempDir::new("io-shards");
    let mut writer = ShardWriter::new(&dir.0, "part", 100).unwrap();
    let mut expected = Vec::new();
    for i in 0..12 {
        let m = MaskedTensor {
            values: ArrayD::from_elem(IxDyn(&[2, 3]), i as f32),
            mask: ArrayD::from_elem(IxDyn(&[2, 3]), i % 2 == 0),
        };
        writer.append(&m).unwrap();
        expected.push(m);
        if i == 5 {
            writer.append(&Tensor::from(array![1i64, 2, 3])).unwrap();
        }
    }
    writer.append(&batch()).unwrap();
    let shards = writer.finish().unwrap();
    // 30 bytes a value: 3 to a shard of 100 bytes.
    assert!(shards.len() >= 5, "{shards:?}");
    for s in &shards {
        assert_aligned(s);
        let info = io::inspect(s).unwrap();
        assert!(
            info.tensors.iter().map(|t| t.bytes).sum::<usize>() <= 100 || info.types.len() == 1
        );
    }
    let values: Vec<Value> = ShardReader::open(&dir.0, "part")
        .unwrap()
        .collect::<extype::Result<_>>()
        .unwrap();
    assert_eq!(values.len(), 14);
    assert_eq!(
        values[6].as_tensor().unwrap(),
        &Tensor::from(array![1i64, 2, 3])
    );
    let masks: Vec<MaskedTensor> = values
        .iter()
        .filter(|v| v.type_name() == "test.MaskedTensor")
        .map(|v| v.downcast_ref::<MaskedTensor>().unwrap().clone())
        .collect();
    assert_eq!(masks, expected);
    assert_eq!(values[13].downcast_ref::<Batch>().unwrap(), &batch());
    // A missing shard is an error naming it.
    std::fs::remove_file(&shards[1]).unwrap();
    let text = err_text(ShardReader::open(&dir.0, "part"));
    assert!(
        text.contains("part-00001.safetensors") && text.contains("missing"),
        "{text}"
    );
}

#[path = "../shape/tests/support/fuzz.rs"]
mod fuzz;

use fuzz::{Rng, env_or};

/// One mutation of a valid file: byte flips, truncation, digit edits in the header, a new
/// header length, inserted or deleted bytes.
fn mutate(rng: &mut Rng, bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let header_end = 8 + u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    for _ in 0..1 + rng.below(3) {
        match rng.below(7) {
            0 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] ^= 1 << rng.below(8);
            }
            1 => out.truncate(rng.below(out.len() + 1)),
            2 => {
                // Edit a digit of the header (offsets, shapes).
                let digits: Vec<usize> = (8..header_end.min(out.len()))
                    .filter(|&i| out[i].is_ascii_digit())
                    .collect();
                if !digits.is_empty() {
                    let i = digits[rng.below(digits.len())];
                    out[i] = b'0' + rng.below(10) as u8;
                }
            }
            3 => {
                let n = match rng.below(3) {
                    0 => rng.next(),
                    1 => (header_end as u64 - 8)
                        .wrapping_add(rng.below(17) as u64)
                        .wrapping_sub(8),
                    _ => rng.below(out.len() + 1) as u64,
                };
                if out.len() >= 8 {
                    out[..8].copy_from_slice(&n.to_le_bytes());
                }
            }
            4 => {
                let i = rng.below(out.len() + 1);
                out.insert(i, rng.next() as u8);
            }
            5 if !out.is_empty() => {
                let i = rng.below(out.len());
                out.remove(i);
            }
            _ => {
                // Swap a dtype name for another.
                let names = [
                    "\"F32\"", "\"BOOL\"", "\"I64\"", "\"F64\"", "\"U16\"", "\"BF16\"",
                ];
                let from = names[rng.below(names.len())];
                let to = names[rng.below(names.len())];
                if from.len() == to.len()
                    && let Some(at) = out.windows(from.len()).position(|w| w == from.as_bytes())
                {
                    out[at..at + to.len()].copy_from_slice(to.as_bytes());
                }
            }
        }
    }
    out
}

#[test]
fn fuzz_mutated_files_never_panic_and_agree_with_the_crate() {
    let iterations = env_or("EXTYPE_FUZZ_ITERS", 400);
    let seed = env_or("EXTYPE_FUZZ_SEED", 0x5eed_1234_abcd_ef01);
    let dir = TempDir::new("io-fuzz");
    let sources = [dir.path("m.st"), dir.path("b.st"), dir.path("t.st")];
    io::save(&sources[0], &masked()).unwrap();
    io::save(&sources[1], &batch()).unwrap();
    io::save(&sources[2], &Tensor::from(array![[1u16, 2], [3, 4]])).unwrap();
    let originals: Vec<Vec<u8>> = sources.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let mut rng = Rng(seed);
    let target = dir.path("x.st");
    let (mut accepted, mut loaded) = (0, 0);
    for round in 0..iterations {
        let original = &originals[rng.below(originals.len())];
        let bytes = mutate(&mut rng, original);
        // The header reader agrees with the crate's.
        let ours = io::parse_header("x.st", &bytes);
        let theirs = safetensors::SafeTensors::deserialize(&bytes);
        match (&ours, &theirs) {
            (Ok(h), Ok(st)) => {
                accepted += 1;
                assert_eq!(h.entries.len(), st.len(), "round {round}");
                for e in &h.entries {
                    let t = st.tensor(e.name).unwrap();
                    assert_eq!(t.shape(), e.shape.as_slice(), "round {round}");
                    assert_eq!(format!("{:?}", t.dtype()), e.dtype.safetensors_name());
                    assert_eq!(t.data().len(), e.byte_len());
                }
            }
            (Err(_), Err(_)) => {}
            (Ok(_), Err(e)) => {
                panic!("round {round} (seed {seed}): extype accepts, the crate refuses: {e}")
            }
            (Err(e), Ok(_)) => {
                // Dtypes extype cannot read are listed too: no file the crate reads is refused.
                panic!("round {round} (seed {seed}): the crate accepts, extype refuses: {e}")
            }
        }
        std::fs::write(&target, &bytes).unwrap();
        // Every entry point returns (Ok or a clear error), never panics.
        if io::load(&target).is_ok() {
            loaded += 1;
        }
        let _ = io::load_as::<MaskedTensor>(&target);
        let _ = io::inspect(&target);
        if let Ok(m) = map(&target) {
            for name in m.names() {
                let _ = m.view(name);
                let _ = m.tensor(name);
            }
            let _ = m.to_value();
        }
    }
    // The mutations exercise both sides.
    assert!(
        accepted > 0 && accepted < iterations,
        "{accepted} of {iterations}"
    );
    assert!(loaded > 0, "{loaded}");
}

/// A type as a Python program's file holds it: a nested value, an optional tensor, a list and a
/// map of tensors, and two static fields the file cannot say.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.io.Tokens")]
pub struct Tokens {
    pub ids: ndarray::Array2<i64>,
    pub masked: MaskedTensor,
    pub extra: Option<Array1<f32>>,
    pub layers: Vec<Array1<f32>>,
    pub heads: BTreeMap<String, Array1<f32>>,
    pub vocab: String,
    pub pad: i64,
}

/// The tensors of a `Tokens` file (no `extra`), with `ids` as given.
fn tokens_tensors(
    ids: (DType, Vec<usize>, Vec<u8>),
) -> Vec<(&'static str, DType, Vec<usize>, Vec<u8>)> {
    vec![
        ("ids", ids.0, ids.1, ids.2),
        ("masked.values", DType::F32, vec![2], f32_bytes(&[0.5, 1.5])),
        ("masked.mask", DType::Bool, vec![2], vec![1, 0]),
        ("layers[0]", DType::F32, vec![1], f32_bytes(&[1.0])),
        ("layers[1]", DType::F32, vec![2], f32_bytes(&[2.0, 3.0])),
        ("heads.a", DType::F32, vec![1], f32_bytes(&[4.0])),
        ("heads.b", DType::F32, vec![1], f32_bytes(&[5.0])),
    ]
}

fn i64_bytes(v: &[i64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn files_of_other_programs_load_with_dtypes_and_shapes_from_the_file() {
    let dir = TempDir::new("io-inferred");
    // A type without static fields: no spec, no argument.
    let path = dir.path("masked.safetensors");
    write_raw(
        &path,
        vec![
            ("values", DType::F32, vec![1, 2], f32_bytes(&[1.0, 2.0])),
            ("mask", DType::Bool, vec![1, 2], vec![1, 0]),
        ],
        None,
    );
    let loaded = io::load_components_inferred::<MaskedTensor>(&path).unwrap();
    assert_eq!(loaded.values, array![[1.0f32, 2.0]].into_dyn());
    assert_eq!(loaded.mask, array![[true, false]].into_dyn());

    // Nested, optional, list and map fields from the names; the static values from the caller.
    let ids = || (DType::I64, vec![1, 3], i64_bytes(&[7, 8, 9]));
    let path = dir.path("tokens.safetensors");
    write_raw(&path, tokens_tensors(ids()), None);
    let statics = || {
        io::Statics::new()
            .with("vocab", String::from("gpt2"))
            .with("pad", 0i64)
    };
    let loaded = io::load_components_inferred_with::<Tokens>(&path, statics()).unwrap();
    let expected = Tokens {
        ids: array![[7i64, 8, 9]],
        masked: MaskedTensor {
            values: array![0.5f32, 1.5].into_dyn(),
            mask: array![true, false].into_dyn(),
        },
        extra: None,
        layers: vec![array![1.0f32], array![2.0, 3.0]],
        heads: BTreeMap::from([("a".into(), array![4.0f32]), ("b".into(), array![5.0f32])]),
        vocab: "gpt2".into(),
        pad: 0,
    };
    assert_eq!(loaded, expected);
    // The same value as `load_components_as` reads it under the spec written by hand.
    assert_eq!(
        io::load_components_as::<Tokens>(&path, &expected.spec()).unwrap(),
        expected
    );

    // A static value not given, given for no static field, or of the wrong type: named.
    let text = err_text(io::load_components_inferred_with::<Tokens>(
        &path,
        io::Statics::new().with("pad", 0i64),
    ));
    assert!(
        text.contains("vocab") && text.contains("static value"),
        "{text}"
    );
    let text = err_text(io::load_components_inferred_with::<Tokens>(
        &path,
        statics().with("vocabulary", String::from("x")),
    ));
    assert!(
        text.contains("\"vocabulary\"") && text.contains("no static field"),
        "{text}"
    );
    let text = err_text(io::load_components_inferred_with::<Tokens>(
        &path,
        statics().with("pad", String::from("zero")),
    ));
    assert!(text.contains("pad"), "{text}");

    // Dtypes and ranks are checked against the field types, naming the tensor.
    let wrong = dir.path("wrong_dtype.safetensors");
    write_raw(
        &wrong,
        tokens_tensors((DType::I32, vec![1, 3], vec![0; 12])),
        None,
    );
    let text = err_text(io::load_components_inferred_with::<Tokens>(
        &wrong,
        statics(),
    ));
    assert!(text.contains("ids") && text.contains("dtype i64"), "{text}");
    let wrong = dir.path("wrong_rank.safetensors");
    write_raw(
        &wrong,
        tokens_tensors((DType::I64, vec![3], i64_bytes(&[7, 8, 9]))),
        None,
    );
    let text = err_text(io::load_components_inferred_with::<Tokens>(
        &wrong,
        statics(),
    ));
    assert!(text.contains("ids") && text.contains("rank 2"), "{text}");

    // A missing tensor is named; so is an extra one.
    let mut tensors = tokens_tensors(ids());
    tensors.retain(|t| t.0 != "masked.mask");
    let missing = dir.path("missing.safetensors");
    write_raw(&missing, tensors, None);
    let text = err_text(io::load_components_inferred_with::<Tokens>(
        &missing,
        statics(),
    ));
    assert!(text.contains("masked.mask"), "{text}");
    let mut tensors = tokens_tensors(ids());
    tensors.push(("bias", DType::F32, vec![1], f32_bytes(&[1.0])));
    let extra = dir.path("extra.safetensors");
    write_raw(&extra, tensors, None);
    let text = err_text(io::load_components_inferred_with::<Tokens>(
        &extra,
        statics(),
    ));
    assert!(
        text.contains("\"bias\"") && text.contains("extra"),
        "{text}"
    );

    // Validation and shape contracts run.
    let invalid = dir.path("invalid.safetensors");
    write_raw(
        &invalid,
        vec![
            ("values", DType::F32, vec![2], f32_bytes(&[1.0, 2.0])),
            ("mask", DType::Bool, vec![1], vec![1]),
        ],
        None,
    );
    let text = err_text(io::load_components_inferred::<MaskedTensor>(&invalid));
    assert!(
        text.contains("invalid value of test.MaskedTensor"),
        "{text}"
    );
    let text = err_text(io::load_components_inferred::<Contracted>(&invalid));
    assert!(text.contains("shape contract"), "{text}");
}

/// Beside an f32 tensor, two 8-bit float ones (dtypes extype has no type for), written by hand.
fn fp8_file(path: &Path) {
    let header = concat!(
        r#"{"__metadata__":{"format":"pt"},"#,
        r#""fp8_a":{"dtype":"F8_E4M3","shape":[4],"data_offsets":[0,4]},"#,
        r#""fp8_b":{"dtype":"F8_E5M2","shape":[1,4],"data_offsets":[4,8]},"#,
        r#""weight":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}}"#
    );
    // Padded to 8 bytes as safetensors writers do.
    let header = format!("{header:<width$}", width = header.len().next_multiple_of(8));
    let mut data = vec![0x38, 0x38, 0x38, 0x38, 0x3c, 0x3c, 0x3c, 0x3c];
    data.extend(f32_bytes(&[1.5, 2.5]));
    std::fs::write(path, file_bytes(&header, &data)).unwrap();
}

/// One f32 field, as a file of 8-bit float weights names it.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.io.Fp8A")]
pub struct Fp8A {
    pub fp8_a: ArrayD<f32>,
}

#[test]
fn files_with_dtypes_extype_cannot_read_are_listed_and_refused_by_name() {
    let dir = TempDir::new("io-fp8");
    let path = dir.path("fp8.safetensors");
    fp8_file(&path);
    // `inspect` lists every tensor: name, dtype, shape, size.
    let info = io::inspect(&path).unwrap();
    let listed: Vec<(String, String, Vec<usize>, usize)> = info
        .tensors
        .iter()
        .map(|t| {
            (
                t.path.to_string(),
                t.dtype.to_string(),
                t.shape.to_vec(),
                t.bytes,
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            (
                "fp8_a".into(),
                "unsupported dtype F8_E4M3".into(),
                vec![4],
                4
            ),
            (
                "fp8_b".into(),
                "unsupported dtype F8_E5M2".into(),
                vec![1, 4],
                4
            ),
            ("weight".into(), "f32".into(), vec![2], 8),
        ]
    );
    let json = serde_json::to_value(&info).unwrap();
    assert_eq!(json["tensors"][0]["dtype"], "F8_E4M3");
    assert_eq!(json["tensors"][2]["dtype"], "f32");
    assert_eq!(
        info.tensors[0].dtype,
        io::FileDType::Foreign(io::ForeignDType::F8E4M3)
    );

    // The f32 tensor is read where nothing else is needed: from the map.
    // SAFETY: the file is this test's own and is not written while mapped.
    let mapped = unsafe { io::map(&path) }.unwrap();
    assert_eq!(
        mapped.tensor("weight").unwrap(),
        Tensor::from(array![1.5f32, 2.5])
    );
    for text in [
        err_text(mapped.tensor("fp8_a")),
        err_text(mapped.view("fp8_a")),
    ] {
        assert!(
            text.contains("\"fp8_a\"") && text.contains("dtype F8_E4M3"),
            "{text}"
        );
    }
    assert!(err_text(mapped.tensor("fp8_b")).contains("dtype F8_E5M2"));

    // A value that needs the fp8 tensor: an error naming it and its dtype, by either load.
    let spec = Fp8ASpec {
        fp8_a: "f32[4]".parse().unwrap(),
    };
    let only_a = dir.path("only_a.safetensors");
    let header = r#"{"fp8_a":{"dtype":"F8_E4M3","shape":[4],"data_offsets":[0,4]}}    "#;
    std::fs::write(&only_a, file_bytes(header, &[0x38, 0x38, 0x38, 0x38])).unwrap();
    for text in [
        err_text(io::load_components_as::<Fp8A>(&only_a, &spec)),
        err_text(io::load_components_inferred::<Fp8A>(&only_a)),
    ] {
        assert!(
            text.contains("fp8_a") && text.contains("dtype F8_E4M3"),
            "{text}"
        );
    }
    // Beside other tensors too: the tensor it needs is the error.
    let text = err_text(io::load_components_as::<Fp8A>(&path, &spec));
    assert!(text.contains("dtype F8_E4M3"), "{text}");
}

/// Beside an f32 tensor, a bf16 and an f16 one (as in most model weights), written by hand.
fn half_precision_file(path: &Path) {
    let header = concat!(
        r#"{"__metadata__":{"format":"pt"},"#,
        r#""half_b":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]},"#,
        r#""half_f":{"dtype":"F16","shape":[1,2],"data_offsets":[4,8]},"#,
        r#""weight":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}}"#
    );
    // bf16 1.0 = 0x3F80, -2.5 = 0xC020; f16 1.0 = 0x3C00, 65504 = 0x7BFF; padded to 8 bytes as
    // safetensors writers do.
    let header = format!("{header:<width$}", width = header.len().next_multiple_of(8));
    let mut data = vec![0x80, 0x3f, 0x20, 0xc0, 0x00, 0x3c, 0xff, 0x7b];
    data.extend(f32_bytes(&[1.5, 2.5]));
    std::fs::write(path, file_bytes(&header, &data)).unwrap();
}

/// Model weights in half precision, as a file names them.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.io.HalfWeights")]
pub struct HalfWeights {
    pub half_b: ArrayD<extype::half::bf16>,
    pub half_f: ndarray::Array2<extype::half::f16>,
    pub weight: ArrayD<f32>,
}

#[test]
fn half_precision_files_inspect_load_map_and_round_trip() {
    use extype::half::{bf16, f16};
    let dir = TempDir::new("io-halves");
    let path = dir.path("halves.safetensors");
    half_precision_file(&path);
    let info = io::inspect(&path).unwrap();
    let dtypes: Vec<String> = info.tensors.iter().map(|t| t.dtype.to_string()).collect();
    assert_eq!(dtypes, ["bf16", "f16", "f32"]);
    assert_eq!(
        info.tensors[0].dtype,
        io::FileDType::Known(extype::DType::BF16)
    );
    let json = serde_json::to_value(&info).unwrap();
    assert_eq!(json["tensors"][1]["dtype"], "f16");

    let expected_b = array![bf16::from_f32(1.0), bf16::from_f32(-2.5)].into_dyn();
    let expected_f = array![[f16::ONE, f16::MAX]];
    // Mapped: the bytes viewed in place, as their dtypes.
    // SAFETY: the file is this test's own and is not written while mapped.
    let mapped = unsafe { io::map(&path) }.unwrap();
    assert_eq!(
        mapped.tensor("half_b").unwrap(),
        Tensor::from(expected_b.clone())
    );
    assert_eq!(
        mapped.tensor("half_f").unwrap(),
        Tensor::from(expected_f.clone())
    );
    // Loaded into a type with half-precision fields, dtypes and shapes from the file.
    let w = io::load_components_inferred::<HalfWeights>(&path).unwrap();
    assert_eq!(w.half_b, expected_b);
    assert_eq!(w.half_f, expected_f);
    assert_eq!(w.weight, array![1.5f32, 2.5].into_dyn());
    // Cast to f32: the values the bits stand for.
    let as_f32: ArrayD<f32> = extype::ops::cast_as(&w.half_f, extype::DType::F32).unwrap();
    assert_eq!(as_f32, array![[1.0f32, 65504.0]].into_dyn());

    // Saved and loaded back by type: the same bits, under the dtypes the spec names.
    let saved = dir.path("saved.safetensors");
    io::save(&saved, &w).unwrap();
    let back: HalfWeights = io::load_as(&saved).unwrap();
    assert_eq!(back, w);
    let spec = w.spec().to_string();
    assert!(
        spec.contains("bf16[2]") && spec.contains("f16[1, 2]"),
        "{spec}"
    );
    // A half field is not a float of another width: loading f16 bits as f32 is refused.
    let text = err_text(io::load_components_as::<HalfB32>(
        &path,
        &HalfB32Spec {
            half_b: "f32[2]".parse().unwrap(),
        },
    ));
    assert!(text.contains("half_b") && text.contains("bf16"), "{text}");
}

/// A bf16 tensor's name with an f32 field: a dtype mismatch.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.io.HalfB32")]
pub struct HalfB32 {
    pub half_b: ArrayD<f32>,
}

/// A load never reinterprets a component's shape: a sparse file whose `indices` tensor holds the
/// right bytes under another shape (`[2, 3]` for the `[3, 2]` the spec's rank-2 dense shape
/// requires, or `[6]`) is refused by every reader, whether the spec comes from the file's
/// metadata, from the caller or from the file's tensors.
#[test]
fn sparse_indices_of_another_shape_are_refused() {
    use extype::types::{SparseTensor, SparseTensorSpec};
    let dir = TempDir::new("io-sparse-indices");
    let good = dir.0.join("good.safetensors");
    let st = SparseTensor::new(
        array![[0i64, 1], [1, 2], [2, 0]],
        array![1.0f32, 2.0, 3.0],
        &[3, 3],
    )
    .unwrap();
    io::save(&good, &st).unwrap();
    let (meta, tensors) = read_back(&good);
    for shape in [vec![2usize, 3], vec![6]] {
        let bad = dir.0.join(format!("bad-{}.safetensors", shape.len()));
        let reshaped: Vec<_> = tensors
            .iter()
            .map(|(n, d, s, b)| {
                let s = if n == "indices" {
                    shape.clone()
                } else {
                    s.clone()
                };
                (n.as_str(), *d, s, b.clone())
            })
            .collect();
        write_raw(&bad, reshaped.clone(), Some(meta.clone()));
        for e in [
            err_text(io::load(&bad)),
            err_text(io::load_as::<SparseTensor>(&bad)),
            err_text(map(&bad).and_then(|m| m.to_value())),
        ] {
            assert!(e.contains("indices"), "{shape:?}: {e}");
        }
        let spec = SparseTensorSpec::new(extype::Shape::unknown(2), DType::F32);
        let e = err_text(io::load_components_as::<SparseTensor>(&bad, &spec));
        assert!(e.contains("indices"), "{shape:?}: {e}");
        write_raw(&bad, reshaped, None);
        let e = err_text(io::load_components_inferred::<SparseTensor>(&bad));
        assert!(e.contains("indices"), "{shape:?}: {e}");
    }
    assert_eq!(io::load_as::<SparseTensor>(&good).unwrap(), st);
}

/// A ragged tensor written by Python (TF 2.21's `rt.flat_values` and `rt.nested_row_splits`
/// saved by `safetensors.numpy.save_file` under their field paths) loads with
/// `load_components_inferred` alone: the partitions are the `nested_row_splits[i]` found, none
/// uniform (`uniform_row_lengths`, a static of the type, inferred from the names); a value the
/// caller gives still wins.
#[test]
fn ragged_files_written_by_python_load_without_statics() {
    use extype::types::RaggedTensor;
    let dir = TempDir::new("io-ragged-inferred");
    let path = dir.path("rt.safetensors");
    write_raw(
        &path,
        vec![
            (
                "flat_values",
                DType::F32,
                vec![4],
                f32_bytes(&[1.0, 2.0, 3.0, 4.0]),
            ),
            (
                "nested_row_splits[0]",
                DType::I64,
                vec![4],
                i64_bytes(&[0, 2, 2, 4]),
            ),
        ],
        None,
    );
    let r = io::load_components_inferred::<RaggedTensor>(&path).unwrap();
    assert_eq!(r.to_string(), "f32[3, ?] [[1.0, 2.0], [], [3.0, 4.0]]");
    assert_eq!(r.uniform_row_lengths(), &[None]);
    // Ragged rank 2.
    let path2 = dir.path("rt2.safetensors");
    write_raw(
        &path2,
        vec![
            (
                "flat_values",
                DType::I32,
                vec![3],
                vec![1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0],
            ),
            (
                "nested_row_splits[0]",
                DType::I64,
                vec![3],
                i64_bytes(&[0, 2, 3]),
            ),
            (
                "nested_row_splits[1]",
                DType::I64,
                vec![4],
                i64_bytes(&[0, 1, 1, 3]),
            ),
        ],
        None,
    );
    let r2 = io::load_components_inferred::<RaggedTensor>(&path2).unwrap();
    assert_eq!(r2.to_string(), "i32[2, ?, ?] [[[1], []], [[2, 3]]]");
    // Given statics win: a uniform partition the caller knows of.
    let path3 = dir.path("uniform.safetensors");
    write_raw(
        &path3,
        vec![
            (
                "flat_values",
                DType::F32,
                vec![4],
                f32_bytes(&[1.0, 2.0, 3.0, 4.0]),
            ),
            (
                "nested_row_splits[0]",
                DType::I64,
                vec![3],
                i64_bytes(&[0, 2, 4]),
            ),
        ],
        None,
    );
    let u = io::load_components_inferred_with::<RaggedTensor>(
        &path3,
        io::Statics::new().with("uniform_row_lengths", vec![Some(2i64)]),
    )
    .unwrap();
    assert_eq!(u.uniform_row_lengths(), &[Some(2)]);
    // Invalid splits are still refused, naming the type.
    let bad = dir.path("bad.safetensors");
    write_raw(
        &bad,
        vec![
            ("flat_values", DType::F32, vec![1], f32_bytes(&[1.0])),
            (
                "nested_row_splits[0]",
                DType::I64,
                vec![2],
                i64_bytes(&[1, 1]),
            ),
        ],
        None,
    );
    let text = err_text(io::load_components_inferred::<RaggedTensor>(&bad));
    assert!(text.contains("RaggedTensor"), "{text}");
}

/// A type's tensors read out of a larger file (a model checkpoint with other weights) by the
/// prefix of their names: the other tensors are neither read nor checked; a tensor under the
/// prefix that is no component is named, as are missing ones.
#[test]
fn values_load_from_checkpoints_by_prefix() {
    use extype::types::RaggedTensor;
    let dir = TempDir::new("io-prefixed");
    let path = dir.path("checkpoint.safetensors");
    let tensors = || {
        vec![
            ("decoder.bias", DType::F64, vec![2], vec![0u8; 16]),
            (
                "encoder.mask.values",
                DType::F32,
                vec![2],
                f32_bytes(&[0.5, 1.5]),
            ),
            ("encoder.mask.mask", DType::Bool, vec![2], vec![1, 0]),
            (
                "encoder.tokens.flat_values",
                DType::I64,
                vec![3],
                i64_bytes(&[7, 8, 9]),
            ),
            (
                "encoder.tokens.nested_row_splits[0]",
                DType::I64,
                vec![3],
                i64_bytes(&[0, 1, 3]),
            ),
            (
                "encoder.weight",
                DType::F32,
                vec![1, 2],
                f32_bytes(&[1.0, 2.0]),
            ),
        ]
    };
    write_raw(&path, tensors(), None);
    let r: RaggedTensor =
        io::load_components_inferred_prefixed(&path, "encoder.tokens", io::Statics::new()).unwrap();
    assert_eq!(r.to_string(), "i64[2, ?] [[7], [8, 9]]");
    // A trailing dot is the same prefix.
    let again: RaggedTensor =
        io::load_components_inferred_prefixed(&path, "encoder.tokens.", io::Statics::new())
            .unwrap();
    assert_eq!(again, r);
    let m: MaskedTensor =
        io::load_components_inferred_prefixed(&path, "encoder.mask", io::Statics::new()).unwrap();
    assert_eq!(m.values, array![0.5f32, 1.5].into_dyn());
    assert_eq!(m.mask, array![true, false].into_dyn());
    // Without the prefix, the file's top level holds no RaggedTensor (no `flat_values`);
    // the whole file under a spec names the other weights as extra tensors.
    let text = err_text(io::load_components_inferred::<RaggedTensor>(&path));
    assert!(text.contains("flat_values"), "{text}");
    let text = err_text(io::load_components_as::<MaskedTensor>(&path, &m.spec()));
    assert!(text.contains("missing") || text.contains("extra"), "{text}");
    // Nothing under the prefix; a component missing under it; a tensor under it that no field
    // takes.
    let text = err_text(io::load_components_inferred_prefixed::<MaskedTensor>(
        &path,
        "decoder.head",
        io::Statics::new(),
    ));
    assert!(
        text.contains("\"decoder.head.\" + field path") && text.contains("values"),
        "{text}"
    );
    let mut extra = tensors();
    extra.push(("encoder.mask.scale", DType::F32, vec![1], f32_bytes(&[1.0])));
    let extra_path = dir.path("extra.safetensors");
    write_raw(&extra_path, extra, None);
    let text = err_text(io::load_components_inferred_prefixed::<MaskedTensor>(
        &extra_path,
        "encoder.mask",
        io::Statics::new(),
    ));
    assert!(
        text.contains("encoder.mask.scale") && text.contains("extra"),
        "{text}"
    );
    // `encoder.weight` starts with `encoder` but not with `encoder.mask.`: not in scope.
    let m2: MaskedTensor =
        io::load_components_inferred_prefixed(&path, "encoder.mask", io::Statics::new()).unwrap();
    assert_eq!(m2, m);
}

/// A type with a RaggedTensor field, written by Python: the field's statics are inferred from
/// the names under its path, as for a RaggedTensor of its own.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test.io.Doc")]
pub struct Doc {
    pub tokens: extype::types::RaggedTensor,
    pub score: ArrayD<f32>,
}

#[test]
fn nested_ragged_fields_infer_their_statics_too() {
    let dir = TempDir::new("io-nested-ragged");
    // The tensors Python writes for a `Doc`, their names under `prefix`.
    let doc_tensors = |prefix: &str| {
        vec![
            (
                format!("{prefix}score"),
                DType::F32,
                vec![1],
                f32_bytes(&[0.5]),
            ),
            (
                format!("{prefix}tokens.flat_values"),
                DType::I64,
                vec![3],
                i64_bytes(&[1, 2, 3]),
            ),
            (
                format!("{prefix}tokens.nested_row_splits[0]"),
                DType::I64,
                vec![3],
                i64_bytes(&[0, 2, 3]),
            ),
        ]
    };
    let write = |path: &Path, tensors: &[(String, DType, Vec<usize>, Vec<u8>)]| {
        let named = tensors.iter();
        let named = named.map(|(n, d, s, b)| (n.as_str(), *d, s.clone(), b.clone()));
        write_raw(path, named.collect(), None);
    };
    let path = dir.path("doc.safetensors");
    write(&path, &doc_tensors(""));
    let doc = io::load_components_inferred::<Doc>(&path).unwrap();
    assert_eq!(doc.tokens.to_string(), "i64[2, ?] [[1, 2], [3]]");
    assert_eq!(doc.score, array![0.5f32].into_dyn());
    // Under a prefix too, beside another weight.
    let path = dir.path("checkpoint.safetensors");
    let mut checkpoint = doc_tensors("model.doc.");
    checkpoint.push(("model.head".into(), DType::F32, vec![1], f32_bytes(&[9.0])));
    write(&path, &checkpoint);
    let again: Doc =
        io::load_components_inferred_prefixed(&path, "model.doc", io::Statics::new()).unwrap();
    assert_eq!(again, doc);
}
