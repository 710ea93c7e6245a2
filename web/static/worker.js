// The page's worker (app.js sends it inputs longer than 256 Ki units): the same module,
// run away from the page's thread so that the page stays responsive while it works. The
// first message is the page's compiled module; then each is a job, a list of calls
// { op, args, preview }. An output with `preview` comes back cut to what the page shows;
// each comes with its length in characters as `chars`. Any other output longer than the
// preview comes back cut too, with the whole of it as a Blob in `blob`, for Copy and
// Download: a Blob crosses to the page by reference, where a string of tens of megabytes is
// copied, and the copy would hold the page's thread for a tenth of a second or more.
import { instantiate, count, cut } from "./pctenc.js";

const PREVIEW = 65536;
let pctenc = null;

addEventListener("message", async ({ data }) => {
  if (data.module) {
    pctenc = instantiate(data.module);
    return;
  }
  try {
    const p = await pctenc;
    const results = data.calls.map(({ op, args, preview }) => {
      const r = p[op](...args);
      if (r.ok && typeof r.output === "string") {
        r.chars = count(r.output);
        if (preview) r.output = cut(r.output, PREVIEW);
        else if (r.output.length > PREVIEW) {
          r.blob = new Blob([r.output], { type: "text/plain;charset=utf-8" });
          r.length = r.output.length;
          r.output = cut(r.output, PREVIEW);
        }
      }
      return r;
    });
    postMessage({ results });
  } catch (e) {
    postMessage({ error: String(e) });
  }
});
