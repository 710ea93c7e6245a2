# $pctenc_error: which step failed, what and where; kept across error_page's internal
# redirect; not cacheable. Run by t/test_module.py (class Cases), format in t/nginx_cases.py.

=== TEST 1: two steps that pass their errors: the variable names the one that failed
--- config
    location = /t {
        pctenc_on_error pass;
        pctenc_decode $first strict $arg_a;
        pctenc_decode $second strict $arg_b;
        return 200 "[$pctenc_error]";
    }
--- request
GET /t?a=ok&b=x%4
--- response_body chomp
[$second: truncated percent-escape: `%` needs two hex digits at offset 1]

=== TEST 2: empty when no step failed
--- config
    location = /t {
        pctenc_on_error pass;
        pctenc_decode $first strict $arg_a;
        return 200 "[$pctenc_error]";
    }
--- request
GET /t?a=%41
--- response_body chomp
[]

=== TEST 3: the last error: a later step that succeeds does not clear it
--- config
    location = /t {
        pctenc_on_error pass;
        pctenc_decode $first strict $arg_a;
        pctenc_decode $second strict $arg_b;
        return 200 "[$pctenc_error]";
    }
--- request
GET /t?a=%zz&b=ok
--- response_body chomp
[$first: invalid percent-escape: `%` not followed by two hex digits at offset 0]

=== TEST 4: not cacheable: a read before the step does not fix the value a later read sees
--- config
    location = /t {
        pctenc_on_error pass;
        set $before "[$pctenc_error]";
        pctenc_decode $d strict $arg_v;
        return 200 "$before[$pctenc_error]";
    }
--- request
GET /t?v=%zz
--- response_body chomp
[][$d: invalid percent-escape: `%` not followed by two hex digits at offset 0]

=== TEST 5: a volatile map over it sees the value as it is when the map is read
--- http_config
    map $pctenc_error $failed {
        volatile;
        ""       no;
        default  yes;
    }
--- config
    location = /t {
        pctenc_on_error pass;
        set $before $failed;
        pctenc_decode $d strict $arg_v;
        return 200 "$before $failed";
    }
--- request
GET /t?v=%zz
--- response_body chomp
no yes

=== TEST 6: a map that is not volatile keeps what it gave at its first read (say volatile)
--- http_config
    map $pctenc_error $failed {
        ""       no;
        default  yes;
    }
--- config
    location = /t {
        pctenc_on_error pass;
        set $before $failed;
        pctenc_decode $d strict $arg_v;
        return 200 "$before $failed";
    }
--- request
GET /t?v=%zz
--- response_body chomp
no no

=== TEST 7: error_page's internal redirect keeps it
--- config
    location = /t {
        error_page 400 = /showerr;
        pctenc_decode $d strict $arg_q;
        return 200 ok;
    }
    location = /showerr {
        return 200 "err=[$pctenc_error]";
    }
--- request
GET /t?q=a%zz
--- response_body chomp
err=[$d: invalid percent-escape: `%` not followed by two hex digits at offset 1]

=== TEST 8: nothing is logged when nothing fails
--- config
    location = /t {
        pctenc_decode $d strict $arg_q;
        return 200 "[$d]";
    }
--- request
GET /t?q=a%41
--- response_body chomp
[aA]
--- no_error_log
pctenc_decode
[alert]
