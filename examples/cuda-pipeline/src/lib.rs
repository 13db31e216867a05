//! The shaders of this example, compiled by `build.rs` (see `dianran::build` and
//! docs/host.md), and the CPU reference the GPU results are checked against.

/// One module per shader file: `mlp` for `shaders/mlp.wgsl`.
pub mod shaders {
    include!(concat!(env!("OUT_DIR"), "/dianran_shaders.rs"));
}

/// The parameters of one MLP step: layer norm's `gamma`/`beta` and `eps`, then `w`
/// (`cols` x `cols`, row-major) and `bias`.
pub struct Layer<'a> {
    /// Layer norm scale, one per column.
    pub gamma: &'a [f32],
    /// Layer norm shift, one per column.
    pub beta: &'a [f32],
    /// The GEMM's weights.
    pub w: &'a [f32],
    /// The GEMM's bias, one per column.
    pub bias: &'a [f32],
    /// Columns of every matrix.
    pub cols: usize,
    /// Layer norm's epsilon.
    pub eps: f32,
}

/// One MLP step on the CPU, in f64: layer norm of each row of `x` (rows of `l.cols`), times
/// `l.w` plus `l.bias`, then tanh-GELU. Returns the new `x`.
pub fn step_reference(x: &[f32], l: &Layer<'_>) -> Vec<f32> {
    let (cols, rows) = (l.cols, x.len() / l.cols);
    let (gamma, beta, w, bias, eps) = (l.gamma, l.beta, l.w, l.bias, l.eps);
    let mut out = vec![0.0f32; rows * cols];
    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        let mean = row.iter().map(|v| f64::from(*v)).sum::<f64>() / cols as f64;
        let var = row.iter().map(|v| (f64::from(*v) - mean).powi(2)).sum::<f64>() / cols as f64;
        let rstd = 1.0 / (var + f64::from(eps)).sqrt();
        let h: Vec<f64> = (0..cols)
            .map(|c| (f64::from(row[c]) - mean) * rstd * f64::from(gamma[c]) + f64::from(beta[c]))
            .collect();
        for c in 0..cols {
            let mut acc = f64::from(bias[c]);
            for (k, hk) in h.iter().enumerate() {
                acc += hk * f64::from(w[k * cols + c]);
            }
            let g =
                0.5 * acc * (1.0 + (0.7978845608028654 * (acc + 0.044715 * acc.powi(3))).tanh());
            out[r * cols + c] = g as f32;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-worked row: [1, 3] normalizes to [-1, 1] (eps 0), the identity keeps it, GELU(1)
    /// = 0.841192, GELU(-1) = -0.158808.
    #[test]
    fn reference_step_by_hand() {
        let l = Layer {
            gamma: &[1.0; 2],
            beta: &[0.0; 2],
            w: &[1.0, 0.0, 0.0, 1.0],
            bias: &[0.0; 2],
            cols: 2,
            eps: 0.0,
        };
        let y = step_reference(&[1.0, 3.0], &l);
        assert!((y[0] + 0.158808).abs() < 1e-5, "{y:?}");
        assert!((y[1] - 0.841192).abs() < 1e-5, "{y:?}");
    }

    /// The generated host struct has WGSL's layout: 16 bytes, fields in order.
    #[test]
    fn dims_layout() {
        let d = shaders::mlp::Dims { rows: 1, cols: 2, eps: 0.5, _unused: 0 };
        let b = dianran::bytemuck::bytes_of(&d);
        assert_eq!(b.len(), 16);
        assert_eq!(b[4..8], 2u32.to_le_bytes());
        assert_eq!(b[8..12], 0.5f32.to_le_bytes());
    }
}
