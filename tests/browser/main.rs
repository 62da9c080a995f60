//! The web client in a real headless Chromium driven over WebDriver (helpers in
//! tests/browser_support/): one scenario at a time, each against its own real server.

#[path = "../browser_support/mod.rs"]
mod browser_support;
#[path = "../common/mod.rs"]
mod common;
#[path = "../server_support/mod.rs"]
mod server_support;

mod accounts;
mod analysis;
mod challenges;
mod chess960;
mod correspondence;
mod editor;
mod engines;
mod feel;
mod friends;
mod layout;
mod play;
mod premoves;
mod study;
mod tv;
