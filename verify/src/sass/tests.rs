//! The reader, the classes and the loops on `excerpt.sass`: real `nvdisasm -c` lines (from
//! `gemm_tiled_f16` and a copy kernel at sm_80 and sm_90, cut down to a countable size), with
//! every expected number below counted by hand from that file.

use super::*;

const EXCERPT: &str = include_str!("excerpt.sass");

fn kernels() -> Vec<Kernel> {
    parse(EXCERPT).expect("the excerpt reads")
}

fn widths(w8: u32, w16: u32, w32: u32, w64: u32, w128: u32) -> Widths {
    Widths([w8, w16, w32, w64, w128])
}

#[test]
fn reads_both_kernels_without_the_guard_and_padding() {
    let k = kernels();
    let names: Vec<&str> = k.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["main", "copy"]);
    // 0x000..=0x2e0 in steps of 16; the `BRA` to itself at 0x2f0 and the NOPs are gone.
    assert_eq!(k[0].instructions.len(), 47);
    assert_eq!(k[0].instructions.last().map(|i| i.opcode.as_str()), Some("EXIT"));
    assert_eq!(k[1].instructions.len(), 14);
    assert_eq!(k[0].labels.get(".L_x_19"), Some(&0xc0));
    assert_eq!(k[0].labels.get(".L_x_18"), Some(&0x100));
    assert_eq!(k[1].labels.get(".L_x_1"), Some(&0x80));
}

#[test]
fn reads_predicates_opcodes_operands_and_targets() {
    let k = kernels();
    let at = |off: u64| k[0].instructions.iter().find(|i| i.offset == off).expect("offset");
    let bra = at(0x80);
    assert_eq!(bra.predicate.as_deref(), Some("!P1"));
    assert_eq!((bra.opcode.as_str(), bra.base()), ("BRA", "BRA"));
    assert_eq!(bra.target.as_deref(), Some(".L_x_4"));
    let hmma = at(0x1a0);
    assert_eq!(hmma.predicate, None);
    assert_eq!(hmma.base(), "HMMA");
    assert_eq!(hmma.modifiers().collect::<Vec<_>>(), ["16816", "F32"]);
    assert_eq!(hmma.operands, ["R56", "R48", "R60.reuse", "R56"]);
    assert_eq!(hmma.target, None);
    let hfma = at(0x280);
    assert_eq!(hfma.operands, ["R3", "-RZ", "RZ", "0", "5.9604644775390625e-08"]);
    let ldg = &k[1].instructions[5];
    assert_eq!(ldg.opcode, "LDG.E.128");
    assert_eq!(ldg.operands, ["R20", "desc[UR6][R8.64+0x10]"]);
    let exit = at(0x2e0);
    assert!(exit.operands.is_empty());
}

#[test]
fn classes_by_opcode() {
    let k = kernels();
    let class = |off: u64| {
        k[0].instructions.iter().find(|i| i.offset == off).map(Instruction::class).expect("off")
    };
    assert_eq!(class(0x000), Class::Integer); // IMAD.MOV.U32
    assert_eq!(class(0x010), Class::Other); // S2R
    assert_eq!(class(0x040), Class::SharedStore(Width::B32));
    assert_eq!(class(0x150), Class::SharedStore(Width::B16));
    assert_eq!(class(0x090), Class::Barrier);
    assert_eq!(class(0x0c0), Class::Conversion); // I2F
    assert_eq!(class(0x0d0), Class::Float); // MUFU
    assert_eq!(class(0x120), Class::GlobalLoad(Width::B32));
    assert_eq!(class(0x130), Class::GlobalLoad(Width::B16));
    assert_eq!(class(0x170), Class::Ldsm(4));
    assert_eq!(class(0x180), Class::Ldsm(4)); // .MT88 is the transposed form
    assert_eq!(class(0x190), Class::Ldsm(2));
    assert_eq!(class(0x1a0), Class::Tensor);
    assert_eq!(class(0x210), Class::GlobalLoad(Width::B128));
    // `LTC128B` is an L2 prefetch hint, not a width.
    assert_eq!(class(0x220), Class::GlobalLoad(Width::B32));
    assert_eq!(class(0x230), Class::GlobalStore(Width::B64));
    assert_eq!(class(0x250), Class::Atomic);
    assert_eq!(class(0x260), Class::Atomic);
    assert_eq!(class(0x270), Class::Conversion); // F2FP
    assert_eq!(class(0x280), Class::Float); // HFMA2.MMA
    assert_eq!(class(0x290), Class::SharedLoad(Width::B128));
    assert_eq!(class(0x2a0), Class::SharedLoad(Width::B16));
    assert_eq!(class(0x2b0), Class::Local);
    assert_eq!(class(0x2c0), Class::Integer); // ULEA
    assert_eq!(class(0x2d0), Class::Other); // USEL: a select, not arithmetic
    assert_eq!(class(0x2e0), Class::Branch); // EXIT
    let ldsm_x1 = instruction("0000*/ LDSM.16.M88 R4, [R27] ;").expect("reads");
    assert_eq!(ldsm_x1.class(), Class::Ldsm(1));
}

#[test]
fn kernel_mix_counted_by_hand() {
    let m = analyze(&kernels()[0]).mix;
    let expected = Mix {
        total: 47,
        tensor: 4,
        ldsm: [0, 1, 2],
        lds: widths(0, 1, 0, 0, 1),
        sts: widths(0, 1, 2, 0, 0),
        ldg: widths(0, 1, 2, 0, 1),
        stg: widths(0, 0, 1, 1, 0),
        local: 1,
        atomic: 2,
        integer: 10,
        float: 2,
        conversion: 3,
        branch: 5,
        barrier: 2,
        other: 4,
    };
    assert_eq!(m, expected);
}

#[test]
fn loops_innermost_and_main() {
    let k = analyze(&kernels()[0]);
    let spans: Vec<(u64, u64, bool, bool)> =
        k.loops.iter().map(|l| (l.start, l.end, l.innermost, l.main)).collect();
    // The zero-fill loop, the K loop (main: HMMAs, but the copy loop lies inside it) and the
    // copy loop; the forward `@!P0 BRA .L_x_16` makes none.
    assert_eq!(
        spans,
        [(0x40, 0x80, true, false), (0xc0, 0x200, false, true), (0x100, 0x160, true, false)]
    );
    let main = k.main_loop().expect("a main loop");
    assert_eq!(main.head, ".L_x_19");
    assert_eq!(main.mix.total, 21);
    assert_eq!(main.mix.tensor, 4);
    assert_eq!(main.mix.per_tensor(), Some(5.25));
    assert_eq!(main.mix.ldsm, [0, 1, 2]);
    assert_eq!(main.mix.integer, 5);
    assert_eq!(main.mix.branch, 2);
    assert_eq!(main.mix.ldg, widths(0, 1, 1, 0, 0));
    let inner: Vec<u32> = k.innermost().map(|l| l.mix.total).collect();
    assert_eq!(inner, [5, 7]);
    assert_eq!(k.loops[0].mix.per_tensor(), None);
}

#[test]
fn two_branches_back_to_one_head_make_one_loop() {
    let k = analyze(&kernels()[1]);
    assert_eq!(k.loops.len(), 1);
    let l = &k.loops[0];
    assert_eq!((l.start, l.end, l.innermost, l.main), (0x80, 0xc0, true, false));
    assert_eq!(l.mix.total, 5);
    assert_eq!(k.mix.total, 14);
    assert_eq!((k.mix.other, k.mix.integer, k.mix.branch), (4, 5, 3));
    assert_eq!((k.mix.ldg.get(Width::B128), k.mix.stg.get(Width::B128)), (1, 1));
    assert_eq!(k.main_loop(), None);
}

#[test]
fn table_rows() {
    let mixes: Vec<KernelMix> = kernels().iter().map(analyze).collect();
    let t = table(&mixes);
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines[0], HEADER);
    assert_eq!(lines[0].split('\t').count(), 18);
    // main: the kernel, two innermost loops, the main loop; copy: the kernel and its loop.
    assert_eq!(lines.len(), 1 + 4 + 2);
    assert_eq!(
        lines[1],
        "main\tkernel\t47\t4\t3 [x2:1 x4:2]\t2 [16:1 128:1]\t3 [16:1 32:2]\t4 [16:1 32:2 128:1]\
         \t2 [32:1 64:1]\t1\t2\t10\t2\t3\t5\t2\t4\t11.75"
    );
    assert!(lines[3].starts_with("main\tloop 0x00c0-0x0200 main\t21\t4\t"), "{}", lines[3]);
    assert!(lines[3].ends_with("\t5.25"), "{}", lines[3]);
    assert!(lines[2].starts_with("main\tloop 0x0040-0x0080 innermost\t5\t0\t0\t0\t2 [32:2]\t"));
    assert!(lines[2].ends_with("\t-"));
    assert!(lines[6].starts_with("copy\tloop 0x0080-0x00c0 innermost\t5\t"), "{}", lines[6]);
}

#[test]
fn bad_lines_are_errors_with_their_line() {
    let text = "\t.section\t.text.k,\"ax\",@progbits\n        /*zz*/ NOP ;\n";
    match parse(text) {
        Err(SassError::Parse { line: 2, message }) => assert!(message.contains("zz"), "{message}"),
        other => panic!("expected a parse error, got {other:?}"),
    }
    assert!(instruction("0010*/ ;").is_err());
    assert_eq!(parse("no sections here").map(|k| k.len()), Ok(0));
}
