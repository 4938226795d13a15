// Records the compiler version for results files (`machine.rustc`).
fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.split_whitespace().nth(1).unwrap_or("unknown").to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=JSONCOST_RUSTC_VERSION={version}");
    println!("cargo:rerun-if-env-changed=RUSTC");
}
