# pctenc_decode: what each word does to a request's value, and what an error does.
# Run by t/test_module.py (class Cases); the format is described in t/nginx_cases.py.

=== TEST 1: escapes are decoded, a raw byte is kept
--- config
    location = /t {
        pctenc_decode $out strict $arg_v;
        return 200 "[$out]";
    }
--- request
GET /t?v=caf%C3%A9%20au%2Blait+x
--- response_body chomp
[café au+lait+x]

=== TEST 2: plus decodes + as a space
--- config
    location = /t {
        pctenc_decode $out strict $arg_v plus;
        return 200 "[$out]";
    }
--- request
GET /t?v=a+b%2Bc
--- response_body chomp
[a b+c]

=== TEST 3: a bad escape ends the request with 400, and the log names the variable and offset
--- config
    location = /t {
        pctenc_decode $out strict $arg_v;
        return 200 "[$out]";
    }
--- request
GET /t?v=caf%zz
--- error_code: 400
--- error_log
pctenc_decode $out: invalid percent-escape: `%` not followed by two hex digits at offset 3

=== TEST 4: pctenc_on_error pass keeps the value as it was, and $pctenc_error says why
--- config
    location = /t {
        pctenc_on_error pass;
        pctenc_decode $out strict $arg_v;
        return 200 "[$out][$pctenc_error]";
    }
--- request
GET /t?v=caf%zz
--- response_body chomp
[caf%zz][$out: invalid percent-escape: `%` not followed by two hex digits at offset 3]

=== TEST 5: pctenc_on_error empty empties it
--- config
    location = /t {
        pctenc_on_error empty;
        pctenc_decode $out strict $arg_v reject_slashes;
        return 200 "[$out][$pctenc_error]";
    }
--- request
GET /t?v=a%2Fb
--- response_body chomp
[][$out: rejected byte: an escape decodes to a forbidden byte (0x2F) at offset 1]

=== TEST 6: lenient copies a % that starts no escape
--- config
    location = /t {
        pctenc_decode $out lenient $arg_v;
        return 200 "[$out]";
    }
--- request
GET /t?v=100%25%zz%4
--- response_body chomp
[100%%zz%4]

=== TEST 7: utf8=strict refuses decoded bytes that are not UTF-8
--- config
    location = /t {
        pctenc_on_error pass;
        pctenc_decode $out strict $arg_v utf8=strict;
        return 200 "[$pctenc_error]";
    }
--- request
GET /t?v=caf%E9
--- response_body chomp
[$out: decoded bytes are not valid UTF-8 at offset 3]

=== TEST 8: lossy is UTF-8 only: each invalid sequence becomes U+FFFD, escapes stay strict
--- config
    location = /t {
        pctenc_on_error pass;
        pctenc_decode $out strict $arg_v lossy;
        return 200 "[$out]";
    }
--- request
GET /t?v=caf%E9
--- response_body chomp
[caf�]

=== TEST 9: reject_controls refuses %0b, %1b and %7f too
--- config
    location = /t {
        pctenc_on_error pass;
        pctenc_decode $out strict $arg_v reject_controls;
        return 200 "[$pctenc_error]";
    }
--- request
GET /t?v=ab%7f
--- response_body chomp
[$out: rejected byte: an escape decodes to a forbidden byte (0x7F) at offset 2]

=== TEST 10: reject_slashes checks what escapes decode to, not raw bytes
--- config
    location = /t {
        pctenc_on_error pass;
        pctenc_decode $out strict $arg_v reject_slashes;
        return 200 "[$out][$pctenc_error]";
    }
--- request
GET /t?v=../a/%2e%2e
--- response_body chomp
[../a/..][]

=== TEST 11: the overlong %C0%AF passes reject_slashes alone (two bytes, neither /)
--- config
    location = /t {
        pctenc_on_error pass;
        pctenc_decode $out strict $arg_v reject_slashes;
        return 200 "[$pctenc_error]";
    }
--- request
GET /t?v=a%C0%AFb
--- response_body chomp
[]

=== TEST 12: and utf8=strict refuses it
--- config
    location = /t {
        pctenc_on_error pass;
        pctenc_decode $out strict $arg_v reject_slashes utf8=strict;
        return 200 "[$pctenc_error]";
    }
--- request
GET /t?v=a%C0%AFb
--- response_body chomp
[$out: decoded bytes are not valid UTF-8 at offset 1]

=== TEST 13: legacy_u decodes %uHHHH
--- config
    location = /t {
        pctenc_decode $out lenient $arg_v legacy_u;
        return 200 "[$out]";
    }
--- request
GET /t?v=caf%u00E9
--- response_body chomp
[café]

=== TEST 14: keep_encoded=uri_reserved keeps the escapes of reserved characters as written
--- config
    location = /t {
        pctenc_decode $out strict $arg_v keep_encoded=uri_reserved;
        return 200 "[$out]";
    }
--- request
GET /t?v=a%2fb%3Fc%41
--- response_body chomp
[a%2fb%3FcA]

=== TEST 15: words ignore case
--- config
    location = /t {
        pctenc_decode $out Lenient $arg_v PLUS UTF8=Lossy;
        return 200 "[$out]";
    }
--- request
GET /t?v=a+%zz
--- response_body chomp
[a %zz]

=== TEST 16: a value that looks like the test build's fault hook is only a value here
--- config
    location = /t {
        pctenc_encode $out component $arg_v;
        pctenc_decode $back strict $out;
        return 200 "[$out][$back]";
    }
--- request
GET /t?v=fault:encode=4
--- response_body chomp
[fault%3Aencode%3D4][fault:encode=4]
--- no_error_log
[alert]
