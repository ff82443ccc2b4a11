//! Long lists print without deep recursion: parameter lists and initialiser lists of 200,000
//! items print and read back on a thread with a 2 MiB stack (the printer built their layout
//! documents one nesting level per item, and dropping them overflowed the stack).

fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawns")
        .join()
        .expect("no stack overflow or panic");
}

#[test]
fn long_parameter_and_initialiser_lists_print() {
    const N: usize = 200_000;
    let mut src = String::from(".version 8.0\n.target sm_90\n.address_size 64\n");
    src += ".global .u32 a[] = {";
    for i in 0..N {
        if i > 0 {
            src += ", ";
        }
        // Expressions, so that the list is not packed.
        src += &format!("{i}+1");
    }
    src += "};\n.visible .entry k(";
    for i in 0..N {
        if i > 0 {
            src += ", ";
        }
        src += &format!(".param .u32 p{i}");
    }
    src += ")\n{\n\tret;\n}\n";
    on_small_stack(move || {
        let m = ptx_ir_text::parse(&src).expect("parses");
        let printed = ptx_ir_text::print(&m);
        assert_eq!(ptx_ir_text::parse(&printed).expect("reads back"), m);
        assert_eq!(ptx_ir_text::print(&m), printed);
    });
}
