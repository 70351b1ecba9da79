//! `cfg(live)`: the live sources are built when the `live` feature is on and the target is
//! Linux (netlink, ethtool ioctls and /dev/i2c-* exist nowhere else). One name for the
//! pair keeps every gate in the code short and identical.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(live)");
    let live = std::env::var_os("CARGO_FEATURE_LIVE").is_some();
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    if live && linux {
        println!("cargo::rustc-cfg=live");
    }
}
