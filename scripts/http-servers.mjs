// The HTTP evaluation's servers: one realistic route (a path parameter, a JSON body, a request header read and
// a response header set) on a bare node:http server and on real frameworks, each from its own npm package at a
// pinned version. Used by npm run evaluate:http (SERVER=...) and scripts/http-variance.mjs; by hand:
//   node scripts/http-servers.mjs KIND DIR [SPIN]   writes the project (package.json, server.js, benchgate.yml)
// SPIN is the calibrated busy loop per request that makes a head slower (0: none).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The frameworks, each pinned: what a user's package.json would hold. */
export const PACKAGES = {
  bare: {},
  express: { express: '5.3.0' },
  fastify: { fastify: '5.12.8' },
  hapi: { '@hapi/hapi': '21.4.10' },
};
export const KINDS = Object.keys(PACKAGES);

/** The request every server answers: POST /users/:id/orders with a JSON order and a tenant header. */
export const REQUEST = {
  method: 'POST',
  path: '/users/42/orders',
  headers: { 'content-type': 'application/json', 'x-tenant': 'acme' },
  body: JSON.stringify({
    items: [
      { sku: 'a-100', qty: 2, price: 9.5 },
      { sku: 'b-220', qty: 1, price: 24 },
      { sku: 'c-310', qty: 5, price: 1.25 },
    ],
    note: 'leave at the door',
  }),
};

// The work every framework's handler shares: read the order, total it, answer with what a real API answers.
const ANSWER = `let sink = 0;
function answer(id, tenant, order) {
  for (let i = 0; i < SPIN; i++) sink = (sink + i * 7) | 0;
  const items = order.items.map((item) => ({ ...item, line: item.qty * item.price }));
  const total = items.reduce((sum, item) => sum + item.line, 0);
  return { user: id, tenant: tenant ?? null, count: items.length, total, items, note: order.note, sink: sink & 1 };
}
let next = 0;
const requestId = () => 'req-' + (next++).toString(36);
const port = Number(process.env.PORT);
const host = process.env.HOST ?? '127.0.0.1';
`;

const SERVERS = {
  bare: `import http from 'node:http';
${ANSWER}
http
  .createServer((req, res) => {
    if (req.url === '/health') return res.end('ok');
    const match = /^\\/users\\/([^/?]+)\\/orders$/.exec(req.url);
    if (!match || req.method !== 'POST') {
      res.statusCode = 404;
      return res.end();
    }
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const out = answer(match[1], req.headers['x-tenant'], JSON.parse(body));
      res.setHeader('content-type', 'application/json');
      res.setHeader('x-request-id', requestId());
      res.end(JSON.stringify(out));
    });
  })
  .listen(port, host);
`,
  express: `import express from 'express';
${ANSWER}
const app = express();
app.use(express.json());
app.get('/health', (req, res) => res.send('ok'));
app.post('/users/:id/orders', (req, res) => {
  res.set('x-request-id', requestId());
  res.json(answer(req.params.id, req.get('x-tenant'), req.body));
});
app.listen(port, host);
`,
  fastify: `import Fastify from 'fastify';
${ANSWER}
const app = Fastify({ logger: false });
app.get('/health', async () => 'ok');
app.post('/users/:id/orders', async (request, reply) => {
  reply.header('x-request-id', requestId());
  return answer(request.params.id, request.headers['x-tenant'], request.body);
});
await app.listen({ port, host });
`,
  hapi: `import Hapi from '@hapi/hapi';
${ANSWER}
const server = Hapi.server({ port, host });
server.route({ method: 'GET', path: '/health', handler: () => 'ok' });
server.route({
  method: 'POST',
  path: '/users/{id}/orders',
  handler: (request, h) => h.response(answer(request.params.id, request.headers['x-tenant'], request.payload)).header('x-request-id', requestId()),
});
await server.start();
`,
};

/** benchgate.yml's load test for the route, with the given extra keys (budget, duration, ...). */
export function httpConfig(kind, extra = '') {
  return `http:
  - name: ${kind} orders
    start: node server.js
    ready: /health
    requests:
      - method: POST
        path: ${REQUEST.path}
        headers: { content-type: application/json, x-tenant: acme }
        body: '${REQUEST.body}'
${extra}`;
}

/** The project's files for one kind of server, with `spin` steps of busy work per request. */
export function serverFiles(kind, spin = 0) {
  if (!SERVERS[kind]) throw new Error(`unknown server kind '${kind}': one of ${KINDS.join(', ')}`);
  return {
    'package.json': `${JSON.stringify({ name: `evaluate-${kind}`, private: true, type: 'module', dependencies: PACKAGES[kind] }, null, 2)}\n`,
    'server.js': SERVERS[kind].replace('SPIN', String(spin)),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [kind, dir, spin = '0'] = process.argv.slice(2);
  if (!kind || !dir) throw new Error('usage: node scripts/http-servers.mjs KIND DIR [SPIN]');
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries({ ...serverFiles(kind, Number(spin)), 'benchgate.yml': httpConfig(kind) }))
    writeFileSync(path.join(dir, file), text);
}
