//! Version 3 of `golden.Reading` (version 1: `versioning_v1.rs`), renamed `golden.Sample`: two
//! chained migrations (the rate in Hz becomes a period in ms; the values, stored in volts,
//! become millivolts: a migration that rewrites a tensor of each batch it reads), a field alias
//! and a default computed from the data. The version-1 Arrow IPC and Parquet golden columns load
//! as it, whole and in part.

use extype::ExtensionType;
use extype::field::Static;
use extype::ndarray::{ArrayD, array};
use extype::versioning::Stored;
use extype_arrow::{read_ipc_file, read_parquet};

fn hz_to_period(old: &mut Stored) -> extype::Result<()> {
    let Static(rate) = old.get::<Static<u32>>("rate")?;
    old.remove("rate");
    old.set("period_ms", Static(1000 / rate.max(1)))
}

fn volts_to_millivolts(old: &mut Stored) -> extype::Result<()> {
    let volts: ArrayD<f32> = old.get("values")?;
    old.set("values", volts * 1000.0)
}

fn all_valid(old: &Stored) -> extype::Result<ArrayD<bool>> {
    Ok(ArrayD::from_elem(old.tensor("millivolts")?.shape(), true))
}

/// Version 3.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(
    name = "golden.Sample",
    version = 3,
    aliases = ["golden.Reading"],
    batchable,
    migrate(from = 1, with = hz_to_period),
    migrate(from = 2, with = volts_to_millivolts)
)]
pub struct Sample {
    #[extype(alias = "values")]
    pub millivolts: ArrayD<f32>,
    #[extype(default = all_valid)]
    pub mask: ArrayD<bool>,
    #[extype(static)]
    pub period_ms: u32,
}

fn golden(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/golden/versioning")
        .join(name)
}

fn expected(volts: ArrayD<f32>) -> Sample {
    let mask = ArrayD::from_elem(volts.shape(), true);
    Sample::try_new(volts * 1000.0, mask, 20).unwrap()
}

#[test]
fn version_1_columns_migrate_through_2_to_3() {
    for (file, read) in [
        ("IPC", read_ipc_file(golden("reading_v1.arrow")).unwrap()),
        (
            "Parquet",
            read_parquet(golden("reading_v1.parquet")).unwrap(),
        ),
        (
            "IPC, row layout",
            read_ipc_file(golden("reading_rows_v1.arrow")).unwrap(),
        ),
    ] {
        let back: Sample =
            extype_arrow::column_as(&read[0], "r").unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(
            back,
            expected(array![[1.0f32, 2.0], [3.0, 4.0]].into_dyn()),
            "{file}"
        );
        let first: Sample = extype_arrow::column_as(&read[0].slice(0, 1), "r")
            .unwrap_or_else(|e| panic!("{file}, row 0: {e}"));
        assert_eq!(first, expected(array![[1.0f32, 2.0]].into_dyn()), "{file}");
    }
}
