# Configurations nginx -t refuses: the message names the directive, what is wrong, the file
# and the line (the runner checks the last two). Run by t/test_module.py (class Cases),
# format in t/nginx_cases.py.

=== TEST 1: an unknown set names the word and what is expected
--- config
    pctenc_encode $x nosuchset $arg_v;
--- must_die
--- error_log
invalid "pctenc_encode": unknown word `nosuchset`
expected space_as_plus
rfc3986, component

=== TEST 2: pctenc_validate: an unknown set
--- config
    pctenc_validate $x nosuchset $arg_v;
--- must_die
--- error_log
invalid "pctenc_validate": unknown word `nosuchset`

=== TEST 3: an unknown mode
--- config
    pctenc_decode $x sloppy $arg_v;
--- must_die
--- error_log
invalid "pctenc_decode": unknown word `sloppy`
expected strict

=== TEST 4: an unknown word after the value
--- config
    pctenc_decode $x strict $arg_v bogus;
--- must_die
--- error_log
invalid "pctenc_decode": unknown word `bogus`

=== TEST 5: a contradiction names both words: lossy and utf8=strict
--- config
    pctenc_decode $x lossy $arg_v utf8=strict;
--- must_die
--- error_log
`utf8=strict` contradicts `lossy`

=== TEST 6: utf8=strict and utf8=lossy
--- config
    pctenc_decode $x strict $arg_v utf8=strict utf8=lossy;
--- must_die
--- error_log
`utf8=lossy` contradicts `utf8=strict`

=== TEST 7: strict and lenient
--- config
    pctenc_decode $x strict $arg_v lenient;
--- must_die
--- error_log
`lenient` contradicts `strict`

=== TEST 8: a repeat names the word
--- config
    pctenc_decode $x plus $arg_v plus;
--- must_die
--- error_log
`plus` repeats `plus`

=== TEST 9: a repeated encoder word
--- config
    pctenc_encode $x form $arg_v space_as_plus space_as_plus;
--- must_die
--- error_log
`space_as_plus` repeats `space_as_plus`

=== TEST 10: two sets
--- config
    pctenc_encode $x form $arg_v component;
--- must_die
--- error_log
`component` contradicts `form`

=== TEST 11: a decoder's word given to an encoder
--- config
    pctenc_encode $x form $arg_v plus;
--- must_die
--- error_log
unknown word `plus`

=== TEST 12: nginx's own read-only variables are said to be read-only: $uri
--- config
    pctenc_decode $uri strict $arg_v;
--- must_die
--- error_log
"pctenc_decode": $uri is read-only

=== TEST 13: and $host
--- config
    pctenc_encode $host component $arg_v;
--- must_die
--- error_log
"pctenc_encode": $host is read-only

=== TEST 14: a missing value
--- config
    pctenc_encode $x component;
--- must_die
--- error_log
"pctenc_encode" needs a variable, a set and a value

=== TEST 15: a destination that is not a variable
--- config
    pctenc_encode x component $arg_v;
--- must_die
--- error_log
invalid variable name "x"

=== TEST 16: pctenc_on_error takes 400, pass or empty
--- config
    pctenc_on_error 404;
--- must_die
--- error_log
invalid value "404" in "pctenc_on_error"

=== TEST 17: pctenc_validate takes no words
--- config
    pctenc_validate $x component $arg_v lowercase;
--- must_die
--- error_log
invalid number of arguments in "pctenc_validate"

=== TEST 18: pctenc_decode needs a value
--- config
    pctenc_decode $x strict;
--- must_die
--- error_log
"pctenc_decode" needs a variable, a mode and a value: pctenc_decode $dst MODE VALUE
