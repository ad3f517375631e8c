//! Arbitrary output names and values: whatever the encoder accepts, the
//! runner's parser reads back as exactly the same pairs, no more, no fewer.
#![no_main]

use baseline_resolver::runner::file_command;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|pairs: Vec<(String, String)>| {
    let mut written = String::new();
    let mut expected = Vec::new();
    for (name, value) in pairs {
        let before = written.len();
        match file_command::encode(&mut written, &name, &value) {
            Ok(()) => expected.push((name, value)),
            Err(_) => assert_eq!(written.len(), before, "a refused pair wrote nothing"),
        }
    }
    assert_eq!(file_command::read(&written).unwrap(), expected);
});
