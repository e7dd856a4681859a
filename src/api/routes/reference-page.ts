/**
 * A self-contained API reference (no CDN, works offline): fetches openapi.json and renders
 * every operation with its parameters, body and responses. Text is inserted with textContent.
 */
export const REFERENCE_PAGE_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Challenge Competition Service API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.5 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:16px 24px}main{max-width:1000px;margin:0 auto;padding:16px}
.op{background:#fff;border:1px solid #dde1e7;border-radius:6px;margin:10px 0;padding:10px 14px}
.m{display:inline-block;min-width:64px;font-weight:700;text-transform:uppercase}
.get{color:#0a7d38}.post{color:#1a5fb4}.patch{color:#a15c00}.delete{color:#c01c28}.put{color:#6a3da8}
code,pre{font:12px/1.4 ui-monospace,monospace}pre{background:#f0f2f5;padding:8px;overflow:auto;max-height:320px}
h2{margin-top:28px}details summary{cursor:pointer}
</style></head><body><header><h1 id="title">API reference</h1><div id="desc"></div></header><main id="root">Loading…</main>
<script>
(async function(){
  const doc = await (await fetch('/api/v1/openapi.json')).json();
  document.getElementById('title').textContent = doc.info.title + ' v' + doc.info.version;
  document.getElementById('desc').textContent = doc.info.description || '';
  const root = document.getElementById('root'); root.textContent = '';
  const byTag = {};
  for (const [path, ops] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(ops)) {
    const tag = (op.tags && op.tags[0]) || 'other'; (byTag[tag] = byTag[tag] || []).push({path, method, op});
  }
  const el = (t, text, cls) => { const e = document.createElement(t); if (text) e.textContent = text; if (cls) e.className = cls; return e; };
  for (const [tag, ops] of Object.entries(byTag)) {
    root.appendChild(el('h2', tag));
    for (const {path, method, op} of ops) {
      const box = el('div', '', 'op');
      const line = el('div'); line.appendChild(el('span', method, 'm ' + method)); line.appendChild(el('code', path));
      box.appendChild(line); box.appendChild(el('div', op.summary || ''));
      if (op.description) box.appendChild(el('small', op.description));
      const d = el('details'); d.appendChild(el('summary', 'parameters, body and responses'));
      const detail = { parameters: op.parameters, requestBody: op.requestBody, responses: op.responses, security: op.security };
      d.appendChild(el('pre', JSON.stringify(detail, null, 2))); box.appendChild(d); root.appendChild(box);
    }
  }
})().catch(e => { document.getElementById('root').textContent = 'Could not load the OpenAPI document: ' + e; });
</script></body></html>`;
