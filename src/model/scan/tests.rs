//! Tests of the line scanner: its facts against the full parse, numbers against serde_json.

use super::*;
use crate::model::parse::{LineValue, RawLine, entry_from, parse_line};

fn facts_equal(line: &str) {
    let lite = parse_lite(line.as_bytes()).expect("fast path takes the line");
    let raw = RawLine {
        offset: 1,
        number: 2,
        bytes: line.as_bytes(),
        terminated: true,
    };
    let LineValue::Object(map, None) = parse_line(&raw) else {
        panic!("full path parses the line")
    };
    let entry = entry_from(map, 2);
    let mut buf = None;
    let mut full = EntryFacts::of_entry(&entry, &mut buf);
    // The tool calls of the full path are read by `InfoBuilder::entry`.
    let tools = crate::model::info::entry_tool_text(&entry);
    if let Some(m) = &mut full.message {
        m.tools = tools.as_deref();
    }
    let mut fast = lite.facts();
    // The full path joins text for user/assistant only; the fast one may have it otherwise.
    if let (Some(m), Some(f)) = (&mut fast.message, &full.message)
        && !matches!(f.role, Some("user" | "assistant"))
    {
        m.text = f.text;
    }
    assert_eq!(fast, full, "{line}");
}

#[test]
fn digit_runs_end_where_the_byte_at_a_time_scan_ends() {
    let reference = |b: &[u8], mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    // Every byte value after runs of every length up to and across two words, and the
    // bytes next to the digits ('/' and ':') inside a run.
    for run in 0..20 {
        for byte in 0..=255u8 {
            let mut b = vec![b'7'; run];
            b.push(byte);
            b.extend_from_slice(b"123456789");
            for start in 0..b.len() {
                assert_eq!(digits_end(&b, start), reference(&b, start), "{b:?} {start}");
            }
        }
    }
}

/// Numbers of every shape: edge values, then 60,000 pseudo-random ones.
fn number_cases() -> Vec<String> {
    let mut numbers: Vec<String> = [
        "0",
        "-0",
        "1",
        "-1",
        "0.1",
        "-0.0",
        "1e5",
        "1E+5",
        "1e-5",
        "2.5e-3",
        "0.00034920000000000003",
        "1.7976931348623157e308",
        "5e-324",
        "2.2250738585072011e-308",
        "1e-400",
        "-1e-400",
        "9007199254740993",
        "-9007199254740993",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "123456789012345678901234567890",
        "0.1e1",
        "1.00000000000000011102230246251565404",
        "1e300",
        "9.999999999999999e299",
        "12e-3",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut state = 0x1234_5678_9abc_def1u64;
    for _ in 0..20000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mantissa = state % 10u64.pow((state >> 60) as u32 % 19 + 1);
        let frac = (state >> 20) % 100000;
        let exp = (state >> 40) as i64 % 330 - 165;
        numbers.push(format!("{mantissa}"));
        numbers.push(format!("-{mantissa}.{frac:05}"));
        numbers.push(format!("{mantissa}.{frac}e{exp}"));
    }
    numbers
}

#[test]
fn kept_numbers_have_serde_json_values() {
    for n in &number_cases() {
        let mut cur = Cursor::new(n.as_bytes()).unwrap();
        let got = cur.number(true);
        let expected = serde_json::from_str::<serde_json::Value>(n)
            .ok()
            .map(|v| v.as_f64());
        match (got, expected) {
            (Some(a), Some(b)) => {
                assert_eq!(a.map(f64::to_bits), b.map(f64::to_bits), "{n}")
            }
            (None, _) => {}
            (Some(a), None) => panic!("{n}: fast {a:?}, serde_json rejects it"),
        }
    }
}

#[test]
fn skipped_numbers_are_checked_as_kept_ones_are() {
    let mut numbers = number_cases();
    let long = "1".repeat(300);
    for n in [
        "-", "-a", "a", "1.", "1.e5", ".5", "1e", "1e+", "00", "-01", "0x1", "1.5.5", "1e5e5",
    ] {
        numbers.push(n.to_string());
    }
    for tail in ["", "0", "0.5", "0e1", ",", "]"] {
        numbers.push(format!("{long}{tail}"));
        numbers.push(format!("-{long}{tail}"));
    }
    for n in &numbers {
        for after in ["", ",", "}", " ", "]"] {
            let line = format!("{n}{after}");
            let (mut skipped, mut read) = (
                Cursor::new(line.as_bytes()).unwrap(),
                Cursor::new(line.as_bytes()).unwrap(),
            );
            let skip = skipped.skip_number();
            let number = read.number(false).map(|_| ());
            assert_eq!(skip, number, "{line}");
            if skip.is_some() {
                assert_eq!(skipped.i, read.i, "{line}");
            }
        }
    }
}

#[test]
fn usage_in_pi_shape_reads_as_the_walk_does() {
    let pi = r#"{"input":24962,"output":1364,"cacheRead":0,"cacheWrite":0,"totalTokens":26326,"cost":{"input":0.074886,"output":0.02046,"cacheRead":0,"cacheWrite":0,"total":0.09534599999999999}}"#;
    let reasoning = format!(r#"{},"reasoning":12}}"#, &pi[..pi.len() - 1]);
    let shaped = [
        pi.to_string(),
        reasoning.clone(),
        pi.replace("26326", "-1.5e-5"),
        pi.replace("0.09534599999999999", "7e300"),
    ];
    let other = [
        pi.replace("0.09534599999999999", "1e400"),
        pi.replace(":0,", ": 0,"),
        pi.replace("26326", "\"26326\""),
        pi.replace("\"total\":", "\"totals\":"),
        pi.replace("1364", "01"),
        format!(r#"{},"totalTokens":5}}"#, &pi[..pi.len() - 1]),
        format!(r#"{},"reasoning":1,"x":2}}"#, &pi[..pi.len() - 1]),
        reasoning.replace(":12}", ":\"12\"}"),
        pi[..pi.len() - 1].to_string(),
        r#"{"totalTokens":3,"input":1}"#.to_string(),
        "null".to_string(),
    ];
    check_pi_shapes(
        &shaped,
        &other,
        |c| c.usage_as_pi_writes().is_some(),
        |usage| {
            format!(
                r#"{{"type":"message","id":"a","parentId":"b","message":{{"role":"assistant","content":"hi","usage":{usage}}}}}"#
            )
        },
        |_, pi_shaped| !pi_shaped,
    );
}

/// Each case is read by the fast path for pi's shape (`shape`) exactly when it is one of
/// `shaped`; the line holding it (`line_of`) has the full parse's facts when the fast path
/// takes it, and is refused only where serde_json refuses it too or `may_refuse` allows.
fn check_pi_shapes(
    shaped: &[String],
    other: &[String],
    shape: impl Fn(&mut Cursor<'_>) -> bool,
    line_of: impl Fn(&str) -> String,
    may_refuse: impl Fn(&str, bool) -> bool,
) {
    let cases = shaped.iter().map(|c| (c, true));
    for (case, pi_shaped) in cases.chain(other.iter().map(|c| (c, false))) {
        let mut cur = Cursor::new(case.as_bytes()).unwrap();
        assert_eq!(shape(&mut cur), pi_shaped, "{case}");
        let line = line_of(case);
        let serde_takes = serde_json::from_str::<serde_json::Value>(&line).is_ok();
        match parse_lite(line.as_bytes()) {
            Some(_) => facts_equal(&line),
            None => assert!(!serde_takes || may_refuse(&line, pi_shaped), "{line}"),
        }
    }
}

#[test]
fn an_entry_head_in_pi_shape_reads_as_the_walk_does() {
    let head = r#"{"type":"message","id":"a1b2c3d4","parentId":"e5f6a7b8","timestamp":"2026-01-01T00:00:00.000Z""#;
    let rest = r#","message":{"role":"user","content":"hi","timestamp":1}}"#;
    let shaped = [
        format!("{head}{rest}"),
        format!("{head}}}"),
        format!("{head}{rest}").replace(r#""e5f6a7b8""#, "null"),
        format!("{head}{rest}").replace(r#""a1b2c3d4""#, r#""a\u00e9\n""#),
        format!("{head}{rest}").replace(r#""message","#, "7,"),
        format!("{head},\"id\":\"again\"{rest}"),
        format!("{head},\"type\":\"label\"{rest}"),
        format!("{head} ,\"x\":[1, 2] {rest}"),
        // Read by the head, refused by the walk after it (no closing brace).
        head.to_string(),
    ];
    let other = [
        // Spaces after a colon: left to the walk, which reads the string (taking `"c3"` for
        // a value of another kind lost the entry's id).
        format!("{head}{rest}").replace(r#""id":"#, r#""id": "#),
        format!("{head}{rest}").replace(r#""parentId":"#, r#""parentId":  "#),
        format!("{head}{rest}").replace(r#""type":"#, r#""type": "#),
        format!("{head}{rest}").replace(r#""id":"#, r#""id" :"#),
        format!("{head}{rest}").replace(r#","parentId""#, r#", "parentId""#),
        r#"{"id":"a","type":"message","parentId":null,"timestamp":"t"}"#.to_string(),
        head.replace(r#","timestamp""#, r#","timestamp ""#),
    ];
    check_pi_shapes(
        &shaped,
        &other,
        |c| c.head_as_pi_writes().is_some(),
        str::to_owned,
        // A second `id` or `type` after the head: the fast path refuses duplicates.
        |line, _| line.contains("again") || line.contains("label"),
    );
}

#[test]
fn facts_match_the_full_parse() {
    facts_equal(
        r#"{"type":"message","id":"a","parentId":"b","timestamp":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":[{"type":"text","text":"x\ny"},{"type":"image","data":"AAAA"},{"text":"z","type":"text"},{"type":"thinking","text":"no"}],"usage":{"totalTokens":12,"cost":{"total":0.5}},"timestamp":17}}"#,
    );
    facts_equal(
        r#"{"message":{"content":"hi","role":"user"},"type":"message","id":5,"parentId":null}"#,
    );
    facts_equal(
        r#"{"type":"compaction","id":"c","details":{"strategy":"verbatim-lines"},"usage":{"totalTokens":-3.5,"cost":[]}}"#,
    );
    facts_equal(r#"{"type":"label","id":"l","targetId":"a","label":""}"#);
    facts_equal(r#"{"type":"session_info","id":"n","name":"  x  "}"#);
    facts_equal(r#"{"type":"session_summary","id":"s","summary":"sum","summarizedThroughId":"a"}"#);
    facts_equal(
        r#"{"type":"message","id":"t","message":{"role":"toolResult","content":[{"type":"text","text":"big"}]}}"#,
    );
}

#[test]
fn skipped_values_with_escapes_numbers_and_spaces_match_the_full_parse() {
    facts_equal(
        r#" { "type" : "message" , "id":"a\"b\\c\/\b\f\n\r\t\u00e9\u001b" ,"x":[ 1 , -0 , 0.5e-3 , 1E5 , -12.75 , true , false , null , { } , [ ] , "\u0000" ] , "message":{"role":"user","content":[{"type":"text","text":"a\u0041\n"},{"type":"toolCall","arguments":{"q":"\"}\\"}}],"timestamp":1.5e12,"usage":{"totalTokens":18446744073709551615,"cost":{"total":-0}}} } "#,
    );
    facts_equal(
        r#"{"type":"message","x":[1e-999,-2.5E-99999,0.00034920000000000003,1.7e308,5e-324,123456789012345678901234567890],"message":{"role":"assistant","usage":{"totalTokens":1e300,"cost":{"total":1e-400}}}}"#,
    );
    facts_equal(
        r#"{"type":"message","message":{"role":"assistant","content":"plain"},"blob":"QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODk="}"#,
    );
    facts_equal(
        r#"{"type":"message","id":"x","message":{"role":"toolResult","content":"\u00aa \" skipped"}}"#,
    );
}

#[test]
fn lines_the_full_parse_rejects_or_repairs_take_the_full_path() {
    for line in [
        // Tricky but valid: escaped keys, tabs and CRs as whitespace, surrogate pairs.
        r#"{"\u0074ype":"message","id":"a"}"#,
        "{\"type\":\t\"message\"}",
        "{\"type\":\"message\"}\r",
        r#"{"type":"message","x":"\ud83d\ude00"}"#,
        // Invalid.
        r#"{"type":"message","x":"\x"}"#,
        r#"{"type":"message","x":"\u12"}"#,
        r#"{"type":"message","x":"\u12g4"}"#,
        "{\"type\":\"message\",\"x\":\"a\u{1}b\"}",
        "{\"type\":\"message\",\"x\":\"tab\tin string\"}",
        r#"{"type":"message","x":01}"#,
        r#"{"type":"message","x":-}"#,
        r#"{"type":"message","x":1.}"#,
        r#"{"type":"message","x":1e}"#,
        r#"{"type":"message","x":.5}"#,
        r#"{"type":"message","x":1e309}"#,
        r#"{"type":"message","x":-0.5e308,"y":1e99999}"#,
        r#"{"type":"message","x":1.8e308}"#,
        r#"{"type":"message","x":[1e-5,2E+400]}"#,
        r#"{"type":"message","x":[1,]}"#,
        r#"{"type":"message","x":{"a":1,}}"#,
        r#"{"type":"message",}"#,
        r#"{"type":"message","x":tru}"#,
        r#"{"type":"message","x":nul}"#,
        r#"{"type":"message","x":"unterminated}"#,
        r#"{"type":"message""x":1}"#,
        r#"{"type":"message","x"1}"#,
        r#"{"type":"message","x":[1 2]}"#,
        r#"{"type":"message"}}"#,
        r#"{"type":"message"} {}"#,
        r#"{"type":"compaction","usage":{"totalTokens":1,"totalTokens":2}}"#,
        r#"{"type":"message","message":{"role":"toolResult","content":"\ud800"}}"#,
        r#"{"type":"message","x":1e400}"#,
        r#"{"type":"message","id":"a","id":"b"}"#,
        r#"[1,2]"#,
        r#"{"type":"message"} x"#,
        "",
    ] {
        assert!(parse_lite(line.as_bytes()).is_none(), "{line}");
    }
    let deep = format!(
        "{{\"type\":\"x\",\"a\":{}{}}}",
        "[".repeat(200),
        "]".repeat(200)
    );
    assert!(parse_lite(deep.as_bytes()).is_none());
    assert!(parse_lite(b"{\"type\":\"message\",\"x\":\"\xff\"}").is_none());
}
