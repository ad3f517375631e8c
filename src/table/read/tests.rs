use super::*;
use crate::config::Config;

fn table(text: &str) -> Result<Table, TableError> {
    bytes(text.as_bytes())
}

fn bytes(b: &[u8]) -> Result<Table, TableError> {
    let config = Config::default();
    parse(Path::new("t.csv"), b, &config.keys, &config.metrics)
}

#[test]
fn tflops_when_it_holds_a_number_else_tbps() {
    let t = table(
        "op,shape,dtype,tbps,tflops,status\n\
         softmax,32768x8192,bf16,3.938,-,ok\n\
         gemm,8192x8192,bf16,-,812.5,ok\n\
         mla,1x128,fp8,-,-,missing\n\
         rms,1x1,bf16,,,ok\n\
         skipme,1x1,bf16,-,-,skip\n\
         cut,1x1,bf16\n\
         zero,1x1,bf16,0,-,ok\n",
    )
    .unwrap();
    let rows: Vec<_> = t.rows().collect();
    assert_eq!(rows[0].measure(), Some((1, 3.938)));
    assert_eq!(rows[1].measure(), Some((0, 812.5)));
    assert_eq!(rows[2].reason(), "status is \"missing\"");
    assert_eq!(rows[3].reason(), "tflops is empty, tbps is empty");
    assert_eq!(rows[4].status(), Status::Skip);
    assert!(
        rows[5].reason().contains("cut short"),
        "{}",
        rows[5].reason()
    );
    assert!(rows[6].reason().contains("not a positive"));
    assert_eq!(rows[1].line(), 3);
    assert_eq!(t.valid_rows(), 2);
    assert_eq!(rows[1].value(1), None, "tbps is -");
    assert_eq!(rows[0].value(1), Some(3.938));
}

/// The simple reader splits a file exactly as the CSV reader does,
/// line numbers included: generated files with blank lines, CRLF, a
/// byte-order mark, short and long rows, spaces, failed rows; and the
/// csv crate agrees on quoted fields.
#[test]
fn the_simple_reader_agrees_with_the_csv_reader() {
    let config = Config::default();
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let dump = |t: &Table| -> Vec<String> { t.rows().map(|r| format!("{r:?}")).collect() };
    for case in 0..2000 {
        let eol = if case % 3 == 0 { "\r\n" } else { "\n" };
        let mut text = String::new();
        if case % 5 == 0 {
            text.push('\u{feff}');
        }
        for _ in 0..next(3) {
            text.push_str(eol);
        }
        text.push_str(&format!(" op ,shape,dtype,tbps,tflops,status{eol}"));
        for i in 0..next(30) {
            match next(8) {
                0 => text.push_str(eol),
                1 => text.push_str(&format!("   {eol}")),
                2 => text.push_str(&format!("op{i},{i}x8,bf16{eol}")),
                3 => text.push_str(&format!("op{i},{i}x8,bf16,-,-,missing{eol}")),
                4 => text.push_str(&format!("op{i},{i}x8 , fp8,1.5,-,ok,extra,{eol}")),
                _ => text.push_str(&format!("op{i},{i}x8,bf16,-,{}.25,ok{eol}", next(900))),
            }
        }
        if next(2) == 0 {
            text.push_str("last,1x1,bf16,-,3,ok");
        }
        let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let simple_text = simple(body.as_bytes()).expect("quote-free");
        let run = |csv: bool| {
            let mut b = Builder::new(
                Table::new(PathBuf::from("t.csv"), 2),
                &config.keys,
                &config.metrics,
            );
            let r = if csv {
                read_csv(body.as_bytes(), &mut b)
            } else {
                read_simple(simple_text, &mut b)
            };
            r.and_then(|()| b.finish())
        };
        match (run(false), run(true)) {
            (Ok(a), Ok(b)) => assert_eq!(dump(&a), dump(&b), "{text:?}"),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{text:?}"),
            (a, b) => panic!("{text:?}: {a:?} vs {b:?}"),
        }
        // Quoting every cell sends the file to the csv crate: same rows.
        let quoted: String = body
            .split(eol)
            .map(|l| {
                if l.trim().is_empty() {
                    l.to_owned()
                } else {
                    l.split(',')
                        .map(|c| format!("\"{}\"", c.trim()))
                        .collect::<Vec<_>>()
                        .join(",")
                }
            })
            .collect::<Vec<_>>()
            .join(eol);
        if let (Ok(a), Ok(b)) = (table(&text), table(&quoted)) {
            let keys = |t: &Table| {
                t.rows()
                    .map(|r| (r.key().describe(&config.keys), r.measure()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(keys(&a), keys(&b), "{quoted:?}");
        }
    }
}

#[test]
fn a_byte_order_mark_is_not_part_of_the_header() {
    for text in [
        "\u{feff}op,shape,dtype,tflops\nx,1,b,2\n",
        "\u{feff}\"op\",shape,dtype,tflops\n\"x\",1,b,2\n",
    ] {
        let t = table(text).unwrap();
        assert_eq!(t.valid_rows(), 1, "{text:?}");
    }
}

#[test]
fn quoted_cells_go_to_the_csv_reader() {
    let t = table("op,shape,dtype,tflops\n\"a,b\",\"1\nx\",bf16,2\nc,1,bf16,3\n").unwrap();
    let rows: Vec<_> = t.rows().collect();
    assert_eq!(
        rows[0].key().fields().collect::<Vec<_>>(),
        ["a,b", "1\nx", "bf16"]
    );
    assert_eq!(
        (rows[0].line(), rows[1].line()),
        (2, 4),
        "lines of the file, not records"
    );
}

#[test]
fn a_key_that_is_not_utf8_is_refused_never_merged() {
    let err = bytes(b"op,shape,dtype,tflops\nx\xff,1,b,2\nx\xfe,1,b,3\n")
        .unwrap_err()
        .to_string();
    assert_eq!(err, "t.csv line 2: the key column op is not UTF-8 text");
    // Elsewhere in the row it is only text that is not a number.
    let t = bytes(b"op,shape,dtype,tflops,status\nx,1,b,2,\xff\n").unwrap();
    assert_eq!(t.valid_rows(), 0);
}

#[test]
fn what_makes_a_file_unusable_names_file_and_line() {
    let err = table("op,shape,tflops\nx,1,1\n").unwrap_err().to_string();
    assert!(err.contains("t.csv line 1: no key column dtype"), "{err}");
    let err = table("op,shape,dtype,ms\nx,1,b,1\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("no metric column tflops or tbps"), "{err}");
    let err = table("op,shape,dtype,tflops\nx,1,b,1\ny,1,b,2\nx,1,b,3\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("t.csv line 4: the key op=x,shape=1,dtype=b is already on line 2"),
        "{err}"
    );
}

#[test]
fn blank_lines_reserve_nothing() {
    // 64 MiB of blank lines once asked for 4.4 GB up front.
    let blank = vec![b'\n'; 4 << 20];
    let mut text = b"op,shape,dtype,tflops\n".to_vec();
    text.extend_from_slice(&blank);
    let t = bytes(&text).unwrap();
    assert!(t.is_empty());
}
