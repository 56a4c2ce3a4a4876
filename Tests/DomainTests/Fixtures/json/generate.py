#!/usr/bin/env python3
"""Generates the StrictJSON fixture corpus (valid/, invalid/, expected.tsv)."""
import os, shutil

root = os.path.dirname(os.path.abspath(__file__))
for sub in ("valid", "invalid"):
    d = os.path.join(root, sub)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)

def b(s):
    return s.encode("utf-8") if isinstance(s, str) else s

valid = {
    "top-level-string": '"a"',
    "top-level-number": "1",
    "top-level-true": "true",
    "top-level-false": "false",
    "top-level-null": "null",
    "top-level-negative-float": "-12.5e-3\n",
    "empty-object": "{}",
    "empty-array": "[]",
    "empty-containers-nested": '{"a": [], "b": {}, "c": [[], {}]}',
    "nested-arrays-500": "[" * 500 + "]" * 500,
    "nested-objects-500": '{"a":' * 500 + "1" + "}" * 500,
    "nested-arrays-512-at-limit": "[" * 512 + "]" * 512,
    "huge-exponent": "1e400",
    "huge-negative-exponent": "[1e-400, -1E+400]",
    "huge-integer-300-digits": "1" + "234567890" * 33 + "12",
    "huge-negative-integer": "-" + "9" * 40,
    "number-forms": "[0, -0, 1.5, -1.5e+10, 1E-2, 123e45, 0.0, 0e0, 0E+1, 0.5e-0, 10, 100]",
    "all-escapes": r'"quote \" backslash \\ slash \/ b \b f \f n \n r \r t \t A \u0041 e \u00e9 sun \u65E5"',
    "surrogate-pair-escape": r'["\ud83d\ude00", "\uD834\uDD1E"]',
    "max-scalar": b'["\\uDBFF\\uDFFF", "' + bytes([0xF4, 0x8F, 0xBF, 0xBF]) + b'"]',
    "noncharacter-raw": b'"' + bytes([0xEF, 0xBF, 0xBF]) + b'"',
    "unicode-raw": '{"café": "é", "日本": "日本語", "emoji": "😀🎉👩‍👩‍👧"}',
    "escaped-nul": r'"a\u0000b"',
    "raw-delete-in-string": b'"a\x7fb"',
    "unescaped-slash": '"a/b</script>"',
    "duplicate-keys": '{"a": 1, "a": 2, "b": 3}',
    "empty-key": '{"": 1, " ": 2}',
    "whitespace-around": " \t\r\n [ 1 , 2 ] \n\t ",
    "crlf-lines": '{\r\n  "a": [\r\n    1,\r\n    2\r\n  ]\r\n}\r\n',
    "document-with-rows": """{
  "title": "orders",
  "rows": [
    {"id": 1, "name": "Ana", "tags": ["a", "b"], "total": 12.50, "paid": true},
    {"id": 2, "name": "Bo", "tags": [], "total": 0, "paid": false, "note": null}
  ],
  "meta": {"count": 2, "next": null}
}
""",
    "long-string": '"' + "abcdefghij" * 1000 + '"',
    "key-order": '{"z": 1, "a": 2, "m": 3}',
}

# file name -> (content, line, column, message substring)
invalid = {
    "empty": ("", 1, 1, "the input is empty; expected a JSON value"),
    "whitespace-only": ("  \n  \n", 3, 1, "the input is only whitespace"),
    "bom": (b"\xef\xbb\xbf{}", 1, 1, "a byte-order mark (U+FEFF) starts the input"),
    "bom-inside-array": (b"[\xef\xbb\xbf1]", 1, 2, "found U+FEFF (byte-order mark)"),
    "no-break-space-as-whitespace": (b"[1,\xc2\xa02]", 1, 4, "found U+00A0 (no-break space)"),
    "form-feed-as-whitespace": (b"[1,\x0c2]", 1, 4, "found control character U+000C (form feed)"),
    "trailing-comma-object": ('{\n  "a": 1,\n  "b": 2,\n}\n', 4, 1,
        "expected '\"' to start a member name, found '}' (a trailing comma?)"),
    "trailing-comma-array": ("[1, 2, 3,]", 1, 10, "expected a value after ',', found ']' (a trailing comma?)"),
    "trailing-comma-nested": ('{"rows": [1, 2,]}', 1, 16, "(at $.rows): expected a value after ','"),
    "comment-line": ('{\n  // note\n  "a": 1\n}', 2, 3, "(comments are not allowed in JSON)"),
    "comment-block": ("[1, /* two */ 2]", 1, 5, "(comments are not allowed in JSON)"),
    "single-quoted-string": ("['a']", 1, 2, "found a single quote (JSON strings need double quotes)"),
    "single-quoted-key": ("{'a': 1}", 1, 2, "found a single quote (JSON strings need double quotes)"),
    "unquoted-key": ("{a: 1}", 1, 2, "found 'a' (member names need double quotes)"),
    "unquoted-string-value": ("[abc]", 1, 2, "found 'abc' (strings need double quotes)"),
    "missing-colon": ('{"a" 1}', 1, 6, "expected ':' after the member name 'a', found '1'"),
    "missing-value": ('{"a":}', 1, 6, "expected a value for member 'a', found '}'"),
    "missing-comma-array": ("[1 2]", 1, 4, "found '2' (a missing comma?)"),
    "missing-comma-object": ('{"a": 1 "b": 2}', 1, 9,
        "expected ',' or '}' after the value of member 'a', found '\"' (a missing comma?)"),
    "double-comma": ("[1,,2]", 1, 4, "expected a value after ',', found ','"),
    "leading-comma": ("[,1]", 1, 2, "expected a value or ']', found ','"),
    "number-as-key": ("{1: 2}", 1, 2, "expected '\"' to start a member name or '}'"),
    "unterminated-string": ('[\n  "abc', 2, 3, "unterminated string"),
    "unterminated-escape-at-end": ('"abc\\', 1, 1, "unterminated string"),
    "unterminated-array": ("[1, 2", 1, 6, "the array opened at line 1, column 1 is not closed"),
    "unterminated-object": ('{"a": {"b": 1}', 1, 15, "the object opened at line 1, column 1 is not closed"),
    "mismatched-brackets": ("[1, 2}", 1, 6, "mismatched brackets"),
    "extra-closing-bracket": ("[1]]", 1, 4, "unexpected ']' after the JSON value (an extra closing bracket?)"),
    "extra-data": ('{"a": 1} x', 1, 10, "unexpected 'x' after the JSON value"),
    "two-top-level-values": ("1 2", 1, 3, "(only one top-level value is allowed)"),
    "raw-newline-in-string": ('["abc\ndef"]', 1, 6,
        "control character U+000A (line feed) in a string; escape it as '\\n'"),
    "raw-carriage-return-in-string": ('["abc\rdef"]', 1, 6, "U+000D (carriage return) in a string"),
    "raw-tab-in-string": ('"a\tb"', 1, 3, "control character U+0009 (tab) in a string; escape it as '\\t'"),
    "control-char-in-string": (b'"a\x01b"', 1, 3, "U+0001 in a string; escape it as '\\u0001'"),
    "nul-in-string": (b'"a\x00b"', 1, 3, "NUL byte (U+0000) in a string; escape it as '\\u0000'"),
    "nul-outside-string": (b"[1,\x00 2]", 1, 4, "found a NUL byte (U+0000)"),
    "nul-after-value": (b"{}\x00", 1, 3, "unexpected NUL byte (U+0000) after the JSON value"),
    "delete-outside-string": (b"[\x7f]", 1, 2, "found control character U+007F (delete)"),
    "invalid-escape-x": ('"\\x41"', 1, 2, "invalid escape '\\x' in a string"),
    "invalid-escape-single-quote": ('"it\\\'s"', 1, 4, "(a single quote needs no escape)"),
    "invalid-unicode-escape": ('"\\u12G4"', 1, 2, "invalid escape '\\u12G4' in a string: '\\u' must be followed by four hex digits"),
    "short-unicode-escape": ('"\\u12"', 1, 2, "invalid escape '\\u12' in a string"),
    "lone-high-surrogate": ('["\\ud800"]', 1, 3, "lone surrogate '\\ud800' in a string: a high surrogate"),
    "lone-low-surrogate": ('"\\udc00"', 1, 2, "lone surrogate '\\udc00' in a string: a low surrogate"),
    "high-surrogate-then-letter": ('"\\ud83dx"', 1, 2, "lone surrogate '\\ud83d'"),
    "high-surrogate-then-high": ('"\\ud83d\\ud83d"', 1, 2, "a high surrogate escape must be followed by a low one"),
    "reversed-surrogate-pair": ('"\\ude00\\ud83d"', 1, 2, "lone surrogate '\\ude00' in a string: a low surrogate"),
    "invalid-utf8-ff": (b'"\xff"', 1, 2, "invalid UTF-8 byte 0xFF"),
    "invalid-utf8-overlong-c0-af": (b'"\xc0\xaf"', 1, 2, "invalid UTF-8 byte 0xC0"),
    "invalid-utf8-overlong-three-bytes": (b'"\xe0\x80\xaf"', 1, 2, "invalid UTF-8 sequence 0xE0 0x80 (an overlong encoding)"),
    "invalid-utf8-truncated": (b'["\xe6\x97"]', 1, 3, "cut short by byte 0x22"),
    "invalid-utf8-truncated-at-end": (b'"\xf0\x9f\x98', 1, 2, "cut short by the end of the input"),
    "invalid-utf8-lone-continuation": (b'"a\x80"', 1, 3, "invalid UTF-8 byte 0x80"),
    "invalid-utf8-encoded-surrogate": (b'"\xed\xa0\x80"', 1, 2, "an encoded UTF-16 surrogate"),
    "invalid-utf8-above-max": (b'"\xf4\x90\x80\x80"', 1, 2, "above U+10FFFF"),
    "invalid-utf8-outside-string": (b"[1, \xff]", 1, 5, "found invalid UTF-8 byte 0xFF"),
    "invalid-utf8-in-key": (b'{"k\xfe": 1}', 1, 4, "invalid UTF-8 byte 0xFE"),
    "leading-zero": ("[01]", 1, 2, "leading zeros are not allowed in JSON numbers: '01'"),
    "negative-leading-zero": ("-012", 1, 1, "leading zeros are not allowed in JSON numbers: '-012'"),
    "decimal-point-without-digits": ("1.", 1, 3, "expected a digit after the decimal point in '1.', found the end of the input"),
    "leading-decimal-point": (".5", 1, 1, "a JSON number needs a digit before its decimal point: '.5' (write '0.5')"),
    "plus-sign": ("+1", 1, 1, "a JSON number cannot start with '+'"),
    "minus-only": ("-", 1, 2, "expected a digit after '-', found the end of the input"),
    "exponent-without-digits": ("1e", 1, 3, "expected a digit in the exponent of '1e'"),
    "exponent-sign-only": ("[1e+]", 1, 5, "expected a digit in the exponent of '1e+', found ']'"),
    "hex-number": ("0x1F", 1, 1, "hexadecimal numbers are not allowed in JSON: '0x1F'"),
    "nan": ("NaN", 1, 1, "'NaN' is not a JSON value; JSON has no NaN or Infinity"),
    "infinity": ("[Infinity]", 1, 2, "'Infinity' is not a JSON value"),
    "negative-infinity": ("-Infinity", 1, 1, "'-Infinity' is not a JSON value"),
    "misspelt-true": ("tru", 1, 1, "invalid literal 'tru' (did you mean 'true'?)"),
    "misspelt-null-in-object": ('{"a": nul}', 1, 7, "invalid literal 'nul' (did you mean 'null'?)"),
    "capitalised-true": ("True", 1, 1, "JSON literals are lower-case: 'true'"),
    "literal-with-suffix": ("[truex]", 1, 2, "invalid literal 'truex'"),
    "python-none": ("None", 1, 1, "'None' is not a JSON value (did you mean 'null'?)"),
    "column-counts-unicode-scalars": ('{"日本": tru}', 1, 8, "invalid literal 'tru'"),
    "error-path-in-nested-rows": ('[\n  {"rows": [\n    {"x": tru}\n  ]}\n]\n', 3, 11,
        "line 3, column 11 (at $[0].rows[0]): invalid literal 'tru'"),
    "error-path-quoted-key": ('{"a b": [1,]}', 1, 12, "(at $[\"a b\"])"),
    "nested-513": ("[" * 513 + "]" * 513, 1, 513, "nesting exceeds the limit of 512 levels"),
    "nested-10000": ("[" * 10000 + "]" * 10000, 1, 513, "nesting exceeds the limit of 512 levels"),
}

for name, content in valid.items():
    with open(os.path.join(root, "valid", name + ".json"), "wb") as f:
        f.write(b(content))
rows = ["file\tline\tcolumn\tmessage-substring"]
for name, (content, line, column, sub) in invalid.items():
    assert "\t" not in sub and "\n" not in sub
    with open(os.path.join(root, "invalid", name + ".json"), "wb") as f:
        f.write(b(content))
    rows.append(f"invalid/{name}.json\t{line}\t{column}\t{sub}")
with open(os.path.join(root, "expected.tsv"), "w") as f:
    f.write("\n".join(rows) + "\n")
print(len(valid), "valid,", len(invalid), "invalid")
