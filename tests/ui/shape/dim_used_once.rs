// `n` appears in one field only: it binds nothing another field checks. No other name is close
// to it (`b` is a different name, not a misspelling), so the error suggests `_`.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Rows {
    #[extype(shape = "b n")]
    pub values: ArrayD<f32>,
    #[extype(shape = "b")]
    pub lengths: ArrayD<i64>,
}

fn main() {}
