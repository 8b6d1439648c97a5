//! Values as safetensors files: save, inspect, load, map, and read a file written by Python.
//! Run with `cargo run --example files`.

use extype::io::{self, ShardReader, ShardWriter};
use extype::{ExtensionType, TypeSpec};
use ndarray::{ArrayD, IxDyn, array};

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "example.MaskedTensor")]
pub struct MaskedTensor {
    #[extype(shape = "*dims")]
    pub values: ArrayD<f32>,
    #[extype(shape = "*dims")]
    pub mask: ArrayD<bool>,
}

/// A masked tensor with `Tensor` fields: built from a mapped file, it views the map (no copy).
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "example.SharedMasked")]
pub struct SharedMasked {
    pub values: extype::Tensor,
    pub mask: extype::Tensor,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join(format!("extype-example-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("masked.safetensors");
    let value = MaskedTensor {
        values: array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]].into_dyn(),
        mask: array![[true, false, true], [false, true, true]].into_dyn(),
    };

    println!("== save (atomic: a temporary file renamed over the target)");
    io::save(&path, &value)?;
    println!("{}", path.display());

    println!("\n== inspect (also: cargo run -p extype-cli -- inspect FILE [--json])");
    let info = io::inspect(&path)?;
    println!("type: {}\nspec: {}", info.types[0], info.specs[0]);
    for t in &info.tensors {
        println!(
            "  {:<7} {:<5} {:?} {} bytes at {}",
            t.path,
            t.dtype.name(),
            t.shape,
            t.bytes,
            t.offset
        );
    }

    println!("\n== load by the registry, and as the type");
    let loaded = io::load(&path)?;
    println!("load: a {}", loaded.type_name());
    let typed: MaskedTensor = io::load_as(&path)?;
    assert_eq!(typed, value);
    println!("load_as::<MaskedTensor>: equal to the saved value");

    println!("\n== map: header checks only; tensors view the mapped file");
    // SAFETY: nothing writes to the file while it is mapped (this program just wrote it and
    // only reads it).
    let mapped = unsafe { io::map(&path)? };
    let values = mapped.tensor("values")?;
    println!(
        "`values` in the map (no copy: {}): {values}",
        matches!(values, extype::Tensor::External(_))
    );
    println!(
        "to_type::<MaskedTensor>: its ArrayD fields own their buffers, so they are copied: {:?}",
        mapped.to_type::<MaskedTensor>()?.values.shape()
    );
    // The file holds an `example.MaskedTensor`; read its tensors by field path under a spec.
    let shared = mapped.to_type_with::<SharedMasked>(&SharedMaskedSpec {
        values: "f32[?, ?]".parse()?,
        mask: "bool[?, ?]".parse()?,
    })?;
    drop(mapped);
    println!(
        "to_type_with::<SharedMasked>: Tensor fields keep viewing the map (mapped while they \
         live): {}",
        shared.values
    );

    println!("\n== a file written by Python");
    println!(
        "  # target/pyenv/bin/python tests/python/make_fixture.py\n  \
         save_file({{\"values\": np.array(..., dtype=np.float32), \"mask\": np.array(...)}}, path)"
    );
    let python = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/python/fixtures/masked_from_python.safetensors"
    );
    let spec = MaskedTensorSpec {
        values: "f32[?, ?]".parse()?,
        mask: "bool[?, ?]".parse()?,
    };
    let from_python: MaskedTensor = io::load_components_as(python, &spec)?;
    println!(
        "load_components_as under {:?}:\n{:?}",
        spec.component_paths(),
        from_python.values
    );

    println!("\n== wrong type");
    let tensor_file = dir.join("tensor.safetensors");
    io::save(&tensor_file, &extype::Tensor::from(array![1i64, 2, 3]))?;
    if let Err(e) = io::load_as::<MaskedTensor>(&tensor_file) {
        println!("{e}");
    }

    println!("\n== shards: a stream of values in files of bounded size");
    let mut writer = ShardWriter::new(dir.join("stream"), "part", 64)?;
    for i in 0..6 {
        writer.append(&MaskedTensor {
            values: ArrayD::from_elem(IxDyn(&[2, 3]), i as f32),
            mask: ArrayD::from_elem(IxDyn(&[2, 3]), true),
        })?;
    }
    let shards = writer.finish()?;
    let count = ShardReader::open(dir.join("stream"), "part")?.count();
    println!("{} shards, {count} values read back in order", shards.len());

    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
