// npm run bench:site: how `benchgate publish` scales, and how soon its pages are usable in headless Chromium.
/* global requestAnimationFrame, location -- the functions handed to page.evaluate run in the browser */
// Histories made up by scripts/synthetic-history.mjs (pushes × benchmarks), published by the built CLI; the page
// opened from file://, the time read from its own marks: the overview usable (every row in the table, the first
// screen of sparklines drawn) and a benchmark's view drawn (both charts and its table of every push).
//   SIZES="1000x200 5000x20 5000x200" CHROMIUM=/usr/bin/chromium node scripts/bench-site.mjs
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { syntheticHistory } from './synthetic-history.mjs';

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const sizes = (process.env.SIZES ?? '1000x200 5000x20 5000x200').split(/\s+/).filter(Boolean);
const loads = Number(process.env.LOADS ?? 5);

function bytesOf(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .reduce((sum, e) => sum + statSync(path.join(e.parentPath, e.name)).size, 0);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox'],
});
try {
  console.log(
    `node ${process.version}, ${os.cpus().length} CPUs, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log(
    '| pushes × benchmarks | history | publish | site | largest file | overview usable (median of %d) | a benchmark drawn |'.replace(
      '%d',
      loads,
    ),
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const size of sizes) {
    const [pushes, benchmarks] = size.split('x').map(Number);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'benchgate-site-bench-'));
    try {
      const records = syntheticHistory({ pushes, benchmarks, releaseEvery: 250 });
      const history = path.join(dir, 'history.jsonl');
      writeFileSync(history, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
      const started = process.hrtime.bigint();
      execFileSync(
        process.execPath,
        [cli, 'publish', history, '--out', path.join(dir, 'site'), '--repository', 'https://github.com/acme/widgets'],
        {
          stdio: 'pipe',
        },
      );
      const publishMs = Number(process.hrtime.bigint() - started) / 1e6;
      const files = readdirSync(path.join(dir, 'site'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
      const largest = Math.max(...files.map((e) => statSync(path.join(e.parentPath, e.name)).size));
      const url = `file://${path.join(dir, 'site', 'index.html')}`;
      const overview = [];
      const benchmark = [];
      for (let i = 0; i < loads; i++) {
        const page = await browser.newPage();
        await page.setViewport({ width: 1200, height: 900 });
        await page.goto(url);
        await page.waitForFunction(() => performance.getEntriesByName('benchgate-overview').length > 0);
        // The sparklines on screen are drawn in the next frames: wait for them too.
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        overview.push(await page.evaluate(() => performance.now()));
        const mark = await page.evaluate(() => performance.now());
        await page.evaluate(() => (location.hash = '#b=0'));
        await page.waitForFunction(() => performance.getEntriesByName('benchgate-benchmark').length > 0);
        benchmark.push(await page.evaluate((m) => performance.getEntriesByName('benchgate-benchmark')[0].startTime - m, mark));
        await page.close();
      }
      const mb = (b) => `${(b / 1024 / 1024).toFixed(1)} MB`;
      console.log(
        `| ${pushes} × ${benchmarks} | ${mb(statSync(history).size)} | ${(publishMs / 1000).toFixed(1)} s | ${mb(bytesOf(path.join(dir, 'site')))} in ${files.length} files | ${(largest / 1024).toFixed(0)} kB | ${median(overview).toFixed(0)} ms | ${median(benchmark).toFixed(0)} ms |`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
} finally {
  await browser.close();
}
