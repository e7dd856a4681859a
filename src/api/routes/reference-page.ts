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
    deepLinking: true,
    validatorUrl: null,
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
  });
});
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
</head>
<body>
<noscript><p>The reference needs JavaScript; the document itself is <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p></noscript>
<main id="swagger-ui"></main>
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
