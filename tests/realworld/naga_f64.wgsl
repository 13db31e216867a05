// Source: https://github.com/gfx-rs/wgpu
// Path: naga/tests/in/wgsl/f64.wgsl
// Commit: 34a3d05ba846f4510d440e501af2847465727519
// License: MIT OR Apache-2.0
// Changes: none (this header only).
// Kind: f64 private globals, constants, literals (`3e1lf`, `4.0e2lf`), f64(i32), a helper
// function; it writes no buffer, so the check is that every stage compiles and runs it.
// dispatch: 1,1,1
var<private> v: f64 = 1lf;
const k: f64 = 2.0lf;

fn f(x: f64) -> f64 {
   _ = v;
   let y: f64 = 3e1lf + 4.0e2lf;
   var z = y + f64(5);
   var w = -1.0lf;
   return x + y + k + 5.0lf;
}

@compute @workgroup_size(1)
fn main() {
   f(6.0lf);
}
