import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { notFound } from '../../errors';
import { defineRoute } from '../route';

/**
 * The API reference: Swagger UI (npm `swagger-ui-dist`), served from node_modules so it works
 * offline, over /api/v1/openapi.json. No inline script (the initialiser is a served file), no
 * request leaves the origin (validatorUrl off), and a CSP that allows only this origin; Swagger UI
 * sets style attributes, hence `'unsafe-inline'` for styles only.
 */
const ASSET_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));

const INIT_JS = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/api/v1/openapi.json',
    dom_id: '#swagger-ui',
    // Deep links put an <a> inside each operation's toggle <button> (nested interactive controls).
    deepLinking: false,
    validatorUrl: null,
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
  });
  // Swagger UI renders its servers <select> without a label and its scrolling code samples out
  // of keyboard reach; it re-renders as operations open, so keep watching.
  var root = document.getElementById('swagger-ui');
  new MutationObserver(function () {
    var servers = document.getElementById('servers');
    if (servers && !servers.hasAttribute('aria-label')) servers.setAttribute('aria-label', 'Server');
    root.querySelectorAll('pre.microlight:not([tabindex])').forEach(function (pre) {
      pre.setAttribute('tabindex', '0');
    });
  }).observe(root, { childList: true, subtree: true });
});
`;

/**
 * Swagger UI's own colours fail WCAG AA contrast (white on light method badges, light blue links,
 * the green version stamp and Authorize button); these overrides darken them and nothing else.
 */
const CONTRAST_CSS = `.swagger-ui .info .title small.version-stamp { background-color: #3d6b00; }
.swagger-ui .info .title small { background-color: #55606a; }
.swagger-ui .info a, .swagger-ui .info .url, .swagger-ui .info__license__url .link { color: #1b5fa8; }
.swagger-ui .btn.authorize { color: #1e6b45; border-color: #1e6b45; }
.swagger-ui .btn.authorize span { color: #1e6b45; }
.swagger-ui .btn.authorize svg { fill: #1e6b45; }
.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1d5f99; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #1e6b45; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #8a4b00; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #b3261e; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #0b6b57; }
.swagger-ui .opblock.opblock-head .opblock-summary-method { background: #6b3fa0; }
.swagger-ui .opblock.opblock-options .opblock-summary-method { background: #1d5f99; }
.swagger-ui .parameter__in, .swagger-ui .parameter__type, .swagger-ui .prop-format,
.swagger-ui .parameter__deprecated, .swagger-ui .response-col_links i { color: #505860; }
`;

const ASSETS: Record<string, { type: string; load: () => string }> = {
  'swagger-ui.css': {
    type: 'text/css; charset=utf-8',
    load: () => readFileSync(path.join(ASSET_DIR, 'swagger-ui.css'), 'utf8'),
  },
  'swagger-ui-bundle.js': {
    type: 'text/javascript; charset=utf-8',
    // The source-map comment would make browsers request a file we do not serve.
    load: () =>
      readFileSync(path.join(ASSET_DIR, 'swagger-ui-bundle.js'), 'utf8').replace(
        /\n\/\/# sourceMappingURL=.*$/,
        '\n',
      ),
  },
  'init.js': { type: 'text/javascript; charset=utf-8', load: () => INIT_JS },
  'contrast.css': { type: 'text/css; charset=utf-8', load: () => CONTRAST_CSS },
};
const loaded = new Map<string, string>();

const REFERENCE_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Challenge Competition Service API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/api/v1/docs/assets/swagger-ui.css">
<link rel="stylesheet" href="/api/v1/docs/assets/contrast.css">
</head>
<body>
<noscript><p>The reference needs JavaScript; the document itself is <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p></noscript>
<nav aria-label="Site" style="display:flex;flex-wrap:wrap;gap:6px 20px;padding:10px 20px;border-bottom:1px solid #d8dde3;font:14px/1.4 system-ui,sans-serif;background:#fff"><a href="/" style="color:#1b4f8a">&larr; All challenges</a><a href="/me" style="color:#1b4f8a">My submissions</a><a href="/api/v1/openapi.json" style="color:#1b4f8a">OpenAPI document (JSON)</a></nav>
<div id="swagger-ui"></div>
<script src="/api/v1/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/v1/docs/assets/init.js"></script>
</body>
</html>
`;

const PAGE_HEADERS = {
  'Content-Security-Policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "connect-src 'self'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

export const referenceRoutes = [
  defineRoute({
    operationId: 'getApiReference',
    method: 'get',
    path: '/api/v1/docs',
    summary: 'Rendered API reference (Swagger UI, served locally)',
    tags: ['system'],
    auth: 'public',
    rateLimit: 'reads',
    internal: true,
    responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
    async handler() {
      return { raw: REFERENCE_PAGE_HTML, contentType: 'text/html; charset=utf-8', headers: PAGE_HEADERS };
    },
  }),
  defineRoute({
    operationId: 'getApiReferenceAsset',
    method: 'get',
    path: '/api/v1/docs/assets/:file',
    summary: "The reference page's script and style files",
    tags: ['system'],
    auth: 'public',
    rateLimit: 'reads',
    internal: true,
    params: z.object({ file: z.string().max(100) }),
    responses: { 200: { description: 'a static file' } },
    async handler({ params }) {
      const asset = ASSETS[params.file];
      if (!Object.hasOwn(ASSETS, params.file) || !asset) throw notFound('file');
      let body = loaded.get(params.file);
      if (body === undefined) loaded.set(params.file, (body = asset.load()));
      return {
        raw: body,
        contentType: asset.type,
        headers: { 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' },
      };
    },
  }),
];
