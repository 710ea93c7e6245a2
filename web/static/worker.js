// The page's worker (app.js sends it inputs longer than 256 Ki units): the same module,
// run away from the page's thread so that the page stays responsive while it works. A job
// is a list of calls { op, args, preview }; an output with `preview` comes back cut to what
// the page shows, each with its length in characters as `chars`.
import { load, count, cut } from "./pctenc.js";

const PREVIEW = 65536;
const pctenc = load("pctenc_web.wasm");

addEventListener("message", async ({ data: { calls } }) => {
  try {
    const p = await pctenc;
    const results = calls.map(({ op, args, preview }) => {
      const r = p[op](...args);
      if (r.ok && typeof r.output === "string") {
        r.chars = count(r.output);
        if (preview) r.output = cut(r.output, PREVIEW);
      }
      return r;
    });
    postMessage({ results });
  } catch (e) {
    postMessage({ error: String(e) });
  }
});
