# Where a step runs and what it writes: unset and empty values, order among the rewrite
# module's directives, server-level steps, nginx's own variables as destinations, and
# subrequests. Run by t/test_module.py (class Cases), format in t/nginx_cases.py.

=== TEST 1: variables not set give the empty string
--- config
    location = /t {
        if ($arg_never) { set $maybe x; }
        pctenc_encode $out component "$maybe$arg_nothing$http_x_not_sent";
        return 200 "[$out]";
    }
--- request
GET /t
--- response_body chomp
[]

=== TEST 2: a step runs where it stands: a return before it sees its variable not set
--- config
    location = /t {
        return 200 "[$never_set_yet]";
        pctenc_encode $never_set_yet component x;
    }
--- request
GET /t
--- response_body chomp
[]

=== TEST 3: steps, set and if run in the order written
--- config
    location = /t {
        set $a "a b";
        pctenc_encode $b component $a;
        set $a "$b/c";
        pctenc_encode $c component $a;
        if ($c ~ %2520) { return 200 "if:$c"; }
        return 200 $c;
    }
--- request
GET /t
--- response_body chomp
if:a%2520b%2Fc

=== TEST 4: a step at server level runs before the location is chosen
--- config
    pctenc_encode $srv path "/server level/";
    location = /t {
        return 200 $srv;
    }
--- request
GET /t
--- response_body chomp
/server%20level/

=== TEST 5: a server-level step takes pctenc_on_error from the server, not the location
--- config
    pctenc_on_error pass;
    pctenc_decode $srv strict $arg_v;
    location = /t {
        pctenc_on_error 400;
        return 200 "[$srv]";
    }
--- request
GET /t?v=%zz
--- response_body chomp
[%zz]

=== TEST 6: a prefixed variable as the destination changes only for the steps after it
--- config
    location = /t {
        set $before "$arg_q";
        pctenc_decode $arg_q lenient $arg_q;
        return 200 "[$before][$arg_q][$args]";
    }
--- request
GET /t?q=a%2541
--- response_body chomp
[a%2541][a%41][q=a%2541]

=== TEST 7: $args as the destination is set through its handler, as set does
--- config
    location = /t {
        pctenc_encode $args component "a b&c";
        return 200 "[$args][$query_string]";
    }
--- request
GET /t?x=1
--- response_body chomp
[a%20b%26c][a%20b%26c]

=== TEST 8: a subrequest writes its parent's destination (SSI include)
--- config
    location = /page {
        ssi on;
        ssi_types text/plain;
        pctenc_decode $q strict $arg_q;
        return 200 '[<!--# echo var="q" -->] <!--# include virtual="/inner?q=inner%21" wait="yes" --> [<!--# echo var="q" -->]';
    }
    location = /inner {
        pctenc_decode $q strict $arg_q;
        return 200 "inner=[$q]";
    }
--- request
GET /page?q=outer%3F
--- response_body chomp
[outer?] inner=[inner!] [inner!]

=== TEST 9: a destination of its own in the subrequest leaves the parent's alone
--- config
    location = /page {
        ssi on;
        ssi_types text/plain;
        pctenc_decode $q strict $arg_q;
        return 200 '[<!--# echo var="q" -->] <!--# include virtual="/inner?q=inner%21" wait="yes" --> [<!--# echo var="q" -->]';
    }
    location = /inner {
        pctenc_decode $inner_q strict $arg_q;
        return 200 "inner=[$inner_q]";
    }
--- request
GET /page?q=outer%3F
--- response_body chomp
[outer?] inner=[inner!] [outer?]

=== TEST 10: a strict error inside auth_request reaches the client as 500
# (the subrequest has no arguments of its own: the value comes in a header, which it shares)
--- config
    location = /t {
        # auth_request runs in the access phase, after the rewrite phase's `return`:
        # the content comes from a content handler.
        auth_request /auth;
        empty_gif;
    }
    location = /auth {
        internal;
        pctenc_decode $auth_q strict $http_x_q;
        return 204;
    }
--- request
GET /t
--- more_headers
X-Q: %zz
--- error_code: 500
--- error_log
pctenc_decode $auth_q: invalid percent-escape: `%` not followed by two hex digits at offset 0
auth request unexpected status: 400

=== TEST 11: the way round: pass, then return what is meant
--- config
    location = /t {
        # auth_request runs in the access phase, after the rewrite phase's `return`:
        # the content comes from a content handler.
        auth_request /auth;
        empty_gif;
    }
    location = /auth {
        internal;
        pctenc_on_error pass;
        pctenc_decode $auth_q strict $http_x_q;
        if ($pctenc_error) { return 403; }
        return 204;
    }
--- request
GET /t
--- more_headers
X-Q: %zz
--- error_code: 403

=== TEST 12: and a value that decodes is let through
--- config
    location = /t {
        auth_request /auth;
        empty_gif;
    }
    location = /auth {
        internal;
        pctenc_on_error pass;
        pctenc_decode $auth_q strict $http_x_q;
        if ($pctenc_error) { return 403; }
        return 204;
    }
--- request
GET /t
--- more_headers
X-Q: caf%C3%A9
--- error_code: 200

=== TEST 13: $pctenc_error is the request's last error: a parent's passed error fails a bare check
# (why the README's way round checks the step's own variable name, below)
--- config
    location = /t {
        pctenc_on_error pass;
        pctenc_decode $q strict $arg_q;
        auth_request /auth;
        empty_gif;
    }
    location = /auth {
        internal;
        pctenc_on_error pass;
        pctenc_decode $auth_q strict $http_x_q;
        if ($pctenc_error) { return 403; }
        return 204;
    }
--- request
GET /t?q=%zz
--- more_headers
X-Q: caf%C3%A9
--- error_code: 403

=== TEST 14: checking that the last error is the subrequest's own step lets a good value through
--- config
    location = /t {
        pctenc_on_error pass;
        pctenc_decode $q strict $arg_q;
        auth_request /auth;
        empty_gif;
    }
    location = /auth {
        internal;
        pctenc_on_error pass;
        pctenc_decode $auth_q strict $http_x_q;
        if ($pctenc_error ~ "^\$auth_q: ") { return 403; }
        return 204;
    }
--- request
GET /t?q=%zz
--- more_headers
X-Q: caf%C3%A9
--- error_code: 200

=== TEST 15: and refuses a bad one
--- config
    location = /t {
        pctenc_on_error pass;
        pctenc_decode $q strict $arg_q;
        auth_request /auth;
        empty_gif;
    }
    location = /auth {
        internal;
        pctenc_on_error pass;
        pctenc_decode $auth_q strict $http_x_q;
        if ($pctenc_error ~ "^\$auth_q: ") { return 403; }
        return 204;
    }
--- request
GET /t?q=%zz
--- more_headers
X-Q: %zz
--- error_code: 403
