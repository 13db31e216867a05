// Builds a tensor-core kernel through the PTX model (no WGSL involved) and prints it: a loop
// over K that stages tiles in shared memory and multiplies them with `mma.sync`.
//
// ```text
// cargo run -p dianran-ptx --example mma_tile > mma_tile.ptx
// ptxas -arch=sm_80 mma_tile.ptx -o mma_tile.cubin
// ```
//
// One warp (32 threads) computes `C = A * B` with `A` 16 x K and `B` K x 8 in f16 and `C`
// 16 x 8 in f32 (K a multiple of 16, passed as the fourth parameter's first u32). The
// buffers: `p_g0_b0` holds A row-major, `p_g0_b1` holds B transposed (8 rows of K halves:
// the `.col` layout `mma` wants for B), `p_g0_b2` receives C row-major. Every iteration
// copies a 16 x 16 tile of A and a 16 x 8 tile of B into shared memory, waits at `bar.sync`,
// loads each lane's fragments (PTX ISA, "Matrix Fragments for mma.m16n8k16" with f16 A/B:
// lane l holds rows `l/4` and `l/4 + 8`, columns `2*(l%4)` and `+1`, then the same 8
// columns further) and accumulates one `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`.

use dianran_ptx::build;
use dianran_ptx::{
    CmpOp, Dim, Entry, Module, Opcode, Operand, Param, PtxError, Reg, RegKind, RegPool, SpecialReg,
    StateSpace, Type, VarDecl,
};

/// Bytes of one staged A tile (16 x 16 halves) and B tile (8 x 16 halves).
const A_TILE: u64 = 16 * 16 * 2;
const B_TILE: u64 = 8 * 16 * 2;

/// The tensor-core module (entry `mma_tile`, 32 threads).
pub fn build_mma_tile() -> Module {
    let mut module = Module::new(80);
    module.comments.push("16x8 tensor-core GEMM over K, assembled with dianran-ptx".into());
    let mut e = Entry::new("mma_tile");
    for name in ["p_g0_b0", "p_g0_b1", "p_g0_b2", "p_g0_b3"] {
        e.params.push(Param::pointer(name));
    }
    e.reqntid = Some([32, 1, 1]);
    e.vars.push(VarDecl::shared_bytes("ys_a", 16, A_TILE));
    e.vars.push(VarDecl::shared_bytes("ys_b", 16, B_TILE));
    // Registers come from a pool; the printer declares them.
    let mut regs = RegPool::new();
    let r32 = |p: &mut RegPool| p.fresh(RegKind::B32);
    let r64 = |p: &mut RegPool| p.fresh(RegKind::B64);
    let mut ptrs = Vec::new();
    for name in ["p_g0_b0", "p_g0_b1", "p_g0_b2", "p_g0_b3"] {
        let (generic, global) = (r64(&mut regs), r64(&mut regs));
        e.push(build::ld_param(Type::U64, generic, name));
        e.push(build::cvta_to(StateSpace::Global, global, generic));
        ptrs.push(global);
    }
    let (a, b, c, kbuf) = (ptrs[0], ptrs[1], ptrs[2], ptrs[3]);

    // K and the row pitch in bytes (2K).
    let k = r32(&mut regs);
    e.push(build::ld(StateSpace::Global, Type::U32, k, Operand::addr(kbuf, 0)));
    let pitch = r32(&mut regs);
    e.push(build::binary(Opcode::Shl, &[], Type::B32, pitch, k, Operand::imm(1)));

    // Lane, its group (lane / 4) and its place in the group (lane % 4).
    let (lane, g, t) = (r32(&mut regs), r32(&mut regs), r32(&mut regs));
    e.push(build::mov(Type::U32, lane, SpecialReg::Tid(Dim::X)));
    e.push(build::binary(Opcode::Shr, &[], Type::U32, g, lane, Operand::imm(2)));
    e.push(build::binary(Opcode::And, &[], Type::B32, t, lane, Operand::imm(3)));

    // Addresses of the shared tiles in the shared state space (what `ld/st.shared` take).
    let (sa, sb) = (r64(&mut regs), r64(&mut regs));
    e.push(build::mov(Type::U64, sa, Operand::sym("ys_a")));
    e.push(build::mov(Type::U64, sb, Operand::sym("ys_b")));

    // Copy sources and destinations that do not change with k: A row `lane / 2`, half
    // `lane % 2` (16 bytes each); B row `lane / 4`, quarter `lane % 4` (8 bytes each).
    let (arow, ahalf, aoff) = (r32(&mut regs), r32(&mut regs), r32(&mut regs));
    e.push(build::binary(Opcode::Shr, &[], Type::U32, arow, lane, Operand::imm(1)));
    e.push(build::binary(Opcode::And, &[], Type::B32, ahalf, lane, Operand::imm(1)));
    e.push(build::binary(Opcode::Shl, &[], Type::B32, ahalf, ahalf, Operand::imm(4)));
    e.push(build::mad_lo(Type::U32, aoff, arow, pitch, ahalf));
    let (a_src, a_dst, tmp64) = (r64(&mut regs), r64(&mut regs), r64(&mut regs));
    e.push(build::mul_wide(Type::U32, tmp64, aoff, Operand::imm(1)));
    e.push(build::add(Type::S64, a_src, a, tmp64));
    let adst32 = r32(&mut regs);
    e.push(build::mad_lo(Type::U32, adst32, arow, Operand::imm(32), ahalf));
    e.push(build::mul_wide(Type::U32, tmp64, adst32, Operand::imm(1)));
    e.push(build::add(Type::S64, a_dst, sa, tmp64));
    let (bq, boff) = (r32(&mut regs), r32(&mut regs));
    e.push(build::binary(Opcode::Shl, &[], Type::B32, bq, t, Operand::imm(3)));
    e.push(build::mad_lo(Type::U32, boff, g, pitch, bq));
    let (b_src, b_dst) = (r64(&mut regs), r64(&mut regs));
    e.push(build::mul_wide(Type::U32, tmp64, boff, Operand::imm(1)));
    e.push(build::add(Type::S64, b_src, b, tmp64));
    let bdst32 = r32(&mut regs);
    e.push(build::mad_lo(Type::U32, bdst32, g, Operand::imm(32), bq));
    e.push(build::mul_wide(Type::U32, tmp64, bdst32, Operand::imm(1)));
    e.push(build::add(Type::S64, b_dst, sb, tmp64));

    // Fragment addresses in shared memory: A at row g (and g + 8), byte 4t (and 4t + 16);
    // B (stored as 8 rows of 16 halves) at row g, byte 4t (and 4t + 16).
    let (fa, fb, t4) = (r32(&mut regs), r32(&mut regs), r32(&mut regs));
    e.push(build::binary(Opcode::Shl, &[], Type::B32, t4, t, Operand::imm(2)));
    e.push(build::mad_lo(Type::U32, fa, g, Operand::imm(32), t4));
    e.push(build::mad_lo(Type::U32, fb, g, Operand::imm(32), t4));
    let (fa64, fb64) = (r64(&mut regs), r64(&mut regs));
    e.push(build::mul_wide(Type::U32, tmp64, fa, Operand::imm(1)));
    e.push(build::add(Type::S64, fa64, sa, tmp64));
    e.push(build::mul_wide(Type::U32, tmp64, fb, Operand::imm(1)));
    e.push(build::add(Type::S64, fb64, sb, tmp64));

    // Accumulators start at zero.
    let acc: Vec<Reg> = (0..4).map(|_| r32(&mut regs)).collect();
    for &d in &acc {
        e.push(build::mov(Type::F32, d, Operand::f32(0.0)));
    }
    let kt = r32(&mut regs);
    e.push(build::mov(Type::U32, kt, Operand::imm(0)));

    // for (kt = 0; kt < K; kt += 16)
    e.label("$L_loop");
    let v: Vec<Reg> = (0..4).map(|_| r32(&mut regs)).collect();
    e.push(build::ld_vec(StateSpace::Global, Type::U32, &v, Operand::addr(a_src, 0)));
    e.push(build::st_vec(StateSpace::Shared, Type::U32, Operand::addr(a_dst, 0), &v));
    e.push(build::ld_vec(StateSpace::Global, Type::U32, &v[..2], Operand::addr(b_src, 0)));
    e.push(build::st_vec(StateSpace::Shared, Type::U32, Operand::addr(b_dst, 0), &v[..2]));
    e.push(build::bar_sync(0));
    let fa_regs: Vec<Reg> = (0..4).map(|_| r32(&mut regs)).collect();
    for (r, off) in fa_regs.iter().zip([0, 8 * 32, 16, 8 * 32 + 16]) {
        e.push(build::ld(StateSpace::Shared, Type::B32, *r, Operand::addr(fa64, off)));
    }
    let fb_regs: Vec<Reg> = (0..2).map(|_| r32(&mut regs)).collect();
    for (r, off) in fb_regs.iter().zip([0, 16]) {
        e.push(build::ld(StateSpace::Shared, Type::B32, *r, Operand::addr(fb64, off)));
    }
    e.push(build::mma_sync(
        (16, 8, 16),
        [Type::F32, Type::F16, Type::F16, Type::F32],
        &acc,
        &fa_regs,
        &fb_regs,
        &acc,
    ));
    // The next iteration overwrites the tiles: everyone must be done reading them.
    e.push(build::bar_sync(0));
    e.push(build::add(Type::S64, a_src, a_src, Operand::imm(32)));
    e.push(build::add(Type::S64, b_src, b_src, Operand::imm(32)));
    e.push(build::add(Type::U32, kt, kt, Operand::imm(16)));
    let more = regs.fresh(RegKind::Pred);
    e.push(build::setp(CmpOp::Lt, Type::U32, more, kt, k));
    e.push(build::bra("$L_loop").guarded(more, false));

    // C rows g and g + 8, columns 2t and 2t + 1 (f32, 32 bytes per row).
    let (coff, c0) = (r32(&mut regs), r64(&mut regs));
    e.push(build::binary(Opcode::Shl, &[], Type::B32, coff, t, Operand::imm(3)));
    e.push(build::mad_lo(Type::U32, coff, g, Operand::imm(32), coff));
    e.push(build::mul_wide(Type::U32, tmp64, coff, Operand::imm(1)));
    e.push(build::add(Type::S64, c0, c, tmp64));
    e.push(build::st_vec(StateSpace::Global, Type::F32, Operand::addr(c0, 0), &acc[..2]));
    e.push(build::st_vec(StateSpace::Global, Type::F32, Operand::addr(c0, 8 * 32), &acc[2..]));
    e.push(build::ret());
    module.entries.push(e);
    module
}

fn main() -> Result<(), PtxError> {
    let module = build_mma_tile();
    module.validate()?;
    print!("{}", module.to_ptx()?);
    Ok(())
}
