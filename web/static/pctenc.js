// The glue between the page and pctenc_web.wasm: strings in, strings (or an error with its
// place) out, through the module's plain exports (web/src/lib.rs says the protocol).

const utf8 = new TextEncoder();
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// A leading U+FEFF is text here, not a byte-order mark to drop: the CLI and
// decodeURIComponent keep it, and dropping it would shift every offset after it.
const text = new TextDecoder("utf-8", { ignoreBOM: true });

export async function load(url) {
  const response = await fetch(url);
  let module;
  try {
    module = await WebAssembly.compileStreaming(response.clone());
  } catch {
    // A server that does not say `application/wasm`: compile from the bytes.
    module = await WebAssembly.compile(await response.arrayBuffer());
  }
  return instantiate(module);
}

// pctenc from a compiled module: a worker gets the page's (`pctenc.module`), without
// fetching or compiling it again.
export async function instantiate(module) {
  return new Pctenc((await WebAssembly.instantiate(module, {})).exports, module);
}

// The result of an operation: { ok: true, output } or { ok: false, message, at } where `at`
// is a UTF-16 index into the input string.
class Pctenc {
  constructor(wasm, module) {
    this.wasm = wasm;
    this.module = module;
    this.sets = JSON.parse(this.#result(wasm.pe_sets(), "").output);
  }

  // Reads the module's output after `status`; `input` is the JavaScript string the offset
  // refers to, `bytes` its UTF-8 when the offset is a byte offset.
  #result(status, input, bytes) {
    const out = new Uint8Array(this.wasm.memory.buffer, this.wasm.pe_out_ptr(), this.wasm.pe_out_len());
    const message = text.decode(out);
    if (status === 0) return { ok: true, output: message };
    let at = this.wasm.pe_error_offset();
    if (bytes) at = text.decode(bytes.subarray(0, at)).length; // byte offset -> UTF-16 index
    return { ok: false, message, at: Math.min(at, input.length) };
  }

  // Calls `run(ptr, len)` with `input` as UTF-8 bytes in the module's memory. A lone
  // surrogate has no UTF-8 (TextEncoder would write U+FFFD instead): it is refused where it is.
  #withBytes(input, run) {
    const lone = LONE_SURROGATE.exec(input);
    if (lone) {
      const unit = input.charCodeAt(lone.index).toString(16).toUpperCase();
      return { ok: false, at: lone.index, message: `lone surrogate U+${unit}: half a UTF-16 surrogate pair is not text` };
    }
    const bytes = utf8.encode(input);
    const ptr = this.wasm.pe_alloc(bytes.length);
    new Uint8Array(this.wasm.memory.buffer, ptr, bytes.length).set(bytes);
    try {
      return this.#result(run(ptr, bytes.length), input, bytes);
    } finally {
      this.wasm.pe_free(ptr, bytes.length);
    }
  }

  // Calls `run(ptr, len)` with `words` (ASCII) in the module's memory.
  #withWords(words, run) {
    const bytes = utf8.encode(words);
    const ptr = this.wasm.pe_alloc(bytes.length);
    new Uint8Array(this.wasm.memory.buffer, ptr, bytes.length).set(bytes);
    try {
      return run(ptr, bytes.length);
    } finally {
      this.wasm.pe_free(ptr, bytes.length);
    }
  }

  // encodeURIComponent's way (UTF-16 in, a lone surrogate refused at its index) with any set.
  // The module reads the set and options as words (docs/WORDS.md), as every surface does.
  encode(input, set, flags) {
    const units = input.length;
    return this.#withWords(encodeWords(this.sets[set].name, flags), (w, wn) => {
      const ptr = this.wasm.pe_alloc(2 * units);
      const view = new Uint16Array(this.wasm.memory.buffer, ptr, units);
      for (let i = 0; i < units; i++) view[i] = input.charCodeAt(i);
      try {
        return this.#result(this.wasm.pe_encode(ptr, units, w, wn), input);
      } finally {
        this.wasm.pe_free(ptr, 2 * units);
      }
    });
  }

  decode(input, flags) {
    return this.#withWords(decodeWords(flags), (w, wn) =>
      this.#withBytes(input, (p, n) => this.wasm.pe_decode(p, n, w, wn)));
  }

  check(input, set, flags) {
    return this.#withBytes(input, (p, n) => this.wasm.pe_check(p, n, set, flags));
  }

  normalize(input) {
    return this.#withBytes(input, (p, n) => this.wasm.pe_normalize(p, n));
  }

  formParse(input) {
    const r = this.#withBytes(input, (p, n) => this.wasm.pe_form_parse(p, n));
    return r.ok ? { ok: true, pairs: JSON.parse(r.output) } : r;
  }

  formSerialize(input) {
    return this.#withBytes(input, (p, n) => this.wasm.pe_form_serialize(p, n));
  }
}

// Characters as people count them (code points), without an array of them.
export function count(text) {
  let n = text.length;
  for (let i = 0; i + 1 < text.length; i++) {
    const u = text.charCodeAt(i);
    if (u >= 0xd800 && u < 0xdc00) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next < 0xe000) { n--; i++; }
    }
  }
  return n;
}

// The first `n` UTF-16 units of `text` at most, a surrogate pair never split.
export function cut(text, n) {
  if (text.length <= n) return text;
  const u = text.charCodeAt(n - 1);
  return text.slice(0, u >= 0xd800 && u < 0xdc00 ? n - 1 : n);
}

// The page's options: bits of its boxes. Encoder bits are also pe_check's flags
// (web/src/lib.rs); encode and decode send them to the module as words (docs/WORDS.md).
export const ENCODE = { SPACE_AS_PLUS: 1, LOWERCASE: 2, KEEP_ESCAPES: 4, IRI: 8 };
export const DECODE = { LENIENT: 1, PLUS: 2, LEGACY_U: 4, UTF8_STRICT: 8, UTF8_LOSSY: 16 };

// The words of a set and encoder bits: "form space_as_plus lowercase".
export function encodeWords(set, flags) {
  const words = [set];
  if (flags & ENCODE.SPACE_AS_PLUS) words.push("space_as_plus");
  if (flags & ENCODE.LOWERCASE) words.push("lowercase");
  if (flags & ENCODE.KEEP_ESCAPES) words.push("requote");
  if (flags & ENCODE.IRI) words.push("iri");
  return words.join(" ");
}

// The words of decoder bits: "lenient plus utf8=lossy"; both UTF-8 bits give both words,
// which the parser refuses as a contradiction.
export function decodeWords(flags) {
  const words = [flags & DECODE.LENIENT ? "lenient" : "strict"];
  if (flags & DECODE.PLUS) words.push("plus");
  if (flags & DECODE.LEGACY_U) words.push("legacy_u");
  if (flags & DECODE.UTF8_STRICT) words.push("utf8=strict");
  if (flags & DECODE.UTF8_LOSSY) words.push("utf8=lossy");
  return words.join(" ");
}
