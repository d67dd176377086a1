import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inlineRepo, readJson, removeFixtureRepos, runCli } from './helpers.js';

afterAll(removeFixtureRepos);

const CONFIG = `rounds: 4
max-rounds: 4
http:
  - name: list
    start: node server.js
    ready: /health
    ready-timeout: 3s
    requests:
      - path: /list
    connections: 4
    duration: 600ms
    warmup: 200ms
`;
const SERVER = (handler: string) => `import http from 'node:http';
let n = 0;
const server = http.createServer((req, res) => { ${handler} });
server.listen(Number(process.env.PORT), process.env.HOST);
`;

describe('every wait has a deadline', () => {
  it('reports a head server that stops answering under load as an error, not as 0 requests/s', async () => {
    const repo = inlineRepo(
      { 'benchgate.yml': CONFIG, 'server.js': SERVER("res.end(req.url === '/health' ? 'ok' : '[]');") },
      // Answers the readiness check and the first requests, then holds every request open forever.
      { 'server.js': SERVER("if (req.url === '/health' || ++n <= 20) return res.end('[]'); console.log('stuck waiting for a lock');") },
    );
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json', '--profile', 'never'], repo);
    expect(run.code, run.stderr).toBe(2);
    const [bench] = readJson(path.join(repo, 'report.json')).benchmarks;
    expect(bench.verdict).toBe('error');
    expect(bench.error).toMatch(
      /^head \(working tree @ [0-9a-f]{7}\)'s server answered no request with an expected status in (a|\d+) 0\.\ds loads?/,
    );
    expect(bench.error).toContain('a hung server, not a measurement.');
    expect(bench.error).toContain('stuck waiting for a lock');
  });

  it('refuses a --base that git would read as an option, before running git', async () => {
    const repo = inlineRepo({ 'bench/a.bench.js': "export default { 'sum': () => 1 + 1 };\n" });
    const run = await runCli(['compare', '--base=--upload-pack=touch pwned'], repo);
    expect(run.code).toBe(2);
    expect(run.stdout + run.stderr).toContain("--base '--upload-pack=touch pwned' is not a git revision: give a branch, tag or commit sha");
  });
});
