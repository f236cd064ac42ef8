// build.rs: records, for the plugin's `version` string, the versions of the
// crates cargo actually resolved (from Cargo.lock) and of the compiler.
use std::env;
use std::fs;
use std::path::Path;
use std::process::Command;

fn locked_version(lock: &str, name: &str) -> String {
    let needle = format!("name = \"{}\"\nversion = \"", name);
    match lock.find(&needle) {
        Some(at) => {
            let rest = &lock[at + needle.len()..];
            rest.split('"').next().unwrap_or("?").to_string()
        }
        None => "?".to_string(),
    }
}

fn main() {
    let dir = env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let lock_path = Path::new(&dir).join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock_path.display());
    println!("cargo:rerun-if-changed=build.rs");
    let lock = fs::read_to_string(&lock_path).unwrap_or_default().replace("\r\n", "\n");
    for (krate, var) in [
        ("ring", "RING"),
        ("aes", "AES"),
        ("aes-soft", "AES_SOFT"),
        ("block-modes", "BLOCK_MODES"),
        ("base64", "BASE64"),
        ("hex", "HEX"),
    ] {
        println!("cargo:rustc-env=CB_{}_VERSION={}", var, locked_version(&lock, krate));
    }
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "rustc ?".to_string());
    println!("cargo:rustc-env=CB_RUSTC_VERSION={}", version);
}
