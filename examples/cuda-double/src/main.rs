//! Runs the `加倍` kernel from `shaders/double.wgsl` on CUDA through dianran's launch helper,
//! and shows the WGSL and MSL the same build produced.

use cuda_double::shaders::double;
use dianran::launch::LaunchError;
use std::process::ExitCode;

fn main() -> ExitCode {
    let entry = &double::加倍;
    println!(
        "entry '{}': WGSL/MSL name '{}', workgroup size {:?}",
        entry.name, entry.wgsl_name, entry.workgroup_size
    );
    println!("PTX kernel: {:?}", entry.ptx_name);
    for b in entry.bindings.iter() {
        let layout = b.layout.as_ref().map(|l| {
            format!(
                "{} ({} bytes fixed, runtime stride {:?})",
                l.type_name, l.size, l.runtime_stride
            )
        });
        println!(
            "  @group({}) @binding({}) {}: {:?} {:?} {}",
            b.group,
            b.binding,
            b.name,
            b.kind,
            b.access,
            layout.unwrap_or_default()
        );
    }
    println!("\n--- WGSL ---\n{}", double::WGSL);
    println!("--- MSL ---\n{}", double::MSL);

    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(LaunchError::NoDevice) => {
            println!("skipped: no CUDA device");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Doubles 1000 floats plus an offset on the GPU and checks the result on the CPU: the data
/// goes to the device once, the typed launcher queues the kernel on a stream, and the result
/// comes back once.
fn run() -> Result<(), LaunchError> {
    let kernels = double::Kernels::load()?;
    let stream = kernels.module().context().default_stream();
    let input: Vec<f32> = (0..1000).map(|i| i as f32 * 0.5 - 100.0).collect();
    let mut data = stream.clone_htod(&input)?;
    let params = double::Params { offset: 1.5, count: input.len() as u32 };
    let [wx, _, _] = double::加倍.workgroup_size;
    let groups = params.count.div_ceil(wx);
    kernels.加倍(&stream, [groups, 1, 1], &mut data, &params)?;
    let got = stream.clone_dtoh(&data)?;
    let wrong = input.iter().zip(&got).filter(|(x, y)| **x * 2.0 + params.offset != **y).count();
    if wrong == 0 {
        println!(
            "CUDA: {} values doubled correctly (first: {} -> {})",
            got.len(),
            input[0],
            got[0]
        );
        Ok(())
    } else {
        Err(LaunchError::Execution(format!("{wrong} of {} results differ from the CPU", got.len())))
    }
}
