/*
 * ngx_http_pctenc_module: percent-encoding directives for nginx, over libpctenc
 * (the C API of pctenc). The module does no escaping of its own: every byte
 * goes through pctenc.
 *
 *   pctenc_encode    $dst SET VALUE [space_as_plus] [lowercase] [requote]
 * [iri]; (SET and the options are read by libpctenc's word parser)
 *   pctenc_decode    $dst MODE VALUE [WORD ...];   # the words of
 * docs/WORDS.md: strict | lenient, plus, utf8=bytes|strict|lossy (lossy),
 * legacy_u, reject_nul|controls|crlf|slashes|all, keep_encoded=SET
 *   pctenc_normalize $dst VALUE;
 *   pctenc_validate  $dst SET VALUE;          # "1" or "0"
 *   pctenc_on_error  400 | pass | empty;      # a strict decoding error
 *   $pctenc_error                             # the last error: message and
 * offset
 *
 * The directives run in the rewrite phase, in the order of the configuration
 * among `set`, `if` and `return`, as the rewrite module's own `set` and
 * set-misc's directives do: each adds a step to the rewrite module's script
 * (the codes of its location configuration), which evaluates VALUE (a complex
 * value: text and variables), runs pctenc on it, and stores the result in $dst.
 * That script is the rewrite module's, whose configuration struct nginx does
 * not publish; its layout (below) has been the same since nginx 0.7, and the
 * Nginx Development Kit relies on it the same way.
 *
 * Memory: each result is one allocation from the request's pool, of the size
 * the writing function itself reports (pctenc_encode with no room gives the
 * size it will write), so the size and the write cannot disagree. The encoders
 * and decoders are built once, when the configuration is read, and shared by
 * every worker's requests (they are immutable).
 */
#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "pctenc.h"

/* ngx_http_rewrite_module's location configuration
 * (src/http/modules/ngx_http_rewrite_module.c). */
typedef struct {
    ngx_array_t *codes; /* uintptr_t */
    ngx_uint_t   stack_size;
    ngx_flag_t   log;
    ngx_flag_t   uninitialized_variable_warn;
} ngx_http_pctenc_rewrite_loc_conf_t;

extern ngx_module_t ngx_http_rewrite_module;

typedef enum {
    PCTENC_OP_ENCODE,
    PCTENC_OP_DECODE,
    PCTENC_OP_NORMALIZE,
    PCTENC_OP_VALIDATE
} ngx_http_pctenc_op_e;

#define NGX_HTTP_PCTENC_ON_ERROR_400   1
#define NGX_HTTP_PCTENC_ON_ERROR_PASS  2
#define NGX_HTTP_PCTENC_ON_ERROR_EMPTY 3

typedef struct {
    ngx_uint_t on_error;
} ngx_http_pctenc_loc_conf_t;

/* The module's main configuration: $pctenc_error's index in r->variables. It
 * belongs to one configuration: a reload that fails leaves the running one's as
 * it was. */
typedef struct {
    ngx_int_t error_index;
} ngx_http_pctenc_main_conf_t;

/* One directive: what to run, on what, for which variable. */
typedef struct {
    ngx_http_pctenc_op_e     op;
    ngx_http_complex_value_t value;
    ngx_str_t                variable; /* "$name", for the error log */
    ngx_str_t       file; /* the directive's file and line, for the error log */
    ngx_uint_t      line;
    pctenc_encoder *enc;
    pctenc_decoder *dec;
    ngx_http_pctenc_loc_conf_t
        *conf; /* where pctenc_on_error is read, once merged */
} ngx_http_pctenc_step_t;

/* The script code the rewrite module runs: evaluates a step and pushes its
 * result. */
typedef struct {
    ngx_http_script_code_pt code;
    ngx_http_pctenc_step_t *step;
} ngx_http_pctenc_code_t;

static char     *ngx_http_pctenc_directive(ngx_conf_t *cf, ngx_command_t *cmd,
                                           void *conf);
static char     *ngx_http_pctenc_on_error(ngx_conf_t *cf, ngx_command_t *cmd,
                                          void *conf);
static void     *ngx_http_pctenc_create_main_conf(ngx_conf_t *cf);
static void     *ngx_http_pctenc_create_loc_conf(ngx_conf_t *cf);
static char     *ngx_http_pctenc_merge_loc_conf(ngx_conf_t *cf, void *parent,
                                                void *child);
static ngx_int_t ngx_http_pctenc_add_variables(ngx_conf_t *cf);

static ngx_command_t ngx_http_pctenc_commands[] = {
    {ngx_string("pctenc_encode"),
     NGX_HTTP_SRV_CONF | NGX_HTTP_SIF_CONF | NGX_HTTP_LOC_CONF |
         NGX_HTTP_LIF_CONF | NGX_CONF_2MORE,
     ngx_http_pctenc_directive, NGX_HTTP_LOC_CONF_OFFSET, PCTENC_OP_ENCODE,
     NULL},
    {ngx_string("pctenc_decode"),
     NGX_HTTP_SRV_CONF | NGX_HTTP_SIF_CONF | NGX_HTTP_LOC_CONF |
         NGX_HTTP_LIF_CONF | NGX_CONF_2MORE,
     ngx_http_pctenc_directive, NGX_HTTP_LOC_CONF_OFFSET, PCTENC_OP_DECODE,
     NULL},
    {ngx_string("pctenc_normalize"),
     NGX_HTTP_SRV_CONF | NGX_HTTP_SIF_CONF | NGX_HTTP_LOC_CONF |
         NGX_HTTP_LIF_CONF | NGX_CONF_TAKE2,
     ngx_http_pctenc_directive, NGX_HTTP_LOC_CONF_OFFSET, PCTENC_OP_NORMALIZE,
     NULL},
    {ngx_string("pctenc_validate"),
     NGX_HTTP_SRV_CONF | NGX_HTTP_SIF_CONF | NGX_HTTP_LOC_CONF |
         NGX_HTTP_LIF_CONF | NGX_CONF_TAKE3,
     ngx_http_pctenc_directive, NGX_HTTP_LOC_CONF_OFFSET, PCTENC_OP_VALIDATE,
     NULL},
    {ngx_string("pctenc_on_error"),
     NGX_HTTP_MAIN_CONF | NGX_HTTP_SRV_CONF | NGX_HTTP_LOC_CONF |
         NGX_CONF_TAKE1,
     ngx_http_pctenc_on_error, NGX_HTTP_LOC_CONF_OFFSET, 0, NULL},
    ngx_null_command};

static ngx_http_module_t ngx_http_pctenc_module_ctx = {
    ngx_http_pctenc_add_variables,    /* preconfiguration */
    NULL,                             /* postconfiguration */
    ngx_http_pctenc_create_main_conf, /* create main configuration */
    NULL,                             /* init main configuration */
    NULL,                             /* create server configuration */
    NULL,                             /* merge server configuration */
    ngx_http_pctenc_create_loc_conf,  /* create location configuration */
    ngx_http_pctenc_merge_loc_conf    /* merge location configuration */
};

ngx_module_t ngx_http_pctenc_module = {NGX_MODULE_V1,
                                       &ngx_http_pctenc_module_ctx,
                                       ngx_http_pctenc_commands,
                                       NGX_HTTP_MODULE,
                                       NULL, /* init master */
                                       NULL, /* init module */
                                       NULL, /* init process */
                                       NULL, /* init thread */
                                       NULL, /* exit thread */
                                       NULL, /* exit process */
                                       NULL, /* exit master */
                                       NGX_MODULE_V1_PADDING};

/* Where the script stops: the rewrite module runs codes while the pointer at
 * `ip` is not 0. */
static uintptr_t ngx_http_pctenc_exit_code = 0;

static ngx_str_t ngx_http_pctenc_error_name = ngx_string("pctenc_error");

/* $pctenc_error is kept in its slot of r->variables, which an internal redirect
 * (error_page 400 ...) keeps, where it clears the modules' request contexts;
 * its index is in the main configuration. */

static const char *ngx_http_pctenc_op_name[] = {
    "pctenc_encode", "pctenc_decode", "pctenc_normalize", "pctenc_validate"};

#if (NGX_HTTP_PCTENC_FAULTS)

/* Test builds only (build.sh with PCTENC_NGINX_FAULTS=1; t/test_module.py's
 * Faults): a VALUE of "fault:CALL=N" makes libpctenc's CALL (validate,
 * encode-size, encode, decode, normalize) return status N (as ngx_atoi reads
 * it, cast), and "fault:CALL=overrun" makes encode, decode or normalize report
 * one byte more written than it was given, so that the tests reach the paths
 * no real input reaches. */
static pctenc_status
ngx_http_pctenc_fault(ngx_str_t *src, const char *call, pctenc_status st,
                      size_t size, size_t *written)
{
    size_t  len = ngx_strlen(call);
    u_char *p = src->data, *end = src->data + src->len;

    if ((size_t) (end - p) < sizeof("fault:") - 1 + len + 1 ||
        ngx_strncmp(p, "fault:", sizeof("fault:") - 1) != 0) {
        return st;
    }
    p += sizeof("fault:") - 1;
    if (ngx_strncmp(p, call, len) != 0 || p[len] != '=') {
        return st;
    }
    p += len + 1;
    if ((size_t) (end - p) == sizeof("overrun") - 1 &&
        ngx_strncmp(p, "overrun", sizeof("overrun") - 1) == 0) {
        if (written != NULL) {
            *written = size + 1;
        }
        return PCTENC_OK;
    }
    return (pctenc_status) ngx_atoi(p, end - p);
}

#define ngx_http_pctenc_fault_status(src, call, st, size, written) \
    ngx_http_pctenc_fault(src, call, st, size, written)

#else

#define ngx_http_pctenc_fault_status(src, call, st, size, written) (st)

#endif

/* Logs an unexpected status of libpctenc by name, with the directive's file and
 * line. */
static void
ngx_http_pctenc_log_status(ngx_http_request_t *r, ngx_http_pctenc_step_t *step,
                           const char *call, pctenc_status st)
{
    ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                  "%s %V in %V:%ui: %s: %s", ngx_http_pctenc_op_name[step->op],
                  &step->variable, &step->file, step->line, call,
                  pctenc_status_str(st));
}

/* -------------------------------------------------------------------------
 * Running a step. */

/* Records `message at offset N` as the request's error ($pctenc_error), and
 * logs it with the variable's name. */
static void
ngx_http_pctenc_fail(ngx_http_request_t *r, ngx_http_pctenc_step_t *step,
                     const pctenc_error *err)
{
    ngx_http_pctenc_main_conf_t *pmcf =
        ngx_http_get_module_main_conf(r, ngx_http_pctenc_module);
    const char *what = err->status == PCTENC_INVALID_INPUT
                           ? pctenc_error_kind_str(err->kind)
                           : pctenc_status_str(err->status);
    /* "$dst: message (0xHH) at offset N": which step failed, what, where. */
    size_t cap = step->variable.len + sizeof(": ") - 1 + ngx_strlen(what) +
                 sizeof(" (0xHH) at offset ") - 1 + NGX_SIZE_T_LEN;
    u_char *p = ngx_pnalloc(r->pool, cap), *end = p;
    if (p != NULL) {
        end = err->kind == PCTENC_KIND_FORBIDDEN_BYTE
                  ? ngx_snprintf(p, cap, "%V: %s (0x%02Xd) at offset %uz",
                                 &step->variable, what, (int) err->byte,
                                 err->offset)
                  : ngx_snprintf(p, cap, "%V: %s at offset %uz",
                                 &step->variable, what, err->offset);
        if (pmcf->error_index != NGX_ERROR) {
            ngx_http_variable_value_t *v = &r->variables[pmcf->error_index];
            v->data = p;
            v->len = end - p;
            v->valid = 1;
            v->no_cacheable = 1;
            v->not_found = 0;
            v->escape = 0;
        }
    }
    ngx_log_error(NGX_LOG_INFO, r->connection->log, 0, "pctenc_decode %*s",
                  (size_t) (end - p), p);
}

/* Runs `step` on `src` into `out` (from the request's pool). NGX_OK;
 * NGX_DECLINED for a decoding error (recorded and logged); NGX_ERROR when
 * memory runs out. */
static ngx_int_t
ngx_http_pctenc_run(ngx_http_request_t *r, ngx_http_pctenc_step_t *step,
                    ngx_str_t *src, ngx_str_t *out)
{
    pctenc_error  err;
    size_t        size = 0, written = 0;
    pctenc_status st;

    switch (step->op) {
    case PCTENC_OP_VALIDATE:
        st = pctenc_validate(step->enc, src->data, src->len, NULL);
        st = ngx_http_pctenc_fault_status(src, "validate", st, 0, NULL);
        if (st != PCTENC_OK && st != PCTENC_INVALID_INPUT) {
            ngx_http_pctenc_log_status(r, step, "pctenc_validate", st);
            return NGX_ERROR;
        }
        out->len = 1;
        out->data = (u_char *) (st == PCTENC_OK ? "1" : "0");
        return NGX_OK;

    case PCTENC_OP_ENCODE:
        /* The size from the function that writes: with no room it reports what
         * it needs. */
        st =
            pctenc_encode(step->enc, src->data, src->len, NULL, 0, &size, NULL);
        st = ngx_http_pctenc_fault_status(src, "encode-size", st, 0, NULL);
        if (st != PCTENC_OK && st != PCTENC_BUFFER_TOO_SMALL) {
            ngx_http_pctenc_log_status(r, step, "pctenc_encode (size)", st);
            return NGX_ERROR;
        }
        break;

    case PCTENC_OP_DECODE:
        /* A bound without reading the input: its length (three times it when
         * lossy). */
        size = pctenc_decoded_len_max(step->dec, src->len);
        if (size == SIZE_MAX) {
            ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                          "pctenc_decode %V in %V:%ui: pctenc_decoded_len_max: "
                          "no bound for %uz bytes",
                          &step->variable, &step->file, step->line, src->len);
            return NGX_ERROR;
        }
        break;

    case PCTENC_OP_NORMALIZE:
        size = src->len; /* never longer */
        break;
    }

    out->data = ngx_pnalloc(r->pool, size ? size : 1);
    if (out->data == NULL) {
        ngx_log_error(NGX_LOG_ERR, r->connection->log, 0,
                      "%s %V in %V:%ui: no memory for %uz bytes",
                      ngx_http_pctenc_op_name[step->op], &step->variable,
                      &step->file, step->line, size);
        return NGX_ERROR;
    }

    switch (step->op) {
    case PCTENC_OP_ENCODE:
        st = pctenc_encode(step->enc, src->data, src->len, out->data, size,
                           &written, &err);
        st = ngx_http_pctenc_fault_status(src, "encode", st, size, &written);
        break;
    case PCTENC_OP_DECODE:
        st = pctenc_decode(step->dec, src->data, src->len, out->data, size,
                           &written, &err);
        st = ngx_http_pctenc_fault_status(src, "decode", st, size, &written);
        if (st == PCTENC_INVALID_INPUT) {
            ngx_http_pctenc_fail(r, step, &err);
            return NGX_DECLINED;
        }
        break;
    default:
        st = pctenc_normalize(src->data, src->len, out->data, size, &written,
                              &err);
        st = ngx_http_pctenc_fault_status(src, "normalize", st, size, &written);
        break;
    }
    if (st != PCTENC_OK) {
        ngx_http_pctenc_log_status(
            r, step,
            step->op == PCTENC_OP_ENCODE   ? "pctenc_encode"
            : step->op == PCTENC_OP_DECODE ? "pctenc_decode"
                                           : "pctenc_normalize",
            st);
        return NGX_ERROR;
    }
    /* What libpctenc says it wrote is trusted only within what it was given. */
    if (written > size) {
        ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                      "%s %V in %V:%ui: %uz bytes written in %uz",
                      ngx_http_pctenc_op_name[step->op], &step->variable,
                      &step->file, step->line, written, size);
        return NGX_ERROR;
    }
    out->len = written;
    return NGX_OK;
}

/* The script code: pushes the step's result for the
 * ngx_http_script_set_var_code after it, or ends the script with 400 (or 500)
 * as configured. */
static void
ngx_http_pctenc_code(ngx_http_script_engine_t *e)
{
    ngx_http_pctenc_code_t *code = (ngx_http_pctenc_code_t *) e->ip;
    ngx_http_pctenc_step_t *step = code->step;
    ngx_http_request_t     *r = e->request;
    ngx_str_t               src, out;
    ngx_int_t               rc;

    e->ip += sizeof(ngx_http_pctenc_code_t);

    if (ngx_http_complex_value(r, &step->value, &src) != NGX_OK) {
        ngx_log_error(NGX_LOG_ERR, r->connection->log, 0,
                      "%s %V in %V:%ui: VALUE could not be evaluated",
                      ngx_http_pctenc_op_name[step->op], &step->variable,
                      &step->file, step->line);
        rc = NGX_ERROR;
    } else {
        rc = ngx_http_pctenc_run(r, step, &src, &out);
    }

    if (rc == NGX_DECLINED) {
        switch (step->conf->on_error) {
        case NGX_HTTP_PCTENC_ON_ERROR_PASS:
            out = src;
            rc = NGX_OK;
            break;
        case NGX_HTTP_PCTENC_ON_ERROR_EMPTY:
            ngx_str_null(&out);
            rc = NGX_OK;
            break;
        default:
            e->ip = (u_char *) &ngx_http_pctenc_exit_code;
            e->status = NGX_HTTP_BAD_REQUEST;
            return;
        }
    }
    if (rc != NGX_OK) {
        /* Logged where it happened, by name. */
        e->ip = (u_char *) &ngx_http_pctenc_exit_code;
        e->status = NGX_HTTP_INTERNAL_SERVER_ERROR;
        return;
    }

    e->sp->data = out.data;
    e->sp->len = out.len;
    e->sp->valid = 1;
    e->sp->no_cacheable = 0;
    e->sp->not_found = 0;
    e->sp->escape = 0;
    e->sp++;
}

/* -------------------------------------------------------------------------
 * Variables. */

/* $dst before any pctenc_* directive set it in this request: not found, so that
 * it reads as empty (`set` gives an empty value and logs a warning about an
 * uninitialized variable). */
static ngx_int_t
ngx_http_pctenc_unset_variable(ngx_http_request_t        *r,
                               ngx_http_variable_value_t *v, uintptr_t data)
{
    (void) r, (void) data;
    v->not_found = 1;
    return NGX_OK;
}

/* $pctenc_error: an error writes the variable's slot itself (`v` is that slot),
 * and this handler keeps what is there; before any error, empty. Non-cacheable,
 * so that every read sees the slot as it is now. */
static ngx_int_t
ngx_http_pctenc_error_variable(ngx_http_request_t        *r,
                               ngx_http_variable_value_t *v, uintptr_t data)
{
    (void) r, (void) data;
    if (v->data != NULL && v->len > 0) {
        v->valid = 1;
        v->no_cacheable = 1;
        return NGX_OK;
    }
    v->valid = 1;
    v->no_cacheable = 1;
    v->not_found = 0;
    v->escape = 0;
    v->len = 0;
    v->data = (u_char *) "";
    return NGX_OK;
}

static ngx_int_t
ngx_http_pctenc_add_variables(ngx_conf_t *cf)
{
    ngx_http_pctenc_main_conf_t *pmcf =
        ngx_http_conf_get_module_main_conf(cf, ngx_http_pctenc_module);
    ngx_http_variable_t *v = ngx_http_add_variable(
        cf, &ngx_http_pctenc_error_name, NGX_HTTP_VAR_NOCACHEABLE);
    if (v == NULL) {
        return NGX_ERROR;
    }
    v->get_handler = ngx_http_pctenc_error_variable;
    pmcf->error_index =
        ngx_http_get_variable_index(cf, &ngx_http_pctenc_error_name);
    return pmcf->error_index == NGX_ERROR ? NGX_ERROR : NGX_OK;
}

/* -------------------------------------------------------------------------
 * Configuration. */

static void
ngx_http_pctenc_free_encoder(void *data)
{
    pctenc_encoder_free(data);
}
static void
ngx_http_pctenc_free_decoder(void *data)
{
    pctenc_decoder_free(data);
}

static void *
ngx_http_pctenc_create_main_conf(ngx_conf_t *cf)
{
    ngx_http_pctenc_main_conf_t *conf =
        ngx_pcalloc(cf->pool, sizeof(ngx_http_pctenc_main_conf_t));
    if (conf == NULL) {
        return NULL;
    }
    conf->error_index = NGX_ERROR;
    return conf;
}

static void *
ngx_http_pctenc_create_loc_conf(ngx_conf_t *cf)
{
    ngx_http_pctenc_loc_conf_t *conf =
        ngx_pcalloc(cf->pool, sizeof(ngx_http_pctenc_loc_conf_t));
    if (conf == NULL) {
        return NULL;
    }
    conf->on_error = NGX_CONF_UNSET_UINT;
    return conf;
}

static char *
ngx_http_pctenc_merge_loc_conf(ngx_conf_t *cf, void *parent, void *child)
{
    ngx_http_pctenc_loc_conf_t *prev = parent, *conf = child;
    (void) cf;
    ngx_conf_merge_uint_value(conf->on_error, prev->on_error,
                              NGX_HTTP_PCTENC_ON_ERROR_400);
    return NGX_CONF_OK;
}

static char *
ngx_http_pctenc_on_error(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_pctenc_loc_conf_t *lcf = conf;
    ngx_str_t                  *value = cf->args->elts;
    (void) cmd;
    if (lcf->on_error != NGX_CONF_UNSET_UINT) {
        return "is duplicate";
    }
    if (ngx_strcmp(value[1].data, "400") == 0) {
        lcf->on_error = NGX_HTTP_PCTENC_ON_ERROR_400;
    } else if (ngx_strcmp(value[1].data, "pass") == 0) {
        lcf->on_error = NGX_HTTP_PCTENC_ON_ERROR_PASS;
    } else if (ngx_strcmp(value[1].data, "empty") == 0) {
        lcf->on_error = NGX_HTTP_PCTENC_ON_ERROR_EMPTY;
    } else {
        ngx_conf_log_error(
            NGX_LOG_EMERG, cf, 0,
            "invalid value \"%V\" in \"%V\": expected 400, pass or empty",
            &value[1], &value[0]);
        return NGX_CONF_ERROR;
    }
    return NGX_CONF_OK;
}

/* The words of a step, for pctenc_*_from_words: the SET or MODE argument, then
 * the options after VALUE, joined by spaces. libpctenc parses them: the module
 * knows no word itself, so that nginx, the C API, SQL, Python, the CLI and the
 * page read the same words the same way (docs/WORDS.md). */
static ngx_str_t *
ngx_http_pctenc_words(ngx_conf_t *cf, ngx_uint_t first, ngx_uint_t options)
{
    ngx_str_t *value = cf->args->elts, *words;
    ngx_uint_t i;
    size_t     len = value[first].len;
    u_char    *p;

    for (i = options; i < cf->args->nelts; i++) {
        len += 1 + value[i].len;
    }

    words = ngx_palloc(cf->temp_pool, sizeof(ngx_str_t));
    if (words == NULL) {
        return NULL;
    }

    words->data = ngx_pnalloc(cf->temp_pool, len + 1);
    if (words->data == NULL) {
        return NULL;
    }

    p = ngx_cpymem(words->data, value[first].data, value[first].len);
    for (i = options; i < cf->args->nelts; i++) {
        *p++ = ' ';
        p = ngx_cpymem(p, value[i].data, value[i].len);
    }
    words->len = p - words->data;

    return words;
}

/* Whether $name is one of nginx's variables that cannot be set ($uri, $host,
 * ...): known, and not changeable. ngx_http_add_variable() would say "duplicate
 * variable". */
static ngx_uint_t
ngx_http_pctenc_read_only(ngx_conf_t *cf, ngx_str_t *name)
{
    ngx_http_core_main_conf_t *cmcf =
        ngx_http_conf_get_module_main_conf(cf, ngx_http_core_module);
    ngx_hash_key_t      *key;
    ngx_http_variable_t *v;
    ngx_uint_t           i;

    if (cmcf->variables_keys == NULL) {
        return 0;
    }
    key = cmcf->variables_keys->keys.elts;
    for (i = 0; i < cmcf->variables_keys->keys.nelts; i++) {
        v = key[i].value;
        if (name->len == v->name.len &&
            ngx_strncasecmp(name->data, v->name.data, name->len) == 0) {
            return (v->flags & NGX_HTTP_VAR_CHANGEABLE) ? 0 : 1;
        }
    }
    return 0;
}

/* pctenc_encode, pctenc_decode, pctenc_normalize, pctenc_validate: builds the
 * step and adds it, then the assignment to $dst, to the rewrite module's script
 * here. */
static char *
ngx_http_pctenc_directive(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_str_t *value = cf->args->elts, name, *set = NULL, *mode = NULL;
    ngx_http_pctenc_op_e                op = (ngx_http_pctenc_op_e) cmd->offset;
    ngx_uint_t                          value_at = 2, min = 3;
    ngx_http_pctenc_step_t             *step;
    ngx_http_compile_complex_value_t    ccv;
    ngx_http_variable_t                *v;
    ngx_int_t                           index;
    ngx_http_pctenc_rewrite_loc_conf_t *rlcf;
    ngx_http_pctenc_code_t             *code;
    ngx_http_script_var_code_t         *vcode;
    ngx_http_script_var_handler_code_t *vhcode;
    ngx_pool_cleanup_t                 *cln;
    pctenc_error                        err;
    ngx_str_t                          *words;
    char                                why[512];

    if (op == PCTENC_OP_ENCODE || op == PCTENC_OP_VALIDATE) {
        set = &value[2];
        value_at = 3;
        min = 4;
    }
    if (op == PCTENC_OP_DECODE) {
        mode = &value[2];
        value_at = 3;
        min = 4;
    }
    if (cf->args->nelts < min) {
        ngx_conf_log_error(
            NGX_LOG_EMERG, cf, 0, "\"%V\" needs %s", &value[0],
            op == PCTENC_OP_ENCODE
                ? "a variable, a set and a value: pctenc_encode $dst SET VALUE"
            : op == PCTENC_OP_DECODE ? "a variable, a mode and a value: "
                                       "pctenc_decode $dst MODE VALUE"
            : op == PCTENC_OP_VALIDATE
                ? "a variable, a set and a value: pctenc_validate $dst SET "
                  "VALUE"
                : "a variable and a value: pctenc_normalize $dst VALUE");
        return NGX_CONF_ERROR;
    }
    if (op == PCTENC_OP_VALIDATE && cf->args->nelts > 4) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "\"%V\" takes no options",
                           &value[0]);
        return NGX_CONF_ERROR;
    }

    name = value[1];
    if (name.len < 2 || name.data[0] != '$') {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "invalid variable name \"%V\" in \"%V\"", &name,
                           &value[0]);
        return NGX_CONF_ERROR;
    }

    step = ngx_pcalloc(cf->pool, sizeof(ngx_http_pctenc_step_t));
    if (step == NULL) {
        return NGX_CONF_ERROR;
    }
    step->op = op;
    step->variable = name;
    step->file = cf->conf_file->file.name;
    step->line = cf->conf_file->line;
    step->conf = conf;

    if (set != NULL) {
        /* pctenc_validate takes no options: its words are the set alone. */
        words = ngx_http_pctenc_words(
            cf, 2, op == PCTENC_OP_ENCODE ? value_at + 1 : cf->args->nelts);
        if (words == NULL) {
            return NGX_CONF_ERROR;
        }
        if (pctenc_encoder_from_words((const char *) words->data, words->len,
                                      &step->enc, why, sizeof(why),
                                      &err) != PCTENC_OK) {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "invalid \"%V\": %s",
                               &value[0],
                               err.kind == PCTENC_KIND_BAD_WORD
                                   ? why
                                   : pctenc_status_str(err.status));
            return NGX_CONF_ERROR;
        }
        cln = ngx_pool_cleanup_add(cf->pool, 0);
        if (cln == NULL) {
            return NGX_CONF_ERROR;
        }
        cln->handler = ngx_http_pctenc_free_encoder;
        cln->data = step->enc;
    }

    if (mode != NULL) {
        words = ngx_http_pctenc_words(cf, 2, value_at + 1);
        if (words == NULL) {
            return NGX_CONF_ERROR;
        }
        if (pctenc_decoder_from_words((const char *) words->data, words->len,
                                      &step->dec, why, sizeof(why),
                                      &err) != PCTENC_OK) {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "invalid \"%V\": %s",
                               &value[0],
                               err.kind == PCTENC_KIND_BAD_WORD
                                   ? why
                                   : pctenc_status_str(err.status));
            return NGX_CONF_ERROR;
        }
        cln = ngx_pool_cleanup_add(cf->pool, 0);
        if (cln == NULL) {
            return NGX_CONF_ERROR;
        }
        cln->handler = ngx_http_pctenc_free_decoder;
        cln->data = step->dec;
    }

    ngx_memzero(&ccv, sizeof(ngx_http_compile_complex_value_t));
    ccv.cf = cf;
    ccv.value = &value[value_at];
    ccv.complex_value = &step->value;
    if (ngx_http_compile_complex_value(&ccv) != NGX_OK) {
        return NGX_CONF_ERROR;
    }

    /* $dst: a variable of its own, changeable, "not found" until a step sets
     * it. */
    name.len--, name.data++;
    if (ngx_http_pctenc_read_only(cf, &name)) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"%V\": $%V is read-only: nginx sets it, and no "
                           "directive can (use a "
                           "variable of your own as the destination)",
                           &value[0], &name);
        return NGX_CONF_ERROR;
    }
    v = ngx_http_add_variable(cf, &name, NGX_HTTP_VAR_CHANGEABLE);
    if (v == NULL) {
        return NGX_CONF_ERROR;
    }
    index = ngx_http_get_variable_index(cf, &name);
    if (index == NGX_ERROR) {
        return NGX_CONF_ERROR;
    }
    /* Variables with a prefix ($arg_q, $http_x, $cookie_c, ...) get their
     * handler when nginx resolves them, after the configuration is read, and
     * are shared by the whole http block: giving one ours would hide the
     * request's own (as `set` knows). */
    if (v->get_handler == NULL &&
        ngx_strncasecmp(name.data, (u_char *) "http_", 5) != 0 &&
        ngx_strncasecmp(name.data, (u_char *) "sent_http_", 10) != 0 &&
        ngx_strncasecmp(name.data, (u_char *) "sent_trailer_", 13) != 0 &&
        ngx_strncasecmp(name.data, (u_char *) "upstream_http_", 14) != 0 &&
        ngx_strncasecmp(name.data, (u_char *) "upstream_trailer_", 17) != 0 &&
        ngx_strncasecmp(name.data, (u_char *) "cookie_", 7) != 0 &&
        ngx_strncasecmp(name.data, (u_char *) "upstream_cookie_", 16) != 0 &&
        ngx_strncasecmp(name.data, (u_char *) "arg_", 4) != 0) {
        v->get_handler = ngx_http_pctenc_unset_variable;
        v->data = (uintptr_t) index;
    }

    rlcf = ngx_http_conf_get_module_loc_conf(cf, ngx_http_rewrite_module);
    code = ngx_http_script_start_code(cf->pool, &rlcf->codes,
                                      sizeof(ngx_http_pctenc_code_t));
    if (code == NULL) {
        return NGX_CONF_ERROR;
    }
    code->code = ngx_http_pctenc_code;
    code->step = step;
    /* A variable with a handler of its own ($args, $limit_rate) is set through
     * it, as `set` does: r->args, not only the variable's slot. */
    if (v->set_handler != NULL) {
        vhcode = ngx_http_script_start_code(
            cf->pool, &rlcf->codes, sizeof(ngx_http_script_var_handler_code_t));
        if (vhcode == NULL) {
            return NGX_CONF_ERROR;
        }
        vhcode->code = ngx_http_script_var_set_handler_code;
        vhcode->handler = v->set_handler;
        vhcode->data = v->data;
        return NGX_CONF_OK;
    }
    vcode = ngx_http_script_start_code(cf->pool, &rlcf->codes,
                                       sizeof(ngx_http_script_var_code_t));
    if (vcode == NULL) {
        return NGX_CONF_ERROR;
    }
    vcode->code = ngx_http_script_set_var_code;
    vcode->index = (uintptr_t) index;
    return NGX_CONF_OK;
}
