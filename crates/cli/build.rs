// Exports the binary's own `getrandom` (src/seeds.rs) in its dynamic symbol table, so that
// std's and the getrandom crate's lookups (dlsym) find it before libc's.
fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-Wl,--export-dynamic-symbol=getrandom");
    }
}
