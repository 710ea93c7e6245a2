// The page: reads the controls, runs pctenc on every change, shows the output or the error
// at its place in the input.
import { load, count, cut, ENCODE, DECODE } from "./pctenc.js";

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

const mapBack = (r, back) => (r.ok ? r : { ...r, at: back(r.at) });

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

const MARK_INPUT_LIMIT = 1 << 20;

// The input's text with the character at `at` (a UTF-16 index) marked, behind the textarea.
function mark(at) {
  marks.replaceChildren();
  // Drawing the text a second time, behind the textarea, costs seconds for megabytes; the
  // status line gives the error's place in any case.
  if (at === null || input.value.length > MARK_INPUT_LIMIT) return;
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

// The output as it is, for Copy and Download: the box may show it otherwise. A string, or
// a Blob when the worker made the output (its `blob`).
let shown = "";

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

// The output box shows at most this many UTF-16 units of an output (about 64 KiB):
// drawing megabytes of text, wrapped anywhere, takes the browser minutes. Copy and
// Download give the whole output.
const PREVIEW = 65536;

// Shows a result. The status line, the page's one live region, says what happened in a few
// words (a screen reader reads it at every change), never the output itself. `summary`
// replaces the default "Encoded: N characters."
function show(result, summary) {
  output.removeAttribute("aria-busy");
  if (result.ok) {
    shown = result.blob ?? result.output;
    const part = cut(result.output, PREVIEW);
    showText(output, part);
    const chars = result.chars ?? count(result.output);
    status.textContent = summary ?? `${VERBS[mode()]}: ${chars.toLocaleString("en")} characters.`;
    if (part.length < (result.length ?? result.output.length)) {
      status.textContent += ` The box shows the first ${count(part).toLocaleString("en")}; Copy and Download give all of them.`;
    }
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
// A row of the table shows at most this many units of its output.
const ROW_PREVIEW = 2000;
// And the pairs table this many pairs.
const PAIR_LIMIT = 1000;

// Every set on the input (`text`, line breaks as asked): the characters whose encoding
// differs between sets are marked. Each character is encoded on its own, and so is each
// `%HH` when escapes are kept (the one thing that depends on what follows a character); the
// pieces join to the whole output. `wholes` are the sets' encodings of the whole text.
function compare(text, flags, wholes) {
  const units = text.length > 2 * MARK_LIMIT ? []
    : flags & ENCODE.KEEP_ESCAPES ? text.match(/%[0-9A-Fa-f]{2}|[\s\S]/gu) ?? [] : Array.from(text);
  const chars = units.length <= MARK_LIMIT ? units : [];
  const rows = pctenc.sets.map((s, i) => ({ name: s.name, whole: wholes[i],
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
      const part = cut(row.whole.output, ROW_PREVIEW);
      const chars = row.whole.chars ?? count(row.whole.output);
      td.textContent = part.length < row.whole.output.length || chars > count(part)
        ? `${part}… (${chars.toLocaleString("en")} characters)` : part;
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

function showPairs(r) {
  const tbody = $("pair-rows");
  tbody.replaceChildren();
  if (!r.ok) return show(r);
  for (const [name, v] of r.pairs.slice(0, PAIR_LIMIT)) {
    const tr = tbody.insertRow();
    showText(tr.insertCell(), name);
    showText(tr.insertCell(), v);
  }
  const n = r.pairs.length;
  if (n > PAIR_LIMIT) {
    const cell = tbody.insertRow().insertCell();
    cell.colSpan = 2;
    cell.textContent = `… and ${(n - PAIR_LIMIT).toLocaleString("en")} more: Copy or Download the output for all.`;
  }
  return show({ ok: true, output: r.pairs.map(([n, v]) => `${n} = ${v}`).join("\n") },
    `Read ${n.toLocaleString("en")} ${n === 1 ? "pair" : "pairs"}.`);
}

// What the controls ask for: calls of pctenc's methods ({ op, args }, with `preview` when
// only the start of the output is shown), and what to do with their results.
function plan() {
  const value = input.value, set = Number(setSelect.value);
  const one = (op, args, then = (r) => show(r)) => ({ calls: [{ op, args }], done: ([r]) => then(r) });
  switch (mode()) {
    case "encode": {
      const { text, back } = encodeText(value);
      return one("encode", [text, set, encodeFlags()], (r) => show(mapBack(r, back)));
    }
    case "decode": return one("decode", [value, decodeFlags()]);
    case "check": return one("check", [value, set, encodeFlags() & (ENCODE.SPACE_AS_PLUS | ENCODE.IRI)], (r) => show(r, r.output));
    case "normalize": return one("normalize", [value]);
    case "compare": {
      const { text, back } = encodeText(value);
      const flags = encodeFlags();
      return { calls: pctenc.sets.map((_, i) => ({ op: "encode", args: [text, i, flags], preview: i !== set })),
        done: (wholes) => compare(text, flags, wholes.map((r) => mapBack(r, back))) };
    }
    case "form":
      return direction() === "serialize" ? one("formSerialize", [value]) : one("formParse", [value], showPairs);
  }
}

const here = ({ op, args }) => pctenc[op](...args);

// Inputs longer than this (in UTF-16 units) are worked on in a worker (worker.js, the same
// module), so that the page stays responsive; shorter ones here, at once.
const BIG = 1 << 18;

// The worker does one job at a time; of the changes made meanwhile only the last waits.
let worker = null, running = null, waiting = null, latest = 0;
try {
  worker = new Worker(new URL("worker.js", import.meta.url), { type: "module" });
  worker.postMessage({ module: pctenc.module });
  worker.addEventListener("message", ({ data }) => {
    const job = running;
    running = null;
    if (job.id === latest) job.done(data.error ? job.calls.map(here) : data.results);
    next();
  });
  // A worker that cannot start: the work is done here.
  worker.addEventListener("error", () => {
    worker = null;
    for (const job of [running, waiting]) if (job?.id === latest) job.done(job.calls.map(here));
    running = waiting = null;
  });
} catch {
  worker = null;
}

function next() {
  if (running || !waiting) return;
  running = waiting;
  waiting = null;
  worker.postMessage({ calls: running.calls });
}

function update() {
  showOptions();
  showSetInfo();
  const job = { ...plan(), id: ++latest };
  if (input.value.length <= BIG || !worker) return job.done(job.calls.map(here));
  output.setAttribute("aria-busy", "true");
  status.textContent = `Working on ${input.value.length.toLocaleString("en")} characters…`;
  delete status.dataset.state;
  waiting = job;
  next();
}

input.addEventListener("input", update);
input.addEventListener("scroll", syncScroll);
document.querySelector("main").addEventListener("change", update);
$("copy").addEventListener("click", async () => {
  const button = $("copy");
  try {
    await navigator.clipboard.writeText(typeof shown === "string" ? shown : await shown.text());
    button.textContent = "Copied";
  } catch {
    button.textContent = "Copy failed: use Download";
  }
  setTimeout(() => { button.textContent = "Copy output"; }, 1500);
});
$("download").addEventListener("click", () => {
  const blob = typeof shown === "string" ? new Blob([shown], { type: "text/plain;charset=utf-8" }) : shown;
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = "pctenc-output.txt";
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
});
update();
document.body.dataset.ready = "true";
