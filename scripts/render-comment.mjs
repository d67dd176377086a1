// Renders a benchgate markdown report the way GitHub shows a PR comment (GFM + GitHub's markdown CSS)
// and screenshots it with headless Chromium: node scripts/render-comment.mjs report.md docs/pr-comment.png
// OPEN="where the time went" shows the collapsed sections whose summary contains that text opened, as after a click.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { marked } from 'marked';

const [input, output, width = '980', height = '900'] = process.argv.slice(2);
if (!input || !output) throw new Error('usage: node scripts/render-comment.mjs <report.md> <out.png> [width] [height]');
const css = readFileSync(createRequire(import.meta.url).resolve('github-markdown-css/github-markdown-light.css'), 'utf8');
let body = marked.parse(readFileSync(input, 'utf8').replace(/^<!-- benchgate:.*-->\n/, ''), { gfm: true });
if (process.env.OPEN)
  body = body.replace(/<details>(<summary>[^<]*)/g, (all, summary) =>
    summary.includes(process.env.OPEN) ? `<details open>${summary}` : all,
  );
const page = `<!doctype html><html><head><meta charset="utf-8"><style>${css}
body { background: #fff; margin: 0; padding: 16px; font-family: -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; }
.comment { border: 1px solid #d1d9e0; border-radius: 6px; max-width: 920px; }
.header { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 16px; font-size: 14px; color: #59636e; border-radius: 6px 6px 0 0; }
.header b { color: #1f2328; }
.markdown-body { padding: 16px; font-size: 14px; }
</style></head><body><div class="comment"><div class="header"><b>github-actions</b> <span>bot</span> commented</div>
<article class="markdown-body">${body}</article></div></body></html>`;
const dir = mkdtempSync(path.join(os.tmpdir(), 'benchgate-render-'));
const html = path.join(dir, 'comment.html');
writeFileSync(html, page);
execFileSync(
  'chromium',
  [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--user-data-dir=${path.join(dir, 'profile')}`,
    '--hide-scrollbars',
    `--window-size=${width},${height}`,
    `--screenshot=${path.resolve(output)}`,
    `file://${html}`,
  ],
  { stdio: 'ignore' },
);
console.log(`wrote ${output}`);
