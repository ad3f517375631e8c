//! The exit codes every command shares. Each command adds its own from 3 on
//! and documents them in its `--help`.

pub const OK: u8 = 0;
/// Bad input: a file that cannot be read or parsed, a field of the wrong
/// shape; the message names the file and the field.
pub const BAD_INPUT: u8 = 1;
/// Usage: an unknown flag, or a flag / `INPUT_*` / `GITHUB_*` value that is
/// not valid; the message names it.
pub const USAGE: u8 = 2;
