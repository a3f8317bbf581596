// Node-API symbols are resolved from the node process at load time. Linux accepts undefined
// symbols in a shared object by default; macOS has to be told.
fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("macos") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-undefined,dynamic_lookup");
    }
}
