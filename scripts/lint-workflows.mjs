// Writes every workflow example of the README and docs/ (a ```yaml block with a `jobs:` key) to a file
// of its own in the given directory, so actionlint checks the docs as well as .github/workflows/.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const out = process.argv[2];
if (!out) throw new Error('usage: node scripts/lint-workflows.mjs <out-dir>');
mkdirSync(out, { recursive: true });
const pages = [
  'README.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join('docs', name)),
];
let count = 0;
for (const page of pages) {
  const blocks = [...readFileSync(page, 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)]
    .map((m) => m[1])
    .filter((yaml) => /^jobs:/m.test(yaml));
  blocks.forEach((yaml, i) => writeFileSync(path.join(out, `${page.replace(/[/.]/g, '-')}-example-${i + 1}.yml`), yaml));
  count += blocks.length;
}
console.log(`${count} workflow examples from ${pages.join(', ')}`);
