# What the README's security advice says, as an attacker tries it. Run by t/test_module.py
# (class Cases), format in t/nginx_cases.py.

=== TEST 1: decoding checks escapes only: ../ passes every reject_* word
--- config
    location = /t {
        pctenc_decode $file strict $arg_file utf8=strict reject_nul reject_crlf reject_slashes;
        return 200 "[$file]";
    }
--- request
GET /t?file=%2e%2e/secret.txt
--- response_body chomp
[../secret.txt]

=== TEST 2: the README's check for a plain file name refuses it
--- config
    location = /t {
        pctenc_decode $file strict $arg_file utf8=strict reject_controls reject_slashes;
        if ($file ~ "^\.|/|\x5c") { return 400; }
        return 200 "[$file]";
    }
--- request
GET /t?file=%2e%2e/secret.txt
--- error_code: 400

=== TEST 3: and a backslash
--- config
    location = /t {
        pctenc_decode $file strict $arg_file utf8=strict reject_controls reject_slashes;
        if ($file ~ "^\.|/|\x5c") { return 400; }
        return 200 "[$file]";
    }
--- request
GET /t?file=a\x5c..\x5csecret.txt
--- error_code: 400

=== TEST 4: and lets a plain name through
--- config
    location = /t {
        pctenc_decode $file strict $arg_file utf8=strict reject_controls reject_slashes;
        if ($file ~ "^\.|/|\x5c") { return 400; }
        return 200 "[$file]";
    }
--- request
GET /t?file=r%C3%A9sum%C3%A9.pdf
--- response_body chomp
[résumé.pdf]

=== TEST 5: encoding again makes / and .. inert
--- config
    location = /t {
        pctenc_decode $file strict $arg_file;
        pctenc_encode $query component "$file.pdf";
        return 200 "/files?name=$query";
    }
--- request
GET /t?file=../secret
--- response_body chomp
/files?name=..%2Fsecret.pdf

=== TEST 6: lenient decoding puts CR and LF in a value
--- config
    location = /t {
        pctenc_decode $d lenient $arg_v;
        return 200 "[$d]";
    }
--- request
GET /t?v=a%0d%0aHost:x
--- response_body_like
^\[a\r\nHost:x\]$

=== TEST 7: reject_controls refuses them
--- config
    location = /t {
        pctenc_decode $d strict $arg_v reject_controls;
        return 200 "[$d]";
    }
--- request
GET /t?v=a%0d%0aHost:x
--- error_code: 400
--- error_log
pctenc_decode $d: rejected byte: an escape decodes to a forbidden byte (0x0D) at offset 1
