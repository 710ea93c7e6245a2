// The page: reads the controls, runs pctenc on every change, shows the output or the error
// at its place in the input.
import { load, ENCODE, DECODE } from "./pctenc.js";

const $ = (id) => document.getElementById(id);
const input = $("input"), output = $("output"), status = $("status"), marks = $("marks");
const setSelect = $("set");

// The note for a page whose script does not run (opened from file://): this one does.
$("not-running").remove();

let pctenc;
try {
  pctenc = await load("pctenc_web.wasm");
} catch (e) {
  status.textContent = `pctenc_web.wasm could not be loaded (${e}). Serve this folder over HTTP, `
    + "for example with: python3 -m http.server -d web/dist";
  status.dataset.state = "error";
  throw e;
}
// The sets, and the default: `component`, what encodeURIComponent keeps.
pctenc.sets.forEach((s, i) => setSelect.add(new Option(s.name, String(i))));
setSelect.value = String(pctenc.sets.findIndex((s) => s.name === "component"));

const mode = () => document.querySelector('input[name="mode"]:checked').value;
const checked = (id) => $(id).checked;

function encodeFlags() {
  return (checked("space-as-plus") ? ENCODE.SPACE_AS_PLUS : 0) | (checked("lowercase") ? ENCODE.LOWERCASE : 0)
    | (checked("keep-escapes") ? ENCODE.KEEP_ESCAPES : 0) | (checked("iri") ? ENCODE.IRI : 0);
}

function decodeFlags() {
  const lenient = document.querySelector('input[name="strictness"]:checked').value === "lenient";
  const utf8 = $("utf8").value;
  return (lenient ? DECODE.LENIENT : 0) | (checked("plus") ? DECODE.PLUS : 0) | (checked("legacy-u") ? DECODE.LEGACY_U : 0)
    | (utf8 === "strict" ? DECODE.UTF8_STRICT : utf8 === "lossy" ? DECODE.UTF8_LOSSY : 0);
}

// A textarea holds every line break as LF, a CR typed or pasted included, so a CRLF can
// only be asked for: with "Line breaks as CRLF" each LF is encoded as CR LF. `back` turns
// an index into the text encoded (a lone surrogate's) into one into the input.
function encodeText(value) {
  if (!checked("crlf")) return { text: value, back: (at) => at };
  return {
    text: value.replaceAll("\n", "\r\n"),
    back(at) {
      let i = 0;
      for (let j = 0; j < at && i < value.length; i++) j += value[i] === "\n" ? 2 : 1;
      return i;
    },
  };
}

function encode(value, set, flags) {
  const { text, back } = encodeText(value);
  const r = pctenc.encode(text, set, flags);
  return r.ok ? r : { ...r, at: back(r.at) };
}

// Shows which options apply to the current mode.
function showOptions() {
  const m = mode();
  for (const el of document.querySelectorAll("[data-modes]")) {
    el.hidden = !el.dataset.modes.split(" ").includes(m);
  }
  $("compare").hidden = m !== "compare";
  $("pairs").hidden = !(m === "form" && direction() === "parse");
  document.body.dataset.mode = m;
}

const direction = () => document.querySelector('input[name="direction"]:checked').value;

function showSetInfo() {
  const s = pctenc.sets[Number(setSelect.value)];
  const aliases = s.aliases.length ? ` Also called ${s.aliases.join(", ")}.` : "";
  const info = `${s.description}. Keeps A-Z a-z 0-9 ${s.keeps.replaceAll(" ", "space ")}; `
    + `a space is ${s.space === "kept" ? "kept" : "written " + s.space}.${aliases}`;
  // Only when the set changes, so that a screen reader is not told again at every key.
  if ($("set-info").textContent !== info) $("set-info").textContent = info;
}

// The input's text with the character at `at` (a UTF-16 index) marked, behind the textarea.
function mark(at) {
  marks.replaceChildren();
  if (at === null) return;
  const value = input.value;
  const end = at < value.length ? at + (value.codePointAt(at) > 0xffff ? 2 : 1) : at;
  const m = document.createElement("mark");
  m.textContent = at < value.length ? value.slice(at, end) : " ";
  marks.append(value.slice(0, at), m, value.slice(end) + "\n");
  fitLayer();
}

// The layer behind the textarea must wrap the text where the textarea does: when the
// textarea shows a classic scrollbar its text is narrower by the scrollbar's width, which the
// layer (it has none) does not know. So the layer takes the textarea's client width, and its
// scroll position.
const layer = marks.parentElement;
function fitLayer() {
  const style = getComputedStyle(input);
  const borders = parseFloat(style.borderLeftWidth) + parseFloat(style.borderRightWidth);
  layer.style.width = `${input.clientWidth + borders}px`;
  syncScroll();
}

function syncScroll() {
  layer.scrollTop = input.scrollTop;
  layer.scrollLeft = input.scrollLeft;
}
// A scrollbar that comes or goes, a resized box or window: the textarea's client box changes.
new ResizeObserver(fitLayer).observe(input);

// The output as it is, for Copy: the box may show it otherwise.
let shown = "";

// Characters as people count them (code points), without an array of them.
function count(text) {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const u = text.charCodeAt(i);
    if (u >= 0xd800 && u < 0xdc00 && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next < 0xe000) { n--; i++; }
    }
  }
  return n;
}

// The bidirectional formatting characters: invisible, and U+202E (right-to-left override)
// reverses the text after it. The output box shows each as a token, ⟨U+202E⟩, in a span
// that isolates it (style.css) so it reorders nothing; the span holds the character itself,
// so that the box's text, and Copy, stay the output.
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

function showText(el, text) {
  el.replaceChildren();
  let last = 0;
  for (const m of text.matchAll(BIDI)) {
    const span = document.createElement("span");
    span.className = "bidi";
    span.dataset.code = `U+${m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
    span.textContent = m[0];
    el.append(text.slice(last, m.index), span);
    last = m.index + 1;
  }
  el.append(text.slice(last));
}

const VERBS = { encode: "Encoded", decode: "Decoded", normalize: "Normalized", compare: "Encoded", form: "Serialized" };

// Shows a result. The status line, the page's one live region, says what happened in a few
// words (a screen reader reads it at every change), never the output itself. `summary`
// replaces the default "Encoded: N characters."
function show(result, summary) {
  if (result.ok) {
    shown = result.output;
    showText(output, result.output);
    status.textContent = summary ?? `${VERBS[mode()]}: ${count(result.output).toLocaleString("en")} characters.`;
    delete status.dataset.state;
    input.removeAttribute("aria-invalid");
    input.removeAttribute("aria-errormessage");
    mark(null);
    return;
  }
  shown = "";
  output.textContent = "";
  // `at` is a UTF-16 index; people count characters (code points).
  const where = result.at < input.value.length
    ? `character ${count(input.value.slice(0, result.at)) + 1}` : "the end";
  status.textContent = `Error at offset ${result.at} (${where}): ${result.message}`;
  status.dataset.state = "error";
  input.setAttribute("aria-invalid", "true");
  input.setAttribute("aria-errormessage", "status");
  mark(result.at);
}

// Marking is per character: beyond this many the table shows each set's output unmarked.
const MARK_LIMIT = 2000;

// Every set on the input: the characters whose encoding differs between sets are marked.
// Each character is encoded on its own, and so is each `%HH` when escapes are kept (the one
// thing that depends on what follows a character); the pieces join to the whole output.
function compare() {
  const value = encodeText(input.value).text, flags = encodeFlags();
  const units = flags & ENCODE.KEEP_ESCAPES ? value.match(/%[0-9A-Fa-f]{2}|[\s\S]/gu) ?? [] : Array.from(value);
  const chars = units.length <= MARK_LIMIT ? units : [];
  const rows = pctenc.sets.map((s, i) => ({ name: s.name, whole: encode(input.value, i, flags),
    parts: chars.map((c) => pctenc.encode(c, i, flags)) }));
  const tbody = $("compare-rows");
  tbody.replaceChildren();
  for (const row of rows) {
    const tr = tbody.insertRow();
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = row.name;
    tr.append(th);
    const td = tr.insertCell();
    if (!row.whole.ok) {
      td.textContent = `error at offset ${row.whole.at}: ${row.whole.message}`;
      td.className = "bad";
      continue;
    }
    if (!chars.length) {
      td.textContent = row.whole.output;
      continue;
    }
    row.parts.forEach((part, k) => {
      const text = part.ok ? part.output : "\uFFFD";
      const differs = rows.some((other) => (other.parts[k].ok ? other.parts[k].output : "") !== text);
      if (differs) {
        const m = document.createElement("mark");
        m.textContent = text;
        td.append(m);
      } else {
        td.append(text);
      }
    });
  }
  show(rows[Number(setSelect.value)].whole);
}

function update() {
  showOptions();
  showSetInfo();
  const value = input.value, set = Number(setSelect.value);
  switch (mode()) {
    case "encode": return show(encode(value, set, encodeFlags()));
    case "decode": return show(pctenc.decode(value, decodeFlags()));
    case "check": {
      const r = pctenc.check(value, set, encodeFlags() & (ENCODE.SPACE_AS_PLUS | ENCODE.IRI));
      return show(r, r.output);
    }
    case "normalize": return show(pctenc.normalize(value));
    case "compare": return compare();
    case "form": {
      if (direction() === "serialize") return show(pctenc.formSerialize(value));
      const r = pctenc.formParse(value);
      const tbody = $("pair-rows");
      tbody.replaceChildren();
      if (!r.ok) return show(r);
      for (const [name, v] of r.pairs) {
        const tr = tbody.insertRow();
        showText(tr.insertCell(), name);
        showText(tr.insertCell(), v);
      }
      const n = r.pairs.length;
      return show({ ok: true, output: r.pairs.map(([n, v]) => `${n} = ${v}`).join("\n") },
        `Read ${n.toLocaleString("en")} ${n === 1 ? "pair" : "pairs"}.`);
    }
  }
}

input.addEventListener("input", update);
input.addEventListener("scroll", syncScroll);
document.querySelector("main").addEventListener("change", update);
$("copy").addEventListener("click", async () => {
  const button = $("copy");
  try {
    await navigator.clipboard.writeText(shown);
    button.textContent = "Copied";
  } catch {
    button.textContent = "Copy failed: select the output and copy it";
  }
  setTimeout(() => { button.textContent = "Copy output"; }, 1500);
});
update();
document.body.dataset.ready = "true";
