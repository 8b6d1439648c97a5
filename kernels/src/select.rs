//! `select` / `where`: `cond ? x : y` elementwise, with NumPy broadcasting of all three.

use ndarray::{ArrayBase, ArrayD, Data, Dimension};

use crate::elementwise::engine::map3;
use crate::error::Result;
use crate::layout::{broadcast_shapes, broadcast_to, check_output, refused};
use crate::scalar::Scalar;

/// `x` where `cond` is true, else `y`; the three broadcast together (NumPy's `where`). The
/// output is allocated fallibly: one that cannot be allocated is a
/// [`KernelError::TooLarge`](crate::KernelError::TooLarge).
pub fn select<T, SC, DC, SX, DX, SY, DY>(
    cond: &ArrayBase<SC, DC>,
    x: &ArrayBase<SX, DX>,
    y: &ArrayBase<SY, DY>,
) -> Result<ArrayD<T>>
where
    T: Scalar,
    SC: Data<Elem = bool>,
    DC: Dimension,
    SX: Data<Elem = T>,
    DX: Dimension,
    SY: Data<Elem = T>,
    DY: Dimension,
{
    const OP: &str = "select";
    let (c, x, y) = (
        cond.view().into_dyn(),
        x.view().into_dyn(),
        y.view().into_dyn(),
    );
    let shape = broadcast_shapes(
        OP,
        &[
            ("argument 0", c.shape()),
            ("argument 1", x.shape()),
            ("argument 2", y.shape()),
        ],
    )?;
    check_output::<T>(OP, &shape)?;
    let c = broadcast_to(OP, "argument 0", &c, &shape)?;
    let x = broadcast_to(OP, "argument 1", &x, &shape)?;
    let y = broadcast_to(OP, "argument 2", &y, &shape)?;
    map3(c, x, y, |c: bool, x: T, y: T| if c { x } else { y }).map_err(|_| refused::<T>(OP, &shape))
}
