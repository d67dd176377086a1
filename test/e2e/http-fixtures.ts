// Inline HTTP fixtures shared by the HTTP end-to-end tests and the power claims.

/** A short load test: enough rounds for the statistics, short loads so the suite stays quick. */
export function httpConfig(name: string, extra = '', durationMs = 300, top = ''): string {
  return `rounds: 6
max-rounds: 6
${top}http:
  - name: ${name}
    start: node server.js
    ready: /health
    ready-timeout: 15s
    requests:
      - path: /todo-lists?filter=%7B%22include%22%3A%5B%22todos%22%5D%7D
    connections: 8
    duration: ${durationMs}ms
    warmup: 100ms
${extra}`;
}

export const SERVER = (body: string) => `import http from 'node:http';
${body}
server.listen(Number(process.env.PORT), process.env.HOST);
`;
export const OK_SERVER = SERVER("const server = http.createServer((req, res) => res.end(req.url === '/health' ? 'ok' : '[]'));");
