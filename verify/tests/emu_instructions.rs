//! PTX emulator: one test per instruction family, against hand-computed values.

// Fragment checks index lanes and registers by position, as the layout tables do.
#![allow(clippy::needless_range_loop)]

use dianran_verify::emu::{global_base, run, EmuErrorKind, EmuOptions};

const HEADER: &str = ".version 8.0\n.target sm_80\n.address_size 64\n\n";
const REGS: &str =
    "\t.reg .pred %p<16>;\n\t.reg .b16 %h<32>;\n\t.reg .b32 %r<96>;\n\t.reg .b64 %rd<32>;\n";

/// A kernel with two buffer parameters: `%rd1` = global address of buffer 0 (output),
/// `%rd2` = buffer 1 (input); `%r0` = %tid.x.
fn kernel(block: u32, shared: &str, body: &str) -> String {
    format!(
        "{HEADER}.visible .entry k(\n\t.param .u64 p0,\n\t.param .u64 p1\n)\n.reqntid {block}, 1, 1\n{{\n{REGS}{shared}\tld.param.u64 %rd1, [p0];\n\tcvta.to.global.u64 %rd1, %rd1;\n\tld.param.u64 %rd2, [p1];\n\tcvta.to.global.u64 %rd2, %rd2;\n\tmov.u32 %r0, %tid.x;\n{body}\n\tret;\n}}\n"
    )
}

/// Runs `body` with `block` threads; returns buffer 0 (`out_len` bytes).
fn exec(block: u32, shared: &str, body: &str, input: Vec<u8>, out_len: usize) -> Vec<u8> {
    let text = kernel(block, shared, body);
    let mut bufs = vec![vec![0u8; out_len], input];
    if let Err(e) = run(&text, "k", &mut bufs, [1, 1, 1], [block, 1, 1], &EmuOptions::default()) {
        panic!("{e}\n{text}");
    }
    bufs.swap_remove(0)
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// Runs a one-thread body that stores 32-bit results at [%rd1 + 4k].
fn scalar(body: &str, n: usize) -> Vec<u32> {
    words(&exec(1, "", body, Vec::new(), 4 * n))
}

/// Stores registers %r<first>.. at consecutive words.
fn store_seq(first: u32, n: u32) -> String {
    (0..n).map(|k| format!("\tst.global.u32 [%rd1+{}], %r{};\n", 4 * k, first + k)).collect()
}

fn f(x: f32) -> u32 {
    x.to_bits()
}

#[test]
fn integer_arithmetic() {
    let body = "\
        mov.u32 %r1, 7;\n mov.u32 %r2, -3;\n\
        add.s32 %r10, %r1, %r2;\n sub.s32 %r11, %r2, %r1;\n\
        mul.lo.s32 %r12, %r1, %r2;\n mul.hi.u32 %r13, %r2, 16;\n mul.hi.s32 %r14, %r2, 16;\n\
        div.s32 %r15, %r2, 2;\n rem.s32 %r16, %r2, 2;\n div.u32 %r17, %r1, 0;\n rem.u32 %r18, %r1, 0;\n\
        min.s32 %r19, %r1, %r2;\n min.u32 %r20, %r1, %r2;\n max.s32 %r21, %r1, %r2;\n\
        neg.s32 %r22, %r1;\n abs.s32 %r23, %r2;\n\
        mov.u32 %r3, -2147483648;\n div.s32 %r24, %r3, -1;\n add.sat.s32 %r25, %r3, -1;\n\
        mad.lo.s32 %r26, %r1, %r1, %r2;\n mad.hi.u32 %r27, %r2, 4, 1;\n\
        mul.wide.u32 %rd3, %r2, 4;\n mul.wide.s32 %rd4, %r2, 4;\n mad.wide.u32 %rd5, %r1, 2, %rd3;\n\
        st.global.u64 [%rd1+80], %rd3;\n st.global.u64 [%rd1+88], %rd4;\n st.global.u64 [%rd1+96], %rd5;\n";
    let body = format!("{body}{}", store_seq(10, 18));
    let w = scalar(&body, 26);
    let m3 = (-3i32) as u32;
    assert_eq!(w[0], 4);
    assert_eq!(w[1], (-10i32) as u32);
    assert_eq!(w[2], (-21i32) as u32);
    assert_eq!(w[3], 15); // (0xFFFFFFFD * 16) >> 32
    assert_eq!(w[4], u32::MAX); // -48 >> 32 = -1
    assert_eq!(w[5], (-1i32) as u32); // truncation toward zero
    assert_eq!(w[6], (-1i32) as u32);
    assert_eq!(w[7], u32::MAX); // division by zero: all ones
    assert_eq!(w[8], 7); // remainder by zero: the dividend
    assert_eq!(w[9], m3);
    assert_eq!(w[10], 7);
    assert_eq!(w[11], 7);
    assert_eq!(w[12], (-7i32) as u32);
    assert_eq!(w[13], 3);
    assert_eq!(w[14], 0x8000_0000); // i32::MIN / -1 wraps
    assert_eq!(w[15], 0x8000_0000); // saturates
    assert_eq!(w[16], 46);
    assert_eq!(w[17], 4); // mad.hi: ((0xFFFFFFFD * 4) >> 32) + 1
    let q = |k: usize| u64::from(w[k]) | u64::from(w[k + 1]) << 32;
    assert_eq!(q(20), 0xFFFF_FFFD_u64 * 4);
    assert_eq!(q(22), (-12i64) as u64);
    assert_eq!(q(24), 0xFFFF_FFFD_u64 * 4 + 14);
}

#[test]
fn shifts_clamp_and_bit_ops() {
    let body = "\
        mov.u32 %r1, 0x80000001;\n\
        shl.b32 %r10, %r1, 1;\n shl.b32 %r11, %r1, 32;\n shr.u32 %r12, %r1, 31;\n shr.u32 %r13, %r1, 40;\n\
        shr.s32 %r14, %r1, 4;\n shr.s32 %r15, %r1, 99;\n\
        popc.b32 %r16, %r1;\n clz.b32 %r17, 0x00F00000;\n brev.b32 %r18, %r1;\n brev.b32 %r19, 6;\n\
        bfe.u32 %r20, 0x12345678, 8, 8;\n bfe.s32 %r21, 0x0000F000, 12, 4;\n bfe.s32 %r22, 0x80000000, 28, 8;\n\
        bfi.b32 %r23, 0xAB, 0x11111111, 8, 8;\n\
        prmt.b32 %r24, 0x33221100, 0x77665544, 0x7531;\n prmt.b32 %r25, 0x00000080, 0, 0x8888;\n\
        lop3.b32 %r26, 0xF0F0F0F0, 0xCCCCCCCC, 0xAAAAAAAA, 0x96;\n\
        and.b32 %r27, %r1, 0xFF;\n or.b32 %r28, %r1, 6;\n xor.b32 %r29, %r1, -1;\n not.b32 %r30, %r1;\n\
        cnot.b32 %r31, 0;\n";
    let w = scalar(&format!("{body}{}", store_seq(10, 22)), 22);
    assert_eq!(w[0], 2);
    assert_eq!(w[1], 0);
    assert_eq!(w[2], 1);
    assert_eq!(w[3], 0);
    assert_eq!(w[4], 0xF800_0000);
    assert_eq!(w[5], u32::MAX); // sign fill when the amount is >= 32
    assert_eq!(w[6], 2);
    assert_eq!(w[7], 8);
    assert_eq!(w[8], 0x8000_0001);
    assert_eq!(w[9], 0x6000_0000);
    assert_eq!(w[10], 0x56);
    assert_eq!(w[11], u32::MAX); // 0xF sign-extended from 4 bits
    assert_eq!(w[12], 0xFFFF_FFF8); // bits 28..31 = 0b1000, then the sign bit (bit 31) repeats
    assert_eq!(w[13], 0x1111_AB11);
    assert_eq!(w[14], 0x7755_3311); // bytes 1,3,5,7 (low selector first)
    assert_eq!(w[15], 0xFFFF_FFFF); // sign-replicate byte 0 (0x80)
    assert_eq!(w[16], 0xF0F0_F0F0 ^ 0xCCCC_CCCC ^ 0xAAAA_AAAA); // 0x96 = a ^ b ^ c
    assert_eq!(w[17], 1);
    assert_eq!(w[18], 0x8000_0007);
    assert_eq!(w[19], 0x7FFF_FFFE);
    assert_eq!(w[20], 0x7FFF_FFFE);
    assert_eq!(w[21], 1);
}

/// Multi-word arithmetic through the carry flag (`add.cc`/`addc`, `sub.cc`/`subc`,
/// `mad.lo.cc`/`madc.hi`, as libdevice's trigonometric reduction uses them) and funnel
/// shifts (`shf.l`/`shf.r`, `.wrap`/`.clamp`).
#[test]
fn carry_chains_and_funnel_shifts() {
    let (x, y) = (0xFFFF_FFFF_0000_0001_FFFF_FFFFu128, 0x0000_0001_FFFF_FFFF_0000_0002u128);
    let limb = |v: u128, k: u32| (v >> (32 * k)) as u32;
    let body = format!(
        "mov.u32 %r1, {};\n mov.u32 %r2, {};\n mov.u32 %r3, {};\n\
         mov.u32 %r4, {};\n mov.u32 %r5, {};\n mov.u32 %r6, {};\n\
         add.cc.u32 %r10, %r1, %r4;\n addc.cc.u32 %r11, %r2, %r5;\n addc.u32 %r12, %r3, %r6;\n\
         sub.cc.u32 %r13, %r1, %r4;\n subc.cc.u32 %r14, %r2, %r5;\n subc.u32 %r15, %r3, %r6;\n\
         mad.lo.cc.u32 %r16, %r1, %r3, %r6;\n madc.hi.cc.u32 %r17, %r1, %r3, 5;\n\
         addc.u32 %r18, 0, 0;\n\
         shf.l.wrap.b32 %r19, %r1, %r2, 36;\n shf.l.clamp.b32 %r20, %r1, %r2, 36;\n\
         shf.r.wrap.b32 %r21, %r1, %r2, 4;\n shf.r.clamp.b32 %r22, %r1, %r2, 40;\n\
         add.cc.u64 %rd3, -1, 1;\n addc.u32 %r23, 7, 0;\n",
        limb(x, 0),
        limb(x, 1),
        limb(x, 2),
        limb(y, 0),
        limb(y, 1),
        limb(y, 2)
    );
    let w = scalar(&format!("{body}{}", store_seq(10, 14)), 14);
    let m96 = (1u128 << 96) - 1;
    let (sum, diff) = ((x + y) & m96, x.wrapping_sub(y) & m96);
    assert_eq!(&w[0..3], &[limb(sum, 0), limb(sum, 1), limb(sum, 2)], "96-bit add");
    assert_eq!(&w[3..6], &[limb(diff, 0), limb(diff, 1), limb(diff, 2)], "96-bit sub");
    let (a, c) = (u64::from(limb(x, 0)), u64::from(limb(x, 2)));
    let lo = ((a * c) & 0xFFFF_FFFF) + u64::from(limb(y, 2));
    let hi = ((a * c) >> 32) + 5 + (lo >> 32);
    assert_eq!(w[6], lo as u32, "mad.lo.cc");
    assert_eq!(w[7], hi as u32, "madc.hi.cc");
    assert_eq!(w[8], (hi >> 32) as u32, "the carry out of madc.hi.cc");
    let ab = u64::from(limb(x, 1)) << 32 | u64::from(limb(x, 0));
    assert_eq!(w[9], (ab << 4 >> 32) as u32, "shf.l.wrap by 36 = by 4");
    assert_eq!(w[10], limb(x, 0), "shf.l.clamp by 36 = by 32");
    assert_eq!(w[11], (ab >> 4) as u32, "shf.r.wrap");
    assert_eq!(w[12], limb(x, 1), "shf.r.clamp by 40 = by 32");
    assert_eq!(w[13], 8, "the carry out of a 64-bit add.cc");
}

#[test]
fn float_arithmetic_and_approximations() {
    let body = format!(
        "\
        mov.f32 %r1, 0f3FC00000;\n mov.f32 %r2, 0fC0200000;\n\
        add.f32 %r10, %r1, %r2;\n sub.rn.f32 %r11, %r1, %r2;\n mul.f32 %r12, %r1, %r2;\n\
        fma.rn.f32 %r13, %r1, %r2, 0f3F800000;\n div.rn.f32 %r14, 0f3F800000, 0f40400000;\n\
        add.sat.f32 %r15, %r1, 0f3F000000;\n neg.f32 %r16, %r1;\n abs.f32 %r17, %r2;\n\
        min.f32 %r18, %r1, 0f7FC00000;\n max.f32 %r19, 0f80000000, 0f00000000;\n\
        sqrt.rn.f32 %r20, 0f40800000;\n rsqrt.approx.f32 %r21, 0f40800000;\n ex2.approx.f32 %r22, 0f40400000;\n\
        lg2.approx.f32 %r23, 0f41000000;\n sin.approx.f32 %r24, 0f00000000;\n cos.approx.f32 %r25, 0f00000000;\n\
        tanh.approx.f32 %r26, 0f00000000;\n rcp.rn.f32 %r27, 0f40800000;\n copysign.f32 %r28, %r2, %r1;\n\
        add.rz.f32 %r29, 0f3F800000, 0f33800000;\n add.rp.f32 %r30, 0f3F800000, 0f33800000;\n\
        mul.ftz.f32 %r31, 0f00400000, 0f3F800000;\n mov.f64 %rd3, 0d3FF8000000000000;\n\
        add.f64 %rd4, %rd3, %rd3;\n st.global.f64 [%rd1+128], %rd4;\n\
        {}",
        store_seq(10, 22)
    );
    let w = scalar(&body, 34);
    assert_eq!(w[0], f(-1.0));
    assert_eq!(w[1], f(4.0));
    assert_eq!(w[2], f(-3.75));
    assert_eq!(w[3], f(-2.75));
    assert_eq!(w[4], f(1.0 / 3.0));
    assert_eq!(w[5], f(1.0));
    assert_eq!(w[6], f(-1.5));
    assert_eq!(w[7], f(2.5));
    assert_eq!(w[8], f(1.5)); // min with NaN returns the number
    assert_eq!(w[9], f(0.0)); // max(-0, +0) = +0
    assert_eq!(w[10], f(2.0));
    assert_eq!(w[11], f(0.5));
    assert_eq!(w[12], f(8.0));
    assert_eq!(w[13], f(3.0));
    assert_eq!(w[14], f(0.0));
    assert_eq!(w[15], f(1.0));
    assert_eq!(w[16], f(0.0));
    assert_eq!(w[17], f(0.25));
    assert_eq!(w[18], f(-1.5)); // sign of a, magnitude of b
                                // 1 + 2^-24 is halfway between 1 and 1 + 2^-23: rz keeps 1, rp goes up.
    assert_eq!(w[19], f(1.0));
    assert_eq!(w[20], 0x3F80_0001);
    assert_eq!(w[21], 0); // subnormal flushed
    assert_eq!(u64::from(w[32]) | u64::from(w[33]) << 32, 3.0f64.to_bits());
}

#[test]
fn setp_selp_and_unordered_comparisons() {
    let nan = "0f7FC00000";
    let cmps = ["eq", "ne", "lt", "equ", "neu", "ltu", "geu", "num", "nan"];
    let mut body = String::new();
    for (k, c) in cmps.iter().enumerate() {
        body += &format!(
            "\tsetp.{c}.f32 %p1, 0f3F800000, {nan};\n\tselp.u32 %r{}, 1, 0, %p1;\n",
            10 + k
        );
    }
    let base = 10 + cmps.len() as u32;
    body += &format!(
        "\tsetp.lt.s32 %p2|%p3, -1, 1;\n\tselp.u32 %r{}, 1, 0, %p2;\n\tselp.u32 %r{}, 1, 0, %p3;\n",
        base,
        base + 1
    );
    body += &format!("\tsetp.lo.u32 %p4, -1, 1;\n\tselp.u32 %r{}, 1, 0, %p4;\n", base + 2);
    body += &format!("\tsetp.lt.and.s32 %p5, 1, 2, !%p4;\n\tselp.u32 %r{}, 1, 0, %p5;\n", base + 3);
    body += &format!("\tsetp.eq.f32 %p6, 0f3F800000, 0f3F800000;\n\t@!%p6 mov.u32 %r{0}, 5;\n\t@%p6 mov.u32 %r{0}, 9;\n", base + 4);
    let n = cmps.len() as u32 + 5;
    let w = scalar(&format!("{body}{}", store_seq(10, n)), n as usize);
    // Ordered comparisons with NaN are false, unordered ones true.
    assert_eq!(&w[..9], &[0, 0, 0, 1, 1, 1, 1, 0, 1]);
    assert_eq!(&w[9..], &[1, 0, 0, 1, 9]);
}

#[test]
fn conversions() {
    let body = format!(
        "\
        cvt.rni.s32.f32 %r10, 0f40200000;\n cvt.rzi.s32.f32 %r11, 0fC0600000;\n cvt.rmi.s32.f32 %r12, 0fC0600000;\n\
        cvt.rpi.s32.f32 %r13, 0f40200000;\n cvt.rzi.u32.f32 %r14, 0fBF800000;\n cvt.rzi.s32.f32 %r15, 0f7FC00000;\n\
        cvt.rzi.s32.f32 %r16, 0f4F800000;\n cvt.rn.f32.s32 %r17, -3;\n cvt.rn.f32.u32 %r18, 16777217;\n\
        cvt.rp.f32.u32 %r19, 16777217;\n cvt.rni.f32.f32 %r20, 0f40200000;\n cvt.rmi.f32.f32 %r21, 0fBFC00000;\n\
        cvt.sat.f32.f32 %r22, 0f40000000;\n cvt.u32.u16 %r23, 65535;\n mov.u32 %r5, -5;\n cvt.s64.s32 %rd3, %r5;\n\
        cvt.u32.u64 %r24, %rd3;\n cvt.sat.u8.s32 %r25, %r5;\n\
        cvt.rn.f16.f32 %h1, 0f3FC00000;\n cvt.u32.u16 %r26, %h1;\n cvt.f32.f16 %r27, %h1;\n\
        cvt.rn.f16x2.f32 %r28, 0f40000000, 0f3F800000;\n cvt.rzi.s32.f16 %r29, %h1;\n\
        st.global.u64 [%rd1+128], %rd3;\n\
        {}",
        store_seq(10, 20)
    );
    let w = scalar(&body, 34);
    assert_eq!(w[0], 2); // 2.5 to even
    assert_eq!(w[1], (-3i32) as u32);
    assert_eq!(w[2], (-4i32) as u32);
    assert_eq!(w[3], 3);
    assert_eq!(w[4], 0); // negative to unsigned saturates at 0
    assert_eq!(w[5], 0); // NaN -> 0
    assert_eq!(w[6], i32::MAX as u32); // 2^32 saturates
    assert_eq!(w[7], f(-3.0));
    assert_eq!(w[8], f(16_777_216.0));
    assert_eq!(w[9], f(16_777_218.0));
    assert_eq!(w[10], f(2.0));
    assert_eq!(w[11], f(-2.0));
    assert_eq!(w[12], f(1.0));
    assert_eq!(w[13], 65535);
    assert_eq!(w[14], (-5i32) as u32);
    assert_eq!(w[15], 0);
    assert_eq!(w[16], 0x3E00);
    assert_eq!(w[17], f(1.5));
    assert_eq!(w[18], 0x4000_3C00); // a (2.0) in the high half
    assert_eq!(w[19], 1);
    assert_eq!(u64::from(w[32]) | u64::from(w[33]) << 32, (-5i64) as u64);
}

#[test]
fn f16_arithmetic_and_packing() {
    let body = format!(
        "\
        mov.b16 %h1, 0x3C00;\n mov.b16 %h2, 0x4200;\n\
        add.f16 %h3, %h1, %h2;\n mul.f16 %h4, %h2, %h2;\n fma.rn.f16 %h5, %h1, %h2, %h2;\n sub.f16 %h6, %h1, %h2;\n\
        neg.f16 %h7, %h1;\n max.f16 %h8, %h1, %h2;\n setp.lt.f16 %p1, %h1, %h2;\n selp.u32 %r14, 1, 0, %p1;\n\
        mov.b32 %r1, {{%h1, %h2}};\n add.f16x2 %r2, %r1, %r1;\n mov.b32 {{%h9, %h10}}, %r2;\n\
        cvt.u32.u16 %r10, %h3;\n cvt.u32.u16 %r11, %h4;\n cvt.u32.u16 %r12, %h5;\n cvt.u32.u16 %r13, %h6;\n\
        cvt.u32.u16 %r15, %h7;\n cvt.u32.u16 %r16, %h8;\n mov.u32 %r17, %r1;\n mov.u32 %r18, %r2;\n\
        cvt.u32.u16 %r19, %h9;\n cvt.u32.u16 %r20, %h10;\n\
        {}",
        store_seq(10, 11)
    );
    let w = scalar(&body, 11);
    // 1 + 3 = 4 (0x4400), 3 * 3 = 9 (0x4880), 1 * 3 + 3 = 6 (0x4600), 1 - 3 = -2 (0xC000)
    assert_eq!(&w[..4], &[0x4400, 0x4880, 0x4600, 0xC000]);
    assert_eq!(w[4], 1);
    assert_eq!(w[5], 0xBC00);
    assert_eq!(w[6], 0x4200);
    assert_eq!(w[7], 0x4200_3C00);
    assert_eq!(w[8], 0x4600_4000);
    assert_eq!(&w[9..], &[0x4000, 0x4600]);
}

#[test]
fn loads_stores_vectors_and_spaces() {
    let input: Vec<u8> = (0u32..8).flat_map(|x| (x * 10).to_le_bytes()).collect();
    let shared = "\t.shared .align 16 .b8 sm[64];\n\t.local .align 8 .b8 depot[16];\n";
    let body = "\
        ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd2+16];\n\
        ld.global.nc.v2.u32 {%r5, %r6}, [%rd2];\n ld.global.u8 %r7, [%rd2+4];\n ld.global.s8 %r8, [%rd2+4];\n\
        mov.u32 %r9, sm;\n st.shared.v2.u32 [%r9+8], {%r1, %r2};\n ld.shared.u32 %r10, [sm+12];\n\
        mov.u64 %rd3, sm;\n cvta.shared.u64 %rd4, %rd3;\n ld.u32 %r11, [%rd4+8];\n\
        mov.u64 %rd5, depot;\n st.local.u32 [%rd5+4], %r3;\n cvta.local.u64 %rd6, %rd5;\n ld.u32 %r12, [%rd6+4];\n\
        ld.relaxed.gpu.global.u32 %r13, [%rd2+28];\n st.volatile.global.u32 [%rd1+60], %r13;\n\
        st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};\n st.global.v2.u32 [%rd1+16], {%r5, %r6};\n\
        st.global.u32 [%rd1+24], %r7;\n st.global.u32 [%rd1+28], %r8;\n st.global.u32 [%rd1+32], %r10;\n\
        st.global.u32 [%rd1+36], %r11;\n st.global.u32 [%rd1+40], %r12;\n st.global.u8 [%rd1+44], 0x1FF;\n";
    let mut input = input;
    input[4] = 0xF6; // -10 as a byte
    let w = words(&exec(1, shared, body, input, 64));
    assert_eq!(&w[..4], &[40, 50, 60, 70]);
    assert_eq!(&w[4..6], &[0, 0xF6]);
    assert_eq!(w[6], 0xF6);
    assert_eq!(w[7], (-10i32) as u32);
    assert_eq!(w[8], 50);
    assert_eq!(w[9], 40);
    assert_eq!(w[10], 60);
    assert_eq!(w[11], 0xFF);
    assert_eq!(w[15], 70);
}

#[test]
fn atomics_are_exact() {
    // 64 threads: each adds its tid, takes min/max, or/xor, exchanges, increments with wrap.
    let shared = "\t.shared .align 4 .b8 cnt[4];\n";
    let body = "\
        atom.global.add.u32 %r1, [%rd1], %r0;\n\
        atom.global.min.s32 %r2, [%rd1+4], %r0;\n atom.global.max.u32 %r2, [%rd1+8], %r0;\n\
        shl.b32 %r3, 1, %r0;\n atom.global.or.b32 %r4, [%rd1+12], %r3;\n atom.global.xor.b32 %r4, [%rd1+16], 1;\n\
        atom.global.inc.u32 %r5, [%rd1+20], 9;\n atom.global.dec.u32 %r5, [%rd1+24], 9;\n\
        cvt.rn.f32.u32 %r6, %r0;\n atom.global.add.f32 %r7, [%rd1+28], %r6;\n\
        atom.shared.add.u32 %r8, [cnt], 1;\n bar.sync 0;\n\
        setp.eq.u32 %p1, %r0, 0;\n @%p1 ld.shared.u32 %r9, [cnt];\n @%p1 st.global.u32 [%rd1+32], %r9;\n\
        atom.global.cas.b32 %r10, [%rd1+36], %r0, 100;\n\
        red.global.add.u64 [%rd1+40], 3;\n atom.global.exch.b32 %r11, [%rd1+48], 77;\n\
        atom.relaxed.gpu.global.add.s32 %r12, [%rd1+52], -1;\n";
    let w = words(&exec(64, shared, body, Vec::new(), 56));
    assert_eq!(w[0], (0..64).sum::<u32>());
    assert_eq!(w[1], 0);
    assert_eq!(w[2], 63);
    assert_eq!(w[3], u32::MAX); // bits 0..31 (shl by >= 32 gives 0)
    assert_eq!(w[4], 0); // 64 flips
    assert_eq!(w[5], 64 % 10);
    assert_eq!(w[6], 9 - ((64 - 1) % 10)); // 0 -> 9, then down
    assert_eq!(f32::from_bits(w[7]), 2016.0);
    assert_eq!(w[8], 64);
    assert_eq!(w[9], 100); // thread 0 sees 0 == 0 first and writes 100
    assert_eq!(u64::from(w[10]) | u64::from(w[11]) << 32, 192);
    assert_eq!(w[12], 77);
    assert_eq!(w[13], (-64i32) as u32);
}

#[test]
fn shuffles() {
    // Each lane stores the results of up/down/bfly/idx shuffles of (100 + lane).
    let body = "\
        add.u32 %r1, %r0, 100;\n mov.u32 %r9, -1;\n\
        shfl.sync.up.b32 %r2|%p1, %r1, 1, 0, %r9;\n selp.u32 %r3, 1, 0, %p1;\n\
        shfl.sync.down.b32 %r4, %r1, 2, 0x1f, -1;\n shfl.sync.bfly.b32 %r5, %r1, 5, 0x1f, -1;\n\
        shfl.sync.idx.b32 %r6, %r1, 3, 0x1f, -1;\n\
        shfl.sync.idx.b32 %r7, %r1, 1, 0x181f, -1;\n\
        shfl.sync.down.b32 %r8|%p2, %r1, 4, 0x181f, -1;\n selp.u32 %r10, 1, 0, %p2;\n\
        mul.wide.u32 %rd3, %r0, 32;\n add.s64 %rd3, %rd1, %rd3;\n\
        st.global.v4.u32 [%rd3], {%r2, %r3, %r4, %r5};\n st.global.v4.u32 [%rd3+16], {%r6, %r7, %r8, %r10};\n";
    let w = words(&exec(32, "", body, Vec::new(), 32 * 32));
    for l in 0..32u32 {
        let r = &w[(8 * l) as usize..(8 * l + 8) as usize];
        let v = |j: u32| 100 + j;
        assert_eq!(r[0], if l >= 1 { v(l - 1) } else { v(l) }, "up lane {l}");
        assert_eq!(r[1], u32::from(l >= 1));
        assert_eq!(r[2], if l + 2 <= 31 { v(l + 2) } else { v(l) }, "down lane {l}");
        assert_eq!(r[3], v(l ^ 5));
        assert_eq!(r[4], v(3));
        // Segments of 8 lanes (c = 0x18 << 8 | 0x1f): idx 1 reads lane 1 of the segment.
        assert_eq!(r[5], v((l & !7) | 1), "idx segment lane {l}");
        let in_seg = (l & 7) + 4 <= 7;
        assert_eq!(r[6], if in_seg { v(l + 4) } else { v(l) }, "down segment lane {l}");
        assert_eq!(r[7], u32::from(in_seg));
    }
}

#[test]
fn votes_reductions_and_activemask() {
    let body = "\
        and.b32 %r1, %r0, 1;\n setp.eq.u32 %p1, %r1, 1;\n\
        vote.sync.ballot.b32 %r2, %p1, -1;\n vote.sync.any.pred %p2, %p1, -1;\n vote.sync.all.pred %p3, %p1, -1;\n\
        vote.sync.uni.pred %p4, !%p1, -1;\n selp.u32 %r3, 1, 0, %p2;\n selp.u32 %r4, 1, 0, %p3;\n selp.u32 %r5, 1, 0, %p4;\n\
        redux.sync.add.u32 %r6, %r0, -1;\n redux.sync.max.s32 %r7, %r0, -1;\n redux.sync.or.b32 %r8, %r1, -1;\n\
        setp.lt.u32 %p5, %r0, 8;\n mov.u32 %r9, 0;\n mov.u32 %r10, 0;\n\
        @!%p5 bra $L_skip;\n activemask.b32 %r9;\n redux.sync.min.u32 %r10, %r0, %r9;\n\
        $L_skip:\n activemask.b32 %r11;\n\
        mul.wide.u32 %rd3, %r0, 48;\n add.s64 %rd3, %rd1, %rd3;\n\
        st.global.v2.u32 [%rd3], {%r2, %r3};\n st.global.v2.u32 [%rd3+8], {%r4, %r5};\n\
        st.global.v4.u32 [%rd3+16], {%r6, %r7, %r8, %r9};\n st.global.v2.u32 [%rd3+32], {%r10, %r11};\n";
    // 48 bytes per lane (10 words and 2 of padding): every vector store naturally aligned.
    let w = words(&exec(32, "", body, Vec::new(), 32 * 48));
    for l in 0..32usize {
        let r = &w[12 * l..12 * l + 10];
        assert_eq!(r[0], 0xAAAA_AAAA);
        assert_eq!(&r[1..4], &[1, 0, 0]);
        assert_eq!(r[4], (0..32).sum::<u32>());
        assert_eq!(r[5], 31);
        assert_eq!(r[6], 1);
        if l < 8 {
            assert_eq!(r[7], 0xFF, "lane {l}");
            assert_eq!(r[8], 0);
        } else {
            assert_eq!(&r[7..9], &[0, 0]);
        }
        assert_eq!(r[9], u32::MAX, "reconverged after the branch");
    }
}

/// A: 16x16 row-major f16, B: 16x8 (K x N) f16, C: 16x8 f32, every element distinct.
fn mma_inputs() -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    // Small integers and halves are exact in f16 and their products sum exactly in f32.
    let a: Vec<f32> = (0..256).map(|i| (i as f32 - 128.0) / 8.0).collect();
    let b: Vec<f32> = (0..128).map(|i| (i as f32 - 64.0) / 4.0).collect();
    let c: Vec<f32> = (0..128).map(|i| i as f32 * 0.5).collect();
    (a, b, c)
}

fn matmul(a: &[f32], b: &[f32], c: &[f32], m: usize, n: usize, k: usize) -> Vec<f32> {
    let mut d = c.to_vec();
    for r in 0..m {
        for col in 0..n {
            let mut acc = c[r * n + col] as f64;
            for kk in 0..k {
                acc += a[r * k + kk] as f64 * b[kk * n + col] as f64;
            }
            d[r * n + col] = acc as f32;
        }
    }
    d
}

fn f16_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| half::f16::from_f32(*x).to_bits().to_le_bytes()).collect()
}

/// mma.m16n8k16 with fragments packed by the per-lane formulas of the PTX ISA's "Matrix Fragments for mma.m16n8k16 with floating point type"
/// (loads element by element, so the test does not depend on ldmatrix).
#[test]
fn mma_m16n8k16_f32_accumulator() {
    let (a, b, c) = mma_inputs();
    // Input buffer: A (256 f16), then B (128 f16), then C (128 f32).
    let mut input = f16_bytes(&a);
    input.extend(f16_bytes(&b));
    input.extend(c.iter().flat_map(|x| x.to_le_bytes()));
    // g = lane >> 2 (%r1), t = lane & 3 (%r2).
    let mut body = String::from("\tshr.u32 %r1, %r0, 2;\n\tand.b32 %r2, %r0, 3;\n");
    let a_at = |row: &str, col_add: u32, dst: &str| {
        // A[row][2t + col_add] and the next element, packed low to high.
        format!(
            "\tmad.lo.u32 %r40, {row}, 16, {col_add};\n\tshl.b32 %r41, %r2, 1;\n\tadd.u32 %r40, %r40, %r41;\n\tmul.wide.u32 %rd10, %r40, 2;\n\tadd.s64 %rd10, %rd2, %rd10;\n\tld.global.u32 {dst}, [%rd10];\n"
        )
    };
    body += "\tadd.u32 %r3, %r1, 8;\n";
    body += &a_at("%r1", 0, "%r10");
    body += &a_at("%r3", 0, "%r11");
    body += &a_at("%r1", 8, "%r12");
    body += &a_at("%r3", 8, "%r13");
    // B[k][g] for k = 2t, 2t+1 (and +8): two f16 loads packed with mov.b32.
    for (reg, kadd) in [("%r14", 0), ("%r15", 8)] {
        body += &format!(
            "\tshl.b32 %r42, %r2, 1;\n\tadd.u32 %r42, %r42, {kadd};\n\tmad.lo.u32 %r43, %r42, 8, %r1;\n\tmul.wide.u32 %rd11, %r43, 2;\n\tadd.s64 %rd11, %rd2, %rd11;\n\tld.global.b16 %h1, [%rd11+512];\n\tld.global.b16 %h2, [%rd11+528];\n\tmov.b32 {reg}, {{%h1, %h2}};\n"
        );
    }
    // C[g][2t], C[g][2t+1], C[g+8][2t], C[g+8][2t+1].
    body += "\tshl.b32 %r44, %r2, 1;\n\tmad.lo.u32 %r45, %r1, 8, %r44;\n\tmul.wide.u32 %rd12, %r45, 4;\n\tadd.s64 %rd12, %rd2, %rd12;\n\tld.global.v2.f32 {%r20, %r21}, [%rd12+768];\n\tld.global.v2.f32 {%r22, %r23}, [%rd12+1024];\n";
    body += "\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r30, %r31, %r32, %r33}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%r20, %r21, %r22, %r23};\n";
    // Store D by the same C map into a 16x8 f32 output.
    body += "\tmul.wide.u32 %rd13, %r45, 4;\n\tadd.s64 %rd13, %rd1, %rd13;\n\tst.global.v2.f32 [%rd13], {%r30, %r31};\n\tst.global.v2.f32 [%rd13+256], {%r32, %r33};\n";
    let out = exec(32, "", &body, input, 512);
    let got: Vec<f32> =
        out.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    assert_eq!(got, matmul(&a, &b, &c, 16, 8, 16));
}

/// ldmatrix .x4 (A, row-major) and .x2.trans (B stored row-major [K][N]) feed mma with an
/// f16 accumulator; the ldmatrix registers are also checked against the fragment formulas.
#[test]
fn ldmatrix_and_mma_f16_accumulator() {
    let a: Vec<f32> = (0..256).map(|i| (i as f32 - 100.0) / 64.0).collect();
    let b: Vec<f32> = (0..128).map(|i| (i as f32 - 60.0) / 32.0).collect();
    let mut input = f16_bytes(&a);
    input.extend(f16_bytes(&b));
    let shared = "\t.shared .align 16 .b8 sa[512];\n\t.shared .align 16 .b8 sb[256];\n";
    // Copy A and B to shared memory: lane l copies 16 bytes of A, lanes 0..15 16 bytes of B.
    let mut body = String::from(
        "\tmul.wide.u32 %rd3, %r0, 16;\n\tadd.s64 %rd4, %rd2, %rd3;\n\tld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd4];\n\
         \tmov.u32 %r5, sa;\n\tmad.lo.u32 %r6, %r0, 16, %r5;\n\tst.shared.v4.u32 [%r6], {%r1, %r2, %r3, %r4};\n\
         \tsetp.lt.u32 %p1, %r0, 16;\n\t@%p1 ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd4+512];\n\
         \tmov.u32 %r7, sb;\n\tmad.lo.u32 %r8, %r0, 16, %r7;\n\t@%p1 st.shared.v4.u32 [%r8], {%r1, %r2, %r3, %r4};\n\tbar.sync 0;\n",
    );
    // A: lane l addresses &A[l % 16][8 * (l / 16)] (32 bytes per row).
    body += "\tand.b32 %r10, %r0, 15;\n\tshr.u32 %r11, %r0, 4;\n\tshl.b32 %r10, %r10, 5;\n\tshl.b32 %r11, %r11, 4;\n\tadd.u32 %r12, %r10, %r11;\n\tadd.u32 %r12, %r12, %r5;\n";
    body += "\tldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r20, %r21, %r22, %r23}, [%r12];\n";
    // B: lanes 0..15 address &B[l][0] (16 bytes per row); generic address this time.
    body += "\tand.b32 %r13, %r0, 15;\n\tshl.b32 %r13, %r13, 4;\n\tadd.u32 %r13, %r13, %r7;\n\tcvt.u64.u32 %rd5, %r13;\n\tcvta.shared.u64 %rd6, %rd5;\n";
    body += "\tldmatrix.sync.aligned.m8n8.x2.trans.b16 {%r24, %r25}, [%rd6];\n";
    body += "\tmov.b32 %r26, 0;\n\tmov.b32 %r27, 0;\n";
    body += "\tmma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r30, %r31}, {%r20, %r21, %r22, %r23}, {%r24, %r25}, {%r26, %r27};\n";
    body += "\tmul.wide.u32 %rd7, %r0, 32;\n\tadd.s64 %rd7, %rd1, %rd7;\n\tst.global.v4.u32 [%rd7], {%r20, %r21, %r22, %r23};\n\tst.global.v4.u32 [%rd7+16], {%r24, %r25, %r30, %r31};\n";
    let out = words(&exec(32, shared, &body, input, 32 * 32));
    let h = |v: f32| u32::from(half::f16::from_f32(v).to_bits());
    let pair = |lo: f32, hi: f32| h(lo) | h(hi) << 16;
    let d = matmul(&a, &b, &vec![0.0; 128], 16, 8, 16);
    for lane in 0..32usize {
        let (g, t) = (lane / 4, lane % 4);
        let r = &out[8 * lane..8 * lane + 8];
        let am = |row: usize, col: usize| a[row * 16 + col];
        assert_eq!(r[0], pair(am(g, 2 * t), am(g, 2 * t + 1)), "a0 lane {lane}");
        assert_eq!(r[1], pair(am(g + 8, 2 * t), am(g + 8, 2 * t + 1)), "a1 lane {lane}");
        assert_eq!(r[2], pair(am(g, 2 * t + 8), am(g, 2 * t + 9)), "a2 lane {lane}");
        assert_eq!(r[3], pair(am(g + 8, 2 * t + 8), am(g + 8, 2 * t + 9)), "a3 lane {lane}");
        let bm = |k: usize, n: usize| b[k * 8 + n];
        assert_eq!(r[4], pair(bm(2 * t, g), bm(2 * t + 1, g)), "b0 lane {lane}");
        assert_eq!(r[5], pair(bm(2 * t + 8, g), bm(2 * t + 9, g)), "b1 lane {lane}");
        let dm = |row: usize, col: usize| d[row * 8 + col];
        assert_eq!(r[6], pair(dm(g, 2 * t), dm(g, 2 * t + 1)), "d0 lane {lane}");
        assert_eq!(r[7], pair(dm(g + 8, 2 * t), dm(g + 8, 2 * t + 1)), "d1 lane {lane}");
    }
}

/// ldmatrix .x1 without .trans and .x1.trans on one 8x8 matrix with padded rows.
#[test]
fn ldmatrix_x1_plain_and_transposed() {
    // 8 rows of 8 distinct u16 values, rows 32 bytes apart (16 bytes of padding).
    let mut input = vec![0u8; 256];
    for r in 0..8 {
        for c in 0..8 {
            let v = (r * 8 + c + 1) as u16 * 3;
            input[r * 32 + c * 2..r * 32 + c * 2 + 2].copy_from_slice(&v.to_le_bytes());
        }
    }
    let shared = "\t.shared .align 16 .b8 s[256];\n";
    let body = "\
        mul.wide.u32 %rd3, %r0, 8;\n add.s64 %rd4, %rd2, %rd3;\n ld.global.v2.u32 {%r1, %r2}, [%rd4];\n\
        mov.u32 %r3, s;\n mad.lo.u32 %r4, %r0, 8, %r3;\n st.shared.v2.u32 [%r4], {%r1, %r2};\n bar.sync 0;\n\
        and.b32 %r5, %r0, 7;\n mad.lo.u32 %r6, %r5, 32, %r3;\n\
        ldmatrix.sync.aligned.m8n8.x1.shared::cta.b16 {%r7}, [%r6];\n\
        ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%r8}, [%r6];\n\
        mul.wide.u32 %rd5, %r0, 8;\n add.s64 %rd5, %rd1, %rd5;\n st.global.v2.u32 [%rd5], {%r7, %r8};\n";
    let out = words(&exec(32, shared, body, input, 256));
    let m = |r: usize, c: usize| (r * 8 + c + 1) as u32 * 3;
    for l in 0..32 {
        assert_eq!(out[2 * l], m(l / 4, 2 * (l % 4)) | m(l / 4, 2 * (l % 4) + 1) << 16, "lane {l}");
        assert_eq!(
            out[2 * l + 1],
            m(2 * (l % 4), l / 4) | m(2 * (l % 4) + 1, l / 4) << 16,
            "trans lane {l}"
        );
    }
}

fn run_err(block: u32, body: &str) -> (dianran_verify::emu::EmuError, String) {
    let text = kernel(block, "", body);
    let mut bufs = vec![vec![0u8; 64], vec![0u8; 64]];
    let e = run(&text, "k", &mut bufs, [1, 1, 1], [block, 1, 1], &EmuOptions::default())
        .expect_err("the run should fail");
    (e, text)
}

fn line_of(text: &str, needle: &str) -> u32 {
    text.lines().position(|l| l.contains(needle)).map(|p| p as u32 + 1).unwrap_or(0)
}

#[test]
fn misaligned_vector_access_faults_like_a_gpu() {
    // 8-byte aligned but not 16: a `.v4.u32` there faults on hardware, so here too; the same
    // bytes as two `.v2.u32` stores are fine.
    let (e, text) = run_err(32, "\tmul.wide.u32 %rd3, %r0, 16;\n\tadd.s64 %rd3, %rd1, %rd3;\n\tst.global.v4.u32 [%rd3+8], {%r0, %r0, %r0, %r0};\n");
    assert_eq!(e.kind, EmuErrorKind::OutOfBounds);
    assert_eq!(e.line, Some(line_of(&text, "st.global.v4.u32 [%rd3+8]")));
    assert!(e.message.contains("misaligned 16-byte access"), "{e}");
    let body = "\tmul.wide.u32 %rd3, %r0, 16;\n\tadd.s64 %rd3, %rd1, %rd3;\n\
        \tst.global.v2.u32 [%rd3], {%r0, %r0};\n\tst.global.v2.u32 [%rd3+8], {%r0, %r0};\n";
    let w = words(&exec(32, "", body, Vec::new(), 32 * 16));
    assert_eq!(w[4 * 5 + 3], 5);
}

#[test]
fn out_of_bounds_store_is_reported_with_its_line() {
    let (e, text) = run_err(32, "\tmul.wide.u32 %rd3, %r0, 4;\n\tadd.s64 %rd3, %rd1, %rd3;\n\tst.global.u32 [%rd3+4], %r0;\n");
    assert_eq!(e.kind, EmuErrorKind::OutOfBounds);
    assert_eq!(e.line, Some(line_of(&text, "st.global.u32 [%rd3+4]")));
    assert!(e.message.contains("buffer 0"), "{e}");
    assert!(e.message.contains("offset 64"), "{e}");
}

#[test]
fn divergent_barrier_is_a_deadlock() {
    let body = "\tsetp.lt.u32 %p1, %r0, 16;\n\t@!%p1 bra $L_else;\n\tbar.sync 0;\n\tbra.uni $L_end;\n$L_else:\n\tbar.sync 0;\n$L_end:\n";
    let (e, text) = run_err(64, body);
    assert_eq!(e.kind, EmuErrorKind::Deadlock, "{e}");
    let first = line_of(&text, "bar.sync 0");
    assert!(e.line == Some(first) || e.line == Some(first + 3), "{e}");
    assert!(e.message.contains("divergent"), "{e}");
}

#[test]
fn divergent_uniform_branch_is_reported() {
    // Lanes below 16 and the others branch differently under `.uni`.
    let body =
        "\tsetp.lt.u32 %p1, %r0, 16;\n\t@%p1 bra.uni $L_end;\n\tadd.u32 %r5, %r0, 1;\n$L_end:\n";
    let (e, text) = run_err(32, body);
    assert_eq!(e.kind, EmuErrorKind::DivergentUniform, "{e}");
    assert_eq!(e.line, Some(line_of(&text, "bra.uni $L_end")), "{e}");
}

#[test]
fn undefined_register_and_member_mask() {
    let (e, text) = run_err(32, "\tadd.u32 %r5, %r50, 1;\n");
    assert_eq!(e.kind, EmuErrorKind::UndefinedRegister);
    assert_eq!(e.line, Some(line_of(&text, "add.u32 %r5, %r50")));
    assert!(e.message.contains("%r50"), "{e}");
    // Lane 5 executes a shuffle whose member mask leaves it out.
    let (e, _) = run_err(32, "\tshfl.sync.idx.b32 %r1, %r0, 0, 0x1f, 0xF;\n");
    assert_eq!(e.kind, EmuErrorKind::MemberMask, "{e}");
    // Lanes 16..31 exit while the mask still names them.
    let (e, _) = run_err(
        32,
        "\tsetp.ge.u32 %p1, %r0, 16;\n\t@%p1 ret;\n\tshfl.sync.idx.b32 %r1, %r0, 0, 0x1f, -1;\n",
    );
    assert_eq!(e.kind, EmuErrorKind::MemberMask, "{e}");
}

#[test]
fn launch_checks_and_step_limit() {
    let text = kernel(64, "", "");
    let mut bufs = vec![vec![0u8; 4], vec![0u8; 4]];
    let e = run(&text, "k", &mut bufs, [1, 1, 1], [32, 1, 1], &EmuOptions::default()).unwrap_err();
    assert_eq!(e.kind, EmuErrorKind::Launch);
    let e =
        run(&text, "nope", &mut bufs, [1, 1, 1], [64, 1, 1], &EmuOptions::default()).unwrap_err();
    assert_eq!(e.kind, EmuErrorKind::Parse);
    let looping = kernel(32, "", "$L_top:\n\tbra $L_top;\n");
    let e = run(
        &looping,
        "k",
        &mut bufs,
        [1, 1, 1],
        [32, 1, 1],
        &EmuOptions { max_steps: 1000, ..Default::default() },
    )
    .unwrap_err();
    assert_eq!(e.kind, EmuErrorKind::StepLimit);
    assert_eq!(global_base(0), 1 << 32);
}

#[test]
fn special_registers_in_a_grid() {
    // 2x2 grid of 4x2 blocks; each thread writes its linear global index packed with laneid.
    let text = format!(
        "{HEADER}.visible .entry g(\n\t.param .u64 p0\n)\n{{\n{REGS}\tld.param.u64 %rd1, [p0];\n\tcvta.to.global.u64 %rd1, %rd1;\n\
         \tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %tid.y;\n\tmov.u32 %r3, %ctaid.x;\n\tmov.u32 %r4, %ctaid.y;\n\
         \tmov.u32 %r5, %ntid.x;\n\tmov.u32 %r6, %ntid.y;\n\tmov.u32 %r7, %nctaid.x;\n\tmov.u32 %r8, %laneid;\n\
         \tmad.lo.u32 %r9, %r3, %r5, %r1;\n\tmad.lo.u32 %r10, %r4, %r6, %r2;\n\tmul.lo.u32 %r11, %r7, %r5;\n\
         \tmad.lo.u32 %r12, %r10, %r11, %r9;\n\tshl.b32 %r13, %r8, 16;\n\tor.b32 %r13, %r13, %r12;\n\
         \tmul.wide.u32 %rd2, %r12, 4;\n\tadd.s64 %rd2, %rd1, %rd2;\n\tst.global.u32 [%rd2], %r13;\n\tret;\n}}\n"
    );
    let mut bufs = vec![vec![0u8; 32 * 4]];
    run(&text, "g", &mut bufs, [2, 2, 1], [4, 2, 1], &EmuOptions::default()).unwrap();
    let w = words(&bufs[0]);
    for (idx, v) in w.iter().enumerate() {
        let (gx, gy) = (idx % 8, idx / 8);
        let lane = (gx % 4) + 4 * (gy % 2);
        assert_eq!(*v, idx as u32 | (lane as u32) << 16, "index {idx}");
    }
}

/// Runs one `mma` with per-lane fragment registers built on the host: lane l gets `a[l]`,
/// `b[l]`, `c[l]` (u32 each) and returns its `nd` destination registers.
fn run_mma(
    opcode: &str,
    a: &[Vec<u32>],
    b: &[Vec<u32>],
    c: &[Vec<u32>],
    nd: usize,
) -> Vec<Vec<u32>> {
    let (na, nb, nc) = (a[0].len(), b[0].len(), c[0].len());
    let mut input = Vec::new();
    for l in 0..32 {
        let mut words: Vec<u32> = a[l].iter().chain(&b[l]).chain(&c[l]).copied().collect();
        words.resize(16, 0);
        input.extend(words.iter().flat_map(|w| w.to_le_bytes()));
    }
    let mut body = String::from(
        "\tmul.wide.u32 %rd3, %r0, 64;\n\tadd.s64 %rd4, %rd2, %rd3;\n\tadd.s64 %rd5, %rd1, %rd3;\n",
    );
    for k in 0..na + nb + nc {
        body += &format!("\tld.global.u32 %r{}, [%rd4+{}];\n", 10 + k, 4 * k);
    }
    let list = |from: usize, n: usize| {
        (from..from + n).map(|r| format!("%r{r}")).collect::<Vec<_>>().join(", ")
    };
    body += &format!(
        "\t{opcode} {{{}}}, {{{}}}, {{{}}}, {{{}}};\n",
        list(40, nd),
        list(10, na),
        list(10 + na, nb),
        list(10 + na + nb, nc)
    );
    for k in 0..nd {
        body += &format!("\tst.global.u32 [%rd5+{}], %r{};\n", 4 * k, 40 + k);
    }
    let out = words(&exec(32, "", &body, input, 32 * 64));
    (0..32).map(|l| out[16 * l..16 * l + nd].to_vec()).collect()
}

/// m16n8k8 with f16 inputs and an f32 accumulator; fragments from the PTX ISA table:
/// A r0 = {A[g][2t], A[g][2t+1]}, r1 = rows g+8; B r0 = {B[2t][g], B[2t+1][g]};
/// C c_i = C[g + 8 (i / 2)][2t + i % 2].
#[test]
fn mma_m16n8k8_f16() {
    let a: Vec<f32> = (0..128).map(|i| (i as f32 - 50.0) / 16.0).collect(); // 16x8
    let b: Vec<f32> = (0..64).map(|i| (i as f32 - 30.0) / 8.0).collect(); // 8x8 (K x N)
    let c: Vec<f32> = (0..128).map(|i| i as f32 - 64.0).collect(); // 16x8
    let h = |v: f32| u32::from(half::f16::from_f32(v).to_bits());
    let mut fa = Vec::new();
    let mut fb = Vec::new();
    let mut fc = Vec::new();
    for l in 0..32 {
        let (g, t) = (l / 4, l % 4);
        fa.push(vec![
            h(a[g * 8 + 2 * t]) | h(a[g * 8 + 2 * t + 1]) << 16,
            h(a[(g + 8) * 8 + 2 * t]) | h(a[(g + 8) * 8 + 2 * t + 1]) << 16,
        ]);
        fb.push(vec![h(b[2 * t * 8 + g]) | h(b[(2 * t + 1) * 8 + g]) << 16]);
        fc.push((0..4).map(|i| c[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2].to_bits()).collect());
    }
    let d = run_mma("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", &fa, &fb, &fc, 4);
    let want = matmul(&a, &b, &c, 16, 8, 8);
    for l in 0..32 {
        let (g, t) = (l / 4, l % 4);
        for i in 0..4 {
            assert_eq!(
                f32::from_bits(d[l][i]),
                want[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2],
                "lane {l} d{i}"
            );
        }
    }
}

/// m16n8k32 s8 x s8 + s32 (the PTX ISA's "Matrix Fragments for mma.m16n8k32"), with and without .satfinite.
#[test]
fn mma_m16n8k32_s8() {
    let a: Vec<i32> = (0..512).map(|i| (i * 37 % 255) - 127).collect(); // 16x32
    let b: Vec<i32> = (0..256).map(|i| (i * 53 % 255) - 127).collect(); // 32x8
    let mut c: Vec<i32> = (0..128).map(|i| i * 1000 - 64_000).collect();
    c[0] = i32::MAX - 5; // the sum overflows: wraps, or clamps with .satfinite
    let byte = |v: i32| (v as u8) as u32;
    let (mut fa, mut fb, mut fc) = (Vec::new(), Vec::new(), Vec::new());
    for l in 0..32 {
        let (g, t) = (l / 4, l % 4);
        let areg = |row: usize, col0: usize| {
            (0..4).map(|j| byte(a[row * 32 + col0 + j]) << (8 * j)).sum::<u32>()
        };
        fa.push(vec![
            areg(g, 4 * t),
            areg(g + 8, 4 * t),
            areg(g, 4 * t + 16),
            areg(g + 8, 4 * t + 16),
        ]);
        let breg = |k0: usize| (0..4).map(|j| byte(b[(k0 + j) * 8 + g]) << (8 * j)).sum::<u32>();
        fb.push(vec![breg(4 * t), breg(4 * t + 16)]);
        fc.push((0..4).map(|i| c[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] as u32).collect());
    }
    let exact = |row: usize, col: usize| -> i64 {
        i64::from(c[row * 8 + col])
            + (0..32).map(|k| i64::from(a[row * 32 + k]) * i64::from(b[k * 8 + col])).sum::<i64>()
    };
    assert!(exact(0, 0) > i64::from(i32::MAX), "the test needs an overflowing element");
    for sat in [false, true] {
        let op = format!(
            "mma.sync.aligned.m16n8k32.row.col{}.s32.s8.s8.s32",
            if sat { ".satfinite" } else { "" }
        );
        let d = run_mma(&op, &fa, &fb, &fc, 4);
        for l in 0..32 {
            let (g, t) = (l / 4, l % 4);
            for i in 0..4 {
                let v = exact(g + 8 * (i / 2), 2 * t + i % 2);
                let want = if sat {
                    v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
                } else {
                    v as i32
                };
                assert_eq!(d[l][i] as i32, want, "lane {l} d{i} sat {sat}");
            }
        }
    }
}

/// Threads that return early do not hold up a later barrier (only live threads count).
#[test]
fn early_return_before_a_barrier() {
    let shared = "\t.shared .align 4 .b8 s[256];\n";
    let body = "\
        setp.ge.u32 %p1, %r0, 40;\n @%p1 bra $L_end;\n\
        mov.u32 %r1, s;\n shl.b32 %r2, %r0, 2;\n add.u32 %r3, %r1, %r2;\n mul.lo.u32 %r4, %r0, 3;\n\
        st.shared.u32 [%r3], %r4;\n bar.sync 0;\n\
        add.u32 %r5, %r0, 1;\n rem.u32 %r5, %r5, 40;\n shl.b32 %r6, %r5, 2;\n add.u32 %r7, %r1, %r6;\n\
        ld.shared.u32 %r8, [%r7];\n mul.wide.u32 %rd3, %r0, 4;\n add.s64 %rd3, %rd1, %rd3;\n st.global.u32 [%rd3], %r8;\n\
        $L_end:\n";
    let w = words(&exec(64, shared, body, Vec::new(), 256));
    for t in 0..64u32 {
        let want = if t < 40 { ((t + 1) % 40) * 3 } else { 0 };
        assert_eq!(w[t as usize], want, "thread {t}");
    }
}

#[test]
fn barrier_reduces_a_predicate_over_the_cta() {
    // Three warps: `%p1` fails on thread 70 only, `%p2` holds everywhere, `!%p3` everywhere.
    let body = "\
        setp.ne.u32 %p1, %r0, 70;\n setp.lt.u32 %p2, %r0, 1000;\n setp.eq.u32 %p3, %r0, 1000;\n\
        bar.red.and.pred %p4, 0, %p1;\n bar.red.and.pred %p5, 0, %p2;\n bar.red.and.pred %p6, 0, !%p3;\n\
        selp.u32 %r1, 1, 0, %p4;\n selp.u32 %r2, 1, 0, %p5;\n selp.u32 %r3, 1, 0, %p6;\n\
        mul.wide.u32 %rd3, %r0, 16;\n add.s64 %rd3, %rd1, %rd3;\n\
        st.global.v2.u32 [%rd3], {%r1, %r2};\n st.global.u32 [%rd3+8], %r3;\n";
    let w = words(&exec(96, "", body, Vec::new(), 96 * 16));
    for t in 0..96usize {
        assert_eq!(&w[4 * t..4 * t + 3], &[0, 1, 1], "thread {t}");
    }
}
