//! The one integration-test binary of `ndl-arrow`: each module is one
//! concern, as each file was once its own binary.

mod common;

mod bad_input;
mod columns;
mod consumers;
mod describe_types;
mod error_paths;
mod file_mode;
mod ipc_kinds;
mod nested_enum;
mod records;
mod roundtrip;
mod time;
mod writers;
